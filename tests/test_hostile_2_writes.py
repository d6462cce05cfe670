"""Hostile users, class 2 (issue 14), the parts that hold today.

- Accounting is written only by dbms_cloud_ai._store_calls (SECURITY DEFINER,
  one-time token from the package's memory): no role can insert, update or
  forge a record, nor call the writer itself; counts below zero are refused by
  a constraint; an administrator can delete a wrong record.
- Every public function runs with lock_timeout 5s (the wrapper's SET clause),
  so a call that meets a lock held by someone else fails with 55P03 and a hint,
  and succeeds once the lock is gone.  (Users still hold write privileges on
  the other tables, which allow LOCK TABLE; see docs/security.md, class 2.)
"""

from __future__ import annotations

import json
import time

import pytest
from helpers import generate, make_profile, raises

FORGED = ("insert into dbms_cloud_ai._model_call (call_id, owner, created, purpose, provider, "
          "prompt_version, input_tokens, output_tokens, latency_ms, status) values "
          "(gen_random_uuid(), {owner}, {created}, 'answer', 'openai', 'v', {tokens}, 0, 1, 'ok')")


@pytest.mark.parametrize("owner, created, tokens", [
    ("current_user", "now()", -1_000_000),               # lifts one's own budget
    ("current_user", "now() + interval '1 year'", 10**9),   # exhausts PUBLIC for everyone
    ("'bob'", "now()", 5),                               # labelled as someone else's
])
def test_no_role_can_write_accounting_rows(db, owner, created, tokens):
    alice = db.connect("alice")
    with raises("42501"):
        alice.execute(FORGED.format(owner=owner, created=created, tokens=tokens))
    with raises("42501"):
        alice.execute("insert into dbms_cloud_ai._message_source (call_id, owner, source_kind, source_id) "
                      "values (gen_random_uuid(), current_user, 'memory', 'x')")
    for stmt in ("update dbms_cloud_ai._model_call set input_tokens = 0",
                 "delete from dbms_cloud_ai._model_call"):
        with raises("42501"):
            alice.execute(stmt)
    alice.execute("begin")
    for mode in ("row exclusive", "share", "access exclusive"):
        alice.execute("savepoint s")
        with raises("42501"):
            alice.execute(f"lock table dbms_cloud_ai._model_call in {mode} mode")
        alice.execute("rollback to savepoint s")
    alice.execute("rollback")


def test_the_writer_refuses_a_caller_without_the_packages_token(db, llm):
    alice = db.connect("alice")
    make_profile(alice, llm)
    generate(alice, "warm the package up")       # the package is loaded in this backend
    args = ["00000000-0000-0000-0000-0000000000aa", "alice", time.time(), None, None, "answer",
            "openai", "m", "v", -10**6, 0, False, 1, 1, "ok", None, None, None, None, None, []]
    for token in (None, "", "0" * 32):
        with raises("42501"):
            alice.execute("select dbms_cloud_ai._store_calls(%s, 'one', %s)", (token, json.dumps(args)))
    assert db.admin.execute("select count(*) from dbms_cloud_ai._model_call where call_id = "
                            "'00000000-0000-0000-0000-0000000000aa'").fetchone()[0] == 0


def test_counts_below_zero_are_refused_and_an_administrator_corrects_accounting(db, llm):
    alice = db.connect("alice")
    make_profile(alice, llm)
    generate(alice, "q")
    with raises("23514"):                        # even the superuser cannot store them
        db.admin.execute(FORGED.format(owner="'alice'", created="now()", tokens=-5))
    admin = db.connect("ai_admin")
    (cid,) = admin.execute("select call_id from dbms_cloud_ai._model_call").fetchone()
    assert admin.execute("update dbms_cloud_ai._model_call set input_tokens = 1, output_tokens = 2, "
                         "tokens_estimated = true where call_id = %s", (cid,)).rowcount == 1
    with raises("42501"):                        # only the counts
        admin.execute("update dbms_cloud_ai._model_call set owner = 'bob'")
    generate(alice, "again")                     # the correction stays
    assert alice.execute("select input_tokens, output_tokens, tokens_estimated from "
                         "dbms_cloud_ai.user_cloud_ai_calls where call_id = %s", (str(cid).upper(),)
                         ).fetchone() == (1, 2, True)

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
