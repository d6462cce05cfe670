"""A run's history outlives the backend that ran it (issue 33): a plain run_team
that is canceled or whose backend is terminated has its rows rolled back and its
backend's memory gone; the backend's journal (agents/history.py) brings the run
back, FAILED, to the next session of the same role, and to no other role."""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from agent_run_helpers import own_schema, run_team, task_history, team, team_history
from fake_llm import Answer, Hang, ToolCalls
from helpers import drop_role, make_role


def _ended(db, pid: int) -> None:
    """Wait until the backend ``pid`` has exited (a journal of a live backend is not adopted)."""
    for _ in range(100):
        if db.admin.execute("select 1 from pg_stat_activity where pid = %s", (pid,)).fetchone() is None:
            return
        time.sleep(0.05)
    raise AssertionError(f"backend {pid} did not end")


def _stop_during_run(db, conn, how: str, after: float = 1.0) -> int:
    """Run team T in ``conn`` and stop it with pg_<how>_backend after ``after`` seconds."""
    pid = conn.info.backend_pid
    threading.Timer(after, lambda: db.admin.execute(f"select pg_{how}_backend(%s)", (pid,))).start()
    with pytest.raises(psycopg.Error):
        run_team(conn, "T", "x")
    return pid


def _nothing_stored(db) -> None:
    """The rows were rolled back: only a journal can bring the run back."""
    assert db.admin.execute("select count(*) from dbms_cloud_ai._agent_team_run").fetchone()[0] == 0


def test_a_canceled_run_survives_the_session_that_disconnects_at_once(db, alice, llm):
    team(db, alice, llm, steps=(("A1", "FIRST", "x {query}", ()), ("A2", "SECOND", "y", ())))
    llm.script(Answer("first done"), Hang(30))
    pid = _stop_during_run(db, alice, "cancel", after=1.5)
    alice.close()
    _ended(db, pid)
    _nothing_stored(db)
    other = db.connect("alice")
    [h] = team_history(other)
    assert h["state"] == "FAILED" and h["end_date"] is not None
    assert [(t["task_name"], t["state"]) for t in task_history(other)] == \
        [("FIRST", "SUCCEEDED"), ("SECOND", "FAILED")]
    # The next agent call writes it for good (and the journal is done with).
    llm.script(Answer("fine"))
    run_team(other, "T", "again")
    assert db.admin.execute("select state from dbms_cloud_ai._agent_team_run order by start_date"
                            ).fetchall() == [("FAILED",), ("SUCCEEDED",)]
    third = db.connect("alice")
    assert [h["state"] for h in team_history(third)] == ["FAILED", "SUCCEEDED"]


def test_a_run_whose_backend_is_terminated_in_a_model_wait_reads_failed(db, alice, llm):
    team(db, alice, llm)
    llm.script(Hang(30))
    pid = _stop_during_run(db, alice, "terminate")
    _ended(db, pid)
    _nothing_stored(db)
    other = db.connect("alice")
    [h] = team_history(other)
    assert h["state"] == "FAILED"
    assert [t["state"] for t in task_history(other)] == ["FAILED"]


def test_a_run_whose_backend_is_terminated_in_a_tool_function_reads_failed(db, alice, llm):
    own_schema(db)
    alice.execute("create function alice.slow() returns text language sql as 'select pg_sleep(30)::text'")
    alice.execute("select dbms_cloud_ai_agent.create_tool('SLOW', %s)",
                  ('{"instruction": "Slow", "function": "slow"}',))
    team(db, alice, llm, steps=(("A", "K", "x", ("SLOW",)),))
    llm.script(ToolCalls([{"name": "SLOW", "arguments": {}}]), Answer("never"))
    pid = _stop_during_run(db, alice, "terminate")
    _ended(db, pid)
    _nothing_stored(db)
    other = db.connect("alice")
    [h] = team_history(other)
    assert h["state"] == "FAILED"
    assert [t["state"] for t in task_history(other)] == ["FAILED"]


def test_another_role_never_sees_the_journal(db, alice, bob, llm):
    team(db, alice, llm)
    llm.script(Hang(30))
    pid = _stop_during_run(db, alice, "terminate")
    _ended(db, pid)
    assert team_history(bob) == [] and task_history(bob) == []
    assert db.admin.execute(
        "select count(*) from dbms_cloud_ai_agent.dba_ai_agent_team_history").fetchone()[0] == 0
    other = db.connect("alice")         # still there for alice: bob took nothing
    assert [h["state"] for h in team_history(other)] == ["FAILED"]


def test_a_new_role_under_a_dropped_roles_name_adopts_nothing(db, llm):
    name = "hist_reused"
    drop_role(db.admin, name)
    make_role(db.admin, name)
    try:
        first = db.connect(name)
        team(db, first, llm)
        llm.script(Hang(30))
        pid = _stop_during_run(db, first, "terminate")
        _ended(db, pid)
        # Held by a second session of the role (its journal), which ends with the role.
        second = db.connect(name)
        assert [h["state"] for h in team_history(second)] == ["FAILED"]
        drop_role(db.admin, name)
        _ended(db, second.info.backend_pid)
        make_role(db.admin, name)
        fresh = db.connect(name)
        assert team_history(fresh) == [] and task_history(fresh) == []
    finally:
        drop_role(db.admin, name)
