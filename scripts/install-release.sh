#!/usr/bin/env bash
# Install the Python package of a released version beside the current one, so
# that bench/bench_versions.py can run both in one cluster (one database each).
#
#   scripts/install-release.sh 0.2.0
#
# The release's scripts are already in place (make install copies sql/released/:
# CREATE EXTENSION ... VERSION runs the oldest install script and the update
# scripts up to it); its Python package is not kept in the tree: it is taken from
# the last commit whose control file names that version, checked out in a
# temporary git worktree and installed by that commit's own scripts/install.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${1:?usage: scripts/install-release.sh <version>}"
# Released: it has a frozen install script, or a frozen update script ends in it.
compgen -G "$ROOT/sql/released/dbms_cloud_ai--$VERSION.sql" >/dev/null \
    || compgen -G "$ROOT/sql/released/dbms_cloud_ai--*--$VERSION.sql" >/dev/null || {
    echo "install-release: $VERSION is not a released version (sql/released/)" >&2; exit 2; }

# The commits that changed the control file, newest first: the first one that
# names VERSION began it, and the one listed just before (newer) moved on, so
# the release is that newer commit's parent.
commit= newer=
for c in $(git -C "$ROOT" log --format=%H -- extension/dbms_cloud_ai.control); do
    if git -C "$ROOT" show "$c:extension/dbms_cloud_ai.control" \
            | grep -q "^default_version *= *'$VERSION'"; then
        commit="${newer:+$newer^}"; commit="${commit:-HEAD}"; break
    fi
    newer="$c"
done
[ -n "$commit" ] || { echo "install-release: no commit has version $VERSION" >&2; exit 2; }

work="$(mktemp -d)"
trap 'git -C "$ROOT" worktree remove --force "$work" >/dev/null 2>&1 || rm -rf "$work"' EXIT
git -C "$ROOT" worktree add --detach "$work" "$commit" >/dev/null 2>&1
"$work/scripts/install.sh" python
