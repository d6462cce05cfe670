"""Our conftest for Oracle's select-ai 1.5.0 test suite (`make test-oracle-sdk`).

scripts/oracle-sdk-tests.sh installs this file as the run's ``tests/conftest.py`` and renames
Oracle's root conftest ``tests/oracle_conftest.py``.  Everything Oracle's conftest defines is
kept (``from oracle_conftest import *``): ``TestEnv`` (tests/provider/conftest.py loads this
file by path and reads ``TestEnv`` from it), the report hook, and the fixtures that go through
the client (``connect``, ``async_connect``, ``cursor``, ``oci_credential``,
``allow_network_acl``, ...).

Replaced, and why: the two fixtures that create database users.  They connect to Oracle
directly with ``oracledb.connect`` (not through select_ai) and speak Oracle's dictionary and
DDL (``dba_users``, ``CREATE USER ... IDENTIFIED BY``, ``GRANT CREATE SESSION``, ``DBMS_CLOUD_AI``
grants, network ACLs), so they cannot run against PostgreSQL:

* ``setup_test_user`` (session, autouse): the suite's user, PYSAI_TEST_USER;
* ``sharing_user`` (session): a second user, for the profile-sharing tests.

Here a user is a PostgreSQL login role with its password, ``dbms_cloud_ai_user`` (the
extension's ``GRANT EXECUTE ON DBMS_CLOUD_AI``) and a schema of its own (an Oracle user is a
schema: the tables the suite creates land there through ``"$user"`` in search_path).  Its name
is lower case, as PostgreSQL folds an unquoted identifier; the name handed to the tests stays
Oracle's upper-case one, which the extension folds.  Network access needs nothing more: HTTPS
to the providers' own hosts needs no ACE, and the script allows the fake model's 127.0.0.1 for
PUBLIC.  The administrator (PYSAI_TEST_ADMIN_USER) is made by the script, before the run
(tests/oracle_sdk/prepare_db.py).

One name is put back: Oracle's report hook (``pytest_runtest_makereport``, kept) reads
``oracledb.exceptions.DatabaseError`` when a test fails, and oracledb deletes the name
``exceptions`` from its package once imported, so the first failing test would stop the run
with an INTERNALERROR (Oracle's own runs never reach that line: their tests pass).
"""

import sys
import uuid

import oracledb
import psycopg
import pytest
from oracle_conftest import *  # noqa: F403 (Oracle's fixtures, hooks and TestEnv, unchanged)
from psycopg import sql

oracledb.exceptions = sys.modules["oracledb.exceptions"]


def _admin(test_env):
    return psycopg.connect(test_env.connect_string, user=test_env.admin_user,
                           password=test_env.admin_password, autocommit=True)


def _create_user(admin, role: str, password: str) -> None:
    """A login role that may use the extension, with its schema; nothing if it exists."""
    if admin.execute("select 1 from pg_roles where rolname = %s", (role,)).fetchone():
        return
    admin.execute(sql.SQL("create role {} login password {}").format(sql.Identifier(role),
                                                                      sql.Literal(password)))
    admin.execute(sql.SQL("grant dbms_cloud_ai_user to {}").format(sql.Identifier(role)))
    admin.execute(sql.SQL("create schema {} authorization {}").format(sql.Identifier(role),
                                                                      sql.Identifier(role)))


def _drop_user(admin, role: str) -> None:
    """What a DBA does (DROP USER ... CASCADE): end its sessions, drop what it owns, drop it."""
    admin.execute("select pg_terminate_backend(pid) from pg_stat_activity where usename = %s", (role,))
    admin.execute(sql.SQL("drop owned by {} cascade").format(sql.Identifier(role)))
    admin.execute(sql.SQL("drop role {}").format(sql.Identifier(role)))


@pytest.fixture(autouse=True, scope="session")
def setup_test_user(test_env):
    with _admin(test_env) as admin:
        _create_user(admin, test_env.test_user.lower(), test_env.test_user_password)


@pytest.fixture(scope="session")
def sharing_user(test_env, setup_test_user):
    role = f"pysai_share_{uuid.uuid4().hex[:12]}"
    password = f"PySai_{uuid.uuid4().hex}1aA"
    with _admin(test_env) as admin:
        _create_user(admin, role, password)
    yield {
        "username": role.upper(),
        "connect_params": {**test_env.connect_params(), "user": role, "password": password},
    }
    with _admin(test_env) as admin:
        _drop_user(admin, role)
