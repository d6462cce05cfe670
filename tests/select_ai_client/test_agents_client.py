"""select_ai.agent against a real server: tools, tasks, agents and teams through the client's
plans (sync and async), their ORA numbers (20050 agent, 20051 task, 20052 tool, 20053 team),
and the Oracle SQL that scripts send about them through a cursor."""

from __future__ import annotations

import asyncio
import json

import oracledb
import pytest
import select_ai
from fake_llm import Answer, ToolCalls
from select_ai.agent import (
    Agent,
    AgentAttributes,
    AsyncAgent,
    AsyncTask,
    AsyncTeam,
    Task,
    TaskAttributes,
    TaskHistory,
    Team,
    TeamAttributes,
    TeamHistory,
    Tool,
    ToolHistory,
    ToolType,
    get_definition,
)
from select_ai.errors import AgentNotFoundError, AgentTeamNotFoundError, AgentToolNotFoundError
from select_ai_client.test_client_foundation import dsn


@pytest.fixture
def client(db, llm):
    """select_ai connected as alice, who has a profile over a table of hers."""
    alice = db.connect("alice")
    alice.execute("select dbms_cloud.create_credential('CRED', 'user', 'sk-test-0123456789abcdef')")
    alice.execute("create table alice.people (id int primary key, name text)")
    select_ai.connect(user="alice", password="unused", dsn=dsn(db))
    select_ai.Profile("P1", attributes=select_ai.ProfileAttributes(
        credential_name="CRED", provider=select_ai.Provider(provider_endpoint=llm.url, model="m-0"),
        object_list=[{"owner": "alice", "name": "people"}]))
    yield alice
    select_ai.disconnect()


def ora(excinfo) -> int:
    assert isinstance(excinfo.value, oracledb.DatabaseError)
    return excinfo.value.args[0].code


def test_a_tool_round_trips_and_its_refusals_carry_ora_20052(client):
    tool = Tool.create_sql_tool("PEOPLE_SQL", profile_name="P1", description="people",
                                instruction="Answer from the people table")
    fetched = Tool.fetch("people_sql")
    assert fetched.description == "people"
    assert fetched.attributes.tool_type == ToolType.SQL
    assert fetched.attributes.tool_params.profile_name == "P1"
    assert fetched.attributes.instruction == "Answer from the people table"
    assert [t.tool_name for t in Tool.list("^PEOPLE_")] == ["PEOPLE_SQL"]
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        Tool.create_sql_tool("PEOPLE_SQL", profile_name="P1")
    assert ora(excinfo) == 20052
    Tool.create_sql_tool("PEOPLE_SQL", profile_name="P1", description="again", replace=True)
    assert Tool.fetch("PEOPLE_SQL").description == "again"
    tool.disable()
    assert client.execute("select status from dbms_cloud_ai_agent.user_ai_agent_tools "
                          "where tool_name = 'PEOPLE_SQL'").fetchone()[0] == "DISABLED"
    tool.delete(force=True)
    with pytest.raises(AgentToolNotFoundError):
        Tool.fetch("PEOPLE_SQL")
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        tool.delete()
    assert ora(excinfo) == 20052
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        list(Tool.list("*["))
    assert ora(excinfo) == 12726


def test_agents_tasks_and_teams_async_with_their_ora_numbers(client, db):
    select_ai.create_pool_async(user="alice", password="unused", dsn=dsn(db))

    async def scenario():
        agent = AsyncAgent("ANALYST", attributes=AgentAttributes(profile_name="P1", role="You count people"))
        await agent.create()
        task = AsyncTask("COUNT_PEOPLE", attributes=TaskAttributes(instruction="Count: {query}",
                                                                    enable_human_tool=False))
        await task.create()
        team = AsyncTeam("PEOPLE_TEAM", attributes=TeamAttributes(
            agents=[{"name": "ANALYST", "task": "COUNT_PEOPLE"}]), description="a team")
        await team.create(enabled=False)
        await agent.set_attribute("role", "You count people carefully")
        assert agent.attributes.role == "You count people carefully"
        fetched = await AsyncTeam.fetch("PEOPLE_TEAM")
        assert fetched.attributes.agents == [{"name": "ANALYST", "task": "COUNT_PEOPLE"}]
        assert fetched.description == "a team"
        assert [t.task_name async for t in AsyncTask.list("count")] == ["COUNT_PEOPLE"]
        assert (await AsyncTask.fetch("COUNT_PEOPLE")).attributes.enable_human_tool is False
        codes = []
        for again in (agent, task, team):
            with pytest.raises(oracledb.DatabaseError) as excinfo:
                await again.create()
            codes.append(ora(excinfo))
        assert codes == [20050, 20051, 20053]
        await team.delete(force=True)
        with pytest.raises(AgentTeamNotFoundError):
            await AsyncTeam.fetch("PEOPLE_TEAM")
        await task.delete()
        await agent.delete()
    asyncio.run(scenario())
    with pytest.raises(AgentNotFoundError):
        Agent.fetch("ANALYST")


def test_oracle_sql_about_agents_through_a_cursor(client):
    Task("T1", attributes=TaskAttributes(instruction="x")).create()
    Team("TEAM_1", attributes=TeamAttributes(agents=[])).delete(force=True)
    with select_ai.cursor() as cur:
        cur.execute("SELECT t.task_name, t.status FROM C##CLOUD$SERVICE.USER_AI_AGENT_TASKS t "
                    "WHERE REGEXP_LIKE(t.task_name, :pattern, 'i')", pattern="^t")
        assert cur.fetchall() == [("T1", "ENABLED")]
        cur.callproc("C##CLOUD$SERVICE.DBMS_CLOUD_AI_AGENT.DISABLE_TASK",
                     keyword_parameters={"task_name": "T1"})
        cur.execute("SELECT status FROM USER_AI_AGENT_TASKS WHERE task_name = :n", n="T1")
        assert cur.fetchone() == ("DISABLED",)
        with pytest.raises(oracledb.DatabaseError) as excinfo:
            cur.callproc("C##CLOUD$SERVICE.DBMS_CLOUD_AI_AGENT.DROP_TASK",
                         keyword_parameters={"task_name": "NO_SUCH_TASK"})
        assert ora(excinfo) == 20051
        with pytest.raises(oracledb.DatabaseError) as excinfo:
            cur.callproc("C##CLOUD$SERVICE.DBMS_CLOUD_AI_AGENT.SET_ATTRIBUTE", keyword_parameters={
                "object_name": "T1", "object_type": "task", "attribute_name": "no_such_attribute",
                "attribute_value": "1"})
        assert ora(excinfo) == 20051


def test_a_team_runs_a_plsql_tool_and_leaves_its_history(client, llm):
    """The Oracle function a script writes, its tool, a team that calls it, the run's history,
    and the definition and description of what was made."""
    with select_ai.cursor() as cur:
        cur.execute("""CREATE OR REPLACE FUNCTION add_two(p_a IN NUMBER, p_b NUMBER)
                       RETURN NUMBER IS
                         v_sum NUMBER;
                       BEGIN
                         v_sum := p_a + p_b;
                         RETURN v_sum;
                       END add_two;""")
    tool = Tool.create_pl_sql_tool("ADDER", function="add_two", description="adds",
                                   instruction="Adds two numbers")
    assert json.loads(tool.run_tool('{"p_a": 2, "p_b": 3}')) == 5
    Agent("CALC", attributes=AgentAttributes(profile_name="P1", role="You add",
                                             enable_human_tool=False)).create()
    Task("SUM", attributes=TaskAttributes(instruction="Answer: {query}", tools=["ADDER"],
                                          enable_human_tool=False)).create()
    team = Team("ADDING", attributes=TeamAttributes(agents=[{"name": "CALC", "task": "SUM"}]))
    team.create()
    llm.script(ToolCalls([{"name": "ADDER", "arguments": {"p_a": 2, "p_b": 3}}]), Answer("It is 5."))
    assert team.run("what is 2 + 3?") == "It is 5."
    [run] = TeamHistory.list(team_name="ADDING")
    assert run.state == "SUCCEEDED"
    [task_run] = TaskHistory.list(team_exec_id=run.team_exec_id)
    assert (task_run.task_name, task_run.agent_name) == ("SUM", "CALC")
    [call] = ToolHistory.list(tool_name="ADDER", team_exec_id=run.team_exec_id)
    assert call.input == {"p_a": 2, "p_b": 3}
    assert "CREATE_TEAM" in get_definition("TEAM", "ADDING").upper()
    assert "ADDER" in team.list_tools()
    with pytest.raises(ValueError):
        list(TeamHistory.list(limit=0))
