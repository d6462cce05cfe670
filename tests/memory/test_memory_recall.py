"""Long-term memory at answer time (issue 6): first-turn recall, the
search_memories tool on later turns, and whose memories a session may use
(subjects, organizations, trusted gateways, anonymous roles), disabling and
deleting.

Facts are made the way users make them: a user says ``remember: X`` in a named
conversation, the promotion job runs (``memory_helpers.promote``) and the fake
extractor turns it into the fact ``X``.
"""

from __future__ import annotations

import json
import time
import uuid

import pytest
from fake_llm import Answer, ToolCalls, offered_tools, tool_call_requests, tool_results
from helpers import case, generate, make_profile, raises
from memory_helpers import conversation, enable, memories, memory_profile, promote, remember_phrases, say

GREEN = "favourite colour is green"
PARIS = "lives in Paris"
SHORT = "prefers short answers"
TEA = "drinks jasmine tea"           # bob's
EMAIL = "contact me by email"        # a gateway visitor's


# --- helpers ------------------------------------------------------------------------------

def learn(db, conn, *facts, profile="P"):
    """``conn``'s subject states each fact in its own conversation and it is
    promoted at once (one fact per run: later facts are newer)."""
    for f in facts:
        say(conn, "remember: " + f, conversation(conn, "learn"), profile=profile)
        promote(db)
    have = memories(conn)
    assert all(f in have for f in facts), have


def memory_ids(conn) -> dict[str, str]:
    """fact -> memory_id (upper case, as the view shows it)."""
    return {f: m for m, f in conn.execute(
        "select memory_id, fact from dbms_cloud_ai.user_cloud_ai_memories")}


def identity_of(conn) -> dict:
    cur = conn.execute("select * from dbms_cloud_ai.memory_identity()")
    return dict(zip([c.name for c in cur.description], cur.fetchone()))


def sent(req) -> str:
    """Everything a request sent, as text (the facts used here are plain
    words: JSON leaves them as they are, whatever the wire format)."""
    return json.dumps(req.json)


def facts_sent(req, facts) -> list[str]:
    return [f for f in facts if f in sent(req)]


def system_recall(req) -> str:
    """OpenAI wire: the system message just before the question; asserts the
    question is last."""
    msgs = req.json["messages"]
    assert msgs[-1]["role"] == "user"
    assert len(msgs) >= 2 and msgs[-2]["role"] == "system", msgs
    return msgs[-2]["content"]


def returned_facts(content: str) -> list[str]:
    """Every ``fact`` a tool result carries (it must be JSON)."""
    out = []

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "fact" and isinstance(x, str):
                    out.append(x)
                else:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(json.loads(content))
    return out


def search_call(query, **extra):
    return ToolCalls([{"name": "search_memories", "arguments": {"query": query, **extra}}])


def tool_round(conn, llm, question, cid, call, profile="P", final="final answer"):
    """A later turn where the model asks for one search, then answers; returns
    (the answer, the request that carried the tool result)."""
    n = len(llm.requests)
    llm.script(call, Answer(final))
    answer = say(conn, question, cid, profile=profile)
    reqs = llm.requests[n:]
    assert len(reqs) == 2, [r.json for r in reqs]
    return answer, reqs[1]


def only_result(req) -> dict:
    [r] = tool_results(req.wire, req.json)
    return r


def calls(conn, purpose=None) -> list[dict]:
    cur = conn.execute("select * from dbms_cloud_ai.user_cloud_ai_calls order by created")
    cols = [c.name for c in cur.description]
    rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    return [r for r in rows if purpose is None or r["purpose"] == purpose]


def sources(conn, call_id) -> list[dict]:
    cur = conn.execute("select * from dbms_cloud_ai.user_cloud_ai_message_sources "
                       "where call_id = %s", (call_id,))
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def prompts(conn, cid) -> list[tuple]:
    return conn.execute("select prompt, prompt_response from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                        "where conversation_id = upper(%s) order by created", (cid,)).fetchall()


def set_recall_tokens(db, n):
    db.admin.execute("select dbms_cloud_ai.set_memory_attribute('recall_tokens', %s)", (str(n),))


@pytest.fixture
def mem(db, llm):
    """Memory on for the database's organization; the scripted extractor answers."""
    llm.responder = remember_phrases()
    enable(db)
    return llm


@pytest.fixture
def alice_facts(db, alice, mem):
    """alice (profile P, long_term_memory) remembered GREEN, PARIS, SHORT, in that order."""
    memory_profile(alice, mem)
    learn(db, alice, GREEN, PARIS, SHORT)
    return memory_ids(alice)


# --- first-turn recall ----------------------------------------------------------------------

def test_first_turn_of_a_new_conversation_recalls_facts_before_the_question(alice, mem, alice_facts):
    n = len(mem.requests)
    cid = conversation(alice, "new")
    assert say(alice, "what colour for the kitchen", cid) == "ok: what colour for the kitchen"
    [req] = mem.requests[n:]
    recall = system_recall(req)
    assert all(f in recall for f in (GREEN, PARIS, SHORT)), recall
    assert req.json["messages"][-1]["content"] == "what colour for the kitchen"


def test_a_call_outside_any_conversation_recalls(alice, mem, alice_facts):
    n = len(mem.requests)
    generate(alice, "what colour for the kitchen")
    [req] = mem.requests[n:]
    assert GREEN in system_recall(req)


def test_first_turn_of_the_session_conversation_recalls_later_turns_do_not(alice, mem, alice_facts):
    make_profile(alice, mem, name="S", credential="CS", long_term_memory=True, conversation=True)
    n = len(mem.requests)
    generate(alice, "what colour for the kitchen", profile="S")
    generate(alice, "and for the hall", profile="S")
    first, second = mem.requests[n:]
    assert GREEN in system_recall(first)
    assert facts_sent(second, (GREEN, PARIS, SHORT)) == []
    assert offered_tools(second.wire, second.json) == ["search_memories"]
    assert offered_tools(first.wire, first.json) == []


def test_recall_takes_the_most_relevant_then_the_newest_within_recall_tokens(db, alice, mem, alice_facts):
    # The question shares "colour" with GREEN only; SHORT is newer than PARIS.
    # Estimated cost len // 4 + 3: GREEN 9, PARIS 6, SHORT 8 tokens.
    question = "which colour for kitchen walls"
    set_recall_tokens(db, 17)                  # room for GREEN + SHORT, not PARIS too
    n = len(mem.requests)
    generate(alice, question)
    recall = system_recall(mem.requests[n])
    assert GREEN in recall and SHORT in recall and PARIS not in recall, recall
    assert recall.index(GREEN) < recall.index(SHORT)

    set_recall_tokens(db, 400)                 # all of them: relevance, then newest first
    n = len(mem.requests)
    generate(alice, question)
    recall = system_recall(mem.requests[n])
    assert recall.index(GREEN) < recall.index(SHORT) < recall.index(PARIS), recall

    set_recall_tokens(db, 0)                   # nothing fits: nothing recalled
    n = len(mem.requests)
    generate(alice, question)
    assert facts_sent(mem.requests[n], (GREEN, PARIS, SHORT)) == []


def test_recalled_facts_are_not_stored_in_the_conversation(alice, mem, alice_facts):
    cid = conversation(alice, "new")
    first = say(alice, "what colour for the kitchen", cid)
    assert GREEN in system_recall(mem.requests[-1])
    assert prompts(alice, cid) == [("what colour for the kitchen", first)]
    n = len(mem.requests)
    second = say(alice, "and for the hall", cid)
    [req] = mem.requests[n:]
    assert facts_sent(req, (GREEN, PARIS, SHORT)) == []
    assert [(m["role"], m["content"]) for m in req.json["messages"]] == [
        ("user", "what colour for the kitchen"), ("assistant", first), ("user", "and for the hall")]
    assert prompts(alice, cid) == [("what colour for the kitchen", first), ("and for the hall", second)]


def test_message_sources_list_the_recalled_memories(alice, mem, alice_facts):
    set_ids = {m.upper() for m in alice_facts.values()}
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid)
    [prompt_id] = [r[0] for r in alice.execute(
        "select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where conversation_id = upper(%s)", (cid,))]
    answer = [c for c in calls(alice, "answer") if c["conversation_id"] == cid.upper()][-1]
    rows = sources(alice, answer["call_id"])
    assert {r["source_kind"] for r in rows} == {"memory"}
    assert {r["source_id"].upper() for r in rows} == set_ids
    assert {r["conversation_prompt_id"] for r in rows} == {prompt_id}

    generate(alice, "what colour for the kitchen")          # no conversation: still listed
    answer = calls(alice, "answer")[-1]
    assert answer["conversation_id"] is None
    rows = sources(alice, answer["call_id"])
    assert {r["source_id"].upper() for r in rows} == set_ids
    assert {(r["source_kind"], r["conversation_prompt_id"]) for r in rows} == {("memory", None)}


# --- later turns: the search_memories tool --------------------------------------------------

@pytest.mark.parametrize("provider", ["openai", "anthropic", "google", "cohere"])
def test_later_turns_offer_the_tool_and_send_its_result_in_the_providers_format(
        alice, mem, alice_facts, provider):
    make_profile(alice, mem, name="Q", provider=provider, credential="CQ", long_term_memory=True)
    cid = conversation(alice, "new")
    n = len(mem.requests)
    say(alice, "what colour for the kitchen", cid, profile="Q")
    [first] = mem.requests[n:]
    assert first.wire == provider
    assert GREEN in sent(first)                        # recalled, in the provider's request
    assert offered_tools(first.wire, first.json) == []

    answer, followup = tool_round(alice, mem, "and for the hall", cid, search_call("colour"),
                                  profile="Q")
    asked = mem.requests[-2]
    assert facts_sent(asked, (GREEN, PARIS, SHORT)) == []
    assert offered_tools(asked.wire, asked.json) == ["search_memories"]
    assert answer == "final answer"
    result = only_result(followup)
    assert result["name"] == "search_memories"
    assert returned_facts(result["content"]) == [GREEN]


# Real OpenAI-compatible servers (llama-cpp-python's) take a missing tool_choice as
# "none" and answer HTTP 500 to an assistant turn whose content is null (issue 17).
def test_openai_tool_rounds_ask_for_auto_and_send_the_tool_turn_as_text(alice, mem, alice_facts):
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid)
    answer, followup = tool_round(alice, mem, "and for the hall", cid, search_call("colour"))
    asked = mem.requests[-2]
    assert asked.json["tool_choice"] == "auto"
    assert followup.json["tool_choice"] == "auto"
    [turn] = [m for m in followup.json["messages"] if m.get("tool_calls")]
    assert turn["role"] == "assistant" and turn["content"] == ""


def test_the_tool_call_is_recorded_and_the_conversation_keeps_question_and_answer(alice, mem, alice_facts):
    cid = conversation(alice, "new")
    first = say(alice, "what colour for the kitchen", cid)
    answer, followup = tool_round(alice, mem, "and for the hall", cid, search_call("colour"))
    assert returned_facts(only_result(followup)["content"]) == [GREEN]

    [tool] = calls(alice, "tool")
    assert (tool["provider"], tool["model"]) == ("dbms_cloud_ai", "search_memories")
    assert [(r["source_kind"], r["source_id"].upper()) for r in sources(alice, tool["call_id"])] \
        == [("memory", alice_facts[GREEN])]
    assert prompts(alice, cid) == [("what colour for the kitchen", first), ("and for the hall", answer)]

    n = len(mem.requests)
    say(alice, "and the door", cid)
    [third] = mem.requests[n:]
    assert facts_sent(third, (GREEN, PARIS, SHORT)) == []
    assert [(m["role"], m["content"]) for m in third.json["messages"]] == [
        ("user", "what colour for the kitchen"), ("assistant", first),
        ("user", "and for the hall"), ("assistant", "final answer"), ("user", "and the door")]


def test_a_model_that_keeps_calling_tools_is_cut_off_after_three_rounds(alice, mem, alice_facts):
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid)

    def respond(wire, body):
        if offered_tools(wire, body):
            return search_call("colour")
        return Answer("forced answer")
    mem.responder = respond
    n = len(mem.requests)
    assert say(alice, "and for the hall", cid) == "forced answer"
    reqs = mem.requests[n:]
    assert [offered_tools(r.wire, r.json) for r in reqs] == [["search_memories"]] * 3 + [[]]
    # The last request carries no tool blocks (a provider refuses them without
    # tools): the three results travel as data beside the question.
    final = reqs[3].json
    assert tool_results(reqs[3].wire, final) == [] and tool_call_requests(reqs[3].wire, final) == []
    found = [m["content"] for m in final["messages"] if m["role"] == "system"
             and m["content"].startswith("Results of searching this user's memories")]
    assert len(found) == 1 and found[0].count('"memories"') == 3
    assert final["messages"][-1] == {"role": "user", "content": "and for the hall"}
    assert len(calls(alice, "tool")) == 3
    assert prompts(alice, cid)[-1] == ("and for the hall", "forced answer")



# Seen with a small model behind llama-cpp-python (issue 17): offered the tool, it
# neither answers nor calls it.  The user gets an answer, asked for without tools.
def test_an_empty_reply_to_the_tool_offer_is_asked_again_without_tools(alice, mem, alice_facts):
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid)
    mem.responder = lambda wire, body: Answer("" if offered_tools(wire, body) else "blue")
    n = len(mem.requests)
    assert say(alice, "and for the hall", cid) == "blue"
    reqs = mem.requests[n:]
    assert [offered_tools(r.wire, r.json) for r in reqs] == [["search_memories"], []]
    assert reqs[1].json["messages"][-1] == {"role": "user", "content": "and for the hall"}
    assert not any(m["role"] == "system" and "Results of searching" in m["content"]
                   for m in reqs[1].json["messages"])          # nothing was searched
    assert prompts(alice, cid)[-1] == ("and for the hall", "blue")


# Open models behind llama.cpp's servers without a tool-call parser write the call as
# their answer's text (Qwen's template: <tool_call>{...}</tool_call>; Qwen2.5-Coder: a
# ```json fence).
@pytest.mark.parametrize("written", [
    '<tool_call>\n{"name": "search_memories", "arguments": {"query": "colour"}}\n</tool_call>',
    '{"name": "search_memories", "arguments": {"query": "colour"}}',
    '```json\n{\n  "name": "search_memories",\n  "arguments": {\n    "query": "colour"\n  }\n}\n```'])
def test_a_tool_call_written_as_text_is_a_tool_call(alice, mem, alice_facts, written):
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid)
    answers = iter([Answer(written), Answer("green, as you like")])
    mem.responder = lambda wire, body: next(answers)
    assert say(alice, "and for the hall", cid) == "green, as you like"
    followup = mem.requests[-1]
    assert returned_facts(only_result(followup)["content"]) == [GREEN]
    assert [c["model"] for c in calls(alice, "tool")] == ["search_memories"]


@pytest.mark.parametrize("provider", ["anthropic", "google", "cohere"])
def test_a_tool_call_written_as_text_is_a_tool_call_on_every_wire(alice, mem, alice_facts, provider):
    """A gateway (litellm) in front of such a server passes the written call on as
    Anthropic's text block or Gemini's text part: it is a call there too, and the round
    goes on in that provider's format."""
    make_profile(alice, mem, name="Q", provider=provider, credential="CQ", long_term_memory=True)
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid, profile="Q")
    answers = iter([Answer('```json\n{"name": "search_memories", "arguments": {"query": "colour"}}'
                           '\n```'), Answer("green, as you like")])
    mem.responder = lambda wire, body: next(answers)
    assert say(alice, "and for the hall", cid, profile="Q") == "green, as you like"
    followup = mem.requests[-1]
    assert followup.wire == provider
    assert returned_facts(only_result(followup)["content"]) == [GREEN]
    assert [c["model"] for c in calls(alice, "tool")] == ["search_memories"]


def test_text_that_only_looks_like_a_tool_call_stays_the_answer(alice, mem, alice_facts):
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid)
    for text in ('{"name": "drop_table", "arguments": {}}',                 # not offered
                 'Sure: <tool_call>{"name": "search_memories"}</tool_call>',  # more than a call
                 '{"name": "search_memories", "arguments": {}, "x": 1}',     # not a call's shape
                 'Try:\n```json\n{"name": "search_memories", "arguments": {}}\n```'):  # more than a call
        with case(text):
            mem.responder = lambda wire, body, t=text: Answer(t)
            assert say(alice, "and for the hall", cid) == text
    assert calls(alice, "tool") == []


def test_slow_tool_rounds_end_in_a_provider_timeout_within_statement_timeout(alice, mem, alice_facts):
    """Each round gets only what is left of statement_timeout (model/timing.py): three
    rounds of 0.8 s under a 2 s statement_timeout stop with LL001 before
    PostgreSQL's own cancel (57014), which would come after the answer was lost
    at a moment nobody chose.  The failed request is accounted as a timeout."""
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid)

    def respond(wire, body):
        if offered_tools(wire, body):
            return ToolCalls([{"name": "search_memories", "arguments": {"query": "colour"}}],
                             delay=0.8)
        return Answer("too late", delay=0.8)
    mem.responder = respond
    alice.execute("set statement_timeout = '2s'")
    try:
        started = time.monotonic()
        with raises("LL001"):
            say(alice, "and for the hall", cid)
        took = time.monotonic() - started
    finally:
        alice.execute("reset statement_timeout")
    assert took < 2.0, took
    assert prompts(alice, cid)[-1][0] == "what colour for the kitchen"   # nothing half-written

# The Anthropic Messages API rejects tool_use / tool_result blocks in a request
# that defines no tools (400 "Requests which include tool_use or tool_result
# blocks must define tools", anthropics/anthropic-sdk-python#494): the cut-off
# request must not carry them.
def test_the_cut_off_request_to_anthropic_is_one_its_api_accepts(alice, mem, alice_facts):
    make_profile(alice, mem, name="Q", provider="anthropic", credential="CQ", long_term_memory=True)
    cid = conversation(alice, "new")
    say(alice, "what colour for the kitchen", cid, profile="Q")

    def respond(wire, body):
        return search_call("colour") if offered_tools(wire, body) else Answer("forced answer")
    mem.responder = respond
    n = len(mem.requests)
    assert say(alice, "and for the hall", cid, profile="Q") == "forced answer"
    final = mem.requests[n:][-1]
    assert final.wire == "anthropic"
    if tool_call_requests(final.wire, final.json) or tool_results(final.wire, final.json):
        assert final.json.get("tools"), "tool blocks replayed without tool definitions"
        assert final.json.get("tool_choice") == {"type": "none"}


# --- boundaries: subjects and organizations ---------------------------------------------------

@pytest.fixture
def bob_facts(db, bob, mem):
    memory_profile(bob, mem)
    learn(db, bob, TEA)
    return memory_ids(bob)


def test_tool_arguments_cannot_choose_another_subject(alice, bob, mem, alice_facts, bob_facts):
    other = {"subject": "bob", "user": "bob", "organization": "acme"}
    cid = conversation(alice, "new")
    say(alice, "hello", cid)
    _, followup = tool_round(alice, mem, "and the drinks", cid, search_call("colour tea", **other))
    assert returned_facts(only_result(followup)["content"]) == [GREEN]
    # bob's words match nothing of alice's: she gets her own newest facts, never his.
    _, followup = tool_round(alice, mem, "and the tea", cid, search_call("jasmine tea", **other))
    content = only_result(followup)["content"]
    assert sorted(returned_facts(content)) == sorted([GREEN, PARIS, SHORT]) and TEA not in content
    [tool1, tool2] = calls(alice, "tool")
    assert sorted(str(r["source_id"]).upper() for r in sources(alice, tool2["call_id"])) \
        == sorted(m.upper() for m in alice_facts.values())


def test_a_search_that_matches_nothing_returns_the_newest_facts(alice, mem, alice_facts):
    """A small model's query is often one word no fact contains ("city" for "lives in
    Paris"): the newest facts come back instead of nothing (the tool's description says
    so)."""
    cid = conversation(alice, "new")
    say(alice, "hello", cid)
    _, followup = tool_round(alice, mem, "where do I live", cid, search_call("city", limit=2))
    assert "most recent facts" in json.dumps(mem.requests[-2].json["tools"])
    assert returned_facts(only_result(followup)["content"]) == [SHORT, PARIS]   # newest first
    _, followup = tool_round(alice, mem, "what colour", cid, search_call("colour"))
    assert returned_facts(only_result(followup)["content"]) == [GREEN]


def test_bob_never_sees_alices_memories(db, alice, bob, mem, alice_facts, bob_facts):
    assert memories(bob) == [TEA]
    assert bob.execute("select count(*) from dbms_cloud_ai._memory").fetchone()[0] == 1  # RLS
    with raises("42501"):                          # the administrators' view is not his
        bob.execute("select * from dbms_cloud_ai.dba_cloud_ai_memories")
    n = len(mem.requests)
    generate(bob, "what colour and what tea")
    req = mem.requests[n]
    assert TEA in system_recall(req)
    assert facts_sent(req, (GREEN, PARIS, SHORT)) == []

    cid = conversation(bob, "new")
    say(bob, "hello", cid)
    _, followup = tool_round(bob, mem, "colours?", cid, search_call("favourite colour green Paris"))
    assert returned_facts(only_result(followup)["content"]) == [TEA]   # nothing matched: his newest


def test_recall_never_crosses_organizations(db, alice, bob, mem):
    db.admin.execute("select dbms_cloud_ai.set_memory_role('bob', 'acme')")
    enable(db, "acme")
    memory_profile(alice, mem)
    memory_profile(bob, mem)
    learn(db, alice, GREEN)
    learn(db, bob, TEA)
    orgs = dict(db.admin.execute("select subject, organization from dbms_cloud_ai.dba_cloud_ai_memories"))
    assert orgs == {"alice": db.admin.info.dbname, "bob": "acme"}

    for conn, mine, theirs in ((alice, GREEN, TEA), (bob, TEA, GREEN)):
        with case(mine):
            n = len(mem.requests)
            generate(conn, "green tea colour")
            recall = system_recall(mem.requests[n])
            assert mine in recall and theirs not in recall

    # alice moved to acme: her memories of the database's organization stay there.
    db.admin.execute("select dbms_cloud_ai.set_memory_role('alice', 'acme')")
    assert identity_of(alice)["organization"] == "acme"
    assert memories(alice) == []
    n = len(mem.requests)
    generate(alice, "green tea colour")
    assert facts_sent(mem.requests[n], (GREEN, TEA)) == []
    db.admin.execute("select dbms_cloud_ai.set_memory_role('alice')")
    assert memories(alice) == [GREEN]


def test_a_tenant_admin_sees_and_switches_only_its_organization(db, alice, bob, mem):
    home = db.admin.info.dbname
    db.admin.execute("select dbms_cloud_ai.set_memory_role('bob', 'acme')")
    db.admin.execute("select dbms_cloud_ai.set_memory_role('ai_admin', 'acme')")
    enable(db, "acme")
    memory_profile(alice, mem)
    memory_profile(bob, mem)
    learn(db, alice, GREEN)
    learn(db, bob, TEA)

    admin = db.connect("ai_admin")
    assert admin.execute("select organization, subject, fact from dbms_cloud_ai.dba_cloud_ai_memories"
                         ).fetchall() == [("acme", "bob", TEA)]
    for sql in ("select dbms_cloud_ai.enable_memory(%s)", "select dbms_cloud_ai.disable_memory(%s)"):
        with case(sql), raises("42501"):
            admin.execute(sql, (home,))
    admin.execute("select dbms_cloud_ai.disable_memory('acme')")
    settings = dict(db.admin.execute(
        "select organization, enabled from dbms_cloud_ai.dba_cloud_ai_memory_settings"))
    assert settings == {home: True, "acme": False}


# A tenant administrator cannot take a role of another organization into its
# own: not one with a row naming another organization, and not one without a
# row (it belongs to the database's organization, which an 'acme'
# administrator does not administer), such as a database-wide administrator.
def test_a_tenant_admin_cannot_take_a_role_from_another_organization(db):
    home = db.admin.info.dbname
    db.admin.execute("select dbms_cloud_ai.set_memory_role('ai_admin', 'acme')")
    db.admin.execute("select dbms_cloud_ai.set_memory_role('bob', 'beta')")
    admin = db.connect("ai_admin")
    with raises("42501"):                          # a role with a row in another organization
        admin.execute("select dbms_cloud_ai.set_memory_role('bob', 'acme')")
    with raises("42501"):                          # a role of the database's organization
        admin.execute("select dbms_cloud_ai.set_memory_role('alice', 'acme')")
    assert identity_of(db.connect("alice"))["organization"] == home


# --- a trusted gateway vouching for visitors ---------------------------------------------------

@pytest.fixture
def gateway(db, mem):
    """A login role made a trusted gateway (identity 'asserted'), with a memory
    profile P; dropped at the end."""
    name = f"gw_{uuid.uuid4().hex[:10]}"
    db.admin.execute(f"create role {name} login")
    db.admin.execute(f"grant dbms_cloud_ai_user to {name}")
    conns = []

    def connect(role=name):
        c = db.connect(role)
        conns.append(c)
        return c
    try:
        db.admin.execute("select dbms_cloud_ai.set_memory_role(%s, identity => 'asserted')", (name,))
        memory_profile(connect(), mem)
        yield name, connect
    finally:
        for c in conns:
            c.close()
        db.admin.execute(f"drop owned by {name} cascade")
        db.admin.execute(f"drop role {name}")


def end_user(conn, subject, is_local=False):
    conn.execute("select dbms_cloud_ai.set_end_user(%s, %s)", (subject, is_local))


def test_a_gateway_visitors_facts_belong_to_that_visitor(db, mem, gateway):
    name, connect = gateway
    gw = connect()
    end_user(gw, "visitor-1")
    assert (identity_of(gw)["subject"], identity_of(gw)["identity"]) == ("visitor-1", "asserted")
    learn(db, gw, EMAIL)
    assert db.admin.execute("select subject, owner from dbms_cloud_ai.dba_cloud_ai_memories "
                            "where fact = %s", (EMAIL,)).fetchall() == [("visitor-1", name)]
    n = len(mem.requests)
    generate(gw, "how should you contact me")
    assert EMAIL in system_recall(mem.requests[n])

    [v1_memory] = memory_ids(gw).values()
    end_user(gw, "visitor-2")                     # same session, another visitor
    assert memories(gw) == []
    with raises("42704"):
        gw.execute("select dbms_cloud_ai.delete_memory(%s)", (v1_memory,))
    n = len(mem.requests)
    generate(gw, "how should you contact me")
    assert EMAIL not in sent(mem.requests[n])
    cid = conversation(gw, "v2")
    say(gw, "hello", cid)
    _, followup = tool_round(gw, mem, "contact?", cid, search_call("contact email"))
    assert returned_facts(only_result(followup)["content"]) == []

    end_user(gw, "visitor-1")
    assert memories(gw) == [EMAIL]


def test_a_gateway_without_an_end_user_is_anonymous(db, mem, gateway):
    name, connect = gateway
    first = connect()
    end_user(first, "visitor-1")
    learn(db, first, EMAIL)

    gw = connect()
    i = identity_of(gw)
    assert (i["subject"], i["identity"]) == (None, "asserted")
    assert memories(gw) == []
    n = len(mem.requests)
    generate(gw, "how should you contact me")
    cid = conversation(gw, "anon")
    say(gw, "hello", cid)
    say(gw, "how should you contact me", cid)
    for req in mem.requests[n:]:
        assert EMAIL not in sent(req)
        assert offered_tools(req.wire, req.json) == []


def test_only_gateway_roles_may_set_an_end_user(db, alice, bob):
    for conn in (alice, bob):
        with raises("42501"):
            end_user(conn, "visitor-1")
    assert identity_of(alice)["subject"] == "alice"


def test_a_forged_or_copied_end_user_setting_gives_no_identity(db, mem, gateway):
    name, connect = gateway
    a = connect()
    end_user(a, "visitor-1")
    learn(db, a, EMAIL)
    copied = a.execute("select current_setting('dbms_cloud_ai.end_user')").fetchone()[0]
    assert "visitor-1" in copied

    b = connect()
    for value in (copied, "anything:visitor-1", "visitor-1"):
        with case(value):
            b.execute("select set_config('dbms_cloud_ai.end_user', %s, false)", (value,))
            assert identity_of(b)["subject"] is None
            assert memories(b) == []
            n = len(mem.requests)
            generate(b, "how should you contact me")
            assert EMAIL not in sent(mem.requests[n])
    # forged in the very session that asserted visitor-1 before
    a.execute("select set_config('dbms_cloud_ai.end_user', 'anything:visitor-1', false)")
    assert identity_of(a)["subject"] is None


def test_set_role_from_the_gateway_drops_the_asserted_identity(db, alice, mem, gateway):
    name, connect = gateway
    memory_profile(alice, mem)
    learn(db, alice, GREEN)
    end_user(connect(), "visitor-1")
    gw = connect()
    end_user(gw, "visitor-1")
    learn(db, gw, EMAIL)

    su = db.connect("postgres")
    su.execute(f"set role {name}")
    end_user(su, "visitor-1")
    assert identity_of(su)["subject"] == "visitor-1"
    su.execute("set role alice")
    i = identity_of(su)
    assert (i["subject"], i["identity"]) == ("alice", "role")
    n = len(mem.requests)
    generate(su, "how should you contact me about colours")
    req = mem.requests[n]
    assert GREEN in system_recall(req) and EMAIL not in sent(req)


def test_an_end_user_follows_the_settings_rules_local_reset_discard(db, gateway):
    name, connect = gateway
    gw = connect()
    with gw.transaction():                         # is_local: this transaction only
        end_user(gw, "visitor-1", is_local=True)
        assert identity_of(gw)["subject"] == "visitor-1"
    assert identity_of(gw)["subject"] is None

    end_user(gw, "visitor-1")
    with gw.transaction():
        end_user(gw, "visitor-2", is_local=True)
        assert identity_of(gw)["subject"] == "visitor-2"
    assert identity_of(gw)["subject"] == "visitor-1"

    class Rollback(Exception):
        pass
    with pytest.raises(Rollback):                  # a rolled-back assertion is undone
        with gw.transaction():
            end_user(gw, "visitor-3")
            raise Rollback
    assert identity_of(gw)["subject"] == "visitor-1"

    for clear in ("reset dbms_cloud_ai.end_user", "reset all", "discard all"):
        with case(clear):
            end_user(gw, "visitor-1")
            assert identity_of(gw)["subject"] == "visitor-1"
            gw.execute(clear)
            assert identity_of(gw)["subject"] is None
    end_user(gw, "visitor-1")
    end_user(gw, None)                             # NULL: anonymous again
    assert identity_of(gw)["subject"] is None


# --- anonymous roles ----------------------------------------------------------------------------

def test_an_anonymous_role_has_no_subject_no_recall_no_tool(db, bob, mem, bob_facts):
    db.admin.execute("select dbms_cloud_ai.set_memory_role('bob', identity => 'anonymous')")
    i = identity_of(bob)
    assert (i["subject"], i["identity"]) == (None, "anonymous")
    n = len(mem.requests)
    generate(bob, "which tea")
    cid = conversation(bob, "anon")
    say(bob, "which tea", cid)
    say(bob, "and which cup", cid)
    for req in mem.requests[n:]:
        assert TEA not in sent(req)
        assert offered_tools(req.wire, req.json) == []


# --- disabling is not deleting ------------------------------------------------------------------

def no_memory_used(conn, llm, profile="P"):
    """No fact recalled on a first turn, no tool offered on a later one."""
    n = len(llm.requests)
    generate(conn, "what colour for the kitchen", profile=profile)
    cid = conversation(conn, "off")
    say(conn, "what colour for the kitchen", cid, profile=profile)
    say(conn, "and for the hall", cid, profile=profile)
    reqs = llm.requests[n:]
    assert len(reqs) == 3
    for req in reqs:
        assert facts_sent(req, (GREEN, PARIS, SHORT)) == []
        assert offered_tools(req.wire, req.json) == []


def test_disabling_memory_stops_recall_and_the_tool_but_keeps_the_memories(db, alice, mem, alice_facts):
    db.admin.execute("select dbms_cloud_ai.disable_memory()")
    assert identity_of(alice)["memory_enabled"] is False
    no_memory_used(alice, mem)
    assert memory_ids(alice) == alice_facts
    assert {f for (f,) in db.admin.execute("select fact from dbms_cloud_ai.dba_cloud_ai_memories")} \
        == {GREEN, PARIS, SHORT}

    enable(db)
    generate(alice, "what colour for the kitchen")
    answer = calls(alice, "answer")[-1]
    assert {r["source_id"].upper() for r in sources(alice, answer["call_id"])} \
        == set(alice_facts.values())


def test_a_profile_without_long_term_memory_neither_recalls_nor_offers_the_tool(db, alice, mem, alice_facts):
    make_profile(alice, mem, name="OFF", credential="COFF", long_term_memory=False)
    no_memory_used(alice, mem, profile="OFF")
    assert memory_ids(alice) == alice_facts


def test_a_deleted_memory_is_never_recalled_nor_found_again(db, alice, mem, alice_facts):
    alice.execute("select dbms_cloud_ai.delete_memory(%s)", (alice_facts[GREEN],))
    assert set(memories(alice)) == {PARIS, SHORT}
    n = len(mem.requests)
    generate(alice, "what colour for the kitchen")
    recall = system_recall(mem.requests[n])
    assert GREEN not in recall and PARIS in recall

    cid = conversation(alice, "new")
    say(alice, "hello", cid)
    _, followup = tool_round(alice, mem, "colours?", cid, search_call("favourite colour green"))
    assert GREEN not in returned_facts(only_result(followup)["content"])


def test_deleting_an_unknown_malformed_or_anothers_memory_fails(db, alice, bob, mem, alice_facts, bob_facts):
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.delete_memory(%s)", (str(uuid.uuid4()),))
    with raises("22P02"):
        alice.execute("select dbms_cloud_ai.delete_memory('not-a-memory-id')")
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.delete_memory(%s)", (alice_facts[GREEN],))
    assert memory_ids(alice) == alice_facts
    alice.execute("select dbms_cloud_ai.delete_memory(%s)", (alice_facts[GREEN],))
    with raises("42704"):                          # already gone: unknown
        alice.execute("select dbms_cloud_ai.delete_memory(%s)", (alice_facts[GREEN],))


def test_a_new_visitor_on_a_pooled_gateway_session_starts_a_new_short_term_conversation(
        db, mem, gateway):
    name, connect = gateway
    gw = connect()
    gw.execute("select dbms_cloud_ai.set_attribute('P', 'conversation', 'true')")
    end_user(gw, "visitor-1")
    generate(gw, "my locker code is 4711")
    assert generate(gw, "what did I just say") and "4711" in json.dumps(mem.requests[-1].json)
    end_user(gw, "visitor-1")                       # the same visitor again: history kept
    generate(gw, "still me")
    assert "4711" in json.dumps(mem.requests[-1].json)
    end_user(gw, "visitor-2")                       # another visitor: none of visitor-1's turns
    generate(gw, "hello")
    assert "4711" not in json.dumps(mem.requests[-1].json)
    assert gw.execute("select count(*) from dbms_cloud_ai.session_cloud_ai_conversation_prompts"
                      ).fetchone()[0] == 1
