"""One version everywhere, a clean catalog, and a loader that finds the right library."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys
import tomllib

import psycopg
import pytest
from helpers import raises
from paths import ROOT
from tables import TABLES

SCHEMAS = "('dbms_cloud', 'dbms_cloud_ai')"


def control_version():
    text = (ROOT / "extension" / "dbms_cloud_ai.control").read_text()
    return re.search(r"^default_version\s*=\s*'([^']+)'", text, re.M).group(1)


def test_python_package_reports_the_control_file_version():
    init = (ROOT / "python" / "src" / "dbms_cloud_ai" / "__init__.py").read_text()
    assert re.search(r'__version__ = "([^"]+)"', init).group(1) == control_version()
    pyproject = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text())
    assert pyproject["project"]["version"] == control_version()


def test_installed_extension_and_loaded_library_match(db, alice):
    assert db.admin.execute("select extversion from pg_extension where extname = 'dbms_cloud_ai'"
                            ).fetchone()[0] == control_version()
    db.admin.execute("""create function pg_temp.loaded() returns text language plpython3u as $$
        return GD["dbms_cloud_ai"].__version__ + " " + GD["dbms_cloud_ai"].__file__ + " " + \
               __import__("httpx").__file__ $$""")
    db.admin.execute("select dbms_cloud_ai.get_profile()")  # bootstraps this backend
    version, pkg, httpx_file = db.admin.execute("select pg_temp.loaded()").fetchone()[0].split(" ")
    assert version == control_version()
    assert f"/{control_version()}/python3." in pkg
    assert f"/{control_version()}/python3." in httpx_file  # pinned dependency, not the system's


def test_built_script_is_what_is_installed(db):
    sharedir = db.admin.execute("select setting from pg_config where name = 'SHAREDIR'").fetchone()[0]
    installed = pathlib.Path(sharedir, "extension", f"dbms_cloud_ai--{control_version()}.sql").read_text()
    libdir = re.search(r'DBMS_CLOUD_AI_PYTHON_LIB_DIR"\) or "([^"]+)"', installed).group(1)
    built = subprocess.run([sys.executable, str(ROOT / "sql" / "build.py"), "--pylibdir", libdir],
                           check=True, capture_output=True, text=True).stdout
    assert built == installed, "run `make install`: the installed script is stale"


# search_path pinning, SECURITY DEFINER allow-list, control file, @extschema@ and
# CREATE OR REPLACE checks: the catalog lint in tests/security/test_install_hygiene.py (A2).


def test_nothing_is_granted_to_public(db):
    rows = db.admin.execute(f"""
        select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname in {SCHEMAS} and has_function_privilege('public', p.oid, 'execute')""").fetchall()
    assert rows == []
    rows = db.admin.execute(f"""
        select c.oid::regclass::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname in {SCHEMAS} and c.relkind in ('r', 'v')
           and exists (select from aclexplode(c.relacl) a where a.grantee = 0)""").fetchall()
    assert rows == []


def test_every_plpython_body_is_one_call_after_the_loader(db):
    rows = db.admin.execute(f"""
        select p.proname, p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          join pg_language l on l.oid = p.prolang
         where n.nspname in {SCHEMAS} and l.lanname = 'plpython3u'""").fetchall()
    assert rows
    for name, src in rows:
        assert 'GD.get("dbms_cloud_ai.version")' in src, name
        calls = [ln for ln in src.splitlines() if ln.strip().startswith("return GD[\"dbms_cloud_ai\"].sqlapi.")]
        assert len(calls) == 1, name


def test_user_tables_are_dumped_by_pg_dump(db):
    tables = {r[0] for r in db.admin.execute("""
        select c.oid::regclass::text from pg_extension e, unnest(e.extconfig) x(oid)
          join pg_class c on c.oid = x.oid
         where e.extname = 'dbms_cloud_ai' and c.relkind = 'r'""")}
    # tests/tables.py says which: all but the derived usage summary (_usage_daily,
    # _usage_state), which is rebuilt after a restore.
    assert tables == {t.name for t in TABLES.values() if t.dumped}


def test_session_refuses_a_library_of_another_version(db):
    conn = db.connect("postgres")
    conn.execute("select dbms_cloud_ai.get_profile()")
    conn.execute("""do language plpython3u $$ GD["dbms_cloud_ai.version"] = "0.0.0-old" $$""")
    with raises("55000") as e:
        conn.execute("select dbms_cloud_ai.get_profile()")
    assert "Reconnect" in (e["error"].diag.message_hint or "")


def test_planted_schema_makes_install_fail(db):
    db.admin.execute("drop extension dbms_cloud_ai")
    db.admin.execute("create schema dbms_cloud")
    with pytest.raises(psycopg.errors.DuplicateSchema):
        db.admin.execute("create extension dbms_cloud_ai")
    db.admin.execute("drop schema dbms_cloud")
    db.admin.execute("create extension dbms_cloud_ai")
    assert db.admin.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == 0


def test_identity_sequences_are_dumped_with_their_tables(db):
    """Every identity column of a dumped table has its sequence dumped too."""
    missing = db.admin.execute("""
        select a.attrelid::regclass::text || '.' || a.attname
          from pg_extension e, unnest(e.extconfig) x(oid)
          join pg_attribute a on a.attrelid = x.oid and a.attidentity <> ''
         where e.extname = 'dbms_cloud_ai'
           and pg_get_serial_sequence(a.attrelid::regclass::text, a.attname)::regclass
               <> all (e.extconfig)""").fetchall()
    assert missing == []
