"""AI profiles: Oracle's procedures, attribute validation, views, session profile."""

from __future__ import annotations

import json

import pytest
from helpers import hint_of, make_profile, raises

OPENAI = '{"provider": "openai", "credential_name": "CRED"}'


@pytest.fixture
def cred(alice):
    alice.execute("select dbms_cloud.create_credential('cred', 'OPENAI', 'sk-x')")
    return alice


def attrs(conn, profile="P"):
    return dict(conn.execute(
        "select attribute_name, attribute_value from dbms_cloud_ai.user_cloud_ai_profile_attributes "
        "where profile_name = %s", (profile,)).fetchall())


def test_create_with_oracle_attributes_and_views(cred):
    a = {"provider": "openai", "credential_name": "cred", "model": "gpt-4o", "temperature": 0.2,
         "max_tokens": 512, "stop_tokens": [";"], "seed": 7, "comments": True, "constraints": "true",
         "annotations": False, "enforce_object_list": True, "case_sensitive_values": False,
         "conversation": True, "object_list": [{"owner": "SH", "name": "CUSTOMERS"}, {"owner": "SH"}],
         "additional_instructions": "Be brief."}
    cred.execute("select dbms_cloud_ai.create_profile(profile_name => 'openai_profile', "
                 "attributes => %s, description => 'demo')", (json.dumps(a),))
    row = cred.execute("select profile_name, status, description from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()
    assert row == ("OPENAI_PROFILE", "ENABLED", "demo")
    cols = [d.name for d in cred.execute("select * from dbms_cloud_ai.user_cloud_ai_profiles").description]
    assert cols == ["profile_id", "profile_name", "status", "description", "created", "last_modified"]
    shown = attrs(cred, "OPENAI_PROFILE")
    assert shown["provider"] == "openai"
    assert shown["temperature"] == "0.2"
    assert shown["max_tokens"] == "512"
    assert shown["comments"] == "true" and shown["constraints"] == "true" and shown["annotations"] == "false"
    assert json.loads(shown["object_list"]) == [{"owner": "SH", "name": "CUSTOMERS"}, {"owner": "SH"}]
    assert shown["additional_instructions"] == "Be brief."
    # The attributes view joins to the profiles view on profile_id, as in Oracle's examples.
    n = cred.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles a join "
                     "dbms_cloud_ai.user_cloud_ai_profile_attributes b on a.profile_id = b.profile_id").fetchone()[0]
    assert n == len(a)


def test_jsonb_attributes_overload(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s::jsonb)", (OPENAI,))
    assert attrs(cred)["credential_name"] == "CRED"


def test_status_argument(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s, 'disabled')", (OPENAI,))
    assert cred.execute("select status from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == "DISABLED"
    with raises("22023"):
        cred.execute("select dbms_cloud_ai.create_profile('q', %s, 'sleeping')", (OPENAI,))


def test_name_case_rules_and_length(cred):
    cred.execute("select dbms_cloud_ai.create_profile('my_prof', %s)", (OPENAI,))
    cred.execute("""select dbms_cloud_ai.create_profile('"Mixed"', %s)""", (OPENAI,))
    names = {r[0] for r in cred.execute("select profile_name from dbms_cloud_ai.user_cloud_ai_profiles")}
    assert names == {"MY_PROF", "Mixed"}
    cred.execute("select dbms_cloud_ai.set_attribute('MY_PROF', 'model', 'x')")  # same profile
    cred.execute("select dbms_cloud_ai.create_profile(%s, %s)", ("A" * 125, OPENAI))
    with raises("22023"):
        cred.execute("select dbms_cloud_ai.create_profile(%s, %s)", ("B" * 126, OPENAI))
    with raises("22023"):
        cred.execute("select dbms_cloud_ai.create_profile('has space', %s)", (OPENAI,))
    with raises("22004"):
        cred.execute("select dbms_cloud_ai.create_profile(NULL, %s)", (OPENAI,))


def test_duplicate(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)", (OPENAI,))
    with raises("42710") as e:
        cred.execute("select dbms_cloud_ai.create_profile('P', %s)", (OPENAI,))
    assert "drop_profile" in hint_of(e)


@pytest.mark.parametrize("bad,state", [
    ('{"credential_name": "cred"}', "22023"),                          # neither provider nor endpoint
    ('{"provider": "openai", "credential_name": "cred", "colour": 1}', "22023"),  # unknown attribute
    ('{"provider": "openai", "credential_name": "cred", "temperature": 5}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "temperature": "warm"}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "max_tokens": 0}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "max_tokens": 1.5}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "conversation_length": 1000}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "comments": "maybe"}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "object_list": [1]}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "object_list": [{"name": "T"}]}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "stop_tokens": "x"}', "22P02"),
    ('{"provider": "openai", "credential_name": "cred", "object_list_mode": "some"}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "provider_endpoint": "ftp://x"}', "22023"),
    ('{"provider": "skynet", "credential_name": "cred"}', "22023"),
    ('{"provider": "oci", "oci_apiformat": "JSON"}', "22023"),
    ('{"provider": "openai", "credential_name": "cred", "aws_apiformat": "x"}', "0A000"),
    ('{"provider": "openai"}', "22023"),                                # credential required
    ('{"provider": "openai", "credential_name": "missing"}', "42704"),  # unknown credential
    ('{"provider_endpoint": "http://127.0.0.1:1"}', "22023"),           # compatible server needs a model
    ('{"provider": "azure", "credential_name": "cred"}', "22023"),     # azure needs a deployment
    ('[1, 2]', "22023"),
    ('{oops', "22P02"),
])
def test_attribute_validation(cred, bad, state):
    with raises(state) as e:
        cred.execute("select dbms_cloud_ai.create_profile('p', %s)", (bad,))
    assert hint_of(e)
    assert cred.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == 0


def test_set_attribute_types(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)", (OPENAI,))
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'max_tokens', '2048')")
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'temperature', 0.5)")
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'comments', true)")
    cred.execute("""select dbms_cloud_ai.set_attribute('p', 'object_list', '[{"owner":"SH"}]')""")
    cred.execute("""select dbms_cloud_ai.set_attribute('p', 'stop_tokens', '[";"]'::jsonb)""")
    a = attrs(cred)
    assert (a["max_tokens"], a["temperature"], a["comments"]) == ("2048", "0.5", "true")
    assert json.loads(a["object_list"]) == [{"owner": "SH"}]
    assert json.loads(a["stop_tokens"]) == [";"]
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'comments', NULL::text)")
    assert "comments" not in attrs(cred)


def test_bad_set_attribute_changes_nothing(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)", (OPENAI,))
    before = (attrs(cred), cred.execute("select last_modified from dbms_cloud_ai.user_cloud_ai_profiles").fetchone())
    with raises("22023"):
        cred.execute("select dbms_cloud_ai.set_attribute('p', 'max_tokens', 'lots')")
    with raises("22023"):
        cred.execute("select dbms_cloud_ai.set_attribute('p', 'provider', NULL::text)")  # would leave no provider
    with raises("42704"):
        cred.execute("select dbms_cloud_ai.set_attribute('p', 'credential_name', 'ghost')")
    with raises("42704"):
        cred.execute("select dbms_cloud_ai.set_attribute('nope', 'model', 'x')")
    after = (attrs(cred), cred.execute("select last_modified from dbms_cloud_ai.user_cloud_ai_profiles").fetchone())
    assert before == after


def test_set_attributes_merges_and_null_removes(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)",
                 ('{"provider": "openai", "credential_name": "cred", "model": "a", "seed": 1}',))
    cred.execute("""select dbms_cloud_ai.set_attributes('p', '{"model": "b", "seed": null, "max_tokens": 10}')""")
    a = attrs(cred)
    assert a["model"] == "b" and a["max_tokens"] == "10" and "seed" not in a and a["provider"] == "openai"
    cred.execute("""select dbms_cloud_ai.set_attributes('p', '{"model": "c"}'::jsonb)""")
    assert attrs(cred)["model"] == "c"


def test_attribute_values_are_shown_as_the_user_gave_them(db, cred):
    """Oracle's attribute views show what was supplied, not a re-serialised value: a JSON
    array keeps its spacing, key order and case, through create_profile and set_attribute(s)."""
    odd_list = '[ {"Owner" :"sh",  "name":"Customers"},{"owner": "SH"} ]'
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)",
                 ('{"Provider": "OpenAI", "credential_name": "cred", "temperature": 0.50,\n'
                  f' "object_list": {odd_list.replace("Owner", "owner")}, "comments": true,'
                  ' "stop_tokens": [";" , "\\n"], "model": "gpt-4o", "model": "gpt-4o-mini"}',))
    a = attrs(cred)
    assert a["object_list"] == odd_list.replace("Owner", "owner")
    assert (a["provider"], a["temperature"], a["comments"]) == ("OpenAI", "0.50", "true")
    assert a["stop_tokens"] == '[";" , "\\n"]'
    assert a["model"] == "gpt-4o-mini"                   # the last of a duplicate key, as used
    # set_attribute: the text as given; set_attributes: each member's text.
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'OBJECT_LIST', %s)",
                 ('[{"owner":"sh",   "name" : "Sales"}]',))
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'comments', 'TRUE')")
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'max_tokens', '0512')")
    cred.execute("select dbms_cloud_ai.set_attributes('p', %s)",
                 ('{"seed":  7E0 , "additional_instructions": "  Be brief. ", "stop_tokens": null}',))
    a = attrs(cred)
    assert a["object_list"] == '[{"owner":"sh",   "name" : "Sales"}]'
    assert (a["comments"], a["max_tokens"], a["seed"]) == ("TRUE", "0512", "7E0")
    assert a["additional_instructions"] == "  Be brief. " and "stop_tokens" not in a
    # The typed value is what is used.
    assert json.loads(db.admin.execute(
        "select attributes->>'object_list' from dbms_cloud_ai._profile").fetchone()[0]) \
        == [{"owner": "sh", "name": "Sales"}]
    # A removed attribute takes its text with it; set again, the new text shows.
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'object_list', NULL::text)")
    assert "object_list" not in attrs(cred)
    cred.execute("""select dbms_cloud_ai.set_attribute('p', 'object_list', '[{"owner": "SH"}]'::jsonb)""")
    assert attrs(cred)["object_list"] == '[{"owner": "SH"}]'
    # Neither view shows a credential's secret, only the credential's name.
    admin_view = db.admin.execute("select attribute_name, attribute_value "
                                  "from dbms_cloud_ai.dba_cloud_ai_profile_attributes").fetchall()
    assert dict(admin_view) == attrs(cred)
    assert attrs(cred)["credential_name"] == "cred"
    for _, value in admin_view:
        assert "sk-x" not in value


def test_attributes_stored_before_their_text_are_shown_from_the_typed_value(db, cred):
    """Rows written by 0.5.0 have no attribute_text: the views fall back to the typed value."""
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)",
                 ('{"provider": "openai", "credential_name": "cred", '
                  '"object_list": [ {"owner":"SH"} ], "max_tokens": 10}',))
    db.admin.execute("update dbms_cloud_ai._profile set attribute_text = '{}'")
    a = attrs(cred)
    assert (a["object_list"], a["max_tokens"], a["provider"]) == ('[{"owner": "SH"}]', "10", "openai")
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'max_tokens', ' 20')")
    a = attrs(cred)
    assert (a["object_list"], a["max_tokens"]) == ('[{"owner": "SH"}]', " 20")


def test_last_modified_moves(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)", (OPENAI,))
    c1, m1 = cred.execute("select created, last_modified from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()
    cred.execute("select dbms_cloud_ai.set_attribute('p', 'model', 'x')")
    c2, m2 = cred.execute("select created, last_modified from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()
    assert c1 == c2 and m2 > m1


def test_drop_profile(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)", (OPENAI,))
    cred.execute("select dbms_cloud_ai.set_profile('p')")
    cred.execute("select dbms_cloud_ai.drop_profile('p')")
    assert cred.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == 0
    assert cred.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] is None
    with raises("42704"):
        cred.execute("select dbms_cloud_ai.drop_profile('p')")
    cred.execute("select dbms_cloud_ai.drop_profile('p', force => true)")
    cred.execute("select dbms_cloud_ai.drop_profile(profile_name => 'p', force => true)")


def test_enable_disable_twice(cred):
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)", (OPENAI,))
    with raises("55000"):
        cred.execute("select dbms_cloud_ai.enable_profile('p')")
    cred.execute("select dbms_cloud_ai.disable_profile('p')")
    assert cred.execute("select status from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == "DISABLED"
    with raises("55000"):
        cred.execute("select dbms_cloud_ai.disable_profile('p')")
    cred.execute("select dbms_cloud_ai.enable_profile('p')")
    with raises("42704"):
        cred.execute("select dbms_cloud_ai.enable_profile('nope')")


def test_session_profile(cred, db):
    assert cred.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] is None
    with raises("42704"):
        cred.execute("select dbms_cloud_ai.set_profile('p')")
    cred.execute("select dbms_cloud_ai.create_profile('p', %s)", (OPENAI,))
    cred.execute("select dbms_cloud_ai.set_profile(profile_name => 'p')")
    assert cred.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] == "P"
    other = db.connect("alice")  # another session has no profile set
    assert other.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] is None
    cred.execute("select dbms_cloud_ai.clear_profile()")
    assert cred.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] is None


def test_spoofed_session_setting_grants_nothing(alice, bob, llm):
    make_profile(alice, llm, name="ALICE_ONLY")
    bob.execute("set dbms_cloud_ai.profile_name = 'ALICE_ONLY'")
    assert bob.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] is None
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.generate('q', action => 'chat')")
    assert llm.requests == []


def test_profile_attribute_names(alice):
    rows = dict((r[0], r[1]) for r in alice.execute(
        "select attribute_name, default_value from dbms_cloud_ai.profile_attribute_names"))
    for name in ("provider", "credential_name", "model", "temperature", "max_tokens", "stop_tokens",
                 "seed", "provider_endpoint", "azure_resource_name", "azure_deployment_name",
                 "object_list", "comments", "constraints", "annotations", "enforce_object_list",
                 "case_sensitive_values", "conversation", "additional_instructions"):
        assert name in rows
    assert rows["max_tokens"] == "1024" and rows["conversation"] == "false"


def test_dba_views_are_for_admins(db, alice, bob, llm):
    make_profile(alice, llm, name="PA")
    make_profile(bob, llm, name="PB")
    admin = db.connect("ai_admin")
    rows = set(admin.execute("select owner, profile_name from dbms_cloud_ai.dba_cloud_ai_profiles").fetchall())
    assert {("alice", "PA"), ("bob", "PB")} <= rows
    assert admin.execute("select count(*) from dbms_cloud_ai.dba_cloud_ai_profile_attributes "
                         "where owner = 'alice'").fetchone()[0] >= 3
    # The admin's own USER_ view still shows only its own profiles.
    assert admin.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == 0
    with raises("42501"):
        alice.execute("select * from dbms_cloud_ai.dba_cloud_ai_profiles")
    # Reading is not changing: the admin cannot alter alice's profile.
    with raises("42704"):
        admin.execute("select dbms_cloud_ai.drop_profile('PA')")
    assert admin.execute("update dbms_cloud_ai._profile set description = 'x' where owner = 'alice'").rowcount == 0


def test_a_transaction_local_session_profile_for_transaction_poolers(db, alice, llm):
    """Behind a pooler in transaction mode a session setting would leak to the next
    client: SET LOCAL of the setting set_profile writes (docs/scaling.md) lasts one
    transaction and is checked like set_profile's (the caller's own profile only)."""
    make_profile(alice, llm)
    make_profile(db.connect("bob"), llm, name="BOBP", credential="BOBCRED")
    with alice.transaction():
        alice.execute("set local dbms_cloud_ai.profile_name = 'P'")
        assert alice.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] == "P"
        assert alice.execute("select dbms_cloud_ai.generate('hi', action => 'chat')").fetchone()[0]
    assert alice.execute("select dbms_cloud_ai.get_profile()").fetchone()[0] is None
    with raises("55000"):
        alice.execute("select dbms_cloud_ai.generate('hi', action => 'chat')")
    with alice.transaction():
        alice.execute("set local dbms_cloud_ai.profile_name = 'BOBP'")   # bob's: not hers
        with raises("42704"):
            alice.execute("select dbms_cloud_ai.generate('hi', action => 'chat')")
