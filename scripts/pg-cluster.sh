#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on a private port and socket directory, for
# tests, the demo and benchmarks.  initdb refuses root, so as root the cluster
# runs as the postgres OS user.
#
#   scripts/pg-cluster.sh start DIR PORT    init (if needed) and start
#   scripts/pg-cluster.sh stop DIR          stop fast
#
# fsync, synchronous_commit and full_page_writes are off (tests run faster);
# DCA_DURABLE=1 at init keeps PostgreSQL's defaults (on), for benchmarks whose
# figures must include the commit flush every user pays.
#
# Connect with: psql -h DIR/sock -p PORT -U postgres
#
# Where pg_cron is installed for this major, it is preloaded, with its jobs in
# database dca_cron (made empty at start); otherwise the config has no pg_cron.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# PG_CONFIG picks another installation (a packager's, or a private copy per developer);
# by default the one `make install` uses (scripts/install.sh pg-config).
PG_CONFIG="${PG_CONFIG:-$("$ROOT/scripts/install.sh" pg-config)}"
export PG_CONFIG
BIN="$("$PG_CONFIG" --bindir)"
MAJOR="$("$ROOT/scripts/install.sh" pg-major)"
cmd="$1"; dir="$(realpath -m "$2")"; port="${3:-54329}"

run() {  # run a command as the cluster's OS user
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "$cmd" in
start)
    mkdir -p "$dir/sock" "$dir/log"
    [ "$(id -u)" = 0 ] && chown -R postgres:postgres "$dir" && chmod 755 "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        run "$BIN/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/log/initdb.log"
        cat >>"$dir/data/postgresql.conf" <<EOF
port = $port
listen_addresses = ''
unix_socket_directories = '$dir/sock'
shared_preload_libraries = 'pg_stat_statements'
pg_stat_statements.track = all
max_connections = 120
logging_collector = off
log_min_messages = warning
include_if_exists = 'dca_cron.conf'
EOF
        if [ "${DCA_DURABLE:-0}" != 1 ]; then
            printf 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n' \
                | run tee -a "$dir/data/postgresql.conf" >/dev/null
        fi
    fi
    # pg_cron, when installed for this major (scripts/deps.sh, make deps), is preloaded
    # and runs its jobs in database dca_cron (tests/conversations/test_retention_cron.py makes it),
    # connecting through the socket since the cluster listens on no TCP address.
    # Rewritten at every start, so it follows pg_cron being installed or removed;
    # a cluster made before the include line gets it once.
    grep -q "^include_if_exists = 'dca_cron.conf'" "$dir/data/postgresql.conf" ||
        echo "include_if_exists = 'dca_cron.conf'" | run tee -a "$dir/data/postgresql.conf" >/dev/null
    if [ -f "$("$BIN/pg_config" --pkglibdir)/pg_cron.so" ]; then
        run tee "$dir/data/dca_cron.conf" >/dev/null <<EOF
shared_preload_libraries = 'pg_stat_statements,pg_cron'
cron.database_name = 'dca_cron'
cron.host = '$dir/sock'
EOF
    else
        run rm -f "$dir/data/dca_cron.conf"
    fi
    # PG_SERVER_ENV: extra NAME=VALUE words for the server's environment
    # (make test sets proxy variables that the extension must ignore).
    # shellcheck disable=SC2086
    run env ${PG_SERVER_ENV:-} "$BIN/pg_ctl" -D "$dir/data" -l "$dir/log/server.log" -w -t 60 start >/dev/null
    # pg_cron's launcher retries every second, logging an error each time, until
    # its database exists: make it (empty; the tests install the extensions).
    if [ -f "$dir/data/dca_cron.conf" ]; then
        [ -n "$(run "$BIN/psql" -h "$dir/sock" -p "$port" -U postgres -d postgres -Atqc \
                "select 1 from pg_database where datname = 'dca_cron'")" ] ||
            run "$BIN/createdb" -h "$dir/sock" -p "$port" -U postgres dca_cron
    fi
    echo "cluster: PostgreSQL $MAJOR running on port $port, socket $dir/sock"
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        run "$BIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    fi
    ;;
*)
    echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2 ;;
esac
