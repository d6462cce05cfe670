"""Profile sharing (issue 18): GRANT_PROFILE_ACCESS / REVOKE_PROFILE_ACCESS, the
ALL_ views, "OWNER"."NAME" in generate, set_profile and select_ai, and what a
grantee can never reach: the owner's credential, conversations and accounting.
"""

from __future__ import annotations

import json

import pytest
from fake_llm import Answer, Raw
from helpers import generate, make_profile, raises
from memory_helpers import conversation, enable, jobs, promote, remember_phrases, say

ALICE_KEY = "sk-alice-shared-secret-0123456789"


@pytest.fixture
def shared(db, llm, alice, bob):
    """alice's profile SALES (her key), shared with bob."""
    make_profile(alice, llm, "SALES", key=ALICE_KEY, conversation=True)
    alice.execute("select dbms_cloud_ai.grant_profile_access(profile_name => 'sales', "
                  "user_or_role_name => 'bob')")
    return alice, bob


def calls(conn):
    return conn.execute("select profile_name, action, status from dbms_cloud_ai.user_cloud_ai_calls "
                        "order by created").fetchall()


def test_grantee_generates_with_the_owners_profile_and_key(shared, llm):
    alice, bob = shared
    llm.script(Answer("hello bob"))
    assert generate(bob, "hi", '"alice"."SALES"') == "hello bob"
    req = llm.chat_requests[-1]
    assert req.headers["authorization"] == f"Bearer {ALICE_KEY}"   # the owner's key, sent by the package
    # Oracle's spelling: the owner upper-cased and quoted finds role alice; unquoted folds.
    llm.script(Answer("a"), Answer("b"))
    assert generate(bob, "hi", '"ALICE"."SALES"') == "a"
    assert generate(bob, "hi", "alice.sales") == "b"
    # The grantee's calls are the grantee's: its accounting, named by owner and profile.
    assert calls(bob) == [('"alice"."SALES"', "CHAT", "ok")] * 3
    assert calls(alice) == []


def test_a_grantees_first_call_may_be_in_a_read_only_transaction(db, llm, alice, bob):
    """The grantee's role binding is written on its first write, not on the read of
    its owner's credential: a first chat in a read-only transaction (or on a
    standby) answers, and the binding comes with the grantee's first write."""
    make_profile(alice, llm, "RO", key=ALICE_KEY)
    alice.execute("select dbms_cloud_ai.grant_profile_access('RO', 'bob')")
    binding = "select count(*) from dbms_cloud_ai._role_binding where role_name = 'bob'"
    assert db.admin.execute(binding).fetchone()[0] == 0
    llm.script(Answer("read-only answer"))
    with bob.transaction():
        bob.execute("set transaction read only")
        assert generate(bob, "hi", "alice.ro") == "read-only answer"
    assert llm.chat_requests[-1].headers["authorization"] == f"Bearer {ALICE_KEY}"
    assert db.admin.execute(binding).fetchone()[0] == 0
    # a write in a read-only transaction is still refused, before any request
    with raises("25006"), bob.transaction():
        bob.execute("set transaction read only")
        bob.execute("select dbms_cloud_ai.create_conversation()")
    llm.script(Answer("read-write answer"))
    assert generate(bob, "hi", "alice.ro") == "read-write answer"
    assert db.admin.execute("select b.role_oid = r.oid from dbms_cloud_ai._role_binding b "
                            "join pg_roles r on r.rolname = b.role_name where b.role_name = 'bob'"
                            ).fetchall() == [(True,)]


def test_views_show_owned_and_shared_profiles(shared, db, llm):
    alice, bob = shared
    make_profile(bob, llm, "MINE", key="sk-bob")
    cols = [d.name for d in bob.execute("select * from dbms_cloud_ai.all_cloud_ai_profiles").description]
    assert cols == ["owner", "profile_id", "profile_name", "status", "description", "created",
                    "last_modified"]
    assert bob.execute("select owner, profile_name from dbms_cloud_ai.all_cloud_ai_profiles "
                       "order by 1, 2").fetchall() == [("alice", "SALES"), ("bob", "MINE")]
    shown = dict(bob.execute("select attribute_name, attribute_value "
                             "from dbms_cloud_ai.all_cloud_ai_profile_attributes "
                             "where owner = 'alice' and profile_name = 'SALES'").fetchall())
    assert shown["provider"] == "openai" and shown["credential_name"] == "CRED"
    cols = [d.name for d in bob.execute("select * from dbms_cloud_ai.all_cloud_ai_profile_attributes"
                                        ).description]
    assert cols == ["owner", "profile_id", "profile_name", "attribute_name", "attribute_value"]
    # USER_ views stay the caller's own; the owner lists its grants.
    assert bob.execute("select profile_name from dbms_cloud_ai.user_cloud_ai_profiles").fetchall() == [("MINE",)]
    assert alice.execute("select profile_name, grantee from dbms_cloud_ai.user_cloud_ai_profile_grants"
                         ).fetchall() == [("SALES", "bob")]
    assert bob.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profile_grants").fetchone()[0] == 0
    carol = db.connect("carol")
    assert carol.execute("select count(*) from dbms_cloud_ai.all_cloud_ai_profiles").fetchone()[0] == 0
    # An administrator sees every grant in the DBA view, and only its own in ALL_.
    admin = db.connect("ai_admin")
    assert admin.execute("select owner, profile_name, grantee from dbms_cloud_ai.dba_cloud_ai_profile_grants"
                         ).fetchall() == [("alice", "SALES", "bob")]
    assert admin.execute("select count(*) from dbms_cloud_ai.all_cloud_ai_profiles").fetchone()[0] == 0


def test_grant_to_a_role_reaches_its_members_and_public_reaches_everyone(db, llm, alice):
    make_profile(alice, llm, "TEAM", key=ALICE_KEY)
    carol = db.connect("carol")          # member of analysts
    with raises("42704"):
        generate(carol, "hi", "alice.team")
    alice.execute("select dbms_cloud_ai.grant_profile_access('TEAM', 'analysts')")
    llm.script(Answer("hi carol"))
    assert generate(carol, "hi", "alice.team") == "hi carol"
    bob = db.connect("bob")
    with raises("42704"):                 # not a member of analysts
        generate(bob, "hi", "alice.team")
    alice.execute("select dbms_cloud_ai.grant_profile_access('TEAM', 'public')")
    llm.script(Answer("hi bob"))
    assert generate(bob, "hi", "alice.team") == "hi bob"
    assert sorted(r[0] for r in alice.execute(
        "select grantee from dbms_cloud_ai.user_cloud_ai_profile_grants")) == ["PUBLIC", "analysts"]


def test_set_profile_get_profile_and_select_ai_with_a_shared_profile(shared, llm):
    alice, bob = shared
    bob.execute("""select dbms_cloud_ai.set_profile('"ALICE"."SALES"')""")
    assert bob.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] == '"alice"."SALES"'
    llm.script(Answer("from select_ai"), Answer("from generate"))
    assert bob.execute("select dbms_cloud_ai.select_ai('chat hello')").fetchone()[0] == "from select_ai"
    assert bob.execute("select dbms_cloud_ai.generate('hello', action => 'chat')").fetchone()[0] \
        == "from generate"
    assert llm.chat_requests[-1].headers["authorization"] == f"Bearer {ALICE_KEY}"
    # The session conversation (the profile's "conversation": true) is bob's own.
    assert [r[0] for r in bob.execute(
        "select prompt from dbms_cloud_ai.session_cloud_ai_conversation_prompts order by 1")] \
        == ["hello", "hello"]
    # Revoked: the next call fails and get_profile() no longer names it.
    alice.execute("select dbms_cloud_ai.revoke_profile_access('SALES', 'bob')")
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.generate('again', action => 'chat')")
    assert bob.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] is None


def test_grantee_conversations_and_accounting_stay_its_own(shared, llm):
    alice, bob = shared
    conv = bob.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    llm.script(Answer("bob answer"))
    generate(bob, "bob private question", '"alice"."SALES"', params=json.dumps({"conversation_id": conv}))
    assert bob.execute("select profile_name, prompt from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                       ).fetchall() == [('"alice"."SALES"', "bob private question")]
    # The owner sees none of it: no prompt, no conversation, no call.
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts").fetchone()[0] == 0
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversations").fetchone()[0] == 0
    assert calls(alice) == []
    # And bob's later prompts in the owner's profile never carry alice's history.
    conv_a = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    llm.script(Answer("alice answer"), Answer("bob again"))
    generate(alice, "alice secret plan", "SALES", params=json.dumps({"conversation_id": conv_a}))
    generate(bob, "next", '"alice"."SALES"', params=json.dumps({"conversation_id": conv}))
    assert "alice secret plan" not in json.dumps(llm.chat_requests[-1].json)


def test_the_grantees_budget_applies_not_the_owners(shared, db, llm):
    alice, bob = shared
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.set_token_budget('bob', 1)")
    with raises("53400"):
        generate(bob, "first", '"alice"."SALES"')
    assert llm.chat_requests == []
    llm.script(Answer("alice unaffected"))
    assert generate(alice, "mine", "SALES") == "alice unaffected"
    admin.execute("select dbms_cloud_ai.set_token_budget('bob', null)")
    admin.execute("select dbms_cloud_ai.set_token_budget('alice', 1)")
    llm.script(Answer("bob unaffected"))
    assert generate(bob, "second", '"alice"."SALES"') == "bob unaffected"


def test_grantee_never_reaches_the_owners_credential(shared, db, llm):
    alice, bob = shared
    llm.script(Answer("ok"))
    generate(bob, "warm up", '"alice"."SALES"')
    # No view, table or function shows bob the credential row or its secret.
    assert bob.execute("select count(*) from dbms_cloud.user_credentials").fetchone()[0] == 0
    assert bob.execute("select count(*) from dbms_cloud._credential").fetchone()[0] == 0
    # Using it outside the profile: a profile of bob's naming alice's credential uses bob's own
    # (he has none), and a per-call attribute cannot move the key elsewhere.
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.create_profile('MINE', %s)",
                    (json.dumps({"provider": "openai", "credential_name": "CRED"}),))
    n = len(llm.requests)
    for attr, value in (("provider_endpoint", "http://127.0.0.1:9/steal"), ("credential_name", "CRED"),
                        ("provider", "anthropic"), ("model", "gpt-expensive"), ("max_tokens", 100000),
                        ("azure_resource_name", "evil")):
        with raises("42501"):
            bob.execute("select dbms_cloud_ai.generate('x', '\"alice\".\"SALES\"', 'chat', %s)",
                        (json.dumps({attr: value}),))
    assert len(llm.requests) == n                    # refused before any request
    # Harmless per-call attributes still work for the grantee.
    llm.script(Answer("warm"))
    assert bob.execute("select dbms_cloud_ai.generate('x', '\"alice\".\"SALES\"', 'chat', %s)",
                       (json.dumps({"temperature": 0.1}),)).fetchone()[0] == "warm"


def test_an_endpoint_that_echoes_the_key_never_shows_it(shared, db, llm):
    """The owner's endpoint answers with the key it received (a logging proxy, a hostile
    server), in plain text, JSON-escaped and as a JSON key: the grantee's answer, its stored
    history and the owner's own answer hold [REDACTED] instead (issue 30, class 4)."""
    alice, bob = shared
    escaped = "".join(f"\\u{ord(c):04x}" for c in ALICE_KEY)      # \\u0073\\u006b...
    body = json.dumps({
        "id": "x", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": f"key {ALICE_KEY} and ESC"}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        ALICE_KEY: "as a key too"}).replace("ESC", escaped)
    llm.responder = lambda wire, request: Raw(200, body,
                                              headers={"content-type": "application/json"})
    for conn, profile in ((bob, '"alice"."SALES"'), (alice, "SALES")):
        for _ in range(2):
            assert generate(conn, "echo", profile) == "key [REDACTED] and [REDACTED]"
        # the second request carries the first answer as history (conversation: true)
        history = json.dumps(llm.chat_requests[-1].json["messages"])
        assert "[REDACTED]" in history and ALICE_KEY not in history


def test_only_the_owner_changes_drops_or_shares_a_profile(shared, db):
    alice, bob = shared
    for stmt in ("""select dbms_cloud_ai.set_attribute('"alice"."SALES"', 'model', 'x')""",
                 """select dbms_cloud_ai.set_attributes('"alice"."SALES"', '{"model": "x"}')""",
                 """select dbms_cloud_ai.drop_profile('"alice"."SALES"')""",
                 """select dbms_cloud_ai.disable_profile('"alice"."SALES"')""",
                 """select dbms_cloud_ai.grant_profile_access('"alice"."SALES"', 'carol')""",
                 """select dbms_cloud_ai.revoke_profile_access('"alice"."SALES"', 'bob')""",
                 """select dbms_cloud_ai.feedback('"alice"."SALES"', sql_text => 'select ai x',
                                                  feedback_type => 'positive')"""):
        with raises("42501"):
            bob.execute(stmt)
    # A profile not shared with the caller is simply missing.
    carol = db.connect("carol")
    with raises("42704"):
        carol.execute("""select dbms_cloud_ai.drop_profile('"alice"."SALES"')""")
    # Nothing changed.
    assert alice.execute("select status from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == "ENABLED"
    assert alice.execute("select grantee from dbms_cloud_ai.user_cloud_ai_profile_grants").fetchall() == [("bob",)]
    # The owner naming its own profile by owner and name is the same as by name.
    alice.execute("""select dbms_cloud_ai.disable_profile('"alice"."SALES"')""")
    with raises("55000"):                            # disabled by its owner: refused to the grantee
        generate(bob, "hi", '"alice"."SALES"')


def test_grant_and_revoke_errors(db, llm, alice):
    make_profile(alice, llm, "SALES", key=ALICE_KEY)
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.grant_profile_access('NOPE', 'bob')")
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'no_such_role')")
    with raises("22004"):
        alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', null)")
    with raises("22023"):
        alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'alice')")
    with raises("22023"):
        alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'bob; drop table x')")
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.revoke_profile_access('SALES', 'bob')")
    alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'BOB')")   # folds to bob
    alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'bob')")   # again: no error
    assert alice.execute("select grantee from dbms_cloud_ai.user_cloud_ai_profile_grants").fetchall() \
        == [("bob",)]
    alice.execute("select dbms_cloud_ai.revoke_profile_access(profile_name => 'sales', "
                  "user_or_role_name => 'bob')")
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profile_grants").fetchone()[0] == 0
    for bad in ('"alice"."SALES"."X"', '""."SALES"', 'alice.', "a b.SALES"):
        with raises("22023"):
            alice.execute("select dbms_cloud_ai.generate('x', %s, 'chat')", (bad,))


def test_dropping_the_profile_or_the_grantee_ends_the_grant(shared, db, llm):
    alice, bob = shared
    alice.execute("select dbms_cloud_ai.drop_profile('SALES')")
    assert db.admin.execute("select count(*) from dbms_cloud_ai._profile_grant").fetchone()[0] == 0
    make_profile(alice, llm, "SALES2", credential="CRED2", key=ALICE_KEY)
    db.admin.execute("create role dave login")
    db.admin.execute("grant dbms_cloud_ai_user to dave")
    try:
        alice.execute("select dbms_cloud_ai.grant_profile_access('SALES2', 'dave')")
        db.admin.execute("drop role dave")
        # A new role of the same name is not the grantee.
        db.admin.execute("create role dave login")
        db.admin.execute("grant dbms_cloud_ai_user to dave")
        dave = db.connect("dave")
        with raises("42704"):
            generate(dave, "hi", "alice.sales2")
        assert dave.execute("select count(*) from dbms_cloud_ai.all_cloud_ai_profiles").fetchone()[0] == 0
        dave.close()
        # The inert grant goes with the dropped role's data (the live profile stays).
        db.admin.execute("drop role dave")
        admin = db.connect("ai_admin")
        assert admin.execute("select dbms_cloud_ai.drop_role_data('dave')").fetchone()[0] >= 1
        assert admin.execute("select count(*) from dbms_cloud_ai.dba_cloud_ai_profile_grants").fetchone()[0] == 0
        assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == 1
    finally:
        db.admin.execute("do $$ begin if exists (select from pg_roles where rolname = 'dave') then "
                         "drop owned by dave; drop role dave; end if; end $$")


def test_same_name_profiles_of_the_grantee_and_the_owner_stay_apart(shared, llm):
    alice, bob = shared
    make_profile(bob, llm, "SALES", key="sk-bob-own")
    llm.script(Answer("own"), Answer("shared"))
    generate(bob, "q", "SALES")
    assert llm.chat_requests[-1].headers["authorization"] == "Bearer sk-bob-own"
    generate(bob, "q", '"alice"."SALES"')
    assert llm.chat_requests[-1].headers["authorization"] == f"Bearer {ALICE_KEY}"
    assert [r[0] for r in calls(bob)] == ["SALES", '"alice"."SALES"']


def test_text_actions_and_the_owners_credential_state(shared, llm):
    alice, bob = shared
    llm.script(Answer("a short summary"))
    assert bob.execute("select dbms_cloud_ai.summarize('Some text to summarize.', "
                       "profile_name => '\"alice\".\"SALES\"')").fetchone()[0] == "a short summary"
    assert llm.chat_requests[-1].headers["authorization"] == f"Bearer {ALICE_KEY}"
    alice.execute("select dbms_cloud.disable_credential('CRED')")
    n = len(llm.requests)
    with raises("55000"):
        generate(bob, "hi", '"alice"."SALES"')
    assert len(llm.requests) == n
    alice.execute("select dbms_cloud.enable_credential('CRED')")
    alice.execute("select dbms_cloud.drop_credential('CRED')")
    with raises("42704"):
        generate(bob, "hi", '"alice"."SALES"')
    # A credential of bob's own of that name is never sent to the owner's endpoint instead.
    bob.execute("select dbms_cloud.create_credential('CRED', 'u', 'sk-bob-must-not-leave')")
    with raises("42704"):
        generate(bob, "hi", '"alice"."SALES"')
    assert len(llm.requests) == n


def test_hostile_names_are_refused_quickly_and_the_server_survives(shared, db):
    alice, bob = shared
    witness = db.connect("carol")
    for name in ("a" * 1_000_000, '"alice".' + '"x".' * 50_000 + '"P"', "." * 100_000,
                 '"' + "\\" * 100_000 + '"."P"', "alice.sales" + " " * 10_000 + "x"):
        with raises("22023"):
            bob.execute("select dbms_cloud_ai.generate('q', %s, 'chat')", (name,))
    with raises("42704"):            # a quoted owner may hold any character: just no such profile
        bob.execute("select dbms_cloud_ai.generate('q', %s, 'chat')", ('"al\x01ice"."SALES"',))
    for role in ("b" * 1_000_000, "bob\x01", "bob; drop role alice"):
        with raises("22023"):
            alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', %s)", (role,))
    with raises("22023"):            # longer than any role name can be
        alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', %s)", ('"' + "b" * 5000 + '"',))
    with raises("42704"):            # a quoted name of a role that does not exist
        alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', %s)", ('"' + "b" * 63 + '"',))
    assert witness.execute("select 1").fetchone()[0] == 1


# --- issue 30, class 5: what a grantee may cost the owner's key ----------------------------

GRANTEE_ESCAPES = {
    "commit": ["select dbms_cloud_ai.generate('q', '\"alice\".\"SALES\"', 'chat')"],
    "rollback": ["begin", "select dbms_cloud_ai.generate('q', '\"alice\".\"SALES\"', 'chat')",
                 "rollback"],
    "failing_statement": ["select dbms_cloud_ai.generate('q', '\"alice\".\"SALES\"', 'chat')::int"],
    "read_only": ["begin read only",
                  "select dbms_cloud_ai.generate('q', '\"alice\".\"SALES\"', 'chat')", "commit"],
    "savepoint": ["begin", "savepoint s",
                  "select dbms_cloud_ai.generate('q', '\"alice\".\"SALES\"', 'chat')",
                  "rollback to savepoint s", "commit"],
}


def _spend_and_leave(db, role, steps):
    conn = db.connect(role)
    for step in steps:
        try:
            conn.execute(step)
        except Exception:  # noqa: BLE001 - the failing statement is part of the case
            pass
    conn.close()


def grant_budget(conn, profile, role, tokens):
    conn.execute("select dbms_cloud_ai.set_profile_grant_budget(%s, %s, %s)", (profile, role, tokens))


@pytest.mark.parametrize("escape", sorted(GRANTEE_ESCAPES))
def test_the_owners_grant_budget_bounds_a_grantee_whatever_its_transaction_does(shared, db, llm,
                                                                                escape):
    alice, bob = shared
    make_profile(bob, llm, "MINE", key="sk-bob")   # bob's rows exist: a read-only call can send
    grant_budget(alice, "SALES", "bob", 200)
    llm.responder = lambda wire, body: Answer("a", 40, 20)          # 60 tokens a request
    for _ in range(6):
        _spend_and_leave(db, "bob", GRANTEE_ESCAPES[escape])
    # 180 spent + an estimate fits; 240 does not: the limit plus one request's output.
    assert len(llm.requests) == 4, "the owner's budget must hold although nothing was committed"
    bob = db.connect("bob")
    with raises("53400"):
        generate(bob, "q", '"alice"."SALES"')
    # Every other way of sending through the profile is bounded by the same budget.
    with raises("53400"):
        bob.execute("select dbms_cloud_ai.summarize('some text', profile_name => %s)",
                    ('"alice"."SALES"',))
    with raises("53400"):
        bob.execute("select dbms_cloud_ai.translate(%s, 'hello', 'english', 'french')",
                    ('"alice"."SALES"',))
    bob.execute("select dbms_cloud_ai.set_profile('\"alice\".\"SALES\"')")
    with raises("53400"):
        bob.execute("select dbms_cloud_ai.select_ai('chat hello')")
    assert len(llm.requests) == 4
    # Only bob's calls through alice's profile: his own profile and alice herself are not bounded.
    generate(bob, "q", "MINE")
    generate(alice, "q", "SALES")
    assert len(llm.requests) == 6


def test_a_grant_budget_counts_what_was_spent_before_it_and_each_role_holding_the_grant(
        db, llm, alice):
    make_profile(alice, llm, "TEAM", key=ALICE_KEY)
    alice.execute("select dbms_cloud_ai.grant_profile_access('TEAM', 'analysts')")
    alice.execute("select dbms_cloud_ai.grant_profile_access('TEAM', 'PUBLIC')")
    carol, bob = db.connect("carol"), db.connect("bob")      # carol: a member of analysts
    llm.responder = lambda wire, body: Answer("a", 40, 20)
    for _ in range(3):
        generate(carol, "q", "alice.team")                       # 180 tokens before any budget
    grant_budget(alice, "TEAM", "analysts", 200)
    generate(carol, "q", "alice.team")                           # 180 + an estimate fits
    with raises("53400"):
        generate(carol, "q", "alice.team")
    # The grant to PUBLIC has no budget: it does not lift the one on analysts, and
    # bob (not a member of analysts) is bounded by no budget.
    for _ in range(5):
        generate(bob, "q", "alice.team")
    # A budget on the PUBLIC grant bounds bob too; NULL removes it.
    grant_budget(alice, "TEAM", "PUBLIC", 100)
    with raises("53400"):
        generate(bob, "q", "alice.team")
    grant_budget(alice, "TEAM", "PUBLIC", None)
    generate(bob, "q", "alice.team")
    assert alice.execute("select grantee, daily_tokens from dbms_cloud_ai.user_cloud_ai_profile_grants "
                         "order by 1").fetchall() == [("PUBLIC", None), ("analysts", 200)]


def test_only_the_owner_sets_a_grant_budget(shared, db):
    alice, bob = shared
    with raises("42501"):
        grant_budget(bob, '"alice"."SALES"', "bob", 10_000_000)
    with raises("42704"):                     # not shared with carol
        grant_budget(alice, "SALES", "carol", 100)
    with raises("42704"):
        grant_budget(alice, "NOPE", "bob", 100)
    with raises("22023"):
        grant_budget(alice, "SALES", "bob", -1)
    with raises("42704"):                     # bob's own profile of that name: none
        grant_budget(bob, "SALES", "alice", 100)
    grant_budget(alice, "SALES", "bob", 0)
    with raises("53400"):
        generate(bob, "q", '"alice"."SALES"')


def test_a_grantees_call_attributes_are_capped_by_the_owners_profile(db, llm, alice, bob):
    make_profile(alice, llm, "SALES", key=ALICE_KEY, conversation_length=5)
    alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'bob')")
    llm.responder = lambda wire, body: Answer("a")
    for attrs in ({"conversation_length": 999}, {"conversation_length": 6},
                  {"summarize_history": True},
                  {"object_list": [{"owner": "bob"}, {"owner": "public"}]}):
        with raises("42501"):
            generate(bob, "q", '"alice"."SALES"', attributes=json.dumps(attrs))
    assert llm.requests == []
    # Within the caps: allowed.
    for attrs in ({"conversation_length": 5}, {"conversation_length": 1},
                  {"summarize_history": False}, {"object_list": [{"owner": "bob"}]}):
        generate(bob, "q", '"alice"."SALES"', attributes=json.dumps(attrs))
    # The owner is not capped by her own profile.
    generate(alice, "q", "SALES", attributes=json.dumps({"conversation_length": 999,
                                                         "summarize_history": True}))


def test_a_grantees_conversation_attributes_are_clamped_to_the_owners_profile(shared, db, llm):
    alice, bob = shared                                   # SALES: conversation_length 10 (default)
    llm.responder = lambda wire, body: Answer("a")
    cid = bob.execute("select dbms_cloud_ai.create_conversation(%s)", (json.dumps(
        {"title": "t", "conversation_length": 999, "summarize_history": True}),)).fetchone()[0]
    params = json.dumps({"conversation_id": cid})
    for i in range(14):
        generate(bob, f"q{i}", '"alice"."SALES"', params=params)
    # One request a turn (no summary request), and at most 10 earlier turns sent.
    assert len(llm.requests) == 14
    last = llm.requests[-1].json["messages"]
    assert sum(1 for m in last if m["role"] == "user") == 11
    # With his own profile, bob's conversation keeps its own settings.
    make_profile(bob, llm, "MINE", key="sk-bob")
    llm.requests.clear()
    generate(bob, "q-own", "MINE", params=params)
    assert sum(1 for m in llm.requests[-1].json["messages"] if m["role"] == "user") >= 15


def test_a_grantees_max_text_calls_is_clamped_to_its_default(db, llm, alice, bob):
    make_profile(alice, llm, "SALES", key=ALICE_KEY, context_window=2000, max_tokens=200)
    alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'bob')")
    llm.responder = lambda wire, body: Answer("t")
    text = " ".join(f"word{i}" for i in range(2000))     # about 70 translation requests
    for conn in (alice, bob):
        conn.execute("set dbms_cloud_ai.max_text_calls = 100000")
    with raises("54000"):                                  # bob: at most the default, 50
        bob.execute("select dbms_cloud_ai.translate(%s, %s, 'english', 'french')",
                    ('"alice"."SALES"', text))
    assert llm.requests == []
    alice.execute("select dbms_cloud_ai.translate('SALES', %s, 'english', 'french')", (text,))
    assert len(llm.requests) > 50


def test_a_grantees_schema_context_tokens_is_clamped_to_its_default(db, llm, alice, bob):
    tables = 700                       # about 30 tokens each: some 21,000 in all
    db.admin.execute("create schema big authorization alice")
    alice.execute(f"""
        do $$
        begin
            for i in 1..{tables} loop
                execute pg_catalog.format('create table big.t%s (id int, quantity_ordered int, '
                                          'created_at date, customer_reference text)', i);
            end loop;
        end $$""")
    alice.execute("grant usage on schema big to bob")
    alice.execute("grant select on all tables in schema big to bob")
    make_profile(alice, llm, "BIG", key=ALICE_KEY, object_list=[{"owner": "big"}])
    alice.execute("select dbms_cloud_ai.grant_profile_access('BIG', 'bob')")

    def described(conn, profile):
        prompt = json.loads(generate(conn, "how many orders", profile, "showprompt"))
        return [m["content"] for m in prompt if m.get("role") == "system"
                and str(m.get("content", "")).startswith("CREATE TABLE ")]

    for conn in (alice, bob):
        conn.execute("set dbms_cloud_ai.schema_context_tokens = 1000000")
    assert len(described(alice, "BIG")) == tables           # the owner's setting is hers
    texts = described(bob, '"alice"."BIG"')
    assert 0 < len(texts) < tables, "the grantee's setting is clamped to 12,000 tokens"
    assert sum(len(t) for t in texts) <= 12_000 * 4
    assert llm.requests == []


def test_a_grantees_conversation_summary_size_is_clamped_to_the_owners_profile(db, llm, alice, bob):
    make_profile(alice, llm, "SALES", key=ALICE_KEY, conversation_length=2,
                 summarize_history=True)                    # summary_max_tokens: 500 (default)
    alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'bob')")
    llm.responder = lambda wire, body: Answer("a")
    cid = bob.execute("select dbms_cloud_ai.create_conversation(%s)", (json.dumps(
        {"title": "t", "summary_max_tokens": 4000}),)).fetchone()[0]
    params = json.dumps({"conversation_id": cid})
    for i in range(5):
        generate(bob, f"q{i}", '"alice"."SALES"', params=params)
    sizes = {r.json.get("max_tokens") for r in llm.requests}
    assert 500 in sizes, "the history was summarised"
    assert sizes <= {500, 1024}, f"a summary larger than the owner's profile allows: {sizes}"


def test_a_grantees_memory_job_is_bounded_by_the_grant_budget(db, llm, alice, bob):
    enable(db)
    make_profile(alice, llm, "SALES", key=ALICE_KEY, long_term_memory=True)
    alice.execute("select dbms_cloud_ai.grant_profile_access('SALES', 'bob')")
    llm.responder = remember_phrases()
    cid = conversation(bob)
    say(bob, "remember: I prefer tea", cid, profile='"alice"."SALES"')
    spent = bob.execute("select sum(input_tokens + output_tokens) from "
                        "dbms_cloud_ai.user_cloud_ai_calls").fetchone()[0]
    grant_budget(alice, "SALES", "bob", spent)       # used up by the turn itself
    sent = len(llm.requests)
    promote(db)
    assert len(llm.requests) == sent, "no extraction is sent past the owner's budget"
    [job] = jobs(bob)
    assert (job["status"], job["reason"]) == ("stopped", "budget_exceeded")
