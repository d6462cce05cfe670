"""Fixtures: a real PostgreSQL server with the extension, and the roles that use it.

`make test` starts a throwaway cluster and passes its socket directory and port
in DCA_PGHOST / DCA_PGPORT.  pytest-postgresql builds a template database with
the extension installed once, then gives every test a fresh clone of it.
Loaded as a plugin by tests/conftest.py.
"""

from __future__ import annotations

import os

import psycopg
import pytest
from pytest_postgresql import factories

PGHOST = os.environ.get("DCA_PGHOST")
PGPORT = os.environ.get("DCA_PGPORT")

# Login roles used across the suite.  carol reaches the API through a group.
USERS = ("alice", "bob", "carol", "ai_admin")


def _setup_cluster():
    """Cluster-wide setup, once per run: roles exist before the template is built."""
    with psycopg.connect(host=PGHOST, port=PGPORT, user="postgres", dbname="postgres",
                         autocommit=True) as c:
        c.execute("create extension if not exists plpython3u")
        for role in ("dbms_cloud_ai_user", "dbms_cloud_ai_admin", "analysts"):
            c.execute(f"do $$ begin if not exists (select from pg_roles where rolname = '{role}') "
                      f"then create role {role} nologin; end if; end $$")
        for user in USERS:
            c.execute(f"do $$ begin if not exists (select from pg_roles where rolname = '{user}') "
                      f"then create role {user} login; end if; end $$")
        c.execute("grant dbms_cloud_ai_user to alice, bob, analysts")
        c.execute("grant analysts to carol")
        c.execute("grant dbms_cloud_ai_admin to ai_admin")


def _load_extension(host, port, user, dbname, password=None, **_):
    _setup_cluster()
    with psycopg.connect(host=host, port=port, user=user, dbname=dbname, autocommit=True) as c:
        c.execute("create extension dbms_cloud_ai cascade")
        c.execute("create extension pg_stat_statements")
        for u in USERS:  # "$user" in search_path: each role gets its own schema
            c.execute(f"create schema {u} authorization {u}")


if PGHOST:
    postgresql_noproc = factories.postgresql_noproc(
        host=PGHOST, port=PGPORT, user="postgres", dbname=f"dca_tests_{os.getpid()}",
        load=[_load_extension])
    postgresql = factories.postgresql("postgresql_noproc")


def pytest_collection_modifyitems(config, items):
    if PGHOST:
        return
    skip = pytest.mark.skip(reason="no server: run `make test` (sets DCA_PGHOST/DCA_PGPORT)")
    for item in items:
        if "postgresql" in getattr(item, "fixturenames", ()):
            item.add_marker(skip)


class DB:
    """The test's database: connect as any role, autocommit, fail on any error."""

    def __init__(self, admin: psycopg.Connection):
        self.admin = admin
        self.info = admin.info
        self._conns: list[psycopg.Connection] = []

    def connect(self, role: str = "alice", **kw) -> psycopg.Connection:
        conn = psycopg.connect(host=self.info.host, port=self.info.port, user=role,
                               dbname=self.info.dbname, autocommit=True, **kw)
        self._conns.append(conn)
        return conn

    def close(self):
        for c in self._conns:
            c.close()


@pytest.fixture
def db(postgresql):
    postgresql.autocommit = True
    d = DB(postgresql)
    yield d
    d.close()


@pytest.fixture
def alice(db):
    return db.connect("alice")


@pytest.fixture
def bob(db):
    return db.connect("bob")
