"""Our conftest for Oracle's select-ai 1.5.0 test suite (make test-oracle-sdk).

The run directory holds the suite's files unchanged, except that its root ``conftest.py`` is
renamed ``oracle_conftest.py`` and this file takes its place.  Everything it defines (TestEnv,
the report hook, the connection fixtures ``connect``/``async_connect``, ``cursor``,
``oci_credential`` ...) is imported from it unchanged; only the fixtures that create database
users are replaced, because they open connections with ``oracledb.connect`` straight to an
Oracle database and run Oracle DDL as ADMIN, and the suite's connections are pointed at this
server (see "Connections" below):

- ``setup_test_user``: creates the suite's user as a PostgreSQL login role with a schema of
  its own name, allowed to use the extension (``grant dbms_cloud_ai_user``, what the SDK's
  ``grant_privileges`` does here) and to reach api.openai.com (the network ACL the original
  grants);
- ``sharing_user``: the same for the second user of the profile-sharing tests, dropped at
  the end.

- ``suite_schema`` (added): the tables of the suite's create_schema.py, which Oracle's runs
  create beforehand.

Connections: a few test bodies open a session of their own with ``oracledb.connect(**params)``
or ``oracledb.connect_async`` (a second user's, or the administrator's), with the suite's
connection parameters, which name this PostgreSQL server; they get it through the client's
``select_ai.db.open_connection`` instead of an Oracle listener.  And the suite's report hook
reads ``oracledb.exceptions``, a name python-oracledb 3.x and later deletes after import: it is
put back.

The user fixtures connect with psycopg as the suite's administrator (PYSAI_TEST_ADMIN_USER, a superuser
of the throwaway cluster: Oracle's ADMIN is the database's administrator).

Environment (set by scripts/oracle-sdk-tests.sh): PYSAI_TEST_USER, PYSAI_TEST_USER_PASSWORD,
PYSAI_TEST_ADMIN_USER, PYSAI_TEST_ADMIN_PASSWORD, PYSAI_TEST_CONNECT_STRING (a libpq
conninfo), PYSAI_TEST_OCI_USER_OCID, PYSAI_TEST_OCI_TENANCY_OCID, PYSAI_TEST_OCI_PRIVATE_KEY,
PYSAI_TEST_OCI_FINGERPRINT, PYSAI_TEST_OCI_COMPARTMENT_ID, PYTEST_TEST_OBJSTORE_EMBEDDING_LOC.
"""

import importlib
import uuid

import oracledb
import psycopg
import pytest
import select_ai.db
from oracle_conftest import *  # noqa: F403  (the suite's own fixtures and hooks)
from oracle_conftest import TestEnv  # noqa: F401  (tests/provider/conftest.py reads it by path)
from psycopg import sql

# The suite's report hook reads ``oracledb.exceptions.DatabaseError`` when a test fails, but
# python-oracledb (3.x and later) deletes the submodule's name from its namespace after
# import, so that hook would end the whole run with an INTERNALERROR: put the name back.
oracledb.exceptions = importlib.import_module("oracledb.exceptions")
oracledb.connect = select_ai.db.open_connection
oracledb.connect_async = select_ai.db.async_open_connection


def _admin(test_env):
    return psycopg.connect(test_env.connect_string, user=test_env.admin_user.lower(),
                           password=test_env.admin_password, autocommit=True)


def _create_user(admin, username: str, password: str) -> str:
    role = username.lower()
    ident = sql.Identifier(role)
    if admin.execute("select 1 from pg_roles where rolname = %s", (role,)).fetchone() is None:
        admin.execute(sql.SQL("create role {} login password {}").format(ident, sql.Literal(password)))
    admin.execute(sql.SQL("create schema if not exists {} authorization {}").format(ident, ident))
    admin.execute(sql.SQL("grant dbms_cloud_ai_user to {}").format(ident))
    admin.execute("select dbms_cloud_ai.append_host_ace(%s, %s)",
                  ("api.openai.com", role))  # select_ai.OpenAIProvider.provider_endpoint
    return role


def _drop_user(admin, role: str) -> None:
    ident = sql.Identifier(role)
    admin.execute("select pg_terminate_backend(pid) from pg_stat_activity where usename = %s", (role,))
    admin.execute(sql.SQL("drop owned by {} cascade").format(ident))
    admin.execute(sql.SQL("drop role {}").format(ident))
    admin.execute("select dbms_cloud_ai.drop_role_data(%s)", (role,))


@pytest.fixture(autouse=True, scope="session")
def setup_test_user(test_env):
    with _admin(test_env) as admin:
        _create_user(admin, test_env.test_user, test_env.test_user_password)


@pytest.fixture(scope="session")
def sharing_user(test_env, setup_test_user):
    username = f"PYSAI_SHARE_{uuid.uuid4().hex[:12].upper()}"
    password = f"PySai_{uuid.uuid4().hex}1aA"
    with _admin(test_env) as admin:
        role = _create_user(admin, username, password)
    yield {"username": username,
           "connect_params": {**test_env.connect_params(), "user": username, "password": password}}
    with _admin(test_env) as admin:
        _drop_user(admin, role)


@pytest.fixture(autouse=True, scope="session")
def suite_schema(test_env, setup_test_user):
    """The tables of the suite's tests/create_schema.py, in the test user's schema.

    Oracle's suite expects them to exist (its runs start from a schema that script made);
    the generate, feedback and synthetic-data tests name ``people`` and ``gymnast``.  The
    script itself cannot run here (its INSERTs bind ``: 1``, with a space), so its DDL goes
    through the client's Oracle dialect and its rows are inserted as they are.
    """
    import create_schema  # the suite's own file, unchanged
    from select_ai import oracle_sql

    with psycopg.connect(test_env.connect_string, user=test_env.test_user.lower(),
                         password=test_env.test_user_password, autocommit=True) as c:
        for table in ("gymnast", "people", "director", "movie", "actor"):
            c.execute(sql.SQL("drop table if exists {} cascade").format(sql.Identifier(table)))
        for ddl in (create_schema.CREATE_PEOPLE_DDL, create_schema.CREATE_GYMNAST_DDL,
                    create_schema.CREATE_DIRECTOR_DDL, create_schema.CREATE_MOVIE_DDL,
                    create_schema.CREATE_ACTOR_DDL):
            (step,) = oracle_sql.translate(ddl)
            c.execute(step.sql)
        with c.cursor() as cur:
            cur.executemany("insert into people (id, name, age, height, hometown)"
                            " values (%s, %s, %s, %s, %s)", create_schema.PEOPLE_DATA)
            cur.executemany("insert into gymnast (id, floor_ex_points, rings_points,"
                            " parallel_bars_points, horizontal_bar_points, total_points)"
                            " values (%s, %s, %s, %s, %s, %s)", create_schema.GYMNAST_DATA)
