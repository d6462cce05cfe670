"""Outbound hosts: Oracle-style host ACEs, granted by an admin, checked per call."""

from __future__ import annotations

import pytest
from fake_llm import Answer
from helpers import generate, hint_of, make_profile, raises


@pytest.fixture
def fake(fake_llm):
    """The fake LLM *without* the llm fixture's blanket ACE."""
    fake_llm.reset()
    yield fake_llm
    fake_llm.reset()


def test_custom_host_needs_an_ace(db, alice, fake):
    make_profile(alice, fake)
    with raises("42501") as e:
        generate(alice, "q")
    assert "append_host_ace" in hint_of(e)
    assert fake.requests == []
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.append_host_ace(host => '127.0.0.1', principal_name => 'alice', "
                  "lower_port => %s, upper_port => %s)", (fake.port, fake.port))
    fake.script(Answer("through"))
    assert generate(alice, "q") == "through"


def test_only_admins_manage_aces(alice, db):
    with raises("42501") as e:
        alice.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice')")
    assert "dbms_cloud_ai_admin" in hint_of(e)
    with raises("42501"):
        alice.execute("insert into dbms_cloud_ai._host_ace (host, principal_name) values ('*', 'PUBLIC')")
    with raises("42501"):
        alice.execute("select dbms_cloud_ai.remove_host_ace('127.0.0.1', 'alice')")
    with raises("42501"):
        alice.execute("select * from dbms_cloud_ai.dba_host_aces")


def test_ace_applies_to_its_principal_and_groups(db, alice, bob, fake):
    carol = db.connect("carol")
    for conn in (alice, bob, carol):
        make_profile(conn, fake)
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'analysts')")
    fake.script(Answer("carol ok"))
    assert generate(carol, "q") == "carol ok"          # member of analysts
    for conn in (alice, bob):
        with raises("42501"):
            generate(conn, "q")
    assert len(fake.requests) == 1
    seen = alice.execute("select count(*) from dbms_cloud_ai.user_host_aces").fetchone()[0]
    assert seen == 0
    assert carol.execute("select principal_name from dbms_cloud_ai.user_host_aces").fetchall() == [("analysts",)]


def test_port_range_and_wildcards(db, alice, fake):
    make_profile(alice, fake)
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC', %s, %s)",
                     (fake.port + 1, fake.port + 5))
    with raises("42501"):
        generate(alice, "q")
    db.admin.execute("select dbms_cloud_ai.append_host_ace('*.example.com', 'PUBLIC')")
    db.admin.execute("select dbms_cloud_ai.append_host_ace('*', 'bob')")
    hosts = {r[0] for r in db.admin.execute("select host from dbms_cloud_ai.dba_host_aces")}
    assert hosts == {"127.0.0.1", "*.example.com", "*"}
    with raises("22023"):
        db.admin.execute("select dbms_cloud_ai.append_host_ace('http://x.com/path', 'PUBLIC')")
    with raises("22023"):
        db.admin.execute("select dbms_cloud_ai.append_host_ace('x.com', 'PUBLIC', 10, 5)")
    with raises("42704"):
        db.admin.execute("select dbms_cloud_ai.append_host_ace('x.com', 'no_such_role')")


def test_append_is_idempotent_and_remove_revokes(db, alice, fake):
    make_profile(alice, fake)
    for _ in range(2):
        db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    assert db.admin.execute("select count(*) from dbms_cloud_ai.dba_host_aces").fetchone()[0] == 1
    generate(alice, "q")
    db.admin.execute("select dbms_cloud_ai.remove_host_ace('127.0.0.1', 'PUBLIC')")
    with raises("42501"):
        generate(alice, "q")
    assert len(fake.requests) == 1


def test_privileges_are_oracles_and_only_http_or_connect_let_requests_through(db, alice, fake):
    make_profile(alice, fake)
    for privilege in ("smtp", "resolve"):
        db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice', privilege => %s)",
                         (privilege,))
    with raises("42501"):
        generate(alice, "q")
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice', privilege => ' CONNECT ')")
    fake.script(Answer("through"))
    assert generate(alice, "q") == "through"
    rows = db.admin.execute("select privilege from dbms_cloud_ai.dba_host_aces order by 1").fetchall()
    assert rows == [("connect",), ("resolve",), ("smtp",)]
    db.admin.execute("select dbms_cloud_ai.remove_host_ace('127.0.0.1', 'alice', privilege => 'connect')")
    with raises("42501"):
        generate(alice, "q")
    with raises("22023"):
        db.admin.execute("select dbms_cloud_ai.append_host_ace('x.com', 'alice', privilege => 'ftp')")
    with raises("22004"):
        db.admin.execute("select dbms_cloud_ai.append_host_ace('x.com', 'alice', privilege => null)")


def test_well_known_hosts_need_https(alice, fake):
    alice.execute("select dbms_cloud.create_credential('c', 'u', 'k')")
    alice.execute("""select dbms_cloud_ai.create_profile('p', '{"provider": "openai", "credential_name": "c",
                     "provider_endpoint": "http://api.openai.com"}')""")
    with raises("42501"):
        generate(alice, "q")


@pytest.mark.parametrize("endpoint", ["http://llm.example.net:8000",
                                      "http://10.1.2.3:8000",
                                      "http://127.0.0.1.nip.io:8000",
                                      "HTTP://LLM.EXAMPLE.NET:8000/v1"])
def test_a_key_goes_over_plain_http_only_to_a_loopback_address(db, alice, fake, endpoint):
    """Issue 30, class 4: a credential never crosses a network in clear text.  The
    host has an ACE, so only the transport rule stands between the key and the
    wire: 22023 before the key is decrypted.  Without a credential the same
    endpoint is tried (a DNS failure, not 22023); the fake on 127.0.0.1 is the
    loopback control every other test is."""
    db.admin.execute("select dbms_cloud_ai.append_host_ace('llm.example.net', 'alice')")
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1.nip.io', 'alice')")
    db.admin.execute("select dbms_cloud_ai.append_host_ace('10.1.2.3', 'alice')")
    make_profile(alice, fake, "KEYED", provider_endpoint=endpoint)
    with raises("22023") as e:
        generate(alice, "q", "KEYED")
    assert "https" in hint_of(e)
    if "example.net" in endpoint:      # a name that does not resolve: fails fast
        make_profile(alice, fake, "KEYLESS", credential=None, provider_endpoint=endpoint)
        with pytest.raises(Exception) as keyless:
            generate(alice, "q", "KEYLESS")
        assert keyless.value.sqlstate != "22023"
    assert fake.requests == []


def test_provider_endpoint_must_not_carry_secrets(alice):
    alice.execute("select dbms_cloud.create_credential('c', 'u', 'k')")
    with raises("22023"):
        alice.execute("""select dbms_cloud_ai.create_profile('p', '{"provider": "openai", "credential_name": "c",
                         "provider_endpoint": "https://user:pw@api.example.com"}')""")
    with raises("22023"):
        alice.execute("""select dbms_cloud_ai.create_profile('p', '{"provider": "openai", "credential_name": "c",
                         "provider_endpoint": "https://api.example.com/v1?key=secret"}')""")


def test_server_proxy_environment_is_ignored(db, alice, llm):
    db.admin.execute("""create function pg_temp.proxy() returns text language plpython3u as
                        $$ import os; return os.environ.get("HTTPS_PROXY") $$""")
    proxy = db.admin.execute("select pg_temp.proxy()").fetchone()[0]
    if not proxy:
        pytest.skip("the server was not started by `make test` with canary proxy variables")
    make_profile(alice, llm)
    llm.script(Answer("direct"))
    assert generate(alice, "q") == "direct"
    assert len(llm.requests) == 1
