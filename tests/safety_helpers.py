"""Helpers for tests/nl2sql/test_generated_sql_safety.py: what a generated query could
leave behind (table contents, catalog objects, sequences, large objects,
settings, advisory locks), and the test-only switch that turns the validator
off in one backend."""

from __future__ import annotations

import json

from fake_llm import Answer
from tables import TABLES
from unit import sqlguard_corpus  # noqa: F401  (re-exported for the tests)

# --- a table under row-level security ---------------------------------------------

def shared_notes(admin, rows) -> str:
    """shared.notes: forced row-level security on owner = current_user, readable by
    alice and bob, holding ``rows`` of (owner, note)."""
    admin.execute("create schema shared")
    admin.execute("grant usage on schema shared to alice, bob")
    admin.execute("create table shared.notes (owner name not null default current_user, "
                  "note text not null)")
    admin.execute("alter table shared.notes enable row level security")
    admin.execute("alter table shared.notes force row level security")
    admin.execute("create policy own on shared.notes using (owner = current_user) "
                  "with check (owner = current_user)")
    admin.execute("grant select on shared.notes to alice, bob")
    for owner, note in rows:
        admin.execute("insert into shared.notes values (%s, %s)", (owner, note))
    return "shared.notes"


# --- the fake model -----------------------------------------------------------


def answer_with(llm, sql: str):
    """Every request (first answer and repair round) gets ``sql``."""
    llm.responder = lambda wire, body: Answer(sql)


class MarkedResponder:
    """Answers ``sql`` to requests about the question that carries ``marker``
    (the first request and its repair round), and a harmless query to any
    other request: a generated query that calls dbms_cloud_ai.generate()
    itself must not recurse into the same statement."""

    def __init__(self, marker: str, other: str = "SELECT 1"):
        self.marker, self.other, self.sql = marker, other, other

    def __call__(self, wire, body):
        text = json.dumps(body)
        return Answer(self.sql if self.marker in text else self.other)


# --- notices ------------------------------------------------------------------


class Notices:
    """Collects the notices (NOTICE, WARNING, ...) a connection receives, as
    (severity, message) pairs: psycopg's Diagnostic is only valid inside the
    handler."""

    def __init__(self, conn):
        self.items: list[tuple[str, str]] = []
        conn.add_notice_handler(
            lambda d: self.items.append((d.severity_nonlocalized or d.severity,
                                         d.message_primary)))

    def clear(self):
        self.items.clear()

    def warnings(self) -> list[str]:
        return [m for sev, m in self.items if sev == "WARNING"]


# --- the validator switch -----------------------------------------------------

# nl2sql is imported on first use (lazy.py): import it here, as that first use would.
_SWITCH = ('DO $$ import importlib; importlib.import_module("dbms_cloud_ai.nl2sql.actions").VALIDATE = {value} $$ '
           'LANGUAGE plpython3u')


def set_validator(conn, on: bool):
    """Turn sqlguard on or off in ``conn``'s backend.  ``conn`` must be a
    superuser session with no SET ROLE in effect.  The package is loaded on the
    first call of any extension function in the backend, hence get_profile()."""
    conn.execute("select dbms_cloud_ai.get_profile()")
    conn.execute(_SWITCH.format(value="True" if on else "False"))


def validator_off_session(db, role="alice", timeout="20s"):
    """A superuser connection with the validator off, then SET ROLE ``role``."""
    conn = db.connect("postgres")
    set_validator(conn, False)
    conn.execute(f"set role {role}")
    conn.execute(f"set statement_timeout = '{timeout}'")
    return conn


# --- what a statement could leave behind ------------------------------------

_USER_TABLES = """
    select format('%I.%I', n.nspname, c.relname) as t
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p')
       and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
       and n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%'
     order by 1"""

_CLASSES = """
    select n.nspname, c.relname, c.relkind, c.relowner::regrole::text as owner,
           coalesce(c.relacl::text, '') as acl, c.relrowsecurity, c.relforcerowsecurity,
           c.relnatts, c.relhastriggers, c.relhasrules
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname not like 'pg\\_temp\\_%' and n.nspname not like 'pg\\_toast\\_temp\\_%'
     order by 1, 2"""

# Catalogs where DDL the corpus tries (functions, schemas, types, policies,
# triggers, rules, comments, extensions, publications, default ACLs, ...) would
# add or change rows; compared by count and a digest of the rows.
_CATALOGS = ["pg_proc", "pg_namespace", "pg_type", "pg_policy", "pg_trigger", "pg_rewrite",
             "pg_description", "pg_extension", "pg_publication", "pg_default_acl",
             "pg_statistic_ext", "pg_collation", "pg_cast", "pg_operator", "pg_event_trigger",
             "pg_index", "pg_attribute", "pg_language", "pg_foreign_server",
             "pg_user_mapping", "pg_subscription", "pg_conversion", "pg_am",
             "pg_aggregate", "pg_attrdef", "pg_constraint"]

_ROLES = """
    select r.rolname, r.rolsuper, r.rolcreaterole, r.rolcreatedb, r.rolcanlogin,
           r.rolreplication, r.rolbypassrls, coalesce(r.rolconfig::text, '') as config,
           coalesce((select string_agg(g.rolname, ',' order by g.rolname)
                       from pg_catalog.pg_auth_members m
                       join pg_catalog.pg_roles g on g.oid = m.roleid
                      where m.member = r.oid), '') as member_of
      from pg_catalog.pg_roles r where r.rolname = any(%s) order by 1"""

WATCHED_ROLES = ["alice", "bob", "carol", "mallory", "eve", "dbms_cloud_ai_user",
                 "dbms_cloud_ai_admin"]


# Tables the extension itself writes on every model call, outside the
# generated query: per-call accounting (one row per model request, see
# sql/schema/060-accounting.sql where it exists), and the NL2SQL statement
# log that FEEDBACK names statements by (sql/schema/070-feedback.sql).  Their
# growth is the calls being counted, not an effect of the generated SQL.
BOOKKEEPING = {t.name for t in TABLES.values() if t.bookkeeping}   # tests/tables.py


def snapshot(admin) -> dict:
    """Everything a generated query must not change, read as superuser."""
    out = {}
    for (t,) in admin.execute(_USER_TABLES).fetchall():
        if t in BOOKKEEPING:
            continue
        out["table " + t] = admin.execute(
            f"select count(*), md5(coalesce(string_agg(x::text, E'\\n' order by x::text), '')) "
            f"from {t} x").fetchone()
    out["pg_class"] = admin.execute(_CLASSES).fetchall()
    for cat in _CATALOGS:
        out[cat] = admin.execute(
            f"select count(*), md5(coalesce(string_agg(x::text, E'\\n' order by x::text), '')) "
            f"from pg_catalog.{cat} x").fetchone()
    out["sequences"] = admin.execute(
        "select schemaname, sequencename, last_value from pg_catalog.pg_sequences "
        "order by 1, 2").fetchall()
    out["large objects"] = admin.execute(
        "select count(*), md5(coalesce(string_agg(m.oid::text || ':' || m.lomowner::regrole::text"
        " || ':' || md5(pg_catalog.lo_get(m.oid)), ',' order by m.oid), '')) "
        "from pg_catalog.pg_largeobject_metadata m").fetchone()
    out["roles"] = admin.execute(_ROLES, (WATCHED_ROLES,)).fetchall()
    out["database settings"] = admin.execute(
        "select coalesce(setrole::regrole::text, '-'), setconfig::text "
        "from pg_catalog.pg_db_role_setting "
        "where setdatabase = (select oid from pg_catalog.pg_database "
        "                     where datname = pg_catalog.current_database()) "
        "   or setrole = any(select oid from pg_catalog.pg_roles where rolname = any(%s)) "
        "order by 1, 2", (WATCHED_ROLES,)).fetchall()
    out["schemas acl"] = admin.execute(
        "select nspname, nspowner::regrole::text, coalesce(nspacl::text, '') "
        "from pg_catalog.pg_namespace order by 1").fetchall()
    out["replication slots"] = admin.execute(
        "select slot_name from pg_catalog.pg_replication_slots order by 1").fetchall()
    return out


def differences(before: dict, after: dict) -> list[str]:
    out = []
    for k in sorted(set(before) | set(after)):
        b, a = before.get(k), after.get(k)
        if b == a:
            continue
        if isinstance(b, list) and isinstance(a, list):
            gone = [r for r in b if r not in a]
            new = [r for r in a if r not in b]
            out.append(f"{k}: removed {gone[:5]} added {new[:5]}")
        else:
            out.append(f"{k}: {b} -> {a}")
    return out


# --- the session's own state --------------------------------------------------

SESSION_STATE = """
    select (select count(*) from pg_catalog.pg_locks
             where locktype = 'advisory' and pid = pg_catalog.pg_backend_pid()) as advisory_locks,
           (select md5(string_agg(name || '=' || setting, E'\\n' order by name))
              from pg_catalog.pg_settings) as settings,
           pg_catalog.current_setting('app.user_id', true) as app_user_id,
           current_user::text as role,
           dbms_cloud_ai.get_profile() as profile,
           dbms_cloud_ai.get_conversation_id() as conversation"""


def session_state(conn) -> dict:
    cur = conn.execute(SESSION_STATE)
    names = [d.name for d in cur.description]
    return dict(zip(names, cur.fetchone()))


def settings(conn) -> dict:
    return dict(conn.execute("select name, setting from pg_catalog.pg_settings").fetchall())


def advisory_locks(conn, pid=None) -> list[tuple]:
    """(classid, objid, objsubid, mode) of the advisory locks ``pid`` holds
    (default: ``conn``'s own backend)."""
    return conn.execute(
        "select classid::int8, objid::int8, objsubid, mode from pg_catalog.pg_locks "
        "where locktype = 'advisory' and granted "
        "  and pid = coalesce(%s, pg_catalog.pg_backend_pid()) order by 1, 2, 3, 4",
        (pid,)).fetchall()
