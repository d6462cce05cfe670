# Sourced by scripts/local-model.sh, scripts/local-embeddings.sh and scripts/local-gateway.sh:
# what the local servers share once installed (a detached process on 127.0.0.1, tracked by a
# pid file and a port file, waited for through GET /v1/models, stopped by pid only).
#
# The caller sets before sourcing: NAME (the prefix of messages), PY (python3 for the helper),
# HELPER (scripts/local-model/helper.py: stdlib only), HOST, PIDFILE, PORTFILE, LOG,
# DEFAULT_PORT, PORT_VAR (the variable that overrides DEFAULT_PORT, named in hints),
# CMDLINE_MARK (text of our server's /proc/PID/cmdline, so a recycled pid is never ours) and
# optionally REBUILD (the command that rebuilds the server's binaries, named when one dies of
# SIGILL).
#
# Why a server died: start launches it as a child of its shell, so `wait` gives its exit
# status there; later (the demo, the real tier) only its log can tell, so the servers run with
# PYTHONFAULTHANDLER=1, which writes "Fatal Python error: Illegal instruction" (or the like)
# before a fatal signal ends the process, and start marks in the log where each run begins.

# Progress goes to stderr: stdout carries only what a caller reads (start's line, model, url).
say() { echo "$NAME: $*" >&2; }
die() { echo "$NAME: error: $1" >&2; [ -z "${2:-}" ] || echo "$NAME: hint: $2" >&2; exit 1; }
now() { date +%s; }

check_port() {
    [[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 65535 ] \
        || die "port '$1' is not a TCP port number" "give 1..65535 or set $PORT_VAR"
}

# The pid file names a server only while that pid runs our server (not a recycled pid).
running_pid() {
    local pid
    pid="$(cat "$PIDFILE" 2>/dev/null)" || return 1
    [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$CMDLINE_MARK" || return 1
    echo "$pid"
}
current_port() { cat "$PORTFILE" 2>/dev/null || echo "$DEFAULT_PORT"; }
base_url() { echo "http://$HOST:$1"; }
served_at() { "$PY" "$HELPER" served "$(base_url "$1")"; }

# Exit 0 when our server already runs on port $1 (start has nothing to do); die when it
# runs on another port; exit 1 when none runs.
already_running() {
    local pid cur
    pid="$(running_pid)" || return 1
    cur="$(current_port)"
    [ "$cur" = "$1" ] || die "the $NAME server already runs on port $cur (pid $pid), not $1" \
        "scripts/$NAME.sh stop first, or use port $cur"
}

refuse_busy_port() {
    if served_at "$1" >/dev/null; then
        die "something else already answers on $(base_url "$1")" "pick another port ($PORT_VAR)"
    fi
}

# Before launching a server on port $1: where this run's part of the log begins
# (helper.py's START_MARK).
mark_log() { echo "=== dbms_cloud_ai: starting $NAME on port $1 at $(date '+%F %T') ===" >>"$LOG"; }

# Whether pid $1 has ended: gone, or a zombie its parent has not reaped yet.
has_ended() {
    local state
    state="$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)" || true
    [ -z "$state" ] || [ "$state" = Z ] || [ "$state" = X ]
}

# SIGTERM, then SIGKILL after 10 s: uvicorn waits for the request in flight, which can be
# minutes of a small model's generation (docs/local-model.md).
end_pid() {
    kill "$1" 2>/dev/null || return 0
    for _ in $(seq 1 50); do
        has_ended "$1" && return
        sleep 0.2
    done
    kill -9 "$1" 2>/dev/null || true
}

# start gives up on its server, pid $1 (a child of this shell): when the server has died $2
# (a dead server closes its socket an instant before it ends, so it gets 2 s), show its log and
# why, from its exit status; else it still runs but $3: end it and show its log ($4: a hint).
# Either way forget it and die: a start that fails leaves no pid file behind.
give_up() {
    local pid="$1" during="$2" failed="$3" hint="$4" status=0
    for _ in $(seq 1 10); do
        has_ended "$pid" && break
        sleep 0.2
    done
    rm -f "$PIDFILE" "$PORTFILE"
    if has_ended "$pid"; then
        wait "$pid" || status=$?
        "$PY" "$HELPER" diagnose "$NAME" "$LOG" "$status" "the $NAME server died $during" "${REBUILD:-}"
        exit 1
    fi
    end_pid "$pid"
    tail -15 "$LOG" >&2
    die "the $NAME server $failed; it was stopped (log $LOG)" "$hint"
}

# After the caller launched the server in the background as pid $1 on port $2: record it and
# wait up to $3 s until GET /v1/models answers; on failure give up.
track_and_wait() {
    local pid="$1" port="$2" timeout="$3" t0
    t0=$(now)
    echo "$pid" >"$PIDFILE"
    echo "$port" >"$PORTFILE"
    "$PY" "$HELPER" wait "$(base_url "$port")" "$timeout" "$pid" \
        || give_up "$pid" "at start" "did not answer GET /v1/models on $(base_url "$port") within $timeout s" \
                   "see the log; a port in use or too little memory are the usual causes"
    say "server up in $(( $(now) - t0 )) s (pid $pid, log $LOG)"
}

stop_server() {
    local pid
    if ! pid="$(running_pid)"; then
        rm -f "$PIDFILE" "$PORTFILE"; say "not running"; return
    fi
    end_pid "$pid"
    rm -f "$PIDFILE" "$PORTFILE"
    say "stopped (pid $pid)"
}

# For the demo and the real tier, long after start: exit 0 while our server runs; else show
# its log and why it ended (from the log alone: its exit status went to the shell that started
# it) and exit 1.  A pid file left behind means it died; none, that it was stopped.
diagnose_server() {
    local pid
    if pid="$(running_pid)"; then
        say "runs (pid $pid)"; return 0
    fi
    if ! pid="$(cat "$PIDFILE" 2>/dev/null)"; then
        say "not running: stopped (scripts/$NAME.sh stop) or never started"; return 1
    fi
    "$PY" "$HELPER" diagnose "$NAME" "$LOG" "" "the $NAME server (pid $pid) is gone" "${REBUILD:-}"
    return 1
}

status_server() {
    local pid port served
    pid="$(running_pid)" || { say "not running"; return 1; }
    port="$(current_port)"
    served="$(served_at "$port")" \
        || { say "pid $pid runs but does not answer on $(base_url "$port") yet"; return 1; }
    echo "$NAME: $served at $(base_url "$port") (pid $pid)"
}
