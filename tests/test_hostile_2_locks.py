"""Hostile users, class 2 (issue 14), the part that holds today: a role that
locks one of the extension's shared tables cannot make other roles' calls hang.

Every public function runs with lock_timeout 5s (the wrapper's SET clause), so
a call that meets a lock held by someone else fails with 55P03 and a hint, and
succeeds once the lock is gone.  (Users still hold table privileges that allow
LOCK TABLE at all; removing them is the rest of class 2, see docs/security.md.)
"""

from __future__ import annotations

import time

import pytest
from helpers import generate, make_profile, raises

# Tables a role may lock today (it holds UPDATE or DELETE on them), and a call of
# another role that must read or write each.
TABLES = {
    "dbms_cloud._credential": "chat",
    "dbms_cloud_ai._profile": "chat",
    "dbms_cloud_ai._conversation": "conversation",
    "dbms_cloud_ai._conversation_prompt": "conversation",
}
FAST = {"dbms_cloud_ai._profile", "dbms_cloud_ai._conversation_prompt"}


def call(conn, kind):
    if kind == "chat":
        return generate(conn, "hello")
    cid = conn.execute("select dbms_cloud_ai.create_conversation('{\"title\": \"t\"}')").fetchone()[0]
    return conn.execute("select dbms_cloud_ai.generate('hello', 'P', 'chat', params => %s)",
                        ('{"conversation_id": "%s"}' % cid,)).fetchone()[0]


@pytest.mark.parametrize("table", [t if t in FAST else pytest.param(t, marks=pytest.mark.long)
                                   for t in sorted(TABLES)])
def test_a_locked_shared_table_fails_other_roles_calls_fast(db, llm, table):
    alice, bob = db.connect("alice"), db.connect("bob")
    make_profile(alice, llm)
    bob.execute("begin")
    bob.execute(f"lock table {table} in access exclusive mode")
    started = time.monotonic()
    with raises("55P03") as e:
        call(alice, TABLES[table])
    elapsed = time.monotonic() - started
    assert elapsed < 8, f"waited {elapsed:.1f}s"
    assert "pg_blocking_pids" in (e["error"].diag.message_hint or "")
    bob.execute("rollback")
    assert call(alice, TABLES[table]) == "fake answer"
