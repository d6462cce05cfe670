"""pg_dump / pg_restore of a database that uses the extension: every user's
credentials (still decryptable on the same server), profiles, conversations,
prompts, feedback, ratings and memories come back, and the extension keeps
working afterwards (new ids do not collide with restored ones)."""

from __future__ import annotations

import json
import subprocess

import psycopg
import pytest
from fake_llm import Answer
from fix_db import DB
from helpers import generate, make_profile
from memory_helpers import conversation, enable, memories, promote, remember_phrases, say

USERS = ("alice", "bob")


def key_of(user: str) -> str:
    return f"sk-{user}-dump-0123456789"


def seed(db, llm) -> None:
    """Each user: a credential, a memory profile, a named conversation with a
    remembered fact, a rated prompt, an NL2SQL statement with FEEDBACK."""
    enable(db)
    llm.responder = remember_phrases()
    for user in USERS:
        conn = db.connect(user)
        conn.execute(f"create table {user}.pets (name text, kind text)")
        make_profile(conn, llm, key=key_of(user), long_term_memory=True,
                     object_list=[{"owner": user, "name": "pets"}])
        cid = conversation(conn, title=f"{user}'s talk")
        say(conn, f"remember: {user} keeps bees", cid)
        pid = conn.execute("select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                           ).fetchone()[0]
        conn.execute("select dbms_cloud_ai.rate_prompt(%s, 1, 'useful')", (pid,))
        llm.responder = None
        llm.script(Answer(f"SELECT p.name FROM {user}.pets p"))
        generate(conn, "list the pets", "P", "showsql")
        conn.execute("select dbms_cloud_ai.feedback('P', sql_text => 'select ai showsql list the pets', "
                     "feedback_type => 'positive', feedback_content => 'right')")
        llm.responder = remember_phrases()
    assert promote(db) == len(USERS)


def dumped_tables(conn) -> list[str]:
    return [r[0] for r in conn.execute("""
        select c.oid::regclass::text from pg_extension e, unnest(e.extconfig) x(oid)
          join pg_class c on c.oid = x.oid
         where e.extname = 'dbms_cloud_ai' and c.relkind = 'r' order by 1""")]


def contents(conn) -> dict[str, list[str]]:
    """Every dumped table's rows as JSON text, sorted (the superuser sees every owner's)."""
    return {t: sorted(r[0] for r in conn.execute(f"select to_jsonb(x)::text from {t} x"))
            for t in dumped_tables(conn)}


def run(*cmd, data: bytes | None = None) -> bytes:
    return subprocess.run(list(cmd), input=data, capture_output=True, check=True).stdout


@pytest.fixture
def restored(db, llm, request):
    """Seed a scratch database, dump it, drop it, create it again under the same
    name (memories belong to an organization, by default the database's name)
    and restore the dump into it.  Yields the rows before, and a connector."""
    name = f"{db.info.dbname}_dump"
    where = ["-h", db.info.host, "-p", str(db.info.port), "-U", "postgres"]
    conns = []

    def connect(role):
        c = psycopg.connect(host=db.info.host, port=db.info.port, user=role, dbname=name, autocommit=True)
        conns.append(c)
        return c
    db.admin.execute(f"drop database if exists {name} with (force)")
    db.admin.execute(f"create database {name}")
    try:
        source = DB(connect("postgres"))
        source.admin.execute("create extension dbms_cloud_ai cascade")
        for user in USERS:
            source.admin.execute(f"create schema {user} authorization {user}")
        source.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
        seed(source, llm)
        before = contents(source.admin)
        dump = run("pg_dump", *where, f"-F{request.param}", name)
        for c in conns:
            c.close()
        source.close()
        db.admin.execute(f"drop database {name} with (force)")
        db.admin.execute(f"create database {name}")
        if request.param == "p":
            run("psql", *where, "-q", "-v", "ON_ERROR_STOP=1", "-d", name, data=dump)
        else:
            run("pg_restore", *where, "--exit-on-error", "-d", name, data=dump)
        yield before, connect
    finally:
        for c in conns:
            c.close()
        db.admin.execute(f"drop database if exists {name} with (force)")


@pytest.mark.parametrize("restored", ["c", "p"], indirect=True, ids=["custom", "plain"])
def test_restore_keeps_every_row_and_keeps_working(db, llm, restored):
    before, connect = restored
    admin = connect("postgres")
    assert contents(admin) == before
    assert all(before[t] for t in ("dbms_cloud._credential", "dbms_cloud_ai._profile",
                                   "dbms_cloud_ai._conversation", "dbms_cloud_ai._conversation_prompt",
                                   "dbms_cloud_ai._feedback", "dbms_cloud_ai._memory",
                                   "dbms_cloud_ai._sql_statement", "dbms_cloud_ai._model_call"))

    llm.reset()
    llm.responder = remember_phrases()
    for user in USERS:
        conn = connect(user)
        assert memories(conn) == [f"{user} keeps bees"]
        assert conn.execute("select rating from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                            ).fetchall() == [(1,)]
        cid = conn.execute("select conversation_id from dbms_cloud_ai.user_cloud_ai_conversations"
                           ).fetchone()[0]
        # the restored credential decrypts on this server: the user's own key is sent
        say(conn, "and one more thing", cid)
        assert llm.requests[-1].headers["authorization"] == f"Bearer {key_of(user)}"
        assert [p for (p,) in conn.execute(
            "select prompt from dbms_cloud_ai.user_cloud_ai_conversation_prompts order by created")] == [
            f"remember: {user} keeps bees", "and one more thing"]
        # new objects get ids after the restored ones
        conn.execute("select dbms_cloud.create_credential('CRED2', 'user', 'sk-two')")
        conn.execute("select dbms_cloud_ai.create_profile('P2', %s)",
                     (json.dumps({"provider": "openai", "credential_name": "CRED2",
                                  "provider_endpoint": llm.url}),))
        conn.execute("select dbms_cloud_ai.create_conversation('{\"title\": \"after restore\"}')")
        assert conn.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversations").fetchone()[0] == 2
    # nothing of one user became visible to the other on the way
    bob = connect("bob")
    assert "alice" not in json.dumps(bob.execute(
        "select to_jsonb(p) from dbms_cloud_ai.user_cloud_ai_conversation_prompts p").fetchall())
