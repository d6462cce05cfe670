"""Hostile users, class 5 (issue 14): accounting and budgets are exact whatever
the caller's transaction does.

A request is counted before it is sent, in a spend counter that no rollback
undoes (``spool``), and its record is journaled outside the transaction, so
the next call of the same role, in any session, stores it.  Every case ends its
session after spending, which loses the backend's memory: what is left is what
a user who reconnects in a loop would get.  Provider token counts are clamped
and flagged, and none can wedge a session.
"""

from __future__ import annotations

import pytest
from fake_llm import Answer
from helpers import generate, make_profile, raises

# Ways to spend and leave no committed row, each in a session that then ends.
ESCAPES = {
    "rollback": ["begin", "select dbms_cloud_ai.generate('q', 'P', 'chat')", "rollback"],
    "read_only": ["begin read only", "select dbms_cloud_ai.generate('q', 'P', 'chat')", "commit"],
    "failing_statement": ["select dbms_cloud_ai.generate('q', 'P', 'chat')::int"],
    "savepoint": ["begin", "savepoint s", "select dbms_cloud_ai.generate('q', 'P', 'chat')",
                  "rollback to savepoint s", "commit"],
}


def tiered(names, fast):
    """Parameters with all but ``fast`` in the long tier."""
    return [n if n in fast else pytest.param(n, marks=pytest.mark.long) for n in sorted(names)]


def spend_and_leave(db, role, steps):
    """One session: the steps (errors ignored), then the session ends."""
    conn = db.connect(role)
    for step in steps:
        try:
            conn.execute(step)
        except Exception:  # noqa: BLE001 - the failing statement is part of the case
            conn.rollback() if not conn.autocommit else None
    conn.close()


def stored_calls(db, role) -> list[tuple]:
    return db.admin.execute("select input_tokens, output_tokens, tokens_estimated from "
                            "dbms_cloud_ai._model_call where owner = %s order by created", (role,)).fetchall()


@pytest.mark.parametrize("escape", tiered(ESCAPES, {"rollback", "read_only"}))
def test_a_role_budget_holds_across_sessions_that_undo_their_writes(db, llm, escape):
    make_profile(db.connect("alice"), llm)
    db.admin.execute("select dbms_cloud_ai.set_token_budget('alice', 200)")
    llm.responder = lambda wire, body: Answer("a", 40, 20)          # 60 tokens a request
    for _ in range(6):
        spend_and_leave(db, "alice", ESCAPES[escape])
    # The 4th request still fits (180 spent + its estimate of 1), the 5th does not
    # (240): a budget bounds spending to the limit plus one request's output.
    assert len(llm.requests) == 4, "the budget must hold although nothing was committed"
    with raises("53400"):
        generate(db.connect("alice"), "q")
    assert len(llm.requests) == 4


@pytest.mark.parametrize("escape", tiered(["rollback", "read_only"], {"rollback"}))
def test_a_public_budget_holds_for_every_role(db, llm, escape):
    for role in ("alice", "bob"):
        make_profile(db.connect(role), llm)
    db.admin.execute("select dbms_cloud_ai.set_token_budget('PUBLIC', 200)")
    llm.responder = lambda wire, body: Answer("a", 40, 20)
    for i in range(6):
        spend_and_leave(db, ("alice", "bob")[i % 2], ESCAPES[escape])
    assert len(llm.requests) == 4


@pytest.mark.parametrize("escape", tiered(ESCAPES, {"failing_statement", "savepoint"}))
def test_every_request_sent_reaches_the_accounting_tables(db, llm, escape):
    make_profile(db.connect("alice"), llm)
    llm.responder = lambda wire, body: Answer("a", 40, 20)
    for _ in range(3):
        spend_and_leave(db, "alice", ESCAPES[escape])
    assert stored_calls(db, "alice") == [], "nothing was committed by those sessions"
    generate(db.connect("alice"), "q")             # a new session of the same role stores them
    assert len(stored_calls(db, "alice")) == len(llm.requests) == 4
    ids = {r[0] for r in db.admin.execute("select call_id::text from dbms_cloud_ai._model_call")}
    sent = {r.headers.get("x-client-request-id", "").lower() for r in llm.requests}
    assert ids == sent, "each stored record is a request that was sent, once"
    # Adopted once: another session stores nothing again.
    generate(db.connect("alice"), "q")
    assert len(stored_calls(db, "alice")) == 5


def test_another_roles_session_does_not_store_or_see_them(db, llm):
    for role in ("alice", "bob"):
        make_profile(db.connect(role), llm)
    spend_and_leave(db, "alice", ESCAPES["rollback"])
    bob = db.connect("bob")
    generate(bob, "q")
    assert stored_calls(db, "alice") == []
    assert bob.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_calls").fetchone()[0] == 1
    alice = db.connect("alice")
    # alice's next session shows the record of her ended one at once.
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_calls").fetchone()[0] == 1


@pytest.mark.parametrize("reported, stored", [
    ((-1_000_000, -5), (0, 0)),
    ((2**31, 2**40), (100_000_000, 100_000_000)),
    ((2**63, 7), (100_000_000, 7)),
])
def test_provider_token_counts_are_clamped_flagged_and_never_wedge(db, llm, reported, stored):
    alice = db.connect("alice")
    make_profile(alice, llm)
    llm.script(Answer("a", *reported), Answer("b", 3, 4), Answer("c", 3, 4))
    for _ in range(3):                              # no record makes a later call fail
        generate(alice, "q")
    rows = stored_calls(db, "alice")
    assert rows[0] == (*stored, True)
    assert rows[1:] == [(3, 4, False), (3, 4, False)]


def test_negative_counts_do_not_lift_a_budget(db, llm):
    alice = db.connect("alice")
    make_profile(alice, llm)
    db.admin.execute("select dbms_cloud_ai.set_token_budget('alice', 100)")
    llm.script(Answer("a", 50, 40), Answer("b", -10_000, -10_000))
    generate(alice, "q")
    generate(alice, "q")
    with raises("53400"):
        generate(alice, "q" * 40)
    assert len(llm.requests) == 2


@pytest.mark.long
@pytest.mark.parametrize("escape", sorted(ESCAPES))
def test_long_many_sessions_mixed_escapes(db, llm, escape):
    for role in ("alice", "bob"):
        make_profile(db.connect(role), llm)
    db.admin.execute("select dbms_cloud_ai.set_token_budget('alice', 1000)")
    llm.responder = lambda wire, body: Answer("a", 60, 40)
    for i in range(30):
        spend_and_leave(db, "alice", ESCAPES[sorted(ESCAPES)[i % len(ESCAPES)]] if i % 2 else ESCAPES[escape])
    assert len(llm.requests) == 10                  # 9 x 100 + an estimate fits; then 1000
    generate(db.connect("bob"), "q")
    with raises("53400"):
        generate(db.connect("alice"), "q")
    # alice's records are stored by her next successful call after the budget is raised.
    db.admin.execute("select dbms_cloud_ai.set_token_budget('alice', null)")
    generate(db.connect("alice"), "q")
    assert len(stored_calls(db, "alice")) == 11
