"""Long-term memory administration: the organization's switch and limits, role
assignments, the gateway assertion's argument checks, and the profile attributes.
Every refusal has its SQLSTATE and changes nothing."""

from __future__ import annotations

import pytest
from helpers import case, hint_of, make_profile, raises

ADMIN_ONLY = ("select dbms_cloud_ai.enable_memory()",
              "select dbms_cloud_ai.disable_memory()",
              "select dbms_cloud_ai.set_memory_attribute('max_memories', '10')",
              "select dbms_cloud_ai.set_memory_role('bob', identity => 'anonymous')",
              "select dbms_cloud_ai.erase_memories('bob')")


def settings(db):
    return db.admin.execute("""select organization, enabled, max_memories, idle_minutes,
                                      recall_tokens, modified_by
                                 from dbms_cloud_ai.dba_cloud_ai_memory_settings
                                order by organization""").fetchall()


def identity(conn):
    return conn.execute("select organization, subject, identity, memory_enabled "
                        "from dbms_cloud_ai.memory_identity()").fetchone()


def test_administration_needs_the_admin_role(db, alice):
    for sql in ADMIN_ONLY:
        with case(sql), raises("42501") as e:
            alice.execute(sql)
        assert "dbms_cloud_ai_admin" in hint_of(e)
    assert settings(db) == []
    assert db.admin.execute("select count(*) from dbms_cloud_ai._memory_role").fetchone()[0] == 0


def test_memory_is_off_by_default_with_the_documented_defaults(db, alice):
    home = db.info.dbname
    assert identity(alice) == (home, "alice", "role", False)
    db.connect("ai_admin").execute("select dbms_cloud_ai.enable_memory()")
    assert settings(db) == [(home, True, 200, 15, 400, "ai_admin")]
    assert identity(alice) == (home, "alice", "role", True)


def test_attributes_change_one_value_and_keep_the_others(db):
    admin = db.connect("ai_admin")
    home = db.info.dbname
    admin.execute("select dbms_cloud_ai.set_memory_attribute('max_memories', '50')")
    admin.execute("select dbms_cloud_ai.set_memory_attribute('IDLE_MINUTES', ' 5 ')")
    admin.execute("select dbms_cloud_ai.set_memory_attribute('recall_tokens', '0')")
    assert settings(db) == [(home, False, 50, 5, 0, "ai_admin")]
    admin.execute("select dbms_cloud_ai.set_memory_attribute('enabled', 'TRUE')")
    assert settings(db) == [(home, True, 50, 5, 0, "ai_admin")]
    admin.execute("select dbms_cloud_ai.disable_memory()")
    assert settings(db) == [(home, False, 50, 5, 0, "ai_admin")]
    admin.execute("select dbms_cloud_ai.enable_memory('acme')")
    assert settings(db)[0] == ("acme", True, 200, 15, 400, "ai_admin")


@pytest.mark.parametrize("name, value", [
    ("max_memories", "0"), ("max_memories", "100001"), ("max_memories", "many"),
    ("max_memories", None), ("idle_minutes", "-1"), ("idle_minutes", "10081"),
    ("recall_tokens", "1.5"), ("enabled", "maybe"), ("enabled", None), ("colour", "blue"),
    (None, "1")])
def test_a_bad_attribute_is_refused_and_nothing_changes(db, name, value):
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.set_memory_attribute('max_memories', '42')")
    before = settings(db)
    with raises("22023") as e:
        admin.execute("select dbms_cloud_ai.set_memory_attribute(%s, %s)", (name, value))
    assert hint_of(e)
    assert settings(db) == before


def test_roles_are_assigned_to_organizations_and_identities(db, alice):
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.set_memory_role('alice', 'acme', 'asserted')")
    assert db.admin.execute("""select role_name, organization, identity, modified_by
                                 from dbms_cloud_ai.dba_cloud_ai_memory_roles""").fetchall() == [
        ("alice", "acme", "asserted", "ai_admin")]
    assert identity(alice) == ("acme", None, "asserted", False)
    admin.execute("select dbms_cloud_ai.set_memory_role('alice', identity => 'anonymous')")
    # NULL organization: the administrator's own (the database's)
    assert identity(alice) == (db.info.dbname, None, "anonymous", False)
    # a role sees its own assignment only
    assert alice.execute("select count(*) from dbms_cloud_ai._memory_role").fetchone()[0] == 1
    assert db.connect("bob").execute("select count(*) from dbms_cloud_ai._memory_role"
                                     ).fetchone()[0] == 0


@pytest.mark.parametrize("args, state", [
    (("nobody_here", None, "role"), "42704"),
    (("PUBLIC", None, "role"), "22023"),
    (("alice", None, "boss"), "22023"),
    (("alice", None, None), "22023"),
    (("alice", "", "role"), "22023"),
    (("alice", "x" * 129, "role"), "22023"),
])
def test_a_bad_role_assignment_is_refused(db, args, state):
    admin = db.connect("ai_admin")
    with raises(state) as e:
        admin.execute("select dbms_cloud_ai.set_memory_role(%s, %s, %s)", args)
    assert hint_of(e)
    assert db.admin.execute("select count(*) from dbms_cloud_ai._memory_role").fetchone()[0] == 0


@pytest.mark.parametrize("subject", ["", "   ", "x" * 257, "tab\there", "nl\nhere"])
def test_a_gateway_cannot_assert_a_malformed_subject(db, subject):
    db.admin.execute("select dbms_cloud_ai.set_memory_role('alice', identity => 'asserted')")
    alice = db.connect("alice")
    alice.execute("select dbms_cloud_ai.set_end_user('visitor-1')")
    with raises("22023"):
        alice.execute("select dbms_cloud_ai.set_end_user(%s)", (subject,))
    assert identity(alice)[1] == "visitor-1"          # the previous assertion stands
    alice.execute("select dbms_cloud_ai.set_end_user(null)")
    assert identity(alice)[1] is None


def test_profile_attributes_are_validated_and_listed(db, alice, llm):
    with raises("22023"):
        make_profile(alice, llm, long_term_memory="maybe")
    make_profile(alice, llm, name="Q", credential="CQ", long_term_memory=True,
                 memory_model="gpt-4o-mini")
    assert dict(alice.execute("""select attribute_name, attribute_value
                                   from dbms_cloud_ai.user_cloud_ai_profile_attributes
                                  where profile_name = 'Q' and attribute_name like '%memory%'
                               """).fetchall()) == {"long_term_memory": "true",
                                                    "memory_model": "gpt-4o-mini"}
    names = dict(alice.execute("select attribute_name, default_value "
                               "from dbms_cloud_ai.profile_attribute_names").fetchall())
    assert names["long_term_memory"] == "false"
    assert "memory_model" in names
