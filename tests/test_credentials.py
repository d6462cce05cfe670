"""dbms_cloud credentials: stored encrypted, write-only, owned by their creator."""

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


def test_no_function_returns_the_secret_to_its_owner(alice):
    alice.execute("select dbms_cloud.create_credential('c', 'u', %s)", (API_KEY,))
    for sql in ("select row_to_json(c)::text from dbms_cloud.user_credentials c",
                "select row_to_json(c)::text from dbms_cloud._credential c"):
        for (text,) in alice.execute(sql).fetchall():
            assert API_KEY not in text


def test_secret_not_in_pg_stat_statements(db, alice):
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


def test_secret_never_in_errors(alice, llm):
    make_profile(alice, llm)
    from fake_llm import Raw
    llm.script(Raw(401, {"error": {"message": "bad key"}}))
    with raises("28000") as e:
        generate(alice, "q")
    d = e["error"].diag
    for field in (d.message_primary, d.message_detail, d.message_hint, d.context):
        assert API_KEY not in (field or "")


def test_secret_never_reaches_the_server_log(db, alice, llm):
    """Failing paths, with the key passed as a bind parameter (the documented way),
    and the server as verbose as it goes without logging every statement's
    parameters (log_statement = 'all' logs bind values by PostgreSQL's design:
    see the README's security notes)."""
    import os
    import pathlib
    from fake_llm import Raw
    log = os.environ.get("DCA_PGLOG")
    if not log:
        pytest.skip("DCA_PGLOG is set by `make test`")
    canary = "sk-canary-4f1d7a0e-log-sweep"
    db.admin.execute("alter database %s set log_min_error_statement = 'debug1'" % db.info.dbname)
    db.admin.execute("alter database %s set log_min_messages = 'debug1'" % db.info.dbname)
    db.admin.execute("alter database %s set log_statement = 'ddl'" % db.info.dbname)
    conn = db.connect("alice")
    conn.execute("select dbms_cloud.create_credential('LOGCRED', 'u', %s)", (canary,))
    with raises("42710"):
        conn.execute("select dbms_cloud.create_credential('LOGCRED', 'u', %s)", (canary,))
    with raises("22023"):
        conn.execute("select dbms_cloud.create_credential('bad name', 'u', %s)", (canary,))
    conn.execute("select dbms_cloud.update_credential('LOGCRED', 'password', %s)", (canary,))
    conn.execute("""select dbms_cloud_ai.create_profile('LOGP', %s)""",
                 ('{"provider": "openai", "credential_name": "LOGCRED", "provider_endpoint": "%s"}' % llm.url,))
    llm.script(Raw(401, {"error": f"bad key {canary}"}), Raw(500, "oops"), Raw(200, "not json"))
    for state in ("28000", "LL000", "LL003"):
        conn.execute("set dbms_cloud_ai.http_max_attempts = 1")
        with raises(state):
            conn.execute("select dbms_cloud_ai.generate('q', 'LOGP', 'chat')")
    assert any(canary in r.headers.get("authorization", "") for r in llm.requests)
    text = pathlib.Path(log).read_text(errors="replace")
    assert "create_credential" in text  # the failing statements really were logged
    assert canary not in text
