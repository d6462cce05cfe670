"""Vector indexes against real servers (issue 19): documents embedded by all-MiniLM-L6-v2
(infinity), a question whose words mostly miss the answer's chunk found by meaning, and the
local model answering from it with its source.  Twice: through the litellm gateway, where
one base URL serves chat and embeddings; and with no gateway, the narrate profile on the
local model's llama.cpp server (which does not embed) and the index's profile on the
embedding server, which embeds the question too.  The fixtures: tests/real/real_fixtures.py."""

from __future__ import annotations

import json

import pytest
from helpers import generate
from real.real_fixtures import (  # noqa: F401 - fixtures
    embedder,
    gateway,
    gateway_profile,
    local_embeddings,
    local_model,
    real,
)

pytestmark = pytest.mark.real

HANDBOOK = {
    1: "Holidays: staff ask for holidays at least four weeks ahead, through the shift planner.",
    2: "Returns: unworn shoes come back within 60 days with the receipt. Worn trail shoes "
       "come back within 14 days, only if they failed.",
    3: "Parking: the staff car park behind the warehouse opens at 6 in the morning.",
}


def handbook_table(db) -> None:
    """alice's table of HANDBOOK rows."""
    db.admin.execute("create table alice.handbook (id int primary key, body text not null)")
    db.admin.execute("grant select on alice.handbook to alice")
    for k, body in HANDBOOK.items():
        db.admin.execute("insert into alice.handbook values (%s, %s)", (k, body))


def index_handbook(db, conn, profile: str, embedding_model: str) -> None:
    """alice's table of HANDBOOK rows, indexed as HANDBOOK through ``profile``."""
    handbook_table(db)
    conn.execute("select dbms_cloud_ai.create_vector_index('HANDBOOK', %s)", (json.dumps(
        {"location": "table:alice.handbook(id, body)", "profile_name": profile, "match_limit": 2}),))
    assert conn.execute("select chunks, embedding_model from dbms_cloud_ai.user_cloud_vector_indexes"
                        ).fetchone() == (3, embedding_model)


def ask_about_worn_shoes(conn) -> None:
    """P narrates from HANDBOOK: the answer of chunk 2, with its source."""
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'vector_index_name', 'HANDBOOK')")
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'enable_sources', 'true')")
    answer = generate(conn, "How many days do I have to send back running shoes I wore?", "P",
                      "narrate")
    assert "14" in answer, answer
    assert "alice.handbook:2" in answer, answer            # the sources, listed
    [(source, similarity)] = conn.execute(
        "select source_id, similarity from dbms_cloud_ai.user_cloud_ai_message_sources "
        "where source_kind = 'document' order by similarity desc limit 1").fetchall()
    assert source.endswith("alice.handbook:2#0") and similarity > 0.3, (source, similarity)


def test_narrate_answers_from_the_indexed_document_with_its_source(db, alice, gateway, local_model,
                                                                  local_embeddings):
    conn = gateway_profile(db, alice, gateway, "openai", local_model.name)
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'embedding_model', %s)",
                 (local_embeddings.name,))
    index_handbook(db, conn, "P", local_embeddings.name)
    ask_about_worn_shoes(conn)


def test_narrate_on_a_chat_only_server_embeds_through_the_index_profile(db, real, embedder,
                                                                         local_embeddings):
    """P on llama.cpp (no /v1/embeddings), the index on E (the embedding server), no gateway:
    the question is embedded through E, the index's profile, and P answers."""
    index_handbook(db, real, "E", local_embeddings.name)
    ask_about_worn_shoes(real)
    assert real.execute("select purpose, model from dbms_cloud_ai.user_cloud_ai_calls "
                        "where action = 'NARRATE' and status = 'ok' order by purpose").fetchall()[0] \
        == ("embedding", local_embeddings.name)


def test_narrate_answers_from_the_rows_of_a_query_source(db, alice, gateway, local_model,
                                                         local_embeddings):
    """location query:...: only the rows the query returns are indexed (its WHERE
    leaves out the returns policy), run as generated SQL runs (gateway_profile
    sets the statement_timeout it needs)."""
    conn = gateway_profile(db, alice, gateway, "openai", local_model.name)
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'embedding_model', %s)",
                 (local_embeddings.name,))
    handbook_table(db)
    conn.execute("select dbms_cloud_ai.create_vector_index('POLICIES', %s)", (json.dumps(
        {"location": "query:select id, body from alice.handbook where id <> 2",
         "profile_name": "P", "match_limit": 1}),))
    assert conn.execute("select chunks from dbms_cloud_ai.user_cloud_vector_indexes").fetchone() == (2,)
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'vector_index_name', 'POLICIES')")
    conn.execute("select dbms_cloud_ai.set_attribute('P', 'enable_sources', 'true')")
    answer = generate(conn, "At what time in the morning can staff park their car?", "P",
                      "narrate")
    assert "6" in answer, answer
    assert "query:3" in answer, answer
