"""The pgvector path of vector indexes (vector_indexes/ann.py): a partial HNSW index per
vector index when the database has pgvector, built and dropped only by the
maintenance procedures (maintain_vector_indexes, refresh_vector_index_job),
each DDL in a transaction of its own, never in a caller's (issue 30, class 3);
retrieval through it, and the full-text path whenever it is not there.

pgvector is installed by `make deps` (scripts/pgvector.sh builds Debian's
source of it for PostgreSQL 15). These tests fail, not skip, without it,
unless DCA_NO_PGVECTOR=1 says the server has none on purpose.
"""

from __future__ import annotations

import json
import os
import threading
import time

import pytest
from fake_llm import Answer, Vectors
from helpers import generate, make_profile, raises
from vector_indexes.test_vector_indexes import DOCS, create_index, index_profile, make_docs


def ann_indexes(conn) -> list[tuple[str, str]]:
    return conn.execute("""
        select c.relname::text, pg_catalog.pg_get_indexdef(c.oid)
          from pg_catalog.pg_class c
         where c.relnamespace = 'dbms_cloud_ai'::regnamespace and c.relkind = 'i'
           and c.relname like 'vector\\_chunk\\_ann\\_%' order by 1""").fetchall()


def maintain(conn, index_name: str | None = None) -> None:
    """What pg_cron's job does after each refresh (or anyone, on its own)."""
    conn.execute("call dbms_cloud_ai.maintain_vector_indexes(%s)", (index_name,))


def scans(conn, index_name: str) -> int:
    """Scans of the index in the current transaction."""
    return conn.execute("select pg_catalog.pg_stat_get_xact_numscans(%s::regclass)",
                        (f"dbms_cloud_ai.{index_name}",)).fetchone()[0]


@pytest.fixture
def pgvector(db):
    if os.environ.get("DCA_NO_PGVECTOR") == "1":
        pytest.skip("DCA_NO_PGVECTOR=1: this server has no pgvector")
    assert db.admin.execute("select count(*) from pg_catalog.pg_available_extensions "
                            "where name = 'vector'").fetchone()[0] == 1, \
        "pgvector is not installed: run scripts/pgvector.sh (make deps), or set DCA_NO_PGVECTOR=1"
    db.admin.execute('create schema "vec tors"')      # a schema name that needs quoting
    db.admin.execute('create extension vector schema "vec tors"')
    db.admin.execute('grant usage on schema "vec tors" to dbms_cloud_ai_owner')
    return db


def hnsw_only(conn):
    """On a few chunks the planner rightly prefers a scan: make it take the index."""
    conn.execute("set enable_seqscan = off")


@pytest.fixture
def docs(pgvector, alice, llm):
    make_docs(alice)
    create_index(alice, llm)
    maintain(alice)
    return alice


def test_the_maintenance_builds_one_hnsw_index_for_the_vector_index(pgvector, alice, llm):
    make_docs(alice)
    create_index(alice, llm)
    assert ann_indexes(alice) == []          # not in the creating call's transaction
    maintain(alice, "DOCS")
    (index_id,) = alice.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    [(name, ddl)] = ann_indexes(alice)
    assert name == f"vector_chunk_ann_{index_id.replace('-', '')}_256"
    assert "USING hnsw" in ddl and '"vec tors".vector_ip_ops' in ddl
    assert f"'{index_id}'::uuid" in ddl
    # a second refresh and maintenance keep it
    alice.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
    maintain(alice)
    assert [n for n, _ in ann_indexes(alice)] == [name]


def test_narrate_retrieves_through_the_hnsw_index(docs, llm):
    [(name, _)] = ann_indexes(docs)
    index_profile(docs, llm, enable_sources=True)
    llm.script(Answer("Ask the facilities team."))
    hnsw_only(docs)
    with docs.transaction():
        out = generate(docs, "Who issues parking permits?", "RAG", "narrate")
        assert scans(docs, name) == 1
    assert out.startswith("Ask the facilities team.") and "alice.handbook:2" in out
    src = docs.execute("select source_id, similarity from dbms_cloud_ai.user_cloud_ai_message_sources "
                       "order by similarity desc").fetchall()
    assert src[0][0] == "DOCS:alice.handbook:2#0"
    # the similarity is the cosine, as on the full-text path
    assert 0.3 < src[0][1] <= 1.0
    # the caller's settings are as they were
    assert docs.execute("show plan_cache_mode").fetchone()[0] == "auto"


def test_without_the_hnsw_index_retrieval_takes_the_full_text_path(docs, llm, db):
    index_profile(docs, llm)
    question = "When are holiday requests approved by the manager?"
    llm.script(Answer("ok"), Answer("ok"))
    generate(docs, question, "RAG", "narrate")
    [(name, _)] = ann_indexes(docs)
    db.admin.execute(f"drop index dbms_cloud_ai.{name}")      # as a restore without it leaves it
    generate(docs, question, "RAG", "narrate")
    got = docs.execute("""
        select c.created, s.source_id, round(s.similarity::numeric, 5)
          from dbms_cloud_ai.user_cloud_ai_message_sources s
          join dbms_cloud_ai.user_cloud_ai_calls c using (call_id)
         order by 1, 3 desc, 2""").fetchall()
    first = [(s, v) for t, s, v in got if t == got[0][0]]
    second = [(s, v) for t, s, v in got if t != got[0][0]]
    assert first and first == second          # the same chunks, the same cosines
    assert first[0][0] == "DOCS:alice.handbook:3#0"
    # the next maintenance builds it again
    docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
    assert ann_indexes(docs) == []
    maintain(docs)
    assert [n for n, _ in ann_indexes(docs)] == [name]


def test_dropping_pgvector_leaves_the_full_text_path(docs, llm, db):
    db.admin.execute("drop extension vector cascade")
    assert ann_indexes(docs) == []
    index_profile(docs, llm)
    llm.script(Answer("Eight."))
    assert generate(docs, "When does the cafeteria open?", "RAG", "narrate") == "Eight."
    docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
    maintain(docs)
    assert ann_indexes(docs) == []


def test_without_usage_on_pgvectors_schema_there_is_no_hnsw_index(pgvector, alice, llm, db):
    db.admin.execute('revoke usage on schema "vec tors" from dbms_cloud_ai_owner')
    make_docs(alice)
    create_index(alice, llm)
    maintain(alice)
    assert ann_indexes(alice) == []
    index_profile(alice, llm)
    llm.script(Answer("Eight."))
    assert generate(alice, "When does the cafeteria open?", "RAG", "narrate") == "Eight."
    db.admin.execute('grant usage on schema "vec tors" to dbms_cloud_ai_owner')
    maintain(alice, "DOCS")
    assert len(ann_indexes(alice)) == 1


def test_another_dimension_replaces_the_hnsw_index(docs, llm):
    (index_id,) = docs.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    # another model: every chunk is embedded again, with 8 dimensions
    docs.execute("select dbms_cloud_ai.set_attribute('EMB', 'embedding_model', 'small-8')")
    unit8 = [1.0] + [0.0] * 7
    llm.embed_script(*[Vectors([unit8]) for _ in DOCS])
    assert docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')").fetchone()[0] == 3
    # the old one stays until the maintenance (its predicate matches no new chunk)
    assert [n for n, _ in ann_indexes(docs)] == [f"vector_chunk_ann_{index_id.replace('-', '')}_256"]
    maintain(docs, "DOCS")
    assert [n for n, _ in ann_indexes(docs)] == [f"vector_chunk_ann_{index_id.replace('-', '')}_8"]


def test_over_2000_dimensions_halfvec_and_over_4000_none(docs, llm):
    (index_id,) = docs.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    for model, dims, kind in (("wide-2500", 2500, "halfvec"), ("wide-4100", 4100, None)):
        docs.execute("select dbms_cloud_ai.set_attribute('EMB', 'embedding_model', %s)", (model,))
        llm.embed_script(*[Vectors([[1.0] + [0.0] * (dims - 1)]) for _ in DOCS])
        docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
        maintain(docs, "DOCS")
        got = ann_indexes(docs)
        if kind is None:      # beyond HNSW's limits: the full-text path
            assert got == []
        else:
            [(name, ddl)] = got
            assert name == f"vector_chunk_ann_{index_id.replace('-', '')}_{dims}"
            assert f'"vec tors".halfvec({dims})' in ddl and "halfvec_ip_ops" in ddl


def test_dropping_the_vector_index_drops_its_hnsw_index(docs, llm, bob):
    make_docs(bob, table="bobdocs")
    create_index(bob, llm, name="BOBS", table="bobdocs", profile="BEMB")
    maintain(bob)
    assert len(ann_indexes(docs)) == 2
    docs.execute("select dbms_cloud_ai.drop_vector_index('DOCS', include_data => true)")
    assert len(ann_indexes(docs)) == 2        # not in the dropping call's transaction
    # the next maintenance, anyone's, drops the HNSW index of a vector index that is gone
    maintain(bob)
    assert len(ann_indexes(docs)) == 1        # bob's stays
    # and bob's index still answers through its own
    index_profile(bob, llm, index="BOBS")
    llm.script(Answer("Eight."))
    assert generate(bob, "When does the cafeteria open?", "RAG", "narrate") == "Eight."


def test_a_grantee_retrieves_through_the_owners_hnsw_index(docs, llm, bob):
    [(name, _)] = ann_indexes(docs)
    docs.execute("select dbms_cloud_ai.grant_vector_index_access('DOCS', 'bob')")
    # the question is embedded through the index's profile, shared with bob too
    docs.execute("select dbms_cloud_ai.grant_profile_access('EMB', 'bob')")
    make_profile(bob, llm, "BRAG", credential="BCRED", vector_index_name='"alice"."DOCS"')
    llm.script(Answer("Two weeks ahead."))
    hnsw_only(bob)
    with bob.transaction():
        assert generate(bob, "How early are holiday requests made?", "BRAG", "narrate") \
            == "Two weeks ahead."
        assert scans(bob, name) == 1
    # bob cannot touch the index itself: it is the extension's
    for sql in (f"drop index dbms_cloud_ai.{name}", f"alter index dbms_cloud_ai.{name} rename to x",
                f"reindex index dbms_cloud_ai.{name}"):
        with raises("42501"):
            bob.execute(sql)


def test_a_role_has_at_most_20_hnsw_indexes(pgvector, alice, llm, bob):
    """Each partial index costs every insert and plan over the shared chunks table:
    the 21st of a role's vector indexes stays on full text (and says so), another
    role's still gets its own."""
    make_docs(alice, docs={1: "The cafeteria opens at eight."})
    make_profile(alice, llm, "EMB", credential="CEMB", embedding_model="text-embedding-3-small")
    a = json.dumps({"location": "table:alice.handbook(id, body)", "profile_name": "EMB"})
    for i in range(21):
        alice.execute("select dbms_cloud_ai.create_vector_index(%s, %s)", (f"I{i}", a))
    notices: list[str] = []
    alice.add_notice_handler(lambda d: notices.append(d.message_primary))
    maintain(alice)
    assert len(ann_indexes(alice)) == 20
    assert notices == ["vector index I20 gets no HNSW index: alice has 20 already"]
    index_profile(alice, llm, index="I20")
    llm.script(Answer("Eight."))
    assert generate(alice, "When does the cafeteria open?", "RAG", "narrate") == "Eight."
    # dropping one lets the next maintenance build it (and drop the dropped one's)
    alice.execute("select dbms_cloud_ai.drop_vector_index('I0', include_data => true)")
    maintain(alice, "I20")
    assert len(ann_indexes(alice)) == 20
    make_docs(bob, table="bobdocs")
    create_index(bob, llm, name="BOBS", table="bobdocs", profile="BEMB")
    maintain(bob)
    assert len(ann_indexes(alice)) == 21


def test_concurrent_refreshes_keep_the_cap_of_20(pgvector, alice, llm, db):
    """Two refresh jobs of one role's indexes at once (pg_cron's procedure: refresh,
    commit, then the HNSW maintenance), at 19 HNSW indexes: both queue on the role's
    binding row (held here a moment, as a slow build would), then the second counts
    20 and builds none.  Before, both counted 19 and built: 21."""
    make_docs(alice, docs={1: "The cafeteria opens at eight."})
    make_profile(alice, llm, "EMB", credential="CEMB", embedding_model="text-embedding-3-small")
    a = json.dumps({"location": "table:alice.handbook(id, body)", "profile_name": "EMB"})
    for name in [f"I{i}" for i in range(20)]:
        alice.execute("select dbms_cloud_ai.create_vector_index(%s, %s)", (name, a))
    maintain(alice)
    alice.execute("select dbms_cloud_ai.drop_vector_index('I0', include_data => true)")
    maintain(alice)
    assert len(ann_indexes(alice)) == 19
    for name in ("X", "Y"):                                       # over the cap together
        alice.execute("select dbms_cloud_ai.create_vector_index(%s, %s)", (name, a))
    holder = db.connect("postgres")
    holder.autocommit = False
    holder.execute("select from dbms_cloud_ai._role_binding where role_name = 'alice' for update")
    done = []

    def job(name):
        with db.connect("alice") as conn:
            conn.execute("call dbms_cloud_ai.refresh_vector_index_job(%s)", (name,))
        done.append(name)
    workers = [threading.Thread(target=job, args=(n,), daemon=True) for n in ("X", "Y")]
    for w in workers:
        w.start()
    for _ in range(50):
        waiting = db.admin.execute("select count(*) from pg_catalog.pg_stat_activity "
                                   "where wait_event_type = 'Lock' and usename = 'alice'").fetchone()[0]
        if waiting == 2:
            break
        time.sleep(0.05)
    assert waiting == 2 and done == []
    holder.commit()
    for w in workers:
        w.join(30)
    assert sorted(done) == ["X", "Y"]
    assert len(ann_indexes(alice)) == 20


def test_only_the_package_runs_the_index_ddl(docs, bob, db):
    """The DDL functions run as the extension's owner: no user runs them (in a
    transaction it would keep open), and administrators only drop_role_data's."""
    (index_id,) = docs.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    admin = db.connect("ai_admin")
    assert admin.execute("select pg_has_role('dbms_cloud_ai_admin', 'member')").fetchone()[0]
    for conn in (docs, bob, admin):
        for sql, args in (("select dbms_cloud_ai._vector_ann_step(%s::uuid, 'alice')", (index_id,)),
                          ("select dbms_cloud_ai._vector_ann_step(null, 'alice')", ()),
                          ("select dbms_cloud_ai._vector_ann_lock_nowait(true)", ())):
            with raises("42501"):
                conn.execute(sql, args)
    for conn in (docs, bob):
        with raises("42501"):
            conn.execute("select dbms_cloud_ai._vector_ann_drop_gone(array[%s::uuid])", (index_id,))
    # an administrator's drops only what is gone: alice's index is not
    assert admin.execute("select dbms_cloud_ai._vector_ann_drop_gone(array[%s::uuid])",
                         (index_id,)).fetchone()[0] == 0
    assert len(ann_indexes(docs)) == 1


def test_an_odd_table_source_is_data_not_sql(docs, llm):
    """Names never reach the DDL or the search as SQL text (the DDL takes the
    index's uuid): a source table whose name is SQL-looking works the same."""
    make_docs(docs, table='"odd; drop table handbook --"')
    a = {"location": 'table:alice."odd; drop table handbook --"(id, body)', "profile_name": "EMB",
         "chunk_size": 200, "chunk_overlap": 20}
    docs.execute("select dbms_cloud_ai.create_vector_index('ODD', %s)", (json.dumps(a),))
    maintain(docs)
    assert len(ann_indexes(docs)) == 2
    assert docs.execute("select count(*) from handbook").fetchone()[0] == 3


# --- issue 30, class 3: the extension's own DDL never runs inside a user's transaction ---

def chunk_locks(db, role: str) -> list[str]:
    """The locks ``role``'s sessions hold on the shared chunks table."""
    return [m for (m,) in db.admin.execute("""
        select l.mode from pg_catalog.pg_locks l join pg_catalog.pg_stat_activity a using (pid)
         where a.usename = %s and l.granted
           and l.relation = 'dbms_cloud_ai._vector_chunk'::regclass order by 1""", (role,))]


def bobs_index(bob, llm) -> str:
    make_docs(bob, table="bobdocs")
    create_index(bob, llm, name="BOBS", table="bobdocs", profile="BEMB")
    maintain(bob)
    index_profile(bob, llm, index="BOBS")
    return bob.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()[0]


def narrate_soon(conn, llm, within: float = 3.0) -> None:
    """conn narrates over its index at once: no lock wait, no 55P03."""
    conn.execute("set lock_timeout = '10s'")       # a wait would show, not fail
    llm.script(Answer("Eight."))
    t = time.monotonic()
    assert generate(conn, "When does the cafeteria open?", "RAG", "narrate") == "Eight."
    assert time.monotonic() - t < within


def test_an_open_drop_vector_index_stops_no_other_roles_narrate(docs, llm, bob, db):
    """alice drops her index and leaves the transaction open: before, it held
    ACCESS EXCLUSIVE on the chunks table and bob's narrate failed after 5 s (55P03)."""
    bobs_index(bob, llm)
    [_, _] = ann_indexes(docs)
    open_tx = db.connect("alice")
    open_tx.autocommit = False
    open_tx.execute("select dbms_cloud_ai.drop_vector_index('DOCS', include_data => true)")
    assert "AccessExclusiveLock" not in chunk_locks(db, "alice")
    narrate_soon(bob, llm)
    # also through the HNSW index: reads of it are not blocked either
    hnsw = [n for n, d in ann_indexes(bob) if "DOCS" not in d]
    with bob.transaction():
        hnsw_only(bob)
        llm.script(Answer("Eight."))
        generate(bob, "When does the cafeteria open?", "RAG", "narrate")
        assert sum(scans(bob, n) for n in hnsw) == 1
    open_tx.commit()
    # the next maintenance drops the HNSW index of the index that is gone
    maintain(bob)
    assert len(ann_indexes(bob)) == 1


def test_an_open_refresh_stops_no_other_roles_refresh_or_narrate(pgvector, alice, llm, bob, db):
    """alice's refresh (whose index has no HNSW index yet) left open: before, it
    built the index in her transaction and held SHARE on the chunks table, so
    every other role's refresh waited (55P03 after 5 s).  The maintenance builds
    it afterwards in a transaction of its own, and retrieval uses it."""
    bobs_index(bob, llm)
    make_docs(alice)
    create_index(alice, llm)
    alice.execute("update handbook set body = body || ' Ask them.' where id = 2")
    open_tx = db.connect("alice")
    open_tx.autocommit = False
    assert open_tx.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')").fetchone()[0] == 1
    assert set(chunk_locks(db, "alice")) <= {"RowExclusiveLock", "AccessShareLock"}
    # bob refreshes (writes chunks) and narrates at once
    bob.execute("set lock_timeout = '10s'")
    bob.execute("insert into bobdocs values (4, 'Badges are renewed every year.')")
    t = time.monotonic()
    assert bob.execute("select dbms_cloud_ai.refresh_vector_index('BOBS')").fetchone()[0] == 1
    assert time.monotonic() - t < 3
    narrate_soon(bob, llm)
    open_tx.commit()
    # alice's index has no HNSW index until the maintenance: retrieval takes full text
    assert len(ann_indexes(alice)) == 1
    index_profile(alice, llm)
    llm.script(Answer("Ask the facilities team."))
    assert generate(alice, "Who issues parking permits?", "RAG", "narrate") == "Ask the facilities team."
    maintain(alice)
    (index_id,) = alice.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    name = f"vector_chunk_ann_{index_id.replace('-', '')}_256"
    assert name in [n for n, _ in ann_indexes(alice)]
    llm.script(Answer("Ask the facilities team."))
    with alice.transaction():
        hnsw_only(alice)
        generate(alice, "Who issues parking permits?", "RAG", "narrate")
        assert scans(alice, name) == 1


@pytest.mark.parametrize("call", ["call dbms_cloud_ai.maintain_vector_indexes()",
                                  "call dbms_cloud_ai.maintain_vector_indexes('DOCS')",
                                  "call dbms_cloud_ai.refresh_vector_index_job('DOCS')"])
def test_the_maintenance_refuses_a_transaction_block_and_takes_no_lock(pgvector, alice, llm, db, call):
    """A role that calls a maintenance procedure inside BEGIN (or from a function
    or DO block in one) gets 2D000 before anything is built, dropped or locked;
    so no role can keep the HNSW DDL's locks in a transaction of its own."""
    make_docs(alice)
    create_index(alice, llm)             # no HNSW index: the maintenance would build one
    llm.reset()
    inout = ", n" if "_job" in call else ""
    in_do = "do $$ declare n int; begin " + call.replace("')", "'" + inout + ")") + "; end $$"
    for sql, prefix in ((call, False), (in_do, True)):
        open_tx = db.connect("alice")
        open_tx.autocommit = False
        open_tx.execute("select 1")
        with raises("2D000") as e:
            open_tx.execute(sql)
        assert "cannot run inside a transaction block" in str(e["error"]) or prefix
        assert chunk_locks(db, "alice") == []
        open_tx.rollback()
        open_tx.close()
    # nor in a multi-statement query (an implicit transaction block)
    with raises("2D000"):
        alice.execute(f"select 1; {call}")
    assert ann_indexes(alice) == [] and llm.embedding_requests == []
    alice.execute(call)                  # on its own it runs
    assert len(ann_indexes(alice)) == 1


def test_the_maintenance_touches_no_other_roles_live_index(docs, llm, bob, db):
    """bob's maintenance builds and drops only his own HNSW indexes, and those of
    vector indexes that are gone: never alice's (another dimension waiting for
    her maintenance, or her index not built yet)."""
    (index_id,) = docs.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    docs.execute("select dbms_cloud_ai.set_attribute('EMB', 'embedding_model', 'small-8')")
    llm.embed_script(*[Vectors([[1.0] + [0.0] * 7]) for _ in DOCS])
    docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
    before = ann_indexes(docs)
    assert [n for n, _ in before] == [f"vector_chunk_ann_{index_id.replace('-', '')}_256"]
    bobs_index(bob, llm)
    maintain(bob)
    with raises("42501"):
        bob.execute("""call dbms_cloud_ai.maintain_vector_indexes('"alice"."DOCS"')""")
    with raises("42704"):
        bob.execute("call dbms_cloud_ai.maintain_vector_indexes('DOCS')")
    assert [x for x in ann_indexes(docs) if "BOBS" not in x[1] and x in before] == before
    assert len(ann_indexes(docs)) == 2


def test_drop_role_data_removes_the_hnsw_indexes(docs, llm, db):
    """A dropped role's vector indexes go with drop_role_data, and their HNSW
    indexes too (pg_class), not only at a later maintenance; alice's stays."""
    from security.test_dropped_role_rows import drop_role, make_role
    drop_role(db.admin, "ghost_ann")
    make_role(db.admin, "ghost_ann")
    try:
        db.admin.execute("create table public.ghost_ann_docs (id int, body text)")
        db.admin.execute("insert into public.ghost_ann_docs values (1, 'Ghosts keep bees.')")
        db.admin.execute("grant select on public.ghost_ann_docs to ghost_ann")
        ghost = db.connect("ghost_ann")
        make_profile(ghost, llm, "GEMB", credential="GCRED", embedding_model="text-embedding-3-small")
        ghost.execute("select dbms_cloud_ai.create_vector_index('GDOCS', %s)", (json.dumps(
            {"location": "table:public.ghost_ann_docs(id, body)", "profile_name": "GEMB"}),))
        maintain(ghost)
        (gid,) = db.admin.execute("select index_id::text from dbms_cloud_ai._vector_index "
                                  "where owner = 'ghost_ann'").fetchone()
        mine = [n for n, _ in ann_indexes(docs)]
        ghosts = [n for n, _ in ann_indexes(db.admin) if gid.replace("-", "") in n]
        assert len(ghosts) == 1 and len(mine) == 2
        ghost.close()
        drop_role(db.admin, "ghost_ann")
        db.connect("ai_admin").execute("select dbms_cloud_ai.drop_role_data('ghost_ann')")
        assert db.admin.execute("select count(*) from pg_catalog.pg_class where relname = %s",
                                (ghosts[0],)).fetchone()[0] == 0
        assert [n for n, _ in ann_indexes(docs)] == [n for n in mine if n not in ghosts]
    finally:
        drop_role(db.admin, "ghost_ann")
        db.admin.execute("drop table if exists public.ghost_ann_docs")


def test_a_drop_never_queues_behind_an_open_reader(docs, llm, bob, db):
    """A reader's open transaction (ACCESS SHARE on the chunks table, which any role
    may take) makes the maintenance's DROP INDEX wait: it takes its lock with NOWAIT
    and gives up after a few tries, so it never sits in the lock queue where every
    later narrate would wait behind it.  The drop is left to the next maintenance."""
    bobs_index(bob, llm)
    reader = db.connect("bob")
    reader.autocommit = False
    reader.execute("select count(*) from dbms_cloud_ai._vector_chunk")
    docs.execute("select dbms_cloud_ai.drop_vector_index('DOCS', include_data => true)")
    notices: list[str] = []
    docs.add_notice_handler(lambda d: notices.append(d.message_primary))
    done = threading.Event()

    def run():
        maintain(docs)
        done.set()
    worker = threading.Thread(target=run, daemon=True)
    t = time.monotonic()
    worker.start()
    time.sleep(0.3)
    narrate_soon(bob, llm, within=1.5)        # while the maintenance retries: not queued
    assert done.wait(10) and time.monotonic() - t < 6
    worker.join(5)
    assert [n for n in notices if "busy" in n]
    assert len(ann_indexes(docs)) == 2        # left to the next maintenance
    reader.commit()
    maintain(docs)
    assert len(ann_indexes(docs)) == 1


def test_a_build_never_queues_behind_an_open_refresh(docs, llm, bob, db):
    """alice's refresh left open holds ROW EXCLUSIVE on the chunks table: bob's
    maintenance cannot build his HNSW index (SHARE), and takes the lock with NOWAIT
    instead of waiting in the queue, where carol's refresh would wait behind it."""
    make_docs(bob, table="bobdocs")
    create_index(bob, llm, name="BOBS", table="bobdocs", profile="BEMB")     # no HNSW index yet
    carol = db.connect("carol")
    make_docs(carol, table="caroldocs")
    create_index(carol, llm, name="CAROLS", table="caroldocs", profile="CEMB2")
    docs.execute("update handbook set body = body || ' Ask them.' where id = 2")
    open_tx = db.connect("alice")
    open_tx.autocommit = False
    assert open_tx.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')").fetchone()[0] == 1
    notices: list[str] = []
    bob.add_notice_handler(lambda d: notices.append(d.message_primary))
    done = threading.Event()

    def run():
        maintain(bob)
        done.set()
    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    time.sleep(0.3)
    carol.execute("insert into caroldocs values (4, 'Badges are renewed every year.')")
    t = time.monotonic()
    assert carol.execute("select dbms_cloud_ai.refresh_vector_index('CAROLS')").fetchone()[0] == 1
    assert time.monotonic() - t < 1.5                # not queued behind bob's build
    assert done.wait(10)
    worker.join(5)
    assert [n for n in notices if "busy" in n]
    assert len(ann_indexes(bob)) == 1                # alice's only
    open_tx.commit()
    maintain(bob)
    assert len(ann_indexes(bob)) == 2
