"""Issue 30, class 5: one tenant cannot starve another's memory promotion.

The runner (run_memory_jobs) claims due jobs round-robin by owner, at most
PER_OWNER_BATCH of one owner per batch; each request of a job waits at most
dbms_cloud_ai.memory_job_timeout (the runner's session), not an interactive
call's http_timeout; an owner whose jobs time out is backed off (its jobs wait
2^(n-1) minutes after its n-th consecutive timeout, reset by an extraction
that answers); and a role holds at most its organization's max_pending_jobs
pending jobs (a turn beyond the cap queues nothing and succeeds).
Every test asserts what reached the fake LLM and what the job table holds.
"""

from __future__ import annotations

import time

from memory_helpers import (
    conversation,
    enable,
    is_extraction,
    make_due,
    memory_profile,
    remember_phrases,
    run_jobs,
    say,
    user_messages,
)

PER_OWNER_BATCH = 10      # memory/jobs.py


def ready(db, llm, *conns):
    enable(db)
    for conn in conns:
        memory_profile(conn, llm)
    llm.responder = remember_phrases()


def extraction_owners(llm) -> list[str]:
    """Whose words each extraction request carried, in the order they were sent."""
    out = []
    for r in llm.chat_requests:
        if is_extraction(r.json):
            text = " ".join(m["text"] for m in user_messages(r.json))
            out.append("alice" if "alice" in text else "bob" if "bob" in text else "?")
    return out


def slow_for(owner: str, seconds: float):
    """An extractor that answers ``owner``'s extractions after ``seconds``."""
    base = remember_phrases()

    def respond(wire, body):
        answer = base(wire, body)
        if is_extraction(body) and any(owner in m["text"] for m in user_messages(body)):
            answer.delay = seconds
        return answer
    return respond


def queue(conn, who: str, n: int) -> list[str]:
    cids = []
    for i in range(n):
        cid = conversation(conn, f"{who}{i}")
        say(conn, f"remember: {who} fact {i}", cid)
        cids.append(cid)
    return cids


def job_rows(db, owner: str) -> list[dict]:
    cur = db.admin.execute("select status, reason, timeouts, due_at, timed_out_at from "
                           "dbms_cloud_ai._memory_job where owner = %s order by created", (owner,))
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def due_order(db, alice_first_by: str):
    """Every pending job due now, alice's all earlier than bob's (and first in
    the table: bob's rows are written last)."""
    make_due(db)
    db.admin.execute("update dbms_cloud_ai._memory_job set due_at = now() - %s::interval "
                     "where owner = 'alice' and status = 'pending'", (alice_first_by,))
    db.admin.execute("update dbms_cloud_ai._memory_job set due_at = now() "
                     "where owner <> 'alice' and status = 'pending'")


# --- fair claiming --------------------------------------------------------------

def test_claiming_is_round_robin_by_owner(db, alice, bob, llm):
    ready(db, llm, alice, bob)
    queue(alice, "alice", 5)
    queue(bob, "bob", 2)
    due_order(db, "1 hour")          # by due time alone alice's five would all go first
    assert run_jobs(db) == 7
    order = extraction_owners(llm)
    assert len(order) == 7
    assert order[:4].count("bob") == 2, f"bob's jobs wait behind alice's backlog: {order}"


def test_a_batch_takes_at_most_per_owner_batch_jobs_of_one_owner(db, alice, bob, llm):
    ready(db, llm, alice, bob)
    queue(alice, "alice", PER_OWNER_BATCH + 2)
    queue(bob, "bob", 1)
    due_order(db, "1 hour")
    assert db.admin.execute("call dbms_cloud_ai.run_memory_jobs(100, 1)").fetchone()[0] \
        == PER_OWNER_BATCH + 1
    assert extraction_owners(llm).count("alice") == PER_OWNER_BATCH
    assert "bob" in extraction_owners(llm)
    # A short batch does not end the run: the rest of the backlog is taken too.
    assert run_jobs(db) == 2
    assert {j["status"] for j in job_rows(db, "alice")} == {"done"}


# --- a short deadline for background jobs ---------------------------------------

def test_a_memory_job_request_waits_memory_job_timeout_not_http_timeout(db, alice, bob, llm):
    ready(db, llm, alice, bob)
    llm.responder = slow_for("alice", 4.0)
    queue(alice, "alice", 1)
    queue(bob, "bob", 1)
    due_order(db, "1 hour")
    db.admin.execute("set dbms_cloud_ai.memory_job_timeout = '1s'")
    started = time.monotonic()
    assert run_jobs(db) == 2
    took = time.monotonic() - started
    assert took < 3.5, f"alice's slow model held the runner {took:.1f}s"
    [a] = job_rows(db, "alice")
    assert (a["status"], a["reason"], a["timeouts"]) == ("pending", "provider_error: LL001", 1)
    [b] = job_rows(db, "bob")
    assert (b["status"], b["reason"]) == ("done", "stored")


def test_an_interactive_call_keeps_http_timeout(db, alice, llm):
    """The short deadline is the runner's: the same slow model answers a chat
    call of a session that set memory_job_timeout."""
    ready(db, llm, alice)
    llm.responder = slow_for("alice", 1.5)
    alice.execute("set dbms_cloud_ai.memory_job_timeout = '500ms'")
    cid = conversation(alice, "interactive")
    assert say(alice, "hello alice", cid).startswith("ok")


# --- back-off -------------------------------------------------------------------

def test_an_owner_whose_jobs_time_out_is_backed_off_and_reset_on_success(db, alice, bob, llm):
    ready(db, llm, alice, bob)
    llm.responder = slow_for("alice", 3.0)
    queue(alice, "alice", 3)
    queue(bob, "bob", 1)
    due_order(db, "1 hour")
    db.admin.execute("set dbms_cloud_ai.memory_job_timeout = '500ms'")
    assert run_jobs(db) == 4
    # One of alice's requests timed out; her other two jobs of that batch were
    # not sent (back-off), bob's was.
    assert extraction_owners(llm).count("alice") == 1
    assert extraction_owners(llm).count("bob") == 1
    rows = job_rows(db, "alice")
    assert sorted(r["reason"] for r in rows) == ["owner_backoff", "owner_backoff",
                                                 "provider_error: LL001"]
    assert {r["status"] for r in rows} == {"pending"}
    # Due again now: still not claimed while the back-off lasts (1 minute after one timeout).
    make_due(db)
    assert run_jobs(db) == 0
    assert extraction_owners(llm).count("alice") == 1
    # The back-off grows with consecutive timeouts: after two, 90 s is not enough ...
    db.admin.execute("update dbms_cloud_ai._memory_job set timed_out_at = now() - interval '90 s' "
                     "where owner = 'alice' and timeouts > 0")
    db.admin.execute("update dbms_cloud_ai._memory_job set timeouts = 2 "
                     "where owner = 'alice' and timeouts > 0")
    assert run_jobs(db) == 0
    # ... after one it is.  Her model answers now: her jobs run, her count is reset.
    db.admin.execute("update dbms_cloud_ai._memory_job set timeouts = 1 "
                     "where owner = 'alice' and timeouts > 0")
    llm.responder = remember_phrases()
    assert run_jobs(db) == 3
    rows = job_rows(db, "alice")
    assert {(r["status"], r["reason"], r["timeouts"]) for r in rows} == {("done", "stored", 0)}


# --- a cap on pending jobs ------------------------------------------------------

def test_pending_jobs_per_role_are_capped_and_a_turn_beyond_it_still_succeeds(db, alice, bob, llm):
    ready(db, llm, alice, bob)
    db.admin.execute("select dbms_cloud_ai.set_memory_attribute('max_pending_jobs', '2')")
    cids = []
    for i in range(3):
        cid = conversation(alice, f"a{i}")
        assert say(alice, f"remember: alice fact {i}", cid).startswith("ok")   # never an error
        cids.append(cid)
    queued = [r[0] for r in db.admin.execute(
        "select conversation_id::text from dbms_cloud_ai._memory_job where owner = 'alice' "
        "order by created")]
    assert queued == [c.lower() for c in cids[:2]], "the third conversation is not queued beyond the cap"
    # A conversation already queued is rescheduled by its next turn (the oldest are kept).
    before = db.admin.execute("select due_at from dbms_cloud_ai._memory_job "
                              "where conversation_id = %s", (cids[0],)).fetchone()[0]
    say(alice, "remember: alice again", cids[0])
    after = db.admin.execute("select due_at from dbms_cloud_ai._memory_job "
                             "where conversation_id = %s", (cids[0],)).fetchone()[0]
    assert after > before
    # Another role is not affected by alice's cap.
    bob_cid = conversation(bob, "b")
    say(bob, "remember: bob fact", bob_cid)
    assert db.admin.execute("select count(*) from dbms_cloud_ai._memory_job "
                            "where owner = 'bob'").fetchone()[0] == 1
    # Once her jobs ran there is room: the next turn of the third conversation
    # queues it, and its job reads the prompts it missed.
    make_due(db)
    assert run_jobs(db) == 3
    say(alice, "remember: alice later", cids[2])
    make_due(db)
    assert run_jobs(db) == 1
    [ex] = [r for r in llm.chat_requests if is_extraction(r.json)
            and "alice later" in str(user_messages(r.json))]
    assert [m["text"] for m in user_messages(ex.json)] == ["remember: alice fact 2",
                                                           "remember: alice later"]
    shown = db.admin.execute("select max_pending_jobs from dbms_cloud_ai.dba_cloud_ai_memory_settings"
                             ).fetchone()[0]
    assert shown == 2
