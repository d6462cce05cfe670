"""RUN_TEAM and RUN_TOOL against the fake LLM (issue 33): tools called on every
provider's wire, tasks chained, a human asked, conversations continued, the run
history and accounting, and the bounds that end a run cleanly."""

from __future__ import annotations

import json
import threading
import time

import psycopg
import pytest
from agent_run_helpers import (
    create,
    function_tool,
    own_schema,
    rows,
    run_team,
    task_history,
    team,
    team_history,
    tool_history,
)
from fake_llm import Answer, Hang, ToolCalls, last_user_text, offered_tools, tool_results
from helpers import make_profile, raises


@pytest.fixture
def adder(db, alice):
    """alice's function tool ADDER over alice.add2(a, b), and the caller it ran as."""
    own_schema(db)
    alice.execute("create table alice.seen (who text, a text)")
    alice.execute("""create function alice.add2(a integer, b integer default 0) returns integer
                     language plpgsql as $$ begin
                       insert into alice.seen values (current_user, a::text); return a + b; end $$""")
    function_tool(db, alice, "ADDER", "add2", "Adds two whole numbers")
    return "ADDER"


def seen(conn):
    return conn.execute("select who, a from alice.seen").fetchall()


def results_sent(req) -> list[str]:
    return [r["content"] for r in tool_results(req.wire, req.json)]


@pytest.mark.parametrize("provider", ["openai", "anthropic", "cohere", "google"])
def test_a_function_tool_end_to_end_on_every_wire(db, alice, llm, adder, provider):
    team(db, alice, llm, steps=(("A", "K", "Answer: {query}", ("ADDER",)),), provider=provider)
    llm.script(ToolCalls([{"name": "ADDER", "arguments": {"a": 2, "b": 3}}]), Answer("It is 5."))
    assert run_team(alice, "T", "what is 2 + 3?") == "It is 5."
    first, second = llm.requests[-2:]
    assert first.wire == second.wire
    assert "ADDER" in offered_tools(first.wire, first.json)
    assert "what is 2 + 3?" in last_user_text(first.wire, first.json)
    assert any("5" == r.strip() for r in results_sent(second))
    assert seen(alice) == [("alice", "2")]          # ran once, as the caller
    [h] = team_history(alice)
    assert h["state"] == "SUCCEEDED" and h["end_date"] is not None
    [t] = tool_history(alice)
    assert (t["tool_name"], json.loads(t["output"]), t["tool_output"], json.loads(t["input"])) == \
        ("ADDER", {"status": "success", "result": "'5'"}, "5", {"a": 2, "b": 3})
    assert t["team_exec_id"] == h["team_exec_id"] and t["task_order"] == 1


def test_two_tasks_chain_their_results_and_fill_query(db, alice, llm):
    team(db, alice, llm, steps=(("A1", "FIND", "List facts about {query}", ()),
                                ("A2", "WRITE", "Write one sentence for {audience}", ())),
         inputs={"WRITE": "FIND"})
    llm.script(Answer("FACT-ONE; FACT-TWO"), Answer("A fine sentence."))
    out = run_team(alice, "T", "Lisbon", {"variables": {"audience": "children"}})
    assert out == "A fine sentence."
    first, second = llm.requests[-2:]
    assert "List facts about Lisbon" in json.dumps(first.json)
    sent = json.dumps(second.json)
    assert "Write one sentence for children" in sent and "FACT-ONE; FACT-TWO" in sent
    assert "You are a helpful analyst." in sent     # the agent's role
    tasks = task_history(alice)
    assert [(t["task_order"], t["task_name"], t["state"]) for t in tasks] == \
        [(1, "FIND", "SUCCEEDED"), (2, "WRITE", "SUCCEEDED")]
    assert tasks[1]["input"] == "FACT-ONE; FACT-TWO" and tasks[1]["result"] == "A fine sentence."


def test_a_sql_tool_answers_through_nl2sql(db, alice, llm):
    own_schema(db)
    alice.execute("create table alice.items (name text, price int)")
    alice.execute("insert into alice.items values ('pen', 2), ('book', 12)")
    alice.execute("set statement_timeout = '20s'")
    make_profile(alice, llm, "SQLP", credential="C2", object_list=[{"owner": "alice", "name": "items"}])
    create(db, alice, "TOOL", "DB", {"instruction": "Query the shop", "tool_type": "SQL",
                                     "tool_params": {"profile_name": "SQLP"}})
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("DB",)),))
    llm.script(ToolCalls([{"name": "DB", "arguments": {"query": "how many items cost more than 5"}}]),
               Answer("SELECT count(*) AS n FROM alice.items WHERE price > 5"),
               Answer("One item."))
    assert run_team(alice, "T", "how many expensive items?") == "One item."
    assert '"n"' in results_sent(llm.requests[-1])[0]
    [t] = tool_history(alice)
    assert t["tool_name"] == "DB" and '"n" : 1' in t["tool_output"].replace('":', '" :')
    assert json.loads(t["output"])["status"] == "success"


def test_a_human_question_pauses_the_run_and_the_answer_resumes_it(db, alice, llm, adder):
    team(db, alice, llm, steps=(("A", "K", "Add for {query}", ("ADDER",)),), human=True)
    cid = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    llm.script(ToolCalls([{"name": "human", "arguments": {"question": "Which second number?"}}]))
    assert run_team(alice, "T", "add 4 to something", {"conversation_id": cid}) == "Which second number?"
    assert "human" in offered_tools(llm.requests[-1].wire, llm.requests[-1].json)
    [h] = team_history(alice)
    assert h["state"] == "WAITING_FOR_HUMAN" and h["conversation_id"] == cid.upper()
    assert task_history(alice)[0]["state"] == "WAITING_FOR_HUMAN"

    llm.script(ToolCalls([{"name": "ADDER", "arguments": {"a": 4, "b": 6}}]), Answer("Ten."))
    assert run_team(alice, "T", "six", {"conversation_id": cid}) == "Ten."
    assert results_sent(llm.requests[-2])[-1] == "six"          # the human's answer
    [h] = team_history(alice)                                  # the same run, resumed
    assert h["state"] == "SUCCEEDED"
    assert [t["tool_name"] for t in tool_history(alice)] == ["human", "ADDER"]
    prompts = alice.execute("select prompt, prompt_response from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                            " where conversation_id = %s order by created", (cid.upper(),)).fetchall()
    assert prompts == [("add 4 to something", "Which second number?"), ("six", "Ten.")]


def test_a_conversation_continues_across_runs(db, alice, llm):
    team(db, alice, llm)
    llm.script(Answer("Paris."))
    cid = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    run_team(alice, "T", "capital of France?", {"conversation_id": cid})
    llm.script(Answer("About 2 million."))
    run_team(alice, "T", "and its population?", {"conversation_id": cid})
    sent = json.dumps(llm.requests[-1].json)
    assert "capital of France?" in sent and "Paris." in sent
    assert len(team_history(alice)) == 2


def test_a_run_without_conversation_gets_its_own(db, alice, llm):
    team(db, alice, llm)
    llm.script(Answer("ok"))
    run_team(alice, "T", "hi")
    [h] = team_history(alice)
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                         "where conversation_id = %s", (h["conversation_id"],)).fetchone()[0] == 1


def test_model_and_tool_calls_are_accounted_to_the_run(db, alice, llm, adder):
    team(db, alice, llm, steps=(("A", "K", "Answer: {query}", ("ADDER",)),))
    llm.script(ToolCalls([{"name": "ADDER", "arguments": {"a": 1}}]), Answer("1"))
    run_team(alice, "T", "one?")
    [h] = team_history(alice)
    calls = rows(alice, "select call_id, action, purpose, profile_name from dbms_cloud_ai.user_cloud_ai_calls"
                        " where conversation_id = %s order by created", h["conversation_id"])
    assert [(c["action"], c["purpose"]) for c in calls] == [("AGENT", "answer"), ("AGENT", "tool"),
                                                            ("AGENT", "answer")]
    [t] = tool_history(alice)
    assert calls[1]["call_id"].upper() == t["invocation_id"]


def test_params_are_checked(db, alice, llm):
    team(db, alice, llm)
    with raises("22023"):
        run_team(alice, "T", "x", {"conversation": "x"})
    with raises("22023"):
        run_team(alice, "T", "x", {"variables": [1]})
    with raises("42704"):
        run_team(alice, "NOPE", "x")
    assert llm.requests == []


# --- hostile tool calls ------------------------------------------------------------------

def test_hostile_tool_calls_go_back_to_the_model(db, alice, llm, adder):
    team(db, alice, llm, steps=(("A", "K", "Answer: {query}", ("ADDER",)),))
    injection = "1); drop table alice.seen; --"
    llm.script(ToolCalls([{"name": "DROP_EVERYTHING", "arguments": {}},
                          {"name": "ADDER", "arguments": "{not json"},
                          {"name": "ADDER", "arguments": {"a": 1, "c; drop table alice.seen": 2}},
                          {"name": "ADDER", "arguments": {"a": injection}},
                          {"name": "ADDER", "arguments": {"a": "7", "b": 1}}]),
               Answer("done"))
    assert run_team(alice, "T", "go") == "done"
    results = results_sent(llm.requests[-1])
    assert len(results) == 5
    assert results[0].startswith("error:") and "ADDER" in results[0]
    assert results[1].startswith("error:") and "missing" in results[1]
    assert results[2].startswith("error:") and "unknown argument" in results[2]
    assert results[3].startswith("error: error 22P02")           # PostgreSQL refused the cast
    assert results[4] == "8"
    assert seen(alice) == [("alice", "7")]                      # the table is there
    assert len(tool_history(alice)) == 5


def test_a_function_tool_runs_as_the_caller_never_as_the_owner_role(db, alice, llm):
    own_schema(db)
    alice.execute("create function alice.whoami() returns text language sql as 'select current_user::text'")
    function_tool(db, alice, "WHO", "whoami")
    assert alice.execute("select dbms_cloud_ai_agent.run_tool('WHO', '{}')").fetchone()[0] == "alice"
    team(db, alice, llm, steps=(("A", "K", "who?", ("WHO",)),))
    llm.script(ToolCalls([{"name": "WHO", "arguments": {}}]), Answer("done"))
    run_team(alice, "T", "x")
    assert results_sent(llm.requests[-1]) == ["alice"]


def test_a_caller_without_execute_is_refused(db, alice, llm):
    own_schema(db)
    alice.execute("create function alice.secret() returns text language sql as 'select ''s'''")
    alice.execute("revoke execute on function alice.secret() from public")
    alice.execute("grant execute on function alice.secret() to bob")
    db.admin.execute("grant usage on schema alice to bob")
    bob = db.connect("bob")
    function_tool(db, bob, "SECRET", "alice.secret")      # the catalog checks it then;
    alice.execute("revoke execute on function alice.secret() from bob")   # the run, again
    with raises("42501"):
        bob.execute("select dbms_cloud_ai_agent.run_tool('SECRET', '{}')")
    team(db, bob, llm, steps=(("A", "K", "x", ("SECRET",)),))
    with raises("42501"):
        run_team(bob, "T", "x")
    assert llm.requests == []


def test_run_tool_takes_json_arguments(db, alice, llm, adder):
    assert alice.execute("select dbms_cloud_ai_agent.run_tool('adder', '{\"a\": 40, \"b\": 2}')").fetchone()[0] == "42"
    with raises("22023"):
        alice.execute("select dbms_cloud_ai_agent.run_tool('ADDER', '{\"zz\": 1}')")
    with raises("22023"):
        alice.execute("select dbms_cloud_ai_agent.run_tool('ADDER', '[1]')")
    with raises("42704"):
        alice.execute("select dbms_cloud_ai_agent.run_tool('NOPE', '{}')")
    [t] = tool_history(alice)
    assert t["team_exec_id"] is None and t["tool_output"] == "42"
    assert json.loads(t["output"]) == {"status": "success", "result": "'42'"}


# --- bounds, cancel ------------------------------------------------------------------------

def test_a_model_that_calls_tools_forever_ends_the_run_failed(db, alice, llm, adder):
    team(db, alice, llm, steps=(("A", "K", "x", ("ADDER",)),))
    llm.responder = lambda wire, body: ToolCalls([{"name": "ADDER", "arguments": {"a": 1}}])
    alice.execute("set dbms_cloud_ai.agent_max_steps = 4")
    with raises("54000"):
        run_team(alice, "T", "loop")
    assert len(llm.requests) == 4
    [h] = team_history(alice)
    assert h["state"] == "FAILED" and h["end_date"] is not None
    assert task_history(alice)[0]["state"] == "FAILED"
    assert len(tool_history(alice)) == 4
    # The next agent call of the session writes the failed run for good.
    alice.execute("reset dbms_cloud_ai.agent_max_steps")
    llm.responder = None
    llm.script(Answer("fine"))
    run_team(alice, "T", "again")
    assert db.admin.execute("select state from dbms_cloud_ai._agent_team_run order by start_date"
                            ).fetchall() == [("FAILED",), ("SUCCEEDED",)]
    assert db.admin.execute("select count(*) from dbms_cloud_ai._agent_tool_run").fetchone()[0] == 4


def test_tool_calls_per_run_are_bounded(db, alice, llm, adder):
    team(db, alice, llm, steps=(("A", "K", "x", ("ADDER",)),))
    llm.script(ToolCalls([{"name": "ADDER", "arguments": {"a": i}} for i in range(5)]), Answer("x"))
    alice.execute("set dbms_cloud_ai.agent_max_tool_calls = 3")
    with raises("54000"):
        run_team(alice, "T", "x")
    assert team_history(alice)[0]["state"] == "FAILED"


def test_a_slow_function_tool_is_stopped_by_its_time_limit(db, alice, llm):
    own_schema(db)
    alice.execute("create function alice.slow() returns text language sql as 'select pg_sleep(5)::text'")
    function_tool(db, alice, "SLOW", "slow")
    team(db, alice, llm, steps=(("A", "K", "x", ("SLOW",)),))
    llm.script(ToolCalls([{"name": "SLOW", "arguments": {}}]), Answer("gave up"))
    alice.execute("set dbms_cloud_ai.agent_tool_timeout = '300ms'")
    alice.execute("set statement_timeout = '30s'")
    started = time.monotonic()
    assert run_team(alice, "T", "x") == "gave up"
    assert time.monotonic() - started < 4
    assert "did not finish" in results_sent(llm.requests[-1])[0]
    # The statement's own timeout is back: a later slow statement still ends.
    alice.execute("set statement_timeout = '200ms'")
    with raises("57014"):
        alice.execute("select pg_sleep(2)")


def test_cancel_during_a_slow_reply_records_failed(db, alice, llm):
    team(db, alice, llm)
    llm.script(Hang(30))
    pid = alice.info.backend_pid
    threading.Timer(1.0, lambda: db.admin.execute("select pg_cancel_backend(%s)", (pid,))).start()
    with pytest.raises(psycopg.Error) as e:
        run_team(alice, "T", "x")
    assert e.value.sqlstate == "57014"
    [h] = team_history(alice)
    assert h["state"] == "FAILED"


def test_a_detached_run_commits_as_it_goes(db, alice, llm):
    team(db, alice, llm)
    llm.script(Answer("detached answer"))
    out = alice.execute("call dbms_cloud_ai_agent.run_team_detached('T', 'hi')").fetchone()[0]
    assert out == "detached answer"
    assert team_history(alice)[0]["state"] == "SUCCEEDED"


# --- the session's team ---------------------------------------------------------------------

def test_the_session_team_runs_through_select_ai_and_generate(db, alice, llm):
    team(db, alice, llm)
    assert alice.execute("select dbms_cloud_ai_agent.get_team()").fetchone()[0] is None
    with raises("55000"):
        alice.execute("select dbms_cloud_ai.select_ai('agent hello')")
    alice.execute("select dbms_cloud_ai_agent.set_team('t')")
    assert alice.execute("select dbms_cloud_ai_agent.get_team()").fetchone()[0] == "T"
    llm.script(Answer("from the team"), Answer("again"))
    assert alice.execute("select dbms_cloud_ai.select_ai('agent hello')").fetchone()[0] == "from the team"
    assert alice.execute("select dbms_cloud_ai.generate('hi', action => 'agent')").fetchone()[0] == "again"
    alice.execute("select dbms_cloud_ai_agent.clear_team()")
    assert alice.execute("select dbms_cloud_ai_agent.get_team()").fetchone()[0] is None


def test_a_session_team_setting_naming_another_roles_team_is_not_used(db, alice, bob, llm):
    team(db, bob, llm, name="BT")
    alice.execute("set dbms_cloud_ai.agent_team = 'BT'")
    assert alice.execute("select dbms_cloud_ai_agent.get_team()").fetchone()[0] is None
    with raises("55000"):
        alice.execute("select dbms_cloud_ai.select_ai('agent hello')")


def test_a_shared_team_runs_for_the_grantee_with_the_owners_shared_profile(db, alice, bob, llm):
    team(db, alice, llm)
    alice.execute("select dbms_cloud_ai_agent.grant_team_access('T', 'bob')")
    with raises("42704"):                 # the agent's profile is not shared with bob yet
        run_team(bob, '"alice"."T"', "hi")
    alice.execute("select dbms_cloud_ai.grant_profile_access('P', 'bob')")
    llm.script(Answer("shared answer"))
    assert run_team(bob, '"alice"."T"', "hi") == "shared answer"
    assert [(h["team_name"], h["state"]) for h in team_history(bob)] == [("T", "FAILED"),
                                                                       ("T", "SUCCEEDED")]
    assert team_history(alice) == []
    owners = db.admin.execute("select owner, team_owner from dbms_cloud_ai_agent.dba_ai_agent_team_history"
                              ).fetchall()
    assert set(owners) == {("bob", "alice")}


def test_an_overloaded_function_tool_calls_the_overload_the_arguments_fit(db, alice, llm):
    own_schema(db)
    alice.execute("create function alice.pick(x integer) returns text language sql as 'select ''int '' || x'")
    alice.execute("create function alice.pick(s text, n integer) returns text language sql "
                  "as 'select repeat(s, n)'")
    function_tool(db, alice, "PICK", "pick")
    assert alice.execute("""select dbms_cloud_ai_agent.run_tool('PICK', '{"x": 3}')""").fetchone()[0] == "int 3"
    assert alice.execute("""select dbms_cloud_ai_agent.run_tool('PICK', '{"s": "ab", "n": 2}')"""
                         ).fetchone()[0] == "abab"
    with raises("22023"):
        alice.execute("""select dbms_cloud_ai_agent.run_tool('PICK', '{"s": "ab"}')""")


def test_a_model_that_calls_a_tool_then_says_nothing_is_asked_once_more_without_tools(
        db, alice, llm, adder):
    team(db, alice, llm, steps=(("A", "K", "Answer: {query}", ("ADDER",)),))
    llm.script(ToolCalls([{"name": "ADDER", "arguments": {"a": 20, "b": 22}}]), Answer(""), Answer("42"))
    assert run_team(alice, "T", "20 + 22?") == "42"
    last = llm.requests[-1]
    assert offered_tools(last.wire, last.json) == [] and "ADDER: 42" in json.dumps(last.json)
    assert task_history(alice)[0]["result"] == "42"


def test_a_detached_run_whose_backend_is_terminated_reads_failed(db, alice, llm):
    team(db, alice, llm)
    llm.script(Hang(30))
    pid = alice.info.backend_pid
    threading.Timer(1.5, lambda: db.admin.execute("select pg_terminate_backend(%s)", (pid,))).start()
    with pytest.raises(psycopg.Error):
        alice.execute("call dbms_cloud_ai_agent.run_team_detached('T', 'hi')")
    other = db.connect("alice")
    for _ in range(50):         # the backend's exit is seen shortly after the error
        [h] = team_history(other)
        if h["state"] == "FAILED":
            break
        time.sleep(0.1)
    assert h["state"] == "FAILED"
    assert db.admin.execute("select state from dbms_cloud_ai._agent_team_run").fetchone()[0] == "RUNNING"
