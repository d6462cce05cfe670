"""The select_ai client's credentials, privileges and network access, and the user
statements of its Oracle-dialect cursor, against a real server (what Oracle's suite does not
check: what each call leaves in PostgreSQL and the extension)."""

from __future__ import annotations

import uuid

import oracledb
import pytest
import select_ai


def dsn(db) -> str:
    return f"host={db.info.host} port={db.info.port} dbname={db.info.dbname}"


def ora(excinfo) -> int:
    assert isinstance(excinfo.value, oracledb.DatabaseError)
    return excinfo.value.args[0].code


@pytest.fixture
def as_alice(db):
    select_ai.connect(user="ALICE", password="unused", dsn=dsn(db))  # the cluster trusts local logins
    yield db
    select_ai.disconnect()


@pytest.fixture
def as_admin(db):
    """select_ai as the cluster's superuser, Oracle's ADMIN."""
    select_ai.connect(user="postgres", password="unused", dsn=dsn(db))
    yield db
    select_ai.disconnect()


@pytest.fixture
def user(db):
    """A login role of a unique name (roles are cluster-wide), dropped afterwards."""
    name = f"sai_{uuid.uuid4().hex[:10]}"
    db.admin.execute(f"create role {name} login")
    yield name
    db.admin.execute(f"drop owned by {name} cascade")
    db.admin.execute(f"drop role {name}")
    db.admin.execute("select dbms_cloud_ai.drop_role_data(%s)", (name,))


def credentials(conn) -> dict:
    return dict(conn.execute("select credential_name, username from dbms_cloud.user_credentials"))


def test_both_kinds_of_credential_and_replace(as_alice, alice):
    select_ai.create_credential({"credential_name": "api_cred", "username": "u", "password": "k",
                                 "comments": "not kept"})
    select_ai.create_credential({"credential_name": "OCI_CRED", "user_ocid": "ocid1.user.oc1..a",
                                 "tenancy_ocid": "ocid1.tenancy.oc1..b", "private_key": "pem",
                                 "fingerprint": "12:34"})
    assert credentials(alice) == {"API_CRED": "u", "OCI_CRED": "ocid1.user.oc1..a"}
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.create_credential({"credential_name": "API_CRED", "username": "v", "password": "k"})
    assert ora(e) == 20022
    select_ai.create_credential({"credential_name": "API_CRED", "username": "v", "password": "k"},
                                replace=True)
    assert credentials(alice)["API_CRED"] == "v"


def test_oracles_name_and_argument_checks(as_alice, alice):
    cases = [({"credential_name": None, "username": "u", "password": "k"}, 20010, "Missing"),
             ({"credential_name": "A!B", "username": "u", "password": "k"}, 20010, "Invalid"),
             ({"credential_name": "C" * 129, "username": "u", "password": "k"}, 20008, "(129)"),
             ({}, 6550, "PLS-00306"),
             ({"credential_name": "C", "username": "u", "user_ocid": "x"}, 6550, "PLS-00306")]
    for credential, code, text in cases:
        with pytest.raises(oracledb.DatabaseError) as e:
            select_ai.create_credential(credential)
        assert ora(e) == code and text in str(e.value)
    with pytest.raises(ValueError):
        select_ai.create_credential({"credential_name": "C", "token": "t"})
    assert credentials(alice) == {}


def test_delete_force_and_case(as_alice, alice):
    select_ai.create_credential({"credential_name": "MY_CRED", "username": "u", "password": "k"})
    select_ai.delete_credential("my_cred")
    assert credentials(alice) == {}
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.delete_credential("my_cred")
    assert ora(e) == 20004
    select_ai.delete_credential("my_cred", force=True)


async def _async_round_trip():
    await select_ai.async_create_credential({"credential_name": "A_CRED", "username": "u",
                                             "password": "k"})
    await select_ai.async_create_credential({"credential_name": "A_CRED", "username": "w",
                                             "password": "k"}, replace=True)
    await select_ai.async_delete_credential("A_CRED")
    await select_ai.async_delete_credential("A_CRED", force=True)


def test_async_credentials(db, alice):
    import asyncio

    async def main():
        await select_ai.async_connect(user="alice", password="unused", dsn=dsn(db))
        try:
            await _async_round_trip()
        finally:
            await select_ai.async_disconnect()
    asyncio.run(main())
    assert credentials(alice) == {}


def test_credential_access_checks_what_oracle_checks(as_alice, user):
    select_ai.create_credential({"credential_name": "SHARED", "username": "u", "password": "k"})
    select_ai.grant_credential_access("shared", user.upper())
    select_ai.revoke_credential_access("SHARED", user)
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.grant_credential_access("NO_SUCH_CRED", user)
    assert ora(e) == 942
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.grant_credential_access("SHARED", "NO_SUCH_USER_X")
    assert ora(e) == 1917
    with pytest.raises(ValueError):
        select_ai.grant_credential_access("SHARED", "  ")


def test_privileges_are_membership_in_the_user_role(as_admin, user):
    def member():
        return as_admin.admin.execute("select pg_has_role(%s, 'dbms_cloud_ai_user', 'member')",
                                      (user,)).fetchone()[0]
    assert not member()
    select_ai.grant_privileges(user.upper())
    assert member()
    select_ai.revoke_privileges([user.upper()])
    assert not member()
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.grant_privileges(["NO_SUCH_USER_X"])
    assert ora(e) == 1917 and "NO_SUCH_USER_X" in str(e.value)
    with pytest.raises(TypeError):
        select_ai.grant_privileges(7)


def aces(db, user):
    return sorted(db.admin.execute("select host, privilege, lower_port from dbms_cloud_ai.dba_host_aces "
                                   "where principal_name = %s", (user,)).fetchall())


def test_http_access_is_a_host_ace_of_the_users_role(as_admin, user):
    select_ai.grant_http_access([f"  {user.upper()}  "], "*.openai.azure.com")
    assert aces(as_admin, user) == [("*.openai.azure.com", "http", None)]
    select_ai.revoke_http_access(user.upper(), "*.openai.azure.com")
    assert aces(as_admin, user) == []
    with pytest.raises(oracledb.DatabaseError) as e:   # nothing left to revoke
        select_ai.revoke_http_access(user.upper(), "*.openai.azure.com")
    assert ora(e) == 1927
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.grant_http_access([user, "NO_SUCH_USER_X"], "*.openai.azure.com")
    assert ora(e) == 46238 and "NO_SUCH_USER_X" in str(e.value)
    assert aces(as_admin, user) == []                  # one call, one transaction
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.grant_http_access(user, "https://custom.openai.azure.com")
    assert ora(e) == 24244
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.grant_http_access(user, None)
    assert ora(e) == 29261
    with pytest.raises(TypeError):
        select_ai.revoke_http_access(None, "*.openai.azure.com")


def test_network_access_keeps_oracles_privileges(as_admin, user):
    select_ai.grant_network_access(user.upper(), "smtp.example.com", ["connect", "SMTP"], 587, 587)
    assert aces(as_admin, user) == [("smtp.example.com", "connect", 587),
                                    ("smtp.example.com", "smtp", 587)]
    with select_ai.cursor() as cr:
        cr.execute("SELECT privilege FROM DBA_HOST_ACES WHERE principal = :p ORDER BY 1",
                   p=user.upper())
        assert cr.fetchall() == [("CONNECT",), ("SMTP",)]
    select_ai.revoke_network_access(user, "smtp.example.com", "smtp", 587, 587)
    assert aces(as_admin, user) == [("smtp.example.com", "connect", 587)]
    with pytest.raises(ValueError):
        select_ai.grant_network_access(user, "x.example.com", [])


def test_cursor_creates_grants_and_drops_users(as_admin):
    name = f"SAI_U{uuid.uuid4().hex[:8].upper()}"
    role = name.lower()
    admin = as_admin.admin
    with select_ai.cursor() as cr:
        cr.execute(f'CREATE USER {name} IDENTIFIED BY "pw"')
        cr.execute(f"GRANT CREATE SESSION, CREATE TABLE, UNLIMITED TABLESPACE TO {name}")
        cr.execute(f"grant execute on dbms_cloud to {name}")
        cr.execute("SELECT username FROM dba_users WHERE username = :u", u=name)
        assert cr.fetchall() == [(name,)]
    assert admin.execute("select pg_has_role(%s, 'dbms_cloud_ai_user', 'member'), "
                         "exists (select from pg_namespace where nspname = %s)",
                         (role, role)).fetchone() == (True, True)
    select_ai.grant_http_access(name, "api.example.com")
    with select_ai.cursor() as cr:
        cr.execute("REVOKE dbms_cloud_ai_user FROM :user", user=name)
        cr.execute(f"DROP USER {name} CASCADE")
    assert admin.execute("select count(*) from pg_roles where rolname = %s", (role,)).fetchone()[0] == 0
    # its extension rows went with it: a new user of the same name starts clean
    assert admin.execute("select count(*) from dbms_cloud_ai.dba_host_aces where principal_name = %s",
                         (role,)).fetchone()[0] == 0
    with select_ai.cursor() as cr:
        cr.execute(f'CREATE USER {name} IDENTIFIED BY "pw"')
        select_ai.grant_http_access(name, "api.example.com")
        cr.execute(f"DROP USER {name} CASCADE")


def test_session_context_and_dbms_output(as_alice):
    with select_ai.cursor() as cr:
        cr.execute("select sys_context('USERENV', 'CURRENT_USER'), "
                   "sys_context('userenv', 'service_name') from dual")
        assert cr.fetchone() == ("ALICE", as_alice.info.dbname)
        cr.callproc("dbms_output.put_line", ["dropped: not enabled"])
        cr.callproc("dbms_output.enable")
        cr.callproc("dbms_output.put", ["a"])
        cr.callproc("dbms_output.put_line", ["b"])
        line, status = cr.var(str), cr.var(int)
        cr.callproc("dbms_output.get_line", (line, status))
        assert (line.getvalue(), status.getvalue()) == ("ab", 0)
        cr.callproc("dbms_output.get_line", (line, status))
        assert (line.getvalue(), status.getvalue()) == (None, 1)


def test_own_connection_and_bad_dsn(db):
    with select_ai.db.open_connection("alice", "unused", dsn(db)) as conn:
        with conn.cursor() as cr:
            cr.execute("SELECT 1 FROM DUAL")
            assert cr.fetchone() == (1,)
    assert conn.pg.closed
    with pytest.raises(oracledb.DatabaseError) as e:
        select_ai.connect(user="alice", password="x", dsn="invalid_dsn")
    assert str(e.value).startswith("DPY-4000")


def test_oracles_credential_views(db, alice, bob):
    alice.execute("select dbms_cloud.create_credential('OWN_CRED', 'u', 'k')")
    alice.execute("select dbms_cloud.create_credential('SHARED_CRED', 'u', 'k')")
    alice.execute("select dbms_cloud.disable_credential('OWN_CRED')")
    alice.execute("""select dbms_cloud_ai.create_profile('P1', '{"provider": "openai",
                     "credential_name": "shared_cred"}')""")
    select_ai.connect(user="BOB", password="unused", dsn=dsn(db))
    try:
        with select_ai.cursor() as cr:
            cr.execute("SELECT count(*) FROM ALL_CREDENTIALS WHERE credential_name = :c",
                       c="SHARED_CRED")
            assert cr.fetchone() == (0,)
            alice.execute("select dbms_cloud_ai.grant_profile_access('P1', 'bob')")
            cr.execute("SELECT owner, credential_name FROM ALL_CREDENTIALS")
            assert cr.fetchall() == [("ALICE", "SHARED_CRED")]   # usable through the profile only
            cr.execute("SELECT * FROM user_credentials")
            assert cr.fetchall() == []
    finally:
        select_ai.disconnect()
    select_ai.connect(user="ALICE", password="unused", dsn=dsn(db))
    try:
        with select_ai.cursor() as cr:
            cr.execute("SELECT credential_name, enabled FROM USER_CREDENTIALS ORDER BY 1")
            assert cr.fetchall() == [("OWN_CRED", "FALSE"), ("SHARED_CRED", "TRUE")]
            cr.execute("SELECT owner, count(*) FROM all_credentials GROUP BY owner")
            assert cr.fetchall() == [("ALICE", 2)]
    finally:
        select_ai.disconnect()
