# Sourced by scripts/local-model.sh, scripts/local-embeddings.sh and scripts/local-gateway.sh:
# what the local servers share once installed (a detached process on 127.0.0.1, tracked by a
# pid file and a port file, waited for through GET /v1/models, stopped by pid only).
#
# The caller sets before sourcing: NAME (the prefix of messages), PY (python3 for the helper),
# HELPER (scripts/local-model/helper.py: stdlib only), HOST, PIDFILE, PORTFILE, LOG,
# DEFAULT_PORT, PORT_VAR (the variable that overrides DEFAULT_PORT, named in hints) and
# CMDLINE_MARK (text of our server's /proc/PID/cmdline, so a recycled pid is never ours).

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

# After the caller launched the server in the background as pid $1 on port $2: record it and
# wait up to $3 s until GET /v1/models answers; on failure show the log, end it and die.
track_and_wait() {
    local pid="$1" port="$2" timeout="$3" rc=0 t0
    t0=$(now)
    echo "$pid" >"$PIDFILE"
    echo "$port" >"$PORTFILE"
    "$PY" "$HELPER" wait "$(base_url "$port")" "$timeout" "$pid" || rc=$?
    if [ "$rc" != 0 ]; then
        tail -15 "$LOG" >&2
        [ "$rc" = 2 ] || kill "$pid" 2>/dev/null || true
        rm -f "$PIDFILE" "$PORTFILE"
        die "the $NAME server did not answer on $(base_url "$port") (log $LOG)" \
            "see the log; a port in use or too little memory are the usual causes"
    fi
    say "server up in $(( $(now) - t0 )) s (pid $pid, log $LOG)"
}

# SIGTERM, then SIGKILL after 10 s: uvicorn waits for the request in flight, which can be
# minutes of a small model's generation (docs/local-model.md).
stop_server() {
    local pid
    if ! pid="$(running_pid)"; then
        rm -f "$PIDFILE" "$PORTFILE"; say "not running"; return
    fi
    kill "$pid"
    for _ in $(seq 1 50); do
        [ -d "/proc/$pid" ] || break
        sleep 0.2
    done
    [ ! -d "/proc/$pid" ] || kill -9 "$pid" 2>/dev/null || true
    rm -f "$PIDFILE" "$PORTFILE"
    say "stopped (pid $pid)"
}

status_server() {
    local pid port served
    pid="$(running_pid)" || { say "not running"; return 1; }
    port="$(current_port)"
    served="$(served_at "$port")" \
        || { say "pid $pid runs but does not answer on $(base_url "$port") yet"; return 1; }
    echo "$NAME: $served at $(base_url "$port") (pid $pid)"
}
