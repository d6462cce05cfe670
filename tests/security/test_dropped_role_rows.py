"""Issue 14, class 3: a role's rows belong to that role, not to its name.

A role ``ghost`` stores a credential, a profile, a conversation with prompts,
memories, feedback, Select AI Agent objects (a team shared with bob) and runs,
and is granted a host ACE, a token budget and a memory
role.  The superuser drops ghost as a DBA would (REASSIGN OWNED / DROP OWNED /
DROP ROLE: the extension's rows do not block it) and creates a new ``ghost``.
The new ghost sees exactly what a brand-new role sees in every user_ view,
cannot use the old credential (the fake LLM records no request at all), the
old profiles, conversations, ACE, budget or memory role, and every API call
that would touch them fails with 42501 and a hint naming drop_role_data.  Then
an administrator removes the dropped role's rows (drop_role_data) and the new
ghost starts from scratch.  Also: drop_role_data refuses live roles and
non-administrators; a ciphertext that survives (copied back) does not decrypt
for the new role; a dump restored where the role has a new OID keeps the rows
apart until an administrator re-binds them (rebind_role), after which the
credential works again.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid

import psycopg
import pytest
from helpers import drop_role, generate, hint_of, make_profile, make_role, raises
from memory_helpers import conversation, enable, promote, remember_phrases, say
from psycopg import sql

pytestmark = pytest.mark.skipif(not os.environ.get("DCA_PGHOST"), reason="no server: run `make test`")

SCHEMAS = ("dbms_cloud", "dbms_cloud_ai", "dbms_cloud_ai_agent")
ORG = "ghostorg"
# Columns that name the role a row belongs to or is granted to.
ROLE_COLUMNS = ("owner", "principal", "principal_name", "role_name")


@pytest.fixture
def roles(db):
    names = ("ghost", "ghost_fresh")
    for n in names:
        drop_role(db.admin, n)
    for n in names:
        make_role(db.admin, n)
    yield
    for n in names:
        drop_role(db.admin, n)


def user_views(conn) -> list[str]:
    return [r[0] for r in conn.execute("""
        select format('%%I.%%I', schemaname, viewname) from pg_views
         where schemaname = any(%s) and (viewname like 'user\\_%%' or viewname like 'session\\_%%')
         order by 1""", (list(SCHEMAS),))]


def view_rows(conn) -> dict[str, list[str]]:
    return {v: sorted(r[0] for r in conn.execute(f"select to_jsonb(x)::text from {v} x"))
            for v in user_views(conn)}


def rows_naming(admin, role) -> dict[str, int]:
    """Rows of every table of both schemas whose role column holds ``role`` (superuser)."""
    out = {}
    for table, col in admin.execute("""
            select format('%%I.%%I', n.nspname, c.relname), a.attname from pg_class c
              join pg_namespace n on n.oid = c.relnamespace
              join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
             where n.nspname = any(%s) and c.relkind = 'r' and a.attname = any(%s)
             order by 1, 2""", (list(SCHEMAS), list(ROLE_COLUMNS))).fetchall():
        k = admin.execute(sql.SQL("select count(*) from {} where {}::text = %s").format(
            sql.SQL(table), sql.Identifier(col)), (role,)).fetchone()[0]
        if k:
            out[f"{table}.{col}"] = k
    return out


def seed_ghost(db, llm, key) -> str:
    """ghost's rows in every kind of table; returns its conversation id."""
    admin = db.admin
    admin.execute("select dbms_cloud_ai.set_memory_role('ghost', %s, 'role')", (ORG,))
    enable(db, ORG)
    admin.execute("select dbms_cloud_ai.append_host_ace('ghost.example', 'ghost')")
    admin.execute("select dbms_cloud_ai.set_token_budget('ghost', 1000000)")
    ghost = db.connect("ghost")
    llm.responder = remember_phrases()
    make_profile(ghost, llm, key=key, long_term_memory=True)
    cid = conversation(ghost, "ghost's talk")
    say(ghost, "remember: ghost keeps bees", cid)
    pid = ghost.execute("select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                        ).fetchone()[0]
    ghost.execute("select dbms_cloud_ai.rate_prompt(%s, 1, 'useful')", (pid,))
    # a vector index over a table ghost reads, with its chunks and a grant
    admin.execute("create table if not exists public.ghost_docs (id int, body text)")
    admin.execute("insert into public.ghost_docs values (1, 'Ghost keeps bees in the garden.')")
    admin.execute("grant select on public.ghost_docs to ghost")
    ghost.execute("select dbms_cloud_ai.create_profile('EMB', %s)", (json.dumps(
        {"provider": "openai", "provider_endpoint": llm.url, "credential_name": "CRED",
         "embedding_model": "m"}),))
    ghost.execute("select dbms_cloud_ai.create_vector_index('DOCS', %s)", (json.dumps(
        {"location": "table:public.ghost_docs(id, body)", "profile_name": "EMB"}),))
    ghost.execute("select dbms_cloud_ai.grant_vector_index_access('DOCS', 'bob')")
    assert promote(db) == 1
    assert ghost.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_memories").fetchone()[0] == 1
    # Select AI Agent: a tool, task, agent and team (shared with bob), a team run and a tool run
    admin.execute("create or replace function public.ghost_echo(a text) returns text language sql "
                  "as 'select a'")
    agent = "dbms_cloud_ai_agent"
    ghost.execute(f"""select {agent}.create_tool('ECHO', '{{"function": "public.ghost_echo"}}')""")
    ghost.execute(f"""select {agent}.create_task('K', '{{"instruction": "x", "tools": ["ECHO"],
                                                      "enable_human_tool": false}}')""")
    ghost.execute(f"""select {agent}.create_agent('A', '{{"profile_name": "P", "role": "r",
                                                       "enable_human_tool": false}}')""")
    ghost.execute(f"""select {agent}.create_team('T', '{{"agents": [{{"name": "A", "task": "K"}}]}}')""")
    ghost.execute(f"select {agent}.grant_team_access('T', 'bob')")
    ghost.execute(f"""select {agent}.run_tool('ECHO', '{{"a": "hi"}}')""")
    ghost.execute(f"select {agent}.run_team('T', 'hello team')")
    ghost.close()
    return cid


def test_a_new_role_of_a_dropped_roles_name_inherits_nothing(db, llm, roles):
    old_key = f"sk-ghost-old-{uuid.uuid4()}"
    cid = seed_ghost(db, llm, old_key)
    before = view_rows(db.connect("ghost"))
    fresh = view_rows(db.connect("ghost_fresh"))
    # the comparison below means something: the old ghost saw its rows in many views
    assert sum(len(before[v]) > len(fresh[v]) for v in before) >= 8, before
    stored = rows_naming(db.admin, "ghost")
    assert len(stored) >= 10, stored
    assert {f"dbms_cloud_ai._agent_{t}.owner" for t in ("object", "team_grant", "team_run", "task_run",
                                                       "tool_run")} <= set(stored), stored
    assert any(h["authorization"] == f"Bearer {old_key}" for h in (r.headers for r in llm.requests))

    drop_role(db.admin, "ghost")
    make_role(db.admin, "ghost")
    llm.reset()
    llm.responder = remember_phrases()
    ghost = db.connect("ghost")

    # every user_ view: exactly what a brand-new role sees
    assert view_rows(ghost) == view_rows(db.connect("ghost_fresh"))
    # the tables themselves, read directly: nothing named ghost
    for t in ("dbms_cloud._credential", "dbms_cloud_ai._profile", "dbms_cloud_ai._conversation",
              "dbms_cloud_ai._conversation_prompt", "dbms_cloud_ai._memory", "dbms_cloud_ai._memory_job",
              "dbms_cloud_ai._model_call", "dbms_cloud_ai._token_budget", "dbms_cloud_ai._memory_role",
              "dbms_cloud_ai._vector_index", "dbms_cloud_ai._vector_chunk",
              "dbms_cloud_ai._vector_index_grant", "dbms_cloud_ai._agent_object",
              "dbms_cloud_ai._agent_team_grant", "dbms_cloud_ai._agent_team_run",
              "dbms_cloud_ai._agent_task_run", "dbms_cloud_ai._agent_tool_run"):
        assert ghost.execute(f"select count(*) from {t}").fetchone()[0] == 0, t
    assert ghost.execute("select count(*) from dbms_cloud_ai._host_ace where principal_name <> 'PUBLIC'"
                         ).fetchone()[0] == 0

    # every call that would use the old rows: 42501, naming the role and the way out
    calls = [
        ("generate with the old profile", lambda: generate(ghost, "hello", "P")),
        ("generate in the old conversation", lambda: say(ghost, "hello", cid)),
        ("the session profile", lambda: ghost.execute("select dbms_cloud_ai.set_profile('P')")),
        ("drop the old credential", lambda: ghost.execute("select dbms_cloud.drop_credential('CRED')")),
        ("drop the old profile", lambda: ghost.execute("select dbms_cloud_ai.drop_profile('P')")),
        ("a new credential", lambda: ghost.execute(
            "select dbms_cloud.create_credential('NEW', 'u', 'sk-new-key')")),
        ("a new profile", lambda: ghost.execute(
            "select dbms_cloud_ai.create_profile('Q', %s)",
            (json.dumps({"provider": "openai", "provider_endpoint": llm.url}),))),
        ("a new conversation", lambda: conversation(ghost, "mine")),
        ("drop the old conversation", lambda: ghost.execute(
            "select dbms_cloud_ai.drop_conversation(%s)", (cid,))),
        ("run the old team", lambda: ghost.execute("select dbms_cloud_ai_agent.run_team('T', 'hi')")),
        ("drop the old tool", lambda: ghost.execute("select dbms_cloud_ai_agent.drop_tool('ECHO')")),
    ]
    for what, call in calls:
        with raises("42501") as e:
            call()
        assert "ghost" in e["error"].diag.message_primary, what
        assert "drop_role_data('ghost')" in hint_of(e), what
    # no request left the database, so neither did the old key
    assert llm.requests == []

    # non-administrators cannot remove it; a live role's rows cannot be removed
    with raises("42501"):
        db.connect("bob").execute("select dbms_cloud_ai.drop_role_data('ghost')")
    adm = db.connect("ai_admin")
    with raises("55000"):
        adm.execute("select dbms_cloud_ai.drop_role_data('ghost_fresh')")
    # the documented way out
    removed = adm.execute("select dbms_cloud_ai.drop_role_data('ghost')").fetchone()[0]
    assert removed == sum(v for k, v in stored.items() if not k.startswith("dbms_cloud_ai._role_binding."))
    assert rows_naming(db.admin, "ghost") == {}
    assert db.admin.execute("select count(*) from dbms_cloud_ai._role_binding where role_name = 'ghost'"
                            ).fetchone()[0] == 0

    # the new ghost works from scratch, with its own key
    new_key = f"sk-ghost-new-{uuid.uuid4()}"
    ghost = db.connect("ghost")
    make_profile(ghost, llm, key=new_key)
    assert generate(ghost, "hello again", "P") == "ok: hello again"
    assert [r.headers["authorization"] for r in llm.requests] == [f"Bearer {new_key}"]
    # ... and it is bound now: a live role's rows stay its own
    with raises("55000"):
        adm.execute("select dbms_cloud_ai.drop_role_data('ghost')")


def test_a_surviving_ciphertext_does_not_decrypt_for_the_new_role(db, llm, roles):
    """Even if the old credential row comes back (a backup, a careless copy), its
    associated data names the old binding: the new ghost cannot use it."""
    old_key = f"sk-ghost-old-{uuid.uuid4()}"
    ghost = db.connect("ghost")
    make_profile(ghost, llm, key=old_key)
    ghost.close()
    saved = db.admin.execute("select secret, key_id from dbms_cloud._credential where owner = 'ghost'").fetchone()
    drop_role(db.admin, "ghost")
    make_role(db.admin, "ghost")
    db.connect("ai_admin").execute("select dbms_cloud_ai.drop_role_data('ghost')")
    ghost = db.connect("ghost")
    make_profile(ghost, llm, key="sk-ghost-new-key")
    db.admin.execute("update dbms_cloud._credential set secret = %s, key_id = %s where owner = 'ghost'", saved)
    llm.reset()
    with raises("55000"):
        generate(ghost, "hello", "P")
    assert llm.requests == []


def test_grants_to_a_dropped_role_do_not_apply_to_its_successor(db, llm, roles):
    """Administrators' rows that name a role (ACE, budget, memory role) are bound
    to the role when granted; a new role of that name is not covered."""
    adm = db.connect("ai_admin")
    adm.execute("select dbms_cloud_ai.append_host_ace('ghost.example', 'ghost')")
    adm.execute("select dbms_cloud_ai.set_token_budget('ghost', 5)")
    db.admin.execute("select dbms_cloud_ai.set_memory_role('ghost', %s, 'role')", (ORG,))
    seen = db.connect("ghost")
    assert seen.execute("select count(*) from dbms_cloud_ai.user_host_aces where host = 'ghost.example'"
                        ).fetchone()[0] == 1
    seen.close()
    drop_role(db.admin, "ghost")
    make_role(db.admin, "ghost")
    ghost = db.connect("ghost")
    assert ghost.execute("select count(*) from dbms_cloud_ai.user_host_aces where host = 'ghost.example'"
                         ).fetchone()[0] == 0
    assert ghost.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_token_budgets "
                         "where principal = 'ghost'").fetchone()[0] == 0
    assert ghost.execute("select count(*) from dbms_cloud_ai._memory_role").fetchone()[0] == 0
    # re-granting to the new role needs the old grants removed first
    with raises("55000") as e:
        adm.execute("select dbms_cloud_ai.append_host_ace('other.example', 'ghost')")
    assert "drop_role_data('ghost')" in hint_of(e)
    adm.execute("select dbms_cloud_ai.drop_role_data('ghost')")
    adm.execute("select dbms_cloud_ai.append_host_ace('other.example', 'ghost')")
    assert ghost.execute("select host from dbms_cloud_ai.user_host_aces where host like '%%.example'"
                         ).fetchall() == [("other.example",)]


def run(*cmd, data: bytes | None = None) -> bytes:
    return subprocess.run(list(cmd), input=data, capture_output=True, check=True).stdout


def test_a_restore_where_the_role_has_a_new_oid_needs_the_administrator(db, llm, roles):
    """A dump restored into another cluster finds its roles under new OIDs: the
    rows stay apart (the bindings are dumped with them) until an administrator
    says the role is the same (rebind_role); then the restored credential works."""
    key = f"sk-ghost-restored-{uuid.uuid4()}"
    llm.responder = remember_phrases()
    ghost = db.connect("ghost")
    make_profile(ghost, llm, key=key)
    assert generate(ghost, "before", "P") == "ok: before"
    ghost.close()
    where = ["-h", db.info.host, "-p", str(db.info.port), "-U", "postgres"]
    dump = run("pg_dump", *where, "-Fc", db.info.dbname)
    name = f"{db.info.dbname}_restored"
    db.admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))
    # "another cluster": the same role name, a new OID
    drop_role(db.admin, "ghost")
    make_role(db.admin, "ghost")
    db.admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    conns = []
    try:
        run("pg_restore", *where, "--exit-on-error", "-d", name, data=dump)

        def connect(role):
            c = psycopg.connect(host=db.info.host, port=db.info.port, user=role, dbname=name, autocommit=True)
            conns.append(c)
            return c
        ghost = connect("ghost")
        llm.reset()
        llm.responder = remember_phrases()
        with raises("42501") as e:
            generate(ghost, "after", "P")
        assert "rebind_role('ghost')" in hint_of(e)
        assert llm.requests == []
        with raises("42501"):
            connect("bob").execute("select dbms_cloud_ai.rebind_role('ghost')")
        connect("ai_admin").execute("select dbms_cloud_ai.rebind_role('ghost')")
        assert generate(ghost, "after", "P") == "ok: after"
        assert [r.headers["authorization"] for r in llm.requests] == [f"Bearer {key}"]
        with raises("55000"):
            connect("ai_admin").execute("select dbms_cloud_ai.rebind_role('ghost')")
    finally:
        for c in conns:
            c.close()
        db.admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.mark.long
def test_every_call_that_names_the_old_rows_fails_with_the_documented_error(db, llm, roles):
    """Every function that takes a credential or profile name (the list of
    tests/security/test_isolation.py, which fails when a new one is missing), and the
    session-profile calls, as the new ghost: 42501 with the drop_role_data hint
    (or an empty result for a filter), and no request leaves the database."""
    from security.test_isolation import (
        BOB_CALLS_WITH_ALICES_NAMES,
        BOB_SESSION_CALLS,
        RETURNS_EMPTY_FOR_UNKNOWN_PROFILE,
    )
    old = db.connect("ghost")
    make_profile(old, llm, key=f"sk-ghost-old-{uuid.uuid4()}")
    make_profile(old, llm, name="BOBP", credential="BOBCRED", key=f"sk-ghost-old2-{uuid.uuid4()}")
    old.close()
    drop_role(db.admin, "ghost")
    make_role(db.admin, "ghost")
    llm.reset()
    ghost = db.connect("ghost")
    for fn, call in BOB_CALLS_WITH_ALICES_NAMES.items():
        if fn in RETURNS_EMPTY_FOR_UNKNOWN_PROFILE:
            assert ghost.execute(call).fetchone()[0] == "", fn
            continue
        with raises("42501") as e:
            ghost.execute(call)
        assert "drop_role_data('ghost')" in hint_of(e), fn
    ghost.execute("select pg_catalog.set_config('dbms_cloud_ai.profile_name', 'P', false)")
    for call in BOB_SESSION_CALLS:
        with raises("42501") as e:
            ghost.execute(call)
        assert "drop_role_data('ghost')" in hint_of(e), call
    assert llm.requests == []


@pytest.mark.long
def test_an_ace_granted_to_a_dropped_group_does_not_reach_its_successors_members(db, llm, roles):
    """ACEs apply through group membership: the binding checked is the group's."""
    admin = db.admin
    drop_role(admin, "ghost_group")
    admin.execute("create role ghost_group nologin")
    try:
        admin.execute("grant ghost_group to ghost_fresh")
        db.connect("ai_admin").execute("select dbms_cloud_ai.append_host_ace('group.example', 'ghost_group')")
        member = db.connect("ghost_fresh")
        assert member.execute("select count(*) from dbms_cloud_ai.user_host_aces where host = 'group.example'"
                              ).fetchone()[0] == 1
        drop_role(admin, "ghost_group")
        admin.execute("create role ghost_group nologin")
        admin.execute("grant ghost_group to ghost_fresh")
        member = db.connect("ghost_fresh")
        assert member.execute("select count(*) from dbms_cloud_ai.user_host_aces where host = 'group.example'"
                              ).fetchone()[0] == 0
        db.connect("ai_admin").execute("select dbms_cloud_ai.drop_role_data('ghost_group')")
        assert admin.execute("select count(*) from dbms_cloud_ai._host_ace where principal_name = 'ghost_group'"
                             ).fetchone()[0] == 0
    finally:
        drop_role(admin, "ghost_group")
