"""Hostile users, class 2 (issue 14): users cannot write or lock the extension's tables.

- Ordinary roles hold SELECT only on every table of dbms_cloud and dbms_cloud_ai
  (the catalog says so, and every kind of write, TRUNCATE, a locking read and
  LOCK TABLE in every mode that conflicts with the extension's own writes fail
  with 42501, before any constraint could answer).  Every write of an API call
  runs in dbms_cloud_ai._write as dbms_cloud_ai_owner for the calling role
  (python/src/dbms_cloud_ai/writer.py): it needs the package's one-time token,
  and the caller's name is the package's, not a setting the role controls.
- Accounting: counts below zero and dates in the future are refused by
  constraints (the superuser included); an administrator corrects counts.
- Every public function runs with lock_timeout 5s: a lock that someone who
  may take one (an administrator, the DBA) holds fails calls fast with 55P03.
"""

from __future__ import annotations

import time

import pytest
from helpers import case, generate, make_profile, raises
from psycopg import sql

SCHEMAS = ("dbms_cloud", "dbms_cloud_ai")
# Lock modes a role with SELECT only could want: all but ACCESS SHARE conflict
# with the ROW EXCLUSIVE lock of the extension's own writes or with each other.
LOCK_MODES = ("row share", "row exclusive", "share update exclusive", "share",
              "share row exclusive", "exclusive", "access exclusive")


def tables(db) -> list[str]:
    return [t for (t,) in db.admin.execute("""
        select c.oid::regclass::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = any(%s) and c.relkind in ('r', 'p') order by 1""", (list(SCHEMAS),))]


def test_ordinary_roles_hold_no_write_privilege_on_any_table(db):
    found = tables(db)
    assert len(found) >= 20
    for role in ("alice", "bob", "carol", "dbms_cloud_ai_user"):
        for t in found:
            with case(f"{role} {t}"):
                for priv in ("INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"):
                    assert not db.admin.execute("select has_table_privilege(%s, %s, %s)",
                                                (role, t, priv)).fetchone()[0], priv
                for priv in ("INSERT", "UPDATE", "REFERENCES"):
                    assert not db.admin.execute("select has_any_column_privilege(%s, %s, %s)",
                                                (role, t, priv)).fetchone()[0], priv


@pytest.mark.parametrize("role", ["alice", pytest.param("carol", marks=pytest.mark.long)])
def test_every_table_refuses_every_direct_write_and_lock(db, llm, role):
    alice = db.connect("alice")
    make_profile(alice, llm)            # rows exist: a refusal is not "nothing to do"
    generate(alice, "q")
    conn = db.connect(role)
    for t in tables(db):
        col = db.admin.execute("""select quote_ident(attname) from pg_attribute
                                   where attrelid = %s::regclass and attnum > 0 and not attisdropped
                                     and attidentity = '' and attgenerated = ''
                                   order by attnum limit 1""", (t,)).fetchone()[0]
        for stmt in (f"insert into {t} default values",
                     f"insert into {t} ({col}) select {col} from {t}",
                     f"update {t} set {col} = {col}",
                     f"delete from {t}",
                     f"truncate {t}",
                     f"select 1 from {t} for update",
                     f"select 1 from {t} for key share"):
            with case(f"{role}: {stmt}"), raises("42501"):
                conn.execute(stmt)
        conn.execute("begin")
        for mode in LOCK_MODES:
            conn.execute("savepoint s")
            with case(f"{role}: lock {t} in {mode} mode"), raises("42501"):
                conn.execute(f"lock table {t} in {mode} mode nowait")
            conn.execute("rollback to savepoint s")
        conn.execute("rollback")
    # and the API still writes for them
    assert generate(alice, "still works") == "fake answer"


def test_no_unique_key_answers_another_roles_ids(db, llm):
    """A direct INSERT is refused before any key is compared; through the API
    each role's names and request ids are its own."""
    alice, bob = db.connect("alice"), db.connect("bob")
    make_profile(alice, llm)
    (cid,) = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()
    alice.execute("select dbms_cloud_ai.generate('q', 'P', 'chat', params => %s)",
                  ('{"conversation_id": "%s", "request_id": "r-1"}' % cid,))
    for stmt, args in (("insert into dbms_cloud_ai._conversation (conversation_id) values (%s::uuid)",
                        (cid,)),
                       ("insert into dbms_cloud._credential (credential_name, secret) values ('CRED', '')",
                        ()),
                       ("insert into dbms_cloud_ai._profile (profile_name) values ('P')", ())):
        with case(stmt), raises("42501"):
            bob.execute(stmt, args)
    make_profile(bob, llm, credential="CRED")   # same credential and profile names as alice's
    (bcid,) = bob.execute("select dbms_cloud_ai.create_conversation()").fetchone()
    bob.execute("select dbms_cloud_ai.generate('q', 'P', 'chat', params => %s)",
                ('{"conversation_id": "%s", "request_id": "r-1"}' % bcid,))


def test_the_writer_refuses_a_caller_without_the_packages_token(db, llm):
    alice = db.connect("alice")
    make_profile(alice, llm)
    generate(alice, "warm the package up")       # the package is loaded in this backend
    before = db.admin.execute("select count(*) from dbms_cloud_ai._model_call").fetchone()[0]
    for token in (None, "", "0" * 32, "x" * 1000):
        with case(repr(token)[:20]), raises("42501"):
            alice.execute("select dbms_cloud_ai._write(%s, current_user, null, null)", (token,))
        with case(repr(token)[:20] + " as bob"), raises("42501"):
            alice.execute("select dbms_cloud_ai._write(%s, 'bob', 0, 0)", (token,))
    # inside a statement the package runs (its token is gone by then)
    with raises("42501"):
        alice.execute("select dbms_cloud_ai._write(t, current_user, null, null) "
                      "from (values ('a'), ('b')) v(t)")
    assert db.admin.execute("select count(*) from dbms_cloud_ai._model_call").fetchone()[0] == before


def test_the_caller_is_the_calling_role_whatever_the_setting_says(db, llm):
    alice, bob = db.connect("alice"), db.connect("bob")
    make_profile(alice, llm)
    make_profile(bob, llm, credential="BOBCRED")
    alice.execute("set dbms_cloud_ai.caller = 'bob'")
    assert alice.execute("select dbms_cloud_ai._caller()").fetchone()[0] == "alice"
    alice.execute("select dbms_cloud_ai.create_profile('MINE', '{\"provider\": \"openai\", "
                  "\"credential_name\": \"CRED\"}')")
    (cid,) = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()
    generate(alice, "q")
    for t in ("dbms_cloud_ai._profile", "dbms_cloud_ai._conversation", "dbms_cloud_ai._model_call"):
        owners = {o for (o,) in db.admin.execute(sql.SQL("select distinct owner from {} where owner <> 'bob'")
                                                 .format(sql.SQL(t)))}
        with case(t):
            assert owners == {"alice"}
    assert bob.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == 1
    assert db.admin.execute("select owner from dbms_cloud_ai._conversation where conversation_id = %s::uuid",
                            (cid,)).fetchone()[0] == "alice"


FORGED = ("insert into dbms_cloud_ai._model_call (call_id, owner, created, purpose, provider, "
          "prompt_version, input_tokens, output_tokens, latency_ms, status) values "
          "(gen_random_uuid(), 'alice', {created}, 'answer', 'openai', 'v', {tokens}, 0, 1, 'ok')")


@pytest.mark.parametrize("created, tokens", [
    ("now()", -5),                                   # would lift a budget
    ("now() + interval '1 day'", 10),                # would count against tomorrow's
    ("now() + interval '1 year'", 10**9),            # would exhaust PUBLIC for everyone
])
def test_impossible_accounting_rows_are_refused_even_for_the_superuser(db, created, tokens):
    with raises("23514"):
        db.admin.execute(FORGED.format(created=created, tokens=tokens))


def test_an_administrator_corrects_accounting(db, llm):
    alice = db.connect("alice")
    make_profile(alice, llm)
    generate(alice, "q")
    admin = db.connect("ai_admin")
    (cid,) = admin.execute("select call_id from dbms_cloud_ai._model_call").fetchone()
    assert admin.execute("update dbms_cloud_ai._model_call set input_tokens = 1, output_tokens = 2, "
                         "tokens_estimated = true where call_id = %s", (cid,)).rowcount == 1
    with raises("42501"):                        # only the counts
        admin.execute("update dbms_cloud_ai._model_call set owner = 'bob'")
    generate(alice, "again")                     # the correction stays
    assert alice.execute("select input_tokens, output_tokens, tokens_estimated from "
                         "dbms_cloud_ai.user_cloud_ai_calls where call_id = %s", (str(cid).upper(),)
                         ).fetchone() == (1, 2, True)


# A lock only a privileged role can take now (the DBA's maintenance, an
# administrator), and a call of a user that must read or write each table.
TABLES = {
    "dbms_cloud._credential": "chat",
    "dbms_cloud_ai._profile": "chat",
    "dbms_cloud_ai._conversation": "conversation",
    "dbms_cloud_ai._conversation_prompt": "conversation",
    "dbms_cloud_ai._model_call": "chat",
}
FAST = {"dbms_cloud_ai._profile", "dbms_cloud_ai._conversation_prompt"}


def call(conn, kind):
    if kind == "chat":
        return generate(conn, "hello")
    cid = conn.execute("select dbms_cloud_ai.create_conversation('{\"title\": \"t\"}')").fetchone()[0]
    return conn.execute("select dbms_cloud_ai.generate('hello', 'P', 'chat', params => %s)",
                        ('{"conversation_id": "%s"}' % cid,)).fetchone()[0]


@pytest.mark.parametrize("table", [t if t in FAST else pytest.param(t, marks=pytest.mark.long)
                                   for t in sorted(TABLES)])
def test_a_locked_table_fails_calls_fast(db, llm, table):
    alice = db.connect("alice")
    make_profile(alice, llm)
    dba = db.connect("postgres")
    dba.execute("begin")
    dba.execute(f"lock table {table} in access exclusive mode")
    started = time.monotonic()
    with raises("55P03") as e:
        call(alice, TABLES[table])
    elapsed = time.monotonic() - started
    assert elapsed < 8, f"waited {elapsed:.1f}s"
    assert "pg_blocking_pids" in (e["error"].diag.message_hint or "")
    dba.execute("rollback")
    assert call(alice, TABLES[table]) == "fake answer"


def test_the_runners_internal_functions_reach_only_the_callers_jobs(db, llm):
    """_claim_memory_jobs and _fail_memory_job are executable by users (the runner
    may be one): through the writer they reach the caller's own jobs only."""
    import memory_helpers as mh
    llm.responder = mh.remember_phrases()
    alice, bob = db.connect("alice"), db.connect("bob")
    mh.enable(db)
    mh.memory_profile(alice, llm)
    cid = mh.conversation(alice, "alice's")
    mh.say(alice, "please remember: alice sails", cid)
    mh.make_due(db)
    before = db.admin.execute("select status, run_token from dbms_cloud_ai._memory_job").fetchall()
    assert [s for s, _ in before] == ["pending"]
    token = "00000000-0000-0000-0000-0000000000bb"
    assert bob.execute("select dbms_cloud_ai._claim_memory_jobs(10, %s)", (token,)).fetchone()[0] == []
    bob.execute("select dbms_cloud_ai._fail_memory_job(%s, %s, '57014')", (cid, token))
    assert db.admin.execute("select status, run_token from dbms_cloud_ai._memory_job").fetchall() == before
    # alice, running her own jobs, claims hers
    assert alice.execute("select dbms_cloud_ai._claim_memory_jobs(10, %s)", (token,)).fetchone()[0] == [cid.lower()]
