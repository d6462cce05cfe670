"""A Select AI Agent team against the real model (issue 33): two tasks chained, the
first answering through a SQL tool over the sample schema, the second calling a
function tool with what the first found.  The fixtures: tests/real/real_fixtures.py."""

from __future__ import annotations

import json

import pytest
from agent_run_helpers import create, own_schema, run_team, task_history, team_history, tool_history
from real.real_fixtures import local_model, real, sh  # noqa: F401 - fixtures

pytestmark = pytest.mark.real


def test_a_two_task_team_with_a_sql_tool_and_a_function_tool(db, real, sh):
    own_schema(db)
    real.execute("create function alice.times_ten(n numeric) returns numeric "
                 "language sql as 'select n * 10'")
    create(db, real, "TOOL", "SHOP", {"instruction": "Answers a question about the shop's "
                                      "database (customers, products, countries)",
                                      "tool_type": "SQL", "tool_params": {"profile_name": "P"}})
    create(db, real, "TOOL", "TIMES_TEN", {"instruction": "Multiplies a number by ten",
                                           "function": "times_ten",
                                           "tool_inputs": [{"name": "n", "description": "the number"}]})
    for agent in ("COUNTER", "CALCULATOR"):
        create(db, real, "AGENT", agent, {"profile_name": "P", "enable_human_tool": False,
                                          "role": "You use the tools you are given and answer tersely."})
    create(db, real, "TASK", "COUNT", {"instruction": "Use the SHOP tool to answer this question: {query} "
                                       "Then reply with the number only.", "tools": ["SHOP"],
                                       "enable_human_tool": False})
    create(db, real, "TASK", "SCALE", {"instruction": "Call the tool TIMES_TEN with n set to the "
                                       "number in the earlier result. Reply with its result only.",
                                       "tools": ["TIMES_TEN"], "input": "COUNT",
                                       "enable_human_tool": False})
    create(db, real, "TEAM", "SHOPTEAM", {"agents": [{"name": "COUNTER", "task": "COUNT"},
                                                     {"name": "CALCULATOR", "task": "SCALE"}],
                                          "process": "sequential"})
    count = sh.admin.execute("select count(*) from sh.countries").fetchone()[0]
    answer = run_team(real, "SHOPTEAM", "How many countries are there?")
    assert team_history(real)[0]["state"] == "SUCCEEDED"
    calls = tool_history(real)
    names = {t["tool_name"] for t in calls}
    assert names == {"SHOP", "TIMES_TEN"}, [t["result"] for t in task_history(real)]
    shop = [t for t in calls if t["tool_name"] == "SHOP"]
    scaled = [t for t in calls if t["tool_name"] == "TIMES_TEN"]
    assert any(str(count) in t["output"] for t in shop), shop
    # The first task's result reached the second, whose model passed it to the function
    # (a small model may go on calling it on its own results; the answer is still the first's).
    assert float(json.loads(scaled[0]["input"])["n"]) == count, scaled
    assert str(count * 10) in answer.replace(",", ""), (answer, scaled)
