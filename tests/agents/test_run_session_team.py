"""The session's team (SET_TEAM) naming a team shared with the caller as
"OWNER"."TEAM": used while the grant stands, checked again on every read."""

from __future__ import annotations

from agent_run_helpers import team, team_history
from fake_llm import Answer
from helpers import raises


def test_a_shared_session_team_runs_until_its_grant_is_revoked(db, alice, bob, llm):
    team(db, alice, llm)
    with raises("42704"):                                   # not shared with bob yet
        bob.execute("""select dbms_cloud_ai_agent.set_team('"alice"."T"')""")
    alice.execute("select dbms_cloud_ai_agent.grant_team_access('T', 'bob')")
    alice.execute("select dbms_cloud_ai.grant_profile_access('P', 'bob')")
    bob.execute("""select dbms_cloud_ai_agent.set_team('"alice"."T"')""")
    assert bob.execute("select dbms_cloud_ai_agent.get_team()").fetchone()[0] == '"alice"."T"'
    llm.script(Answer("shared session answer"))
    assert bob.execute("select dbms_cloud_ai.select_ai('agent hello')").fetchone()[0] == \
        "shared session answer"
    assert [(h["team_name"], h["state"]) for h in team_history(bob)] == [("T", "SUCCEEDED")]

    alice.execute("select dbms_cloud_ai_agent.revoke_team_access('T', 'bob')")
    assert bob.execute("select dbms_cloud_ai_agent.get_team()").fetchone()[0] is None
    with raises("55000"):
        bob.execute("select dbms_cloud_ai.select_ai('agent hello')")
    assert len(llm.requests) == 1


def test_a_session_team_setting_naming_an_unshared_team_is_not_used(db, alice, bob, llm):
    team(db, alice, llm)
    bob.execute("""set dbms_cloud_ai.agent_team = '"alice"."T"'""")
    assert bob.execute("select dbms_cloud_ai_agent.get_team()").fetchone()[0] is None
    with raises("55000"):
        bob.execute("select dbms_cloud_ai.generate('hi', action => 'agent')")


def test_the_owner_may_name_its_own_team_qualified(db, alice, llm):
    team(db, alice, llm)
    alice.execute("""select dbms_cloud_ai_agent.set_team('"alice"."T"')""")
    assert alice.execute("select dbms_cloud_ai_agent.get_team()").fetchone()[0] == "T"
