"""Long-term memory: inspection, deletion and erasure (issue 6).

An administrator finds a subject's memories with their provenance, and erases
one memory or all of a subject's: the memory, the prompts it came from and the
answers and summaries that used it, the subject's pending jobs; an audit row
records that it happened, never what.  Erasure is checked with a marker scan:
a unique string stated by the user is followed into every copy the extension
makes (the memory, its full-text vector, the source prompt, an answer that
echoed it after recall or after the search_memories tool, a condensed-history
summary), and after the erasure every text-like column of every table of the
extension's schemas is searched for it.

The fake model (``Echo``) answers extraction requests like
``memory_helpers.remember_phrases``, summary requests with the exchanges it is
asked to fold, calls ``search_memories`` whenever it is offered and has no
result yet, and answers with the question, the recalled facts and the tool
results, so every piece of memory a turn used ends up in the recorded answer.
"""

from __future__ import annotations

import hashlib
import json
import threading
import uuid

import memory_helpers as mh
import pytest
from fake_llm import Answer, ToolCalls, last_user_text, offered_tools, tool_results
from helpers import case, raises
from security.test_erasure_markers import scan, scanned_columns  # the catalog-driven marker scan

RECALL_HEADER = "Facts this user stated in earlier conversations."
SUMMARY_SYSTEM = "You keep a running summary of a conversation"


# --- the fake model ----------------------------------------------------------------------

def is_summary(body) -> bool:
    msgs = body.get("messages") or []
    return bool(msgs) and msgs[0].get("role") == "system" \
        and str(msgs[0].get("content", "")).startswith(SUMMARY_SYSTEM)


def recalled(body) -> list[str]:
    """The recall section a request carries (the first turn's system message)."""
    return [m["content"] for m in body.get("messages") or []
            if m.get("role") == "system" and isinstance(m.get("content"), str)
            and m["content"].startswith(RECALL_HEADER)]


def found_memories(wire, body) -> list[str]:
    """The facts the search_memories results in a request carry."""
    out = []
    for r in tool_results(wire, body):
        out += [m["fact"] for m in json.loads(r["content"]).get("memories", [])]
    return out


def echo(wire, body):
    if mh.is_extraction(body):
        return mh.remember_phrases()(wire, body)
    if is_summary(body):
        return Answer("SUMMARY " + body["messages"][1]["content"])
    if "search_memories" in offered_tools(wire, body) and not tool_results(wire, body):
        return ToolCalls([{"name": "search_memories",
                           "arguments": {"query": last_user_text(wire, body)}}])
    parts = ["ok: " + last_user_text(wire, body)]
    parts += ["recalled: " + r for r in recalled(body)]
    parts += ["found: " + r["content"] for r in tool_results(wire, body)]
    return Answer(" | ".join(parts))


@pytest.fixture(autouse=True)
def fake(llm):
    llm.responder = echo
    yield llm


# --- helpers -----------------------------------------------------------------------------

def new_marker() -> str:
    return "ERASE" + uuid.uuid4().hex


def dba_memories(conn, subject=None) -> list[dict]:
    cur = conn.execute(
        "select * from dbms_cloud_ai.dba_cloud_ai_memories "
        "where %(s)s::text is null or subject = %(s)s order by created, memory_id", {"s": subject})
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def count(db, sql, *args) -> int:
    return db.admin.execute(sql, args).fetchone()[0]


def rows_of(db, subject) -> dict:
    """What is stored for a subject (superuser: everything, whoever owns it)."""
    return {
        "memories": count(db, "select count(*) from dbms_cloud_ai._memory where subject = %s", subject),
        "jobs": count(db, "select count(*) from dbms_cloud_ai._memory_job where subject = %s", subject),
        "prompts": count(db, "select count(*) from dbms_cloud_ai._conversation_prompt "
                             "where subject = %s", subject),
        "summaries": count(db, """
            select count(*) from dbms_cloud_ai._conversation_summary s
             where s.summary is not null and exists (
                   select from dbms_cloud_ai._conversation_prompt p
                    where p.conversation_id = s.conversation_id and p.subject = %s)""", subject),
    }


def prompt_id_of(conn, conversation_id, prompt) -> str:
    return conn.execute(
        "select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where conversation_id = %s and prompt = %s", (conversation_id, prompt)).fetchone()[0]


def erasures(conn) -> list[dict]:
    cur = conn.execute("select * from dbms_cloud_ai.dba_cloud_ai_memory_erasures order by erased")
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def erase(conn, subject, organization=None, memory_id=None) -> int:
    return conn.execute("select dbms_cloud_ai.erase_memories(%s, %s, %s)",
                        (subject, organization, memory_id)).fetchone()[0]


def state_and_promote(db, conn, llm, fact_text, title="source", profile="P"):
    """A conversation where the user asks to remember ``fact_text``; promoted."""
    cid = mh.conversation(conn, title)
    mh.say(conn, f"please remember: {fact_text}", cid, profile)
    mh.promote(db)
    return cid


def dbname(db) -> str:
    return db.admin.execute("select current_database()::text").fetchone()[0]


# --- inspection --------------------------------------------------------------------------

def test_admin_finds_a_subjects_memories_with_their_provenance(db, alice, bob, fake):
    mh.enable(db)
    mh.memory_profile(alice, fake)
    mh.memory_profile(bob, fake)
    cid = mh.conversation(alice, "a")
    mh.say(alice, "hello", cid)
    mh.say(alice, "please remember: I prefer metric units", cid)
    mh.say(alice, "please remember: my team is Payments", cid)
    state_and_promote(db, bob, fake, "I am on call on Fridays")
    mh.promote(db)

    admin = db.connect("ai_admin")
    rows = sorted(dba_memories(admin, "alice"), key=lambda r: r["fact"])
    assert [r["fact"] for r in rows] == ["I prefer metric units", "my team is Payments"]
    org = dbname(db)
    for r, said in zip(rows, ("please remember: I prefer metric units",
                              "please remember: my team is Payments")):
        with case(r["fact"]):
            assert r["organization"] == org
            assert r["subject"] == "alice" and r["owner"] == "alice"
            assert r["conversation_id"] == cid.upper()
            assert r["conversation_prompt_id"] == prompt_id_of(alice, cid, said).upper()
            assert r["created"] is not None
            uuid.UUID(r["memory_id"])
    # What the user sees of their own is the same memories.
    assert {r[0] for r in alice.execute(
        "select memory_id from dbms_cloud_ai.user_cloud_ai_memories")} == {r["memory_id"] for r in rows}
    # Every subject, by subject: bob's are his, not alice's.
    assert [r["fact"] for r in dba_memories(admin, "bob")] == ["I am on call on Fridays"]
    assert {r["subject"] for r in dba_memories(admin)} == {"alice", "bob"}
    jobs = admin.execute("select subject, owner, status from dbms_cloud_ai.dba_cloud_ai_memory_jobs "
                         "order by subject").fetchall()
    assert jobs == [("alice", "alice", "done"), ("bob", "bob", "done")]


DBA_VIEWS = ("dba_cloud_ai_memories", "dba_cloud_ai_memory_jobs", "dba_cloud_ai_memory_erasures",
             "dba_cloud_ai_memory_settings", "dba_cloud_ai_memory_roles")


def test_ordinary_users_cannot_read_the_dba_views(db, alice):
    mh.enable(db)
    admin = db.connect("ai_admin")
    for view in DBA_VIEWS:
        with case(view):
            with raises("42501"):
                alice.execute(f"select * from dbms_cloud_ai.{view}")
            # An administrator can.
            admin.execute(f"select * from dbms_cloud_ai.{view}").fetchall()


# --- subject erasure: the marker scan ----------------------------------------------------

def _seed(db, conn, fake, marker, who):
    """``who`` states the marker, it is promoted, then recalled (first turn),
    summarised, and found by the tool (second turn) in a later conversation."""
    source = mh.conversation(conn, f"{who} source")
    said = f"please remember: my code word is {marker}"
    mh.say(conn, said, source)
    mh.say(conn, "thanks", source)
    mh.say(conn, "bye", source)            # the first turn falls out (length 1): summarised
    mh.promote(db)
    later = mh.conversation(conn, f"{who} later")
    first = mh.say(conn, "what is my code word", later)
    assert marker in first                 # recalled, and echoed into the answer
    second = mh.say(conn, "tell me my code word again", later)
    assert marker in second                # found by search_memories
    mh.say(conn, "fine", later)            # the first turn falls out: summarised
    return source, later


def test_subject_erasure_leaves_no_trace_of_the_subjects_facts(db, alice, bob, fake):
    mh.enable(db)
    for conn in (alice, bob):
        mh.memory_profile(conn, fake, summarize_history=True, conversation_length=1)
    ma, mb = new_marker(), new_marker()
    _seed(db, bob, fake, mb, "bob")
    a_source, a_later = _seed(db, alice, fake, ma, "alice")
    # The requests really carried alice's marker in every way memory uses it.
    bodies = [(r.wire, r.json) for r in fake.chat_requests]
    assert any(ma in t for w, b in bodies for t in recalled(b))
    assert any(ma in f for w, b in bodies for f in found_memories(w, b))
    assert any(is_summary(b) and ma in b["messages"][1]["content"] for w, b in bodies)

    # The scan reads the tables that hold copies (a scan that cannot see them proves nothing).
    cols = {(f"{s}.{t}", c) for s, t, c, _ in scanned_columns(db)}
    for where in [("dbms_cloud_ai._memory", "fact"), ("dbms_cloud_ai._memory", "fact_tsv"),
                  ("dbms_cloud_ai._conversation_prompt", "prompt"),
                  ("dbms_cloud_ai._conversation_prompt", "prompt_response"),
                  ("dbms_cloud_ai._conversation_summary", "summary"),
                  ("dbms_cloud_ai._memory_erasure", "subject_digest"),
                  ("dbms_cloud._credential", "secret")]:
        assert where in cols, where
    before_a, before_b = scan(db, ma), scan(db, mb)
    for hits in (before_a, before_b):
        assert hits.get(("dbms_cloud_ai._memory", "fact")) == 1
        assert hits.get(("dbms_cloud_ai._memory", "fact_tsv")) == 1
        # The stated prompt; its answer (the fake echoes the question) and the
        # answers of the turns that recalled it and found it with the tool ("fine"
        # too: a search that matches nothing returns the newest facts).
        assert hits.get(("dbms_cloud_ai._conversation_prompt", "prompt")) == 1
        assert hits.get(("dbms_cloud_ai._conversation_prompt", "prompt_response")) == 4
        # Both conversations' summaries (the source's, and the later one's).
        assert hits.get(("dbms_cloud_ai._conversation_summary", "summary")) == 2

    admin = db.connect("ai_admin")
    a_jobs = admin.execute("select status from dbms_cloud_ai.dba_cloud_ai_memory_jobs "
                           "where subject = 'alice' order by status").fetchall()
    assert a_jobs == [("done",), ("pending",)]   # the later conversation waits to be promoted
    bob_before = rows_of(db, "bob")
    bob_memories = dba_memories(admin, "bob")

    assert erase(admin, "alice") == 1

    assert scan(db, ma) == {}
    # bob's copies are all still there, every one of them.
    assert scan(db, mb) == before_b
    assert rows_of(db, "bob") == bob_before
    assert dba_memories(admin, "bob") == bob_memories
    # alice's memories and jobs are gone, and so is everything she said where memory
    # was on (a statement not yet promoted must not come back as a memory later);
    # her conversations themselves stay.
    assert rows_of(db, "alice")["memories"] == 0
    assert rows_of(db, "alice")["jobs"] == 0
    assert admin.execute("select count(*) from dbms_cloud_ai.dba_cloud_ai_memory_jobs "
                         "where subject = 'alice'").fetchone()[0] == 0
    for cid in (a_source, a_later):
        assert alice.execute(
            "select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
            "where conversation_id = %s", (cid,)).fetchone()[0] == 0
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversations "
                         "where conversation_id in (%s, %s)", (a_source, a_later)).fetchone()[0] == 2
    assert mh.memories(alice) == []

    # The audit: that it happened, by whom, how much; never what or whose.
    (audit,) = erasures(admin)
    org = dbname(db)
    assert audit["organization"] == org
    assert audit["scope"] == "subject"
    assert audit["actor"] == "ai_admin"
    # The stated prompt, the recalled turn and the tool's turn; both conversations' jobs.
    assert (audit["memories"], audit["prompts"], audit["jobs"]) == (1, 6, 2)   # all 6 of her turns
    assert audit["subject_digest"] != "alice" and "alice" not in audit["subject_digest"]
    assert audit["subject_digest"] == hashlib.sha256(f"{org}\x00alice".encode()).hexdigest()
    assert audit["erased"] is not None
    raw = db.admin.execute("select to_jsonb(e)::text from dbms_cloud_ai._memory_erasure e").fetchone()[0]
    assert ma.lower() not in raw.lower() and "alice" not in raw.lower()


# --- one memory --------------------------------------------------------------------------

def test_erasing_one_memory_keeps_the_subjects_others(db, alice, bob, fake):
    mh.enable(db)
    mh.memory_profile(alice, fake)
    mh.memory_profile(bob, fake)
    gone, kept = new_marker(), new_marker()
    cid = mh.conversation(alice, "two facts")
    mh.say(alice, f"please remember: my badge is {gone}", cid)
    mh.say(alice, f"please remember: my desk is {kept}", cid)
    mh.promote(db)
    later = mh.conversation(alice, "later")
    mh.say(alice, "badge", later)            # recalls both (an answer that used the erased one)
    state_and_promote(db, bob, fake, "I like tea")
    admin = db.connect("ai_admin")
    (target,) = [r["memory_id"] for r in dba_memories(admin, "alice") if gone in r["fact"]]
    jobs_before = rows_of(db, "alice")["jobs"]
    bob_before = rows_of(db, "bob")
    kept_before = scan(db, kept)
    assert kept_before[("dbms_cloud_ai._conversation_prompt", "prompt")] == 1
    # Its own turn's answer, and the later answer that recalled both memories.
    assert kept_before[("dbms_cloud_ai._conversation_prompt", "prompt_response")] == 2

    assert erase(admin, "alice", memory_id=target) == 1

    assert scan(db, gone) == {}
    assert [r["fact"] for r in dba_memories(admin, "alice")] == [f"my desk is {kept}"]
    assert mh.memories(alice) == [f"my desk is {kept}"]
    after = scan(db, kept)
    # The kept memory and the turn it came from are there; only the answer that
    # used both (the erased one too) went.
    assert after == {**kept_before, ("dbms_cloud_ai._conversation_prompt", "prompt_response"): 1}
    # One memory: the subject's jobs are not touched.
    assert rows_of(db, "alice")["jobs"] == jobs_before
    assert rows_of(db, "bob") == bob_before
    (audit,) = erasures(admin)
    assert audit["scope"] == "memory"
    assert (audit["memories"], audit["prompts"], audit["jobs"]) == (1, 2, 0)
    assert audit["actor"] == "ai_admin"
    # The memory id, lower case, with spaces: the same memory, already gone.
    with raises("42704"):
        erase(admin, "alice", memory_id=f" {target.lower()} ")


# --- erasure is immediate ----------------------------------------------------------------

def _recall_and_tool(conn, fake, marker, title):
    """A fresh conversation's first turn (recall) and second turn (tool): what
    each request carried."""
    n = len(fake.requests)
    cid = mh.conversation(conn, title)
    mh.say(conn, "what is my code word", cid)
    first = [r for r in fake.requests[n:] if not mh.is_extraction(r.json)]
    n = len(fake.requests)
    mh.say(conn, "my code word please", cid)
    second = [r for r in fake.requests[n:]]
    return {
        "recalled": [t for r in first for t in recalled(r.json)],
        "first_sent": "".join(r.body.decode() for r in first),
        "tool_offered": any("search_memories" in offered_tools(r.wire, r.json) for r in second),
        "found": [f for r in second for f in found_memories(r.wire, r.json)],
        "tool_ran": any(tool_results(r.wire, r.json) for r in second),
    }


def test_an_erased_memory_is_never_recalled_or_searched_again(db, alice, fake):
    mh.enable(db)
    mh.memory_profile(alice, fake)
    marker = new_marker()
    state_and_promote(db, alice, fake, f"my code word is {marker}")
    before = _recall_and_tool(alice, fake, marker, "before")
    assert any(marker in t for t in before["recalled"])
    assert before["found"] == [f"my code word is {marker}"]

    # In the erasing transaction itself: a turn of alice's sees none of it.
    with db.admin.transaction():
        assert erase(db.admin, "alice") == 1
        db.admin.execute("set local role alice")
        during = _recall_and_tool(db.admin, fake, marker, "during")
    assert during["recalled"] == [] and marker not in during["first_sent"]
    assert during["tool_offered"] and during["tool_ran"] and during["found"] == []

    # And after it committed, in alice's own session.
    after = _recall_and_tool(alice, fake, marker, "after")
    assert after["recalled"] == [] and marker not in after["first_sent"]
    assert after["tool_offered"] and after["tool_ran"] and after["found"] == []


def test_a_deleted_memory_is_never_recalled_or_searched_again(db, alice, fake):
    mh.enable(db)
    mh.memory_profile(alice, fake)
    marker = new_marker()
    state_and_promote(db, alice, fake, f"my code word is {marker}")
    (mid,) = [r[0] for r in alice.execute("select memory_id from dbms_cloud_ai.user_cloud_ai_memories")]
    alice.execute("select dbms_cloud_ai.delete_memory(%s)", (mid,))
    after = _recall_and_tool(alice, fake, marker, "after")
    assert after["recalled"] == [] and marker not in after["first_sent"]
    assert after["tool_ran"] and after["found"] == []


# --- tenant scoping ----------------------------------------------------------------------

def test_an_organizations_admin_cannot_erase_another_organizations_memories(db, alice, bob, fake):
    org = dbname(db)
    mh.enable(db)
    mh.enable(db, "acme")
    db.admin.execute("select dbms_cloud_ai.set_memory_role('bob', 'acme')")
    db.admin.execute("select dbms_cloud_ai.set_memory_role('ai_admin', 'acme')")
    mh.memory_profile(alice, fake)
    mh.memory_profile(bob, fake)
    state_and_promote(db, alice, fake, "I prefer metric units")
    state_and_promote(db, bob, fake, "I like tea")
    assert db.admin.execute("select organization, subject from dbms_cloud_ai._memory "
                            "order by subject").fetchall() == [(org, "alice"), ("acme", "bob")]
    acme_admin = db.connect("ai_admin")
    alice_before = rows_of(db, "alice")
    (mid,) = [r[0] for r in db.admin.execute(
        "select memory_id::text from dbms_cloud_ai._memory where subject = 'alice'")]

    for what, args in [("subject", ("alice", org, None)), ("memory", ("alice", org, mid))]:
        with case(what), raises("42501"):
            erase(acme_admin, *args)
    # Its own organization is acme: alice has nothing there.
    assert erase(acme_admin, "alice") == 0
    assert rows_of(db, "alice") == alice_before
    # It does not see the default organization's memories either.
    assert [r["subject"] for r in dba_memories(acme_admin)] == ["bob"]
    assert [r["organization"] for r in erasures(db.admin)] == ["acme"]

    # In its own organization it erases.
    assert erase(acme_admin, "bob") == 1
    assert rows_of(db, "bob")["memories"] == 0


def test_a_database_wide_admin_erases_in_every_organization(db, alice, bob, fake):
    org = dbname(db)
    mh.enable(db)
    mh.enable(db, "acme")
    db.admin.execute("select dbms_cloud_ai.set_memory_role('bob', 'acme')")
    mh.memory_profile(alice, fake)
    mh.memory_profile(bob, fake)
    state_and_promote(db, alice, fake, "I prefer metric units")
    state_and_promote(db, bob, fake, "I like tea")
    admin = db.connect("ai_admin")      # no organization row: the whole database
    assert {(r["organization"], r["subject"]) for r in dba_memories(admin)} == \
        {(org, "alice"), ("acme", "bob")}
    # bob is no subject of the default organization: nothing there.
    assert erase(admin, "bob") == 0
    assert rows_of(db, "bob")["memories"] == 1
    assert erase(admin, "bob", "acme") == 1
    assert erase(admin, "alice") == 1
    assert count(db, "select count(*) from dbms_cloud_ai._memory") == 0
    assert {(r["organization"], r["memories"]) for r in erasures(admin)} == \
        {(org, 0), ("acme", 1), (org, 1)}


# --- users, arguments --------------------------------------------------------------------

def test_delete_memory_removes_only_that_memory_of_the_subject(db, alice, bob, fake):
    mh.enable(db)
    mh.memory_profile(alice, fake)
    mh.memory_profile(bob, fake)
    cid = mh.conversation(alice, "facts")
    mh.say(alice, "please remember: I prefer metric units", cid)
    mh.say(alice, "please remember: my team is Payments", cid)
    mh.promote(db)
    state_and_promote(db, bob, fake, "I like tea")
    ids = dict(alice.execute("select fact, memory_id from dbms_cloud_ai.user_cloud_ai_memories"))
    (bobs,) = [r[0] for r in bob.execute("select memory_id from dbms_cloud_ai.user_cloud_ai_memories")]
    bob_before = rows_of(db, "bob")

    alice.execute("select dbms_cloud_ai.delete_memory(%s)", (ids["I prefer metric units"],))
    assert mh.memories(alice) == ["my team is Payments"]
    assert rows_of(db, "bob") == bob_before
    # The conversation it came from is the user's to keep.
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                         "where conversation_id = %s", (cid,)).fetchone()[0] == 2
    # Gone, someone else's, not an id, NULL.
    for what, arg, state in [("deleted", ids["I prefer metric units"], "42704"),
                             ("bob's", bobs, "42704"),
                             ("not a uuid", "nope", "22P02"),
                             ("null", None, "22004")]:
        with case(what), raises(state):
            alice.execute("select dbms_cloud_ai.delete_memory(%s)", (arg,))
    assert mh.memories(alice) == ["my team is Payments"]
    assert rows_of(db, "bob") == bob_before
    # Nothing was audited: a user's own deletion is no erasure.
    assert erasures(db.admin) == []


def test_ordinary_users_cannot_erase(db, alice, bob, fake):
    mh.enable(db)
    mh.memory_profile(alice, fake)
    mh.memory_profile(bob, fake)
    state_and_promote(db, alice, fake, "I prefer metric units")
    state_and_promote(db, bob, fake, "I like tea")
    (mid,) = [r[0] for r in alice.execute("select memory_id from dbms_cloud_ai.user_cloud_ai_memories")]
    before = {s: rows_of(db, s) for s in ("alice", "bob")}
    for what, conn, args in [("own subject", alice, ("alice", None, None)),
                             ("own memory", alice, ("alice", None, mid)),
                             ("another subject", alice, ("bob", None, None))]:
        with case(what), raises("42501"):
            erase(conn, *args)
    assert {s: rows_of(db, s) for s in ("alice", "bob")} == before
    assert erasures(db.admin) == []


def test_erase_memories_arguments(db, alice, bob, fake):
    mh.enable(db)
    mh.memory_profile(alice, fake)
    mh.memory_profile(bob, fake)
    state_and_promote(db, alice, fake, "I prefer metric units")
    state_and_promote(db, bob, fake, "I like tea")
    (bobs,) = [r[0] for r in db.admin.execute(
        "select memory_id::text from dbms_cloud_ai._memory where subject = 'bob'")]
    admin = db.connect("ai_admin")
    before = {s: rows_of(db, s) for s in ("alice", "bob")}
    for what, args, state in [
            ("null subject", (None, None, None), "22004"),
            ("null subject with a memory", (None, None, bobs), "22004"),
            ("unknown memory", ("alice", None, str(uuid.uuid4())), "42704"),
            ("another subject's memory", ("alice", None, bobs), "42704"),
            ("not a memory id", ("alice", None, "nope"), "22P02")]:
        with case(what), raises(state):
            erase(admin, *args)
    assert {s: rows_of(db, s) for s in ("alice", "bob")} == before
    assert erasures(admin) == []
    # A subject with nothing stored: nothing erased, and the request is audited.
    assert erase(admin, "nobody") == 0
    (audit,) = erasures(admin)
    assert (audit["scope"], audit["memories"], audit["prompts"], audit["jobs"]) == ("subject", 0, 0, 0)


def test_erasure_keeps_other_visitors_of_a_shared_gateway_conversation(db, fake):
    """A gateway's conversation carries several end users: erasing one removes
    what that one said, never what the others said or what is remembered of them."""
    mh.enable(db)
    db.admin.execute("select dbms_cloud_ai.set_memory_role('carol', identity => 'asserted')")
    carol = db.connect("carol")
    mh.memory_profile(carol, fake)
    v1, v2 = "visitor-" + uuid.uuid4().hex, "visitor-" + uuid.uuid4().hex
    m1, m2 = new_marker(), new_marker()
    cid = mh.conversation(carol, "desk")
    carol.execute("select dbms_cloud_ai.set_end_user(%s)", (v1,))
    mh.say(carol, f"please remember: my ticket is {m1}", cid)
    mh.promote(db)
    carol.execute("select dbms_cloud_ai.set_end_user(%s)", (v2,))
    mh.say(carol, f"please remember: my ticket is {m2}", cid)
    mh.promote(db)
    admin = db.connect("ai_admin")
    assert [r["fact"] for r in dba_memories(admin, v1)] == [f"my ticket is {m1}"]
    assert [r["fact"] for r in dba_memories(admin, v2)] == [f"my ticket is {m2}"]
    v2_before, m2_before = rows_of(db, v2), scan(db, m2)

    assert erase(admin, v1) == 1

    assert scan(db, m1) == {}
    assert scan(db, m2) == m2_before
    assert rows_of(db, v2) == v2_before
    assert [p for (p,) in carol.execute(
        "select prompt from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where conversation_id = %s", (cid,))] == [f"please remember: my ticket is {m2}"]
    (audit,) = erasures(admin)
    raw = db.admin.execute("select to_jsonb(e)::text from dbms_cloud_ai._memory_erasure e").fetchone()[0]
    assert v1 not in raw and m1.lower() not in raw.lower()
    assert audit["subject_digest"] == hashlib.sha256(f"{dbname(db)}\x00{v1}".encode()).hexdigest()


# --- copies an erasure once left behind, or facts it once let come back ------------------

def test_erasure_covers_erasure_leaves_the_nl2sql_statement_log_of_the_source_turn(db, alice, fake):
    """Once a gap: a fact stated in an NL2SQL turn (showsql) of a memory conversation:
    erase() deletes the prompt but not its row in _sql_statement (prompt and
    sql_text = 'select ai showsql <prompt>'), which keeps the fact's words."""
    mh.enable(db)
    mh.memory_profile(alice, fake)
    alice.execute("create table alice.items (id int primary key, name text)")
    marker = new_marker()
    cid = mh.conversation(alice, "nl2sql")
    fake.script(Answer("SELECT i.name FROM alice.items i"))
    mh.say(alice, f"please remember: my code word is {marker}", cid, action="showsql")
    mh.promote(db)
    assert mh.memories(alice) == [f"my code word is {marker}"]
    assert ("dbms_cloud_ai._sql_statement", "prompt") in scan(db, marker)
    assert erase(db.connect("ai_admin"), "alice") == 1
    assert scan(db, marker) == {}


def test_erasure_covers_erasure_leaves_the_title_named_from_the_source_turn(db, alice, fake):
    """Once a gap: an untitled conversation is named by the model from its first
    question and answer; when that question is the erased fact's source, the
    conversation's title and description made from it survive the erasure."""
    def namer(wire, body):
        msgs = body.get("messages") or []
        if msgs and str(msgs[-1].get("content", "")).startswith("First question:\n"):
            question = msgs[-1]["content"].split("\n")[1]
            return Answer(json.dumps({"title": question[-60:], "description": question}))
        return echo(wire, body)
    fake.responder = namer
    mh.enable(db)
    mh.memory_profile(alice, fake)
    marker = new_marker()
    cid = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    mh.say(alice, f"please remember: my code word is {marker}", cid)
    mh.promote(db)
    assert ("dbms_cloud_ai._conversation", "title") in scan(db, marker)
    assert erase(db.connect("ai_admin"), "alice") == 1
    assert scan(db, marker) == {}


def test_erasure_covers_a_duplicate_statement_of_an_erased_fact_survives(db, alice, fake):
    """Once a gap: the same fact stated in two conversations promoted together: the
    second is dropped as a duplicate, its prompt is no recorded source of the
    memory, and erasing the memory leaves that prompt (the fact's words)."""
    mh.enable(db)
    mh.memory_profile(alice, fake)
    marker = new_marker()
    for title in ("a", "b"):
        mh.say(alice, f"please remember: my code word is {marker}", mh.conversation(alice, title))
    mh.promote(db)
    assert sorted(j["reason"] for j in mh.jobs(alice)) == ["duplicates", "stored"]
    (mid,) = [r[0] for r in alice.execute("select memory_id from dbms_cloud_ai.user_cloud_ai_memories")]
    assert erase(db.connect("ai_admin"), "alice", memory_id=mid) == 1
    assert scan(db, marker) == {}


def test_erasure_covers_a_statement_awaiting_promotion_is_remembered_after_subject_erasure(db, alice, fake):
    """Once a gap: subject erasure deletes the subject's pending job, but not what it
    would have read: the next turn of that conversation enqueues a new job that
    starts from the first prompt again, and the fact stated before the erasure
    becomes a memory after it."""
    mh.enable(db)
    mh.memory_profile(alice, fake)
    marker = new_marker()
    cid = mh.conversation(alice, "a")
    mh.say(alice, f"please remember: my code word is {marker}", cid)
    assert [j["status"] for j in mh.jobs(alice)] == ["pending"]
    erase(db.connect("ai_admin"), "alice")
    assert mh.jobs(alice) == []
    mh.say(alice, "hello", cid)
    mh.promote(db)
    assert mh.memories(alice) == []


def test_erasure_covers_an_extraction_running_during_the_erasure_stores_the_fact_after_it(db, alice, fake):
    """Once a gap: a job that read the subject's prompts before the erasure and gets
    its extraction after it stores the facts anyway: store() takes the
    subject's advisory lock but does not check that its job (deleted by the
    erasure) or the cited prompts still exist."""
    inside, gate = threading.Event(), threading.Event()

    def slow(wire, body):
        if mh.is_extraction(body):
            inside.set()
            gate.wait(20)
        return echo(wire, body)
    fake.responder = slow
    mh.enable(db)
    mh.memory_profile(alice, fake)
    marker = new_marker()
    cid = mh.conversation(alice, "a")
    mh.say(alice, f"please remember: my code word is {marker}", cid)
    mh.make_due(db)
    runner = db.connect("postgres")
    done = {}
    th = threading.Thread(target=lambda: done.setdefault("n", runner.execute(
        "call dbms_cloud_ai.run_memory_jobs(10)").fetchone()[0]))
    th.start()
    try:
        assert inside.wait(10), "the extraction request never came"
        erase(db.connect("ai_admin"), "alice")
    finally:
        gate.set()
        th.join(30)
    assert done.get("n") == 1
    assert rows_of(db, "alice")["memories"] == 0
    assert ("dbms_cloud_ai._memory", "fact") not in scan(db, marker)
