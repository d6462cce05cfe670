"""security.md 8.D: multi-tenant row-level security, table by table.

- D1: four roles (alice, bob, carol through the group ``analysts``, ai_admin: an
  administrator that owns nothing) x every table of the extension with row-level
  security (from the catalog) x six operations, against the explicit table
  EXPECTED (tests/tables.py).  A new RLS table fails the test until it has its row there.
- D2: a leaky function (RAISE NOTICE, tiny COST) over every table and view bob
  may read: the notices show bob's rows only.
- D3: the catalog gate: forced RLS everywhere, table owner and the grantees of
  dbms_cloud_ai_user without ways around it.
- D4: every SECURITY DEFINER function, called as bob with alice's names.
- D5: in one backend, alice then SET ROLE bob, three times, with PREPAREd
  statements past the generic-plan threshold: bob sees exactly what bob sees.
- D6: bob sets every setting the extension reads (and app.user_id-style names)
  to alice's values: nothing of alice's becomes visible or usable.

Seed rows come from the API (credentials, profiles, conversations, prompts,
model calls, NL2SQL statements, feedback, examples, message sources, memories,
memory jobs, budgets, host ACEs, prices, memory roles); the few tables only a
background job or a later day fills (summaries, daily usage, erasure audit) get
a superuser INSERT.
"""

from __future__ import annotations

import json
import os
import re
import uuid

import psycopg
import pytest
from fake_llm import Answer
from fix_db import DB
from helpers import case, generate, make_profile, raises
from memory_helpers import conversation, enable, promote, remember_phrases, say
from paths import ROOT
from psycopg import sql
from tables import TABLES

pytestmark = pytest.mark.skipif(not os.environ.get("DCA_PGHOST"), reason="no server: run `make test`")

ROLES = ("alice", "bob", "carol", "ai_admin")
SEEDED = ("alice", "bob")   # also budgets, host ACEs and daily usage (administered rows)
SCHEMAS = ("dbms_cloud", "dbms_cloud_ai")
ORG = "acme"
OTHER = {"alice": "bob", "bob": "alice", "carol": "alice", "ai_admin": "alice"}


# --- seed ---------------------------------------------------------------------------------------

def seed(db, llm) -> dict:
    """Rows of every per-user table for alice and bob; the basics for carol and ai_admin."""
    admin = db.admin
    ids = {}
    llm.responder = remember_phrases()
    conns = {r: db.connect(r) for r in ROLES}     # one backend each: the package loads once
    adm = conns["ai_admin"]
    admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    # Everyone in one named organization, so that the clones of the seeded
    # database (another current_database()) keep the same tenant.
    for r in ROLES:
        admin.execute("select dbms_cloud_ai.set_memory_role(%s, %s, 'role')", (r, ORG))
    enable(db, ORG)
    for r in SEEDED:
        adm.execute("select dbms_cloud_ai.set_token_budget(%s, 1000000)", (r,))
        adm.execute("select dbms_cloud_ai.append_host_ace(%s, %s)", (f"{r}.example", r))
    adm.execute("select dbms_cloud_ai.append_host_ace('analysts.example', 'analysts')")
    adm.execute("select dbms_cloud_ai.set_model_price('openai', 'gpt-x', 1, 2)")
    adm.execute("select dbms_cloud_ai.set_max_wait(300)")
    adm.execute("select dbms_cloud_ai.set_oci_genai_endpoint('http://127.0.0.1:9/v1')")
    adm.execute("select dbms_cloud_ai.enable_data_access()")
    for r in ROLES:
        conn = conns[r]
        make_profile(conn, llm, key=f"sk-{r}-key", long_term_memory=True)
        admin.execute(sql.SQL("create table {}.things (id int, label text)").format(sql.Identifier(r)))
        admin.execute(sql.SQL("grant select on {}.things to {}").format(sql.Identifier(r),
                                                                          sql.Identifier(r)))
        chat = conversation(conn, f"{r}-chat")
        say(conn, f"remember: {r}-likes-tea", chat)
        ids[r] = {"chat": chat, "spare": conversation(conn, f"{r}-spare")}
    for r in ROLES:
        conn = conns[r]
        q = f"how many things does {r} have"
        llm.script(Answer(f"SELECT count(*) FROM {r}.things"))
        generate(conn, q, "P", "showsql")
        conn.execute("select dbms_cloud_ai.feedback('P', sql_text => %s, feedback_type => 'positive')",
                     (f"select ai showsql {q}",))
        llm.script(Answer(f"SELECT count(*) AS n FROM {r}.things"))
        generate(conn, q + " today", "P", "showsql")       # uses the example: a message source
        prompt = conn.execute("select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                              ).fetchone()[0]
        conn.execute("select dbms_cloud_ai.rate_prompt(%s, -1, %s)", (prompt, f"{r}-rating"))
    for r in SEEDED:                                       # annotations on a table of their own
        admin.execute(sql.SQL("create table {}.notes (id int)").format(sql.Identifier(r)))
        admin.execute(sql.SQL("alter table {}.notes owner to {}").format(sql.Identifier(r), sql.Identifier(r)))
        conns[r].execute("select dbms_cloud_ai.add_annotation(%s, 'Display', %s)", (f"{r}.notes", f"{r}-notes"))
    promote(db)                                            # memories and finished jobs
    for r in ROLES:
        admin.execute("""insert into dbms_cloud_ai._conversation_summary
                             (conversation_id, owner, summary, first_seq, covers_seq)
                         values (%s::uuid, %s, %s, 1, 1)""", (ids[r]["chat"], r, f"{r}-summary"))
    for r in SEEDED:
        admin.execute("""insert into dbms_cloud_ai._usage_daily (day, owner, provider, calls, errors)
                         values (current_date - 1, %s, 'openai', 1, 0)""", (r,))
    admin.execute("""insert into dbms_cloud_ai._memory_erasure
                         (erasure_id, organization, subject_digest, scope, actor, memories, prompts, jobs)
                     values (gen_random_uuid(), %s, 'digest', 'memory', 'ai_admin', 0, 0, 0)""", (ORG,))
    for r in SEEDED:                                       # profile sharing: with carol's group only
        conns[r].execute("select dbms_cloud_ai.grant_profile_access('P', 'analysts')")
    for r in SEEDED:                                       # vector indexes: shared the same way
        admin.execute(sql.SQL("create table {}.docs (id int, body text)").format(sql.Identifier(r)))
        admin.execute(sql.SQL("insert into {}.docs values (1, {})").format(
            sql.Identifier(r), sql.Literal(f"{r} keeps the handbook")))
        admin.execute(sql.SQL("alter table {}.docs owner to {}").format(sql.Identifier(r), sql.Identifier(r)))
        conns[r].execute("select dbms_cloud_ai.create_profile('EMB', %s)",
                         (json.dumps({"provider": "openai", "credential_name": "CRED",
                                      "provider_endpoint": llm.url, "embedding_model": "m"}),))
        conns[r].execute("select dbms_cloud_ai.create_vector_index('DOCS', %s)",
                         (json.dumps({"location": f"table:{r}.docs(id, body)", "profile_name": "EMB"}),))
        conns[r].execute("select dbms_cloud_ai.grant_vector_index_access('DOCS', 'analysts')")
    for r in SEEDED:                                       # agent objects: a team shared the same way
        A = "dbms_cloud_ai_agent"
        conns[r].execute(f"""select {A}.create_tool('T', '{{"tool_type": "human"}}')""")
        conns[r].execute(f"""select {A}.create_task('K', '{{"instruction": "answer", "tools": ["T"]}}')""")
        conns[r].execute(f"""select {A}.create_agent('A', '{{"profile_name": "P", "role": "helper"}}')""")
        conns[r].execute(f"""select {A}.create_team('TEAM', '{{"agents": [{{"name": "A", "task": "K"}}]}}')""")
        conns[r].execute(f"select {A}.grant_team_access('TEAM', 'analysts')")
        # a run and a tool invocation: the run history (agents/history.py)
        admin.execute(sql.SQL("create function {}.echo(t text) returns text language sql as 'select t'"
                              ).format(sql.Identifier(r)))
        admin.execute(sql.SQL("alter function {}.echo(text) owner to {}").format(
            sql.Identifier(r), sql.Identifier(r)))
        conns[r].execute(f"select {A}.create_tool('F', %s)", (json.dumps({"function": f"{r}.echo"}),))
        conns[r].execute(f"select {A}.run_tool('F', '{{\"t\": \"x\"}}')")
        conns[r].execute(f"select {A}.run_team('TEAM', 'hello')")
    conns["alice"].execute("""select dbms_cloud_ai.create_profile('ALICEONLY', %s)""",
                           (json.dumps({"provider": "openai", "credential_name": "CRED",
                                        "provider_endpoint": llm.url}),))
    return ids


def _cluster(dbname="postgres"):
    return psycopg.connect(host=os.environ["DCA_PGHOST"], port=os.environ["DCA_PGPORT"],
                           user="postgres", dbname=dbname, autocommit=True)


@pytest.fixture(scope="module")
def seeded(postgresql_noproc, fake_llm):
    """Seeding takes seconds (a backend per role loads the package and the SQL
    parser): done once into a database that each test then clones."""
    name = f"{postgresql_noproc.template_dbname}_rls"
    with _cluster() as c:
        c.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))
        c.execute(sql.SQL("create database {} template {}").format(
            sql.Identifier(name), sql.Identifier(postgresql_noproc.template_dbname)))
    fake_llm.reset()
    d = DB(_cluster(name))
    try:
        ids = seed(d, fake_llm)
    finally:
        d.close()
        d.admin.close()
        fake_llm.reset()
    yield name, ids
    with _cluster() as c:
        c.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture
def sdb(seeded, fake_llm):
    """A fresh copy of the seeded database; ``.ids``: the seeded conversation ids."""
    template, ids = seeded
    name = f"{template}_{uuid.uuid4().hex[:8]}"
    with _cluster() as c:
        c.execute(sql.SQL("create database {} template {}").format(sql.Identifier(name),
                                                                    sql.Identifier(template)))
    fake_llm.reset()
    d = DB(_cluster(name))
    d.ids = ids
    yield d
    d.close()
    d.admin.close()
    fake_llm.reset()
    with _cluster() as c:
        c.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


# --- D1: the matrix -----------------------------------------------------------------------------

# Per table (tests/tables.py): the column naming whose row it is (None: shared
# rows), a harmless column to UPDATE, and an INSERT (``{o}``: the owner to write).
ROW_OWNER = {t.name: (t.role_column, t.probe_column, t.insert) for t in TABLES.values()}

OPS = ("select", "insert_own", "insert_other", "update_own", "update_owner", "delete")


def rls_tables(db) -> list[str]:
    return [r[0] for r in db.admin.execute("""
        select pg_catalog.format('%%I.%%I', n.nspname, c.relname)
          from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname = any (%s) and c.relkind in ('r', 'p') and c.relrowsecurity
         order by 1""", (list(SCHEMAS),)).fetchall()]


def outcome(conn, role, table, op) -> str:
    """One cell: what the role's statement did, as a short word."""
    col, ucol, insert = ROW_OWNER[table]
    ident = sql.Identifier
    t = sql.SQL(table)
    me, other = sql.Literal(role), sql.Literal(OTHER[role])
    if op == "select":
        q = sql.SQL("select {} from {} t").format(ident(col) if col else sql.SQL("null"), t)
    elif op in ("insert_own", "insert_other"):
        if col is None and op == "insert_other":
            return "n/a"
        q = sql.SQL(insert.replace("{o}", "{}")).format(*[me if op == "insert_own" else other]
                                                        * insert.count("{o}"))
    elif op == "update_own":
        q = sql.SQL("update {} set {} = {} where {} returning {}").format(
            t, ident(ucol), ident(ucol),
            sql.SQL("{} = current_user").format(ident(col)) if col else sql.SQL("true"),
            ident(col) if col else sql.SQL("null"))
    elif op == "update_owner":
        if col is None:
            return "n/a"
        q = sql.SQL("update {} set {} = {} where {} = current_user returning {}").format(
            t, ident(col), other, ident(col), ident(col))
    else:
        q = sql.SQL("delete from {} returning {}").format(t, ident(col) if col else sql.SQL("null"))
    conn.execute("savepoint cell")
    try:
        cur = conn.execute(q)
        rows = cur.fetchall() if cur.description else []
        rowcount = cur.rowcount
    except psycopg.Error as e:
        conn.execute("rollback to savepoint cell")
        if e.sqlstate != "42501":
            return e.sqlstate
        verb = op.split("_")[0]
        has = conn.execute("select has_table_privilege(current_user, %s, %s)", (table, verb)).fetchone()[0]
        return "refused" if has else "denied"
    conn.execute("rollback to savepoint cell")
    if op.startswith("insert"):
        return "ok" if rowcount == 1 or "on conflict do nothing" in insert else f"inserted {rowcount}"
    if col is None:
        return "rows" if rows else "none"
    return _owners({r[0] for r in rows})


def _owners(names) -> str:
    return ",".join(sorted(names)) or "none"


def matrix(db) -> dict:
    got = {}
    for role in ROLES:
        conn = db.connect(role)
        conn.autocommit = False
        for table in ROW_OWNER:
            for op in OPS:
                got[(table, role, op)] = outcome(conn, role, table, op)
        conn.rollback()
    return got



# The expected outcome of every cell.  Words:
#   own      exactly the acting role's own rows (none if it has none)
#   all      every role's rows
#   grantee  rows for PUBLIC, the role and the groups it belongs to
#   shared   own rows and those of owners who shared a profile with the role
#   rows     rows (shared tables without an owner)
#   none     no row, no error
#   ok       INSERT succeeded
#   refused  42501 although the role has the table privilege: a policy said no
#   denied   42501: no privilege on the table at all (nothing to try)
#   n/a      a shared table has no owner to change or forge
# Operations: SELECT, INSERT own, INSERT with another owner, UPDATE own rows,
# UPDATE own rows to another owner, DELETE (every visible row).
EXPECTED = {t.name: t.access for t in TABLES.values()}


def expected_cells(db) -> dict:
    """EXPECTED with its words resolved against the seeded rows (read as the superuser)."""
    groups = {r: {g for (g,) in db.admin.execute(
        "select b.rolname from pg_roles b where pg_has_role(%s, b.oid, 'member')", (r,)).fetchall()}
        for r in ROLES}
    cells = {}
    for table, by_roles in EXPECTED.items():
        col = ROW_OWNER[table][0]
        present = {r[0] for r in db.admin.execute(
            sql.SQL("select distinct {} from {}").format(sql.Identifier(col), sql.SQL(table)))} if col else set()
        sharers = {r: {o for (o,) in db.admin.execute(
            "select distinct owner from dbms_cloud_ai._profile_grant "
            "where grantee_oid = 0 or pg_has_role(%s, grantee_oid, 'USAGE')", (r,)).fetchall()}
            for r in ROLES}
        for roles, words in by_roles.items():
            for role in (roles,) if isinstance(roles, str) else roles:
                for op, word in zip(OPS, words):
                    cells[(table, role, op)] = {
                        "own": _owners(present & {role}),
                        "all": _owners(present),
                        "grantee": _owners(present & ({"PUBLIC", role} | groups[role])),
                        "shared": _owners(present & ({role} | sharers[role])),
                    }.get(word, word)
    return cells


def test_every_rls_table_has_an_expectation_and_seed_rows_for_both_users(sdb):
    db = sdb
    tables = rls_tables(db)
    assert set(tables) == set(ROW_OWNER) == set(EXPECTED), "a new RLS table needs its rows here"
    for table, (col, _, _) in ROW_OWNER.items():
        if col and table not in ("dbms_cloud_ai._memory_erasure",):
            present = {r[0] for r in db.admin.execute(
                sql.SQL("select distinct {} from {}").format(sql.Identifier(col), sql.SQL(table)))}
            with case(table):
                assert {"alice", "bob"} <= present


def test_d1_four_roles_by_every_rls_table_by_six_operations(sdb):
    db = sdb
    want = expected_cells(db)
    got = matrix(db)
    assert len(got) == len(ROLES) * len(ROW_OWNER) * len(OPS)
    wrong = {k: (got[k], want[k]) for k in got if got[k] != want[k]}
    assert not wrong, "\n".join(f"{t} {r} {op}: got {g!r}, expected {w!r}"
                                 for (t, r, op), (g, w) in sorted(wrong.items()))
    # The matrix is not vacuous: each user reads and deletes its own rows somewhere.
    for role in ("alice", "bob"):
        assert sum(got[(t, role, "select")] == role for t in ROW_OWNER) >= 12


# --- writing under another role's rows ---------------------------------------------------------

# Every foreign key from an RLS table to another role's parent row (found in the
# catalog; keys that include the owner column cannot point across roles).  As
# bob, a row pointing at alice's parent must be refused exactly like a row
# pointing at no parent at all: nothing written, nothing learnt.
CHILD_INSERTS = {
    ("dbms_cloud_ai._conversation_prompt", "dbms_cloud_ai._conversation"):
        "insert into dbms_cloud_ai._conversation_prompt (conversation_prompt_id, conversation_id, "
        "prompt_action, prompt, prompt_response) values (gen_random_uuid(), {}, 'CHAT', 'x', 'y')",
    ("dbms_cloud_ai._conversation_summary", "dbms_cloud_ai._conversation"):
        "insert into dbms_cloud_ai._conversation_summary (conversation_id) values ({})",
    ("dbms_cloud_ai._memory_job", "dbms_cloud_ai._conversation"):
        "insert into dbms_cloud_ai._memory_job (conversation_id, organization, due_at) "
        "values ({}, 'acme', now())",
    ("dbms_cloud_ai._example", "dbms_cloud_ai._conversation_prompt"):
        "insert into dbms_cloud_ai._example (profile_name, source_kind, conversation_prompt_id, question, "
        "sql, tsv) values ('P', 'rated_prompt', {}, 'q', 'select 1', to_tsvector('q'))",
    ("dbms_cloud_ai._example", "dbms_cloud_ai._feedback"):
        "insert into dbms_cloud_ai._example (profile_name, source_kind, feedback_id, question, sql, tsv) "
        "values ('P', 'feedback', {}, 'q', 'select 1', to_tsvector('q'))",
}
PARENT_ID = {"dbms_cloud_ai._conversation": "conversation_id",
             "dbms_cloud_ai._conversation_prompt": "conversation_prompt_id",
             "dbms_cloud_ai._feedback": "feedback_id"}


def test_no_foreign_key_lets_a_role_write_under_or_probe_another_roles_row(sdb):
    db = sdb
    fks = {r for r in db.admin.execute("""
        select c.conrelid::regclass::text, c.confrelid::regclass::text
          from pg_constraint c
          join pg_class t on t.oid = c.conrelid
          join pg_namespace n on n.oid = t.relnamespace
         where c.contype = 'f' and n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and t.relrowsecurity
           and exists (select from pg_attribute a where a.attrelid = c.confrelid and a.attname = 'owner')
           and not exists (select from pg_attribute a where a.attrelid = c.conrelid
                             and a.attnum = any (c.conkey) and a.attname = 'owner')""").fetchall()}
    assert fks == set(CHILD_INSERTS)
    bob = db.connect("bob")
    for (child, parent), insert in CHILD_INSERTS.items():
        # one of alice's parents of that kind (one with a child row already is a probe
        # target too: a unique violation would tell bob that it exists)
        alices = db.admin.execute(sql.SQL("select p.{} from {} p where p.owner = 'alice' limit 1").format(
            sql.Identifier(PARENT_ID[parent]), sql.SQL(parent))).fetchone()
        assert alices, (child, parent)
        for target in (alices[0], uuid.uuid4()):
            with case(f"{child} -> {parent} {target}"), raises("42501"):
                bob.execute(sql.SQL(insert).format(sql.Literal(str(target))))


# Columns an administrator's erasure UPDATE must blank (their WITH CHECK), so that
# the only thing left to test is the owner change.
ERASURE_BLANKS = {"dbms_cloud_ai._conversation": "title = null, description = null",
                  "dbms_cloud_ai._conversation_summary": "summary = null, first_seq = null, covers_seq = null"}


def test_no_role_moves_another_roles_rows_to_a_new_owner(sdb):
    db = sdb
    tables = [r[0] for r in db.admin.execute("""
        select c.oid::regclass::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind = 'r'
           and exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'owner')
         order by 1""").fetchall()]
    assert len(tables) >= 13
    before = {t: db.admin.execute(sql.SQL("select count(*) from {} where owner = 'alice'").format(
        sql.SQL(t))).fetchone()[0] for t in tables}
    for role in ("bob", "carol", "ai_admin"):
        conn = db.connect(role)
        for t in tables:
            blanks = ERASURE_BLANKS.get(t)
            q = sql.SQL("update {} set owner = {}{} where owner = 'alice' returning owner").format(
                sql.SQL(t), sql.Literal(role), sql.SQL(", " + blanks if blanks else ""))
            with case(f"{role} {t}"):
                try:
                    assert conn.execute(q).fetchall() == []
                except psycopg.Error as e:
                    assert e.sqlstate == "42501", e
    after = {t: db.admin.execute(sql.SQL("select count(*) from {} where owner = 'alice'").format(
        sql.SQL(t))).fetchone()[0] for t in tables}
    assert after == before and sum(before.values()) > 0


# --- D2: the leaky function ---------------------------------------------------------------------

def readable_relations(db, role) -> list[str]:
    return [r[0] for r in db.admin.execute("""
        select pg_catalog.format('%%I.%%I', n.nspname, c.relname)
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind in ('r', 'v', 'm', 'p')
           and has_table_privilege(%s, c.oid, 'select')
         order by 1""", (role,)).fetchall()]


def test_d2_leaky_function_sees_only_bobs_rows(sdb):
    db = sdb
    db.admin.execute("""create function public.f_leak(text) returns boolean
                        language plpgsql cost 0.0000001 as
                        $$ begin raise notice 'f_leak => %', $1; return true; end $$""")
    bob = db.connect("bob")
    notices: list[str] = []
    bob.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
    rels = readable_relations(db, "bob")
    assert len(rels) >= 35
    seen_by_relation = {}
    for rel in rels:
        notices.clear()
        n = bob.execute(f"select count(*) from {rel} t where public.f_leak(t::text)").fetchone()[0]
        seen_by_relation[rel] = n
        with case(rel):
            assert len(notices) == n   # the function saw exactly the rows bob gets
            assert not [m for m in notices if re.search(r"alice|carol", m)]
    # The probe read real rows: bob's own in the tables and views that hold them.
    mine = [rel for rel, n in seen_by_relation.items() if n]
    assert len(mine) >= 25, seen_by_relation


# --- D3: the catalog gate -----------------------------------------------------------------------

def test_d3_forced_rls_owner_and_grantees_cannot_bypass(sdb):
    db = sdb
    rows = db.admin.execute("""
        select c.oid::regclass::text, c.relrowsecurity, c.relforcerowsecurity,
               o.rolname, o.rolsuper, o.rolbypassrls, o.rolcanlogin,
               exists (select from pg_policy p where p.polrelid = c.oid)
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          join pg_roles o on o.oid = c.relowner
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind in ('r', 'p')""").fetchall()
    assert len(rows) == len(ROW_OWNER)
    for table, rls, force, owner, sup, bypass, login, policies in rows:
        with case(table):
            assert rls and force and policies
            assert not (sup or bypass or login), f"owner {owner}: superuser/bypassrls/login"
    # Every role that can act as dbms_cloud_ai_user (directly or through groups),
    # and every role it can act as, is held to row-level security.
    # (Granted memberships, both ways, through any depth; superusers are implicitly
    # members of every role and are listed by the owner check above instead.)
    bypassing = db.admin.execute("""
        with recursive down(oid) as (
                select oid from pg_roles where rolname = 'dbms_cloud_ai_user'
                union select m.member from pg_auth_members m join down d on m.roleid = d.oid),
            up(oid) as (
                select oid from pg_roles where rolname = 'dbms_cloud_ai_user'
                union select m.roleid from pg_auth_members m join up u on m.member = u.oid)
        select r.rolname from pg_roles r
         where r.oid in (select oid from down union select oid from up)
           and (r.rolbypassrls or r.rolsuper)""").fetchall()
    assert bypassing == []
    members = {r[0] for r in db.admin.execute("""
        select r.rolname from pg_roles r, pg_roles u where u.rolname = 'dbms_cloud_ai_user'
           and pg_has_role(r.oid, u.oid, 'member')""").fetchall()}
    assert {"alice", "bob", "carol", "ai_admin", "analysts"} <= members


# --- D4: SECURITY DEFINER functions -------------------------------------------------------------

# Each SECURITY DEFINER function, and what bob may get back from it.
# _tokens_used_today(): takes nothing bob could point at alice, returns one number,
# the database's token total for a PUBLIC budget (a documented aggregate).
# _session_table(): takes nothing, returns nothing; creates the calling backend's
# own temporary table (owned by dbms_cloud_ai_owner), which holds no row of anyone.
# _write(text,name,oid,oid): runs only the write the package in the same backend authorised
# with a one-time token; bob without it gets 42501 and nothing is written.
DEFINER_CALLS = {"dbms_cloud_ai._tokens_used_today()": "select dbms_cloud_ai._tokens_used_today()",
                 "dbms_cloud_ai._session_table()": "select dbms_cloud_ai._session_table()",
                 "dbms_cloud_ai._write(text,name,oid,oid)":
                     "select dbms_cloud_ai._write('x', 'alice', null, null)",
                 "dbms_cloud_ai._vector_ann_step(uuid,name)":
                     "select dbms_cloud_ai._vector_ann_step(null, 'alice')",
                 "dbms_cloud_ai._vector_ann_drop_gone(uuid[])":
                     "select dbms_cloud_ai._vector_ann_drop_gone(array[gen_random_uuid()])",
                 "dbms_cloud_ai._role_is_live(name)": "select dbms_cloud_ai._role_is_live('alice')"}


def test_d4_security_definer_functions_give_bob_nothing_of_alices(sdb):
    db = sdb
    definers = {r[0]: (r[1], r[2]) for r in db.admin.execute("""
        select p.oid::regprocedure::text, p.pronargs, pg_get_function_result(p.oid)
          from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and p.prosecdef""").fetchall()}
    assert set(definers) == set(DEFINER_CALLS)
    assert definers["dbms_cloud_ai._tokens_used_today()"] == (0, "bigint")
    assert definers["dbms_cloud_ai._session_table()"] == (0, "void")
    bob = db.connect("bob")
    bob.execute(DEFINER_CALLS["dbms_cloud_ai._session_table()"])
    assert definers["dbms_cloud_ai._write(text,name,oid,oid)"] == (4, "void")
    with raises("42501"):
        bob.execute(DEFINER_CALLS["dbms_cloud_ai._write(text,name,oid,oid)"])
    assert bob.execute("select count(*) from pg_temp.dca_session_prompt").fetchone()[0] == 0
    # the HNSW index DDL: dbms_cloud_ai_owner only (the package, through the writer),
    # and administrators' drop of what is gone (drop_role_data)
    with raises("42501"):
        bob.execute(DEFINER_CALLS["dbms_cloud_ai._vector_ann_step(uuid,name)"])
    with raises("42501"):
        bob.execute(DEFINER_CALLS["dbms_cloud_ai._vector_ann_drop_gone(uuid[])"])
    # whether alice's shared things are usable: one boolean about her name, nothing of her rows
    assert definers["dbms_cloud_ai._role_is_live(name)"] == (1, "boolean")
    assert bob.execute(DEFINER_CALLS["dbms_cloud_ai._role_is_live(name)"]).fetchone()[0] is True
    (total,) = bob.execute(DEFINER_CALLS["dbms_cloud_ai._tokens_used_today()"]).fetchone()
    everyone = db.admin.execute("""select coalesce(sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)), 0)
                                     from dbms_cloud_ai._model_call
                                    where created >= date_trunc('day', now(), 'UTC')""").fetchone()[0]
    assert total == everyone


# --- D5: role switching and plan caching --------------------------------------------------------

def rows_as_text(conn, rel) -> list[str]:
    return sorted(r[0] for r in conn.execute(f"select t::text from {rel} t").fetchall())


READ_FUNCTIONS = ("select dbms_cloud_ai.get_profile()",
                  "select dbms_cloud_ai.memory_identity()::text",
                  "select dbms_cloud_ai.export_negative_feedback(null)")


def test_d5_set_role_in_one_backend_shows_bob_only_bobs_rows(sdb, fake_llm):
    db = sdb
    ids = db.ids
    rels = [r for r in readable_relations(db, "bob") if r in readable_relations(db, "alice")]
    bob_direct = db.connect("bob")
    expected = {rel: rows_as_text(bob_direct, rel) for rel in rels}
    expected_fn = {q: bob_direct.execute(q).fetchone()[0] for q in READ_FUNCTIONS}
    conn = db.connect("postgres")
    conn.execute("set plan_cache_mode = force_generic_plan")   # one plan for both roles
    conn.execute("set role alice")
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'conversation', 'true')")
    assert conn.execute("select dbms_cloud_ai.generate('alice session turn', 'P', 'chat')").fetchone()[0]
    conn.execute("select dbms_cloud_ai.set_profile('ALICEONLY')")
    conn.execute("select dbms_cloud_ai.set_conversation_id(%s)", (ids["alice"]["chat"],))
    for i, rel in enumerate(rels):
        conn.execute(f"prepare rel_{i} as select t::text from {rel} t")
    conn.execute("prepare own_conversations(text) as select count(*) from dbms_cloud_ai._conversation "
                 "where owner = $1 or $1 is null")
    alice_view = {}
    for _ in range(6):          # past the point where a generic plan would be cached
        for i, rel in enumerate(rels):
            alice_view[rel] = sorted(r[0] for r in conn.execute(f"execute rel_{i}").fetchall())
        conn.execute("execute own_conversations(null)")
    assert alice_view["dbms_cloud_ai.session_cloud_ai_conversation_prompts"]  # alice's session turn
    assert any("alice" in t for t in alice_view["dbms_cloud_ai._conversation"])
    conn.execute("set role bob")
    sent_before = len(fake_llm.requests)
    for round_ in range(3):
        for i, rel in enumerate(rels):
            with case(f"{rel} round {round_}"):
                assert sorted(r[0] for r in conn.execute(f"execute rel_{i}").fetchall()) == expected[rel]
                assert rows_as_text(conn, rel) == expected[rel]
        assert conn.execute("execute own_conversations('alice')").fetchone()[0] == 0
        # bob's two, and the one his team run made
        assert conn.execute("execute own_conversations(null)").fetchone()[0] == 3
        for q in READ_FUNCTIONS:
            got = conn.execute(q).fetchone()[0]
            with case(f"{q} round {round_}"):
                assert got == expected_fn[q]
        with raises("42704"):   # the session profile alice set is no profile of bob's
            conn.execute("select dbms_cloud_ai.generate('q', null, 'chat')")
        with raises("42704"):   # the session's conversation is alice's: not bob's to continue
            conn.execute("select dbms_cloud_ai.generate('q', 'P', 'chat')")
    assert len(fake_llm.requests) == sent_before   # nothing was sent on bob's behalf


# --- D6: spoofed settings -----------------------------------------------------------------------

def settings_the_extension_reads(db) -> set[str]:
    """Every ``dbms_cloud_ai.<name>`` in the package's source that is not an object
    of the extension: the settings (current_setting / set_config names)."""
    src = ROOT / "python" / "src" / "dbms_cloud_ai"
    names = set()
    for f in src.rglob("*.py"):
        names |= set(re.findall(r"dbms_cloud_ai\.([a-z_]+)", f.read_text()))
    objects = {r[0] for r in db.admin.execute("""
        select c.relname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = 'dbms_cloud_ai'
        union select p.proname::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname = 'dbms_cloud_ai'""").fetchall()}
    return {f"dbms_cloud_ai.{n}" for n in names - objects - {"sqlapi"}}


SPOOF_ALIASES = ("app.user_id", "app.user", "app.current_user", "app.tenant_id", "app.owner",
                 "request.jwt.claim.sub", "dbms_cloud_ai.user", "dbms_cloud_ai.owner",
                 "dbms_cloud_ai.current_user", "dbms_cloud_ai.organization", "dbms_cloud_ai.subject")


def test_d6_bob_spoofing_every_setting_with_alices_values_gains_nothing(sdb, fake_llm):
    db = sdb
    ids = db.ids
    settings = settings_the_extension_reads(db)
    assert {"dbms_cloud_ai.profile_name", "dbms_cloud_ai.conversation_id",
            "dbms_cloud_ai.end_user", "dbms_cloud_ai.http_timeout", "dbms_cloud_ai.max_rows"} <= settings
    alice = db.connect("alice")
    alice.execute("select dbms_cloud_ai.set_profile('ALICEONLY')")
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (ids["alice"]["chat"],))
    alices = {n: alice.execute("select current_setting(%s, true)", (n,)).fetchone()[0] for n in settings}
    alices["dbms_cloud_ai.end_user"] = "0" * 64 + ":alice"     # a forged gateway assertion
    alices.update({n: "alice" for n in SPOOF_ALIASES})
    assert alices["dbms_cloud_ai.profile_name"] == "ALICEONLY"

    bob = db.connect("bob")
    rels = readable_relations(db, "bob")
    before = {rel: rows_as_text(bob, rel) for rel in rels}
    ident_before = bob.execute("select dbms_cloud_ai.memory_identity()::text").fetchone()[0]
    for name, value in alices.items():
        if value is not None:
            bob.execute("select set_config(%s, %s, false)", (name, value))
    with case("visible rows"):
        assert {rel: rows_as_text(bob, rel) for rel in rels} == before
    assert bob.execute("select dbms_cloud_ai.memory_identity()::text").fetchone()[0] == ident_before
    assert "bob" in ident_before and "alice" not in ident_before
    with raises("42704"):               # alice's session profile is not bob's
        bob.execute("select dbms_cloud_ai.generate('q', null, 'chat')")
    with raises("42704"):               # nor her session conversation
        bob.execute("select dbms_cloud_ai.generate('q', 'P', 'chat')")
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.generate('q', 'P', 'chat', params => %s)",
                    (json.dumps({"conversation_id": ids["alice"]["chat"]}),))
    assert fake_llm.requests == []
    # bob's own turn, with every spoof in place: his history and memories only.
    bob.execute("select dbms_cloud_ai.clear_conversation_id()")
    bob.execute("select dbms_cloud_ai.generate('what do you know about me?', 'P', 'chat', params => %s)",
                (json.dumps({"conversation_id": ids["bob"]["chat"]}),))
    sent = b"".join(r.body for r in fake_llm.requests)
    assert b"bob-likes-tea" in sent and b"alice" not in sent
