"""The pgvector path of vector indexes (rag/ann.py): a partial HNSW index per
vector index when the database has pgvector, retrieval through it, and the
full-text path whenever it is not there.

pgvector is installed by `make deps` (scripts/pgvector.sh builds Debian's
source of it for PostgreSQL 15). These tests fail, not skip, without it,
unless DCA_NO_PGVECTOR=1 says the server has none on purpose.
"""

from __future__ import annotations

import json
import os
import threading

import pytest
from fake_llm import Answer, Vectors
from helpers import generate, make_profile, raises
from test_vector_indexes import DOCS, create_index, make_docs, rag_profile


def ann_indexes(conn) -> list[tuple[str, str]]:
    return conn.execute("""
        select c.relname::text, pg_catalog.pg_get_indexdef(c.oid)
          from pg_catalog.pg_class c
         where c.relnamespace = 'dbms_cloud_ai'::regnamespace and c.relkind = 'i'
           and c.relname like 'vector\\_chunk\\_ann\\_%' order by 1""").fetchall()


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
    return alice


def test_refresh_builds_one_hnsw_index_for_the_vector_index(docs):
    (index_id,) = docs.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    [(name, ddl)] = ann_indexes(docs)
    assert name == f"vector_chunk_ann_{index_id.replace('-', '')}_256"
    assert "USING hnsw" in ddl and '"vec tors".vector_ip_ops' in ddl
    assert f"'{index_id}'::uuid" in ddl
    # a second refresh keeps it
    docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
    assert [n for n, _ in ann_indexes(docs)] == [name]


def test_narrate_retrieves_through_the_hnsw_index(docs, llm):
    [(name, _)] = ann_indexes(docs)
    rag_profile(docs, llm, enable_sources=True)
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
    rag_profile(docs, llm)
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
    # the next refresh builds it again
    docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
    assert [n for n, _ in ann_indexes(docs)] == [name]


def test_dropping_pgvector_leaves_the_full_text_path(docs, llm, db):
    db.admin.execute("drop extension vector cascade")
    assert ann_indexes(docs) == []
    rag_profile(docs, llm)
    llm.script(Answer("Eight."))
    assert generate(docs, "When does the cafeteria open?", "RAG", "narrate") == "Eight."
    docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
    assert ann_indexes(docs) == []


def test_without_usage_on_pgvectors_schema_there_is_no_hnsw_index(pgvector, alice, llm, db):
    db.admin.execute('revoke usage on schema "vec tors" from dbms_cloud_ai_owner')
    make_docs(alice)
    create_index(alice, llm)
    assert ann_indexes(alice) == []
    rag_profile(alice, llm)
    llm.script(Answer("Eight."))
    assert generate(alice, "When does the cafeteria open?", "RAG", "narrate") == "Eight."
    db.admin.execute('grant usage on schema "vec tors" to dbms_cloud_ai_owner')
    alice.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
    assert len(ann_indexes(alice)) == 1


def test_another_dimension_replaces_the_hnsw_index(docs, llm):
    (index_id,) = docs.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    # another model: every chunk is embedded again, with 8 dimensions
    docs.execute("select dbms_cloud_ai.set_attribute('EMB', 'embedding_model', 'small-8')")
    unit8 = [1.0] + [0.0] * 7
    llm.embed_script(*[Vectors([unit8]) for _ in DOCS])
    assert docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')").fetchone()[0] == 3
    assert [n for n, _ in ann_indexes(docs)] == [f"vector_chunk_ann_{index_id.replace('-', '')}_8"]


def test_over_2000_dimensions_halfvec_and_over_4000_none(docs, llm):
    (index_id,) = docs.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    for model, dims, kind in (("wide-2500", 2500, "halfvec"), ("wide-4100", 4100, None)):
        docs.execute("select dbms_cloud_ai.set_attribute('EMB', 'embedding_model', %s)", (model,))
        llm.embed_script(*[Vectors([[1.0] + [0.0] * (dims - 1)]) for _ in DOCS])
        docs.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')")
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
    assert len(ann_indexes(docs)) == 2
    docs.execute("select dbms_cloud_ai.drop_vector_index('DOCS', include_data => true)")
    assert len(ann_indexes(docs)) == 1        # bob's stays
    # and bob's index still answers through its own
    rag_profile(bob, llm, index="BOBS")
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
    for i in range(20):
        alice.execute("select dbms_cloud_ai.create_vector_index(%s, %s)", (f"I{i}", a))
    notices: list[str] = []
    alice.add_notice_handler(lambda d: notices.append(d.sqlstate))
    alice.execute("select dbms_cloud_ai.create_vector_index('I20', %s)", (a,))
    assert len(ann_indexes(alice)) == 20 and notices == ["00000"]
    rag_profile(alice, llm, index="I20")
    llm.script(Answer("Eight."))
    assert generate(alice, "When does the cafeteria open?", "RAG", "narrate") == "Eight."
    # dropping one lets the next refresh build it
    alice.execute("select dbms_cloud_ai.drop_vector_index('I0', include_data => true)")
    alice.execute("select dbms_cloud_ai.refresh_vector_index('I20')")
    assert len(ann_indexes(alice)) == 20
    make_docs(bob, table="bobdocs")
    create_index(bob, llm, name="BOBS", table="bobdocs", profile="BEMB")
    assert len(ann_indexes(alice)) == 21


def test_concurrent_refreshes_keep_the_cap_of_20(pgvector, alice, llm, db):
    """Two refreshes of one role's indexes at once, at 19 HNSW indexes, with nothing else to
    write (their chunks are there): the second waits for the first to commit, then counts 20
    and builds none.  Before, both counted 19 and built: 21."""
    make_docs(alice, docs={1: "The cafeteria opens at eight."})
    make_profile(alice, llm, "EMB", credential="CEMB", embedding_model="text-embedding-3-small")
    a = json.dumps({"location": "table:alice.handbook(id, body)", "profile_name": "EMB"})
    for name in [f"I{i}" for i in range(20)] + ["X", "Y"]:       # X and Y: over the cap
        alice.execute("select dbms_cloud_ai.create_vector_index(%s, %s)", (name, a))
    alice.execute("select dbms_cloud_ai.drop_vector_index('I0', include_data => true)")
    assert len(ann_indexes(alice)) == 19
    first, second = db.connect("alice"), db.connect("alice")
    first.autocommit = second.autocommit = False
    first.execute("select dbms_cloud_ai.refresh_vector_index('X')")      # builds the 20th
    done = threading.Event()

    def refresh_y():
        second.execute("select dbms_cloud_ai.refresh_vector_index('Y')")
        second.commit()
        done.set()
    worker = threading.Thread(target=refresh_y, daemon=True)
    worker.start()
    assert not done.wait(2), "the second refresh did not wait for the first"
    waiting = db.admin.execute("select count(*) from pg_catalog.pg_stat_activity "
                               "where wait_event_type = 'Lock' and usename = 'alice'").fetchone()[0]
    assert waiting == 1
    first.commit()
    assert done.wait(30)
    worker.join(5)
    assert len(ann_indexes(alice)) == 20


def test_only_the_package_runs_the_index_ddl(docs, bob, db):
    """The DDL function runs as the extension's owner: no user or administrator calls it."""
    (index_id,) = docs.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()
    admin = db.connect("ai_admin")
    assert admin.execute("select pg_has_role('dbms_cloud_ai_admin', 'member')").fetchone()[0]
    for conn, args in ((docs, (index_id, 8, True, "alice")), (bob, (index_id, None, False, "alice")),
                       (admin, (index_id, None, False, "alice"))):
        with raises("42501"):
            conn.execute("select dbms_cloud_ai._vector_ann_index(%s::uuid, %s, %s, %s)", args)
    assert len(ann_indexes(docs)) == 1


def test_an_odd_table_source_is_data_not_sql(docs, llm):
    """Names never reach the DDL or the search as SQL text (the DDL takes the
    index's uuid): a source table whose name is SQL-looking works the same."""
    make_docs(docs, table='"odd; drop table handbook --"')
    a = {"location": 'table:alice."odd; drop table handbook --"(id, body)', "profile_name": "EMB",
         "chunk_size": 200, "chunk_overlap": 20}
    docs.execute("select dbms_cloud_ai.create_vector_index('ODD', %s)", (json.dumps(a),))
    assert len(ann_indexes(docs)) == 2
    assert docs.execute("select count(*) from handbook").fetchone()[0] == 3
