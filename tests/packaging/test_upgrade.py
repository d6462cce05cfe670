"""Released versions stay frozen, and ALTER EXTENSION ... UPDATE along every
path ends exactly like a fresh install of the newest version.

sql/released/ keeps the oldest install script and every update script; an older
released version is installed through that chain, and its retired install script
(sql/released/RETIRED, from git history) gives the same catalog."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys

import psycopg
import pytest
from catalog_snapshot import differences, snapshot
from paths import ROOT
from psycopg import sql

RELEASED = ROOT / "sql" / "released"
SEEDS = pathlib.Path(__file__).resolve().parent / "upgrade"


def current_version() -> str:
    return subprocess.run([sys.executable, str(ROOT / "sql" / "build.py"), "--print-version"],
                          check=True, capture_output=True, text=True).stdout.strip()


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def frozen_scripts() -> list[list[str]]:
    """The versions each frozen script names: [v] for an install script, [old, new] for an update."""
    return [p.name.removeprefix("dbms_cloud_ai--").removesuffix(".sql").split("--")
            for p in RELEASED.glob("dbms_cloud_ai--*.sql")]


def install_script_versions() -> list[str]:
    return sorted((v[0] for v in frozen_scripts() if len(v) == 1), key=version_key)


def released_versions() -> list[str]:
    """Those with a frozen install script (the base) and the targets of the frozen update scripts."""
    return sorted({v[-1] for v in frozen_scripts()}, key=version_key)


def retired() -> dict[str, tuple[str, str]]:
    """sql/released/RETIRED: version -> (sha256, commit) of each install script no longer kept."""
    lines = [line.split() for line in (RELEASED / "RETIRED").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    return {version: (sha, commit) for version, sha, commit in lines}


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True)


def retired_install_script(version: str) -> bytes:
    """The install script users of `version` got, from git history, checked against its sha256."""
    sha, commit = retired()[version]
    if not shutil.which("git") or git("rev-parse", "--show-toplevel").stdout.decode().strip() != str(ROOT):
        pytest.skip(f"not a git checkout: the retired install script of {version} is in git history")
    if git("rev-parse", "--is-shallow-repository").stdout.decode().strip() == "true":
        pytest.skip(f"a shallow clone: the retired install script of {version} is in git history "
                    f"(commit {commit}); git fetch --unshallow")
    assert git("merge-base", "--is-ancestor", commit, "HEAD").returncode == 0, \
        f"sql/released/RETIRED: {version}'s commit {commit} is not in this branch's history"
    shown = git("show", f"{commit}:sql/released/dbms_cloud_ai--{version}.sql")
    assert shown.returncode == 0, shown.stderr.decode()
    assert hashlib.sha256(shown.stdout).hexdigest() == sha, f"{version}: not the frozen install script"
    return shown.stdout


def sharedir(db) -> pathlib.Path:
    return pathlib.Path(db.admin.execute(
        "select setting from pg_config where name = 'SHAREDIR'").fetchone()[0], "extension")


@contextlib.contextmanager
def scratch_database(db, name: str, version: str | None = None):
    """A new database with the extension at `version` (default: the newest)."""
    full = f"{db.info.dbname}_{name}"
    db.admin.execute(f"drop database if exists {full} with (force)")
    db.admin.execute(f"create database {full}")
    conn = psycopg.connect(host=db.info.host, port=db.info.port, user="postgres", dbname=full,
                           autocommit=True)
    try:
        if version:
            conn.execute(f"create extension dbms_cloud_ai version '{version}' cascade")
        else:
            conn.execute("create extension dbms_cloud_ai cascade")
        yield conn
    finally:
        conn.close()
        db.admin.execute(f"drop database if exists {full} with (force)")


def as_role(conn: psycopg.Connection, role: str) -> psycopg.Connection:
    return psycopg.connect(host=conn.info.host, port=conn.info.port, user=role,
                           dbname=conn.info.dbname, autocommit=True)


def use_the_api(admin: psycopg.Connection, llm) -> list[tuple]:
    """The same work in any database: alice sets up a profile and talks; returns what she sees."""
    admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    with as_role(admin, "alice") as alice:
        alice.execute("select dbms_cloud.create_credential('CRED', 'user', 'sk-upgrade-test')")
        alice.execute("select dbms_cloud_ai.create_profile('NEW_P', %s)",
                      (json.dumps({"provider": "openai", "credential_name": "CRED",
                                   "provider_endpoint": llm.url}),))
        cid = alice.execute("select dbms_cloud_ai.create_conversation('{\"title\": \"New talk\"}')"
                            ).fetchone()[0]
        alice.execute("select dbms_cloud_ai.generate('hello after update', 'NEW_P', 'chat', params => %s)",
                      (json.dumps({"conversation_id": cid}),))
        return alice.execute("""
            select c.conversation_title, p.prompt, p.prompt_response is not null
              from dbms_cloud_ai.user_cloud_ai_conversations c
              join dbms_cloud_ai.user_cloud_ai_conversation_prompts p using (conversation_id)
             where c.conversation_title = 'New talk'""").fetchall()


def test_released_scripts_are_frozen():
    """A released script never changes: its checksum is recorded when it is frozen."""
    sums = dict(reversed(line.split()) for line in (RELEASED / "SHA256SUMS").read_text().splitlines()
                if line.strip())
    files = sorted(p.name for p in RELEASED.glob("*.sql"))
    assert files == sorted(sums), "every file in sql/released/ has a line in SHA256SUMS"
    for name in files:
        assert hashlib.sha256((RELEASED / name).read_bytes()).hexdigest() == sums[name], \
            f"{name} is a released script and must not change (docs/releasing.md)"


def test_every_released_version_has_its_install_script_or_is_retired():
    """Installable by CREATE EXTENSION ... VERSION: from its own frozen install script, or
    (retired) from the oldest one through the update scripts."""
    bases, gone = set(install_script_versions()), set(retired())
    assert released_versions()[0] in bases, "the oldest released version keeps its install script"
    assert not bases & gone, "a retired install script is not kept in sql/released/"
    assert bases | gone == set(released_versions()), \
        "each released version has its install script or a line in sql/released/RETIRED"


def test_the_current_version_is_not_frozen_yet():
    assert current_version() not in released_versions()
    assert current_version() not in retired()
    assert released_versions(), "at least 0.1.0 is released"


def test_every_installed_script_is_the_repositorys(db):
    """What `make install` copied: the frozen scripts verbatim, the update scripts as built,
    and no install script of a retired version (CREATE EXTENSION ... VERSION would take it
    instead of the update chain)."""
    extdir = sharedir(db)
    for p in RELEASED.glob("*.sql"):
        assert (extdir / p.name).read_bytes() == p.read_bytes(), f"{p.name}: run `make install`"
    for version in retired():
        assert not (extdir / f"dbms_cloud_ai--{version}.sql").exists(), \
            f"dbms_cloud_ai--{version}.sql is retired: run `make install` (it removes it)"
    installed = (extdir / f"dbms_cloud_ai--{current_version()}.sql").read_text()
    libdir = installed.split('DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "', 1)[1].split('"', 1)[0]
    updates = subprocess.run([sys.executable, str(ROOT / "sql" / "build.py"), "--print-updates"],
                             check=True, capture_output=True, text=True).stdout.split()
    assert updates, "the newest version has a migration from the one before it"
    for old in updates:
        built = subprocess.run([sys.executable, str(ROOT / "sql" / "build.py"), "--pylibdir", libdir,
                                "--update", old], check=True, capture_output=True, text=True).stdout
        name = f"dbms_cloud_ai--{old}--{current_version()}.sql"
        assert (extdir / name).read_text() == built, f"{name}: run `make install`"


def test_every_released_version_has_an_update_path_to_the_current(db):
    paths = dict(db.admin.execute("""
        select source, path from pg_extension_update_paths('dbms_cloud_ai')
         where target = %s""", (current_version(),)).fetchall())
    for old in released_versions():
        assert paths.get(old), f"no ALTER EXTENSION UPDATE path from {old}"


def test_retired_versions_are_installable_through_the_update_scripts(db):
    base = install_script_versions()[0]
    available = {r[0] for r in db.admin.execute(
        "select version from pg_available_extension_versions where name = 'dbms_cloud_ai'")}
    paths = dict(db.admin.execute("""
        select target, path from pg_extension_update_paths('dbms_cloud_ai')
         where source = %s""", (base,)).fetchall())
    for version in retired():
        assert version in available, f"CREATE EXTENSION dbms_cloud_ai VERSION '{version}'"
        assert paths.get(version), f"no update path from {base} to {version}"


def table_rows(conn) -> dict[str, list[str]]:
    """The rows in the extension's tables, per table (an install script seeds some)."""
    tables = conn.execute("""
        select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind in ('r', 'p')""").fetchall()
    return {f"{schema}.{name}": sorted(r[0] for r in conn.execute(
        sql.SQL("select t::text from {} t").format(sql.Identifier(schema, name))))
        for schema, name in tables}


@pytest.mark.parametrize("version", sorted(retired(), key=version_key))
def test_a_retired_version_from_the_update_scripts_equals_its_install_script(db, version):
    """A user who installed `version` fresh ran its install script; installed now, it is the
    oldest install script and the update scripts.  Both end with the same catalog and rows, so
    the updates tested from the chain (test_updated_install_matches_a_fresh_one) are theirs too.
    The retired script is installed under a version name of its own, which no other test asks for."""
    script = retired_install_script(version)
    assert not (sharedir(db) / f"dbms_cloud_ai--{version}.sql").exists(), "run `make install`"
    alias = f"{version}+retired{os.getpid()}"
    path = sharedir(db) / f"dbms_cloud_ai--{alias}.sql"
    try:
        path.write_bytes(script)
    except PermissionError:
        pytest.skip(f"cannot write {path}: run the tests as the owner of PostgreSQL's share directory")
    try:
        with scratch_database(db, "chain", version) as chain, \
                scratch_database(db, "retired", alias) as frozen:
            extversion = "select extversion from pg_extension where extname = 'dbms_cloud_ai'"
            assert frozen.execute(extversion).fetchone()[0] == alias
            assert chain.execute(extversion).fetchone()[0] == version
            frozen_catalog = snapshot(frozen)
            frozen_catalog["extension"] = [e.replace(alias, version) for e in frozen_catalog["extension"]]
            assert differences(frozen_catalog, snapshot(chain)) == []
            assert table_rows(frozen) == table_rows(chain)
    finally:
        path.unlink()


@pytest.mark.parametrize("old", released_versions())
def test_updated_install_matches_a_fresh_one(db, llm, old):
    """Seed rows as `old` stored them, update, and compare with a fresh install:
    the same catalog, the old rows readable through the new API, and the API
    behaving the same in both.  A retired `old` is installed, as users get it now,
    from the oldest install script and the update scripts."""
    with scratch_database(db, "fresh") as fresh, scratch_database(db, "updated", old) as updated:
        seed = SEEDS / f"seed-{old}.sql"
        assert seed.is_file(), f"a released version needs its seed rows: {seed}"
        updated.execute(seed.read_text())
        updated.execute("alter extension dbms_cloud_ai update")
        assert updated.execute("select extversion from pg_extension where extname = 'dbms_cloud_ai'"
                               ).fetchone()[0] == current_version()

        assert differences(snapshot(fresh), snapshot(updated)) == []

        with as_role(updated, "alice") as alice:
            assert alice.execute("select conversation_title from dbms_cloud_ai.user_cloud_ai_conversations"
                                 ).fetchall() == [("Old talk",)]
            assert [r[0] for r in alice.execute(
                "select prompt from dbms_cloud_ai.user_cloud_ai_conversation_prompts order by created, prompt")
            ] == ["old question one", "old question two"]
            assert alice.execute("select fact from dbms_cloud_ai.user_cloud_ai_memories").fetchall() == [
                ("Alice prefers metric units",)]
            assert alice.execute("select profile_name from dbms_cloud_ai.user_cloud_ai_profiles"
                                 ).fetchall() == [("OLD_P",)]
            # Stored before attributes kept their text (0.6.0): shown from the typed values.
            assert alice.execute("select attribute_name, attribute_value "
                                 "from dbms_cloud_ai.user_cloud_ai_profile_attributes "
                                 "order by attribute_name").fetchall() == [
                ("conversation", "true"), ("model", "gpt-4o-mini"), ("provider", "openai")]

        if tuple(int(x) for x in old.split(".")) >= (0, 7, 0):
            # 0.7.0's vector index and profile grant, through the new API and views
            with as_role(updated, "alice") as alice:
                assert alice.execute(
                    "select index_name, description, last_refresh_status "
                    "from dbms_cloud_ai.user_cloud_vector_indexes").fetchall() == [
                    ("OLD_IDX", f"from {old}", None)]
                # its common words moved out of the index row (issue 30, class 4)
                [(words,)] = alice.execute("select common_words from dbms_cloud_ai._vector_index_content"
                                           ).fetchall()
                assert sorted(words) == ["accepted", "returns"]
                alice.execute("select dbms_cloud_ai.drop_vector_index('OLD_IDX', include_data => true)")
                assert alice.execute("select count(*) from dbms_cloud_ai._vector_chunk").fetchone()[0] == 0
            with as_role(updated, "bob") as bob:
                assert bob.execute("select owner, profile_name from dbms_cloud_ai.all_cloud_ai_profiles"
                                   ).fetchall() == [("alice", "OLD_P")]
            if tuple(int(x) for x in old.split(".")) >= (0, 8, 0):
                # 0.8.0's per-grantee budget (set_profile_grant_budget) is kept
                assert updated.execute("select grantee, daily_tokens from dbms_cloud_ai._profile_grant"
                                       ).fetchall() == [("bob", 50000)]

        assert use_the_api(fresh, llm) == use_the_api(updated, llm) == [
            ("New talk", "hello after update", True)]
        assert differences(snapshot(fresh), snapshot(updated)) == []


def test_an_open_session_refuses_to_mix_versions_after_an_update(db, llm):
    """A backend that loaded the old library is told to reconnect (55000), not run mixed code."""
    old = released_versions()[-1]
    with scratch_database(db, "mixed", old) as conn:
        conn.execute("""do language plpython3u $$ GD["dbms_cloud_ai.version"] = "%s" $$""" % old)
        conn.execute("alter extension dbms_cloud_ai update")
        with pytest.raises(psycopg.Error) as e:
            conn.execute("select dbms_cloud_ai.get_profile()")
        assert e.value.sqlstate == "55000"
        with as_role(conn, "alice") as fresh_session:
            assert fresh_session.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] is None
