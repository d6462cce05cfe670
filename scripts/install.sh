#!/usr/bin/env bash
# Install what dbms_cloud_ai needs and the extension itself.  Idempotent: each
# step checks first and does nothing when its result is already in place.
#
#   scripts/install.sh deps       PostgreSQL server, PL/Python, pip, and pg_cron where
#                                 the distribution has it (apt, as root)
#   scripts/install.sh python     the Python package and its pinned dependencies
#   scripts/install.sh key        the master key for credential encryption
#   scripts/install.sh extension  control file and install script into PostgreSQL
#   scripts/install.sh all        all of the above
#
# Environment: PG_MAJOR (default: newest installed, else the distribution's),
# PY_LIBDIR (default /usr/local/lib/dbms_cloud_ai), KEY_FILE
# (default /etc/dbms_cloud_ai/master.key), PG_CONFIG (the installation whose
# sharedir receives the extension; default that of PG_MAJOR).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY_LIBDIR="${PY_LIBDIR:-/usr/local/lib/dbms_cloud_ai}"
KEY_FILE="${KEY_FILE:-/etc/dbms_cloud_ai/master.key}"
VERSION="$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$ROOT/extension/dbms_cloud_ai.control")"

say() { echo "install: $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

APT_UPDATED=
apt_update() {
    if [ -z "$APT_UPDATED" ]; then
        as_root apt-get update -qq
        APT_UPDATED=1
    fi
}
apt_install() {
    apt_update
    say "apt-get install $*"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

pg_major() {
    if [ -n "${PG_MAJOR:-}" ]; then echo "$PG_MAJOR"; return; fi
    ls /usr/lib/postgresql 2>/dev/null | grep -E '^[0-9]+$' | sort -n | tail -1
}

deps() {
    if [ -z "$(pg_major)" ] || [ ! -x "/usr/lib/postgresql/$(pg_major)/bin/postgres" ]; then
        if [ -n "${PG_MAJOR:-}" ]; then apt_install "postgresql-$PG_MAJOR"; else apt_install postgresql; fi
    fi
    local major; major="$(pg_major)"
    have_pkg "postgresql-plpython3-$major" || apt_install "postgresql-plpython3-$major"
    local py; py="$(plpython_interpreter)"
    [ -x "$py" ] || apt_install "$(basename "$py")"
    "$py" -m pip --version >/dev/null 2>&1 || apt_install python3-pip
    say "PostgreSQL $major with PL/Python on $("$py" -V 2>&1)"
    pg_cron_dep "$major"
}

# pg_cron schedules the conversation purge (dbms_cloud_ai.schedule_conversation_purge).
# Optional: installed from the distribution when it has postgresql-NN-cron; without
# it the purge is run by another scheduler (docs/reference/conversations.md, "Retention").
pg_cron_dep() {
    local major="$1" pkg="postgresql-$1-cron"
    local so; so="$("/usr/lib/postgresql/$major/bin/pg_config" --pkglibdir)/pg_cron.so"
    if have_pkg "$pkg" || [ -f "$so" ]; then
        say "pg_cron: present ($so); to purge expired conversations on a schedule: shared_preload_libraries += pg_cron, then SELECT dbms_cloud_ai.schedule_conversation_purge(); (docs/reference/conversations.md, Retention)"
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
apt_has() { apt-cache show "$1" >/dev/null 2>&1; }

# The interpreter plpython3u embeds: the libpython3.X the shared library links.
plpython_interpreter() {
    local so="/usr/lib/postgresql/$(pg_major)/lib/plpython3.so"
    local lib; lib="$(ldd "$so" | grep -o 'libpython3\.[0-9]*' | head -1)"
    [ -n "$lib" ] || { echo "install: cannot find libpython in $so" >&2; exit 1; }
    echo "/usr/bin/python${lib#libpython}"
}

# Byte-compile with the interpreter PL/Python embeds.  Backends cannot write
# here (root owns it), so without .pyc files every new session would compile
# every module it imports from source: 400 ms instead of 160 ms before the
# first call of a session could start (bench/README.md, cold start).
compile_python() {
    as_root "$1" -m compileall -q -j 0 "$2" >/dev/null
}

python_lib() {
    local py; py="$(plpython_interpreter)"
    local xy; xy="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    local dir="$PY_LIBDIR/$VERSION/python$xy"
    local stamp="$dir/.requirements.sha256"
    local want; want="$(sha256sum "$ROOT/python/requirements-lock.txt" | cut -d' ' -f1)"
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        say "pip install pinned dependencies into $dir"
        as_root rm -rf "$dir"
        as_root mkdir -p "$dir"
        as_root "$py" -m pip install -q --disable-pip-version-check --no-deps --no-compile \
            --root-user-action=ignore --target "$dir" -r "$ROOT/python/requirements-lock.txt"
        echo "$want" | as_root tee "$stamp" >/dev/null
    fi
    compile_python "$py" "$dir"   # also an install from before .pyc files were made
    # Our own package is copied fresh every time (cheap, and never stale) into a
    # new directory; the name dbms_cloud_ai is a symlink switched with one
    # rename(2), so a backend starting meanwhile imports the old package or the
    # new one, never a missing or half-copied one.
    local stamp_dir; stamp_dir=".dbms_cloud_ai.$(date +%s%N)"
    as_root cp -r "$ROOT/python/src/dbms_cloud_ai" "$dir/$stamp_dir"
    as_root find "$dir/$stamp_dir" -name __pycache__ -prune -exec rm -rf {} +
    compile_python "$py" "$dir/$stamp_dir"
    if [ -d "$dir/dbms_cloud_ai" ] && [ ! -L "$dir/dbms_cloud_ai" ]; then
        as_root rm -rf "$dir/dbms_cloud_ai"   # a layout from before the symlink
    fi
    as_root ln -sfn "$stamp_dir" "$dir/.dbms_cloud_ai.link"
    as_root mv -T "$dir/.dbms_cloud_ai.link" "$dir/dbms_cloud_ai"
    for old in "$dir"/.dbms_cloud_ai.[0-9]*; do
        [ "$old" = "$dir/$stamp_dir" ] || as_root rm -rf "$old"
    done
    as_root chmod -R a+rX "$PY_LIBDIR"
    say "Python package $VERSION in $dir"
}

key() {
    if as_root test -s "$KEY_FILE"; then return; fi
    local owner=postgres
    id "$owner" >/dev/null 2>&1 || owner="$(id -un)"
    as_root mkdir -p "$(dirname "$KEY_FILE")"
    as_root sh -c "umask 077; od -An -tx1 -N32 /dev/urandom | tr -d ' \n' > '$KEY_FILE'; echo >> '$KEY_FILE'"
    as_root chown "$owner" "$KEY_FILE"
    as_root chmod 600 "$KEY_FILE"
    say "created master key $KEY_FILE (owner $owner, mode 600): back it up with your database backups"
}

# The control file, this version's install script, an update script from every
# version with a migration to this one (sql/updates), and the frozen scripts of
# released versions (sql/released), so ALTER EXTENSION ... UPDATE finds every path.
extension() {
    local script="$ROOT/extension/dbms_cloud_ai--$VERSION.sql" scripts=() old
    python3 "$ROOT/sql/build.py" --pylibdir "$PY_LIBDIR" --out "$script"
    scripts+=("$script")
    for old in $(python3 "$ROOT/sql/build.py" --print-updates); do
        python3 "$ROOT/sql/build.py" --pylibdir "$PY_LIBDIR" --update "$old" \
            --out "$ROOT/extension/dbms_cloud_ai--$old--$VERSION.sql"
        scripts+=("$ROOT/extension/dbms_cloud_ai--$old--$VERSION.sql")
    done
    scripts+=("$ROOT"/sql/released/dbms_cloud_ai--*.sql)
    local share; share="$("${PG_CONFIG:-/usr/lib/postgresql/$(pg_major)/bin/pg_config}" --sharedir)/extension"
    as_root install -m 644 "$ROOT/extension/dbms_cloud_ai.control" "${scripts[@]}" "$share/"
    say "extension dbms_cloud_ai $VERSION installed into $share (update paths from: $(python3 "$ROOT/sql/build.py" --print-updates | tr '\n' ' '))"
}

case "${1:-all}" in
    deps) deps ;;
    python) python_lib ;;
    key) key ;;
    extension) extension ;;
    interpreter) plpython_interpreter ;;
    pg-major) pg_major ;;
    apt) shift; for p in "$@"; do have_pkg "$p" || apt_install "$p"; done ;;
    all) deps; python_lib; key; extension ;;
    *) echo "usage: $0 [deps|python|key|extension|all]" >&2; exit 2 ;;
esac
