#!/usr/bin/env bash
# `make install`: build the extension's scripts and copy files, nothing else.
# No system package is installed here (that is scripts/deps.sh, `make deps`).
# Idempotent: running it again installs the same files.
#
#   scripts/install.sh extension  build this version's install and update scripts
#                                 (extension/) and copy them, the control file and
#                                 the frozen released scripts into
#                                 $DESTDIR`$PG_CONFIG --sharedir`/extension
#   scripts/install.sh python     the Python package and its pinned dependencies
#                                 (python/requirements-lock.txt, pip --target: needs
#                                 the package index) into
#                                 $DESTDIR$PY_LIBDIR/<version>/python<X.Y>, byte-compiled
#   scripts/install.sh build      only build the scripts into extension/ (make all)
#   scripts/install.sh key        create the master key for credential encryption
#                                 if there is none (make key; not part of install)
#   scripts/install.sh lock       regenerate python/requirements-lock.txt (make lock)
#   scripts/install.sh pg-config  print the pg_config used; pg-major, interpreter:
#                                 its major version, the Python PL/Python embeds
#
# Environment:
#   PG_CONFIG  the PostgreSQL installation to install into.  Default: Debian's
#              /usr/lib/postgresql/$PG_MAJOR/bin/pg_config when PG_MAJOR is set,
#              else `pg_config` on PATH, else the newest /usr/lib/postgresql/NN.
#   DESTDIR    staging root prepended to every destination (packagers); the paths
#              written into the built scripts and byte-code stay the final ones.
#   PY_LIBDIR  where the Python library lives (default /usr/local/lib/dbms_cloud_ai);
#              embedded in the install script, so it must be the final path.
#   PLPYTHON   the interpreter PL/Python embeds (default: found with ldd on
#              `$PG_CONFIG --pkglibdir`/plpython3.so); it runs pip and compileall.
#   KEY_FILE   the master key (default /etc/dbms_cloud_ai/master.key).
#
# Files go where they belong as the current user when the destination is
# writable (a DESTDIR, a private PostgreSQL copy), else as root (sudo if needed).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY_LIBDIR="${PY_LIBDIR:-/usr/local/lib/dbms_cloud_ai}"
DESTDIR="${DESTDIR:-}"
KEY_FILE="${KEY_FILE:-/etc/dbms_cloud_ai/master.key}"
PYTHON="${PYTHON:-python3}"
VERSION="$(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$ROOT/extension/dbms_cloud_ai.control")"

say() { echo "install: $*"; }
die() { echo "install: $*" >&2; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# into DEST CMD...: run CMD as the current user when DEST (or the nearest
# existing directory above it) is writable, as root otherwise.
into() {
    local d="$1"; shift
    while [ ! -e "$d" ]; do d="$(dirname "$d")"; done
    if [ -w "$d" ]; then "$@"; else as_root "$@"; fi
}

case "$PY_LIBDIR" in /*) ;; *) die "PY_LIBDIR must be an absolute path, not '$PY_LIBDIR'" ;; esac
case "$DESTDIR" in ''|/*) ;; *) die "DESTDIR must be an absolute path, not '$DESTDIR'" ;; esac

# The pg_config to use: PG_CONFIG; Debian's for PG_MAJOR; the one on PATH (on
# Debian a wrapper for the newest server); the newest Debian one, which is there
# even without the wrapper.  Prints "pg_config" when there is none, so the
# caller fails with "pg_config: command not found".
pg_config_path() {
    if [ -n "${PG_CONFIG:-}" ]; then echo "$PG_CONFIG"; return; fi
    if [ -n "${PG_MAJOR:-}" ]; then echo "/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"; return; fi
    if command -v pg_config >/dev/null 2>&1; then command -v pg_config; return; fi
    local newest
    newest="$(ls /usr/lib/postgresql 2>/dev/null | grep -E '^[0-9]+$' | sort -n | tail -1 || true)"
    if [ -n "$newest" ] && [ -x "/usr/lib/postgresql/$newest/bin/pg_config" ]; then
        echo "/usr/lib/postgresql/$newest/bin/pg_config"
    else
        echo pg_config
    fi
}
run_pg_config() {
    local pgc; pgc="$(pg_config_path)"
    "$pgc" "$@" || die "'$pgc $*' failed: set PG_CONFIG, or run 'make deps' (Debian/Ubuntu)"
}
pg_major() {
    local v; v="$(run_pg_config --version)"        # "PostgreSQL 15.8 (Debian 15.8-1)"
    v="${v#PostgreSQL }"; echo "${v%%[!0-9]*}"
}

# The interpreter plpython3u embeds: the libpython3.X the shared library links.
plpython_interpreter() {
    if [ -n "${PLPYTHON:-}" ]; then echo "$PLPYTHON"; return; fi
    local so; so="$(run_pg_config --pkglibdir)/plpython3.so"
    [ -f "$so" ] || die "no $so: install PL/Python ('make deps' on Debian/Ubuntu), or set PLPYTHON"
    local lib; lib="$(ldd "$so" | grep -o 'libpython3\.[0-9]*' | head -1 || true)"
    [ -n "$lib" ] || die "cannot find libpython in $so; set PLPYTHON"
    echo "/usr/bin/python${lib#libpython}"
}

# This version's install script and an update script from every version with a
# migration to this one (sql/updates), with PY_LIBDIR (never DESTDIR) embedded.
built_scripts() {
    echo "$ROOT/extension/dbms_cloud_ai--$VERSION.sql"
    local old
    for old in $("$PYTHON" "$ROOT/sql/build.py" --print-updates); do
        echo "$ROOT/extension/dbms_cloud_ai--$old--$VERSION.sql"
    done
}
build() {
    "$PYTHON" "$ROOT/sql/build.py" --pylibdir "$PY_LIBDIR" --out "$ROOT/extension/dbms_cloud_ai--$VERSION.sql"
    local old
    for old in $("$PYTHON" "$ROOT/sql/build.py" --print-updates); do
        "$PYTHON" "$ROOT/sql/build.py" --pylibdir "$PY_LIBDIR" --update "$old" \
            --out "$ROOT/extension/dbms_cloud_ai--$old--$VERSION.sql"
    done
}

# The control file, the built scripts, and the frozen scripts of released
# versions (sql/released: the oldest install script and every update script), so
# CREATE EXTENSION ... VERSION and ALTER EXTENSION ... UPDATE find every path.
extension() {
    local share; share="$DESTDIR$(run_pg_config --sharedir)/extension"
    build
    local scripts=() s
    while read -r s; do scripts+=("$s"); done < <(built_scripts)
    scripts+=("$ROOT"/sql/released/dbms_cloud_ai--*.sql)
    into "$share" install -d "$share"
    into "$share" install -m 644 "$ROOT/extension/dbms_cloud_ai.control" "${scripts[@]}" "$share/"
    # Remove the install script of a retired version (sql/released/RETIRED) that an
    # older install left: CREATE EXTENSION ... VERSION then builds that version from
    # the base and the update scripts, the path tests/packaging/test_upgrade.py checks.
    local v
    for v in $(sed -n 's/^\([0-9][0-9.]*\) .*/\1/p' "$ROOT/sql/released/RETIRED"); do
        [ ! -e "$share/dbms_cloud_ai--$v.sql" ] || into "$share" rm -f "$share/dbms_cloud_ai--$v.sql"
    done
    say "extension dbms_cloud_ai $VERSION installed into $share (update paths from: $("$PYTHON" "$ROOT/sql/build.py" --print-updates | tr '\n' ' '))"
}

# Byte-compile with the interpreter PL/Python embeds.  Backends cannot write
# here (root owns it), so without .pyc files every new session would compile
# every module it imports from source: 400 ms instead of 160 ms before the
# first call of a session could start (bench/README.md, cold start).  Under a
# DESTDIR the byte-code records the final paths (tracebacks name real files).
compile_python() {
    local strip=()
    [ -z "$DESTDIR" ] || strip=(-s "$DESTDIR" -p /)
    into "$2" "$1" -m compileall -q -j 0 "${strip[@]}" "$2" >/dev/null
}

python_lib() {
    local py; py="$(plpython_interpreter)"
    [ -x "$py" ] || die "$py (the interpreter PL/Python embeds) is missing: 'make deps', or set PLPYTHON"
    "$py" -m pip --version >/dev/null 2>&1 || die "no pip for $py: 'make deps' (Debian/Ubuntu: python3-pip)"
    local xy; xy="$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    local dir="$DESTDIR$PY_LIBDIR/$VERSION/python$xy"
    local stamp="$dir/.requirements.sha256"
    local want; want="$(sha256sum "$ROOT/python/requirements-lock.txt" | cut -d' ' -f1)"
    if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
        say "pip install pinned dependencies into $dir"
        into "$dir" rm -rf "$dir"
        into "$dir" mkdir -p "$dir"
        into "$dir" "$py" -m pip install -q --disable-pip-version-check --no-deps --no-compile \
            --root-user-action=ignore --target "$dir" -r "$ROOT/python/requirements-lock.txt"
        echo "$want" | into "$dir" tee "$stamp" >/dev/null
    fi
    compile_python "$py" "$dir"   # also an install from before .pyc files were made
    # Our own package is copied fresh every time (cheap, and never stale) into a
    # new directory; the name dbms_cloud_ai is a symlink switched with one
    # rename(2), so a backend starting meanwhile imports the old package or the
    # new one, never a missing or half-copied one.
    local stamp_dir; stamp_dir=".dbms_cloud_ai.$(date +%s%N)"
    into "$dir" cp -r "$ROOT/python/src/dbms_cloud_ai" "$dir/$stamp_dir"
    into "$dir" find "$dir/$stamp_dir" -name __pycache__ -prune -exec rm -rf {} +
    compile_python "$py" "$dir/$stamp_dir"
    if [ -d "$dir/dbms_cloud_ai" ] && [ ! -L "$dir/dbms_cloud_ai" ]; then
        into "$dir" rm -rf "$dir/dbms_cloud_ai"   # a layout from before the symlink
    fi
    into "$dir" ln -sfn "$stamp_dir" "$dir/.dbms_cloud_ai.link"
    into "$dir" mv -T "$dir/.dbms_cloud_ai.link" "$dir/dbms_cloud_ai"
    local old
    for old in "$dir"/.dbms_cloud_ai.[0-9]*; do
        [ "$old" = "$dir/$stamp_dir" ] || into "$dir" rm -rf "$old"
    done
    into "$dir" chmod -R a+rX "$DESTDIR$PY_LIBDIR"
    say "Python package $VERSION in $dir"
    if [ -z "$DESTDIR" ] && [ ! -e "$KEY_FILE" ]; then
        say "no master key $KEY_FILE yet: 'make key' as root creates it (credentials need it)"
    fi
}

# Not part of install: a secret of this host, never packaged or staged.
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

# python/requirements-lock.txt: the closure of python/pyproject.toml's
# dependencies, resolved by pip for the interpreter PL/Python embeds.
lock() {
    local py; py="$(plpython_interpreter)"
    local lockfile="$ROOT/python/requirements-lock.txt" report
    report="$(mktemp)"
    # shellcheck disable=SC2046
    "$py" -m pip install -q --disable-pip-version-check --dry-run --ignore-installed --report "$report" \
        $("$py" -c 'import sys, tomllib; print(" ".join(tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]))' \
            "$ROOT/python/pyproject.toml")
    {
        echo "# Runtime closure of the Python package, installed with --no-deps into"
        echo "# /usr/local/lib/dbms_cloud_ai/<version>/python<X.Y> for the interpreter that"
        echo "# plpython3u embeds.  Regenerate with: make lock (from python/pyproject.toml)"
        "$py" -c 'import json, sys
for i in sorted(json.load(open(sys.argv[1]))["install"], key=lambda i: i["metadata"]["name"].lower()):
    print("%s==%s" % (i["metadata"]["name"], i["metadata"]["version"]))' "$report"
    } > "$lockfile.new"
    rm -f "$report"
    mv "$lockfile.new" "$lockfile"
    say "$lockfile for $("$py" -V 2>&1)"
}

[ $# -gt 0 ] || set -- extension python
for step in "$@"; do
    case "$step" in
        extension) extension ;;
        python) python_lib ;;
        all) extension; python_lib ;;
        build) build ;;
        key) key ;;
        lock) lock ;;
        pg-config) pg_config_path ;;
        pg-major) pg_major ;;
        interpreter) plpython_interpreter ;;
        *) echo "usage: $0 [extension] [python] [build] [key] [lock] [pg-config|pg-major|interpreter]" >&2; exit 2 ;;
    esac
done
