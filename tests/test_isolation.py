"""Two roles: neither can use, see, change or detect the other's credentials or profiles."""

from __future__ import annotations

import psycopg
import pytest
from fake_llm import Answer

from helpers import API_KEY, generate, make_profile, raises

TABLES = ("dbms_cloud._credential", "dbms_cloud_ai._profile", "dbms_cloud_ai._host_ace",
          "dbms_cloud_ai._conversation", "dbms_cloud_ai._conversation_prompt",
          "dbms_cloud_ai._conversation_summary",
          "dbms_cloud_ai._sql_statement", "dbms_cloud_ai._feedback", "dbms_cloud_ai._example",
          # accounting and usage reports (tests/test_accounting.py)
          "dbms_cloud_ai._model_call", "dbms_cloud_ai._message_source", "dbms_cloud_ai._token_budget",
          "dbms_cloud_ai._model_price", "dbms_cloud_ai._usage_daily", "dbms_cloud_ai._usage_state",
          # long-term memory (tests/test_memory_*.py)
          "dbms_cloud_ai._memory_role", "dbms_cloud_ai._memory_organization", "dbms_cloud_ai._memory",
          "dbms_cloud_ai._memory_job", "dbms_cloud_ai._memory_erasure")


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


def test_set_role_in_one_backend_cannot_reuse_credentials(db, llm):
    make_profile(db.connect("alice"), llm)
    conn = db.connect("postgres")
    conn.execute("set role alice")
    assert generate(conn, "warm up") == "fake answer"   # loads the package, caches plans
    conn.execute("set role bob")
    for _ in range(3):
        with raises("42704"):
            generate(conn, "q")
        with raises("42704"):
            conn.execute("""select dbms_cloud_ai.create_profile('p', '{"provider": "openai", "credential_name": "CRED", "provider_endpoint": "%s"}')""" % llm.url)
    conn.execute("reset role")
    assert len(llm.requests) == 1


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
                    ('{"conversation_id": "%s"}' % cid,))
    assert llm.requests == []
