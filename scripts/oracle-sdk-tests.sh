#!/usr/bin/env bash
# make test-oracle-sdk: Oracle's own test suite for its Python SDK (select-ai 1.5.0 on PyPI),
# run unchanged against the extension through our select_ai client (python/select-ai).
# docs/oracle-sdk-conformance.md says what runs, what is replaced and why.
#
# Steps: fetch the sdist (pinned by sha256, cached under $TMPBASE/oracle-sdk, never committed);
# extract its tests/ into a fresh run directory with our conftest in front of Oracle's; install
# the client into the tier's venv; start a throwaway cluster and the fake model, each proven to
# answer; run the suite (without tests/a2a: Oracle's managed A2A server) under a per-test timeout
# and a total budget; compare with tests/oracle_sdk/expected_failures.txt; stop everything,
# also on failure.
#
# Environment (the Makefile sets them): TMPBASE, SDK_VENV (the tier's venv, with
# tests/oracle_sdk/requirements.txt), ORACLE_SDK_PORT, ORACLE_SDK_MIN_PASSED (passed tests in
# all), ORACLE_SDK_AGENT_MIN_PASSED (passed tests of tests/agents: issue 33),
# ORACLE_SDK_TIMEOUT (seconds per test), ORACLE_SDK_BUDGET (seconds for the whole run),
# ORACLE_SDK_RECORD=1 (rewrite the expected-failures list and the doc's table from this run),
# ORACLE_SDK_PYTEST_ARGS (more pytest arguments, e.g. -k or -x), ORACLE_SDK_CLIENT (the client's
# directory; default python/select-ai), ORACLE_SDK_PATHS (run only these files or folders of
# the suite, e.g. tests/agents, while working on them; pass ORACLE_SDK_MIN_PASSED=0 with it),
# PG_CONFIG (scripts/pg-cluster.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/tests/oracle_sdk"
TMPBASE="${TMPBASE:-/tmp/dbms_cloud_ai}"
BASE="$TMPBASE/oracle-sdk"
VENV="${SDK_VENV:-$ROOT/.venv-oracle-sdk}"
PORT="${ORACLE_SDK_PORT:-54333}"
MIN_PASSED="${ORACLE_SDK_MIN_PASSED:-450}"
AGENT_MIN_PASSED="${ORACLE_SDK_AGENT_MIN_PASSED:-150}"
TIMEOUT="${ORACLE_SDK_TIMEOUT:-30}"
BUDGET="${ORACLE_SDK_BUDGET:-900}"
CLIENT="${ORACLE_SDK_CLIENT:-$ROOT/python/select-ai}"

SDIST_NAME=select_ai-1.5.0.tar.gz
SDIST_SHA256=8f56da73a637b95daaa7c30504fc8133a1e667932ceb9287500f70b3cb5ec1f1
# PyPI's JSON simple index (PEP 691) lists each file's URL and sha256.
INDEX_URL=https://pypi.org/simple/select-ai/
SDIST="$BASE/$SDIST_NAME"
RUN="$BASE/run"
CLUSTER="$BASE/cluster"
DBNAME=select_ai_tests

say() { echo "oracle-sdk: $*" >&2; }
die() { say "$*"; exit 1; }
started=$SECONDS

fetch_sdist() {
    if [ -f "$SDIST" ] && echo "$SDIST_SHA256  $SDIST" | sha256sum -c --status; then
        return
    fi
    mkdir -p "$BASE"
    say "fetching $SDIST_NAME from PyPI"
    local url
    url="$("$VENV/bin/python" "$HERE/sdist_url.py" "$INDEX_URL" "$SDIST_NAME")" \
        || die "cannot find $SDIST_NAME on $INDEX_URL"
    curl -fsSL --retry 3 -o "$SDIST.part" "$url" || die "download of $url failed"
    if ! echo "$SDIST_SHA256  $SDIST.part" | sha256sum -c --status; then
        rm -f "$SDIST.part"
        die "$SDIST_NAME does not have the pinned sha256 $SDIST_SHA256: refused"
    fi
    mv "$SDIST.part" "$SDIST"
}

# The run directory: Oracle's tests/ as shipped, its root conftest renamed oracle_conftest.py
# and ours (tests/oracle_sdk/sdk_conftest.py) installed as conftest.py in front of it.
lay_out_run() {
    rm -rf "$RUN" "$BASE/failures.txt" "$BASE/conformance.md"; mkdir -p "$RUN"
    tar -xzf "$SDIST" -C "$RUN" --strip-components=1 select_ai-1.5.0/tests
    [ -f "$RUN/tests/conftest.py" ] || die "the sdist has no tests/conftest.py"
    mv "$RUN/tests/conftest.py" "$RUN/tests/oracle_conftest.py"
    cp "$HERE/sdk_conftest.py" "$RUN/tests/conftest.py"
    # The sdist's pyproject (its pytest settings) is not extracted: ours is the only ini.
    cat >"$RUN/pytest.ini" <<EOF
[pytest]
testpaths = tests
# One line per failure: hundreds may fail while the client grows (ORACLE_SDK_PYTEST_ARGS=--tb=short).
addopts = -p no:cacheprovider --tb=line
EOF
}

install_client() {
    [ -f "$CLIENT/pyproject.toml" ] ||
        die "$CLIENT/pyproject.toml is missing: the select_ai client (issue 32, section 1) is not in this checkout, so Oracle's suite has nothing to run against"
    say "installing the select_ai client from $CLIENT"
    # Built from a copy: pip builds a local directory in place, and would leave build/ and
    # *.egg-info in the checkout.
    rm -rf "$BASE/client"; mkdir -p "$BASE/client"
    (cd "$CLIENT" && tar --exclude=./build --exclude='*.egg-info' --exclude=__pycache__ -cf - .) \
        | tar -xf - -C "$BASE/client"
    "$VENV/bin/pip" install -q --disable-pip-version-check -r "$HERE/requirements.txt" "$BASE/client" \
        || die "pip install $CLIENT failed"
    (cd "$RUN" && "$VENV/bin/python" -c 'import select_ai, sys; sys.exit(0 if hasattr(select_ai, "create_pool") else 1)') \
        || die "the installed select_ai does not import, or has no create_pool"
}

llm_pid=""
cleanup() {
    local status=$?
    if [ -n "$llm_pid" ]; then kill "$llm_pid" 2>/dev/null || true; wait "$llm_pid" 2>/dev/null || true; fi
    "$ROOT/scripts/pg-cluster.sh" stop "$CLUSTER" >/dev/null 2>&1 || true
    say "took $((SECONDS - started)) s"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_servers() {
    "$ROOT/scripts/pg-cluster.sh" stop "$CLUSTER" >/dev/null 2>&1 || true
    rm -rf "$CLUSTER"
    "$ROOT/scripts/pg-cluster.sh" start "$CLUSTER" "$PORT" >/dev/null
    # Passwords count, as in Oracle: the suite's roles log in with scram-sha-256 (the suite tests
    # that a wrong password is refused); postgres, which sets up, stays trusted.  The file is
    # rewritten in place (its owner kept); prepare_db.py reloads the configuration.
    printf 'local all postgres trust\nlocal all all scram-sha-256\n' >"$CLUSTER/data/pg_hba.conf"
    rm -f "$BASE/llm.port"
    PYTHONPATH="$ROOT/tools" "$VENV/bin/python" "$ROOT/tools/fake_llm.py" --port 0 \
        --answers "$HERE/answers.json" --port-file "$BASE/llm.port" >"$BASE/llm.log" 2>&1 &
    llm_pid=$!
    for _ in $(seq 50); do [ -s "$BASE/llm.port" ] && break; sleep 0.2; done
    [ -s "$BASE/llm.port" ] || { cat "$BASE/llm.log" >&2; die "the fake model did not start"; }
    LLM_URL="http://127.0.0.1:$(cat "$BASE/llm.port")/v1"
    # Each server proves it answers: the fake model a chat completion; the cluster the setup.
    "$VENV/bin/python" "$HERE/prepare_db.py" --llm "$LLM_URL" --host "$CLUSTER/sock" --port "$PORT" \
        --dbname "$DBNAME" --admin "$ADMIN_USER" --admin-password "$ADMIN_PASSWORD" \
        || die "the database or the fake model is not ready (server log: $CLUSTER/log/server.log)"
}

# The suite's settings (its conftest files read them). The OCI, Object Storage, e-mail and Slack values are
# placeholders: the oci provider's calls go to the fake model (oci_genai_endpoint), and the
# extension refuses Object Storage when an index is refreshed.
export_env() {
    export PYSAI_TEST_USER=PYSAI_TEST_USER PYSAI_TEST_USER_PASSWORD=PySai_Test_1aA
    export PYSAI_TEST_ADMIN_USER="$ADMIN_USER" PYSAI_TEST_ADMIN_PASSWORD="$ADMIN_PASSWORD"
    export PYSAI_TEST_CONNECT_STRING="host=$CLUSTER/sock port=$PORT dbname=$DBNAME"
    export PYSAI_TEST_OCI_USER_OCID=ocid1.user.oc1..placeholder
    export PYSAI_TEST_OCI_TENANCY_OCID=ocid1.tenancy.oc1..placeholder
    export PYSAI_TEST_OCI_PRIVATE_KEY=$'-----BEGIN PRIVATE KEY-----\nplaceholder\n-----END PRIVATE KEY-----'
    export PYSAI_TEST_OCI_FINGERPRINT=00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff
    export PYSAI_TEST_OCI_COMPARTMENT_ID=ocid1.compartment.oc1..placeholder
    export PYSAI_TEST_OPENAI_API_KEY=sk-placeholder
    export PYSAI_TEST_CRED_USERNAME=placeholder_user PYSAI_TEST_CRED_PASSWORD=placeholder_password
    # The agent tests' notification tools: their credentials and addresses (no mail is sent:
    # the runtime's notification tools reach no SMTP host or Slack from the test server).
    export PYSAI_TEST_EMAIL_CRED_USERNAME=placeholder_user PYSAI_TEST_EMAIL_CRED_PASSWORD=placeholder_password
    export PYSAI_TEST_EMAIL_RECIPIENT=recipient@example.com PYSAI_TEST_EMAIL_SENDER=sender@example.com
    export PYSAI_TEST_EMAIL_SMTPHOST=smtp.example.com
    export PYSAI_TEST_SLACK_USERNAME=placeholder_user PYSAI_TEST_SLACK_PASSWORD=placeholder_password
    export PYTEST_TEST_OBJSTORE_EMBEDDING_LOC=https://objectstorage.us-ashburn-1.oraclecloud.com/n/placeholder/b/placeholder/o/embeddings
    export PYTEST_TEST_OBJSTORE_USERNAME=placeholder_user PYTEST_TEST_OBJSTORE_PASSWORD=placeholder_password
}

run_suite() {
    local record=() extra=() paths=()
    [ "${ORACLE_SDK_RECORD:-0}" = 1 ] && record=(--sdk-record --sdk-doc "$ROOT/docs/oracle-sdk-conformance.md")
    # shellcheck disable=SC2206
    [ -n "${ORACLE_SDK_PYTEST_ARGS:-}" ] && extra=($ORACLE_SDK_PYTEST_ARGS)
    # shellcheck disable=SC2206
    [ -n "${ORACLE_SDK_PATHS:-}" ] && paths=($ORACLE_SDK_PATHS)
    say "running Oracle's suite (per test ${TIMEOUT} s, in all ${BUDGET} s)"
    # The plugin stops the run at the budget; timeout(1) is the net under it (a hang in a
    # fixture's teardown, or in the interpreter's exit).
    (cd "$RUN" && PYTHONPATH="$HERE" timeout --kill-after=30 $((BUDGET + 120)) \
        "$VENV/bin/python" -m pytest -c "$RUN/pytest.ini" --rootdir "$RUN" -q -rN \
        -p sdk_conformance \
        --ignore=tests/a2a --continue-on-collection-errors \
        --timeout "$TIMEOUT" --timeout-method signal \
        --sdk-expected "$HERE/expected_failures.txt" --sdk-reasons "$HERE/failure_reasons.txt" \
        --sdk-min-passed "$MIN_PASSED" --sdk-min-passed-in "tests/agents=$AGENT_MIN_PASSED" \
        --sdk-budget "$BUDGET" --sdk-table "$BASE/conformance.md" --sdk-failures "$BASE/failures.txt" \
        --sdk-not-run tests/a2a \
        "${record[@]}" "${extra[@]}" "${paths[@]}")
}

# Oracle's upper-case user names: the client and our conftest fold them to the roles' names.
ADMIN_USER=PYSAI_ADMIN ADMIN_PASSWORD=PySai_Admin_1aA
[ -x "$VENV/bin/python" ] || die "no venv at $VENV (make test-oracle-sdk builds it)"
fetch_sdist
lay_out_run
install_client
start_servers
export_env
status=0
run_suite || status=$?
[ "$status" = 124 ] && say "the run outlived its budget of $BUDGET s and was killed"
[ -f "$BASE/failures.txt" ] && say "what each failing test raised: $BASE/failures.txt; the table: $BASE/conformance.md"
if [ "$status" != 0 ]; then
    say "failed (status $status); the server's log: $CLUSTER/log/server.log"
    tail -n 20 "$CLUSTER/log/server.log" >&2 || true
fi
exit "$status"
