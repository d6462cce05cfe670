"""Long-term memory, promotion: idle named conversations become memories.

One debounced job per conversation; the runner (run_memory_jobs) runs each due
job as its owner, stops it on the first of four checks that fails (the
organization's switch, a subject, a model, the daily budget), asks the
profile's model (memory_model when set) to extract facts, keeps only facts
that cite a user message of this conversation and quote its words, and writes
them with duplicates dropped and the subject's cap enforced in the same
transaction.  Every test looks at what reached the fake LLM and what the
catalog holds afterwards.
"""

from __future__ import annotations

import datetime as dt
import json
import threading

from fake_llm import Answer, Raw
from helpers import case, make_profile
from memory_helpers import (
    conversation,
    conversation_of,
    enable,
    fact,
    facts_reply,
    is_extraction,
    jobs,
    make_due,
    memories,
    memory_profile,
    promote,
    remember_phrases,
    run_jobs,
    say,
    user_messages,
)

# --- local helpers ----------------------------------------------------------------

def extractions(llm) -> list:
    """The extraction requests the fake received, in order."""
    return [r for r in llm.chat_requests if is_extraction(r.json)]


def respond(extract=None, chat=None):
    """A responder: extraction requests get ``extract(body)`` (default: no facts),
    chat requests ``chat(body)`` (default: a fixed answer)."""
    def responder(wire, body):
        if is_extraction(body):
            return extract(body) if extract else facts_reply([])
        return Answer(chat(body) if chat else "noted")
    return responder


def job_of(conn, cid) -> dict:
    rows = [j for j in jobs(conn) if j["conversation_id"].lower() == cid.lower()]
    assert len(rows) == 1, rows
    return rows[0]


def all_jobs(db) -> list[dict]:
    cur = db.admin.execute("select * from dbms_cloud_ai._memory_job order by created")
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def stored_count(db) -> int:
    return db.admin.execute("select count(*) from dbms_cloud_ai._memory").fetchone()[0]


def prompts_of(conn, cid) -> list[dict]:
    """The conversation's recorded prompts, oldest first."""
    cur = conn.execute(
        "select lower(conversation_prompt_id) as id, prompt, prompt_response, created "
        "from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where conversation_id = upper(%s) order by created", (cid,))
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def memory_calls(conn) -> list[dict]:
    cur = conn.execute("select * from dbms_cloud_ai.user_cloud_ai_calls "
                       "where purpose = 'memory' order by created")
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def ready(db, conn, llm, **profile_attrs):
    """Memory on in the database's organization, a memory profile for ``conn``'s
    role, and an extractor that remembers ``remember: X`` phrases."""
    enable(db)
    memory_profile(conn, llm, **profile_attrs)
    llm.responder = remember_phrases()


# --- debounce -------------------------------------------------------------------

def test_debounce_one_job_due_idle_minutes_after_the_last_message(db, alice, llm):
    ready(db, alice, llm)
    db.admin.execute("select dbms_cloud_ai.set_memory_attribute('idle_minutes', '10')")
    cid = conversation(alice)
    said = ["remember: I prefer tea", "remember: my name is Alice", "what time is it?"]
    dues = []
    for text in said:
        say(alice, text, cid)
        rows = jobs(alice)
        assert len(rows) == 1, "three messages of one conversation share one job"
        assert rows[0]["status"] == "pending"
        last = prompts_of(alice, cid)[-1]
        assert last["prompt"] == text
        assert abs(rows[0]["due_at"] - (last["created"] + dt.timedelta(minutes=10))) \
            < dt.timedelta(seconds=2), "due idle_minutes after this (the latest) message"
        dues.append(rows[0]["due_at"])
    assert dues[0] < dues[1] < dues[2], "each message pushes the job out"
    assert len(all_jobs(db)) == 1

    assert run_jobs(db) == 0, "not due yet: nothing processed"
    assert extractions(llm) == []
    assert job_of(alice, cid)["status"] == "pending"

    make_due(db)
    assert run_jobs(db) == 1
    ex = extractions(llm)
    assert len(ex) == 1
    assert [m["text"] for m in user_messages(ex[0].json)] == said
    job = job_of(alice, cid)
    assert (job["status"], job["reason"], job["facts_stored"]) == ("done", "stored", 2)
    assert sorted(memories(alice)) == ["I prefer tea", "my name is Alice"]

    assert run_jobs(db) == 0, "a finished job does not run again"
    make_due(db)
    assert run_jobs(db) == 0
    assert len(extractions(llm)) == 1

    with case("idle_minutes 0: due at once"):
        db.admin.execute("select dbms_cloud_ai.set_memory_attribute('idle_minutes', '0')")
        cid = conversation(alice, "now")
        say(alice, "remember: I live in Lyon", cid)
        assert run_jobs(db) == 1
        assert len(extractions(llm)) == 2
        assert "I live in Lyon" in memories(alice)


# --- the four checks --------------------------------------------------------------
# Each test runs its cases one after another on one database: a case's job ends
# (stopped) before the next case starts, so a later run never takes it again.

def _stopped(db, llm, conn, cid, reason):
    """The job stopped with ``reason`` (a prefix for no_model), sent nothing, stored nothing."""
    job = job_of(conn, cid)
    assert job["status"] == "stopped", job
    assert job["reason"] is not None and job["reason"].startswith(reason), job["reason"]
    assert extractions(llm) == [], "a stopped job sends no extraction request"
    assert stored_count(db) == 0
    return job


def test_organization_switch_off_stops(db, alice, llm):
    memory_profile(alice, llm)
    llm.responder = remember_phrases()
    with case("never enabled"):
        cid = conversation(alice, "never")
        say(alice, "remember: I prefer tea", cid)
        assert job_of(alice, cid)["status"] == "pending", "queued even while off"
        promote(db)
        assert _stopped(db, llm, alice, cid, "organization_disabled")["reason"] == \
            "organization_disabled"
    for name, switch_off in (
            ("disable_memory", "select dbms_cloud_ai.disable_memory()"),
            ("enabled attribute", "select dbms_cloud_ai.set_memory_attribute('enabled', 'false')")):
        with case(f"enabled, then {name}"):
            enable(db)
            cid = conversation(alice, name)
            say(alice, "remember: I prefer tea", cid)
            db.admin.execute(switch_off)
            promote(db)
            assert _stopped(db, llm, alice, cid, "organization_disabled")["reason"] == \
                "organization_disabled"
    with case("enabled (control)"):
        enable(db)
        cid = conversation(alice, "on")
        say(alice, "remember: I prefer tea", cid)
        promote(db)
        assert (job_of(alice, cid)["reason"], memories(alice)) == ("stored", ["I prefer tea"])


def test_no_subject_stops(db, alice, llm):
    ready(db, alice, llm)
    for identity in ("anonymous", "asserted"):       # asserted: a gateway that vouched for nobody
        with case(identity):
            db.admin.execute("select dbms_cloud_ai.set_memory_role('alice', identity => %s)",
                             (identity,))
            cid = conversation(alice, identity)
            say(alice, "remember: I prefer tea", cid)
            assert job_of(alice, cid)["subject"] is None
            promote(db)
            assert _stopped(db, llm, alice, cid, "anonymous")["reason"] == "anonymous"
    with case("the gateway vouches for a visitor (control)"):
        alice.execute("select dbms_cloud_ai.set_end_user('visitor-7')")
        cid = conversation(alice, "visitor")
        say(alice, "remember: I prefer tea", cid)
        promote(db)
        job = job_of(alice, cid)
        assert (job["subject"], job["status"], job["reason"]) == ("visitor-7", "done", "stored")
        assert db.admin.execute("select subject, owner, fact from "
                                "dbms_cloud_ai.dba_cloud_ai_memories").fetchall() == \
            [("visitor-7", "alice", "I prefer tea")]


def test_no_model_stops(db, alice, llm):
    """The profile dropped, its credential dropped, or long_term_memory switched off
    on it between the conversation and the run."""
    enable(db)
    llm.responder = remember_phrases()
    breakers = {"DROPPED": "select dbms_cloud_ai.drop_profile('DROPPED')",
                "NOCRED": "select dbms_cloud.drop_credential('CRED_NOCRED')",
                "LTMOFF": "select dbms_cloud_ai.set_attribute('LTMOFF', 'long_term_memory', "
                          "'false')"}
    cids = {}
    for name in breakers:
        memory_profile(alice, llm, name=name, credential=f"CRED_{name}")
        cids[name] = conversation(alice, name)
        say(alice, "remember: I prefer tea", cids[name], profile=name)
    for sql in breakers.values():
        alice.execute(sql)
    assert promote(db) == 3
    for name, cid in cids.items():
        with case(name):
            _stopped(db, llm, alice, cid, "profile_disabled" if name == "LTMOFF" else "no_model")


def test_daily_budget_exhausted_stops(db, alice, llm):
    ready(db, alice, llm)
    with case("another role's budget (control)"):
        db.admin.execute("select dbms_cloud_ai.set_token_budget('bob', 1)")
        cid = conversation(alice, "bob's budget")
        say(alice, "remember: I drink coffee", cid)
        promote(db)
        assert job_of(alice, cid)["reason"] == "stored", "the owner's budget applies, not another's"
    llm.requests.clear()
    db.admin.execute("delete from dbms_cloud_ai._memory")
    with case("the owner's budget"):
        cid = conversation(alice, "alice's budget")
        say(alice, "remember: I prefer tea", cid)
        calls = len(memory_calls(alice))
        db.admin.execute("select dbms_cloud_ai.set_token_budget('alice', 5)")
        llm.requests.clear()
        promote(db)
        assert _stopped(db, llm, alice, cid, "budget_exceeded")["reason"] == "budget_exceeded"
        assert len(memory_calls(alice)) == calls, "refused before any request"


def test_role_moved_to_another_organization_stops(db, alice, llm):
    """The job belongs to the organization the turn was said in; once the owner
    is assigned elsewhere (even to an organization with memory on), that
    organization's switch is not the owner's to use: the job stops."""
    ready(db, alice, llm)
    db.admin.execute("select dbms_cloud_ai.enable_memory('acme')")
    cid = conversation(alice)
    say(alice, "remember: I prefer tea", cid)
    db.admin.execute("select dbms_cloud_ai.set_memory_role('alice', 'acme')")
    promote(db)
    assert _stopped(db, llm, alice, cid, "organization_disabled")["reason"] == \
        "organization_disabled"


def test_role_made_anonymous_before_the_run_is_not_remembered(db, alice, llm):
    """An administrator who sets a role to identity 'anonymous' after it spoke,
    but before its job ran, stops that job: the run reads the owner's identity
    as it is then."""
    ready(db, alice, llm)
    cid = conversation(alice)
    say(alice, "remember: I prefer tea", cid)
    db.admin.execute("select dbms_cloud_ai.set_memory_role('alice', identity => 'anonymous')")
    promote(db)
    _stopped(db, llm, alice, cid, "anonymous")


CHECKS = ("switch", "subject", "model", "budget")
FIRST_REASON = {"switch": "organization_disabled", "subject": "anonymous", "model": "no_model",
                "budget": "budget_exceeded"}


def test_when_several_checks_fail_the_first_in_order_is_the_reason(db, alice, llm):
    cases = [set(CHECKS[i:]) for i in range(len(CHECKS) - 1)] + [
        {"switch", "budget"}, {"switch", "model"}, {"subject", "budget"}, {"model", "budget"}]
    llm.responder = remember_phrases()
    for n, failing in enumerate(cases):
        expected = FIRST_REASON[next(c for c in CHECKS if c in failing)]
        with case(sorted(failing)):
            # a clean state: no role setting, no budget, memory on, a fresh profile
            db.admin.execute("delete from dbms_cloud_ai._memory_role")
            db.admin.execute("delete from dbms_cloud_ai._token_budget")
            enable(db)
            name = f"P{n}"
            memory_profile(alice, llm, name=name, credential=f"C{n}")
            if "subject" in failing:
                db.admin.execute("select dbms_cloud_ai.set_memory_role('alice', "
                                 "identity => 'anonymous')")
            cid = conversation(alice, name)
            say(alice, "remember: I prefer tea", cid, profile=name)
            if "switch" in failing:
                db.admin.execute("select dbms_cloud_ai.disable_memory()")
            if "model" in failing:
                alice.execute("select dbms_cloud_ai.drop_profile(%s)", (name,))
            if "budget" in failing:
                db.admin.execute("select dbms_cloud_ai.set_token_budget('alice', 5)")
            assert promote(db) == 1
            _stopped(db, llm, alice, cid, expected)


# --- extraction rules -------------------------------------------------------------

def test_facts_must_cite_and_quote_a_user_message_of_this_conversation(db, alice, llm):
    ready(db, alice, llm)
    other = conversation(alice, "other")
    say(alice, "I like hiking in the Alps", other)
    other_id = prompts_of(alice, other)[0]["id"]

    cid = conversation(alice)
    llm.responder = respond(chat=lambda body: "Noted. Your badge number is 4711.")
    say(alice, "I prefer tea over coffee", cid)
    say(alice, "and I work at Acme", cid)
    first, second = prompts_of(alice, cid)

    def extract(body):
        # The request names the user's messages by short ids (m1, m2, ...): a small model
        # copies those back, not a UUID.
        ids = {m["text"]: m["id"] for m in user_messages(body)}
        if first["prompt"] not in ids:
            return facts_reply([])      # the other conversation's job
        one, two = ids[first["prompt"]], ids[second["prompt"]]
        return facts_reply([
            fact("prefers tea over coffee", one, "I prefer tea"),                # valid
            fact("works at Acme", two.upper(), "  I WORK at acme "),             # valid, folded
            fact("badge number is 4711", one, "badge number is 4711"),           # assistant said
            fact("badge number is 4711", two, "Your badge number"),              # assistant said
            {"fact": "likes tea", "quote": "I prefer tea"},                      # cites nothing
            fact("likes tea", "", "I prefer tea"),                               # cites nothing
            fact("likes hiking", other_id, "I like hiking"),                    # other conversation
            fact("is vegetarian", one, "I am vegetarian"),                       # never said
            fact("prefers tea", "m9", "I prefer tea"),                           # unknown id
            fact("My name is John Doe", one, "I prefer tea over coffee"),        # not what it says
        ])
    llm.responder = respond(extract=extract, chat=lambda body: "Noted. Your badge number is 4711.")
    promote(db)

    job = job_of(alice, cid)
    assert (job["status"], job["reason"]) == ("done", "stored")
    assert (job["facts_proposed"], job["facts_stored"], job["facts_rejected"]) == (10, 2, 8)
    assert sorted(memories(alice)) == ["prefers tea over coffee", "works at Acme"]
    assert stored_count(db) == 2

    # What the extractor read: this conversation only, the user's messages with
    # their ids, the assistant's answers without one.
    [ex] = [r for r in extractions(llm)
            if first["prompt"] in [m["text"] for m in user_messages(r.json)]]
    convo = conversation_of(ex.json)
    assert [(e.get("id"), e["role"], e["text"]) for e in convo] == [
        ("m1", "user", "I prefer tea over coffee"),
        (None, "assistant", "Noted. Your badge number is 4711."),
        ("m2", "user", "and I work at Acme"),
        (None, "assistant", "Noted. Your badge number is 4711."),
    ]
    assert all("id" not in e for e in convo if e["role"] == "assistant")
    assert "hiking" not in ex.json["messages"][1]["content"]


def test_gateway_extraction_reads_only_the_subjects_messages(db, alice, llm):
    """Two visitors in one gateway conversation: one extraction each, each with
    only that visitor's words, each storing under that visitor only."""
    db.admin.execute("select dbms_cloud_ai.set_memory_role('alice', identity => 'asserted')")
    ready(db, alice, llm)
    cid = conversation(alice)
    alice.execute("select dbms_cloud_ai.set_end_user('visitor-1')")
    say(alice, "remember: visitor one drinks tea", cid)
    alice.execute("select dbms_cloud_ai.set_end_user('visitor-2')")
    say(alice, "remember: visitor two drinks coffee", cid)
    promote(db)
    sent = sorted([m["text"] for m in user_messages(ex.json)] for ex in extractions(llm))
    assert sent == [["remember: visitor one drinks tea"], ["remember: visitor two drinks coffee"]]
    rows = db.admin.execute("select subject, fact from dbms_cloud_ai.dba_cloud_ai_memories "
                            "order by subject").fetchall()
    assert rows == [("visitor-1", "visitor one drinks tea"),
                    ("visitor-2", "visitor two drinks coffee")]


# --- unparseable output -----------------------------------------------------------

UNPARSEABLE = {
    "not JSON": "The user seems to prefer tea.",
    "no facts key": json.dumps({"memories": [{"fact": "prefers tea"}]}),
    "facts not a list": json.dumps({"facts": "prefers tea"}),
    "truncated": None,   # built per request: a valid-looking fact, then cut off
}


def test_unparseable_output_fails_the_job_and_stores_nothing(db, alice, llm):
    ready(db, alice, llm)
    for name, text in UNPARSEABLE.items():
        with case(name):
            def extract(body, text=text):
                if text is not None:
                    return Answer(text)
                m = user_messages(body)[0]
                good = json.dumps({"facts": [fact("prefers tea", m["id"], "I prefer tea")]})
                return Answer(good[:-3])       # '... "quote": "I prefer tea"}' without "]}"
            llm.responder = respond(extract=extract)
            cid = conversation(alice, name)
            say(alice, "I prefer tea", cid)
            promote(db)
            job = job_of(alice, cid)
            assert job["status"] == "failed"
            assert job["reason"].startswith("unparseable_output"), job["reason"]
            assert stored_count(db) == 0
            calls = [c for c in memory_calls(alice) if c["conversation_id"] == cid.upper()]
            assert len(calls) == 1, "the model call is recorded all the same"
            assert (calls[0]["profile_name"], calls[0]["input_tokens"]) == ("P", 11)


def test_failed_extraction_rereads_the_messages_next_time(db, alice, llm):
    """A reply that could not be read does not count the messages as read."""
    ready(db, alice, llm)
    llm.responder = respond(extract=lambda body: Answer("sorry, no JSON today"))
    cid = conversation(alice)
    say(alice, "remember: I prefer tea", cid)
    promote(db)
    assert job_of(alice, cid)["status"] == "failed"
    llm.responder = remember_phrases()
    say(alice, "remember: I live in Lyon", cid)
    assert job_of(alice, cid)["status"] == "pending"
    promote(db)
    assert [m["text"] for m in user_messages(extractions(llm)[-1].json)] == \
        ["remember: I prefer tea", "remember: I live in Lyon"]
    assert sorted(memories(alice)) == ["I live in Lyon", "I prefer tea"]


# --- provider errors --------------------------------------------------------------

def test_server_errors_are_retried_on_later_runs_then_fail(db, alice, llm):
    db.admin.execute("set dbms_cloud_ai.http_max_attempts = 1")   # one request per run
    ready(db, alice, llm)
    failing = conversation(alice, "always 500")
    say(alice, "remember: I prefer tea", failing)
    recovers = conversation(alice, "503 once")
    say(alice, "remember: I live in Lyon", recovers)
    answers = {"tea": [Raw(500, {"error": "boom"})] * 3,
               "Lyon": [Raw(503, {"error": "busy"})]}

    def extract(body):
        said = user_messages(body)[0]["text"]
        queue = answers["tea" if "tea" in said else "Lyon"]
        return queue.pop(0) if queue else remember_phrases()("openai", body)
    llm.responder = respond(extract=extract)
    for attempt in (1, 2):
        with case(f"run {attempt}"):
            promote(db)
            job = job_of(alice, failing)
            assert (job["status"], job["attempts"]) == ("pending", attempt)
            assert "http 500" in job["reason"]
            assert job["due_at"] > db.admin.execute("select now()").fetchone()[0], \
                "retried later, not at once"
            assert run_jobs(db) == 0
            if attempt == 1:
                assert "http 503" in job_of(alice, recovers)["reason"]
    job = job_of(alice, recovers)
    assert (job["status"], job["reason"], job["attempts"]) == ("done", "stored", 2)
    assert memories(alice) == ["I live in Lyon"]
    promote(db)
    job = job_of(alice, failing)
    assert (job["status"], job["attempts"]) == ("failed", 3)
    assert "http 500" in job["reason"]
    assert sum("tea" in json.dumps(r.json) for r in extractions(llm)) == 3
    assert memories(alice) == ["I live in Lyon"]
    make_due(db)
    assert run_jobs(db) == 0, "a failed job is not retried"


def test_client_errors_fail_at_once(db, alice, llm):
    db.admin.execute("set dbms_cloud_ai.http_max_attempts = 1")
    ready(db, alice, llm)
    for status in (401, 400):
        with case(status):
            llm.responder = respond(extract=lambda body, s=status: Raw(s, {"error": "no"}))
            cid = conversation(alice, str(status))
            say(alice, "remember: I prefer tea", cid)
            promote(db)
            job = job_of(alice, cid)
            assert (job["status"], job["attempts"]) == ("failed", 1)
            assert f"http {status}" in job["reason"]
            assert stored_count(db) == 0


# --- provenance, duplicates, cap -------------------------------------------------

def test_memories_show_their_source_message(db, alice, llm):
    ready(db, alice, llm)
    cid = conversation(alice)
    say(alice, "hello there", cid)
    say(alice, "remember: I prefer tea", cid)
    promote(db)
    source = prompts_of(alice, cid)[1]
    rows = alice.execute("select fact, conversation_id, conversation_prompt_id "
                         "from dbms_cloud_ai.user_cloud_ai_memories").fetchall()
    assert rows == [("I prefer tea", cid.upper(), source["id"].upper())]


def test_exact_duplicates_are_dropped_at_write(db, alice, bob, llm):
    ready(db, alice, llm)
    first = conversation(alice, "one")
    say(alice, "remember: I prefer tea", first)
    promote(db)
    for i, text in enumerate(["remember: I prefer tea", "remember: i  PREFER   Tea",
                              "remember: I prefer tea."]):
        with case(text):
            cid = conversation(alice, f"again {i}")
            say(alice, text, cid)
            promote(db)
            job = job_of(alice, cid)
            assert (job["status"], job["reason"]) == ("done", "duplicates")
            assert (job["facts_stored"], job["facts_duplicate"]) == (0, 1)
    assert memories(alice) == ["I prefer tea"]
    assert stored_count(db) == 1
    with case("the same fact about another subject is not a duplicate"):
        memory_profile(bob, llm)
        say(bob, "remember: I prefer tea", conversation(bob))
        promote(db)
        assert memories(bob) == ["I prefer tea"] and stored_count(db) == 2


def test_duplicates_within_one_reply_are_stored_once(db, alice, llm):
    ready(db, alice, llm)

    def extract(body):
        m = user_messages(body)[0]
        return facts_reply([fact("Prefers tea", m["id"], "I prefer tea"),
                            fact("prefers  TEA", m["id"], "prefer tea"),
                            fact("lives in Lyon", m["id"], "I live in Lyon")])
    llm.responder = respond(extract=extract)
    cid = conversation(alice)
    say(alice, "I prefer tea and I live in Lyon", cid)
    promote(db)
    job = job_of(alice, cid)
    assert (job["facts_proposed"], job["facts_stored"], job["facts_duplicate"]) == (3, 2, 1)
    kept = memories(alice)
    assert len(kept) == 2 and "lives in Lyon" in kept
    assert [f for f in kept if f != "lives in Lyon"][0] in ("Prefers tea", "prefers  TEA")


def _items_extractor(body):
    """Every user message 'items: a b c' gives the facts 'has a', 'has b', ... in order."""
    facts = []
    for m in user_messages(body):
        if m["text"].startswith("items: "):
            for word in m["text"].split()[1:]:
                facts.append(fact(f"has {word}", m["id"], word))
    return facts_reply(facts)


def test_cap_keeps_the_newest_and_evicts_the_oldest(db, alice, llm):
    ready(db, alice, llm)
    db.admin.execute("select dbms_cloud_ai.set_memory_attribute('max_memories', '5')")
    llm.responder = respond(extract=_items_extractor)
    batches = [["f1", "f2", "f3"], ["f4", "f5"], ["f6", "f7"]]
    evicted = []
    for words in batches:
        cid = conversation(alice, words[0])
        say(alice, "items: " + " ".join(words), cid)
        promote(db)
        job = job_of(alice, cid)
        assert job["facts_stored"] == len(words)
        evicted.append(job["facts_evicted"])
    assert evicted == [0, 0, 2]
    assert sorted(memories(alice)) == [f"has f{i}" for i in range(3, 8)]


def test_cap_is_enforced_in_the_same_transaction_as_the_write(db, alice, llm):
    """One job storing cap+3 facts: the oldest are evicted before it commits.  A
    deferred constraint trigger (test scaffolding on this test's database)
    checks the subject's count at every commit that wrote a memory."""
    ready(db, alice, llm)
    db.admin.execute("select dbms_cloud_ai.set_memory_attribute('max_memories', '5')")
    db.admin.execute("""
        create function public.memory_cap_check() returns trigger
        language plpgsql security definer set search_path = pg_catalog as $$
        begin
            if (select count(*) from dbms_cloud_ai._memory m
                 where m.organization = new.organization and m.subject = new.subject)
               > (select o.max_memories from dbms_cloud_ai._memory_organization o
                   where o.organization = new.organization) then
                raise exception 'memory cap exceeded at commit';
            end if;
            return null;
        end $$""")
    db.admin.execute("""
        create constraint trigger memory_cap_check after insert on dbms_cloud_ai._memory
        deferrable initially deferred for each row execute function public.memory_cap_check()""")
    llm.responder = respond(extract=_items_extractor)
    cid = conversation(alice, "first")
    say(alice, "items: a1 a2 a3", cid)
    promote(db)
    cid = conversation(alice, "many")
    words = [f"b{i}" for i in range(1, 9)]           # cap + 3
    say(alice, "items: " + " ".join(words), cid)
    promote(db)
    job = job_of(alice, cid)
    assert (job["status"], job["reason"]) == ("done", "stored"), job
    assert (job["facts_stored"], job["facts_evicted"]) == (8, 6)
    assert sorted(memories(alice)) == [f"has b{i}" for i in range(4, 9)]
    assert stored_count(db) == 5


# --- runners, models, owners -----------------------------------------------------

def test_two_runners_process_every_job_once(db, alice, llm):
    ready(db, alice, llm)
    n = 12
    cids = []
    for i in range(n):
        cid = conversation(alice, f"c{i}")
        say(alice, f"remember: fact number {i}", cid)
        cids.append(cid)

    def extract(body):
        r = remember_phrases()("openai", body)
        r.delay = 0.1
        return r
    llm.responder = respond(extract=extract)
    make_due(db)

    results, errors = [], []
    conns = [db.connect("postgres") for _ in range(2)]
    barrier = threading.Barrier(2)

    def runner(conn):
        try:
            barrier.wait()
            results.append(conn.execute("call dbms_cloud_ai.run_memory_jobs(2)").fetchone()[0])
        except Exception as e:      # noqa: BLE001 - reported below
            errors.append(e)
    threads = [threading.Thread(target=runner, args=(c,)) for c in conns]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert sum(results) == n
    assert all(r > 0 for r in results), f"both runners took jobs: {results}"
    per_fact = {}
    for r in extractions(llm):
        for m in user_messages(r.json):
            per_fact[m["text"]] = per_fact.get(m["text"], 0) + 1
    assert per_fact == {f"remember: fact number {i}": 1 for i in range(n)}
    assert {(j["status"], j["reason"]) for j in jobs(alice)} == {("done", "stored")}
    assert len(memories(alice)) == n


def test_memory_model_is_used_and_accounted_to_the_owner(db, alice, llm):
    ready(db, alice, llm, model="chat-large", memory_model="extract-mini")
    cid = conversation(alice)
    say(alice, "remember: I prefer tea", cid)
    chat = [r for r in llm.chat_requests if not is_extraction(r.json)]
    assert chat and all(r.json["model"] == "chat-large" for r in chat)
    promote(db)
    [ex] = extractions(llm)
    assert ex.json["model"] == "extract-mini"
    calls = memory_calls(alice)
    assert [(c["model"], c["conversation_id"]) for c in calls] == [("extract-mini", cid.upper())]
    owners = db.admin.execute("select owner from dbms_cloud_ai.dba_cloud_ai_calls "
                              "where purpose = 'memory'").fetchall()
    assert owners == [("alice",)], "accounted to the job's owner, not the runner"

    with case("no memory_model: the profile's model"):
        memory_profile(alice, llm, name="Q", credential="CRED_Q", model="chat-large")
        say(alice, "remember: I live in Lyon", conversation(alice, "q"), profile="Q")
        promote(db)
        assert extractions(llm)[-1].json["model"] == "chat-large"


def test_each_job_runs_as_its_owner_with_its_credential(db, alice, bob, llm):
    enable(db)
    make_profile(alice, llm, key="sk-alice-0123456789", long_term_memory=True)
    make_profile(bob, llm, key="sk-bob-9876543210", long_term_memory=True)
    llm.responder = remember_phrases()
    say(alice, "remember: I am alice", conversation(alice))
    say(bob, "remember: I am bob", conversation(bob))
    llm.requests.clear()
    assert promote(db) == 2
    seen = {user_messages(r.json)[0]["text"]: r.headers.get("authorization")
            for r in extractions(llm)}
    assert seen == {"remember: I am alice": "Bearer sk-alice-0123456789",
                    "remember: I am bob": "Bearer sk-bob-9876543210"}
    assert memories(alice) == ["I am alice"] and memories(bob) == ["I am bob"]
    assert len(memory_calls(alice)) == 1 and len(memory_calls(bob)) == 1
    assert db.admin.execute("select owner, subject from dbms_cloud_ai.dba_cloud_ai_memories "
                            "order by owner").fetchall() == [("alice", "alice"), ("bob", "bob")]


# --- re-pend, and turns that make no job ------------------------------------------

def test_new_message_after_a_finished_job_repends_and_sends_only_new_prompts(db, alice, llm):
    ready(db, alice, llm)
    cid = conversation(alice)
    say(alice, "remember: I prefer tea", cid)
    promote(db)
    done = job_of(alice, cid)
    assert done["status"] == "done"
    say(alice, "remember: I live in Lyon", cid)
    say(alice, "thanks", cid)
    job = job_of(alice, cid)
    assert (job["status"], job["reason"]) == ("pending", None)
    assert job["due_at"] > done["due_at"]
    assert promote(db) == 1
    first, second = extractions(llm)
    assert [m["text"] for m in user_messages(first.json)] == ["remember: I prefer tea"]
    assert [m["text"] for m in user_messages(second.json)] == ["remember: I live in Lyon", "thanks"]
    assert len(conversation_of(second.json)) == 4
    assert sorted(memories(alice)) == ["I live in Lyon", "I prefer tea"]


def test_session_conversation_and_plain_profiles_make_no_job(db, alice, llm):
    enable(db)
    llm.responder = remember_phrases()
    memory_profile(alice, llm, name="SESSION", conversation=True)
    alice.execute("select dbms_cloud_ai.set_profile('SESSION')")
    for text in ("remember: I prefer tea", "remember: I live in Lyon"):
        alice.execute("select dbms_cloud_ai.generate(%s, action => 'chat')", (text,))
    [second] = [r for r in llm.chat_requests if "Lyon" in json.dumps(r.json)]
    assert "I prefer tea" in json.dumps(second.json), "a session conversation carried the history"
    make_profile(alice, llm, name="PLAIN", credential="CRED2")
    say(alice, "remember: I drink coffee", conversation(alice), profile="PLAIN")
    assert jobs(alice) == [] and all_jobs(db) == []
    assert promote(db) == 0
    assert extractions(llm) == [] and stored_count(db) == 0
