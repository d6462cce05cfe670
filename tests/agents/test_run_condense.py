"""Condensing in team runs (issue 33): a run in a conversation past its window
folds the fallen-out prompts into the summary as chat does, and a task's long
tool loop has its older rounds condensed into one summary message, the
condensing requests accounted in the run's turn and bounded in number."""

from __future__ import annotations

import json

import pytest
from agent_run_helpers import function_tool, own_schema, run_team, team
from dbms_cloud_ai.agents import condense
from dbms_cloud_ai.conversations import summaries
from fake_llm import Answer, ToolCalls, tool_results


@pytest.fixture
def big(db, alice):
    """alice's tool BIG: a result of about 1000 characters, tagged R<a>."""
    own_schema(db)
    alice.execute("""create function alice.big(a integer) returns text language sql
                     as $$ select 'R' || a || ' ' || repeat('x', 1000) $$""")
    function_tool(db, alice, "BIG", "big", "Returns a long text")
    alice.execute("set dbms_cloud_ai.agent_condense_tokens = 300")   # 1200 characters
    return "BIG"


def call_big(a):
    return ToolCalls([{"name": "BIG", "arguments": {"a": a}}])


def sent(req) -> str:
    return json.dumps(req.json)


def condensed_message(req) -> str | None:
    found = [m["content"] for m in req.json["messages"]
             if m["role"] == "system" and str(m["content"]).startswith(condense.LABEL)]
    assert len(found) <= 1
    return found[0] if found else None


def calls(conn):
    cur = conn.execute("select * from dbms_cloud_ai.user_cloud_ai_calls order by created")
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def test_a_long_tool_loop_is_condensed_and_its_requests_stay_bounded(db, alice, llm, big):
    team(db, alice, llm, steps=(("A", "K", "Use BIG: {query}", ("BIG",)),), human=False)
    cid = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    n = len(llm.requests)
    llm.script(call_big(1), call_big(2), Answer("S-ONE: the first result seen"), call_big(3),
               Answer("S-TWO: two results seen"), Answer("done"))
    assert run_team(alice, "T", "go", {"conversation_id": cid}) == "done"
    reqs = llm.requests[n:]
    assert len(reqs) == 6
    first_condense, second_condense, last = reqs[2], reqs[4], reqs[5]
    assert "R1 " in sent(first_condense) and "tools" not in first_condense.json
    assert "S-ONE" in sent(second_condense) and "R2 " in sent(second_condense)
    assert "R1 " not in sent(second_condense)           # folded once, carried by the summary
    assert "S-TWO" in condensed_message(last)
    assert "R1 " not in sent(last) and "R2 " not in sent(last)
    assert [r["content"][:3] for r in tool_results(last.wire, last.json)] == ["R3 "]
    assert "S-ONE" in condensed_message(reqs[3]) and "R2 " in sent(reqs[3])
    assert len(sent(last)) < len(sent(reqs[3])) + 200 and len(sent(last)) < 3000
    run = [c for c in calls(alice) if c["conversation_id"] == cid.upper()]
    summaries_ = [c for c in run if c["purpose"] == "summary"]
    assert len(summaries_) == 2
    prompt_id = alice.execute("select conversation_prompt_id from "
                              "dbms_cloud_ai.user_cloud_ai_conversation_prompts where conversation_id = %s",
                              (cid.upper(),)).fetchone()[0]
    assert {(c["action"], c["conversation_prompt_id"]) for c in run} == {("AGENT", prompt_id)}
    assert len({c["prompt_version"] for c in summaries_}) == 1


def test_past_the_condensing_requests_of_a_task_older_rounds_are_trimmed(db, alice, llm, big):
    alice.execute("set dbms_cloud_ai.agent_max_steps = 20")
    team(db, alice, llm, steps=(("A", "K", "Use BIG: {query}", ("BIG",)),), human=False)
    n = len(llm.requests)
    llm.script(call_big(1), call_big(2), Answer("S1"), call_big(3), Answer("S2"), call_big(4),
               Answer("S3"), *[call_big(a) for a in range(5, 19)], Answer("done"))
    assert run_team(alice, "T", "go") == "done"
    reqs = llm.requests[n:]
    assert len(reqs) == 22                               # no fourth condensing request
    assert [c["purpose"] for c in calls(alice)].count("summary") == condense.MAX_CONDENSE
    trimmed = condensed_message(reqs[8])                 # the first request after the third summary
    assert "S3" in trimmed and "trimmed" in trimmed and "R4 " in trimmed
    last = condensed_message(reqs[-1])
    assert "S3" in last and "R17 " in last and "R8 " not in last    # capped: its start, the latest
    assert len(last) <= condense.MAX_SUMMARY_CHARS + len(condense.LABEL) + 10
    assert [r["content"][:4] for r in tool_results(reqs[-1].wire, reqs[-1].json)] == ["R18 "]
    assert len(sent(reqs[-1])) < 7000


def test_a_run_past_the_conversations_window_gets_the_summary(db, alice, llm):
    team(db, alice, llm)
    cid = alice.execute("select dbms_cloud_ai.create_conversation(%s)", (json.dumps(
        {"title": "t", "conversation_length": 1, "summarize_history": True}),)).fetchone()[0]
    for q in ("first question", "second question"):
        llm.script(Answer("answer to " + q))
        run_team(alice, "T", q, {"conversation_id": cid})
    n = len(llm.requests)
    llm.script(Answer("CONV-SUMMARY of the first"), Answer("third answer"))
    assert run_team(alice, "T", "third question", {"conversation_id": cid}) == "third answer"
    summary_req, answer_req = llm.requests[n:]
    assert "first question" in sent(summary_req) and "second question" not in sent(summary_req)
    assert "CONV-SUMMARY" in sent(answer_req) and "first question" not in sent(answer_req)
    assert "second question" in sent(answer_req)
    msgs = answer_req.json["messages"]
    assert any(m["role"] == "system" and m["content"].startswith(summaries.LABEL) for m in msgs)
    stored = alice.execute("select summary, summary_call_id from "
                           "dbms_cloud_ai.user_cloud_ai_conversation_summaries where conversation_id = %s",
                           (cid.upper(),)).fetchone()
    assert stored[0] == "CONV-SUMMARY of the first"
    [call] = [c for c in calls(alice) if c["call_id"] == stored[1]]
    assert (call["purpose"], call["action"], call["conversation_id"]) == ("summary", "AGENT", cid.upper())
