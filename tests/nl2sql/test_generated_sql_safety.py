"""What generated SQL can and cannot do once it runs (runsql, narrate).

reference/security.md section 3 and 8.C:

* C5 invoker privileges: the query runs as the caller -- permission denied on
  tables the caller cannot read, the extension's tables refused, row-level
  security applies;
* C6 limits: rows (dbms_cloud_ai.max_rows), bytes (max_result_bytes),
  time (statement_timeout, required and capped) -- refused before any model
  request when the session cannot bound the query;
* the caller's transaction is intact after a refused, failed or successful
  call;
* C4 defence without the validator: with sqlguard switched off in one
  backend (nl2sql/actions.py's VALIDATE, a test-only switch set as superuser through GD),
  the whole forbidden corpus of tests/unit/sqlguard_corpus.py and obfuscated
  variants run through runsql leave no persistent effect;
* advisory locks taken by a generated query are released, the caller's own
  are kept.

The model's reply is the SQL: the fake LLM answers every request with the
statement under test (a repair request gets the same statement again).
"""

from __future__ import annotations

import json
import random
import time

import psycopg
import pytest
from fake_llm import Answer
from helpers import generate, make_profile, raises, timed
from safety_helpers import (
    MarkedResponder,
    Notices,
    advisory_locks,
    answer_with,
    differences,
    session_state,
    set_validator,
    settings,
    shared_notes,
    snapshot,
    sqlguard_corpus,
    validator_off_session,
)

NO_ROWS = "No data found for the prompt."
# The typed error (LL005) instead of Oracle's "Sorry, unfortunately ..." text.
RAISE = json.dumps({"raise_on_invalid_sql": True})


def rows(answer: str) -> list[dict]:
    """runsql's Oracle-style JSON as Python objects ([] for 'No data found')."""
    return [] if answer == NO_ROWS else json.loads(answer)


def own_table(conn, name="t", n=3):
    conn.execute(f"create table {name} (id int primary key, v text)")
    conn.execute(f"insert into {name} select g, 'row ' || g from generate_series(1, {n}) g")


@pytest.fixture
def ready(alice, llm):
    """alice: a table in her schema (the prompt's scope), profile P, a finite
    statement_timeout."""
    own_table(alice, "alice.t")
    make_profile(alice, llm)
    alice.execute("set statement_timeout = '20s'")
    return alice


# --- C5: invoker privileges -------------------------------------------------------

SECRET = "TOP-SECRET-7f3a"


@pytest.fixture
def carol_secret(db):
    """A table alice may not read: carol's, in a schema alice may use.

    carol rather than bob: tests/nl2sql/test_nl2sql.py grants bob to alice on the
    shared cluster (roles are cluster-wide and the grant is not undone), which
    would let alice read bob's tables through the membership."""
    db.admin.execute("create table carol.secret (id int, secret text)")
    db.admin.execute("alter table carol.secret owner to carol")
    db.admin.execute("insert into carol.secret values (1, %s)", (SECRET,))
    db.admin.execute("grant usage on schema carol to alice")
    assert not db.admin.execute(
        "select pg_has_role('alice', 'carol', 'usage') "
        "or has_table_privilege('alice', 'carol.secret', 'select')").fetchone()[0], \
        "precondition: alice must not be able to read carol.secret"
    return "carol.secret"


def _no_leak(err):
    text = " ".join(filter(None, [str(err), err.diag.message_detail, err.diag.message_hint]))
    assert SECRET not in text


@pytest.mark.parametrize("attrs", [
    {"enforce_object_list": False},
    {"enforce_object_list": False,
     "object_list": [{"owner": "alice", "name": "t"}, {"owner": "carol", "name": "secret"}]},
], ids=["no-object-list", "object-list-names-it"])
def test_unreadable_table_reaches_postgres_and_is_denied(ready, llm, carol_secret, attrs):
    ready.execute("select dbms_cloud_ai.set_attributes('P', %s)", (json.dumps(attrs),))
    for sql in ("SELECT * FROM carol.secret",
                "SELECT t.id, (SELECT s.secret FROM carol.secret s LIMIT 1) AS x FROM alice.t t",
                "SELECT count(*) AS n FROM carol.secret"):
        answer_with(llm, sql)
        llm.requests.clear()
        with raises("42501") as h:
            generate(ready, "show me the secrets", action="runsql")
        _no_leak(h["error"])
        # PostgreSQL's own privilege check (its message, not the validator's
        # "SQL refused: ..."): permission denied is an answer, never repaired.
        assert "permission denied for table secret" in h["error"].diag.message_primary
        assert len(llm.requests) == 1
    # The unreadable table is never described to the model.
    assert "secret" not in llm.requests[0].body.decode().replace("show me the secrets", "")


def test_unreadable_table_in_enforced_object_list_is_refused(ready, llm, carol_secret):
    ready.execute("select dbms_cloud_ai.set_attributes('P', %s)", (json.dumps(
        {"object_list": [{"owner": "alice", "name": "t"},
                         {"owner": "carol", "name": "secret"}]}),))
    answer_with(llm, "SELECT * FROM carol.secret")
    with raises("42501") as h:
        generate(ready, "show me the secrets", action="runsql")
    _no_leak(h["error"])
    assert len(llm.requests) == 1


@pytest.mark.parametrize("relation", [
    "dbms_cloud._credential", "dbms_cloud_ai._profile", "dbms_cloud_ai._conversation",
    "dbms_cloud_ai._conversation_prompt", "dbms_cloud_ai._host_ace",
    "dbms_cloud.user_credentials", "dbms_cloud_ai.user_cloud_ai_profiles",
])
def test_extension_tables_are_refused(ready, llm, bob, relation):
    make_profile(bob, llm, key="sk-bob-secret-key-000111")
    ready.execute("select dbms_cloud_ai.set_attribute('P', 'enforce_object_list', 'false')")
    for sql in (f"SELECT * FROM {relation}",
                f"SELECT t.id FROM alice.t t WHERE EXISTS (SELECT 1 FROM {relation})"):
        answer_with(llm, sql)
        llm.requests.clear()
        with raises("42501") as h:
            generate(ready, "list the credentials", action="runsql")
        assert "sk-bob" not in str(h["error"])
        assert len(llm.requests) == 1


def test_extension_tables_with_the_validator_off_show_only_own_rows(db, llm, bob):
    """Defence in depth for the refusal above: with sqlguard off, row-level
    security on the extension's tables still hides bob's profile and
    credential (alice sees her own rows; her key only as ciphertext)."""
    make_profile(bob, llm, name="BOBS", credential="BOBCRED", key="sk-bob-secret-key-000111")
    s = validator_off_session(db, "alice")
    own_table(s, "alice.t")
    make_profile(s, llm)
    for sql in ("SELECT c.owner, c.credential_name FROM dbms_cloud._credential c",
                "SELECT p.owner, p.profile_name FROM dbms_cloud_ai._profile p"):
        answer_with(llm, sql)
        got = rows(generate(s, "whose", action="runsql"))
        assert [r["owner"] for r in got] == ["alice"], got
    answer_with(llm, "SELECT * FROM dbms_cloud._credential")
    answer = generate(s, "keys", action="runsql")
    assert "sk-test" not in answer and "sk-bob" not in answer and "BOBCRED" not in answer


@pytest.fixture
def notes(db):
    """shared.notes: forced row-level security on owner = current_user, rows of
    alice and bob, readable by both."""
    return shared_notes(db.admin, [("alice", "alice-1"), ("alice", "alice-2"), ("bob", "bob-1")])


@pytest.mark.parametrize("sql, expected", [
    ("SELECT n.owner, n.note FROM shared.notes n ORDER BY n.note", [("bob", "bob-1")]),
    ("SELECT count(*) AS n FROM shared.notes", [(1,)]),
    ("SELECT n.note FROM shared.notes n WHERE n.owner = 'alice'", []),
    ("SELECT n.note FROM shared.notes n WHERE n.owner <> current_user OR true ORDER BY 1",
     [("bob-1",)]),
])
def test_row_level_security_applies_to_generated_sql(bob, llm, notes, sql, expected):
    make_profile(bob, llm, object_list=[{"owner": "shared", "name": "notes"}])
    bob.execute("set statement_timeout = '20s'")
    answer_with(llm, sql)
    got = [tuple(r.values()) for r in rows(generate(bob, "my notes", action="runsql"))]
    assert got == expected


def test_row_level_security_holds_with_the_validator_off(db, llm, notes):
    """The same as bob in a SET ROLE session with sqlguard off: still only
    bob's rows (RLS is PostgreSQL's, not the validator's)."""
    s = validator_off_session(db, "bob")
    make_profile(s, llm, object_list=[{"owner": "shared", "name": "notes"}])
    answer_with(llm, "SELECT n.owner, n.note FROM shared.notes n")
    assert [r["owner"] for r in rows(generate(s, "notes", action="runsql"))] == ["bob"]


# --- C6: limits -------------------------------------------------------------------

MILLION = "SELECT g AS n FROM generate_series(1, 1000000) g"


def test_a_million_rows_are_cut_at_max_rows_with_a_warning(ready, llm):
    notices = Notices(ready)
    answer_with(llm, MILLION)
    got = rows(generate(ready, "all numbers", action="runsql"))
    assert len(got) == 1000                      # the default
    assert got[0] == {"n": 1}
    assert any("1000 rows" in w for w in notices.warnings()), notices.warnings()

    notices.clear()
    ready.execute("set dbms_cloud_ai.max_rows = 10")
    got = rows(generate(ready, "all numbers", action="runsql"))
    assert [r["n"] for r in got] == list(range(1, 11))
    assert notices.warnings()

    notices.clear()                              # exactly max_rows: nothing cut, no warning
    answer_with(llm, "SELECT g AS n FROM generate_series(1, 10) g")
    assert len(rows(generate(ready, "ten numbers", action="runsql"))) == 10
    assert notices.warnings() == []


def test_narrate_sends_at_most_max_rows_to_the_model(ready, llm):
    ready.execute("set dbms_cloud_ai.max_rows = 5")
    answers = iter([MILLION, "five numbers"])
    llm.responder = lambda wire, body: Answer(next(answers))
    assert generate(ready, "all numbers", action="narrate") == "five numbers"
    sent = llm.requests[-1].json["messages"][-1]["content"]
    assert '{"n":5}' in sent.replace(" ", "") and '{"n":6}' not in sent.replace(" ", "")


def test_max_result_bytes_cuts_big_results(ready, llm):
    notices = Notices(ready)
    ready.execute("set dbms_cloud_ai.max_result_bytes = 1000")
    answer_with(llm, "SELECT g AS n, repeat('x', 50) AS pad FROM generate_series(1, 1000) g")
    got = rows(generate(ready, "padded numbers", action="runsql"))
    assert 0 < len(got) < 1000
    # the limit counts the rows as compact JSON (row_to_json)
    assert sum(len(json.dumps(r, separators=(",", ":"))) for r in got) <= 1000
    assert any("1000 bytes" in w for w in notices.warnings()), notices.warnings()


def test_max_result_bytes_bounds_the_returned_text(ready, llm):
    # Nested values are returned as PostgreSQL wrote them (never re-indented by
    # depth), so the answer stays close to the limit however deep the data.
    ready.execute("set dbms_cloud_ai.max_result_bytes = 100000")
    answer_with(llm, "SELECT (repeat('[', 300) || repeat(']', 300))::jsonb AS j "
                     "FROM generate_series(1, 100) g")
    answer = generate(ready, "nested", action="runsql")
    # generous: allow twice the limit for the pretty-printing of flat rows
    assert len(answer.encode()) <= 2 * 100000, f"{len(answer.encode())} bytes returned"


def test_deeply_nested_json_in_a_result_is_not_an_internal_error(ready, llm):
    # Values are never parsed in Python: any nesting depth is returned, no
    # RecursionError (XX000).
    answer_with(llm, "SELECT (repeat('[', 1000) || repeat(']', 1000))::jsonb AS j")
    try:
        generate(ready, "nested", action="runsql")
    except psycopg.Error as e:
        assert e.sqlstate != "XX000", f"{e.sqlstate}: {e} ({e.diag.message_detail})"


def test_a_row_bigger_than_max_result_bytes_is_not_no_data_found(ready, llm):
    # The query found data: a first row alone over the limit is an error, never
    # "No data found for the prompt.".
    ready.execute("set dbms_cloud_ai.max_result_bytes = 1000")
    answer_with(llm, "SELECT repeat('x', 2000) AS big")
    with raises("54000"):
        generate(ready, "a big value", action="runsql")


def test_a_slow_query_is_cancelled_by_statement_timeout(ready, llm):
    ready.execute("set statement_timeout = '2s'")
    # generate_series in the select list streams (ProjectSet); in FROM it would
    # fill a tuplestore and write hundreds of MB of temporary files in 2 s.
    answer_with(llm, "SELECT count(*) AS n FROM (SELECT generate_series(1, 10000000000) AS g) s")
    with timed() as t, raises("57014") as e:
        generate(ready, "count to ten billion", action="runsql")
    assert t["elapsed"] < 4, t
    # PostgreSQL's message, not PL/Python's exception class in front of it
    assert "spiexceptions" not in e["error"].diag.message_primary
    assert len(llm.requests) == 1                # a cancellation is not repaired
    ready.execute("select 1")                   # the session is usable
    assert advisory_locks(ready) == []


@pytest.mark.parametrize("action", ["runsql", "narrate"])
def test_no_statement_timeout_refuses_before_any_model_request(ready, llm, action):
    ready.execute("set statement_timeout = 0")
    answer_with(llm, "SELECT 1 AS one")
    with raises("55000"):
        generate(ready, "one", action=action)
    assert llm.requests == []


@pytest.mark.parametrize("action", ["showsql", "explainsql"])
def test_actions_that_do_not_run_the_query_need_no_timeout(ready, llm, action):
    ready.execute("set statement_timeout = 0")
    answer_with(llm, "SELECT 1 AS one")
    assert "SELECT" in generate(ready, "one", action=action).upper()


@pytest.mark.parametrize("ceiling, timeout", [
    (None, "6min"),          # the default ceiling is 5min
    (None, "1h"),
    ("10s", "20s"),
    ("500ms", "1s"),
])
@pytest.mark.parametrize("action", ["runsql", "narrate"])
def test_statement_timeout_above_the_ceiling_is_refused(ready, llm, action, ceiling, timeout):
    if ceiling:
        ready.execute(f"set dbms_cloud_ai.max_statement_timeout = '{ceiling}'")
    ready.execute(f"set statement_timeout = '{timeout}'")
    answer_with(llm, "SELECT 1 AS one")
    with raises("55000"):
        generate(ready, "one", action=action)
    assert llm.requests == []


def test_statement_timeout_at_the_ceiling_is_accepted(ready, llm):
    ready.execute("set dbms_cloud_ai.max_statement_timeout = '10s'")
    ready.execute("set statement_timeout = '10s'")
    answer_with(llm, "SELECT 1 AS one")
    assert rows(generate(ready, "one", action="runsql")) == [{"one": 1}]


@pytest.mark.parametrize("setting, value", [
    ("max_rows", "0"), ("max_rows", "-1"), ("max_rows", "abc"), ("max_rows", "1000001"),
    ("max_rows", "10.5"), ("max_rows", "1e3"),
    ("max_result_bytes", "0"), ("max_result_bytes", "x"), ("max_result_bytes", "268435457"),
    ("max_result_bytes", "-5"),
    ("max_statement_timeout", "abc"), ("max_statement_timeout", "0"),
    ("max_statement_timeout", "-1s"), ("max_statement_timeout", "5 parsecs"),
])
def test_bad_limit_settings_are_invalid_parameters(ready, llm, setting, value):
    ready.execute(f"set dbms_cloud_ai.{setting} = '{value}'")
    answer_with(llm, "SELECT 1 AS one")
    with raises("22023"):
        generate(ready, "one", action="runsql")
    assert llm.requests == []


@pytest.mark.parametrize("value", [".", "1.2.3s"])
def test_malformed_max_statement_timeout_is_an_invalid_parameter(ready, llm, value):
    # "." and "1.2.3" look numeric to a first glance: still 22023, never XX000.
    ready.execute(f"set dbms_cloud_ai.max_statement_timeout = '{value}'")
    answer_with(llm, "SELECT 1 AS one")
    with raises("22023"):
        generate(ready, "one", action="runsql")


# --- the caller's transaction -----------------------------------------------------

def test_failed_calls_in_a_transaction_block_keep_earlier_work(ready, llm, db):
    c = ready
    c.execute("begin")
    c.execute("insert into alice.t values (100, 'before the calls')")
    # refused by the validator
    c.execute("savepoint s1")
    answer_with(llm, "DELETE FROM alice.t")
    with raises("42501"):
        generate(c, "delete everything", action="runsql")
    c.execute("rollback to savepoint s1")
    # fails at run time, fails again after the repair round
    c.execute("savepoint s2")
    answer_with(llm, "SELECT 1 / 0 AS x FROM alice.t")
    with raises("LL005"):
        generate(c, "divide", action="runsql", attributes=RAISE)
    c.execute("rollback to savepoint s2")
    # the generated query sees the transaction's own uncommitted row
    answer_with(llm, "SELECT count(*) AS n FROM alice.t")
    assert rows(generate(c, "how many", action="runsql")) == [{"n": 4}]
    assert c.execute("select v from alice.t where id = 100").fetchone() == ("before the calls",)
    c.execute("commit")
    assert db.admin.execute("select v from alice.t where id = 100").fetchone() \
        == ("before the calls",)
    assert db.admin.execute("select count(*) from alice.t").fetchone() == (4,)


def test_a_successful_call_leaves_the_session_as_it_was(ready, llm, db):
    c = ready
    path = c.execute("show search_path").fetchone()[0]
    before = settings(c)
    answer_with(llm, "SELECT t.id FROM alice.t t ORDER BY t.id")
    c.execute("begin")
    answer, ro, sp = c.execute(
        "select dbms_cloud_ai.generate('ids', 'P', 'runsql'), "
        "current_setting('transaction_read_only'), current_setting('search_path')").fetchone()
    assert [r["id"] for r in rows(answer)] == [1, 2, 3]
    assert (ro, sp) == ("off", path)
    assert c.execute("show transaction_read_only").fetchone() == ("off",)
    c.execute("insert into alice.t values (200, 'after the call')")
    c.execute("commit")
    assert db.admin.execute("select count(*) from alice.t where id = 200").fetchone() == (1,)
    assert c.execute("show search_path").fetchone() == (path,)
    assert settings(c) == before


def test_a_read_only_transaction_stays_read_only(ready, llm):
    """The resolution check (issue 14, class 4) analyses the query as a temporary
    view, which a read-only transaction cannot create: refused (25006), never run
    unchecked, and the transaction stays read-only and usable."""
    c = ready
    answer_with(llm, "SELECT count(*) AS n FROM alice.t")
    c.execute("begin read only")
    c.execute("savepoint s")
    with raises("25006"):
        generate(c, "how many", action="runsql")
    c.execute("rollback to savepoint s")
    assert c.execute("show transaction_read_only").fetchone() == ("on",)
    assert c.execute("select count(*) from alice.t").fetchone() == (3,)
    c.execute("rollback")


# --- C4: the execution layer alone, validator off -------------------------------------

CORPUS_COLUMNS = {
    "sales": "id int primary key, amount numeric, status text, customer_id int, store_id int, "
             "product_id int, quantity int, discount numeric, sold_at timestamptz, "
             "channel text, meta jsonb",
    "customers": "id int primary key, name text, region text, country text, segment text, "
                 "email text, city text, tags text[], created_at timestamptz",
    "products": "id int primary key, name text, category text, price numeric, cost numeric, "
                "attrs jsonb, launched_on date",
    "stores": "id int primary key, city text, region text, country text",
    "employees": "id int primary key, name text, title text, salary numeric, store_id int, "
                 "manager_id int",
    "returns": "id int primary key, sale_id int, reason text, refund numeric, body text",
}


def _corpus_schema(db, s):
    """The tables, sequence, functions and large object the corpus names, owned
    by alice where she could own them (the worst case: an owner may do
    anything to a table, only read-only mode and the rollback stop it)."""
    a = db.admin
    for t, cols in CORPUS_COLUMNS.items():
        s.execute(f"create table alice.{t} ({cols})")
        s.execute(f"insert into alice.{t} (id) select g from generate_series(1, 3) g")
    s.execute("update alice.sales set amount = id * 10, status = 'paid', customer_id = id")
    s.execute("update alice.customers set name = 'c' || id, region = 'EMEA'")
    a.execute(f"create table public.sales ({CORPUS_COLUMNS['sales']})")
    a.execute("insert into public.sales (id, amount) values (1, 5), (2, 6)")
    a.execute("grant all on public.sales to alice")
    a.execute("create schema shop")
    a.execute("create table shop.orders (id int primary key, amount numeric)")
    a.execute("create table shop.order_items (id int primary key, order_id int)")
    a.execute("insert into shop.orders values (1, 1), (2, 2)")
    a.execute("insert into shop.order_items values (1, 1)")
    a.execute("grant usage on schema shop to alice")
    a.execute("grant all on all tables in schema shop to alice")
    # shop.cleanup() writes to a regular table: read-only mode must stop it.
    a.execute("create function shop.cleanup() returns int language plpgsql as "
              "$$ begin delete from shop.orders; return 1; end $$")
    s.execute("create sequence alice.s")
    s.execute("select nextval('alice.s')")
    # myfunc() writes to a temporary table, which read-only mode allows: only
    # the rolled-back subtransaction undoes it.
    s.execute("create function alice.myfunc(int) returns int language plpgsql as "
              "$$ begin insert into pg_temp.probe values ($1); return $1; end $$")
    a.execute("create function public.myfunc(int) returns int language plpgsql as "
              "$$ begin insert into pg_temp.probe values ($1); return $1; end $$")
    s.execute("select lo_from_bytea(16400, 'large object of alice')")


def _session_setup(db, llm, first):
    s = validator_off_session(db, "alice", timeout="1s")
    if first:
        make_profile(s, llm)
    s.execute("create temp table probe (v int)")
    s.execute("insert into probe values (1), (2)")
    return s


def _corpus():
    """(category, base index, transform, text): every forbidden base statement,
    then each base through two of the corpus's obfuscation transforms, chosen
    by rotating through all of them.  Statements that sleep run only once, as
    written: each one costs the whole statement_timeout."""
    base = sqlguard_corpus.forbidden_base()
    names = list(sqlguard_corpus.TRANSFORMS)
    out = []
    i = 0
    for cat, stmts in base.items():
        for q in stmts:
            out.append((cat, i, "base", q))
            i += 1
    i = 0
    for cat, stmts in base.items():
        for q in stmts:
            if "sleep" not in q.lower():
                for k in (i % len(names), (i * 7 + 3) % len(names)):
                    name = names[k]
                    try:
                        text = sqlguard_corpus.TRANSFORMS[name](q, random.Random(i))
                    except Exception:  # noqa: BLE001 - a transform that cannot apply
                        continue
                    out.append((cat, i, name, text))
            i += 1
    return out


MARKER = "c4-probe-question"


def _state(conn) -> dict:
    """The session's state (safety_helpers.session_state).  app.user_id is
    compared as "set or not": a custom setting first created inside the
    rolled-back query stays defined with an empty value afterwards (PostgreSQL
    keeps the placeholder), which changes nothing an RLS policy could see."""
    state = session_state(conn)
    state["app_user_id"] = state["app_user_id"] or None
    return state


def test_forbidden_corpus_without_validator_leaves_no_persistent_effect(db, llm):
    listener = db.connect("postgres")
    for ch in ("c", "chan", "dbms_cloud_ai", '"C"'):
        listener.execute(f"listen {ch}")
    s = _session_setup(db, llm, first=True)
    _corpus_schema(db, s)
    responder = MarkedResponder(MARKER)
    llm.responder = responder

    # The switch works: a statement the validator refuses reaches PostgreSQL.
    responder.sql = "SELECT * FROM alice.sales FOR UPDATE"
    with raises("25006"):
        generate(s, MARKER, action="runsql")

    before = snapshot(db.admin)
    state0 = first_state = _state(s)
    probe0 = s.execute("select array_agg(v order by v) from probe").fetchone()
    pid = s.info.backend_pid
    assert state0["role"] == "alice" and state0["advisory_locks"] == 0

    corpus = _corpus()
    outcomes: dict[str, int] = {}
    changed, reconnects, ran = [], 0, 0
    start = time.monotonic()
    for cat, _i, transform, text in corpus:
        responder.sql = text
        try:
            generate(s, MARKER, action="runsql")
            outcome = "ok"
        except psycopg.Error as e:
            outcome = e.sqlstate or type(e).__name__
        ran += 1
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        if s.closed or s.broken:  # the statement ended the session: note it, go on
            reconnects += 1
            changed.append((cat, transform, text, "ended the session"))
            s = _session_setup(db, llm, first=False)
            pid = s.info.backend_pid
            continue
        state = _state(s)
        if state != state0:
            changed.append((cat, transform, text,
                            {k: (state0[k], v) for k, v in state.items() if state0[k] != v}))
            s.execute("select pg_advisory_unlock_all()")  # keep later attributions exact
            state0 = _state(s)
    elapsed = time.monotonic() - start
    print(f"\nC4: {ran} statements ({len(corpus)} in the corpus) in {elapsed:.1f}s "
          f"({1000 * elapsed / max(ran, 1):.1f} ms each), {reconnects} reconnects; "
          f"outcomes: {dict(sorted(outcomes.items(), key=lambda kv: -kv[1]))}")

    after = snapshot(db.admin)
    assert differences(before, after) == []
    assert changed == [], changed[:10]
    assert s.execute("select array_agg(v order by v) from probe").fetchone() == probe0
    assert advisory_locks(db.admin, pid) == []
    assert _state(s) == first_state
    # no NOTIFY reached a listener; the listener itself works
    assert [(n.channel, n.payload) for n in listener.notifies(timeout=1.0)] == []
    db.admin.execute("notify c, 'control'")
    assert [(n.channel, n.payload) for n in listener.notifies(timeout=5.0, stop_after=1)] \
        == [("c", "control")]

    # The detectors see real effects (a control for the comparison above).
    db.admin.execute("insert into alice.sales (id) values (99)")
    db.admin.execute("create table alice.zz ()")
    db.admin.execute("select nextval('alice.s'), lo_create(0)")
    found = {d.split(":")[0] for d in differences(before, snapshot(db.admin))}
    assert {"table alice.sales", "pg_class", "sequences", "large objects"} <= found, found

    # The validator back on (per backend anyway): the same kind of statement is
    # refused before it reaches PostgreSQL.
    s.execute("reset role")
    set_validator(s, True)
    s.execute("set role alice")
    responder.sql = "SELECT * FROM alice.sales FOR UPDATE"
    with raises("42501"):
        generate(s, MARKER, action="runsql")


def test_validator_off_path_reaches_postgres(db, llm):
    """With sqlguard off a DELETE is not refused with 42501: it reaches
    PostgreSQL.  As written it cannot run (the runner wraps the query as a
    subquery: a syntax error, repaired once, LL005); inside a function it
    runs, read-only, and fails with 25006."""
    s = validator_off_session(db, "alice")
    own_table(s, "alice.t")
    s.execute("create function alice.wipe() returns int language plpgsql as "
              "$$ begin delete from alice.t; return 0; end $$")
    make_profile(s, llm, repair_rounds=1)

    answer_with(llm, "DELETE FROM alice.t")
    with raises("LL005") as h:
        generate(s, "delete", action="runsql", attributes=RAISE)
    assert "42601" in h["error"].diag.message_detail   # PostgreSQL's parser said no
    assert len(llm.requests) == 2

    llm.requests.clear()
    answer_with(llm, "SELECT alice.wipe() AS n")
    with raises("25006"):
        generate(s, "delete", action="runsql")
    assert len(llm.requests) == 1

    for sql in ("SELECT nextval('alice.s') AS n", "SELECT * FROM alice.t FOR UPDATE"):
        if "nextval" in sql:
            s.execute("create sequence alice.s")
        answer_with(llm, sql)
        with raises("25006"):
            generate(s, "x", action="runsql")
    assert db.admin.execute("select count(*) from alice.t").fetchone() == (3,)
    assert db.admin.execute("select last_value, is_called from alice.s").fetchone() == (1, False)

    # The same connection with the validator on: refused at once.
    s.execute("reset role")
    set_validator(s, True)
    s.execute("set role alice")
    llm.requests.clear()
    answer_with(llm, "DELETE FROM alice.t")
    with raises("42501"):
        generate(s, "delete", action="runsql")
    assert len(llm.requests) == 1


@pytest.mark.parametrize("target, sql, leaked", [
    ("another user's rows",
     "SELECT pg_catalog.set_config('role', 'carol', false) AS r, "
     "query_to_xml('select * from carol.secret', true, false, '')::text AS x", SECRET),
    ("a superuser-only function",
     "SELECT pg_catalog.set_config('role', 'postgres', false) AS r, "
     "query_to_xml('select pg_read_file(''PG_VERSION'') as v', true, false, '')::text AS x",
     "<v>"),
])
def test_generated_sql_cannot_change_role(db, llm, carol_secret, target, sql, leaked):
    # With the validator off, in a session whose session user may become other
    # roles (a superuser that did SET ROLE alice, as a pooler or an
    # authenticator role does), set_config('role', ..., false) in the generated
    # query does switch role for the rest of the query (the functions are
    # SECURITY INVOKER, so PostgreSQL does not forbid it).  The runner notices
    # the change and returns an error instead of the rows; side effects the
    # other role could cause in that query are the residual risk the validator
    # covers (it refuses set_config).
    s = validator_off_session(db, "alice")
    own_table(s, "alice.t")
    make_profile(s, llm)
    answer_with(llm, sql)
    try:
        answer = generate(s, "whatever", action="runsql")
    except psycopg.Error:
        answer = ""
    assert s.execute("select current_user").fetchone() == ("alice",)
    assert leaked not in answer, f"{target} read through a role change: {answer[:300]}"


# --- advisory locks -------------------------------------------------------------------

@pytest.fixture
def locker(db, llm):
    """alice in a SET ROLE session with the validator off."""
    s = validator_off_session(db, "alice")
    own_table(s, "alice.t")
    make_profile(s, llm)
    return s


def _keys(locks):
    return sorted((c, o) for c, o, _, _ in locks)


def test_session_advisory_locks_of_the_query_are_released(locker, llm):
    s = locker
    s.execute("select pg_advisory_lock(5)")
    mine = advisory_locks(s)
    for sql in ("SELECT pg_advisory_lock(77) AS l",
                "SELECT pg_advisory_lock_shared(78) AS l",
                "SELECT pg_try_advisory_lock(79) AS l",
                "SELECT pg_advisory_lock(1, 2) AS l",
                "SELECT pg_advisory_lock(-5) AS l",
                "SELECT pg_advisory_lock(9223372036854775807) AS l",
                "SELECT pg_advisory_lock(80) AS l FROM generate_series(1, 3)",
                "SELECT pg_advisory_lock(81) AS l, 1 / 0 AS boom"):
        answer_with(llm, sql)
        try:
            generate(s, "lock", action="runsql")
        except psycopg.Error as e:
            assert e.sqlstate == "LL005", (sql, e)
        assert advisory_locks(s) == mine, sql
    # alice's own lock is still hers, held once
    assert s.execute("select pg_advisory_unlock(5), pg_advisory_unlock(5)").fetchone() \
        == (True, False)


def test_transaction_advisory_locks_of_the_query_are_released(locker, llm):
    s = locker
    s.execute("begin")
    s.execute("select pg_advisory_xact_lock(6)")
    mine = advisory_locks(s)
    answer_with(llm, "SELECT pg_advisory_xact_lock(82) AS l")
    generate(s, "lock", action="runsql")
    assert advisory_locks(s) == mine
    s.execute("commit")
    assert advisory_locks(s) == []


def test_releasing_the_querys_locks_sends_no_warning(locker, llm):
    # Releasing unlocks until pg_advisory_unlock() says false; that last call's
    # WARNING must not reach the client.
    notices = Notices(locker)
    answer_with(llm, "SELECT pg_advisory_lock(77) AS l")
    generate(locker, "lock", action="runsql")
    assert notices.warnings() == []


def test_a_lock_the_caller_holds_is_not_taken_again_by_the_query(ready, llm):
    # Session advisory locks are re-entrant and pg_locks does not show hold
    # counts, so below the validator an extra hold on a key the caller already
    # holds cannot be told apart (docs/security.md, Security notes).  The validator is the
    # layer that stops it: every advisory-lock function is refused.
    s = ready
    s.execute("select pg_advisory_lock(5)")
    answer_with(llm, "SELECT pg_advisory_lock(5) AS l")
    with raises("42501"):
        generate(s, "lock", action="runsql")
    assert s.execute("select pg_advisory_unlock(5), pg_advisory_unlock(5)").fetchone() \
        == (True, False)


def test_a_session_lock_on_a_key_the_transaction_holds_is_released(ready, llm):
    # The same residual risk as above (pg_locks shows one row whether the hold
    # is the transaction's or the session's); the validator refuses the call.
    s = ready
    s.execute("begin")
    s.execute("select pg_advisory_xact_lock(6)")
    answer_with(llm, "SELECT pg_advisory_lock(6) AS l")
    s.execute("savepoint a")
    with raises("42501"):
        generate(s, "lock", action="runsql")
    s.execute("rollback to savepoint a")
    s.execute("commit")
    assert advisory_locks(s) == []


@pytest.mark.parametrize("sql", ["SELECT pg_advisory_unlock_all() AS u",
                                 "SELECT pg_advisory_unlock(5) AS u"])
def test_the_query_cannot_release_the_callers_locks(locker, llm, sql):
    # Session advisory locks are outside the transaction: the rollback cannot give
    # back a lock the query released, so the runner takes it again.
    s = locker
    s.execute("select pg_advisory_lock(5)")
    mine = advisory_locks(s)
    answer_with(llm, sql)
    generate(s, "unlock", action="runsql")
    assert advisory_locks(s) == mine
