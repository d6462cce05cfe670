"""A commit never changes who a call acts for (issue 30, class 1).

An application server runs each request under a transaction-local role (SET
LOCAL ROLE, as PostgREST does) and may vouch for its visitor with a
transaction-local set_end_user.  A procedure that commits ends both: without
the rule, the rest of generate_detached resolved the profile, sent the key and
ran the model's SQL as the session user.  Every committing procedure takes the
identity before its first commit and requires it after each
(model/detached.py): a change is 2D000, and nothing was asked or run for the
wrong role.  The session-level forms are the controls: they survive commits.
"""

from __future__ import annotations

import json

import pytest
from fake_llm import Answer
from helpers import make_profile, raises
from memory_helpers import conversation, enable, make_due, memory_profile, remember_phrases, say

DO_DETACHED = """do $$ declare r text; begin
    {switch};
    call dbms_cloud_ai.generate_detached(prompt => 'what is my secret', profile_name => 'P',
                                         action => 'chat', response => r);
    raise notice 'answer: %', r;
end $$"""
ROLE_SWITCHES = {
    "set local role": "set local role carol",
    "set_config local": "perform pg_catalog.set_config('role', 'carol', true)",
}


@pytest.fixture
def gateway(db, llm):
    """The application server's session (here the superuser, which may become
    carol), with a profile P of its own on another model."""
    conn = db.connect("postgres")
    make_profile(conn, llm, model="session-users-model")
    return conn


@pytest.mark.parametrize("switch", sorted(ROLE_SWITCHES))
def test_a_transaction_local_role_ends_the_call_at_its_first_commit(db, gateway, llm, switch):
    carol = db.connect("carol")
    make_profile(carol, llm, model="carols-model")
    with raises("2D000") as e:
        gateway.execute(DO_DETACHED.format(switch=ROLE_SWITCHES[switch]))
    assert "carol" in e["error"].diag.message_primary
    assert "set_end_user" in (e["error"].diag.message_hint or "")
    assert llm.requests == []          # neither profile was asked: nothing ran as the session user
    calls = db.admin.execute("select count(*) from dbms_cloud_ai._model_call").fetchone()[0]
    assert calls == 0


def test_a_session_role_survives_the_commits(db, gateway, llm):
    """The control: SET ROLE for the session, then the same DO block answers as carol."""
    carol = db.connect("carol")
    make_profile(carol, llm, model="carols-model")
    llm.script(Answer("carol's answer"))
    gateway.execute("set role carol")
    gateway.execute(DO_DETACHED.format(switch="perform 1"))
    assert [r.json["model"] for r in llm.requests] == ["carols-model"]


def test_a_transaction_local_end_user_ends_the_call(db, llm):
    """set_end_user(..., is_local => true) is gone after the commit: the call would
    go on for no end user (another subject's memories); it stops instead."""
    db.admin.execute("select dbms_cloud_ai.set_memory_role('carol', identity => 'asserted')")
    carol = db.connect("carol")
    make_profile(carol, llm)
    with raises("2D000") as e:
        carol.execute(DO_DETACHED.format(
            switch="perform dbms_cloud_ai.set_end_user('visitor-1', is_local => true)"))
    assert "end user" in e["error"].diag.message_primary
    assert llm.requests == []
    # The control: asserted for the session, it survives.
    carol.execute("select dbms_cloud_ai.set_end_user('visitor-1')")
    llm.script(Answer("fine"))
    carol.execute(DO_DETACHED.format(switch="perform 1"))
    assert len(llm.requests) == 1


def test_the_do_blocks_earlier_work_is_committed(db, alice, llm):
    """Documented (docs/reference/generate.md): a DO block's work before the CALL is
    committed by the procedure's first commit, even when the block fails later."""
    make_profile(alice, llm)
    alice.execute("create table alice.before_call (n int)")
    llm.script(Answer("ok"))
    with raises("P0001"):
        alice.execute("""do $$ declare r text; begin
            insert into alice.before_call values (1);
            call dbms_cloud_ai.generate_detached(prompt => 'hi', profile_name => 'P', action => 'chat', response => r);
            raise exception 'later failure';
        end $$""")
    assert alice.execute("select count(*) from alice.before_call").fetchone()[0] == 1


def test_the_memory_runner_stops_when_its_role_was_transaction_local(db, alice, llm):
    """run_memory_jobs under SET LOCAL ROLE of an administrator: its first commit
    would leave the rest of the run to the session user; it stops with 2D000 and
    no extraction request is sent."""
    enable(db)
    memory_profile(alice, llm)
    llm.responder = remember_phrases()
    say(alice, "remember: I drink green tea", conversation(alice))
    make_due(db)
    before = len(llm.requests)
    session = db.connect("postgres")
    with raises("2D000"):
        session.execute("do $$ declare n bigint; begin set local role ai_admin; "
                        "call dbms_cloud_ai.run_memory_jobs(10, processed => n); end $$")
    assert len(llm.requests) == before
    stored = alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_memories").fetchone()[0]
    assert stored == 0
    # The control: the session's own run does the job.
    assert session.execute("call dbms_cloud_ai.run_memory_jobs(10)").fetchone()[0] >= 0


def test_the_retention_purge_stops_when_its_role_was_transaction_local(db, alice, bob, llm):
    """purge_expired_conversations by alice under SET LOCAL ROLE in an administrator's
    session: after its first commit it would purge as the administrator (every
    role's expired conversations); it stops with 2D000 after alice's own batch."""
    for conn in (alice, bob):
        make_profile(conn, llm)
        cid = conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                           (json.dumps({"retention_days": 1}),)).fetchone()[0]
        llm.script(Answer("x"))
        conn.execute("select dbms_cloud_ai.generate('hi', 'P', 'chat', params => %s)",
                     (json.dumps({"conversation_id": cid}),))
    db.admin.execute("update dbms_cloud_ai._conversation set expires_at = now() - interval '1 day'")
    session = db.connect("ai_admin")
    db.admin.execute("grant alice to ai_admin")
    try:
        with raises("2D000"):
            session.execute("do $$ declare n bigint; begin set local role alice; "
                            "call dbms_cloud_ai.purge_expired_conversations(1, deleted => n); end $$")
    finally:
        db.admin.execute("revoke alice from ai_admin")
    left = dict(db.admin.execute("select owner, count(*) from dbms_cloud_ai._conversation "
                                 "group by owner").fetchall())
    assert left.get("bob") == 1


@pytest.mark.parametrize("call", ["call dbms_cloud_ai.maintain_vector_indexes()",
                                  "call dbms_cloud_ai.refresh_vector_index_job('DOCS', n)"])
def test_the_vector_index_maintenance_stops_when_its_role_was_transaction_local(db, call):
    """The HNSW maintenance procedures commit before their first step: under a
    transaction-local role they would go on as the session user (its indexes,
    its refresh); they stop with 2D000."""
    session = db.connect("postgres")
    with raises("2D000") as e:
        session.execute(f"do $$ declare n int; begin set local role alice; {call}; end $$")
    assert "alice" in e["error"].diag.message_primary
