"""Select AI Agent, safety (issue 33, section 5): a function tool never runs with
the extension's privileges, and a role cannot put another role's function or
profile behind its tools without a grant.

- Inside a tool: current_user and session_user are the caller's; SET ROLE
  dbms_cloud_ai_owner, a call of dbms_cloud_ai._write and a forged caller
  setting are refused or change nothing; other roles' rows stay invisible.
- A SECURITY DEFINER function the caller may execute runs as its owner, as
  PostgreSQL says, and the run's rows stay the caller's.
- Another role's function without EXECUTE: refused when the tool is created,
  changed or imported, and at run time when EXECUTE was revoked afterwards.
- A shared team: every caller must be able to execute the tool's function,
  and so must the tool's owner (before the fix a grantee still ran a function
  its owner had lost).
- Another role's profile not shared: refused for an agent and a SQL tool.
"""

from __future__ import annotations

import json

from agent_run_helpers import create, function_tool, own_schema, rows, run_team, team, tool_history
from fake_llm import Answer, ToolCalls, tool_results
from helpers import case, make_profile, raises

A = "dbms_cloud_ai_agent"


def results_sent(req) -> list[str]:
    return [r["content"] for r in tool_results(req.wire, req.json)]


PROBE = """create function alice.probe(what text) returns text language plpgsql as $$
declare r text;
begin
  case what
    when 'who' then return current_user || '/' || session_user;
    when 'set_role' then set role dbms_cloud_ai_owner; return current_user;
    when 'set_config_role' then perform set_config('role', 'dbms_cloud_ai_owner', false);
                                 return current_user;
    when 'write' then perform dbms_cloud_ai._write(repeat('0', 32), 'bob', null, null);
                      return 'wrote';
    when 'read' then
      select string_agg(t, ',') into r from (
        select owner::text as t from dbms_cloud_ai._agent_object where owner <> 'alice'
        union all select owner from dbms_cloud_ai._agent_team_run where owner <> 'alice'
        union all select owner from dbms_cloud_ai._agent_tool_run where owner <> 'alice'
        union all select owner from dbms_cloud_ai._profile where owner <> 'alice') x;
      return coalesce(r, 'none');
    when 'caller' then perform set_config('dbms_cloud_ai.caller', 'bob', false);
                       return dbms_cloud_ai._caller();
  end case;
end $$"""


def test_inside_a_function_tool_the_caller_has_only_its_own_privileges(db, alice, bob, llm):
    own_schema(db)
    team(db, bob, llm, name="BT")                    # bob's rows exist
    alice.execute(PROBE)
    function_tool(db, alice, "PROBE", "probe")

    def tool(what):
        return alice.execute(f"select {A}.run_tool('PROBE', %s)", (json.dumps({"what": what}),)).fetchone()[0]
    assert tool("who") == "alice/alice"
    assert tool("read") == "none"
    assert tool("caller") == "alice"
    for what in ("set_role", "set_config_role", "write"):
        with case(what), raises("42501"):
            tool(what)
    # The same from a team run: the refusals end the run (42501), the rest go to the model.
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("PROBE",)),), credential="C2")
    llm.script(ToolCalls([{"name": "PROBE", "arguments": {"what": w}} for w in ("who", "read", "caller")]),
               Answer("done"))
    assert run_team(alice, "T", "x") == "done"
    assert results_sent(llm.requests[-1]) == ["alice/alice", "none", "alice"]
    llm.script(ToolCalls([{"name": "PROBE", "arguments": {"what": "set_role"}}]))
    with raises("42501"):
        run_team(alice, "T", "x")
    assert alice.execute("select current_user").fetchone()[0] == "alice"
    assert db.admin.execute("select distinct owner from dbms_cloud_ai._agent_tool_run").fetchall() == [("alice",)]
    assert db.admin.execute("select count(*) from dbms_cloud_ai._agent_object where owner = 'bob'"
                            ).fetchone()[0] == 3


def test_a_security_definer_function_runs_as_its_owner_and_nothing_more(db, alice, bob, llm):
    own_schema(db, "bob")
    bob.execute("create function bob.who() returns text language sql security definer "
                "set search_path = pg_catalog as $$ select current_user || '/' || session_user $$")
    bob.execute("revoke execute on function bob.who() from public")
    bob.execute("grant execute on function bob.who() to alice")
    db.admin.execute("grant usage on schema bob to alice")
    function_tool(db, alice, "WHO", "bob.who")
    assert alice.execute(f"select {A}.run_tool('WHO', '{{}}')").fetchone()[0] == "bob/alice"
    assert [t["tool_name"] for t in tool_history(alice)] == ["WHO"]
    assert rows(bob, f"select * from {A}.user_ai_agent_tool_history") == []
    assert db.admin.execute("select owner from dbms_cloud_ai._agent_tool_run").fetchall() == [("alice",)]


def test_another_roles_function_needs_a_grant_at_create_change_import_and_run(db, alice, bob, llm):
    own_schema(db)
    alice.execute("create function alice.secret(a int default 0) returns text language sql as $$ select 's' $$")
    alice.execute("revoke execute on function alice.secret(int) from public")
    db.admin.execute("grant usage on schema alice to bob")
    make_profile(bob, llm)
    with raises("42501"):
        create(db, bob, "TOOL", "S", {"function": "alice.secret"})
    create(db, bob, "TOOL", "S", {"function": "length"})
    with raises("42501"):
        bob.execute(f"select {A}.set_attribute('S', 'tool', 'function', 'alice.secret')")
    spec = {"team_name": "IT", "name": "IA", "attributes": {"role": "r"},
            "task": {"task_name": "IK", "attributes": {"instruction": "x", "tools": ["IS"]}},
            "tools": [{"tool_name": "IS", "attributes": {"function": "alice.secret"}}]}
    with raises("42501"):
        bob.execute(f"select {A}.import_team('P', 'IT', %s)", (json.dumps(spec),))
    assert bob.execute(f"select count(*) from {A}.user_ai_agent_tools").fetchone()[0] == 1
    # granted, made, then revoked: refused when run, before any request
    alice.execute("grant execute on function alice.secret(int) to bob")
    create(db, bob, "TOOL", "S2", {"function": "alice.secret"})
    team(db, bob, llm, steps=(("A", "K", "x", ("S2",)),), make=False)
    alice.execute("revoke execute on function alice.secret(int) from bob")
    llm.reset()
    with raises("42501"):
        bob.execute(f"select {A}.run_tool('S2', '{{}}')")
    with raises("42501"):
        run_team(bob, "T", "x")
    assert llm.requests == []


def test_a_shared_teams_function_must_be_executable_by_its_owner_and_every_caller(db, alice, bob, llm):
    db.admin.execute("create function public.shared_fn() returns text language sql "
                     "as $$ select 'ran as ' || current_user $$")
    db.admin.execute("revoke execute on function public.shared_fn() from public")
    db.admin.execute("grant execute on function public.shared_fn() to alice")
    function_tool(db, alice, "F", "public.shared_fn")
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("F",)),))
    alice.execute(f"select {A}.grant_team_access('T', 'bob')")
    alice.execute("select dbms_cloud_ai.grant_profile_access('P', 'bob')")
    llm.reset()
    with raises("42501"):                                   # bob may not execute it
        run_team(bob, '"alice"."T"', "x")
    db.admin.execute("grant execute on function public.shared_fn() to bob")
    llm.script(ToolCalls([{"name": "F", "arguments": {}}]), Answer("done"))
    assert run_team(bob, '"alice"."T"', "x") == "done"
    assert results_sent(llm.requests[-1]) == ["ran as bob"]
    # The owner loses EXECUTE: the grantee, who still holds it, is refused too.
    db.admin.execute("revoke execute on function public.shared_fn() from alice")
    llm.reset()
    with raises("42501"):
        run_team(bob, '"alice"."T"', "x")
    assert llm.requests == []


def test_another_roles_profile_is_refused_unless_shared(db, alice, bob, llm):
    make_profile(alice, llm, "AP")
    make_profile(bob, llm)
    for kind, attrs in (("AGENT", {"profile_name": '"alice"."AP"', "role": "r"}),
                        ("TOOL", {"tool_type": "SQL", "tool_params": {"profile_name": '"alice"."AP"'}})):
        with case(kind), raises("42704"):
            create(db, bob, kind, "X", attrs)
    # shared, used, then revoked: the run is refused before any request
    alice.execute("select dbms_cloud_ai.grant_profile_access('AP', 'bob')")
    create(db, bob, "AGENT", "A", {"profile_name": '"alice"."AP"', "role": "r", "enable_human_tool": False})
    create(db, bob, "TASK", "K", {"instruction": "x", "enable_human_tool": False})
    create(db, bob, "TEAM", "T", {"agents": [{"name": "A", "task": "K"}]})
    alice.execute("select dbms_cloud_ai.revoke_profile_access('AP', 'bob')")
    llm.reset()
    with raises("42704"):
        run_team(bob, "T", "x")
    assert llm.requests == []


def test_a_rag_tool_cannot_reach_another_roles_vector_index(db, alice, bob, llm):
    alice.execute("create table alice.handbook (id int primary key, body text)")
    alice.execute("insert into alice.handbook values (1, 'The secret code is 4242.')")
    make_profile(alice, llm, "EMB", credential="CEMB", embedding_model="text-embedding-3-small")
    alice.execute("select dbms_cloud_ai.create_vector_index('DOCS', %s)",
                  (json.dumps({"location": "table:alice.handbook(id, body)", "profile_name": "EMB"}),))
    for n, index in enumerate(("DOCS", '"alice"."DOCS"', "alice.DOCS")):
        bob.execute("select dbms_cloud_ai.create_profile(%s, %s)", (f"BR{n}", json.dumps(
            {"provider": "openai", "provider_endpoint": llm.url, "vector_index_name": index})))
        create(db, bob, "TOOL", f"R{n}", {"tool_type": "RAG", "tool_params": {"profile_name": f"BR{n}"}})
        llm.reset()
        with case(index), raises("42704"):
            bob.execute(f"select {A}.run_tool('R{n}', 'what is the secret code?')")
        assert llm.requests == []


def test_a_shared_teams_unqualified_function_cannot_reach_the_callers_own_schema(db, alice, bob, llm):
    """alice's tool names "wipe" unqualified; bob's search_path finds bob.wipe, bob's own
    function: alice (no USAGE on schema bob) may not execute it, so bob's run is refused."""
    own_schema(db, "bob")
    bob.execute("create table bob.precious (x int)")
    bob.execute("insert into bob.precious values (1)")
    bob.execute("create function bob.wipe() returns text language sql "
                "as $$ delete from bob.precious; select 'wiped' $$")
    function_tool(db, alice, "WIPE", "wipe")            # resolves to nothing for alice: accepted
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("WIPE",)),))
    alice.execute(f"select {A}.grant_team_access('T', 'bob')")
    alice.execute("select dbms_cloud_ai.grant_profile_access('P', 'bob')")
    llm.reset()
    llm.script(ToolCalls([{"name": "WIPE", "arguments": {}}]), Answer("done"))
    with raises("42501"):
        run_team(bob, '"alice"."T"', "x")
    assert llm.requests == []
    assert bob.execute("select count(*) from bob.precious").fetchone()[0] == 1
