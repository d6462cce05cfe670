from agent_run_helpers import function_tool, own_schema, run_team, team, team_history, tool_history
from fake_llm import Answer, ToolCalls


def test_smoke(db, alice, llm):
    own_schema(db)
    alice.execute("create function add2(a integer, b integer) returns integer language sql as 'select a + b'")
    function_tool(db, alice, "ADDER", "add2")
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("ADDER",)),))
    llm.script(ToolCalls([{"name": "ADDER", "arguments": {"a": 2, "b": 3}}]), Answer("five"))
    assert run_team(alice, "T", "what is 2+3") == "five"
    print(team_history(alice), tool_history(alice))
    assert tool_history(alice)[0]["output"] == "5"
