"""The pgvector path against real servers (issue 19): documents embedded by
all-MiniLM-L6-v2 (infinity, behind the litellm gateway) in a database with
pgvector, so the vector index gets its HNSW index; a paraphrased question is
answered through it by the local model, with its source.  The fixtures:
tests/real/real_fixtures.py; the same documents as test_real_vector_index.py."""

from __future__ import annotations

import json

import pytest
from helpers import generate
from real.real_fixtures import gateway, gateway_profile, local_embeddings, local_model  # noqa: F401
from real.test_real_vector_index import handbook_table

pytestmark = pytest.mark.real


def test_narrate_retrieves_through_hnsw_by_meaning(db, alice, gateway, local_model, local_embeddings):
    assert db.admin.execute("select count(*) from pg_available_extensions where name = 'vector'"
                            ).fetchone()[0] == 1, "pgvector is not installed (make deps)"
    db.admin.execute("create extension vector")
    conn = gateway_profile(db, alice, gateway, "openai", local_model.name)
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'embedding_model', %s)",
                 (local_embeddings.name,))
    handbook_table(db)
    conn.execute("select dbms_cloud_ai.create_vector_index('HANDBOOK', %s)", (json.dumps(
        {"location": "table:alice.handbook(id, body)", "profile_name": "P", "match_limit": 1}),))
    conn.execute("call dbms_cloud_ai.maintain_vector_indexes('HANDBOOK')")   # builds the HNSW index
    [(name, dims)] = conn.execute("""
        select c.relname::text, split_part(c.relname::text, '_', 5)::int
          from pg_class c where c.relname like 'vector\\_chunk\\_ann\\_%'""").fetchall()
    assert dims == 384                                   # all-MiniLM-L6-v2's dimensions
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'vector_index_name', 'HANDBOOK')")
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'enable_sources', 'true')")
    conn.execute("set enable_seqscan = off")             # three chunks: make it take the index
    with conn.transaction():
        # the question shares no word with the answer's chunk
        answer = generate(conn, "How long before my vacation should I put in the request?", "P",
                          "narrate")
        assert conn.execute("select pg_stat_get_xact_numscans(%s::regclass)",
                            (f"dbms_cloud_ai.{name}",)).fetchone()[0] == 1
    assert "alice.handbook:1" in answer, answer          # the holidays chunk, found by meaning
    [(source, similarity)] = conn.execute(
        "select source_id, similarity from dbms_cloud_ai.user_cloud_ai_message_sources "
        "where source_kind = 'document'").fetchall()
    assert source.endswith("alice.handbook:1#0") and similarity > 0.2, (source, similarity)
