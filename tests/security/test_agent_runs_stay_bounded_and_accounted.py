"""Select AI Agent, safety (issue 33, section 5): what a user's own code and
inputs can do to a run's bounds, its accounting and the server.

- A function tool may call generate() or run_team() itself: the run's later
  model and tool calls are still accounted to the run (accounting turns nest).
- A function tool that runs its own team (or run_tool its own tool) again is
  bounded: nested runs share the outermost call's bounds and nest at most
  3 deep (54000), with few model requests, and the backend still answers.
- A daily token budget holds across runs whose transactions roll back.
- Huge and deeply nested inputs to run_tool, run_team and set_attribute end
  with their documented SQLSTATE, never an internal error or a crash.
"""

from __future__ import annotations

import json

import psycopg
from agent_run_helpers import function_tool, own_schema, rows, run_team, team, team_history
from fake_llm import Answer, ToolCalls
from helpers import case, make_profile, raises


def run_calls(conn) -> list[tuple]:
    return [(c["action"], c["purpose"]) for c in rows(
        conn, "select action, purpose from dbms_cloud_ai.user_cloud_ai_calls order by created")]


def test_a_tool_that_calls_generate_leaves_the_runs_accounting_whole(db, alice, llm):
    own_schema(db)
    make_profile(alice, llm)
    alice.execute("create function alice.ask(q text) returns text language sql "
                  "as $$ select dbms_cloud_ai.generate(q, 'P', 'chat') $$")
    function_tool(db, alice, "ASK", "ask")
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("ASK",)),), make=False)
    llm.script(ToolCalls([{"name": "ASK", "arguments": {"q": "inner"}}]), Answer("inner answer"),
               Answer("done"))
    assert run_team(alice, "T", "go") == "done"
    # The inner chat is its own call; the run's tool call and its last model
    # request still belong to the run (before the fix both were lost).
    assert run_calls(alice) == [("AGENT", "answer"), ("CHAT", "answer"), ("AGENT", "tool"),
                                ("AGENT", "answer")]
    assert len(llm.requests) == 3


def test_a_tool_that_runs_its_own_team_is_bounded(db, alice, bob, llm):
    own_schema(db)
    alice.execute("create function alice.again(q text) returns text language sql "
                  "as $$ select dbms_cloud_ai_agent.run_team('T', q) $$")
    function_tool(db, alice, "AGAIN", "again")
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("AGAIN",)),))
    llm.responder = lambda wire, body: ToolCalls([{"name": "AGAIN", "arguments": {"q": "deeper"}}])
    bob_pid = bob.info.backend_pid
    with raises("54000"):
        run_team(alice, "T", "go")
    # Before the fix each nested run had bounds of its own: 12,971 requests in 300 s.
    assert len(llm.requests) <= 60, len(llm.requests)
    assert bob.execute("select pg_backend_pid()").fetchone()[0] == bob_pid   # no crash restart
    assert {h["state"] for h in team_history(alice)} == {"FAILED"}
    # The session's next run starts from fresh bounds, at depth 1.
    team(db, alice, llm, name="PLAIN", steps=(("A2", "K2", "Answer {query}", ()),), make=False)
    llm.reset()
    llm.script(Answer("plain answer"))
    assert run_team(alice, "PLAIN", "hi") == "plain answer"


def test_run_tool_calling_itself_is_bounded(db, alice, llm):
    own_schema(db)
    alice.execute("create function alice.rec() returns text language plpgsql "
                  "as $$ begin return dbms_cloud_ai_agent.run_tool('REC', '{}'); end $$")
    function_tool(db, alice, "REC", "rec")
    with raises("22023") as e:          # the innermost refusal, reported by each level
        alice.execute("select dbms_cloud_ai_agent.run_tool('REC', '{}')")
    assert "nested more than 3 deep" in str(e["error"])
    assert alice.execute("select 1").fetchone() == (1,)


def test_a_daily_budget_holds_across_rolled_back_runs(db, llm):
    alice = db.connect("alice")
    team(db, alice, llm)
    db.admin.execute("select dbms_cloud_ai.set_token_budget('alice', 200)")
    llm.responder = lambda wire, body: Answer("a", 40, 20)          # 60 tokens a request
    refused = 0
    for _ in range(6):
        conn = db.connect("alice")        # a new session each time: nothing held in memory
        conn.execute("begin")
        try:
            conn.execute("select dbms_cloud_ai_agent.run_team('T', 'q')")
        except psycopg.Error as e:
            assert e.sqlstate == "53400"
            refused += 1
        conn.execute("rollback")
        conn.close()
    assert len(llm.requests) == 4 and refused == 2
    with raises("53400"):
        run_team(db.connect("alice"), "T", "q")
    assert len(llm.requests) == 4
    # Nothing was committed, yet every request sent is stored by the next run that ends well.
    db.admin.execute("select dbms_cloud_ai.set_token_budget('alice', null)")
    run_team(db.connect("alice"), "T", "q")
    assert db.admin.execute("select count(*) from dbms_cloud_ai._model_call "
                            "where owner = 'alice' and action = 'AGENT'").fetchone()[0] == 5


def test_huge_and_deep_inputs_end_with_documented_sqlstates(db, alice, llm):
    own_schema(db)
    alice.execute("create function alice.size(a text) returns int language sql as 'select length(a)'")
    function_tool(db, alice, "SIZE", "size")
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("SIZE",)),))
    deep = "[" * 100_000
    big = "x" * (20 << 20)
    cases = [
        ("run_tool, deep input", "select dbms_cloud_ai_agent.run_tool('SIZE', %s)", (deep,), "22023"),
        ("run_tool, deep argument", "select dbms_cloud_ai_agent.run_tool('SIZE', %s)",
         ('{"a": ' + deep + "}",), "22023"),
        ("run_team, deep params", "select dbms_cloud_ai_agent.run_team('T', 'x', %s)", (deep,), "22P02"),
        ("run_team, deep variables", "select dbms_cloud_ai_agent.run_team('T', 'x', %s)",
         ('{"variables": ' + deep + "}",), "22P02"),
        ("set_attribute, huge", "select dbms_cloud_ai_agent.set_attribute('K', 'task', 'instruction', %s)",
         (big,), "54000"),
        ("set_attribute, deep text", "select dbms_cloud_ai_agent.set_attribute('K', 'task', 'tools', %s)",
         ("[" * 5000,), "22P02"),
        ("set_attributes, deep text", "select dbms_cloud_ai_agent.set_attributes('K', 'task', %s)",
         ('{"tools": ' + "[" * 5000 + "}",), "22P02"),
        ("set_attributes, deep JSON", "select dbms_cloud_ai_agent.set_attributes('K', 'task', %s)",
         ('{"tools": ' + "[" * 12 + "]" * 12 + "}",), "54000"),
    ]
    for what, sql, args, state in cases:
        with case(what), raises(state):
            alice.execute(sql, args)
    assert alice.execute("select dbms_cloud_ai_agent.run_tool('SIZE', %s)",
                         (json.dumps({"a": big}),)).fetchone()[0] == str(len(big))
    assert llm.requests == []
