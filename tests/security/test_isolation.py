"""Two roles: neither can use, see, change or detect the other's credentials or profiles."""

from __future__ import annotations

import json

from fake_llm import Answer
from helpers import API_KEY, case, generate, make_profile, raises
from tables import TABLES as ALL_TABLES

TABLES = tuple(ALL_TABLES)   # every table of the extension (tests/tables.py)


def test_credentials_are_invisible_to_other_roles(alice, bob, llm):
    make_profile(alice, llm)
    assert bob.execute("select count(*) from dbms_cloud.user_credentials").fetchone()[0] == 0
    assert bob.execute("select count(*) from dbms_cloud._credential").fetchone()[0] == 0
    with raises("42704"):
        bob.execute("select dbms_cloud.drop_credential('CRED')")
    with raises("42704"):
        bob.execute("select dbms_cloud.update_credential('CRED', 'password', 'stolen')")
    with raises("42704"):
        bob.execute("select dbms_cloud.disable_credential('CRED')")
    with raises("42704"):  # naming alice's credential in bob's profile
        bob.execute("""select dbms_cloud_ai.create_profile('p', '{"provider": "openai", "credential_name": "CRED"}')""")
    # bob may create his own credential of the same name: no conflict reveals alice's.
    bob.execute("select dbms_cloud.create_credential('CRED', 'u', 'sk-bob')")
    assert bob.execute("select dbms_cloud.drop_credential('CRED')") is not None
    # alice's is untouched and still works.
    llm.script(Answer("still alice"))
    assert generate(alice, "q") == "still alice"
    assert llm.requests[-1].headers["authorization"] == f"Bearer {API_KEY}"


def test_profiles_are_invisible_to_other_roles(alice, bob, llm):
    make_profile(alice, llm)
    for sql in ("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles",
                "select count(*) from dbms_cloud_ai.user_cloud_ai_profile_attributes",
                "select count(*) from dbms_cloud_ai._profile"):
        assert bob.execute(sql).fetchone()[0] == 0
    for sql in ("select dbms_cloud_ai.drop_profile('P')", "select dbms_cloud_ai.set_profile('P')",
                "select dbms_cloud_ai.enable_profile('P')", "select dbms_cloud_ai.disable_profile('P')",
                "select dbms_cloud_ai.set_attribute('P', 'model', 'x')",
                "select dbms_cloud_ai.generate('q', 'P', 'chat')"):
        with raises("42704"):
            bob.execute(sql)
    bob.execute("select dbms_cloud_ai.drop_profile('P', force => true)")
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == 1
    make_profile(bob, llm, credential="BOBCRED", key="sk-bob")  # same profile name, no conflict
    assert llm.requests == []


def test_direct_table_writes_cannot_claim_another_owner(alice):
    with raises("42501"):
        alice.execute("insert into dbms_cloud_ai._profile (owner, profile_name) values ('bob', 'X')")
    with raises("42501"):
        alice.execute("insert into dbms_cloud._credential (owner, credential_name, secret, key_id) "
                      "values ('bob', 'X', '\\x00', 'k')")


# Every function that names a credential or a profile, called as bob with alice's
# names ('CRED', 'P') after alice's call warmed the backend (package, plans, keys).
# The set is checked against the catalog: a new such function needs its line here.
BOB_CALLS_WITH_ALICES_NAMES = {
    "dbms_cloud.drop_credential(text)": "select dbms_cloud.drop_credential('CRED')",
    "dbms_cloud.update_credential(text,text,text)":
        "select dbms_cloud.update_credential('CRED', 'username', 'x')",
    "dbms_cloud.enable_credential(text)": "select dbms_cloud.enable_credential('CRED')",
    "dbms_cloud.disable_credential(text)": "select dbms_cloud.disable_credential('CRED')",
    "dbms_cloud_ai.create_profile(text,text,text,text)":
        """select dbms_cloud_ai.create_profile('BP2', '{"provider": "openai", "credential_name": "CRED"}')""",
    "dbms_cloud_ai.create_profile(text,jsonb,text,text)":
        """select dbms_cloud_ai.create_profile('BP2', '{"provider": "openai", "credential_name": "CRED"}'::jsonb)""",
    "dbms_cloud_ai.drop_profile(text,boolean)": "select dbms_cloud_ai.drop_profile('P')",
    "dbms_cloud_ai.enable_profile(text)": "select dbms_cloud_ai.enable_profile('P')",
    "dbms_cloud_ai.disable_profile(text)": "select dbms_cloud_ai.disable_profile('P')",
    "dbms_cloud_ai.set_attribute(text,text,text)":
        "select dbms_cloud_ai.set_attribute('BOBP', 'credential_name', 'CRED'::text)",
    "dbms_cloud_ai.set_attribute(text,text,boolean)":
        "select dbms_cloud_ai.set_attribute('P', 'comments', true)",
    "dbms_cloud_ai.set_attribute(text,text,numeric)":
        "select dbms_cloud_ai.set_attribute('P', 'max_tokens', 5::numeric)",
    "dbms_cloud_ai.set_attribute(text,text,jsonb)":
        """select dbms_cloud_ai.set_attribute('BOBP', 'credential_name', '"CRED"'::jsonb)""",
    "dbms_cloud_ai.set_attributes(text,text)":
        """select dbms_cloud_ai.set_attributes('BOBP', '{"credential_name": "CRED"}'::text)""",
    "dbms_cloud_ai.set_attributes(text,jsonb)":
        """select dbms_cloud_ai.set_attributes('BOBP', '{"credential_name": "CRED"}'::jsonb)""",
    "dbms_cloud_ai.set_profile(text)": "select dbms_cloud_ai.set_profile('P')",
    "dbms_cloud_ai.generate(text,text,text,text,text,text[])":
        "select dbms_cloud_ai.generate('q', 'P', 'chat')",
    "dbms_cloud_ai.generate(text,text,text,jsonb,jsonb,text[])":
        "select dbms_cloud_ai.generate('q', 'P', 'chat', '{}'::jsonb)",
    "dbms_cloud_ai.generate_detached(text,text,text,text,text,text[],text)":
        "call dbms_cloud_ai.generate_detached('q', 'P', 'chat')",
    "dbms_cloud_ai.feedback(text,text,text,text,text,text,text,text[])":
        "select dbms_cloud_ai.feedback('P', sql_text => 'select ai showsql q', feedback_type => 'positive')",
    "dbms_cloud_ai.export_negative_feedback(text,boolean)":
        "select dbms_cloud_ai.export_negative_feedback('P')",
    "dbms_cloud_ai.summarize(text,text,text,text,text,text,text,text)":
        "select dbms_cloud_ai.summarize('some text', profile_name => 'P')",
    "dbms_cloud_ai.translate(text,text,text,text)":
        "select dbms_cloud_ai.translate('P', 'hello', 'english', 'french')",
    "dbms_cloud_ai.grant_profile_access(text,text)":
        "select dbms_cloud_ai.grant_profile_access('P', 'bob')",
    "dbms_cloud_ai.revoke_profile_access(text,text)":
        "select dbms_cloud_ai.revoke_profile_access('P', 'bob')",
    "dbms_cloud_ai.set_profile_grant_budget(text,text,bigint)":
        "select dbms_cloud_ai.set_profile_grant_budget('P', 'bob', 10)",
    "dbms_cloud_ai.generate_synthetic_data(text,text,text,integer,text,text,text[])":
        "select dbms_cloud_ai.generate_synthetic_data('P', 'nothing_here', 'public', 1)",
    "dbms_cloud_ai_agent.import_team(text,text,text,boolean,text,text[])":
        """select dbms_cloud_ai_agent.import_team('P', 'BT', '{"name": "A", "task": {"task_name": "K"}}')""",
    "dbms_cloud_ai.generate_synthetic_data(text,text,text)":
        """select dbms_cloud_ai.generate_synthetic_data('P',
                  '[{"owner": "public", "name": "x", "record_count": 1}]')""",
}
# A filter on the caller's own rows: an unknown profile simply matches nothing.
RETURNS_EMPTY_FOR_UNKNOWN_PROFILE = ("dbms_cloud_ai.export_negative_feedback(text,boolean)",)
# Not in the catalog list (no name argument), but read the session's profile.
BOB_SESSION_CALLS = ("select dbms_cloud_ai.select_ai('chat q')",
                     "select dbms_cloud_ai.generate('q', null, 'chat')",
                     "call dbms_cloud_ai.generate_detached('q', null, 'chat')")


def test_every_function_naming_a_credential_or_profile_is_covered(db):
    named = {r[0] for r in db.admin.execute("""
        select p.oid::regprocedure::text
          from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai', 'dbms_cloud_ai_agent') and p.proname !~ '^_'
           and p.proargnames && array['credential_name', 'profile_name']""").fetchall()}
    named.discard("dbms_cloud.create_credential(text,text,text,text,text,text,text)")  # makes bob's own: tested below
    assert named == set(BOB_CALLS_WITH_ALICES_NAMES)


def test_set_role_in_one_backend_cannot_reuse_credentials(db, llm):
    alice_key = "sk-alice-only-5e1f0c"
    make_profile(db.connect("alice"), llm, key=alice_key)
    make_profile(db.connect("bob"), llm, name="BOBP", credential="BOBCRED", key="sk-bob-own")
    # alice has negative feedback on P, which export_negative_feedback('P') would show.
    db.admin.execute("""insert into dbms_cloud_ai._feedback (feedback_id, owner, profile_name, sql_id,
                            sql_text, question, feedback_type)
                        values (gen_random_uuid(), 'alice', 'P', '0000000000000', 'select ai q',
                                'alice-question', 'negative')""")
    assert "alice-question" in db.connect("alice").execute(
        "select dbms_cloud_ai.export_negative_feedback('P')").fetchone()[0]
    conn = db.connect("postgres")
    conn.execute("set role alice")
    assert generate(conn, "warm up") == "fake answer"   # loads the package, caches plans and key
    conn.execute("set role bob")
    for round_ in range(3):
        for fn, call in BOB_CALLS_WITH_ALICES_NAMES.items():
            with case(f"{fn} round {round_}"):
                if fn in RETURNS_EMPTY_FOR_UNKNOWN_PROFILE:
                    assert conn.execute(call).fetchone()[0] == ""
                else:
                    with raises("42704"):
                        conn.execute(call)
        conn.execute("select pg_catalog.set_config('dbms_cloud_ai.profile_name', 'P', false)")
        for call in BOB_SESSION_CALLS:
            with case(f"{call} round {round_}"), raises("42704"):
                conn.execute(call)
        conn.execute("select dbms_cloud_ai.clear_profile()")
        # A credential of bob's own under alice's name is bob's key, never the cached one.
        conn.execute("select dbms_cloud.create_credential('CRED', 'u', 'sk-bob-cred')")
        conn.execute("select dbms_cloud_ai.set_attribute('BOBP', 'credential_name', 'CRED')")
        assert generate(conn, "q", "BOBP") == "fake answer"
        assert llm.requests[-1].headers["authorization"] == "Bearer sk-bob-cred"
        conn.execute("select dbms_cloud_ai.set_attribute('BOBP', 'credential_name', 'BOBCRED')")
        conn.execute("select dbms_cloud.drop_credential('CRED')")
    conn.execute("reset role")
    carrying = [r for r in llm.requests if alice_key in str(r.headers) or alice_key.encode() in r.body]
    assert len(carrying) == 1 and len(llm.requests) == 4  # the warm-up, then bob's own three
    row = db.admin.execute("select username, enabled from dbms_cloud._credential "
                           "where owner = 'alice'").fetchone()
    assert row == ("user", True)
    assert db.admin.execute("select count(*) from dbms_cloud_ai._profile where owner = 'bob'"
                            ).fetchone()[0] == 1


def test_row_level_security_is_forced_everywhere(db):
    rows = db.admin.execute("""
        select c.oid::regclass::text, c.relrowsecurity, c.relforcerowsecurity
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind = 'r'""").fetchall()
    assert {r[0] for r in rows} == set(TABLES)
    assert all(r[1] and r[2] for r in rows)


def test_roles_without_the_grant_cannot_use_the_api(db):
    db.admin.execute("drop role if exists outsider")
    db.admin.execute("create role outsider login")
    try:
        out = db.connect("outsider")
        with raises("42501"):
            out.execute("select dbms_cloud_ai.get_profile()")
        with raises("42501"):
            out.execute("select dbms_cloud.create_credential('c', 'u', 'k')")
        with raises("42501"):
            out.execute("select * from dbms_cloud._credential")
        out.close()
    finally:
        db.admin.execute("drop owned by outsider")
        db.admin.execute("drop role outsider")


def test_prompts_cannot_be_written_into_or_probe_another_roles_conversation(alice, bob, llm):
    cid = alice.execute("""select dbms_cloud_ai.create_conversation('{"title": "mine"}')""").fetchone()[0]
    insert = ("insert into dbms_cloud_ai._conversation_prompt (conversation_prompt_id, conversation_id, "
              "prompt_action, prompt, prompt_response) values (gen_random_uuid(), %s::uuid, 'CHAT', 'x', 'y')")
    # The same error whether the id exists (alice's) or not: nothing to learn, nothing written.
    for target in (cid, "00000000-0000-4000-8000-000000000000"):
        with raises("42501"):
            bob.execute(insert, (target,))
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts").fetchone()[0] == 0
    make_profile(bob, llm)
    with raises("42704"):  # continuing it: the conversation, not the profile, is unknown to bob
        bob.execute("select dbms_cloud_ai.generate('q', 'P', 'chat', params => %s)",
                    (json.dumps({"conversation_id": cid}),))
    assert llm.requests == []
