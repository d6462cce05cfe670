"""generate_detached: every action, and nothing held while the model answers.

A generate() call waits inside its statement, whose snapshot holds back the
database's xmin horizon: VACUUM of any table cannot remove row versions that
died during the call.  The procedure commits before each provider request and
waits in a transaction without a snapshot or transaction id.  These tests watch
the waiting backend from another session (pg_stat_activity) and run VACUUM
while it waits, with generate() as the control.
"""

from __future__ import annotations

import json
import re
import threading
import time

import psycopg
import pytest
from fake_llm import Answer, Raw
from helpers import make_profile, raises
from memory_helpers import (
    conversation,
    enable,
    is_extraction,
    make_due,
    memories,
    memory_profile,
    remember_phrases,
    say,
)
from nl2sql_fixtures import people  # noqa: F401
from safety_helpers import validator_off_session

DETACHED = ("call dbms_cloud_ai.generate_detached(prompt => %s, profile_name => 'P', "
            "action => %s, params => %s, attributes => %s)")
FUNCTION = "select dbms_cloud_ai.generate(%s, 'P', %s, params => %s, attributes => %s)"
CHURN = 200


def detached(conn, prompt, action="chat", params=None, attributes=None):
    return conn.execute(DETACHED, (prompt, action, params, attributes)).fetchone()[0]


class Waiting:
    """Run ``sql`` in a thread on ``conn``; its outcome is kept (row or error)."""

    def __init__(self, conn, sql, args):
        self.conn, self.pid = conn, conn.info.backend_pid
        self.result = self.error = None
        self.thread = threading.Thread(target=self._run, args=(sql, args))

    def _run(self, sql, args):
        try:
            self.result = self.conn.execute(sql, args).fetchone()[0]
        except psycopg.Error as e:
            self.error = e

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.thread.join(60)

    def while_waiting(self, admin, llm, requests: int):
        """(backend_xid, backend_xmin) once the fake model holds request number ``requests``."""
        deadline = time.monotonic() + 20
        while len(llm.requests) < requests and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(llm.requests) >= requests, "the call never reached the model"
        return admin.execute("select backend_xid::text, backend_xmin::text from pg_stat_activity "
                             "where pid = %s", (self.pid,)).fetchone()


def churn_and_vacuum(admin) -> tuple[int, int]:
    """Updates of an unrelated table, then VACUUM: (removed, dead but not removable)."""
    admin.execute("create table if not exists public.churn (id int primary key, v int) "
                  "with (autovacuum_enabled = false)")
    admin.execute("insert into public.churn values (1, 0) on conflict do nothing")
    for _ in range(CHURN):
        admin.execute("update public.churn set v = v + 1 where id = 1")
    notices = []
    admin.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
    admin.execute("vacuum (verbose) public.churn")
    line = next(n for n in notices if "are dead but not yet removable" in n)
    removed, _, not_removable = (int(x) for x in re.search(
        r"tuples: (\d+) removed, (\d+) remain, (\d+) are dead", line).groups())
    return removed, not_removable


@pytest.mark.parametrize("form", ["function", "procedure"])
def test_vacuum_while_a_call_waits(db, alice, llm, form):
    """The control: generate() holds the horizon (every dead version is kept);
    generate_detached holds nothing, and VACUUM removes them while it waits."""
    make_profile(alice, llm)
    llm.script(Answer("late", delay=3.0))
    sql = FUNCTION if form == "function" else DETACHED
    with Waiting(alice, sql, ("What is 4 + 4 ?", "chat", None, None)) as w:
        xid, xmin = w.while_waiting(db.admin, llm, 1)
        removed, kept = churn_and_vacuum(db.admin)
        still_waiting = w.thread.is_alive()
    assert w.error is None and w.result == "late"
    assert still_waiting
    if form == "function":
        assert xmin is not None and kept >= CHURN - 1
    else:
        assert (xid, xmin) == (None, None)
        assert kept == 0


def test_a_transaction_that_wrote_first_holds_no_id_either(db, alice, llm):
    """The call's own writes before the request (the conversation's naming claim,
    a new conversation) are committed before it waits: no xid while waiting."""
    make_profile(alice, llm)
    cid = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    llm.script(Answer("first", delay=2.0), Answer("A title"))
    params = json.dumps({"conversation_id": cid})
    with Waiting(alice, DETACHED, ("What is 4 + 4 ?", "chat", params, None)) as w:
        xid, xmin = w.while_waiting(db.admin, llm, 1)
    assert w.error is None and w.result == "first"
    assert (xid, xmin) == (None, None)
    turns = alice.execute("select prompt, prompt_response from "
                          "dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                          "where conversation_id = %s", (cid,)).fetchall()
    assert turns == [("What is 4 + 4 ?", "first")]


@pytest.mark.parametrize("form", ["function", "procedure"])
def test_every_wait_of_a_narrate_call(db, people, llm, form):
    """narrate asks twice (the SQL, then the narration) and runs the query between.
    generate() waits with a snapshot both times, and the second time with a
    transaction id as well: checking the query created a temporary view (catalog
    rows) in a subtransaction.  generate_detached holds neither, both times."""
    make_profile(people, llm)
    llm.script(Answer("SELECT count(*) AS n FROM alice.people p", delay=1.0),
               Answer("There are five people.", delay=2.0))
    sql = FUNCTION if form == "function" else DETACHED
    with Waiting(people, sql, ("how many people", "narrate", None, None)) as w:
        first = w.while_waiting(db.admin, llm, 1)
        second = w.while_waiting(db.admin, llm, 2)
        event = db.admin.execute("select wait_event from pg_stat_activity where pid = %s",
                                 (w.pid,)).fetchone()[0]
    assert w.error is None and w.result == "There are five people."
    assert '{"n":5}' in llm.requests[1].json["messages"][-1]["content"]
    assert event is None   # waiting in Python's socket code: no wait event to show
    if form == "function":
        assert first[0] is None and first[1] is not None
        assert second[0] is not None and second[1] is not None
    else:
        assert first == (None, None) and second == (None, None)


@pytest.mark.parametrize("action,answers", [
    ("chat", ["8"]),
    ("showsql", ["SELECT count(*) FROM alice.people p"]),
    ("runsql", ["SELECT count(*) AS n FROM alice.people p"]),
    ("explainsql", ["SELECT count(*) FROM alice.people p", "It counts the people."]),
    ("translate", ["Bonjour"]),
])
def test_answers_as_generate_does(people, llm, action, answers):
    """Same model answers, same result and same requests as generate()."""
    make_profile(people, llm)
    attributes = json.dumps({"target_language": "fr"}) if action == "translate" else None
    prompt = "hello" if action == "translate" else "how many people"
    llm.script(*[Answer(a) for a in answers])
    expected = people.execute(FUNCTION, (prompt, action, None, attributes)).fetchone()[0]
    sent = [r.json["messages"] for r in llm.requests]
    llm.reset()
    llm.script(*[Answer(a) for a in answers])
    assert detached(people, prompt, action, attributes=attributes) == expected
    assert [r.json["messages"] for r in llm.requests] == sent


def test_inside_a_transaction_block_it_refuses_before_asking(db, alice, llm):
    make_profile(alice, llm)
    with psycopg.connect(host=db.info.host, port=db.info.port, user="alice",
                         dbname=db.info.dbname) as conn:   # not autocommit: BEGIN first
        with raises("2D000") as e:
            detached(conn, "hello")
    assert "generate" in (e["error"].diag.message_hint or "")
    assert llm.requests == []


def test_the_callers_settings_are_left_as_they_were(alice, llm):
    """The procedure pins search_path and lock_timeout in each of its transactions
    (it may not have a SET clause): the session's own values come back."""
    make_profile(alice, llm)
    alice.execute("set search_path = public, alice")
    alice.execute("set lock_timeout = '42s'")
    assert detached(alice, "hello") is not None
    assert alice.execute("show search_path").fetchone()[0] == "public, alice"
    assert alice.execute("show lock_timeout").fetchone()[0] == "42s"


def test_a_failed_request_is_reported_and_accounted(db, alice, llm):
    """An error after the commit ends the call with the provider's SQLSTATE; the
    failed request is still accounted (by the next call at the latest)."""
    make_profile(alice, llm)
    llm.script(Raw(status=400, body={"error": {"message": "bad request"}}), Answer("fine"))
    with raises("LL004"):
        detached(alice, "hello")
    assert detached(alice, "again") == "fine"
    calls = alice.execute("select status from dbms_cloud_ai.user_cloud_ai_calls "
                          "order by created").fetchall()
    assert [s for (s,) in calls] == ["error", "ok"]


def test_a_lock_on_a_shared_table_fails_fast(db, alice, llm):
    """lock_timeout holds in the procedure's transactions after its commits: a
    session holding a lock on the conversations makes it fail with 55P03, not hang."""
    make_profile(alice, llm)
    cid = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    alice.execute("set statement_timeout = '30s'")
    with psycopg.connect(host=db.info.host, port=db.info.port, user="postgres",
                         dbname=db.info.dbname) as locker:
        locker.execute("lock table dbms_cloud_ai._conversation_prompt in access exclusive mode")
        started = time.monotonic()
        with raises("55P03"):
            detached(alice, "hello", params=json.dumps({"conversation_id": cid}))
        assert time.monotonic() - started < 20


def test_a_memory_job_waits_with_nothing_held(db, alice, llm):
    """run_memory_jobs commits before each extraction request and waits as the job's
    owner with no snapshot; the facts are stored, the request accounted to the owner."""
    enable(db)
    memory_profile(alice, llm)
    quick = remember_phrases()

    def slow_extraction(wire, body):
        answer = quick(wire, body)
        if is_extraction(body):
            answer.delay = 2.0
        return answer
    llm.responder = slow_extraction
    cid = conversation(alice)
    say(alice, "remember: I drink green tea", cid)
    make_due(db)
    runner = db.connect("postgres")
    with Waiting(runner, "call dbms_cloud_ai.run_memory_jobs(10)", ()) as w:
        xid, xmin = w.while_waiting(db.admin, llm, 2)
        removed, kept = churn_and_vacuum(db.admin)
    assert w.error is None and w.result == 1
    assert (xid, xmin) == (None, None) and kept == 0
    assert memories(alice) == ["I drink green tea"]
    calls = alice.execute("select purpose, status from dbms_cloud_ai.user_cloud_ai_calls "
                          "where purpose = 'memory'").fetchall()
    assert calls == [("memory", "ok")]


def test_a_memory_job_that_fails_is_recorded_and_the_run_goes_on(db, alice, bob, llm):
    """A job whose owner the runner cannot become fails with the runner's SQLSTATE;
    the next job of the batch still runs (as the PL/pgSQL exception block did)."""
    enable(db)
    memory_profile(alice, llm)
    memory_profile(bob, llm)
    llm.responder = remember_phrases()
    say(alice, "remember: I am alice", conversation(alice))
    say(bob, "remember: I am bob", conversation(bob))
    make_due(db)
    db.admin.execute("drop role if exists runner_not_member")
    db.admin.execute("create role runner_not_member login; "
                     "grant dbms_cloud_ai_admin, bob to runner_not_member")
    runner = db.connect("runner_not_member")
    try:
        assert runner.execute("call dbms_cloud_ai.run_memory_jobs(10)").fetchone()[0] == 2
    finally:
        runner.close()
        db.admin.execute("drop role runner_not_member")
    states = dict(db.admin.execute("select owner, status || ' ' || coalesce(reason, '') "
                                   "from dbms_cloud_ai._memory_job").fetchall())
    assert states == {"alice": "failed runner: 42501", "bob": "done stored"}
    assert memories(bob) == ["I am bob"] and memories(alice) == []


def test_a_call_reached_through_the_sql_it_runs_waits_as_generate_does(db, people, llm):
    """The validator refuses generated SQL that reaches generate() (through a view
    too).  Should the package be re-entered anyway (here with the test-only switch
    that turns the validator off), the inner request comes from a function, an
    atomic context where nothing can be committed: it waits as generate() does
    and the outer call still answers."""
    make_profile(people, llm)
    people.execute("create view alice.asks as "
                   "select dbms_cloud_ai.generate('inner', 'P', 'chat') as said")
    llm.script(Answer("SELECT a.said FROM alice.asks a"))
    with raises("42501"):
        detached(people, "what does asks say", "runsql")
    llm.reset()
    conn = validator_off_session(db, "alice")
    llm.script(Answer("SELECT a.said FROM alice.asks a"), Answer("inner answer"))
    assert "inner answer" in detached(conn, "what does asks say", "runsql")
    assert len(llm.requests) == 2


@pytest.mark.parametrize("as_owner", ["alice", "bob"])
def test_another_role_cannot_run_or_fail_a_job_through_the_runner_procedure(
        db, alice, bob, llm, as_owner):
    """_run_memory_job_detached is executable by users (run_memory_jobs calls it as
    the runner).  bob, given alice's claimed job and its run token: as 'alice' he
    cannot become her (42501, recorded as his failure, which his row-level security
    keeps off her row); as himself he cannot see the job.  Nothing changes, nothing
    is asked."""
    enable(db)
    memory_profile(alice, llm)
    llm.responder = remember_phrases()
    cid = conversation(alice)
    say(alice, "remember: I am alice", cid)
    make_due(db)
    token = "00000000-0000-0000-0000-0000000000b0"
    assert db.admin.execute("select dbms_cloud_ai._claim_memory_jobs(10, %s)",
                            (token,)).fetchone()[0] == [cid.lower()]
    before = db.admin.execute("select status, reason, run_token::text, facts_stored "
                              "from dbms_cloud_ai._memory_job").fetchall()
    asked = len(llm.requests)
    bob.execute("call dbms_cloud_ai._run_memory_job_detached(%s, %s, %s)", (cid, token, as_owner))
    assert db.admin.execute("select status, reason, run_token::text, facts_stored "
                            "from dbms_cloud_ai._memory_job").fetchall() == before
    assert before[0][0] == "running"
    assert len(llm.requests) == asked and memories(alice) == []
