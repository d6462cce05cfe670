"""Oracle's ENABLE_DATA_ACCESS / DISABLE_DATA_ACCESS (python/src/dbms_cloud_ai/data_access.py).

An administrator's database-wide switch, on by default.  While it is off no row
value of a user table reaches the model: narrate fails with LL006 before any
request, and every other action still works without sending one.  The proof is
the fake server's record: a table of distinctive values, and no request body
that contains any of them.
"""

from __future__ import annotations

import json

import psycopg
import pytest
from fake_llm import Answer
from helpers import case, generate, hint_of, make_profile, raises
from memory_helpers import conversation, conversation_of, enable, is_extraction, memory_profile, promote, say

SECRETS = ("ZQX-ALPHA-7781", "ZQX-BRAVO-9902", "424242")
VAULT_SQL = "SELECT v.code, v.amount FROM alice.vault v ORDER BY v.id"
VAULT_JSON = ('[\n  {\n    "code" : "ZQX-ALPHA-7781",\n    "amount" : 424242\n  },\n'
              '  {\n    "code" : "ZQX-BRAVO-9902",\n    "amount" : 7\n  }\n]')
WITHHELD = "(answer from query results withheld: data access is disabled)"
TITLE = Answer('{"title": "Vault", "description": "Questions about the vault."}')


@pytest.fixture
def admin(db):
    return db.connect("ai_admin")


@pytest.fixture
def vault(alice, llm):
    """alice with a table of distinctive values, a profile on the fake model and a
    statement_timeout (runsql and narrate run generated SQL only under one)."""
    alice.execute("create table alice.vault (id int primary key, code text, amount int)")
    alice.execute("insert into alice.vault values (1, 'ZQX-ALPHA-7781', 424242), "
                  "(2, 'ZQX-BRAVO-9902', 7)")
    alice.execute("set statement_timeout = '20s'")
    make_profile(alice, llm)
    return alice


def leaked(llm) -> list[str]:
    """The row values found in any request the fake server received."""
    bodies = [r.body.decode() for r in llm.requests]
    return [s for s in SECRETS if any(s in b for b in bodies)]


def model_calls(admin) -> int:
    return admin.execute("select count(*) from dbms_cloud_ai._model_call").fetchone()[0]


def enabled(conn) -> bool:
    return conn.execute("select dbms_cloud_ai.data_access_enabled()").fetchone()[0]


def test_admin_only_and_enabled_by_default(alice, admin):
    assert enabled(alice) is True
    for fn in ("disable_data_access", "enable_data_access"):
        with case(fn), raises("42501") as e:
            alice.execute(f"select dbms_cloud_ai.{fn}()")
        assert "dbms_cloud_ai_admin" in hint_of(e)
    assert enabled(alice) is True
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    assert enabled(alice) is False and enabled(admin) is False
    admin.execute("select dbms_cloud_ai.disable_data_access()")     # again: still off
    assert enabled(alice) is False
    admin.execute("select dbms_cloud_ai.enable_data_access()")
    assert enabled(alice) is True
    row = admin.execute("select enabled, modified_by from dbms_cloud_ai._data_access").fetchone()
    assert row == (True, "ai_admin")


def test_a_crafted_role_cannot_flip_it_through_the_tables(db, admin):
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    db.admin.execute("drop role if exists dca_data_mallory")
    db.admin.execute("create role dca_data_mallory login in role dbms_cloud_ai_user")
    try:
        mallory = db.connect("dca_data_mallory")
        for sql in ("update dbms_cloud_ai._data_access set enabled = true",
                    "delete from dbms_cloud_ai._data_access",
                    "insert into dbms_cloud_ai._data_access (only_row, enabled) values (true, true) "
                    "on conflict (only_row) do update set enabled = true",
                    "truncate dbms_cloud_ai._data_access",
                    "alter table dbms_cloud_ai._data_access disable row level security",
                    "set role dbms_cloud_ai_owner",
                    "set role dbms_cloud_ai_admin"):
            with case(sql), raises("42501"):
                mallory.execute(sql)
        assert enabled(mallory) is False
        mallory.close()
    finally:
        db.admin.execute("drop role dca_data_mallory")


def test_disabled_narrate_fails_before_any_request(vault, admin, llm, db):
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    calls = model_calls(admin)
    cid = vault.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    llm.script(Answer(VAULT_SQL), Answer("The codes are ZQX-ALPHA-7781 and ZQX-BRAVO-9902."))
    attempts = {
        "generate": lambda: generate(vault, "list the codes", action="narrate"),
        "named conversation": lambda: generate(vault, "list the codes", action="narrate",
                                               params=json.dumps({"conversation_id": cid})),
        "session conversation": lambda: generate(vault, "list the codes", action="narrate",
                                                 attributes='{"conversation": true}'),
        "select_ai": lambda: vault.execute(
            "select dbms_cloud_ai.set_profile('P'), "
            "dbms_cloud_ai.select_ai('narrate list the codes')"),
        "generate_detached": lambda: vault.execute(
            "call dbms_cloud_ai.generate_detached('list the codes', 'P', 'narrate')"),
    }
    for what, attempt in attempts.items():
        with case(what), raises("LL006") as e:
            attempt()
        assert "enable_data_access" in hint_of(e) and "dbms_cloud_ai_admin" in hint_of(e)
        assert "narrate" in e["error"].diag.message_primary
    assert llm.requests == []
    assert model_calls(admin) == calls
    stored = admin.execute("select count(*) from dbms_cloud_ai._conversation_prompt").fetchone()[0]
    assert stored == 0
    assert admin.execute("select count(*) from dbms_cloud_ai._sql_statement").fetchone()[0] == 0


def test_disabled_other_actions_work_and_send_no_row(vault, admin, llm):
    cid = vault.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    conv = json.dumps({"conversation_id": cid})
    # While enabled, a narrate turn stores an answer that restates rows.
    llm.script(Answer(VAULT_SQL), Answer("The codes are ZQX-ALPHA-7781 and ZQX-BRAVO-9902."),
               TITLE)
    generate(vault, "list the codes", action="narrate", params=conv)
    assert leaked(llm) == list(SECRETS)        # the proof sees what narrate sends
    llm.reset()
    admin.execute("select dbms_cloud_ai.disable_data_access()")

    # runsql returns the rows to the caller; the model never sees them.
    llm.script(Answer(VAULT_SQL))
    assert generate(vault, "list the codes", action="runsql", params=conv) == VAULT_JSON
    llm.script(Answer(VAULT_SQL))
    assert generate(vault, "list the codes", action="showsql", params=conv).startswith("SELECT")
    llm.script(Answer(VAULT_SQL), Answer("It lists the codes."))
    assert "It lists the codes." in generate(vault, "list the codes", action="explainsql",
                                             params=conv)
    llm.script(Answer("Hello."))
    assert generate(vault, "what did you tell me?", action="chat", params=conv) == "Hello."
    n = len(llm.requests)
    prompt = generate(vault, "list the codes", action="showprompt", params=conv)
    assert len(llm.requests) == n
    llm.script(Answer("Short."))
    assert generate(vault, "Some text to summarize here.", action="summarize") == "Short."
    assert leaked(llm) == [] and not any(s in prompt for s in SECRETS)
    # The narrate answer in the history is withheld, its question kept.
    history = llm.requests[-2].json["messages"]        # chat's request
    texts = [m["content"] for m in history]
    assert "list the codes" in texts
    assert any("withheld" in t and "data access is disabled" in t for t in texts)
    # runsql and showsql turns are kept as SQL: they stay in the history as they are.
    assert any("alice.vault" in m["content"] for m in history if m["role"] == "assistant")


def test_disabled_runsql_error_is_not_sent_for_repair(vault, admin, llm):
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    # The query plans, then fails on a row: PostgreSQL's message quotes the value.
    llm.script(Answer("SELECT v.code::int AS n FROM alice.vault v"), Answer(VAULT_SQL))
    with raises("22P02") as e:
        generate(vault, "codes as numbers", action="runsql")
    assert "ZQX-ALPHA-7781" in str(e["error"])     # the caller sees it, the model does not
    assert len(llm.requests) == 1 and leaked(llm) == []
    # A mistake found by planning (no row involved) is still repaired.
    llm.reset()
    llm.script(Answer("SELECT v.kode FROM alice.vault v"), Answer(VAULT_SQL))
    assert generate(vault, "list the codes", action="runsql") == VAULT_JSON
    assert len(llm.requests) == 2 and leaked(llm) == []
    assert "kode" in llm.requests[1].body.decode()


def test_enable_again_and_every_session_sees_the_switch_at_once(vault, admin, llm):
    def narrate():
        llm.script(Answer(VAULT_SQL), Answer("Two codes."))
        return generate(vault, "list the codes", action="narrate")

    assert narrate() == "Two codes."              # this session has read settings and plans
    assert leaked(llm) == list(SECRETS)
    llm.reset()
    admin.execute("select dbms_cloud_ai.disable_data_access()")   # another session
    with raises("LL006"):
        narrate()
    assert llm.requests == []
    llm.reset()
    admin.execute("select dbms_cloud_ai.enable_data_access()")
    assert narrate() == "Two codes."
    assert leaked(llm) == list(SECRETS)
    # In one transaction too: the switch is read by each statement.
    llm.reset()
    with vault.transaction():
        assert narrate() == "Two codes."
        admin.execute("select dbms_cloud_ai.disable_data_access()")
        with raises("LL006"):
            with vault.transaction():          # a savepoint: the outer one goes on
                narrate()
    assert len(llm.requests) == 2


def test_the_switch_survives_a_new_connection(db, admin):
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    fresh = db.connect("bob")
    assert enabled(fresh) is False
    with pytest.raises(psycopg.Error):
        fresh.execute("select dbms_cloud_ai.enable_data_access()")


def test_disabled_memory_extraction_gets_no_narrated_rows(db, alice, admin, llm):
    alice.execute("create table alice.vault (id int primary key, code text, amount int)")
    alice.execute("insert into alice.vault values (1, 'ZQX-ALPHA-7781', 424242), "
                  "(2, 'ZQX-BRAVO-9902', 7)")
    alice.execute("set statement_timeout = '20s'")
    enable(db)
    memory_profile(alice, llm)
    cid = conversation(alice)
    llm.script(Answer(VAULT_SQL), Answer("The codes are ZQX-ALPHA-7781 and ZQX-BRAVO-9902."))
    say(alice, "list the codes", cid, action="narrate")
    llm.script(Answer("noted"))
    say(alice, "I work on the vault team", cid)
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    llm.reset()
    llm.responder = lambda wire, body: Answer('{"facts": []}')
    assert promote(db) == 1
    extraction = [r for r in llm.requests if is_extraction(r.json)]
    assert len(extraction) == 1 and leaked(llm) == []
    said = [m["text"] for m in conversation_of(extraction[0].json)]
    assert said[:2] == ["list the codes", WITHHELD]
    assert "I work on the vault team" in said
