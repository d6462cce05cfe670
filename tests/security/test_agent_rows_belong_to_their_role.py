"""Select AI Agent, safety (issue 33, section 5): the agent tables' rows belong to
the role that made them, whatever the others try.

- Direct INSERT, UPDATE, DELETE, TRUNCATE, locking reads and LOCK TABLE on the
  five agent tables, with rows in each (the owner's and a grantee's): 42501.
  No view of dbms_cloud_ai_agent takes a write either.
- A grantee of a shared team reads the team's row only: none of the owner's
  agents, tasks, tools, attributes or runs; describe_team names no function,
  profile or tool parameter; its own runs of the team are its rows, accounted
  and budgeted to it.
- Reused role names: a role that owns tools, a shared team and run history is
  dropped and a new role of its name created: it sees nothing of the old one,
  cannot run or change the old team; a grant to a dropped grantee does not
  pass to a new role of that name; drop_role_data removes every agent row of
  the dropped role, the grants naming it as grantee included.
"""

from __future__ import annotations

import json

import psycopg
import pytest
from agent_run_helpers import function_tool, own_schema, rows, run_team, team, team_history
from fake_llm import Answer, ToolCalls
from helpers import case, drop_role, hint_of, make_role, raises

A = "dbms_cloud_ai_agent"
AGENT_TABLES = ("dbms_cloud_ai._agent_object", "dbms_cloud_ai._agent_team_grant",
                "dbms_cloud_ai._agent_team_run", "dbms_cloud_ai._agent_task_run",
                "dbms_cloud_ai._agent_tool_run")
LOCK_MODES = ("row share", "row exclusive", "share update exclusive", "share",
              "share row exclusive", "exclusive", "access exclusive")


def shared_team(db, owner, grantee, llm, grantee_name=None):
    """owner's team T with a function tool, shared (team and profile) with grantee; one run each."""
    who = owner.info.user
    own_schema(db, who)
    owner.execute(f"create function {who}.echo(a text) returns text language sql as 'select a'")
    function_tool(db, owner, "ECHO", f"{who}.echo")
    team(db, owner, llm, steps=(("A", "K", "Answer {query}", ("ECHO",)),))
    name = grantee_name or grantee.info.user
    db.admin.execute(f"grant usage on schema {who} to {name}")
    owner.execute(f"select {A}.grant_team_access('T', %s)", (name,))
    owner.execute("select dbms_cloud_ai.grant_profile_access('P', %s)", (name,))
    for conn, team_name in ((owner, "T"), (grantee, f'"{who}"."T"')):
        llm.script(ToolCalls([{"name": "ECHO", "arguments": {"a": "hi"}}]), Answer("done"))
        assert run_team(conn, team_name, "go") == "done"


def test_agent_tables_refuse_every_direct_write_and_lock(db, alice, bob, llm):
    shared_team(db, alice, bob, llm)
    for t in AGENT_TABLES:
        assert db.admin.execute(f"select count(*) from {t}").fetchone()[0] > 0, t
    for conn in (alice, bob):
        for t in AGENT_TABLES:
            col = db.admin.execute("""select quote_ident(attname) from pg_attribute
                                       where attrelid = %s::regclass and attnum > 1 and not attisdropped
                                       order by attnum limit 1""", (t,)).fetchone()[0]
            for stmt in (f"insert into {t} default values",
                         f"insert into {t} select * from {t}",
                         f"update {t} set {col} = {col}",
                         f"delete from {t}",
                         f"truncate {t}",
                         f"select 1 from {t} for update",
                         f"select 1 from {t} for key share"):
                with case(f"{conn.info.user}: {stmt}"), raises("42501"):
                    conn.execute(stmt)
            conn.execute("begin")
            for mode in LOCK_MODES:
                conn.execute("savepoint s")
                with case(f"{conn.info.user}: lock {t} in {mode} mode"), raises("42501"):
                    conn.execute(f"lock table {t} in {mode} mode nowait")
                conn.execute("rollback to savepoint s")
            conn.execute("rollback")
    views = [v for (v,) in db.admin.execute(
        "select format('%%I.%%I', schemaname, viewname) from pg_views where schemaname = %s", (A,))]
    assert len(views) >= 20
    for v in views:
        for priv in ("INSERT", "UPDATE", "DELETE", "TRUNCATE"):
            with case(f"{v} {priv}"):
                assert not db.admin.execute("select has_table_privilege('dbms_cloud_ai_user', %s, %s)",
                                            (v, priv)).fetchone()[0]
    with raises("42501"):
        alice.execute(f"delete from {A}.user_ai_agent_tools")


def test_a_grantee_sees_the_team_row_only_and_its_runs_are_its_own(db, alice, bob, llm):
    shared_team(db, alice, bob, llm)
    assert bob.execute("select owner, object_type, object_name from dbms_cloud_ai._agent_object"
                       ).fetchall() == [("alice", "TEAM", "T")]
    for view in ("user_ai_agents", "user_ai_agent_tasks", "user_ai_agent_tools", "user_ai_agent_teams",
                 "user_ai_agent_attributes", "user_ai_agent_task_attributes",
                 "user_ai_agent_tool_attributes", "user_ai_agent_team_attributes",
                 "user_ai_agent_team_grants"):
        with case(view):
            assert bob.execute(f"select count(*) from {A}.{view}").fetchone()[0] == 0
    assert bob.execute(f"select owner, agent_team_name from {A}.all_ai_agent_teams").fetchall() == [("alice", "T")]
    described = bob.execute(f"""select {A}.describe_team('"alice"."T"')""").fetchone()[0]
    for secret in ("alice.echo", "echo(", "profile_name", "tool_params", '"P"'):
        with case(secret):
            assert secret not in described
    for call in (f"""select {A}.get_definition('tool', 'ECHO')""", f"select {A}.run_tool('ECHO', '{{}}')",
                 f"""select {A}.export_team('"alice"."T"')""",
                 f"""select {A}.set_attribute('"alice"."T"', 'team', 'description', 'mine')""",
                 f"""select {A}.drop_team('"alice"."T"')""",
                 f"""select {A}.grant_team_access('"alice"."T"', 'carol')"""):
        with case(call), pytest.raises(psycopg.Error) as e:
            bob.execute(call)
        assert e.value.sqlstate in ("42704", "22023", "42501"), (call, e.value.sqlstate)
    # runs: each role reads its own; bob's are accounted to bob
    assert [h["team_name"] for h in team_history(bob)] == ["T"]
    assert [h["team_name"] for h in team_history(alice)] == ["T"]
    for t in ("_agent_team_run", "_agent_task_run", "_agent_tool_run", "_model_call"):
        with case(t):
            assert {o for (o,) in bob.execute(f"select distinct owner from dbms_cloud_ai.{t}")} == {"bob"}
    assert db.admin.execute("select owner, team_owner from dbms_cloud_ai._agent_team_run order by owner"
                            ).fetchall() == [("alice", "alice"), ("bob", "alice")]
    assert rows(bob, "select action from dbms_cloud_ai.user_cloud_ai_calls where purpose = 'answer'") == \
        [{"action": "AGENT"}] * 2
    # and budgeted to bob: bob's exhausted budget stops bob, not alice
    db.admin.execute("select dbms_cloud_ai.set_token_budget('bob', 1)")
    llm.reset()
    with raises("53400"):
        run_team(bob, '"alice"."T"', "again")
    assert llm.requests == []
    llm.script(Answer("alice still runs"))
    assert run_team(alice, "T", "again") == "alice still runs"


def test_a_run_cannot_join_or_resume_another_roles_conversation(db, alice, bob, llm):
    team(db, alice, llm, human=True)
    team(db, bob, llm, human=True, credential="BC")
    cid = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    llm.script(ToolCalls([{"name": "human", "arguments": {"question": "which one?"}}]))
    assert run_team(alice, "T", "alice's private prompt", {"conversation_id": cid}) == "which one?"
    llm.reset()
    with raises("42704"):
        run_team(bob, "T", "the first one", {"conversation_id": cid})
    assert llm.requests == []
    assert [h["state"] for h in team_history(alice)] == ["WAITING_FOR_HUMAN"]
    assert bob.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                       ).fetchone()[0] == 0


def test_a_shared_teams_waiting_run_is_resumed_by_that_team_only(db, alice, bob, llm):
    team(db, alice, llm, human=True, role="ALICE'S ROLE")
    alice.execute(f"select {A}.grant_team_access('T', 'bob')")
    alice.execute("select dbms_cloud_ai.grant_profile_access('P', 'bob')")
    team(db, bob, llm, human=True, credential="BC", role="BOB'S ROLE")
    cid = bob.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    llm.script(ToolCalls([{"name": "human", "arguments": {"question": "which?"}}]))
    assert run_team(bob, '"alice"."T"', "shared run", {"conversation_id": cid}) == "which?"
    # bob's own team T in the same conversation starts its own run (before the fix it
    # resumed the shared team's run, with alice's messages on bob's team)
    llm.script(Answer("own answer"))
    assert run_team(bob, "T", "own run", {"conversation_id": cid}) == "own answer"
    assert "ALICE'S ROLE" not in json.dumps(llm.requests[-1].json)
    llm.script(Answer("shared answer"))
    assert run_team(bob, '"alice"."T"', "the first", {"conversation_id": cid}) == "shared answer"
    assert "ALICE'S ROLE" in json.dumps(llm.requests[-1].json)
    assert db.admin.execute("select team_owner, state from dbms_cloud_ai._agent_team_run order by start_date"
                            ).fetchall() == [("alice", "SUCCEEDED"), ("bob", "SUCCEEDED")]


@pytest.fixture
def ghost(db):
    drop_role(db.admin, "ghost")
    make_role(db.admin, "ghost")
    yield
    drop_role(db.admin, "ghost")


def agent_rows(db, role) -> dict:
    out = {}
    for t in AGENT_TABLES:
        n = db.admin.execute(f"select count(*) from {t} where owner = %s", (role,)).fetchone()[0]
        if n:
            out[t] = n
    grants = db.admin.execute("select count(*) from dbms_cloud_ai._agent_team_grant where grantee = %s",
                              (role,)).fetchone()[0]
    if grants:
        out["grantee"] = grants
    return out


def test_a_new_role_of_a_dropped_roles_name_gets_nothing_of_its_agents(db, alice, llm, ghost):
    old = db.connect("ghost")
    shared_team(db, old, alice, llm)                       # ghost owns, alice is the grantee
    alice.execute(f"select {A}.create_team('AT', %s)", (json.dumps({"agents": [{"name": "A", "task": "K"}]}),))
    make_role(db.admin, "ghost_grantee")
    try:
        alice.execute(f"select {A}.grant_team_access('AT', 'ghost_grantee')")
        stored = agent_rows(db, "ghost")
        assert set(stored) == set(AGENT_TABLES) - {"dbms_cloud_ai._agent_team_grant"} | {
            "dbms_cloud_ai._agent_team_grant"}, stored
        old.close()
        drop_role(db.admin, "ghost")
        drop_role(db.admin, "ghost_grantee")
        make_role(db.admin, "ghost")
        make_role(db.admin, "ghost_grantee")
        new = db.connect("ghost")
        for t in AGENT_TABLES:
            with case(t):
                assert new.execute(f"select count(*) from {t}").fetchone()[0] == 0
        for view in ("user_ai_agent_tools", "user_ai_agent_teams", "user_ai_agent_team_history",
                     "user_ai_agent_tool_history", "all_ai_agent_teams"):
            with case(view):
                assert new.execute(f"select count(*) from {A}.{view}").fetchone()[0] == 0
        llm.reset()
        for what, call in (("run the old team", lambda: run_team(new, "T", "go")),
                           ("run the old tool", lambda: new.execute(f"select {A}.run_tool('ECHO', '{{}}')")),
                           ("a new tool", lambda: new.execute(
                               f"select {A}.create_tool('ECHO', '{{\"function\": \"length\"}}')")),
                           ("drop the old team", lambda: new.execute(f"select {A}.drop_team('T')"))):
            with case(what), raises("42501") as e:
                call()
            assert "drop_role_data('ghost')" in hint_of(e), what
        # the old owner's grant is dead for alice too (shared things die with their owner)
        with raises("42704"):
            run_team(alice, '"ghost"."T"', "go")
        # a grant to the dropped ghost_grantee does not reach the new one
        heir = db.connect("ghost_grantee")
        assert heir.execute(f"select count(*) from {A}.all_ai_agent_teams").fetchone()[0] == 0
        with raises("42704"):
            run_team(heir, '"alice"."AT"', "go")
        assert llm.requests == []
        # drop_role_data removes every agent row of the dropped roles
        adm = db.connect("ai_admin")
        removed = adm.execute("select dbms_cloud_ai.drop_role_data('ghost')").fetchone()[0]
        assert removed >= sum(v for k, v in stored.items() if k != "grantee")
        assert agent_rows(db, "ghost") == {}
        # the grant naming the dropped grantee (which never stored a row: the heir
        # is not bound to it, so it goes once no role has the name)
        assert agent_rows(db, "ghost_grantee") == {"grantee": 1}
        heir.close()
        drop_role(db.admin, "ghost_grantee")
        adm.execute("select dbms_cloud_ai.drop_role_data('ghost_grantee')")
        assert agent_rows(db, "ghost_grantee") == {}
        # the new ghost starts from scratch
        new.execute(f"select {A}.create_tool('ECHO', '{{\"function\": \"length\"}}')")
        assert new.execute(f"select tool_name from {A}.user_ai_agent_tools").fetchall() == [("ECHO",)]
    finally:
        drop_role(db.admin, "ghost_grantee")
