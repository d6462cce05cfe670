"""Long-term memory in team runs (issue 33): an agent whose profile has
long_term_memory gets chat's recall and search_memories tool, the run's turn
queues the memory job, and a grantee of a shared team uses its own memories."""

from __future__ import annotations

import json

import pytest
from agent_run_helpers import run_team, team, tool_history
from fake_llm import Answer, ToolCalls, offered_tools, tool_results
from memory_helpers import conversation, enable, jobs, memories, memory_profile, promote, remember_phrases, say

GREEN = "favourite colour is green"
PARIS = "lives in Paris"
TEA = "drinks jasmine tea"          # bob's


def learn(db, conn, *facts, profile="P"):
    for f in facts:
        say(conn, "remember: " + f, conversation(conn, "learn"), profile=profile)
        promote(db)
    assert all(f in memories(conn) for f in facts)


@pytest.fixture
def mem(db, llm):
    llm.responder = remember_phrases()
    enable(db)
    return llm


@pytest.fixture
def alice_team(db, alice, mem):
    """alice remembered GREEN and PARIS; her team T's agent uses her memory profile P."""
    memory_profile(alice, mem)
    learn(db, alice, GREEN, PARIS)
    team(db, alice, mem, steps=(("A", "K", "Answer: {query}", ()),), make=False)
    return "T"


def sent(req) -> str:
    return json.dumps(req.json)


def search(query):
    return ToolCalls([{"name": "search_memories", "arguments": {"query": query}}])


def calls(conn, purpose):
    return conn.execute("select call_id, model from dbms_cloud_ai.user_cloud_ai_calls "
                        "where purpose = %s order by created", (purpose,)).fetchall()


def test_the_first_request_of_a_task_carries_the_recalled_memories(alice, mem, alice_team):
    n = len(mem.requests)
    mem.script(Answer("Green it is."))
    assert run_team(alice, "T", "what colour for the kitchen") == "Green it is."
    [req] = mem.requests[n:]
    msgs = req.json["messages"]
    assert msgs[-1]["role"] == "user" and "what colour for the kitchen" in msgs[-1]["content"]
    assert msgs[-2]["role"] == "system" and GREEN in msgs[-2]["content"]
    assert "search_memories" in offered_tools(req.wire, req.json)
    call_id = calls(alice, "answer")[-1][0]
    used = alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_message_sources "
                         "where call_id = %s and source_kind = 'memory'", (call_id,)).fetchone()[0]
    assert used == 2


def test_the_search_tool_runs_and_its_result_reaches_the_model(alice, mem, alice_team):
    n = len(mem.requests)
    mem.script(search("city"), Answer("In Paris."))
    assert run_team(alice, "T", "where do I live?") == "In Paris."
    first, second = mem.requests[n:]
    [result] = tool_results(second.wire, second.json)
    assert PARIS in result["content"]
    assert [m for m in second.json["messages"]                  # recall: the first request only
            if m["role"] == "system" and PARIS in str(m["content"])] == []
    [t] = tool_history(alice)
    assert t["tool_name"] == "search_memories" and PARIS in t["output"]
    assert (t["invocation_id"].lower(), "search_memories") in [
        (c.lower(), m) for c, m in calls(alice, "tool")]


def test_a_run_queues_the_memory_job_and_its_facts_are_extracted(db, alice, mem, alice_team):
    cid = conversation(alice, "run")
    mem.script(Answer("Noted."))
    run_team(alice, "T", "remember: works at night", {"conversation_id": cid})
    assert [j["conversation_id"] for j in jobs(alice)].count(cid.upper()) == 1
    promote(db)
    assert "works at night" in memories(alice)


def test_a_grantee_of_a_shared_team_recalls_and_searches_only_its_own_memories(db, alice, bob, mem,
                                                                                 alice_team):
    memory_profile(bob, mem, name="BP")
    learn(db, bob, TEA, profile="BP")
    alice.execute("select dbms_cloud_ai_agent.grant_team_access('T', 'bob')")
    alice.execute("select dbms_cloud_ai.grant_profile_access('P', 'bob')")
    n = len(mem.requests)
    mem.script(search("colour tea Paris"), Answer("Tea."))
    cid = bob.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    assert run_team(bob, '"alice"."T"', "what do I drink, my colour?", {"conversation_id": cid}) == "Tea."
    first, second = mem.requests[n:]
    assert TEA in sent(first) and GREEN not in sent(first) and PARIS not in sent(first)
    [result] = tool_results(second.wire, second.json)
    assert TEA in result["content"] and GREEN not in result["content"]
    promote(db)
    assert set(memories(bob)) == {TEA} and set(memories(alice)) == {GREEN, PARIS}
    assert [j["conversation_id"] for j in jobs(bob)].count(cid.upper()) == 1


def test_nothing_happens_with_memory_off(db, alice, mem, alice_team):
    alice.execute("select dbms_cloud_ai.set_attribute('P', 'long_term_memory', 'false')")
    cid = conversation(alice, "off")
    n = len(mem.requests)
    mem.script(Answer("No memory."))
    run_team(alice, "T", "what colour, remember: off", {"conversation_id": cid})
    [req] = mem.requests[n:]
    assert GREEN not in sent(req) and "search_memories" not in offered_tools(req.wire, req.json)
    assert [j for j in jobs(alice) if j["conversation_id"] == cid.upper()] == []


def test_the_organizations_switch_off_gives_no_recall_and_no_tool(db, alice, mem, alice_team):
    db.admin.execute("select dbms_cloud_ai.disable_memory()")
    n = len(mem.requests)
    mem.script(Answer("No memory."))
    run_team(alice, "T", "what colour")
    [req] = mem.requests[n:]
    assert GREEN not in sent(req) and "search_memories" not in offered_tools(req.wire, req.json)
