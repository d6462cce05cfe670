"""Idempotent retries (docs/security.md, reference 8.E7): params request_id.

Within one owner, a request id names one turn of a named conversation.  A
retry of the same call (same prompt, action, profile and conversation) gets
the stored answer back: no model request, no new prompt row, no call row.  A
reuse with a different call is 22023.  Two calls with the same id in flight
at once store exactly one turn, decided at insert time by a unique index, so
no lock is held while the model answers (E6); both callers get the stored
answer.
"""

from __future__ import annotations

import itertools
import json
import threading
import time

import pytest
from fake_llm import Answer, Raw, last_user_text
from helpers import case, generate, hint_of, make_profile, raises
from nl2sql_fixtures import people  # noqa: F401 - fixture

PEOPLE_COUNT = 'SELECT count(*) AS "People Count" FROM alice.people p'


def count_json(n: int) -> str:
    return f'[\n  {{\n    "People Count" : {n}\n  }}\n]'


@pytest.fixture
def numbered(llm):
    """Every model request gets a different answer: 'answer 1', 'answer 2', ..."""
    counter = itertools.count(1)
    llm.responder = lambda wire, body: Answer(f"answer {next(counter)}")
    return llm


def conversation(conn, title="t") -> str:
    """A titled conversation: no naming call is made after its first turn."""
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps({"title": title}),)).fetchone()[0]


def ask(conn, prompt, cid, request_id, action="chat", profile="P"):
    p = {"conversation_id": cid} if cid else {}
    if request_id is not None:
        p["request_id"] = request_id
    return generate(conn, prompt, profile, action, params=json.dumps(p))


def turns(db, **where) -> list[tuple]:
    """Stored prompt rows (the superuser sees past row-level security)."""
    cond = " and ".join(f"{k} = %({k})s" for k in where) or "true"
    return db.admin.execute(
        "select owner::text, conversation_id::text, prompt_action, prompt, prompt_response, request_id"
        f"  from dbms_cloud_ai._conversation_prompt where {cond} order by seq", where).fetchall()


def model_calls(db) -> int:
    return db.admin.execute("select count(*) from dbms_cloud_ai._model_call").fetchone()[0]


def test_sequential_replay_returns_the_stored_turn(db, alice, numbered):
    make_profile(alice, numbered)
    cid = conversation(alice)
    assert ask(alice, "what is a turn?", cid, "req-1") == "answer 1"
    calls = model_calls(db)
    for _ in range(3):
        assert ask(alice, "what is a turn?", cid, "req-1") == "answer 1"
    assert len(numbered.requests) == 1
    assert model_calls(db) == calls == 1     # a replay is not a model call: no call row
    assert [t[3:] for t in turns(db)] == [("what is a turn?", "answer 1", "req-1")]
    # the id is the last column of the user's view
    row = alice.execute("select * from dbms_cloud_ai.user_cloud_ai_conversation_prompts").fetchall()
    assert len(row) == 1 and row[0][-1] == "req-1"
    # control: another id (or none) is another turn
    assert ask(alice, "what is a turn?", cid, "req-2") == "answer 2"
    assert ask(alice, "what is a turn?", cid, None) == "answer 3"
    assert [t[5] for t in turns(db)] == ["req-1", "req-2", None]


def test_reuse_for_a_different_call_is_refused(db, alice, numbered):
    make_profile(alice, numbered)
    make_profile(alice, numbered, name="OTHER", credential="C2")
    cid, other = conversation(alice), conversation(alice, "other")
    assert ask(alice, "first question", cid, "req-1") == "answer 1"
    before = turns(db)
    reuses = {"prompt": ("another question", cid, "chat", "P"),
              "conversation": ("first question", other, "chat", "P"),
              "profile": ("first question", cid, "chat", "OTHER"),
              "action": ("first question", cid, "narrate", "P")}
    for what, (prompt, conv, action, profile) in reuses.items():
        with case(what):
            with raises("22023") as e:
                ask(alice, prompt, conv, "req-1", action=action, profile=profile)
            assert "req-1" in e["error"].diag.message_primary
            assert "request_id" in hint_of(e)
    assert len(numbered.requests) == 1 and turns(db) == before


INVALID_IDS = ["", "x" * 201, "line\nbreak", "tab\there", "del\x7f", 42, True, ["a"], {"a": 1}]


def test_invalid_request_ids(db, alice, numbered):
    make_profile(alice, numbered)
    cid = conversation(alice)
    for bad in INVALID_IDS:
        with case(repr(bad)[:20]):
            with raises("22023"):
                generate(alice, "q", params=json.dumps({"conversation_id": cid, "request_id": bad}))
    assert numbered.requests == [] and turns(db) == []


def test_longest_and_unicode_ids_are_accepted(db, alice, numbered):
    make_profile(alice, numbered)
    cid = conversation(alice)
    for rid in ("x" * 200, "café-ü-東京 #1"):
        with case(rid[:10]):
            first = ask(alice, "q " + rid, cid, rid)
            assert ask(alice, "q " + rid, cid, rid) == first
    assert len(numbered.requests) == 2 and len(turns(db)) == 2


def test_without_a_named_conversation(db, alice, numbered):
    """Nothing stored, nothing to store twice: the id has no effect.  The session's
    short-term conversation stores turns but ends with the session a retry comes
    from: an id there is refused."""
    make_profile(alice, numbered)
    assert ask(alice, "q", None, "req-1") == "answer 1"
    assert ask(alice, "q", None, "req-1") == "answer 2"
    assert turns(db) == []
    make_profile(alice, numbered, name="SESSION", credential="C2", conversation=True)
    with raises("22023") as e:
        ask(alice, "q", None, "req-1", profile="SESSION")
    assert "conversation_id" in hint_of(e)
    assert len(numbered.requests) == 2
    assert alice.execute("select count(*) from dbms_cloud_ai.session_cloud_ai_conversation_prompts"
                         ).fetchone()[0] == 0


def test_retry_after_a_failed_attempt_stores_one_turn(db, alice, llm):
    """The first try fails after all its retries (500 x 3); the client's retry
    with the same id is the call that stores, once."""
    make_profile(alice, llm)
    cid = conversation(alice)
    alice.execute("set dbms_cloud_ai.http_max_attempts = 3")
    llm.script(*[Raw(500, headers={"retry-after": "0"})] * 3, Answer("at last"))
    with raises("LL000"):
        ask(alice, "flaky", cid, "req-1")
    assert turns(db) == []
    assert ask(alice, "flaky", cid, "req-1") == "at last"
    assert ask(alice, "flaky", cid, "req-1") == "at last"
    assert len(llm.requests) == 4
    assert [t[3:] for t in turns(db)] == [("flaky", "at last", "req-1")]


def test_owners_use_the_same_id_independently(db, alice, bob, numbered):
    make_profile(alice, numbered)
    make_profile(bob, numbered, credential="BOBCRED")
    a, b = conversation(alice), conversation(bob)
    assert ask(alice, "alice asks", a, "shared-id") == "answer 1"
    assert ask(bob, "bob asks", b, "shared-id") == "answer 2"   # not alice's turn: no 22023
    assert ask(bob, "bob asks", b, "shared-id") == "answer 2"
    assert ask(alice, "alice asks", a, "shared-id") == "answer 1"
    assert len(numbered.requests) == 2
    assert [(t[0], t[3], t[5]) for t in turns(db)] == [("alice", "alice asks", "shared-id"),
                                                        ("bob", "bob asks", "shared-id")]
    # bob cannot reach alice's turn through his own conversation either
    with raises("22023"):
        ask(bob, "alice asks", b, "shared-id")
    assert alice.execute("select request_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                         ).fetchall() == [("shared-id",)]


def test_showsql_and_runsql_in_a_conversation(db, people, llm):
    make_profile(people, llm, object_list=[{"owner": "ALICE", "name": "PEOPLE"}])
    cid = conversation(people)
    llm.script(Answer(PEOPLE_COUNT), Answer(PEOPLE_COUNT))
    shown = ask(people, "how many people?", cid, "show-1", action="showsql")
    assert "count(*)" in shown
    assert ask(people, "how many people?", cid, "show-1", action="showsql") == shown
    assert ask(people, "how many people now?", cid, "run-1", action="runsql") == count_json(5)
    assert len(llm.requests) == 2
    calls = model_calls(db)
    # runsql keeps the SQL, not its rows: a replay runs the stored query again
    people.execute("insert into alice.people (id, name) values (6, 'Ada Lovelace')")
    assert ask(people, "how many people now?", cid, "run-1", action="runsql") == count_json(6)
    assert len(llm.requests) == 2 and model_calls(db) == calls
    assert [(t[2], t[5]) for t in turns(db)] == [("SHOWSQL", "show-1"), ("RUNSQL", "run-1")]
    with raises("22023"):  # same id, other action
        ask(people, "how many people?", cid, "show-1", action="runsql")
    assert len(llm.requests) == 2


# --- concurrent: two sessions, same id, both in flight --------------------------------------

def locks_of(db, pid: int) -> list[tuple]:
    return db.admin.execute(
        "select locktype, mode from pg_locks where pid = %s and locktype <> 'virtualxid'",
        (pid,)).fetchall()


def test_concurrent_replay_stores_one_turn(db, llm):
    first, second = db.connect("alice"), db.connect("alice")
    make_profile(first, llm)
    cid = conversation(first)
    release = threading.Event()
    counter = itertools.count(1)

    def respond(wire, body):
        n = next(counter)
        if "raced question" in last_user_text(wire, body):
            release.wait(15)   # hold both answers until both calls are in flight
        return Answer(f"answer {n}")
    llm.responder = respond
    out: dict = {}

    def call(name, conn):
        try:
            out[name] = ask(conn, "raced question", cid, "race-1")
        except BaseException as e:
            out[name] = e
    threads = [threading.Thread(target=call, args=(n, c)) for n, c in (("a", first), ("b", second))]
    for th in threads:
        th.start()
    try:
        end = time.monotonic() + 10
        while len(llm.requests) < 2 and time.monotonic() < end:
            time.sleep(0.02)
        assert len(llm.requests) == 2, "both calls should be waiting on the model"
        # E6: the waiting backends hold no row or advisory lock and no transaction id
        for conn in (first, second):
            pid = conn.info.backend_pid
            xid = db.admin.execute("select backend_xid from pg_stat_activity where pid = %s",
                                   (pid,)).fetchone()[0]
            assert xid is None
            assert all(t == "relation" and m == "AccessShareLock"
                       for t, m in locks_of(db, pid)), locks_of(db, pid)
    finally:
        release.set()
        for th in threads:
            th.join(20)
    assert not isinstance(out["a"], BaseException), out["a"]
    assert not isinstance(out["b"], BaseException), out["b"]
    stored = turns(db)
    assert len(stored) == 1 and stored[0][5] == "race-1"
    assert out["a"] == out["b"] == stored[0][4]       # both callers get the stored answer
    # both model calls happened and are accounted, to the one stored turn
    linked = db.admin.execute(
        "select count(*), count(distinct conversation_prompt_id) from dbms_cloud_ai._model_call"
        " where conversation_prompt_id is not null").fetchone()
    assert linked == (2, 1)
    assert ask(first, "raced question", cid, "race-1") == stored[0][4]
    assert len(llm.requests) == 2
