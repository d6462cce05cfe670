"""dbms_cloud credentials: stored encrypted, write-only, owned by their creator.

The canary sweep (every column, error, log line, statistic, dump and WAL byte)
is tests/security/test_credential_canary.py."""

from __future__ import annotations

import pytest
from fake_llm import Answer
from helpers import API_KEY, generate, hint_of, make_profile, raises


def test_create_and_view_never_shows_the_secret(alice):
    alice.execute("select dbms_cloud.create_credential('openai_cred', 'OPENAI', %s)", (API_KEY,))
    rows = alice.execute("select * from dbms_cloud.user_credentials").fetchall()
    assert len(rows) == 1
    cols = [d.name for d in alice.execute("select * from dbms_cloud.user_credentials").description]
    assert cols == ["credential_name", "username", "enabled", "created", "modified"]
    name, username, enabled, created, modified = rows[0]
    assert (name, username, enabled) == ("OPENAI_CRED", "OPENAI", True)
    assert API_KEY not in repr(rows)


def test_secret_is_ciphertext_at_rest(db, alice):
    alice.execute("select dbms_cloud.create_credential('c', 'u', %s)", (API_KEY,))
    secret, key_id = db.admin.execute("select secret, key_id from dbms_cloud._credential").fetchone()
    assert API_KEY.encode() not in bytes(secret)
    assert len(bytes(secret)) >= len(API_KEY) + 12 + 16  # nonce + tag
    assert key_id
    # Not even the owner can get anything but ciphertext back through SQL.
    own = alice.execute("select secret from dbms_cloud._credential").fetchone()[0]
    assert API_KEY.encode() not in bytes(own)


def test_secret_not_in_pg_stat_statements(db, alice):
    # The suite fills pg_stat_statements (every test has a database of its own, and
    # entries are per database); a full table evicts new entries at once.
    db.admin.execute("select pg_stat_statements_reset()")
    alice.execute(f"select dbms_cloud.create_credential('c', 'u', '{API_KEY}')")
    with raises("42710"):
        alice.execute(f"select dbms_cloud.create_credential('c', 'u', '{API_KEY}')")
    texts = [r[0] for r in db.admin.execute("select query from pg_stat_statements").fetchall()]
    assert any("create_credential" in t for t in texts)
    assert not any(API_KEY in t for t in texts)


def test_duplicate_name(alice):
    alice.execute("select dbms_cloud.create_credential('c', 'u', 'k1')")
    with raises("42710") as e:
        alice.execute("select dbms_cloud.create_credential('C', 'u', 'k2')")
    assert "update_credential" in hint_of(e)


def test_names_follow_oracle_case_rules(alice):
    alice.execute("select dbms_cloud.create_credential('my_cred', 'u', 'k')")
    alice.execute("""select dbms_cloud.create_credential('"my_cred"', 'u', 'k')""")
    names = {r[0] for r in alice.execute("select credential_name from dbms_cloud.user_credentials")}
    assert names == {"MY_CRED", "my_cred"}
    with raises("22023"):
        alice.execute("select dbms_cloud.create_credential('bad name', 'u', 'k')")


@pytest.mark.parametrize("password,state", [(None, "22004"), ("", "22023"), ("  ", "22023")])
def test_password_required(alice, password, state):
    with raises(state):
        alice.execute("select dbms_cloud.create_credential('c', 'u', %s)", (password,))
    assert alice.execute("select count(*) from dbms_cloud.user_credentials").fetchone()[0] == 0


def test_drop(alice):
    alice.execute("select dbms_cloud.create_credential('c', 'u', 'k')")
    alice.execute("select dbms_cloud.drop_credential('c')")
    assert alice.execute("select count(*) from dbms_cloud.user_credentials").fetchone()[0] == 0
    with raises("42704") as e:
        alice.execute("select dbms_cloud.drop_credential('c')")
    assert "create_credential" in hint_of(e)


def test_update_password_is_used_by_the_next_call(alice, llm):
    make_profile(alice, llm)
    generate(alice, "one")
    assert llm.requests[-1].headers["authorization"] == f"Bearer {API_KEY}"
    alice.execute("select dbms_cloud.update_credential('CRED', 'PASSWORD', 'sk-new-key')")
    generate(alice, "two")
    assert llm.requests[-1].headers["authorization"] == "Bearer sk-new-key"


def test_update_username_and_errors(alice):
    alice.execute("select dbms_cloud.create_credential('c', 'u', 'k')")
    before = alice.execute("select modified from dbms_cloud.user_credentials").fetchone()[0]
    alice.execute("select dbms_cloud.update_credential('c', 'username', 'someone')")
    user, after = alice.execute("select username, modified from dbms_cloud.user_credentials").fetchone()
    assert user == "someone" and after > before
    with raises("22023"):
        alice.execute("select dbms_cloud.update_credential('c', 'colour', 'blue')")
    with raises("42704"):
        alice.execute("select dbms_cloud.update_credential('nope', 'password', 'x')")
    with raises("22023"):
        alice.execute("select dbms_cloud.update_credential('c', 'password', '')")


def test_disable_and_enable(alice, llm):
    make_profile(alice, llm)
    alice.execute("select dbms_cloud.disable_credential('cred')")
    assert alice.execute("select enabled from dbms_cloud.user_credentials").fetchone()[0] is False
    with raises("55000") as e:
        generate(alice, "q")
    assert "enable_credential" in hint_of(e)
    assert llm.requests == []
    alice.execute("select dbms_cloud.enable_credential('cred')")
    llm.script(Answer("back"))
    assert generate(alice, "q") == "back"
    with raises("42704"):
        alice.execute("select dbms_cloud.enable_credential('nope')")


def test_ciphertext_moved_to_another_owner_does_not_decrypt(db, alice, bob, llm):
    make_profile(alice, llm)
    make_profile(bob, llm, key="sk-bob-key")
    # A superuser swaps alice's ciphertext into bob's row.
    db.admin.execute("""update dbms_cloud._credential b set secret = a.secret, key_id = a.key_id
                          from dbms_cloud._credential a
                         where a.owner = 'alice' and b.owner = 'bob'""")
    with raises("55000"):
        generate(bob, "q")
    assert llm.requests == []


# -- OCI API-key credentials (Oracle's second form of create_credential) ----------

OCI_KEY = dict(user_ocid="ocid1.user.oc1..alice", tenancy_ocid="ocid1.tenancy.oc1..acme",
               private_key="MIIEvQIBADANBgkqhkiG9w0BAQEFAASC-canary-key",
               fingerprint="12:34:56:78:9a:bc:de:f0")
_OCI_SQL = ("select dbms_cloud.create_credential(credential_name => %(name)s, "
            "user_ocid => %(user_ocid)s, tenancy_ocid => %(tenancy_ocid)s, "
            "private_key => %(private_key)s, fingerprint => %(fingerprint)s)")


def create_oci_credential(conn, name="OCI_CRED", **changes):
    conn.execute(_OCI_SQL, {"name": name, **OCI_KEY, **changes})


def test_oci_credential_shows_user_ocid_and_hides_the_key(db, alice):
    create_oci_credential(alice)
    rows = alice.execute("select credential_name, username, enabled from dbms_cloud.user_credentials"
                         ).fetchall()
    assert rows == [("OCI_CRED", OCI_KEY["user_ocid"], True)]
    secret, kind = db.admin.execute("select secret, kind from dbms_cloud._credential").fetchone()
    assert kind == "oci_api_key"
    for part in ("tenancy_ocid", "private_key", "fingerprint"):
        assert OCI_KEY[part].encode() not in bytes(secret)


def test_oci_credential_duplicate_name(alice):
    create_oci_credential(alice)
    with raises("42710"):
        create_oci_credential(alice)


@pytest.mark.parametrize("mix", [dict(username="u"), dict(password="p")])
def test_oci_and_password_forms_do_not_mix(alice, mix):
    args = ", ".join(f"{k} => %({k})s" for k in mix)
    with raises("22023") as e:
        alice.execute(_OCI_SQL[:-1] + ", " + args + ")", {"name": "C", **OCI_KEY, **mix})
    assert hint_of(e)
    assert OCI_KEY["private_key"] not in str(e["error"])
    assert alice.execute("select count(*) from dbms_cloud.user_credentials").fetchone()[0] == 0


def test_oci_credential_needs_every_part(alice):
    with raises("22004") as e:
        alice.execute("select dbms_cloud.create_credential(credential_name => 'C', "
                      "user_ocid => 'ocid1.user', private_key => 'k')")
    assert "tenancy_ocid" in str(e["error"]) and "fingerprint" in str(e["error"])
    with raises("22023"):
        create_oci_credential(alice, fingerprint=" ")


def test_update_oci_credential_attributes(db, alice):
    create_oci_credential(alice)
    before = bytes(db.admin.execute("select secret from dbms_cloud._credential").fetchone()[0])
    for attr, value in (("private_key", "NEW-KEY-canary"), ("fingerprint", "ff:ee"),
                        ("tenancy_ocid", "ocid1.tenancy.oc1..other")):
        alice.execute("select dbms_cloud.update_credential('OCI_CRED', %s, %s)", (attr, value))
    after = bytes(db.admin.execute("select secret from dbms_cloud._credential").fetchone()[0])
    assert after != before and b"NEW-KEY-canary" not in after
    alice.execute("select dbms_cloud.update_credential('OCI_CRED', 'user_ocid', 'ocid1.user.oc1..b')")
    assert alice.execute("select username from dbms_cloud.user_credentials").fetchone()[0] \
        == "ocid1.user.oc1..b"


def test_update_refuses_the_other_kinds_attributes(alice):
    create_oci_credential(alice)
    alice.execute("select dbms_cloud.create_credential('PW', 'u', 'k')")
    with raises("22023"):
        alice.execute("select dbms_cloud.update_credential('OCI_CRED', 'password', 'x')")
    with raises("22023"):
        alice.execute("select dbms_cloud.update_credential('PW', 'private_key', 'x')")
    with raises("22004"):
        alice.execute("select dbms_cloud.update_credential('OCI_CRED', 'private_key', NULL)")
    with raises("42704"):
        alice.execute("select dbms_cloud.update_credential('NOPE', 'private_key', 'x')")


def test_oci_credential_is_no_api_key_for_other_providers(alice, llm):
    create_oci_credential(alice)
    make_profile(alice, llm, credential="OCI_CRED", key=None)
    with raises("22023") as e:
        generate(alice, "hello")
    assert hint_of(e)
    assert llm.requests == []


def test_oci_credentials_of_another_role_are_invisible(alice, bob):
    create_oci_credential(alice)
    assert bob.execute("select count(*) from dbms_cloud.user_credentials").fetchone()[0] == 0
    with raises("42704"):
        bob.execute("select dbms_cloud.update_credential('OCI_CRED', 'private_key', 'x')")
