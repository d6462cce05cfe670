#!/usr/bin/env bash
# pgvector for the server PG_CONFIG names (optional; vector indexes use it when a
# database has CREATE EXTENSION vector, docs/reference/vector-indexes.md).
#
# Debian 12 packages no pgvector for PostgreSQL 15, so this takes the source
# Debian ships (pgvector_0.8.0.orig.tar.gz, the upstream release, from
# Debian's archive: the same registry as every apt package here), checks its
# sha256 against the one Debian's Sources index lists, and builds it with PGXS
# for this server.  The tarball is cached; a present vector.so is left alone.
#
#   scripts/pgvector.sh          build and install (needs gcc, make and the
#                                server headers: postgresql-server-dev-NN)
#   scripts/pgvector.sh status   say whether it is installed
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION=0.8.0
SHA256=867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0
URL="${PGVECTOR_MIRROR:-http://deb.debian.org/debian}/pool/main/p/pgvector/pgvector_${VERSION}.orig.tar.gz"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/dbms_cloud_ai/pgvector"

PGC="$("$ROOT/scripts/install.sh" pg-config)"
SO="$("$PGC" --pkglibdir)/vector.so"
CONTROL="$("$PGC" --sharedir)/extension/vector.control"
say() { echo "pgvector: $*"; }

if [ "${1:-install}" = status ]; then
    if [ -f "$SO" ] && [ -f "$CONTROL" ]; then say "installed ($SO)"; else say "not installed"; exit 1; fi
    exit 0
fi
if [ -f "$SO" ] && [ -f "$CONTROL" ]; then say "present ($SO)"; exit 0; fi

mkdir -p "$CACHE"
tarball="$CACHE/pgvector_${VERSION}.orig.tar.gz"
if ! echo "$SHA256  $tarball" | sha256sum -c --status 2>/dev/null; then
    say "downloading $URL"
    curl -fsS --retry 3 --max-time 120 -o "$tarball.part" "$URL"
    echo "$SHA256  $tarball.part" | sha256sum -c --status \
        || { rm -f "$tarball.part"; echo "pgvector: checksum mismatch for $URL" >&2; exit 1; }
    mv "$tarball.part" "$tarball"
fi
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
tar -xzf "$tarball" -C "$build"
# OPTFLAGS="": no -march=native, so the library runs on any machine of this architecture.
say "building $VERSION for $("$PGC" --version)"
make -s -C "$build/pgvector-$VERSION" PG_CONFIG="$PGC" OPTFLAGS="" -j2 >/dev/null
if [ "$(id -u)" = 0 ] || [ -w "$(dirname "$SO")" ]; then
    make -s -C "$build/pgvector-$VERSION" PG_CONFIG="$PGC" install >/dev/null
else
    sudo make -s -C "$build/pgvector-$VERSION" PG_CONFIG="$PGC" install >/dev/null
fi
say "installed $SO"
