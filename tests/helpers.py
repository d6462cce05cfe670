"""Small helpers shared by the tests."""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager

import psycopg
import pytest
from psycopg import sql

API_KEY = "sk-test-0123456789abcdef"


def make_profile(conn, fake, name="P", provider="openai", credential="CRED",
                 key=API_KEY, **attrs):
    """Create a credential and a profile whose provider is the fake LLM."""
    if credential and key:
        conn.execute("select dbms_cloud.create_credential(%s, 'user', %s)", (credential, key))
    a = {"provider_endpoint": fake.url, **attrs}
    if provider:
        a["provider"] = provider
    if credential:
        a["credential_name"] = credential
    conn.execute("select dbms_cloud_ai.create_profile(%s, %s)", (name, json.dumps(a)))
    return name


def generate(conn, prompt, profile="P", action="chat", **kw):
    args = ", ".join(f"{k} => %({k})s" for k in kw)
    sql = "select dbms_cloud_ai.generate(%(prompt)s, %(profile)s, %(action)s" + (", " + args if args else "") + ")"
    return conn.execute(sql, {"prompt": prompt, "profile": profile, "action": action, **kw}).fetchone()[0]


@contextmanager
def raises(sqlstate: str):
    """Expect a database error with this SQLSTATE; yields the caught error holder."""
    holder = {}
    with pytest.raises(psycopg.Error) as ei:
        yield holder
    err = ei.value
    holder["error"] = err
    assert err.sqlstate == sqlstate, f"expected {sqlstate}, got {err.sqlstate}: {err}"


def hint_of(holder) -> str:
    return holder["error"].diag.message_hint or ""


@contextmanager
def case(what):
    """Name the failing case when one test loops over several."""
    try:
        yield
    except (AssertionError, pytest.fail.Exception) as e:
        raise AssertionError(f"case {what!r}: {e}") from None


@contextmanager
def timed():
    t = {"start": time.monotonic()}
    yield t
    t["elapsed"] = time.monotonic() - t["start"]


def together(fn, conns, timeout: float = 120) -> list[BaseException]:
    """Call ``fn(s, conn)`` for every connection, each in a thread of its own and
    all released at once; the exceptions they raised."""
    errors: list[BaseException] = []
    start = threading.Barrier(len(conns))

    def session(s, conn):
        try:
            start.wait(timeout)
            fn(s, conn)
        except BaseException as e:
            errors.append(e)
    threads = [threading.Thread(target=session, args=(s, c)) for s, c in enumerate(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    return errors


def make_role(admin, name):
    """A login role that may use the extension."""
    admin.execute(sql.SQL("create role {} login").format(sql.Identifier(name)))
    admin.execute(sql.SQL("grant dbms_cloud_ai_user to {}").format(sql.Identifier(name)))


def drop_role(admin, name):
    """What a DBA does: hand over or drop what the role owns in the catalog, then drop it."""
    if admin.execute("select 1 from pg_roles where rolname = %s", (name,)).fetchone():
        admin.execute("select pg_terminate_backend(pid) from pg_stat_activity where usename = %s", (name,))
        admin.execute(sql.SQL("reassign owned by {} to postgres").format(sql.Identifier(name)))
        admin.execute(sql.SQL("drop owned by {}").format(sql.Identifier(name)))
        admin.execute(sql.SQL("drop role {}").format(sql.Identifier(name)))
