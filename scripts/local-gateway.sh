#!/usr/bin/env bash
# The gateway of the real-model tier: litellm's proxy on 127.0.0.1, speaking OpenAI's
# /v1/chat/completions, Anthropic's /v1/messages and Gemini's generateContent in front of
# the local model server (scripts/local-model.sh) and, when configured, an embedding
# server; so the anthropic and google adapters meet a real server.  Installed from PyPI,
# pinned by version and sha256 (docs/local-model.md, "The gateway").
#
#   scripts/local-gateway.sh install       build the venv (cached, idempotent) and the key
#   scripts/local-gateway.sh start [PORT]  install if needed, start detached, wait until it answers;
#                                          prints "local-gateway: <models> at http://127.0.0.1:PORT"
#                                          (on stdout; progress goes to stderr)
#   scripts/local-gateway.sh stop          stop the gateway this script started
#   scripts/local-gateway.sh status        exit 0 when it runs and answers
#   scripts/local-gateway.sh url           http://127.0.0.1:PORT (the provider_endpoint)
#   scripts/local-gateway.sh key           the gateway's key (the credential's password)
#
# Environment: DCA_GATEWAY_CACHE (default ~/.cache/dbms_cloud_ai/local-gateway: venv, key,
# config, pid, port, log), LOCAL_GATEWAY_PORT (default 8767), LOCAL_MODEL_URL (the chat
# server; default `scripts/local-model.sh url`), LOCAL_MODEL_NAME (its model id; default
# `scripts/local-model.sh model`), LOCAL_EMBED_URL (an OpenAI-compatible embedding server;
# default `scripts/local-embeddings.sh url` when that script exists; empty: no embedding
# route), LOCAL_EMBED_MODEL (default all-minilm-l6-v2), LOCAL_GATEWAY_START_TIMEOUT
# (seconds, default 120), LOCAL_MODEL_PYTHON (default python3).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/scripts/local-gateway"
HELPER="$ROOT/scripts/local-model/helper.py"   # wait and served, shared with the model server
PY="${LOCAL_MODEL_PYTHON:-python3}"
CACHE="${DCA_GATEWAY_CACHE:-${HOME:-/tmp}/.cache/dbms_cloud_ai/local-gateway}"
VENV="$CACHE/venv"
KEYFILE="$CACHE/master.key"
CONFIG="$CACHE/config.yaml"
PIDFILE="$CACHE/gateway.pid"
PORTFILE="$CACHE/gateway.port"
LOG="$CACHE/gateway.log"
HOST=127.0.0.1   # never configurable: the model servers behind it have no authentication
NAME=local-gateway DEFAULT_PORT="${LOCAL_GATEWAY_PORT:-8767}" PORT_VAR=LOCAL_GATEWAY_PORT
CMDLINE_MARK="$VENV/bin/litellm"
# shellcheck source=lib/local-server.sh
. "$ROOT/scripts/lib/local-server.sh"
# The helper's wait and served send the gateway's key (it answers nothing without one).
[ ! -s "$KEYFILE" ] || export DCA_SERVER_KEY="$(cat "$KEYFILE")"

# The venv is keyed by the pins: a change of requirements rebuilds it.
req_digest() { sha256sum "$HERE/requirements.txt" | cut -d' ' -f1; }
venv_ok() { [ -x "$VENV/bin/litellm" ] && [ "$(cat "$VENV/.dca-pins" 2>/dev/null)" = "$(req_digest)" ]; }

install_venv() {
    if venv_ok; then say "venv: cached ($VENV)"; return; fi
    "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1 || "$ROOT/scripts/deps.sh" apt python3-venv
    local t0; t0=$(now)
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    say "venv: litellm[proxy] 1.106.12 and its dependencies, wheels only, hashed (about 1 minute)"
    # --no-deps: requirements.txt is the whole resolution; nothing unpinned comes in.
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: \
        --no-deps -r "$HERE/requirements.txt" \
        || die "installing the gateway's venv failed" "check that PyPI is reachable, then run install again"
    LITELLM_LOCAL_MODEL_COST_MAP=True "$VENV/bin/python" -c 'import litellm.proxy.proxy_cli' \
        || die "litellm's proxy does not import in $VENV"
    req_digest >"$VENV/.dca-pins"
    say "venv: built in $(( $(now) - t0 )) s"
}

# One key per cache, never in git: clients send it as their API key.
make_key() {
    [ -s "$KEYFILE" ] && return
    (umask 077; "$PY" -c 'import secrets; print("sk-" + secrets.token_hex(24))' >"$KEYFILE.tmp")
    mv "$KEYFILE.tmp" "$KEYFILE"
    say "key: created $KEYFILE (mode 600)"
}

install() {
    local t0; t0=$(now)
    mkdir -p "$CACHE"
    [ -w "$CACHE" ] || die "the cache $CACHE is not writable by $(id -un)" "set DCA_GATEWAY_CACHE to a directory of yours"
    "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "$PY is older than 3.11; the pins are resolved for 3.11" "set LOCAL_MODEL_PYTHON to python3.11 or later"
    install_venv
    make_key
    say "installed in $(( $(now) - t0 )) s"
}

render_config() {
    local model_url="${LOCAL_MODEL_URL:-$("$ROOT/scripts/local-model.sh" url)}"
    local model_id="${LOCAL_MODEL_NAME:-$("$ROOT/scripts/local-model.sh" model)}"
    local embed_url
    if [ -n "${LOCAL_EMBED_URL+set}" ]; then embed_url="$LOCAL_EMBED_URL"
    elif [ -x "$ROOT/scripts/local-embeddings.sh" ]; then
        embed_url="$("$ROOT/scripts/local-embeddings.sh" url 2>/dev/null)" || embed_url=""
    else embed_url=""; fi
    GW_MODEL_ID="$model_id" GW_MODEL_URL="$model_url" GW_EMBED_URL="$embed_url" \
        GW_EMBED_MODEL="${LOCAL_EMBED_MODEL:-all-minilm-l6-v2}" \
        "$PY" "$HERE/render.py" "$HERE/config.yaml.in" >"$CONFIG.tmp"
    mv "$CONFIG.tmp" "$CONFIG"
    say "routes: claude-local, gemini-local, $model_id -> $model_url${embed_url:+; ${LOCAL_EMBED_MODEL:-all-minilm-l6-v2} -> $embed_url}"
}

start() {
    local port="${1:-$DEFAULT_PORT}"
    check_port "$port"
    if already_running "$port"; then echo "$NAME: at $(base_url "$port")"; return; fi
    { venv_ok && [ -s "$KEYFILE" ]; } || install
    export DCA_SERVER_KEY="$(cat "$KEYFILE")"
    refuse_busy_port "$port"
    render_config
    mark_log "$port"
    # No database, no UI, nothing fetched at start: the model cost map and the other
    # tables litellm would download are its bundled copies; the backends are loopback.
    # setsid + nohup: the gateway outlives the calling shell and its terminal.
    (
        unset DATABASE_URL DIRECT_URL REDIS_HOST REDIS_URL
        export LITELLM_MASTER_KEY="$DCA_SERVER_KEY" LITELLM_LOCAL_MODEL_COST_MAP=True \
            LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS=True LITELLM_LOCAL_BLOG_POSTS=True \
            LITELLM_LOCAL_AUTOROUTER_PRESETS=True LITELLM_LOCAL_POLICY_TEMPLATES=True \
            DISABLE_ADMIN_UI=True NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost
        exec setsid nohup "$VENV/bin/python" "$VENV/bin/litellm" --config "$CONFIG" \
            --host "$HOST" --port "$port" --num_workers 1 >>"$LOG" 2>&1 </dev/null
    ) &
    track_and_wait $! "$port" "${LOCAL_GATEWAY_START_TIMEOUT:-120}"
    echo "$NAME: at $(base_url "$port")"
}

cmd="${1:-}"
[ $# -eq 0 ] || shift
case "$cmd" in
    install) install ;;
    start) start "$@" ;;
    stop) stop_server ;;
    status) status_server ;;
    url) base_url "$(current_port)" ;;
    key) [ -s "$KEYFILE" ] || { mkdir -p "$CACHE"; make_key; }; cat "$KEYFILE" ;;
    *) echo "usage: scripts/local-gateway.sh install|start [PORT]|stop|status|url|key" >&2; exit 2 ;;
esac
