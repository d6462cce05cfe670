"""Accounting of model calls, end to end with the fake LLM: what is recorded for
every kind of call (answers, repairs, explanations, narrations, titles), failures
that outlive their statement's rollback, provider-reported and estimated usage in
each wire format, the link to conversation prompts, isolation between roles,
read-only transactions, daily token budgets, prices and the usage reports."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from decimal import Decimal

import pytest
from fake_llm import Answer, Hang, Raw
from helpers import case, generate, make_profile, raises
from nl2sql_fixtures import PEOPLE_GYMNAST, people  # noqa: F401 - fixture
from psycopg.rows import dict_row

GUID = re.compile(r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\Z")
PEOPLE_COUNT = 'SELECT count(*) AS "People Count" FROM alice.people p'
BOOM = {"error": {"message": "boom"}}
CALL_COLS = ["call_id", "created", "profile_name", "action", "purpose", "provider", "model",
             "prompt_version", "input_tokens", "output_tokens", "tokens_estimated", "latency_ms",
             "attempts", "status", "error_sqlstate", "http_status", "conversation_id",
             "conversation_prompt_id"]


# --- helpers ---------------------------------------------------------------------------------

@pytest.fixture
def admin(db):
    return db.connect("ai_admin")


def rows(conn, sql, args=()):
    return conn.cursor(row_factory=dict_row).execute(sql, args).fetchall()


def calls(conn) -> list[dict]:
    """The caller's calls as user_cloud_ai_calls shows them (stored and this session's pending)."""
    return rows(conn, "select * from dbms_cloud_ai.user_cloud_ai_calls order by created")


def stored(admin, owner="alice") -> list[dict]:
    """Calls in committed rows, as an administrator sees them from another session."""
    return rows(admin, "select * from dbms_cloud_ai.dba_cloud_ai_calls where owner = %s "
                       "order by created", (owner,))


def create_conversation(conn, **attrs) -> str:
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps(attrs),)).fetchone()[0]


def chat(conn, prompt, cid=None, profile="P"):
    kw = {"params": json.dumps({"conversation_id": cid})} if cid else {}
    return generate(conn, prompt, profile, "chat", **kw)


def prompts(conn) -> list[dict]:
    return rows(conn, "select * from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                      "order by created")


def estimate(text: str) -> int:
    """The providers' estimate when usage is missing: about four characters a token."""
    return max(1, math.ceil(len(text) / 4))


def set_budget(admin, who, tokens):
    admin.execute("select dbms_cloud_ai.set_token_budget(%s, %s)", (who, tokens))


# --- what is recorded, for every kind of call --------------------------------------------------

def test_chat_call_is_recorded_and_stored_at_once(alice, admin, llm):
    make_profile(alice, llm, model="gpt-test")
    llm.script(Answer("8", input_tokens=123, output_tokens=45, delay=0.05))
    before = dt.datetime.now(dt.UTC)
    assert generate(alice, "What is 4 + 4 ?") == "8"
    [c] = calls(alice)
    assert list(c) == CALL_COLS
    assert GUID.match(c["call_id"])
    assert before - dt.timedelta(seconds=1) <= c["created"] <= dt.datetime.now(dt.UTC)
    assert (c["profile_name"], c["action"], c["purpose"], c["provider"], c["model"]) \
        == ("P", "CHAT", "answer", "openai", "gpt-test")
    assert re.fullmatch(r"chat@[0-9a-f]{8}", c["prompt_version"])
    assert (c["input_tokens"], c["output_tokens"], c["tokens_estimated"]) == (123, 45, False)
    assert 50 <= c["latency_ms"] < 5000
    assert (c["attempts"], c["status"], c["error_sqlstate"], c["http_status"]) == (1, "ok", None, None)
    assert c["conversation_id"] is None and c["conversation_prompt_id"] is None
    [s] = stored(admin)                                          # committed already
    assert s.pop("owner") == "alice" and s == c


def test_model_is_the_one_the_provider_reports(alice, llm):
    make_profile(alice, llm, model="gpt-4o-mini")
    llm.script(Raw(200, {"id": "x", "object": "chat.completion", "model": "gpt-4o-mini-2024-07-18",
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": "hi"}}],
                         "usage": {"prompt_tokens": 9, "completion_tokens": 1}}))
    assert generate(alice, "hello") == "hi"
    assert [c["model"] for c in calls(alice)] == ["gpt-4o-mini-2024-07-18"]


def test_every_row_of_a_query_is_a_call(alice, llm):
    make_profile(alice, llm)
    alice.execute("select dbms_cloud_ai.generate('q' || i, 'P', 'chat') from generate_series(1, 3) i")
    assert [c["purpose"] for c in calls(alice)] == ["answer"] * 3
    assert len({c["call_id"] for c in calls(alice)}) == 3


def test_showprompt_makes_no_call(people, llm):
    make_profile(people, llm)
    generate(people, "how many people", action="showprompt")
    assert llm.requests == [] and calls(people) == []


def test_nl2sql_answer_repair_explanation_and_narration(people, admin, llm):
    make_profile(people, llm)
    bad = "SELECT p.nickname FROM alice.people p"
    llm.script(Answer(PEOPLE_COUNT, 100, 20),                                   # runsql
               Answer(bad, 101, 21), Answer(PEOPLE_COUNT, 102, 22),            # runsql, repaired
               Answer(PEOPLE_COUNT, 103, 23), Answer("It counts people.", 104, 24),  # explainsql
               Answer(PEOPLE_COUNT, 105, 25), Answer("There are 5 people.", 106, 26))  # narrate
    generate(people, "how many people", action="runsql")
    generate(people, "how many people", action="runsql")
    generate(people, "how many people", action="explainsql")
    assert generate(people, "how many people", action="narrate") == "There are 5 people."
    got = [(c["action"], c["purpose"], c["prompt_version"].split("@")[0], c["input_tokens"],
            c["output_tokens"], c["status"]) for c in calls(people)]
    assert got == [("RUNSQL", "answer", "nl2sql", 100, 20, "ok"),
                   ("RUNSQL", "answer", "nl2sql", 101, 21, "ok"),
                   ("RUNSQL", "repair", "nl2sql-repair", 102, 22, "ok"),
                   ("EXPLAINSQL", "answer", "nl2sql", 103, 23, "ok"),
                   ("EXPLAINSQL", "explanation", "explainsql", 104, 24, "ok"),
                   ("NARRATE", "answer", "nl2sql", 105, 25, "ok"),
                   ("NARRATE", "narration", "narrate", 106, 26, "ok")]
    assert all(c["model"] == "gpt-4o-mini" and c["latency_ms"] >= 0 for c in calls(people))
    assert len(stored(admin)) == 7


def test_failed_repair_records_both_calls(people, admin, llm):
    """SQL still wrong after the repair round: both requests are accounted as failed
    (error LL005), whether the call answers Oracle's text or raises LL005."""
    make_profile(people, llm, repair_rounds=1)
    llm.script(Answer("SELECT p.nickname FROM alice.people p", 10, 5),
               Answer("SELECT p.shoe_size FROM alice.people p", 11, 6))
    assert generate(people, "how many people", action="runsql").startswith(
        "Sorry, unfortunately a valid SELECT statement could not be generated")
    failed = [("answer", "error", "LL005", 10), ("repair", "error", "LL005", 11)]
    assert [(c["purpose"], c["status"], c["error_sqlstate"], c["input_tokens"])
            for c in calls(people)] == failed
    assert [(c["purpose"], c["status"]) for c in stored(admin)] \
        == [("answer", "error"), ("repair", "error")]         # the call succeeded: written
    # The typed error: rolled back with the statement, the records wait in the session.
    people.execute("select dbms_cloud_ai.set_attribute('P', 'raise_on_invalid_sql', 'true')")
    llm.script(Answer("SELECT p.nickname FROM alice.people p", 20, 5),
               Answer("SELECT p.shoe_size FROM alice.people p", 21, 6))
    with raises("LL005"):
        generate(people, "how many people", action="runsql")
    assert [(c["purpose"], c["status"], c["error_sqlstate"], c["input_tokens"])
            for c in calls(people)][2:] == [("answer", "error", "LL005", 20),
                                             ("repair", "error", "LL005", 21)]
    assert len(stored(admin)) == 2                   # rolled back with the statement, pending
    llm.script(Answer("done", 1, 1))
    chat(people, "next")
    assert [(c["purpose"], c["status"]) for c in stored(admin)] \
        == [("answer", "error"), ("repair", "error")] * 2 + [("answer", "ok")]


def test_conversation_title_call_and_prompt_totals(alice, llm):
    make_profile(alice, llm)
    cid = create_conversation(alice)                        # untitled: first turn names it
    llm.script(Answer("You have 5 customers.", 30, 8, delay=0.02),
               Answer('{"title": "Customers", "description": "Counting."}', 50, 12))
    chat(alice, "How many customers?", cid)
    answer, title = calls(alice)
    assert (answer["purpose"], title["purpose"]) == ("answer", "title")
    assert title["prompt_version"].startswith("title@") and title["action"] == "CHAT"
    [p] = prompts(alice)
    for c in (answer, title):
        assert c["conversation_id"] == cid.upper()
        assert c["conversation_prompt_id"] == p["conversation_prompt_id"]
    assert (p["provider"], p["model"], p["prompt_version"]) \
        == ("openai", "gpt-4o-mini", answer["prompt_version"])
    assert (p["input_tokens"], p["output_tokens"], p["tokens_estimated"]) == (80, 20, False)
    assert p["latency_ms"] == answer["latency_ms"] + title["latency_ms"]
    assert p["latency_ms"] >= 20


def test_failed_title_call_is_recorded_and_the_turn_kept(alice, llm):
    make_profile(alice, llm)
    alice.execute("set dbms_cloud_ai.http_max_attempts = 1")
    cid = create_conversation(alice)
    llm.script(Answer("the answer", 7, 3), Raw(500, BOOM))
    assert chat(alice, "q", cid) == "the answer"
    answer, title = calls(alice)
    assert (title["purpose"], title["status"], title["error_sqlstate"], title["http_status"]) \
        == ("title", "error", "LL000", 500)
    [p] = prompts(alice)
    assert title["conversation_prompt_id"] == answer["conversation_prompt_id"] \
        == p["conversation_prompt_id"]
    assert (p["model"], p["input_tokens"], p["output_tokens"]) == ("gpt-4o-mini", 7, 3)


def test_nl2sql_turn_in_a_conversation_carries_all_its_calls(people, llm):
    make_profile(people, llm)
    cid = create_conversation(people, title="People")
    llm.script(Answer("SELECT p.nickname FROM alice.people p", 40, 4),
               Answer(PEOPLE_COUNT, 60, 6))
    generate(people, "how many people", action="runsql",
             params=json.dumps({"conversation_id": cid}))
    [p] = prompts(people)
    assert (p["prompt_action"], p["input_tokens"], p["output_tokens"]) == ("RUNSQL", 100, 10)
    assert p["prompt_version"].startswith("nl2sql@")           # the answer's template
    assert {c["conversation_prompt_id"] for c in calls(people)} == {p["conversation_prompt_id"]}


def test_each_turn_links_to_its_own_calls(alice, llm):
    make_profile(alice, llm)
    cid = create_conversation(alice, title="t")
    llm.script(Answer("a1", 1, 2), Answer("a2", 3, 4))
    chat(alice, "q1", cid)
    chat(alice, "q2", cid)
    by_prompt = {c["conversation_prompt_id"]: c for c in calls(alice)}
    for p in prompts(alice):
        c = by_prompt[p["conversation_prompt_id"]]
        assert (c["input_tokens"], c["output_tokens"]) == (p["input_tokens"], p["output_tokens"])
        assert c["conversation_id"] == cid.upper()


# --- failures outlive the statement's rollback -------------------------------------------------

def test_http_500_after_retries(alice, admin, db, llm):
    make_profile(alice, llm)
    llm.script(Raw(500, BOOM), Raw(500, BOOM), Raw(500, BOOM))
    with raises("LL000"):
        generate(alice, "q")
    assert len(llm.requests) == 3
    [c] = calls(alice)                                           # at once, in this session
    assert (c["purpose"], c["status"], c["error_sqlstate"], c["http_status"], c["attempts"]) \
        == ("answer", "error", "LL000", 500, 3)
    assert (c["input_tokens"], c["output_tokens"], c["model"]) == (None, None, "gpt-4o-mini")
    assert c["latency_ms"] >= 0
    assert stored(admin) == []                                   # not in any committed row yet
    assert calls(db.connect("alice")) == []                      # another session sees none
    llm.script(Answer("ok"))
    generate(alice, "again")
    assert [(s["status"], s["call_id"]) for s in stored(admin)][0] == ("error", c["call_id"])
    assert len(stored(admin)) == 2
    assert len(calls(alice)) == 2                                # no duplicates
    generate(alice, "once more")                                 # forgotten once committed
    assert len(stored(admin)) == 3 and len(calls(alice)) == 3


def test_timeout_and_rate_limit_are_recorded(alice, llm):
    make_profile(alice, llm)
    alice.execute("set dbms_cloud_ai.http_timeout = 0.5")
    llm.script(Hang(1.5))
    with raises("LL001"):
        generate(alice, "slow")
    alice.execute("reset dbms_cloud_ai.http_timeout")
    alice.execute("set dbms_cloud_ai.http_max_attempts = 2")
    llm.script(Raw(429, BOOM), Raw(429, BOOM))
    with raises("LL002"):
        generate(alice, "busy")
    timeout, limited = calls(alice)
    assert (timeout["status"], timeout["error_sqlstate"], timeout["http_status"]) \
        == ("error", "LL001", None)
    assert 400 <= timeout["latency_ms"] < 1500
    assert (limited["status"], limited["error_sqlstate"], limited["http_status"],
            limited["attempts"]) == ("error", "LL002", 429, 2)


def test_rolled_back_transaction_is_written_again(alice, admin, llm):
    make_profile(alice, llm)
    alice.execute("begin")
    llm.script(Answer("a", 5, 6))
    generate(alice, "in a transaction")
    assert len(calls(alice)) == 1                               # written, not yet committed
    assert stored(admin) == []
    alice.execute("rollback")
    [c] = calls(alice)                                           # still there, from memory
    assert (c["input_tokens"], c["status"]) == (5, "ok")
    assert stored(admin) == []
    generate(alice, "later")
    assert [s["call_id"] for s in stored(admin)] == [c["call_id"], calls(alice)[1]["call_id"]]


def test_rolled_back_savepoint_is_written_again(alice, admin, llm):
    """The transaction commits, but the savepoint that wrote the record was rolled back."""
    make_profile(alice, llm)
    alice.execute("begin")
    alice.execute("savepoint s")
    llm.script(Answer("a", 5, 6))
    generate(alice, "in a savepoint")
    alice.execute("rollback to savepoint s")
    alice.execute("commit")
    [c] = calls(alice)
    assert stored(admin) == []
    generate(alice, "later")
    assert [s["call_id"] for s in stored(admin)][0] == c["call_id"]
    assert len(stored(admin)) == 2 and len(calls(alice)) == 2


def test_many_calls_in_one_transaction_with_a_rolled_back_savepoint(alice, admin, llm):
    """Calls of one transaction are written once each (not again by every later call of
    the transaction); the one a rolled-back savepoint removed is written by the next
    transaction."""
    make_profile(alice, llm)
    alice.execute("begin")
    alice.execute("select dbms_cloud_ai.generate('q' || i, 'P', 'chat') from generate_series(1, 3) i")
    alice.execute("savepoint s")
    generate(alice, "undone")
    alice.execute("rollback to savepoint s")
    generate(alice, "after the savepoint")
    alice.execute("commit")
    assert len(calls(alice)) == 5
    assert len(stored(admin)) == 4
    generate(alice, "next transaction")
    assert len(stored(admin)) == 6
    assert len({s["call_id"] for s in stored(admin)}) == 6 and len(calls(alice)) == 6


def test_a_later_error_in_the_same_statement_keeps_the_call(alice, admin, llm):
    make_profile(alice, llm)
    llm.script(Answer("a", 5, 6))
    with raises("22P02"):
        alice.execute("select dbms_cloud_ai.generate('q', 'P', 'chat')::int")  # not a number
    assert [c["status"] for c in calls(alice)] == ["ok"]
    generate(alice, "later")
    assert len(stored(admin)) == 2


def test_read_only_transaction_keeps_records_for_later(alice, admin, llm):
    make_profile(alice, llm)
    alice.execute("begin read only")
    llm.script(Answer("a", 5, 6), Answer("b", 7, 8))
    assert generate(alice, "q1") == "a"
    assert generate(alice, "q2") == "b"
    assert [c["input_tokens"] for c in calls(alice)] == [5, 7]
    alice.execute("commit")
    alice.execute("set default_transaction_read_only = on")      # autocommit statements too
    generate(alice, "q3")
    assert len(calls(alice)) == 3 and stored(admin) == []
    alice.execute("reset default_transaction_read_only")
    generate(alice, "q4")
    assert len(stored(admin)) == 4
    assert [c["call_id"] for c in calls(alice)] == [s["call_id"] for s in stored(admin)]


def test_accounting_switch_for_benchmarks(db, llm):
    """accounting.ENABLED (superuser, through GD) turns recording off in that session only."""
    make_profile(db.connect("alice"), llm)
    su = db.connect("postgres")
    su.execute("set role alice")
    generate(su, "loads the package")
    su.execute("reset role")
    su.execute("""do $$ GD["dbms_cloud_ai"].model.accounting.ENABLED = False $$ language plpython3u""")
    su.execute("set role alice")
    generate(su, "not counted")
    su.execute("reset role")
    su.execute("""do $$ GD["dbms_cloud_ai"].model.accounting.ENABLED = True $$ language plpython3u""")
    su.execute("set role alice")
    generate(su, "counted")
    assert len(calls(db.connect("alice"))) == 2


# --- usage as the provider reports it, or estimated --------------------------------------------

@pytest.mark.parametrize("provider", ["openai", "anthropic", "cohere", "google"])
def test_provider_usage_is_stored_exactly(alice, llm, provider):
    make_profile(alice, llm, provider=provider)
    llm.script(Answer("exact", input_tokens=123456, output_tokens=7890))
    generate(alice, "What is 4 + 4 ?")
    [c] = calls(alice)
    assert (c["provider"], c["input_tokens"], c["output_tokens"], c["tokens_estimated"]) \
        == (provider, 123456, 7890, False)
    assert c["model"]


@pytest.mark.parametrize("provider", ["openai", "anthropic", "cohere", "google"])
def test_missing_usage_is_estimated_and_marked(alice, llm, provider):
    make_profile(alice, llm, provider=provider)
    prompt, answer = "What is 4 + 4 ? Answer with a number.", "It is eight, of course."
    llm.script(Answer(answer, input_tokens=None, output_tokens=None))
    generate(alice, prompt)
    [c] = calls(alice)
    assert (c["input_tokens"], c["output_tokens"], c["tokens_estimated"]) \
        == (estimate(prompt), estimate(answer), True)


def test_estimated_tokens_mark_the_conversation_prompt(alice, llm):
    make_profile(alice, llm)
    cid = create_conversation(alice, title="t")
    llm.script(Answer("x" * 40, input_tokens=None, output_tokens=None))
    chat(alice, "y" * 20, cid)
    [p] = prompts(alice)
    assert (p["input_tokens"], p["output_tokens"], p["tokens_estimated"]) == (5, 10, True)


# --- sources ---------------------------------------------------------------------------------

def test_sources_are_stored_with_their_call_and_prompt(db, llm):
    """accounting.add_sources (the feedback and memory features call it) is flushed with
    the turn's calls and linked to the turn's prompt; readable only by its owner."""
    alice = db.connect("alice")
    make_profile(alice, llm)
    su = db.connect("postgres")
    su.execute("set role alice")
    generate(su, "loads the package")
    su.execute("reset role")
    # Wrap the model call so that each answer "used" two retrieved examples.
    su.execute("""do $$
        acc = GD["dbms_cloud_ai"].model.accounting
        llm = GD["dbms_cloud_ai"].model.llm
        if not hasattr(llm, "_test_chat"):
            llm._test_chat = llm.chat
            def chat(*a, **k):
                c = llm._test_chat(*a, **k)
                acc.add_sources(c.extra["call_id"], "feedback", [("ex-1", 0.91), ("ex-2", 0.5)])
                return c
            llm.chat = chat
        $$ language plpython3u""")
    try:
        su.execute("set role alice")
        cid = create_conversation(su, title="t")
        chat(su, "q", cid)
    finally:
        su.execute("reset role")
        su.execute("""do $$
            llm = GD["dbms_cloud_ai"].model.llm
            llm.chat = llm._test_chat
            del llm._test_chat
            $$ language plpython3u""")
    c = calls(alice)[-1]
    [p] = prompts(alice)
    got = rows(alice, "select * from dbms_cloud_ai.user_cloud_ai_message_sources order by source_id")
    assert [(s["call_id"], s["conversation_prompt_id"], s["source_kind"], s["source_id"])
            for s in got] == [(c["call_id"], p["conversation_prompt_id"], "feedback", "ex-1"),
                              (c["call_id"], p["conversation_prompt_id"], "feedback", "ex-2")]
    assert [round(s["similarity"], 2) for s in got] == [0.91, 0.5]
    bob = db.connect("bob")
    assert rows(bob, "select * from dbms_cloud_ai.user_cloud_ai_message_sources") == []
    assert rows(bob, "select * from dbms_cloud_ai._message_source") == []


# --- isolation -------------------------------------------------------------------------------

def test_calls_are_isolated_between_roles(db, alice, bob, admin, llm):
    make_profile(alice, llm)
    make_profile(bob, llm)
    alice.execute("set dbms_cloud_ai.http_max_attempts = 1")
    llm.script(Answer("a", 1, 2), Raw(500, BOOM), Answer("b", 3, 4))
    generate(alice, "q")
    with raises("LL000"):
        generate(alice, "fails")
    generate(bob, "q")
    assert len(calls(alice)) == 2 and len(calls(bob)) == 1
    assert rows(bob, "select * from dbms_cloud_ai._model_call where owner = 'alice'") == []
    with raises("42501"):
        bob.execute("select * from dbms_cloud_ai.dba_cloud_ai_calls")
    with raises("42501"):  # no row can claim another owner
        bob.execute("insert into dbms_cloud_ai._model_call (call_id, owner, created, purpose, "
                    "provider, prompt_version, latency_ms, status) values (gen_random_uuid(), "
                    "'alice', now(), 'answer', 'openai', 'x', 1, 'ok')")
    with raises("42501"):  # nor change or remove a row, even one's own
        bob.execute("update dbms_cloud_ai._model_call set input_tokens = 0")
    with raises("42501"):
        bob.execute("delete from dbms_cloud_ai._model_call")
    everyone = rows(admin, "select owner, count(*) as n from dbms_cloud_ai.dba_cloud_ai_calls "
                           "group by owner order by owner")
    assert everyone == [{"owner": "alice", "n": 1}, {"owner": "bob", "n": 1}]  # alice's failure is pending
    assert calls(admin) == []                                  # user_ view: the admin's own only


def test_pending_calls_follow_the_role_not_the_backend(db, llm):
    make_profile(db.connect("alice"), llm)
    make_profile(db.connect("bob"), llm, credential="BCRED")
    conn = db.connect("postgres")
    conn.execute("set dbms_cloud_ai.http_max_attempts = 1")
    conn.execute("set role alice")
    llm.script(Raw(500, BOOM))
    with raises("LL000"):
        generate(conn, "alice fails")
    assert len(calls(conn)) == 1
    conn.execute("set role bob")
    assert calls(conn) == []
    generate(conn, "bob succeeds")                             # does not store alice's record
    assert [c["status"] for c in calls(conn)] == ["ok"]
    assert calls(db.connect("alice")) == []
    conn.execute("set role alice")
    generate(conn, "alice succeeds")
    assert [c["status"] for c in calls(db.connect("alice"))] == ["error", "ok"]


# --- token budgets ---------------------------------------------------------------------------

def test_set_token_budget_is_admin_only_and_validated(alice, bob, admin):
    with raises("42501"):
        alice.execute("select dbms_cloud_ai.set_token_budget('alice', 1000)")
    with raises("42501"):
        alice.execute("insert into dbms_cloud_ai._token_budget values ('alice', 1)")
    with raises("42704"):
        set_budget(admin, "no_such_role", 10)
    with raises("22023"):
        set_budget(admin, "alice", -1)
    set_budget(admin, "alice", 1000)
    set_budget(admin, "bob", 50)
    set_budget(admin, "PUBLIC", 10**12)
    set_budget(admin, "alice", 2000)                           # replaces
    budgets = "select principal, daily_tokens from dbms_cloud_ai.user_cloud_ai_token_budgets " \
              "order by principal"
    assert [tuple(r.values()) for r in rows(alice, budgets)] == [("PUBLIC", 10**12), ("alice", 2000)]
    assert [tuple(r.values()) for r in rows(bob, budgets)] == [("PUBLIC", 10**12), ("bob", 50)]
    assert len(rows(admin, budgets)) == 3
    set_budget(admin, "alice", None)                           # NULL removes
    assert [r["principal"] for r in rows(alice, budgets)] == ["PUBLIC"]


def test_role_budget_refuses_before_any_request(alice, admin, llm):
    make_profile(alice, llm)
    set_budget(admin, "alice", 0)
    with raises("53400"):
        generate(alice, "q")
    assert llm.requests == [] and calls(alice) == []
    set_budget(admin, "alice", 100)
    llm.script(Answer("a", 40, 30))
    generate(alice, "q")                                       # 70 used
    with raises("53400") as e:                                 # 70 + about 31 for the prompt
        generate(alice, "x" * 120)
    assert "set_token_budget" in (e["error"].diag.message_hint or "")
    assert len(llm.requests) == 1
    llm.script(Answer("b", 20, 10))
    generate(alice, "q")                                       # 70 + 1 fits: 100 used
    with raises("53400"):
        generate(alice, "q")
    assert len(llm.requests) == 2
    set_budget(admin, "alice", None)
    generate(alice, "q")
    assert len(llm.requests) == 3


def test_other_roles_count_for_public_not_for_a_role_budget(alice, bob, admin, llm):
    make_profile(alice, llm)
    make_profile(bob, llm)
    set_budget(admin, "alice", 60)
    set_budget(admin, "bob", 10**6)                            # bob's budget is not alice's
    llm.script(Answer("b", 60, 40))
    generate(bob, "q")                                         # bob: 100 tokens
    llm.script(Answer("a", 20, 20))
    generate(alice, "q")                                       # alice's own: 40 of 60
    set_budget(admin, "PUBLIC", 150)                           # everyone: 140 of 150
    with raises("53400"):
        generate(alice, "x" * 60)                              # about 16 more: over PUBLIC's
    with raises("53400"):
        generate(bob, "x" * 60)
    assert len(llm.requests) == 2
    generate(alice, "q")                                       # 140 + 1 fits both
    assert len(llm.requests) == 3


def test_budget_counts_failed_and_rolled_back_calls(alice, admin, llm):
    """Tokens spent in a statement or transaction that rolled back still count."""
    make_profile(alice, llm)
    set_budget(admin, "alice", 100)
    for _ in range(2):
        alice.execute("begin")
        llm.script(Answer("a", 30, 10))
        generate(alice, "q")
        alice.execute("rollback")
    llm.script(Answer("a", 5, 5))
    with raises("22P02"):
        alice.execute("select dbms_cloud_ai.generate('q', 'P', 'chat')::int")  # not a number
    assert len(llm.requests) == 3                              # 90 tokens spent, none committed
    with raises("53400"):
        generate(alice, "x" * 80)                              # 90 + about 21
    assert len(llm.requests) == 3
    generate(alice, "q")                                       # 90 + 1 fits, and stores all
    assert len(stored(admin)) == 4


def test_budget_day_is_the_utc_day(db, alice, admin, llm):
    """Tokens of an earlier UTC day do not count today."""
    make_profile(alice, llm)
    llm.script(Answer("a", 500, 500))
    generate(alice, "q")
    set_budget(admin, "alice", 100)
    with raises("53400"):
        generate(alice, "q")
    db.admin.execute("update dbms_cloud_ai._model_call set created = "
                     "date_trunc('day', now(), 'UTC') - interval '1 microsecond'")
    generate(alice, "q")
    assert len(llm.requests) == 2


# --- prices ----------------------------------------------------------------------------------

def set_price(conn, provider, model, inp, out, currency=None):
    if currency is None:
        conn.execute("select dbms_cloud_ai.set_model_price(%s, %s, %s::numeric, %s::numeric)",
                     (provider, model, inp, out))
    else:
        conn.execute("select dbms_cloud_ai.set_model_price(%s, %s, %s::numeric, %s::numeric, %s)",
                     (provider, model, inp, out, currency))


def test_set_model_price_is_admin_only_and_validated(alice, admin):
    with raises("42501"):
        set_price(alice, "openai", "gpt-4o-mini", 0.15, 0.6)
    with raises("42501"):
        alice.execute("insert into dbms_cloud_ai._model_price (provider, model, input_per_million, "
                      "output_per_million) values ('openai', 'x', 0, 0)")
    for args, state in ((("no-such-provider", "m", 1, 1), "22023"),
                        ((None, "m", 1, 1), "22004"),
                        (("openai", None, 1, 1), "22004"),
                        (("openai", " ", 1, 1), "22004"),
                        (("openai", "m", None, 1), "22004"),
                        (("openai", "m", -1, 1), "22023"),
                        (("openai", "m", 1, 1, "dollars"), "22023")):
        with case(args):
            with raises(state):
                set_price(admin, *args)
    set_price(admin, "OpenAI", "gpt-4o-mini", Decimal("0.15"), Decimal("0.60"))
    set_price(admin, "anthropic", "claude-haiku-4-5", 1, 5, "eur")
    set_price(admin, "openai", "gpt-4o-mini", Decimal("0.15"), Decimal("0.65"))   # replaces
    prices = "select provider, model, input_per_million, output_per_million, currency " \
             "from dbms_cloud_ai.model_prices order by provider"
    expected = [("anthropic", "claude-haiku-4-5", 1, 5, "EUR"),
                ("openai", "gpt-4o-mini", Decimal("0.15"), Decimal("0.65"), "USD")]
    assert [tuple(r.values()) for r in rows(alice, prices)] == expected   # everyone reads them
    set_price(admin, "openai", "gpt-4o-mini", None, None)                 # NULL prices remove
    set_price(admin, "openai", "never-priced", None, None)                # nothing to remove
    assert [r["provider"] for r in rows(alice, prices)] == ["anthropic"]


# --- usage reports ---------------------------------------------------------------------------

USAGE_COLS = ["day", "action", "provider", "model", "calls", "errors", "error_rate",
              "input_tokens", "output_tokens", "latency_p50_ms", "latency_p95_ms",
              "rating_balance", "cost", "currency"]


def percentile_disc(values, p):
    s = sorted(values)
    return s[max(0, math.ceil(p * len(s)) - 1)]


def usage(conn, view="user_cloud_ai_usage", where="true"):
    return rows(conn, f"select * from dbms_cloud_ai.{view} where {where} "
                      "order by day, action, provider, model")


def utc_today(conn):
    return conn.execute("select (now() at time zone 'UTC')::date").fetchone()[0]


def rate(conn, prompt_id, rating):
    """Rate a prompt (a chat prompt: no example is made)."""
    conn.execute("select dbms_cloud_ai.rate_prompt(%s, %s)", (prompt_id, rating))


@pytest.fixture
def usage_calls(alice, llm):
    """alice's calls of today: four chats with a dated model in a conversation (one failed;
    the three turns rated +1, +1, -1), and one chat with another model."""
    make_profile(alice, llm, model="gpt-4o-mini-2024-07-18")
    alice.execute("set dbms_cloud_ai.http_max_attempts = 1")
    cid = create_conversation(alice, title="t")
    llm.script(Answer("a1", 100_000, 50_000), Answer("a2", 200_000, 60_000),
               Raw(500, BOOM), Answer("a3", 300_000, 70_000),
               Answer("other", 7, 3))
    chat(alice, "q1", cid)
    chat(alice, "q2", cid)
    with raises("LL000"):
        chat(alice, "q3", cid)
    chat(alice, "q4", cid)
    generate(alice, "q5", attributes='{"model": "gpt-4o"}')
    ids = [p["conversation_prompt_id"] for p in prompts(alice)]
    for pid, r in zip(ids, (1, 1, -1)):
        rate(alice, pid, r)
    return cid


def test_usage_views_report_each_day_action_and_model(alice, admin, llm, usage_calls):
    latencies = [c["latency_ms"] for c in calls(alice) if c["model"] != "gpt-4o"]
    today = utc_today(alice)
    other, main = usage(alice)                                     # ordered by model
    assert list(main) == USAGE_COLS
    assert {k: main[k] for k in USAGE_COLS[:9]} == {
        "day": today, "action": "CHAT", "provider": "openai", "model": "gpt-4o-mini-2024-07-18",
        "calls": 4, "errors": 1, "error_rate": Decimal("0.2500"),
        "input_tokens": 600_000, "output_tokens": 180_000}
    assert main["latency_p50_ms"] == percentile_disc(latencies, 0.5)
    assert main["latency_p95_ms"] == percentile_disc(latencies, 0.95)
    assert main["rating_balance"] == 1
    assert (main["cost"], main["currency"]) == (None, None)       # no price yet
    assert (other["model"], other["calls"], other["input_tokens"], other["rating_balance"]) \
        == ("gpt-4o", 1, 7, 0)
    # Prices: the dated model takes its base name's price; an exact price wins.
    set_price(admin, "openai", "gpt-4o-mini", Decimal("0.15"), Decimal("0.60"))
    other, main = usage(alice)
    assert (main["cost"], main["currency"]) == (Decimal("0.198000"), "USD")  # .09 + .108
    assert other["cost"] is None
    set_price(admin, "openai", "gpt-4o-mini-2024-07-18", 1, 2, "EUR")
    set_price(admin, "openai", "gpt-4o", 1000, 1000)
    other, main = usage(alice)
    assert (main["cost"], main["currency"]) == (Decimal("0.960000"), "EUR")  # .6 + .36
    assert (other["cost"], other["currency"]) == (Decimal("0.010000"), "USD")
    # The administrator's view: the same rows, with the owner.
    everyone = usage(admin, "dba_cloud_ai_usage")
    assert [{k: v for k, v in r.items() if k != "owner"} for r in everyone] == usage(alice)
    assert {r["owner"] for r in everyone} == {"alice"}
    assert usage(admin) == []                                     # the admin's own: none


def test_usage_is_isolated_between_roles(alice, bob, admin, llm, usage_calls):
    make_profile(bob, llm)
    llm.script(Answer("b", 1, 1))
    generate(bob, "q")
    assert [(r["model"], r["calls"]) for r in usage(bob)] == [("gpt-4o-mini", 1)]
    with raises("42501"):
        bob.execute("select * from dbms_cloud_ai.dba_cloud_ai_usage")
    assert rows(bob, "select * from dbms_cloud_ai._usage where owner = 'alice'") == []
    assert {r["owner"] for r in usage(admin, "dba_cloud_ai_usage")} == {"alice", "bob"}
    admin.execute("select dbms_cloud_ai.summarize_usage()")
    assert rows(bob, "select * from dbms_cloud_ai._usage_daily where owner = 'alice'") == []


def move_back(db, days):
    """Move every recorded call and prompt ``days`` UTC days back (superuser)."""
    for table in ("_model_call", "_conversation_prompt"):
        db.admin.execute(f"update dbms_cloud_ai.{table} set created = created - %s * interval '1 day'",
                         (days,))


def test_summarized_days_report_what_the_calls_say(db, alice, admin, llm, usage_calls):
    set_price(admin, "openai", "gpt-4o-mini", Decimal("0.15"), Decimal("0.60"))
    with raises("42501"):
        alice.execute("select dbms_cloud_ai.summarize_usage()")
    with raises("22023"):
        admin.execute("select dbms_cloud_ai.summarize_usage(-1)")
    move_back(db, 2)
    llm.script(Answer("today", 5, 5))
    chat(alice, "today's question")
    live = usage(admin, "dba_cloud_ai_usage")
    assert len(live) == 3
    assert admin.execute("select dbms_cloud_ai.summarize_usage()").fetchone()[0] == 1
    assert admin.execute("select summarized_through from dbms_cloud_ai._usage_state").fetchone()[0] \
        == utc_today(admin) - dt.timedelta(days=1)
    assert rows(admin, "select count(*) as n from dbms_cloud_ai._usage_daily") == [{"n": 2}]
    assert usage(admin, "dba_cloud_ai_usage") == live            # same figures from the summary
    assert usage(alice) == [{k: v for k, v in r.items() if k != "owner"} for r in live]
    assert admin.execute("select dbms_cloud_ai.summarize_usage()").fetchone()[0] == 0
    # Ratings stay live on summarized days.
    rate(alice, prompts(alice)[2]["conversation_prompt_id"], 1)
    [main] = [r for r in usage(alice) if r["model"] == "gpt-4o-mini-2024-07-18"
              and r["day"] < utc_today(alice)]
    assert main["rating_balance"] == 3
    live = usage(admin, "dba_cloud_ai_usage")
    # A call stored late for a summarized day (a failed call's record, written by the
    # session's next call) shows after the next summary, which rebuilds that day.
    db.admin.execute("""insert into dbms_cloud_ai._model_call (call_id, owner, created, action,
                            purpose, provider, model, prompt_version, input_tokens, output_tokens,
                            latency_ms, status)
                        select gen_random_uuid(), 'alice', created, action, purpose, provider,
                               model, prompt_version, 1, 1, 1, 'ok'
                          from dbms_cloud_ai._model_call where owner = 'alice' limit 1""")
    assert usage(admin, "dba_cloud_ai_usage") == live
    assert admin.execute("select dbms_cloud_ai.summarize_usage()").fetchone()[0] == 1
    assert sum(r["calls"] for r in usage(admin, "dba_cloud_ai_usage")) == 7


def plan(conn, sql) -> str:
    return "\n".join(r[0] for r in conn.execute("explain " + sql).fetchall())


def scans(plan_text, table):
    """Each scan of ``table`` in a plan: its node line and its condition lines."""
    lines = plan_text.splitlines()
    out = []
    for i, line in enumerate(lines):
        if f" on {table} " in line + " " and "Scan" in line:
            conds = []
            for nxt in lines[i + 1:]:
                if "->" in nxt or not nxt.strip().startswith(("Index Cond", "Recheck Cond",
                                                               "Filter", "Heap Fetches")):
                    break
                conds.append(nxt.strip())
            out.append((line.strip(), conds))
    return out


@pytest.mark.parametrize("summarized", [False, True])
def test_usage_filters_are_pushed_down_to_indexes(db, alice, admin, llm, usage_calls, summarized):
    """A filter on the day (and owner) reaches an index condition on every table the views
    read, for an administrator and under a role's row-level security; cost and rating,
    when not selected, read neither prices nor prompts."""
    if summarized:
        move_back(db, 1)
        admin.execute("select dbms_cloud_ai.summarize_usage()")
    for conn in (alice, admin):
        conn.execute("set enable_seqscan = off")      # tiny tables: make the index paths show
    queries = [(admin, "select * from dbms_cloud_ai.dba_cloud_ai_usage "
                       "where day >= current_date - 7 and owner = 'alice'"),
               (admin, "select * from dbms_cloud_ai.dba_cloud_ai_usage where day = current_date"),
               (alice, "select * from dbms_cloud_ai.user_cloud_ai_usage "
                       "where day >= current_date - 30")]
    for conn, sql in queries:
        p = plan(conn, sql)
        for table in ("_model_call", "_usage_daily", "_conversation_prompt"):
            found = scans(p, table)
            with case((sql, table)):
                assert found, p
                for node, conds in found:
                    assert "Seq Scan" not in node, p
                    index_conds = [c for c in conds if c.startswith(("Index Cond", "Recheck Cond"))]
                    assert any("day" in c or "created" in c for c in index_conds), p
    p = plan(admin, "select day, owner, calls, input_tokens from dbms_cloud_ai.dba_cloud_ai_usage "
                    "where day = current_date")
    assert "_model_price" not in p and "_conversation_prompt" not in p, p
