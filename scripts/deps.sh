#!/usr/bin/env bash
# `make deps`: the Debian/Ubuntu bootstrap, the only place that installs system
# packages (apt, as root or through sudo).  Idempotent: each step checks first
# and does nothing when what it needs is there, so on any distribution where
# PostgreSQL, PL/Python, pip and venv are already installed it installs nothing
# (and says what is missing where there is no apt-get).
#
#   scripts/deps.sh            PostgreSQL server (the distribution's, or PG_MAJOR),
#                              postgresql-plpython3-NN, the interpreter PL/Python
#                              embeds with pip, python3-venv (for the test and lint
#                              virtualenvs), and postgresql-NN-cron where the
#                              distribution has it (optional: the conversation purge),
#                              and pgvector (optional: HNSW for vector indexes; the
#                              distribution's postgresql-NN-pgvector, else built from
#                              Debian's source by scripts/pgvector.sh; DCA_PGVECTOR=0 skips)
#   scripts/deps.sh apt PKG... apt-get install each PKG that is not installed
#
# Environment: PG_MAJOR (install this major when no server is found), PG_CONFIG
# (check this installation instead; then nothing is installed for the server).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
INSTALL="$ROOT/scripts/install.sh"

say() { echo "deps: $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

APT_UPDATED=
apt_update() {
    if [ -z "$APT_UPDATED" ]; then
        as_root apt-get update -qq
        APT_UPDATED=1
    fi
}
apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "deps: missing: $* (no apt-get here: install the equivalent packages of your" \
             "distribution, or point PG_CONFIG at a PostgreSQL with PL/Python; docs/installing.md)" >&2
        exit 1
    fi
    apt_update
    say "apt-get install $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
apt_has() { apt-cache show "$1" >/dev/null 2>&1; }

pg_config_path() { "$INSTALL" pg-config; }
has_server() {
    local pgc; pgc="$(pg_config_path)"
    local bindir; bindir="$("$pgc" --bindir 2>/dev/null)" || return 1
    [ -x "$bindir/postgres" ]
}

deps() {
    if ! has_server; then
        [ -z "${PG_CONFIG:-}" ] || { echo "deps: PG_CONFIG=$PG_CONFIG: no PostgreSQL server there" >&2; exit 1; }
        if [ -n "${PG_MAJOR:-}" ]; then apt_install "postgresql-$PG_MAJOR"; else apt_install postgresql; fi
        has_server || { echo "deps: installed PostgreSQL, but $(pg_config_path) finds no server" >&2; exit 1; }
    fi
    local pgc major pkglibdir
    pgc="$(pg_config_path)"
    major="$("$INSTALL" pg-major)"
    pkglibdir="$("$pgc" --pkglibdir)"
    [ -f "$pkglibdir/plpython3.so" ] || apt_install "postgresql-plpython3-$major"
    local py; py="$("$INSTALL" interpreter)"
    [ -x "$py" ] || apt_install "$(basename "$py")"
    "$py" -m pip --version >/dev/null 2>&1 || apt_install python3-pip
    # The test runner's and the SQL linter's virtualenvs (make venv, scripts/lint-sql.sh).
    python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || apt_install python3-venv
    say "PostgreSQL $major ($pgc) with PL/Python on $("$py" -V 2>&1)"
    pg_cron_dep "$major" "$pkglibdir"
    pgvector_dep "$major" "$pkglibdir"
}

# pgvector gives vector indexes an HNSW index (vector_indexes/ann.py) in databases where an
# administrator runs CREATE EXTENSION vector; without it they use full text.
pgvector_dep() {
    local major="$1" so="$2/vector.so" pkg="postgresql-$1-pgvector"
    if [ "${DCA_PGVECTOR:-1}" = 0 ]; then say "pgvector: skipped (DCA_PGVECTOR=0)"; return; fi
    if [ -f "$so" ]; then
        say "pgvector: present ($so); CREATE EXTENSION vector in a database gives its vector indexes HNSW (docs/reference/vector-indexes.md)"
        return
    fi
    if command -v apt-get >/dev/null 2>&1; then
        apt_has "$pkg" || apt_update
        if apt_has "$pkg"; then apt_install "$pkg"; say "pgvector: installed $pkg"; return; fi
        local need=()
        have_pkg "postgresql-server-dev-$major" || [ -n "${PG_CONFIG:-}" ] || need+=("postgresql-server-dev-$major")
        command -v make >/dev/null 2>&1 || need+=(make)
        command -v gcc >/dev/null 2>&1 || need+=(gcc)
        command -v curl >/dev/null 2>&1 || need+=(curl ca-certificates)
        [ "${#need[@]}" = 0 ] || apt_install "${need[@]}"
    fi
    # Optional: a failed build says so and leaves vector indexes on full text
    # (tests/vector_indexes/test_vector_pgvector.py then fails, unless DCA_NO_PGVECTOR=1).
    "$ROOT/scripts/pgvector.sh" || say "pgvector: not installed (the build failed, above); vector indexes search by full text (docs/reference/vector-indexes.md)"
}

# pg_cron schedules the conversation purge (dbms_cloud_ai.schedule_conversation_purge).
# Optional: installed from the distribution when it has postgresql-NN-cron; without
# it the purge is run by another scheduler (docs/reference/conversations.md, "Retention").
pg_cron_dep() {
    local major="$1" so="$2/pg_cron.so" pkg="postgresql-$1-cron"
    if [ -f "$so" ] || have_pkg "$pkg"; then
        say "pg_cron: present ($so); to purge expired conversations on a schedule: shared_preload_libraries += pg_cron, then SELECT dbms_cloud_ai.schedule_conversation_purge(); (docs/reference/conversations.md, Retention)"
        return
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        say "pg_cron: not installed (optional); run CALL dbms_cloud_ai.purge_expired_conversations() from cron or a systemd timer (docs/reference/conversations.md, Retention)"
        return
    fi
    # The package lists may be stale or empty: look once as they are, then refresh.
    if ! apt_has "$pkg"; then
        apt_update
        if ! apt_has "$pkg"; then
            say "pg_cron: no package $pkg here; run CALL dbms_cloud_ai.purge_expired_conversations() from cron or a systemd timer (docs/reference/conversations.md, Retention)"
            return
        fi
    fi
    apt_install "$pkg"
    say "pg_cron: installed $pkg; to use it: shared_preload_libraries += pg_cron, restart, then SELECT dbms_cloud_ai.schedule_conversation_purge(); (docs/reference/conversations.md, Retention)"
}

case "${1:-deps}" in
    deps) deps ;;
    apt) shift; for p in "$@"; do have_pkg "$p" || apt_install "$p"; done ;;
    *) echo "usage: $0 [deps | apt PKG...]" >&2; exit 2 ;;
esac
