"""Many sessions appending to ONE conversation at once lose nothing and keep a strict order.

Each session is a thread with its own connection; the fake LLM answers every
prompt with a text derived from it after a random delay (0-20 ms in the fast
tier, 0-200 ms in the long one, security.md 8.F1), so the model calls of
different sessions overlap and their writes interleave.  Invariants: exactly
sessions x turns turns stored, strictly increasing seq, no duplicate, none
lost, no error of any kind (deadlock 40P01 and serialization 40001 included)
reaches a session, and the server detected no deadlock at all (pg_stat_database,
read after the sessions' backends have ended and flushed their statistics).
"""

from __future__ import annotations

import itertools
import json
import random
import threading
import time

import psycopg
import pytest
from fake_llm import Answer
from helpers import make_profile, together


def answer_for(prompt: str) -> str:
    return f"answer to {prompt}"


def deadlocks(db) -> int:
    db.admin.execute("select pg_stat_clear_snapshot()")
    return db.admin.execute("select deadlocks from pg_stat_database "
                            "where datname = current_database()").fetchone()[0]


def end_sessions(db, conns):
    """Close the sessions and wait until their backends are gone: a backend
    flushes its statistics (deadlocks counted) before it leaves pg_stat_activity."""
    pids = [c.info.backend_pid for c in conns]
    for c in conns:
        c.close()
    deadline = time.monotonic() + 30
    while db.admin.execute("select count(*) from pg_stat_activity where pid = any(%s)",
                           (pids,)).fetchone()[0]:
        assert time.monotonic() < deadline, "session backends did not exit"
        time.sleep(0.05)


def run_sessions(db, llm, sessions: int, turns: int, *, length: int = 10,
                 max_delay: float = 0.020):
    """``sessions`` threads x ``turns`` generate() calls on one conversation; returns facts."""
    owner = db.connect("alice")
    make_profile(owner, llm)
    cid = owner.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps({"title": "Crowded", "conversation_length": length}),)).fetchone()[0]
    rng = random.Random(20240603)
    delays = [rng.uniform(0.0, max_delay) for _ in range(sessions * turns)]
    counter = iter(range(len(delays) * 2))
    lock = threading.Lock()

    def respond(wire, body):
        with lock:
            d = delays[next(counter) % len(delays)]
        return Answer(answer_for(body["messages"][-1]["content"]), delay=d)
    llm.responder = respond

    conns = [db.connect("alice") for _ in range(sessions)]
    notices: list[str] = []
    for c in conns:
        c.add_notice_handler(lambda diag: notices.append(f"{diag.severity}: {diag.message_primary}"))
    errors: list[BaseException] = []
    wrong: list[tuple] = []
    start = threading.Barrier(sessions)
    params = json.dumps({"conversation_id": cid})

    def session(s: int, conn: psycopg.Connection):
        try:
            cur = conn.cursor()
            start.wait(timeout=60)
            for t in range(turns):
                prompt = f"session {s:02d} turn {t:02d}"
                got = cur.execute("select dbms_cloud_ai.generate(%s, 'P', 'chat', params => %s)",
                                  (prompt, params)).fetchone()[0]
                if got != answer_for(prompt):
                    wrong.append((prompt, got))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=session, args=(s, c), name=f"session-{s}")
               for s, c in enumerate(conns)]
    deadlocks_before = deadlocks(db)
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    elapsed = time.monotonic() - t0
    assert not any(t.is_alive() for t in threads), "a session hung"
    surfaced = [getattr(e, "sqlstate", None) for e in errors]
    assert not {"40P01", "40001"} & set(surfaced), f"deadlock/serialization surfaced: {surfaced}"
    assert not errors, f"{len(errors)} sessions failed, first: {errors[0]!r}"
    end_sessions(db, conns)
    assert deadlocks(db) == deadlocks_before, "the server detected a deadlock"
    assert not wrong, wrong[:5]
    assert not notices, notices[:5]

    rows = owner.execute(
        "select p.seq, v.prompt, v.prompt_response, v.prompt_action, v.profile_name "
        "  from dbms_cloud_ai.user_cloud_ai_conversation_prompts v "
        "  join dbms_cloud_ai._conversation_prompt p "
        "    on upper(p.conversation_prompt_id::text) = v.conversation_prompt_id "
        " where v.conversation_id = %s order by p.seq", (cid,)).fetchall()
    return cid, rows, list(llm.requests), elapsed


def check(rows, requests, sessions: int, turns: int, length: int):
    total = sessions * turns
    expected = {f"session {s:02d} turn {t:02d}" for s in range(sessions) for t in range(turns)}
    # Exactly one row per turn, every prompt there once, with its own answer.
    assert len(rows) == total
    prompts = [r[1] for r in rows]
    assert set(prompts) == expected and len(set(prompts)) == total
    assert all(r[2] == answer_for(r[1]) and r[3] == "CHAT" and r[4] == "P" for r in rows)
    # seq: no duplicates, strictly increasing in the stored order.
    seqs = [r[0] for r in rows]
    assert len(set(seqs)) == total
    assert all(a < b for a, b in itertools.pairwise(seqs))
    # Each session's own turns are stored in the order it made them.
    seq_of = {r[1]: r[0] for r in rows}
    for s in range(sessions):
        mine = [seq_of[f"session {s:02d} turn {t:02d}"] for t in range(turns)]
        assert mine == sorted(mine), f"session {s} out of order"
    # The sessions really ran at once: their turns interleave in the stored order.
    owners = [p[:10] for p in prompts]
    switches = sum(a != b for a, b in itertools.pairwise(owners))
    assert switches >= total // 4, f"only {switches} switches between sessions"
    # One model call per turn (titled conversation: no naming call).  Every call
    # carried at most `length` complete pairs of stored turns, oldest first.
    assert len(requests) == total
    for req in requests:
        msgs = req.json["messages"]
        hist, last = msgs[:-1], msgs[-1]
        assert last["role"] == "user" and last["content"] in expected
        assert len(hist) % 2 == 0 and len(hist) <= 2 * length
        users, assistants = hist[0::2], hist[1::2]
        assert all(m["role"] == "user" for m in users) and all(m["role"] == "assistant" for m in assistants)
        assert all(a["content"] == answer_for(u["content"]) for u, a in zip(users, assistants))
        hist_seqs = [seq_of[u["content"]] for u in users]
        assert hist_seqs == sorted(hist_seqs), "history not oldest first"
        assert last["content"] not in {u["content"] for u in users}


@pytest.mark.long
def test_50_sessions_20_turns_on_one_conversation(db, llm):
    """security.md 8.F1: 1,000 turns, the model answering in 0-200 ms."""
    cid, rows, requests, elapsed = run_sessions(db, llm, 50, 20, max_delay=0.200)
    check(rows, requests, 50, 20, 10)
    assert elapsed < 180, f"took {elapsed:.1f}s"


def test_10_sessions_5_turns_on_one_conversation(db, llm):
    """The fast tier of 8.F1: the same invariants on 50 turns."""
    cid, rows, requests, elapsed = run_sessions(db, llm, 10, 5, max_delay=0.050)
    check(rows, requests, 10, 5, 10)


def test_8_sessions_10_turns_short_window(db, llm):
    """A quicker variant with conversation_length 3: the window stays complete pairs."""
    cid, rows, requests, elapsed = run_sessions(db, llm, 8, 10, length=3)
    check(rows, requests, 8, 10, 3)


def test_drop_during_another_sessions_call_leaves_no_orphans(db, llm):
    """The model is called with nothing written: a drop meanwhile wins, the answer is returned."""
    owner = db.connect("alice")
    make_profile(owner, llm)
    cid = owner.execute("select dbms_cloud_ai.create_conversation('{\"title\": \"Doomed\"}')").fetchone()[0]
    params = json.dumps({"conversation_id": cid})
    llm.responder = lambda wire, body: Answer("first answer")
    owner.execute("select dbms_cloud_ai.generate('first', 'P', 'chat', params => %s)", (params,))

    caller = db.connect("alice")
    notices: list[str] = []
    caller.add_notice_handler(lambda diag: notices.append(diag.message_primary))
    in_call, dropped = threading.Event(), threading.Event()

    def slow(wire, body):   # answers only once the drop is done, however slow the machine
        in_call.set()
        dropped.wait(30)
        return Answer("late answer")
    llm.responder = slow
    out: dict = {}

    def call():
        try:
            out["answer"] = caller.execute("select dbms_cloud_ai.generate('second', 'P', 'chat', params => %s)",
                                           (params,)).fetchone()[0]
        except BaseException as e:
            out["error"] = e
    t = threading.Thread(target=call)
    t.start()
    assert in_call.wait(30)
    owner.execute("select dbms_cloud_ai.drop_conversation(%s)", (cid,))  # not blocked by the call
    dropped.set()
    t.join(30)
    assert "error" not in out, out.get("error")
    assert out["answer"] == "late answer"
    assert any("no longer exists" in n for n in notices), notices
    orphans = db.admin.execute("select count(*) from dbms_cloud_ai._conversation_prompt "
                               "where conversation_id = %s::uuid", (cid,)).fetchone()[0]
    assert orphans == 0


def test_concurrent_first_turns_name_an_untitled_conversation_once(db, llm):
    """Several sessions start an untitled conversation at once: one naming call, not one each."""
    owner = db.connect("alice")
    make_profile(owner, llm)
    cid = owner.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    params = json.dumps({"conversation_id": cid})

    def respond(wire, body):
        system = body["messages"][0]
        if system["role"] == "system" and "name conversations" in system["content"]:
            return Answer('{"title": "Customer Count", "description": "Counting customers."}')
        return Answer(answer_for(body["messages"][-1]["content"]), delay=0.3)
    llm.responder = respond

    sessions = 6
    conns = [db.connect("alice") for _ in range(sessions)]
    errors = together(lambda s, conn: conn.execute(
        "select dbms_cloud_ai.generate(%s, 'P', 'chat', params => %s)", (f"first question {s}", params)),
        conns, timeout=60)
    assert not errors, errors[:1]
    naming = [r for r in llm.requests if "name conversations" in r.json["messages"][0]["content"]]
    assert len(llm.requests) - len(naming) == sessions
    assert len(naming) == 1, f"{len(naming)} naming calls for one conversation"
    assert owner.execute("select conversation_title, description from dbms_cloud_ai.user_cloud_ai_conversations "
                         "where conversation_id = %s", (cid,)).fetchone() == ("Customer Count", "Counting customers.")
    # Later turns make no naming call.
    n = len(llm.requests)
    owner.execute("select dbms_cloud_ai.generate('later', 'P', 'chat', params => %s)", (params,))
    assert len(llm.requests) == n + 1
