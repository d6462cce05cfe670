"""Hostile users, class 7 (issue 14): the smaller holes.

7.1  The session conversation's temporary table belongs to dbms_cloud_ai_owner,
     not to the first role of the backend that chatted; a table of that name
     planted by another role of the same backend (SET ROLE, SET SESSION
     AUTHORIZATION, a pooler) is refused, never read or written.
"""

from __future__ import annotations

import memory_helpers as mh
import psycopg
import pytest
from fake_llm import Answer, last_user_text
from helpers import make_profile, raises

# Shapes a planted table may take: no row-level security, a policy that shows
# every row, a trigger that copies every insert.  Each is a way to read the next
# role's prompts or to seed its history.
TABLE = """
        create temporary table dca_session_prompt
        ( seq bigint generated always as identity primary key, owner name not null default current_user,
          profile_name text not null, prompt_action text not null, prompt text not null,
          prompt_response text not null, created timestamptz not null default now());"""
PLANTS = {
    "plain": TABLE + """
        grant all on pg_temp.dca_session_prompt to public""",
    "open_policy": TABLE + """
        alter table pg_temp.dca_session_prompt enable row level security;
        create policy everyone on pg_temp.dca_session_prompt using (true) with check (true);
        grant all on pg_temp.dca_session_prompt to public""",
    "copying_trigger": TABLE + """
        create temporary table loot (prompt text);
        grant all on pg_temp.dca_session_prompt, pg_temp.loot to public;
        create function pg_temp.grab() returns trigger language plpgsql as
          $$ begin insert into pg_temp.loot values (new.prompt); return new; end $$;
        create trigger grab before insert on pg_temp.dca_session_prompt
          for each row execute function pg_temp.grab()""",
}


@pytest.fixture
def echo(llm):
    llm.responder = lambda wire, body: Answer("re: " + last_user_text(wire, body))
    yield llm
    llm.responder = lambda wire, body: Answer("fake answer")


def shared_backend(db) -> psycopg.Connection:
    """One backend that several roles use in turn, as under a pooler (the
    superuser may SET ROLE to any of them)."""
    return db.connect("postgres")


def as_role(conn, role):
    conn.execute("reset role")
    conn.execute(f"set role {role}")


def chat(conn, prompt):
    return conn.execute("select dbms_cloud_ai.generate(%s, 'P', 'chat')", (prompt,)).fetchone()[0]


def messages(llm):
    return [m["content"] for m in llm.requests[-1].json["messages"]]


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_planted_session_table_is_refused(db, echo, plant):
    make_profile(db.connect("alice"), echo, conversation=True)
    conn = shared_backend(db)
    as_role(conn, "bob")
    conn.execute(PLANTS[plant])
    conn.execute("insert into pg_temp.dca_session_prompt (owner, profile_name, prompt_action, prompt, "
                 "prompt_response) values ('alice', 'P', 'CHAT', 'planted question', 'planted answer')")
    as_role(conn, "alice")
    sent_before = len(echo.requests)
    with raises("55000"):
        chat(conn, "alice's secret question")
    assert len(echo.requests) == sent_before, "no request may carry planted history"
    with raises("55000"):
        conn.execute("select * from dbms_cloud_ai.session_cloud_ai_conversation_prompts").fetchall()
    as_role(conn, "bob")
    rows = conn.execute("select prompt from pg_temp.dca_session_prompt").fetchall()
    assert rows == [("planted question",)], "nothing of alice's reached the planted table"
    if plant == "copying_trigger":
        assert conn.execute("select count(*) from pg_temp.loot").fetchone()[0] == 1
    # DISCARD TEMP (what a pooler runs between clients) clears the plant; alice chats again.
    conn.execute("discard temp")
    as_role(conn, "alice")
    assert chat(conn, "after discard") == "re: after discard"
    assert messages(echo)[-1] == "after discard" and "planted question" not in messages(echo)


def test_the_session_table_of_a_shared_backend_is_no_roles_to_change(db, echo):
    make_profile(db.connect("alice"), echo, conversation=True)
    make_profile(db.connect("bob"), echo, conversation=True)
    conn = shared_backend(db)
    as_role(conn, "alice")
    chat(conn, "alice one")
    owner = conn.execute("""select pg_catalog.pg_get_userbyid(relowner) from pg_class
                             where oid = pg_catalog.to_regclass('pg_temp.dca_session_prompt')""").fetchone()[0]
    assert owner == "dbms_cloud_ai_owner"
    # Neither the role that created it nor the next one can turn its protection off.
    for role in ("alice", "bob"):
        as_role(conn, role)
        for attack in ("alter table pg_temp.dca_session_prompt disable row level security",
                       "alter table pg_temp.dca_session_prompt no force row level security",
                       "drop policy own_rows on pg_temp.dca_session_prompt",
                       "create policy everyone on pg_temp.dca_session_prompt using (true)",
                       "alter table pg_temp.dca_session_prompt owner to " + role,
                       "drop table pg_temp.dca_session_prompt",
                       "create trigger t before insert on pg_temp.dca_session_prompt "
                       "for each row execute function suppress_redundant_updates_trigger()",
                       "update pg_temp.dca_session_prompt set owner = 'bob'"):
            with raises("42501"):
                conn.execute(attack)
        # Forged rows for another role are refused by the policy.
        other = "bob" if role == "alice" else "alice"
        with raises("42501"):
            conn.execute("insert into pg_temp.dca_session_prompt (owner, profile_name, prompt_action, prompt, "
                         "prompt_response) values (%s, 'P', 'CHAT', 'forged', 'forged')", (other,))
    as_role(conn, "bob")
    assert conn.execute("select count(*) from pg_temp.dca_session_prompt").fetchone()[0] == 0
    chat(conn, "bob one")
    assert messages(echo) == ["bob one"], "bob's session conversation starts empty"
    as_role(conn, "alice")
    chat(conn, "alice two")
    assert messages(echo) == ["alice one", "re: alice one", "alice two"]
    rows = conn.execute("select prompt from dbms_cloud_ai.session_cloud_ai_conversation_prompts").fetchall()
    assert rows == [("alice one",), ("alice two",)]


# --- 7.2 erasure provenance ---------------------------------------------------------------------

@pytest.fixture
def extractor(llm):
    llm.responder = mh.remember_phrases()
    yield llm
    llm.responder = lambda wire, body: Answer("fake answer")


def prompt_ids(db, subject):
    return [r[0] for r in db.admin.execute(
        "select conversation_prompt_id from dbms_cloud_ai._conversation_prompt where subject = %s "
        "order by seq", (subject,))]


def test_forged_provenance_cannot_aim_an_erasure_at_another_subject(db, extractor):
    alice, bob = db.connect("alice"), db.connect("bob")
    mh.enable(db)
    mh.memory_profile(alice, extractor)
    mh.memory_profile(bob, extractor)
    mh.say(bob, "please remember: bob keeps bees", mh.conversation(bob, "bob's"))
    mh.say(alice, "please remember: alice sails", mh.conversation(alice, "alice's"))
    mh.promote(db)
    (bobs,) = prompt_ids(db, "bob")
    (mine,) = [r[0] for r in alice.execute("select memory_id from dbms_cloud_ai._memory")]
    # alice cannot point her memory's provenance at bob's prompt: users write nothing
    # directly (class 2) ...
    call = alice.execute("select call_id from dbms_cloud_ai._model_call limit 1").fetchone()[0]
    with raises("42501"):
        alice.execute("update dbms_cloud_ai._memory set source_prompt_ids = source_prompt_ids || %s::uuid",
                      (bobs,))
    with raises("42501"):
        alice.execute("insert into dbms_cloud_ai._message_source (call_id, owner, source_kind, source_id, "
                      "conversation_prompt_id) values (%s, 'alice', 'memory', %s, %s)", (call, str(mine), bobs))
    # ... and a forged pointer (written here by the superuser) still does not aim
    # the erasure at bob: provenance only nominates.
    db.admin.execute("update dbms_cloud_ai._memory set source_prompt_ids = source_prompt_ids || %s::uuid "
                     "where memory_id = %s::uuid", (bobs, str(mine)))
    db.admin.execute("insert into dbms_cloud_ai._message_source (call_id, owner, source_kind, source_id, "
                     "conversation_prompt_id) values (%s, 'alice', 'memory', %s, %s)", (call, str(mine), bobs))
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.erase_memories('alice', null, %s)", (str(mine),))
    assert prompt_ids(db, "bob") == [bobs], "bob's prompt survives alice's erasure"
    assert prompt_ids(db, "alice") == []
    admin.execute("select dbms_cloud_ai.erase_memories('alice')")
    assert prompt_ids(db, "bob") == [bobs]


@pytest.mark.parametrize("column", ["subject", "organization"])
def test_a_subject_cannot_move_its_prompts_out_of_an_erasures_reach(db, extractor, column):
    alice = db.connect("alice")
    mh.enable(db)
    mh.memory_profile(alice, extractor)
    mh.say(alice, "please remember: alice sails", mh.conversation(alice, "alice's"))
    with raises("42501"):
        alice.execute(f"update dbms_cloud_ai._conversation_prompt set {column} = 'elsewhere'")
    assert len(prompt_ids(db, "alice")) == 1
    db.connect("ai_admin").execute("select dbms_cloud_ai.erase_memories('alice')")
    assert prompt_ids(db, "alice") == []
    # Ratings, the column users legitimately update, still work.
    cid = mh.conversation(alice, "again")
    mh.say(alice, "hello", cid)
    pid = alice.execute("select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                        ).fetchone()[0]
    alice.execute("select dbms_cloud_ai.rate_prompt(%s, 1)", (pid,))
