"""The catalog of DBMS_CLOUD_AI_AGENT: tools, tasks, agents and teams are
created, read through the views, changed, enabled, disabled and dropped, with
Oracle's errors as SQLSTATEs; what a tool or agent may name is checked; teams
are shared, exported, imported and recreated from get_definition."""

from __future__ import annotations

import json

import pytest
from helpers import case, make_profile, raises

A = "dbms_cloud_ai_agent"
TOOL = '{"tool_type": "SQL", "tool_params": {"profile_name": "P"}}'
TASK = '{"instruction": "Answer {query}", "tools": ["SQLT"], "enable_human_tool": false}'
AGENT = '{"profile_name": "P", "role": "You answer questions about the data"}'
TEAM = '{"agents": [{"name": "ANALYST", "task": "ANSWER"}], "process": "sequential"}'


def one(conn, sql, args=()):
    return conn.execute(sql, args).fetchone()[0]


def attrs(conn, view, col, name) -> dict:
    return dict(conn.execute(f"select attribute_name, attribute_value from {A}.{view} "
                             f"where {col} = %s", (name,)).fetchall())


def make_team(conn):
    conn.execute(f"select {A}.create_tool('sqlt', %s, description => 'SQL')", (TOOL,))
    conn.execute(f"select {A}.create_task('answer', %s)", (TASK,))
    conn.execute(f"select {A}.create_agent('analyst', %s)", (AGENT,))
    conn.execute(f"select {A}.create_team('crew', %s, description => 'the crew')", (TEAM,))


KINDS = [("tool", TOOL, "user_ai_agent_tools", "tool_name"),
         ("task", TASK, "user_ai_agent_tasks", "task_name"),
         ("agent", AGENT, "user_ai_agents", "agent_name"),
         ("team", TEAM, "user_ai_agent_teams", "agent_team_name")]


@pytest.mark.parametrize("kind,attributes,view,col", KINDS)
def test_lifecycle_of_each_kind(alice, llm, kind, attributes, view, col):
    make_profile(alice, llm)
    alice.execute(f"select {A}.create_{kind}('obj1', %s, description => 'd')", (attributes,))
    assert alice.execute(f"select {col}, status, description from {A}.{view}").fetchall() == \
        [("OBJ1", "ENABLED", "d")]
    with raises("42710"):
        alice.execute(f"select {A}.create_{kind}('OBJ1', %s)", (attributes,))
    alice.execute(f"select {A}.disable_{kind}('obj1')")
    assert one(alice, f"select status from {A}.{view}") == "DISABLED"
    with raises("55000"):
        alice.execute(f"select {A}.disable_{kind}('obj1')")
    alice.execute(f"select {A}.enable_{kind}('obj1')")
    with raises("22023"):
        alice.execute(f"select {A}.set_attribute('obj1', %s, 'no_such_attribute', 'x')", (kind.upper(),))
    alice.execute(f"select {A}.drop_{kind}('obj1')")
    assert one(alice, f"select count(*) from {A}.{view}") == 0
    for call in (f"select {A}.drop_{kind}('obj1')", f"select {A}.enable_{kind}('obj1')",
                 f"select {A}.disable_{kind}('obj1')",
                 f"select {A}.set_attribute('obj1', '{kind}', 'description', 'x')"):
        with case(call), raises("42704"):
            alice.execute(call)
    alice.execute(f"select {A}.drop_{kind}('obj1', force => true)")
    alice.execute(f"select {A}.create_{kind}('obj1', %s, status => 'disabled')", (attributes,))
    assert one(alice, f"select status from {A}.{view}") == "DISABLED"


def test_attributes_are_shown_as_given_with_oracles_defaults(alice, llm):
    make_profile(alice, llm)
    make_team(alice)
    assert attrs(alice, "user_ai_agent_task_attributes", "task_name", "ANSWER") == {
        "instruction": "Answer {query}", "tools": '["SQLT"]', "enable_human_tool": "false"}
    assert attrs(alice, "user_ai_agent_attributes", "agent_name", "ANALYST") == {
        "profile_name": "P", "role": "You answer questions about the data", "enable_human_tool": "true"}
    tool = attrs(alice, "user_ai_agent_tool_attributes", "tool_name", "SQLT")
    assert tool["tool_type"] == "SQL" and json.loads(tool["tool_params"]) == {"profile_name": "P"}
    assert "sql" in tool["instruction"].lower()     # Oracle fills in a built-in tool's instruction
    alice.execute(f"select {A}.set_attribute('analyst', 'Agent', 'role', 'DB assistant')")
    alice.execute(f"""select {A}.set_attributes('crew', 'team', '{{"process": "Sequential"}}')""")
    assert attrs(alice, "user_ai_agent_attributes", "agent_name", "ANALYST")["role"] == "DB assistant"
    assert attrs(alice, "user_ai_agent_team_attributes", "agent_team_name", "CREW")["process"] == "Sequential"
    alice.execute(f"select {A}.set_attribute('analyst', 'agent', 'supervisor', true)")
    alice.execute(f"""select {A}.set_attribute('answer', 'task', 'tools', '["SQLT"]'::jsonb)""")
    assert attrs(alice, "user_ai_agent_attributes", "agent_name", "ANALYST")["supervisor"] == "true"
    with raises("22023"):
        alice.execute(f"select {A}.set_attribute('analyst', 'agent', 'supervisor', 2::numeric)")


def test_required_and_invalid_attributes(alice, llm):
    make_profile(alice, llm)
    make_team(alice)
    for sql, state in [
            (f"""select {A}.create_task('t2', '{{"instruction": ""}}')""", "22004"),
            (f"""select {A}.create_agent('a2', '{{"role": "r"}}')""", "22004"),
            (f"""select {A}.create_team('t2', '{{"process": "sequential"}}')""", "22004"),
            (f"""select {A}.create_team('t2', '{{"agents": [{{"name": "A"}}]}}')""", "22023"),
            (f"select {A}.set_attribute('analyst', 'agent', 'role', null)", "22004"),
            (f"select {A}.set_attribute('analyst', 'agent', 'role', '')", "22004"),
            (f"select {A}.set_attribute('crew', 'team', 'process', '')", "22004"),
            (f"select {A}.set_attribute('crew', 'team', 'process', null)", "22004"),
            (f"select {A}.set_attribute('crew', 'team', 'process', 'parallel')", "22023"),
            (f"select {A}.set_attribute('crew', 'widget', 'process', 'sequential')", "22023"),
            (f"""select {A}.create_tool('t2', '{{"tool_type": "BOGUS"}}')""", "22023"),
            (f"""select {A}.create_tool('t2', '{{"instruction": "no type, no function"}}')""", "22004"),
            (f"""select {A}.create_tool('t2', '{{"tool_type": "websearch",
                                                  "tool_params": {{"credential_name": "C"}}}}')""", "0A000"),
            (f"""select {A}.create_tool('t2', '{{"tool_type": "HTTP", "tool_params": {{"credential_name": "C"}}}}')""",
             "22004"),
            (f"""select {A}.create_tool('t2', '{{"tool_type": "notification"}}')""", "22004"),
            (f"""select {A}.create_tool('t2', '{{"tool_type": "notification",
                                                  "tool_params": {{"notification_type": "email"}}}}')""", "22004"),
            (f"""select {A}.set_attribute('sqlt', 'tool', 'tool_type', 'websearch')""", "0A000"),
            (f"select {A}.create_task('bad name!', '{{}}')", "22023")]:
        with case(sql), raises(state):
            alice.execute(sql)
    alice.execute(f"""select {A}.create_tool('human', '{{"tool_type": "human"}}')""")


def test_huge_or_deep_attributes_are_refused(alice, llm):
    make_profile(alice, llm)
    deep = "[" * 50 + "]" * 50
    huge = json.dumps({"instruction": "x" * 200_000})
    with raises("54000"):
        alice.execute(f"""select {A}.create_task('t', '{{"instruction": "x", "tools": {deep}}}')""")
    with raises("54000"):
        alice.execute(f"select {A}.create_task('t', %s)", (huge,))
    alice.execute(f"select {A}.create_task('t', %s)", (json.dumps({"instruction": "x"}),))
    with raises("54000"):
        alice.execute(f"select {A}.set_attribute('t', 'task', 'tools', %s)", (deep,))
    assert one(alice, f"select count(*) from {A}.user_ai_agent_tasks") == 1


def test_a_tool_names_only_functions_its_owner_may_execute(db, alice, bob, llm):
    db.admin.execute("create function public.alice_secret(x int) returns int language sql as 'select x'")
    db.admin.execute("revoke execute on function public.alice_secret(int) from public")
    db.admin.execute("grant execute on function public.alice_secret(int) to alice")
    alice.execute(f"""select {A}.create_tool('secret', '{{"function": "alice_secret"}}')""")
    described = json.loads(one(alice, f"select {A}.describe_tool('secret')"))
    assert described["function_args"] == [{"name": "x", "type": "integer"}]
    for name in ("alice_secret", "public.alice_secret", '"public"."alice_secret"'):
        with case(name), raises("42501"):
            bob.execute(f"select {A}.create_tool('t', %s)", (json.dumps({"function": name}),))
    bob.execute(f"""select {A}.create_tool('t', '{{"function": "lower"}}')""")
    with raises("42501"):
        bob.execute(f"""select {A}.set_attribute('t', 'tool', 'function', 'public.alice_secret')""")
    # Oracle accepts a function that does not exist yet (its SDK's test_3016)
    bob.execute(f"""select {A}.create_tool('later', '{{"function": "not_there_yet"}}')""")


def test_a_role_cannot_see_change_or_use_anothers_objects(alice, bob, llm):
    make_profile(alice, llm)
    make_team(alice)
    for view in ("user_ai_agents", "user_ai_agent_tasks", "user_ai_agent_tools", "user_ai_agent_teams",
                 "user_ai_agent_attributes", "user_ai_agent_task_attributes",
                 "user_ai_agent_tool_attributes", "user_ai_agent_team_attributes",
                 "all_ai_agent_teams"):
        assert one(bob, f"select count(*) from {A}.{view}") == 0, view
    for call in (f"select {A}.drop_team('crew')", f"select {A}.disable_agent('analyst')",
                 f"select {A}.set_attribute('sqlt', 'tool', 'instruction', 'x')",
                 f"select {A}.describe_team('crew')", f"select {A}.export_team('crew')",
                 f"select {A}.get_definition('agent', 'analyst')",
                 f"""select {A}.describe_team('"alice"."CREW"')"""):
        with case(call), raises("42704"):
            bob.execute(call)
    # alice's profile is not bob's: naming it owner-qualified is refused
    with raises("42704"):
        bob.execute(f"""select {A}.create_agent('a', '{{"profile_name": "\\"alice\\".\\"P\\"", "role": "r"}}')""")
    with raises("42704"):
        bob.execute(f"""select {A}.create_tool('t', '{{"tool_type": "sql",
                                                       "tool_params": {{"profile_name": "alice.P"}}}}')""")
    bob.execute(f"select {A}.drop_team('crew', force => true)")     # bob's own: nothing
    assert one(alice, f"select count(*) from {A}.user_ai_agent_teams") == 1


def test_shared_profiles_may_be_named(alice, bob, llm):
    make_profile(alice, llm)
    alice.execute("select dbms_cloud_ai.grant_profile_access('P', 'bob')")
    bob.execute(f"""select {A}.create_agent('a', '{{"profile_name": "\\"alice\\".\\"P\\"", "role": "r"}}')""")
    # a RAG tool whose profile names no vector index is stored (as Oracle stores
    # it); running it is refused
    bob.execute(f"""select {A}.create_tool('r', '{{"tool_type": "rag",
                                                   "tool_params": {{"profile_name": "alice.P"}}}}')""")
    with raises("22023"):
        bob.execute(f"""select {A}.run_tool('r', 'what is in the documents?')""")


def test_sharing_a_team(db, alice, bob, llm):
    carol = db.connect("carol")
    make_profile(alice, llm)
    make_team(alice)
    with raises("42704"):
        bob.execute(f"""select {A}.describe_team('alice.crew')""")
    alice.execute(f"select {A}.grant_team_access('crew', 'bob')")
    alice.execute(f"select {A}.grant_team_access('crew', 'bob')")      # idempotent
    assert bob.execute(f"select owner, agent_team_name from {A}.all_ai_agent_teams").fetchall() == \
        [("alice", "CREW")]
    described = json.loads(one(bob, f"""select {A}.describe_team('"alice"."CREW"')"""))
    assert described["name"] == "CREW" and [s["tool_name"] for s in described["skills"]] == ["SQLT"]
    assert [t["tool_name"] for t in json.loads(one(bob, f"select {A}.list_tools('alice.crew')"))] == ["SQLT"]
    # the parts stay alice's: bob reads the team only, changes nothing
    assert one(bob, "select count(*) from dbms_cloud_ai._agent_object") == 1
    for call in (f"select {A}.export_team('alice.crew')", f"select {A}.disable_team('alice.crew')",
                 f"select {A}.grant_team_access('alice.crew', 'carol')"):
        # only the owner changes or exports it (an owner-qualified name is no name of bob's own)
        with case(call), raises("42501" if "grant" in call else "22023"):
            bob.execute(call)
    assert one(carol, f"select count(*) from {A}.all_ai_agent_teams") == 0
    assert alice.execute(f"select agent_team_name, grantee from {A}.user_ai_agent_team_grants").fetchall() == \
        [("CREW", "bob")]
    alice.execute(f"select {A}.revoke_team_access('crew', 'bob')")
    with raises("42704"):
        alice.execute(f"select {A}.revoke_team_access('crew', 'bob')")
    with raises("42704"):
        bob.execute(f"""select {A}.describe_team('alice.crew')""")


def test_export_import_round_trip(alice, llm):
    make_profile(alice, llm)
    make_profile(alice, llm, name="P2", key=None)
    make_team(alice)
    spec = json.loads(one(alice, f"select {A}.export_team('crew')"))
    assert spec["name"] == "ANALYST" and spec["task"]["task_name"] == "ANSWER"
    text = json.dumps(spec)
    assert '"P"' not in text and "alice" not in text and "CRED" not in text
    with raises("42710"):           # the same names exist
        alice.execute(f"select {A}.import_team('P2', 'crew2', %s)", (text,))
    assert one(alice, f"select count(*) from {A}.user_ai_agent_teams") == 1   # nothing half-imported
    spec["name"], spec["task"]["task_name"] = "ANALYST2", "ANSWER2"
    spec["tools"] = []
    alice.execute(f"select {A}.import_team('P2', 'crew2', %s)", (json.dumps(spec),))
    assert attrs(alice, "user_ai_agent_team_attributes", "agent_team_name", "CREW2")["agents"] and \
        json.loads(attrs(alice, "user_ai_agent_team_attributes", "agent_team_name", "CREW2")["agents"]) == \
        [{"name": "ANALYST2", "task": "ANSWER2"}]
    assert attrs(alice, "user_ai_agent_attributes", "agent_name", "ANALYST2")["profile_name"] == "P2"
    alice.execute(f"select {A}.import_team('P2', 'crew', %s, force => true)", (text,))
    tool = attrs(alice, "user_ai_agent_tool_attributes", "tool_name", "SQLT")
    assert json.loads(tool["tool_params"]) == {"profile_name": "P2"}
    with raises("42704"):
        alice.execute(f"select {A}.import_team('NO_SUCH_PROFILE', 'crew3', %s)", (text,))


@pytest.mark.parametrize("kind,name", [("tool", "SQLT"), ("task", "ANSWER"), ("agent", "ANALYST"),
                                       ("team", "CREW")])
def test_get_definition_recreates_the_object(alice, llm, kind, name):
    make_profile(alice, llm)
    make_team(alice)
    view = {"tool": "user_ai_agent_tool_attributes", "task": "user_ai_agent_task_attributes",
            "agent": "user_ai_agent_attributes", "team": "user_ai_agent_team_attributes"}[kind]
    col = {"team": "agent_team_name"}.get(kind, f"{kind}_name")
    before = attrs(alice, view, col, name)
    script = one(alice, f"select {A}.get_definition(%s, %s)", (kind, name))
    assert f"DBMS_CLOUD_AI_AGENT.CREATE_{kind.upper()}" in script.upper()
    alice.execute(f"select {A}.drop_{kind}(%s)", (name,))
    alice.execute(script)
    after = attrs(alice, view, col, name)
    assert {k: json.loads(v) if v[:1] in "[{" else v for k, v in after.items()} == \
        {k: json.loads(v) if v[:1] in "[{" else v for k, v in before.items()}
