"""Supervised teams (issue 33): the supervisor_agent's model delegates to the
members through one tool per (agent, task) pair, then answers."""

from __future__ import annotations

import json

from agent_run_helpers import (
    create,
    function_tool,
    own_schema,
    run_team,
    task_history,
    team,
    team_history,
    tool_history,
)
from fake_llm import Answer, ToolCalls, last_user_text, offered_tools, tool_results
from helpers import raises

MEMBERS = (("RESEARCHER", "FIND", "Find facts about {query}", ("ADDER",)),
           ("WRITER", "WRITE", "Write about {query}", ()))


def supervised(db, alice, llm, supervisor=True, task=None):
    own_schema(db)
    alice.execute("create function alice.add2(a integer, b integer default 0) returns integer "
                  "language sql as 'select a + b'")
    function_tool(db, alice, "ADDER", "add2", "Adds two whole numbers")
    team(db, alice, llm, steps=MEMBERS)
    create(db, alice, "AGENT", "BOSS", {"profile_name": "P", "role": "You lead the team.",
                                        "supervisor": supervisor})
    attrs = {"supervisor_agent": "BOSS"}
    if task:
        create(db, alice, "TASK", "PLAN", {"instruction": task})
        attrs["supervisor_task"] = "PLAN"
    alice.execute("select dbms_cloud_ai_agent.set_attributes('T', 'team', %s)", (json.dumps(attrs),))


def test_the_supervisor_delegates_to_two_members_and_answers(db, alice, llm):
    supervised(db, alice, llm)
    llm.script(ToolCalls([{"name": "FIND", "arguments": {"request": "Lisbon"}}]),
               ToolCalls([{"name": "ADDER", "arguments": {"a": 2, "b": 3}}]),   # the member's tool
               Answer("FACT: 5 hills"),
               ToolCalls([{"name": "WRITE", "arguments": {"request": "a line on 5 hills"}}]),
               Answer("Lisbon has 5 hills."),
               Answer("Final: Lisbon has 5 hills."))
    assert run_team(alice, "T", "tell me about Lisbon") == "Final: Lisbon has 5 hills."
    sup, find, found, sup2, write, final = llm.requests[-6:]
    assert sorted(offered_tools(sup.wire, sup.json)) == ["FIND", "WRITE"]
    assert "tell me about Lisbon" in last_user_text(sup.wire, sup.json)
    assert "You lead the team." in json.dumps(sup.json)
    assert offered_tools(find.wire, find.json) == ["ADDER"]        # the member's own tools only
    assert "Find facts about Lisbon" in last_user_text(find.wire, find.json)
    assert [r["content"] for r in tool_results(found.wire, found.json)] == ["5"]
    assert [r["content"] for r in tool_results(sup2.wire, sup2.json)] == ["FACT: 5 hills"]
    assert "Write about a line on 5 hills" in last_user_text(write.wire, write.json)
    assert [r["content"] for r in tool_results(final.wire, final.json)] == \
        ["FACT: 5 hills", "Lisbon has 5 hills."]
    [h] = team_history(alice)
    assert h["state"] == "SUCCEEDED"
    tasks = {t["task_order"]: t for t in task_history(alice)}
    assert {k: (t["agent_name"], t["task_name"], t["state"]) for k, t in tasks.items()} == {
        0: ("BOSS", None, "SUCCEEDED"), 1: ("RESEARCHER", "FIND", "SUCCEEDED"),
        2: ("WRITER", "WRITE", "SUCCEEDED")}
    assert tasks[1]["input"] == "Lisbon" and tasks[1]["result"] == "FACT: 5 hills"
    assert tasks[0]["result"] == "Final: Lisbon has 5 hills."
    assert sorted((t["task_order"], t["tool_name"]) for t in tool_history(alice)) == \
        [(0, "FIND"), (0, "WRITE"), (1, "ADDER")]
    versions = [v for (v,) in alice.execute(
        "select prompt_version from dbms_cloud_ai.user_cloud_ai_calls where purpose = 'answer' "
        "and conversation_id = %s order by created", (h["conversation_id"],))]
    assert [v.split("@")[0] for v in versions] == \
        ["agent-supervisor", "agent", "agent", "agent-supervisor", "agent", "agent-supervisor"]


def test_the_supervisor_task_gives_the_instruction(db, alice, llm):
    supervised(db, alice, llm, task="Plan the work for {query}, then answer.")
    llm.script(Answer("done"))
    assert run_team(alice, "T", "Porto") == "done"
    assert "Plan the work for Porto, then answer." in last_user_text(llm.requests[-1].wire,
                                                                     llm.requests[-1].json)
    assert [(t["task_order"], t["task_name"]) for t in task_history(alice)] == [(0, "PLAN")]


def test_an_agent_that_is_not_a_supervisor_is_refused(db, alice, llm):
    supervised(db, alice, llm, supervisor=False)
    with raises("55000"):
        run_team(alice, "T", "x")
    assert llm.requests == []
    assert team_history(alice)[0]["state"] == "FAILED"


def test_a_supervisor_that_keeps_delegating_ends_failed(db, alice, llm):
    supervised(db, alice, llm)
    llm.responder = lambda wire, body: (
        ToolCalls([{"name": "WRITE", "arguments": {"request": "again"}}])
        if "WRITE" in offered_tools(wire, body) else Answer("written"))
    alice.execute("set dbms_cloud_ai.agent_max_steps = 3")
    with raises("54000"):
        run_team(alice, "T", "loop")
    assert len(llm.requests) == 3 + 3               # the supervisor's, each with one member's
    [h] = team_history(alice)
    assert h["state"] == "FAILED"
    assert {t["task_order"]: t["state"] for t in task_history(alice)}[0] == "FAILED"


def test_a_member_call_without_a_request_goes_back_to_the_supervisor(db, alice, llm):
    supervised(db, alice, llm)
    llm.script(ToolCalls([{"name": "WRITE", "arguments": {}}, {"name": "NOPE", "arguments": {}}]),
               Answer("gave up"))
    assert run_team(alice, "T", "x") == "gave up"
    results = [r["content"] for r in tool_results(llm.requests[-1].wire, llm.requests[-1].json)]
    assert all(r.startswith("error:") for r in results) and len(results) == 2
    assert "WRITE" in results[1]                        # the tools it may call
    assert [t["task_order"] for t in task_history(alice)] == [0]


def test_delegations_count_against_the_runs_tool_calls(db, alice, llm):
    supervised(db, alice, llm)
    llm.script(ToolCalls([{"name": "WRITE", "arguments": {"request": str(i)}} for i in range(4)]),
               Answer("w"), Answer("w"), Answer("w"), Answer("w"))
    alice.execute("set dbms_cloud_ai.agent_max_tool_calls = 2")
    with raises("54000"):
        run_team(alice, "T", "x")
    assert team_history(alice)[0]["state"] == "FAILED"
