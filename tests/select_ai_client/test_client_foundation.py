"""The select_ai client's foundation against a real server: connections, the Oracle-dialect
cursor, the mapping of errors to ORA- numbers, and plans (one transaction per API call)."""

from __future__ import annotations

import oracledb
import pytest
import select_ai
from select_ai._run import Sql, arun, run


def dsn(db) -> str:
    return f"host={db.info.host} port={db.info.port} dbname={db.info.dbname}"


@pytest.fixture
def client(db):
    """select_ai connected as alice (the cluster trusts local connections: any password)."""
    db.admin.execute("create table alice.items (id int, name text)")
    db.admin.execute("alter table alice.items owner to alice")
    select_ai.connect(user="ALICE", password="unused", dsn=dsn(db))
    yield db
    select_ai.disconnect()


def ora(excinfo) -> int:
    assert isinstance(excinfo.value, oracledb.DatabaseError)
    return excinfo.value.args[0].code


def test_binds_dual_and_connect_by(client):
    with select_ai.cursor() as cr:
        cr.execute("SELECT :val, :Name FROM dual", val=42, name="x")
        assert cr.fetchone() == (42, "x")
        cr.execute("SELECT :1 + :2 FROM DUAL", [1, 2])
        assert cr.fetchall() == [(3,)]
        cr.execute("SELECT level FROM dual CONNECT BY level <= 5")
        assert [r[0] for r in cr.fetchall()] == [1, 2, 3, 4, 5]
        cr.execute("SELECT 'a:b', 'c%d' FROM dual")  # a colon or percent in a literal is no bind
        assert cr.fetchone() == ("a:b", "c%d")


def test_character_values_read_like_lobs(client):
    with select_ai.cursor() as cr:
        cr.execute("SELECT 'hello' FROM dual")
        value = cr.fetchone()[0]
        assert value == "hello" and value.read() == "hello"


def test_dml_waits_for_commit_ddl_commits(client):
    other = client.connect("alice")
    with select_ai.cursor() as cr:
        cr.execute("insert into items values (1, 'Alpha')")
        assert other.execute("select count(*) from alice.items").fetchone()[0] == 0
        cr.execute("commit")
        assert other.execute("select count(*) from alice.items").fetchone()[0] == 1
        cr.execute("insert into items values (2, 'Beta')")
        cr.execute("rollback")
        cr.execute("select count(*) from items")
        assert cr.fetchone()[0] == 1
        cr.execute("CREATE TABLE t2 (id NUMBER, note VARCHAR2(20), body CLOB)")
        assert other.execute("select to_regclass('alice.t2') is not null").fetchone()[0]
        cr.execute("DROP TABLE t2 PURGE")
        assert other.execute("select to_regclass('alice.t2') is null").fetchone()[0]


def test_plsql_block_with_handler(client):
    with select_ai.cursor() as cr:
        block = """begin
                      execute immediate 'create table t3 (id int)';
                   exception when others then null;
                   end;"""
        cr.execute(block)
        cr.execute(block)  # the table exists now: the handler swallows the error
        cr.execute("select count(*) from t3")
        assert cr.fetchone()[0] == 0


def test_errors_carry_ora_numbers(client):
    with select_ai.cursor() as cr:
        with pytest.raises(oracledb.DatabaseError) as e:
            cr.execute("SELECT * FROM non_existent_table")
        assert ora(e) == 942 and str(e.value).startswith("ORA-00942")
        with pytest.raises(oracledb.DatabaseError) as e:
            cr.execute("SELECT :missing FROM dual", other=1)
        assert ora(e) == 1008
        with pytest.raises(oracledb.DatabaseError) as e:
            cr.execute("BEGIN dbms_cloud_ai.set_profile(profile_name => :p); END;", p="NO_SUCH")
        assert ora(e) >= 20000


def test_not_connected(db):
    select_ai.disconnect()
    assert not select_ai.is_connected()
    with pytest.raises(select_ai.DatabaseNotConnectedError):
        with select_ai.cursor():
            pass


def test_ora_table_falls_back_from_topic_to_sqlstate():
    from select_ai.errors import ORA_CODES, UNMAPPED, ora_code
    assert ora_code("28P01", "connect") == 1017  # wrong password: ORA-01017
    assert ora_code("42P01", "vector_index.create") == ORA_CODES[("42P01", None)]
    assert ora_code("XX999", None) == UNMAPPED


def test_users_become_roles_with_a_schema(db):
    select_ai.connect(user="postgres", password="unused", dsn=dsn(db))
    try:
        with select_ai.cursor() as cr:
            cr.execute('CREATE USER PYSAI_T1 IDENTIFIED BY "pw"')
            cr.execute("GRANT CREATE SESSION TO PYSAI_T1")
            cr.execute("SELECT 1 FROM pg_roles WHERE rolname = :n", n="pysai_t1")
            assert cr.fetchone() == (1,)
        with db.connect("pysai_t1") as t1:
            t1.execute("create table mine (id int)")
            assert t1.execute("select to_regclass('pysai_t1.mine') is not null").fetchone()[0]
        with select_ai.cursor() as cr:
            cr.execute("DROP USER PYSAI_T1 CASCADE")
            cr.execute("SELECT count(*) FROM pg_roles WHERE rolname = 'pysai_t1'")
            assert cr.fetchone() == (0,)
    finally:
        select_ai.disconnect()


def _plan_two_writes(fail_second: bool, catch: bool):
    yield Sql("insert into items values (%(id)s, 'first')", {"id": 10})
    try:
        yield Sql("insert into no_such_table values (1)" if fail_second
                  else "insert into items values (11, 'second')")
    except oracledb.DatabaseError as e:
        if not catch:
            raise
        assert e.args[0].code == 942
    return (yield Sql("select count(*) from items where id >= 10", fetch="value"))


def test_plan_commits_and_caught_errors_keep_earlier_work(client):
    assert run(_plan_two_writes(fail_second=True, catch=True)) == 1
    other = client.connect("alice")
    assert other.execute("select count(*) from alice.items where id = 10").fetchone()[0] == 1


def test_plan_uncaught_error_rolls_back_everything(client):
    with pytest.raises(oracledb.DatabaseError) as e:
        run(_plan_two_writes(fail_second=True, catch=False))
    assert ora(e) == 942
    other = client.connect("alice")
    assert other.execute("select count(*) from alice.items where id >= 10").fetchone()[0] == 0


@pytest.mark.anyio
async def test_async_cursor_and_plan(client, anyio_backend):
    select_ai.create_pool_async(user="alice", password="unused", dsn=dsn(client))
    try:
        async with select_ai.async_cursor() as cr:
            await cr.execute("SELECT :v FROM dual", v=7)
            assert await cr.fetchone() == (7,)
        assert await arun(_plan_two_writes(fail_second=False, catch=False)) == 2
        assert await select_ai.async_is_connected()
    finally:
        await select_ai.async_disconnect()
    assert not await select_ai.async_is_connected()


@pytest.fixture
def anyio_backend():
    return "asyncio"
