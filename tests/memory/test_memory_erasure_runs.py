"""Long-term memory erasure covers Select AI Agent run history (issue 33).

A team run records its turn in the conversation (a prompt the memory job reads)
and keeps copies in its history: the team run's user_prompt and pending
messages, each task's input and result, each tool invocation's input and
output.  Erasing the subject removes those runs (team, task and tool rows) with
the prompts, and a run of the erased conversations still waiting for a human;
another role's runs stay.  A marker said in the run is followed with the
catalog-driven scan of every text-like column (tests/security/test_erasure_markers.py).
"""

from __future__ import annotations

import uuid

import memory_helpers as mh
import pytest
from agent_run_helpers import run_team, team
from fake_llm import Answer, ToolCalls
from helpers import raises
from security.test_erasure_markers import scan


@pytest.fixture
def mem(db, llm):
    llm.responder = mh.remember_phrases()
    mh.enable(db)
    return llm


def new_marker() -> str:
    return "ERASE" + uuid.uuid4().hex


def search(query):
    return ToolCalls([{"name": "search_memories", "arguments": {"query": query}}])


def history_rows(db, owner) -> dict:
    """The role's run history rows (superuser: no row-level security)."""
    return {t: db.admin.execute(f"select count(*) from dbms_cloud_ai._agent_{t}_run where owner = %s",
                                (owner,)).fetchone()[0]
            for t in ("team", "task", "tool")}


def erase(conn, subject):
    return conn.execute("select dbms_cloud_ai.erase_memories(%s, null, null)", (subject,)).fetchone()[0]


def memory_team(db, conn, llm, human=False):
    mh.memory_profile(conn, llm)
    team(db, conn, llm, steps=(("A", "K", "Answer: {query}", ()),), make=False, human=human)


def remembered_in_a_run(db, conn, llm, marker) -> str:
    """A run whose prompt states ``marker`` (the task's input and result and the
    search tool's input copy it), promoted to a memory."""
    cid = mh.conversation(conn, "run")
    llm.script(search(marker), Answer("Noted " + marker))
    run_team(conn, "T", "remember: " + marker, {"conversation_id": cid})
    mh.promote(db)
    assert marker in mh.memories(conn)
    return cid


def test_subject_erasure_removes_the_runs_that_recorded_the_erased_prompts(db, alice, bob, mem):
    ma, mb = new_marker(), new_marker()
    for conn, m in ((alice, ma), (bob, mb)):
        memory_team(db, conn, mem)
        remembered_in_a_run(db, conn, mem, m)
    rows_a, rows_b = history_rows(db, "alice"), history_rows(db, "bob")
    assert rows_a == {"team": 1, "task": 1, "tool": 1} and rows_b == rows_a
    hits = scan(db, ma)
    assert {c for c in hits if c[0].startswith("dbms_cloud_ai._agent_")} == {
        ("dbms_cloud_ai._agent_team_run", "user_prompt"), ("dbms_cloud_ai._agent_task_run", "input"),
        ("dbms_cloud_ai._agent_task_run", "result"), ("dbms_cloud_ai._agent_tool_run", "input")}
    before_b = scan(db, mb)

    assert erase(db.admin, "alice") == 1
    assert history_rows(db, "alice") == {"team": 0, "task": 0, "tool": 0}
    assert scan(db, ma) == {}
    assert history_rows(db, "bob") == rows_b and scan(db, mb) == before_b


def test_a_run_outside_memory_is_kept(db, alice, mem):
    memory_team(db, alice, mem)
    remembered_in_a_run(db, alice, mem, new_marker())
    kept = new_marker()
    alice.execute("select dbms_cloud_ai.set_attribute('P', 'long_term_memory', 'false')")
    mem.script(Answer("Fine " + kept))
    run_team(alice, "T", "no memory here " + kept)
    assert history_rows(db, "alice")["team"] == 2
    erase(db.admin, "alice")
    assert history_rows(db, "alice") == {"team": 1, "task": 1, "tool": 0}
    [(prompt,)] = db.admin.execute("select user_prompt from dbms_cloud_ai._agent_team_run").fetchall()
    assert kept in prompt


def test_a_run_waiting_for_a_human_in_an_erased_conversation_is_removed(db, alice, mem):
    memory_team(db, alice, mem, human=True)
    marker = new_marker()
    cid = remembered_in_a_run(db, alice, mem, marker)
    mem.script(ToolCalls([{"name": "human", "arguments": {"question": "Which one?"}}]))
    assert run_team(alice, "T", "and then?", {"conversation_id": cid}) == "Which one?"
    states = db.admin.execute("select state from dbms_cloud_ai._agent_team_run order by start_date")
    assert [s for (s,) in states] == ["SUCCEEDED", "WAITING_FOR_HUMAN"]
    erase(db.admin, "alice")
    assert history_rows(db, "alice") == {"team": 0, "task": 0, "tool": 0}
    assert scan(db, marker) == {}


def test_ordinary_users_cannot_erase_run_history(db, alice, bob, mem):
    memory_team(db, alice, mem)
    remembered_in_a_run(db, alice, mem, new_marker())
    before = history_rows(db, "alice")
    for conn in (alice, bob):
        with raises("42501"):
            erase(conn, "alice")
    assert history_rows(db, "alice") == before
    # nor delete a run directly: its history is the extension's to write
    with raises("42501"):
        alice.execute("delete from dbms_cloud_ai._agent_team_run")
    assert history_rows(db, "alice") == before


def test_erasing_one_memory_removes_a_run_of_its_conversation_waiting_for_a_human(db, alice, mem):
    """The waiting run's own turn is not erased (memory off: no subject), but its
    pending messages hold the conversation, the erased prompt included."""
    memory_team(db, alice, mem, human=True)
    marker = new_marker()
    cid = remembered_in_a_run(db, alice, mem, marker)
    [(mid,)] = alice.execute("select memory_id from dbms_cloud_ai.user_cloud_ai_memories").fetchall()
    alice.execute("select dbms_cloud_ai.set_attribute('P', 'long_term_memory', 'false')")
    mem.script(ToolCalls([{"name": "human", "arguments": {"question": "Which one?"}}]))
    assert run_team(alice, "T", "and then?", {"conversation_id": cid}) == "Which one?"
    [(pending,)] = db.admin.execute("select pending::text from dbms_cloud_ai._agent_team_run "
                                    "where state = 'WAITING_FOR_HUMAN'").fetchall()
    assert marker in pending
    db.admin.execute("select dbms_cloud_ai.erase_memories('alice', null, %s)", (mid,))
    assert history_rows(db, "alice") == {"team": 0, "task": 0, "tool": 0}
    assert scan(db, marker) == {}
