"""RUN_TOOL outside a team is accounted as a run is (issue 33, section 4): the tool
call, and the model call a SQL tool makes, are the caller's records."""

from __future__ import annotations

from agent_run_helpers import create, own_schema
from fake_llm import Answer
from helpers import make_profile


def _calls(conn):
    return conn.execute("select action, purpose, model, status from dbms_cloud_ai.user_cloud_ai_calls "
                        "order by created").fetchall()


def test_run_tool_records_the_tool_and_its_model_call(db, alice, bob, llm):
    own_schema(db)
    alice.execute("create table alice.items (name text, price int)")
    alice.execute("insert into alice.items values ('pen', 2), ('book', 12)")
    alice.execute("set statement_timeout = '20s'")
    make_profile(alice, llm, "SQLP", credential="C2", object_list=[{"owner": "alice", "name": "items"}])
    create(db, alice, "TOOL", "DB", {"instruction": "Query the shop", "tool_type": "SQL",
                                     "tool_params": {"profile_name": "SQLP"}})
    before = len(_calls(alice))
    llm.script(Answer("SELECT count(*) AS n FROM alice.items WHERE price > 5"))
    out = alice.execute("select dbms_cloud_ai_agent.run_tool('DB', %s)",
                        ('{"query": "how many cost more than 5"}',)).fetchone()[0]
    assert '"n"' in out
    new = _calls(alice)[before:]
    assert [(a, p, s) for a, p, _, s in new if p == "tool"] == [("AGENT", "tool", "ok")]
    assert any(a == "AGENT" and p != "tool" and s == "ok" for a, p, _, s in new), new
    assert bob.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_calls").fetchone()[0] == 0
