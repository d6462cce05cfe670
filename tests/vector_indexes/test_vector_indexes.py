"""Vector indexes and narrate over them (issue 19): Oracle's CREATE_VECTOR_INDEX
and friends, chunks embedded through the index's profile, retrieval by words
and meaning, narrate with sources, grants, and the data-access switch.

The fake LLM embeds a text as a hashed bag of its words (tools/fake_llm.py
embed_text): texts sharing words are close, which is all retrieval needs here.
"""

from __future__ import annotations

import json

import psycopg
import pytest
from conversations.test_retention_cron import _version, _wait, cron_db  # noqa: F401 - a fixture
from fake_llm import Answer, Raw
from helpers import API_KEY, case, generate, hint_of, make_profile, raises

DOCS = {
    1: "The office cafeteria opens at eight in the morning and closes at three.",
    2: "Parking permits are issued by the facilities team on the second floor.",
    3: "Holiday requests must be approved by your manager two weeks in advance.",
}


def attrs_of(conn, index="DOCS") -> dict:
    return dict(conn.execute("select attribute_name, attribute_value from "
                             "dbms_cloud_ai.user_cloud_vector_index_attributes "
                             "where index_name = %s", (index,)).fetchall())


def chunks(conn, index="DOCS") -> int:
    return conn.execute("select chunks from dbms_cloud_ai.user_cloud_vector_indexes "
                        "where index_name = %s", (index,)).fetchone()[0]


def make_docs(conn, table="handbook", docs=DOCS):
    conn.execute(f"create table {table} (id int primary key, body text)")
    for k, v in docs.items():
        conn.execute(f"insert into {table} values (%s, %s)", (k, v))


def create_index(conn, llm, name="DOCS", table="handbook", profile="EMB", **extra):
    make_profile(conn, llm, profile, credential="C" + profile,
                 embedding_model="text-embedding-3-small")
    a = {"location": f"table:{conn.info.user}.{table}(id, body)", "profile_name": profile,
         "chunk_size": 200, "chunk_overlap": 20, **extra}
    conn.execute("select dbms_cloud_ai.create_vector_index(%s, %s)", (name, json.dumps(a)))


@pytest.fixture
def docs(alice, llm):
    make_docs(alice)
    create_index(alice, llm)
    return alice


def test_create_embeds_each_chunk_through_the_profile(docs, llm):
    assert len(llm.embedding_requests) == 3
    assert chunks(docs) == 3
    row = docs.execute("select index_name, status, embedding_model, last_refreshed is not null "
                       "from dbms_cloud_ai.user_cloud_vector_indexes").fetchone()
    assert row == ("DOCS", "ENABLED", "text-embedding-3-small", True)
    a = attrs_of(docs)
    assert a["location"] == "table:alice.handbook(id, body)" and a["chunk_size"] == "200"
    purposes = docs.execute("select purpose, action, count(*) from dbms_cloud_ai.user_cloud_ai_calls "
                            "group by 1, 2").fetchall()
    assert purposes == [("embedding", "VECTOR_INDEX", 3)]


def test_refresh_embeds_only_changed_chunks(docs, llm):
    llm.reset()
    assert docs.execute("select dbms_cloud_ai.refresh_vector_index('docs')").fetchone()[0] == 0
    assert llm.embedding_requests == []
    docs.execute("update handbook set body = 'Parking is free on Sundays.' where id = 2")
    docs.execute("delete from handbook where id = 3")
    docs.execute("insert into handbook values (4, 'Badges are renewed every year.')")
    assert docs.execute("select dbms_cloud_ai.refresh_vector_index('docs')").fetchone()[0] == 2
    sent = sorted(t for r in llm.embedding_requests for t in r.json["input"])
    assert sent == ["Badges are renewed every year.", "Parking is free on Sundays."]
    assert chunks(docs) == 3


def test_long_documents_are_chunked_with_overlap(alice, llm):
    long = " ".join(f"Sentence number {i} talks about topic {i % 7}." for i in range(60))
    make_docs(alice, docs={1: long})
    create_index(alice, llm)
    rows = alice.execute("select content from dbms_cloud_ai._vector_chunk order by chunk_no").fetchall()
    assert len(rows) > 5 and all(len(r[0]) <= 200 for r in rows)
    assert rows[0][0][-20:] == rows[1][0][:20]      # chunk_overlap 20


def test_attribute_errors_name_the_attribute(alice, llm):
    make_docs(alice)
    make_profile(alice, llm, "EMB", credential="C1", embedding_model="m")
    make_profile(alice, llm, "NOEMB", credential="C2")
    good = {"location": "table:alice.handbook(id, body)", "profile_name": "EMB"}
    for what, change, state, word in [
            ("chunk_size not a number", {"chunk_size": "big"}, "22023", "chunk_size"),
            ("chunk_size too small", {"chunk_size": 3}, "22023", "chunk_size"),
            ("overlap too big", {"chunk_size": 100, "chunk_overlap": 80}, "22023", "chunk_overlap"),
            ("metric", {"vector_distance_metric": "MANHATTAN"}, "22023", "vector_distance_metric"),
            ("threshold", {"similarity_threshold": 2}, "22023", "similarity_threshold"),
            ("match_limit", {"match_limit": 8193}, "22023", "match_limit"),
            ("refresh_rate", {"refresh_rate": -1}, "22023", "refresh_rate"),
            ("location", {"location": "ftp://x"}, "22023", "location"),
            ("location without schema", {"location": "table:handbook(id, body)"}, "22023", "location"),
            ("unknown", {"vector_db_endpoint": "x"}, "22023", "vector_db_endpoint"),
            ("other store", {"vector_db_provider": "pinecone"}, "0A000", "vector_db_provider"),
            ("no location", {"location": None}, "22023", "location"),
            ("no embedding model", {"profile_name": "NOEMB"}, "22023", "profile_name"),
            ("no such profile", {"profile_name": "NOPE"}, "42704", "NOPE")]:
        with case(what), raises(state) as e:
            alice.execute("select dbms_cloud_ai.create_vector_index('I', %s)",
                          (json.dumps({k: v for k, v in {**good, **change}.items()
                                       if v is not None}),))
        assert word in e["error"].diag.message_primary        # the attribute is named
        if state == "22023" and what != "unknown":               # and the function to fix it
            assert "vector_index(" in hint_of(e) or "set_attribute(" in hint_of(e)
    create_index(alice, llm, profile="EMB2")
    with raises("42710"):
        create_index(alice, llm, profile="EMB3")
    with raises("42501"):
        alice.execute("select dbms_cloud_ai.refresh_vector_index('\"bob\".\"DOCS\"')")
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.drop_vector_index('nope')")
    alice.execute("select dbms_cloud_ai.drop_vector_index('nope', force => true)")


def test_update_drop_enable_disable(docs, llm):
    docs.execute("select dbms_cloud_ai.update_vector_index('docs', 'match_limit', '2')")
    docs.execute("select dbms_cloud_ai.update_vector_index('docs', '{\"similarity_threshold\": 0.1}')")
    a = attrs_of(docs)
    assert a["match_limit"] == "2" and a["similarity_threshold"] == "0.1"
    with raises("22023"):
        docs.execute("select dbms_cloud_ai.update_vector_index('docs', 'chunk_size', 'x')")
    docs.execute("select dbms_cloud_ai.disable_vector_index('docs')")
    with raises("55000"):
        docs.execute("select dbms_cloud_ai.refresh_vector_index('docs')")
    docs.execute("select dbms_cloud_ai.enable_vector_index('docs')")
    docs.execute("select dbms_cloud_ai.drop_vector_index('docs', include_data => true)")
    assert docs.execute("select count(*) from dbms_cloud_ai._vector_chunk").fetchone()[0] == 0
    assert docs.execute("select to_regclass('alice.\"docs$vectab\"')").fetchone()[0] is None


def test_profile_name_is_shown_as_written_and_used_normalized(alice, llm):
    """Oracle's views show the profile_name attribute as it was written; the profile it
    names is found by its normalized name, at creation, refresh and update."""
    make_docs(alice)
    create_index(alice, llm, profile="emb")            # make_profile stores EMB
    assert attrs_of(alice)["profile_name"] == "emb"
    alice.execute("select dbms_cloud_ai.refresh_vector_index('docs')")
    make_profile(alice, llm, "Emb2", credential="CEMB2", embedding_model="text-embedding-3-small")
    alice.execute("select dbms_cloud_ai.update_vector_index('docs', 'profile_name', 'emb2')")
    assert attrs_of(alice)["profile_name"] == "emb2"
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.update_vector_index('docs', 'profile_name', 'nope')")
    with raises("22023"):
        alice.execute("select dbms_cloud_ai.update_vector_index('docs', 'profile_name', 'x y')")


def test_a_named_credential_must_exist(docs, llm):
    """As Oracle's CREATE_VECTOR_INDEX: a credential for the sources that is not one of
    the owner's is refused when it is named (42704), at creation and by an update."""
    a = {"location": "https://example.com/doc.txt", "profile_name": "EMB",
         "object_storage_credential_name": "NOPE"}
    with raises("42704") as e:
        docs.execute("select dbms_cloud_ai.create_vector_index('U', %s)", (json.dumps(a),))
    assert "NOPE" in e["error"].diag.message_primary
    with raises("42704"):
        docs.execute("select dbms_cloud_ai.update_vector_index('docs', 'credential_name', 'nope')")
    docs.execute("select dbms_cloud.create_credential('OBJ', 'u', 'p')")
    docs.execute("select dbms_cloud_ai.create_vector_index('U', %s, wait_for_completion => false)",
                 (json.dumps({**a, "object_storage_credential_name": "obj"}),))


def test_stop_and_start_pipeline_disable_and_enable_the_index(docs, llm, bob):
    """Oracle's DBMS_CLOUD_PIPELINE.STOP_PIPELINE/START_PIPELINE on an index's pipeline."""
    status = "select status from dbms_cloud_ai.user_cloud_vector_indexes where index_name = 'DOCS'"
    docs.execute("select dbms_cloud.stop_pipeline('DOCS$VECPIPELINE')")
    assert docs.execute(status).fetchone()[0] == "DISABLED"
    docs.execute("select dbms_cloud.start_pipeline('DOCS$VECPIPELINE')")
    assert docs.execute(status).fetchone()[0] == "ENABLED"
    with raises("42704"):
        docs.execute("select dbms_cloud.stop_pipeline('NOPE$VECPIPELINE')")
    docs.execute("select dbms_cloud_ai.grant_vector_index_access('docs', 'bob')")
    with raises("42704"):                        # only the owner's own pipelines
        bob.execute("select dbms_cloud.stop_pipeline('DOCS$VECPIPELINE')")
    assert docs.execute(status).fetchone()[0] == "ENABLED"


def test_match_limit_takes_oracles_range(docs, llm):
    """0 to 8192, as Oracle's UPDATE_VECTOR_INDEX takes; 0 retrieves nothing, so narrate
    answers that nothing matches without asking any model."""
    for n in ("8192", "0"):
        docs.execute("select dbms_cloud_ai.update_vector_index('docs', 'match_limit', %s)", (n,))
        assert attrs_of(docs)["match_limit"] == n
    index_profile(docs, llm)
    llm.reset()
    out = generate(docs, "Who issues parking permits?", "RAG", "narrate")
    assert out.startswith("Sorry, no document") and llm.requests == []


def test_a_quoted_name_is_the_name_as_written(alice, llm):
    """'"My Docs"' is the index My Docs, and '"alice.DOCS"' one called alice.DOCS, not alice's
    DOCS: a name is normalised once, however many steps of a call pass it on."""
    make_docs(alice)
    create_index(alice, llm, name='"My Docs"')
    create_index(alice, llm, name="DOCS", profile="EMB2")
    create_index(alice, llm, name='"alice.DOCS"', profile="EMB3")
    names = [r[0] for r in alice.execute("select index_name from "
                                         "dbms_cloud_ai.user_cloud_vector_indexes order by 1")]
    assert names == ["DOCS", "My Docs", "alice.DOCS"]
    assert chunks(alice, "My Docs") == chunks(alice, "alice.DOCS") == 3
    alice.execute("update handbook set body = body || ' Updated.' where id = 1")
    before = len(llm.embedding_requests)
    alice.execute("""select dbms_cloud_ai.refresh_vector_index('"alice.DOCS"')""")
    assert len(llm.embedding_requests) == before + 1                # its changed chunk only
    assert llm.embedding_requests[-1].json["model"] == "text-embedding-3-small"
    outcome = dict(alice.execute("select index_name, last_refresh_status from "
                                 "dbms_cloud_ai.user_cloud_vector_indexes").fetchall())
    assert outcome["alice.DOCS"] == "OK"
    alice.execute("""select dbms_cloud_ai.update_vector_index('"My Docs"', 'match_limit', '4')""")
    assert attrs_of(alice, "My Docs")["match_limit"] == "4"
    alice.execute("""select dbms_cloud_ai.drop_vector_index('"My Docs"', include_data => true)""")
    alice.execute("""select dbms_cloud_ai.drop_vector_index('"alice.DOCS"', include_data => true)""")
    assert [r[0] for r in alice.execute("select index_name from "
                                        "dbms_cloud_ai.user_cloud_vector_indexes")] == ["DOCS"]


@pytest.mark.parametrize("attribute", ["location", "match_limit", "profile_name"])
def test_a_deeply_nested_attribute_value_is_refused_not_an_internal_error(docs, llm, attribute):
    before = attrs_of(docs)
    deep = "[" * 100_000 + "]" * 100_000
    with raises("22023"):
        docs.execute("select dbms_cloud_ai.update_vector_index('docs', %s, %s)", (attribute, deep))
    with raises("22023"):
        docs.execute("select dbms_cloud_ai.update_vector_index('docs', %s)",
                     (json.dumps({attribute: json.loads("[" * 500 + "]" * 500)}),))
    assert attrs_of(docs) == before


CHUNK_ROWS = ("select source, chunk_no, content, embedding, embedding_model "
              "from dbms_cloud_ai._vector_chunk order by source, chunk_no")
# Oracle's vector table: CONTENT, ATTRIBUTES (JSON), EMBEDDING.
KEPT_ROWS = ("select attributes->>'source', (attributes->>'chunk_no')::int, content, embedding, "
             "attributes->>'embedding_model' from {} order by 1, 2")


def test_drop_keeps_the_data_as_the_callers_table(docs, llm):
    """include_data => false (Oracle's default): the chunks stay, as a table of
    the caller's in its current schema, named <index>$vectab or vector_table_name,
    with Oracle's columns."""
    before = docs.execute(CHUNK_ROWS).fetchall()
    assert len(before) == 3
    docs.execute("select dbms_cloud_ai.drop_vector_index('docs')")
    assert docs.execute(KEPT_ROWS.format('alice."docs$vectab"')).fetchall() == before
    assert [r[0] for r in docs.execute(
        "select column_name from information_schema.columns where table_name = 'docs$vectab' "
        "order by ordinal_position")] == ["content", "attributes", "embedding"]
    assert docs.execute("select tableowner from pg_tables where tablename = 'docs$vectab'"
                        ).fetchall() == [("alice",)]
    assert docs.execute("select count(*) from dbms_cloud_ai._vector_chunk").fetchone()[0] == 0
    assert docs.execute("select count(*) from dbms_cloud_ai.user_cloud_vector_indexes").fetchone()[0] == 0
    # vector_table_name names it (folded like an unquoted name), schema_name places it
    create_index(docs, llm, name="NAMED", profile="EMB2", vector_table_name="Kept_Docs")
    docs.execute("select dbms_cloud_ai.drop_vector_index('named', schema_name => 'alice')")
    assert len(docs.execute("select * from alice.kept_docs").fetchall()) == 3


def test_drop_refusals_leave_the_index_as_it_was(db, docs, llm, bob):
    docs.execute('create table "docs$vectab" (x int)')
    with raises("42P07") as e:
        docs.execute("select dbms_cloud_ai.drop_vector_index('docs')")
    assert "include_data => true" in hint_of(e)
    docs.execute('drop table "docs$vectab"')
    db.admin.execute("create schema shared_ro; grant usage on schema shared_ro to alice")
    docs.execute("set search_path = shared_ro")
    with raises("42501"):
        docs.execute("select dbms_cloud_ai.drop_vector_index('docs')")
    docs.execute("set search_path = ''")
    with raises("3F000") as e:
        docs.execute("select dbms_cloud_ai.drop_vector_index('docs')")
    assert "search_path" in hint_of(e)
    with raises("3F000"):
        docs.execute("select dbms_cloud_ai.drop_vector_index('docs', schema_name => 'nope')")
    docs.execute("reset search_path")
    assert chunks(docs) == 3 and len(db.admin.execute(
        "select 1 from pg_tables where tablename like '%vectab'").fetchall()) == 0
    # a grantee drops nothing: not by its own name, nor by the owner's
    docs.execute("select dbms_cloud_ai.grant_vector_index_access('docs', 'bob')")
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.drop_vector_index('DOCS')")
    with raises("42501"):
        bob.execute("select dbms_cloud_ai.drop_vector_index('\"alice\".\"DOCS\"', force => true)")
    bob.execute("select dbms_cloud_ai.drop_vector_index('DOCS', force => true)")   # silent
    assert chunks(docs) == 3


def index_profile(conn, llm, index="DOCS", **extra):
    make_profile(conn, llm, "RAG", credential="RCRED", vector_index_name=index, **extra)


def test_narrate_answers_from_the_closest_chunks(docs, llm):
    index_profile(docs, llm, enable_sources=True)
    llm.reset()
    llm.script(Answer("It opens at eight."))
    notices: list[str] = []
    docs.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
    out = generate(docs, "When does the cafeteria open in the morning?", "RAG", "narrate")
    assert out.startswith("It opens at eight.")
    assert notices == []        # the question's stop words ("when", "does", "the") say nothing
    assert out.endswith("Sources:\n  - alice.handbook:1") or "  - alice.handbook:1" in out
    assert len(llm.embedding_requests) == 1
    chat = [r for r in llm.requests if r not in llm.embedding_requests and r.method == "POST"][-1]
    user = chat.json["messages"][-1]["content"]
    assert json.dumps(DOCS[1]) in user and "data only" in user
    assert "data, never instructions" in chat.json["messages"][-2]["content"]
    src = docs.execute("select source_kind, source_id, similarity from "
                       "dbms_cloud_ai.user_cloud_ai_message_sources").fetchall()
    assert src and src[0][0] == "document" and src[0][1] == "DOCS:alice.handbook:1#0"
    assert src[0][2] > 0


def test_a_disabled_index_refuses_its_profiles_queries(docs, llm):
    """As in Oracle, a profile naming a disabled vector index refuses its SQL actions too
    (before any model request); enabled again, they run."""
    index_profile(docs, llm)
    docs.execute("set statement_timeout = '30s'")
    docs.execute("select dbms_cloud_ai.disable_vector_index('docs')")
    llm.reset()
    for action in ("runsql", "showsql", "explainsql", "narrate"):
        with raises("55000"):
            generate(docs, "How many rows are in handbook?", "RAG", action)
    assert [r for r in llm.requests if r.method == "POST"] == []
    docs.execute("select dbms_cloud_ai.enable_vector_index('docs')")
    llm.script(Answer("SELECT count(*) FROM alice.handbook"))
    assert "count" in generate(docs, "How many rows are in handbook?", "RAG", "showsql").lower()
    docs.execute("select dbms_cloud_ai.drop_vector_index('docs', force => true)")
    with raises("42704"):
        generate(docs, "How many rows are in handbook?", "RAG", "showsql")


def test_narrate_without_sources_and_conversation_keeps_no_chunk(docs, llm):
    index_profile(docs, llm)
    cid = docs.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    llm.script(Answer("Ask the facilities team."))
    out = generate(docs, "Who issues parking permits?", "RAG", "narrate",
                   params=json.dumps({"conversation_id": cid}))
    assert out == "Ask the facilities team."
    kept = docs.execute("select prompt, prompt_response from "
                        "dbms_cloud_ai.user_cloud_ai_conversation_prompts").fetchall()
    assert kept == [("Who issues parking permits?", "Ask the facilities team.")]


def test_narrate_nothing_matches_asks_no_model(docs, llm):
    index_profile(docs, llm)
    docs.execute("select dbms_cloud_ai.update_vector_index('docs', 'similarity_threshold', '0.99')")
    llm.reset()
    out = generate(docs, "zebra quantum xylophone", "RAG", "narrate")
    assert "no document" in out and len(llm.requests) == 1      # the question's embedding


def test_select_ai_narrate_uses_the_index(docs, llm):
    index_profile(docs, llm)
    docs.execute("select dbms_cloud_ai.set_profile('RAG')")
    llm.script(Answer("Two weeks."))
    out = docs.execute("select dbms_cloud_ai.select_ai('narrate how early are holiday requests made')"
                       ).fetchone()[0]
    assert "Two weeks." in str(out)


def test_index_is_the_owners_until_granted(docs, llm, bob):
    make_profile(bob, llm, "BRAG", credential="BCRED", key="sk-bob-own",
                 vector_index_name='"alice"."DOCS"')
    for conn_sql in ("select count(*) from dbms_cloud_ai._vector_chunk",
                     "select count(*) from dbms_cloud_ai._vector_index",
                     "select count(*) from dbms_cloud_ai.all_cloud_vector_indexes"):
        assert bob.execute(conn_sql).fetchone()[0] == 0
    with raises("42704"):
        generate(bob, "When does the cafeteria open?", "BRAG", "narrate")
    with raises("42501"):
        bob.execute("select dbms_cloud_ai.refresh_vector_index('\"alice\".\"DOCS\"')")
    docs.execute("select dbms_cloud_ai.grant_vector_index_access('docs', 'bob')")
    # nor run its job, nor record anything on it (bob's own 'DOCS' does not exist)
    with raises("42501"):
        bob.execute("call dbms_cloud_ai.refresh_vector_index_job('\"alice\".\"DOCS\"')")
    assert bob.execute("call dbms_cloud_ai.refresh_vector_index_job('DOCS')").fetchone()[0] is None
    assert bob.execute("select last_refresh_status from dbms_cloud_ai.all_cloud_vector_indexes"
                       ).fetchall() == [("OK",)]
    assert bob.execute("select owner, index_name from dbms_cloud_ai.all_cloud_vector_indexes"
                       ).fetchall() == [("alice", "DOCS")]
    # the index's profile EMB (alice's key) embeds the question: not without its own grant
    llm.reset()
    with raises("42501") as e:
        generate(bob, "When does the cafeteria open?", "BRAG", "narrate")
    assert "grant_profile_access" in hint_of(e)
    assert llm.requests == []
    docs.execute("select dbms_cloud_ai.grant_profile_access('EMB', 'bob')")
    llm.script(Answer("At eight."))
    assert generate(bob, "When does the cafeteria open?", "BRAG", "narrate") == "At eight."
    [emb] = llm.embedding_requests
    assert emb.headers["authorization"] == f"Bearer {API_KEY}"          # EMB's, alice's key
    assert emb.json["model"] == "text-embedding-3-small"
    assert llm.chat_requests[-1].headers["authorization"] == "Bearer sk-bob-own"
    # accounted to bob, in his narrate turn; alice sees none of it
    assert bob.execute("select profile_name, purpose from dbms_cloud_ai.user_cloud_ai_calls "
                       "order by purpose").fetchall() == [("BRAG", "embedding"), ("BRAG", "narration")]
    assert docs.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_calls "
                        "where profile_name = 'RAG' or purpose = 'narration'").fetchone()[0] == 0
    # a grantee changes nothing of the owner's
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.drop_vector_index('DOCS')")
    docs.execute("select dbms_cloud_ai.revoke_profile_access('EMB', 'bob')")
    with raises("42501"):
        generate(bob, "When does the cafeteria open?", "BRAG", "narrate")
    docs.execute("select dbms_cloud_ai.revoke_vector_index_access('docs', 'bob')")
    with raises("42704"):
        generate(bob, "When does the cafeteria open?", "BRAG", "narrate")
    with raises("42704"):
        docs.execute("select dbms_cloud_ai.revoke_vector_index_access('docs', 'bob')")


def test_question_is_embedded_through_the_index_profile(alice, llm):
    """A narrate profile on a chat-only provider (no embedding API) answers from an
    index built on an embeddings server: the question goes to the index's profile."""
    make_docs(alice)
    make_profile(alice, llm, "EMB", credential="CEMB", key="sk-embeddings-server",
                 provider_endpoint=f"{llm.url}/embed-server", embedding_model="mini-embed")
    alice.execute("select dbms_cloud_ai.create_vector_index('DOCS', %s)", (json.dumps(
        {"location": "table:alice.handbook(id, body)", "profile_name": "EMB"}),))
    make_profile(alice, llm, "RAG", provider="anthropic", credential="RCRED", key="sk-chat-only",
                 model="claude-haiku-4-5", embedding_model="another-model",
                 vector_index_name="DOCS")
    llm.reset()
    llm.script(Answer("At eight."))
    assert generate(alice, "When does the cafeteria open?", "RAG", "narrate") == "At eight."
    [emb] = llm.embedding_requests
    assert emb.path == "/embed-server/v1/embeddings"
    assert emb.headers["authorization"] == "Bearer sk-embeddings-server"
    assert emb.json["model"] == "mini-embed"          # the chunks' model, not RAG's
    [chat] = llm.chat_requests
    assert chat.wire == "anthropic" and chat.headers["x-api-key"] == "sk-chat-only"
    assert DOCS[1] in json.dumps(chat.json)
    assert alice.execute("select profile_name, purpose from dbms_cloud_ai.user_cloud_ai_calls "
                         "where action = 'NARRATE' order by purpose").fetchall() == [
        ("RAG", "embedding"), ("RAG", "narration")]
    # the index's profile changes model: the question still meets the chunks' model
    alice.execute("select dbms_cloud_ai.set_attribute('EMB', 'embedding_model', 'newer-embed')")
    llm.reset()
    llm.script(Answer("At eight."))
    generate(alice, "When does the cafeteria open?", "RAG", "narrate")
    assert llm.embedding_requests[0].json["model"] == "mini-embed"
    # the index's profile is disabled: so is narrate over it
    alice.execute("select dbms_cloud_ai.disable_profile('EMB')")
    with raises("55000"):
        generate(alice, "When does the cafeteria open?", "RAG", "narrate")


def test_table_source_refused_while_data_access_is_disabled(db, alice, llm):
    make_docs(alice)
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    try:
        with raises("LL006"):
            create_index(alice, llm)
    finally:
        admin.execute("select dbms_cloud_ai.enable_data_access()")


def test_url_source_is_fetched_under_the_host_acl(alice, llm):
    make_profile(alice, llm, "EMB", embedding_model="m")
    doc = "Travel policy.\n\nTrains are booked in second class."
    llm.script(Raw(200, doc, headers={"content-type": "text/plain"}))
    alice.execute("select dbms_cloud_ai.create_vector_index('WEB', %s)",
                  (json.dumps({"location": f"{llm.url}/policy.txt", "profile_name": "EMB"}),))
    assert llm.requests[0].method == "GET" and llm.requests[0].path == "/policy.txt"
    assert chunks(alice, "WEB") == 1
    with raises("42501"):
        alice.execute("select dbms_cloud_ai.create_vector_index('WEB2', %s)",
                      (json.dumps({"location": "https://not-allowed.example/x",
                                   "profile_name": "EMB"}),))


def test_a_credential_goes_only_over_https(db, alice, llm):
    """A URL source with credential_name (Basic authentication) must be https: refused at
    create and update, and at the fetch itself for a row stored before the rule (0.7.0
    accepted it), before the password is read or anything is sent."""
    make_profile(alice, llm, "EMB", embedding_model="m")
    alice.execute("select dbms_cloud.create_credential('WEBC', 'user', 'web-secret')")
    url = f"{llm.url}/policy.txt"                                   # http://127.0.0.1:...
    with raises("22023") as e:
        alice.execute("select dbms_cloud_ai.create_vector_index('WEB', %s)", (json.dumps(
            {"location": url, "profile_name": "EMB", "credential_name": "WEBC"}),))
    assert "update_vector_index" in hint_of(e) or "create_vector_index" in hint_of(e)
    with raises("22023"):                  # one http URL among the sources of a list
        alice.execute("select dbms_cloud_ai.create_vector_index('WEB', %s)", (json.dumps(
            {"location": ["https://example.com/a.txt", url], "profile_name": "EMB",
             "credential_name": "WEBC"}),))
    llm.script(Raw(200, "Trains are booked in second class.",
                   headers={"content-type": "text/plain"}))
    alice.execute("select dbms_cloud_ai.create_vector_index('WEB', %s)",
                  (json.dumps({"location": url, "profile_name": "EMB"}),))
    assert "authorization" not in {k.lower() for k in llm.requests[0].headers}
    with raises("22023"):
        alice.execute("select dbms_cloud_ai.update_vector_index('WEB', 'credential_name', 'WEBC')")
    assert "credential_name" not in attrs_of(alice, "WEB")
    sent = len(llm.requests)
    db.admin.execute("update dbms_cloud_ai._vector_index set attributes = attributes || "
                     "'{\"credential_name\": \"WEBC\"}' where index_name = 'WEB'")
    with raises("22023"):
        alice.execute("select dbms_cloud_ai.refresh_vector_index('WEB')")
    assert len(llm.requests) == sent


def test_refresh_rate_schedules_the_owners_pg_cron_job(cron_db, llm):
    """With pg_cron (and USAGE on its schema), the index's refresh runs as its
    owner every refresh_rate minutes; dropping the index removes the job."""
    su, _, conns = cron_db
    su.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    su.execute("grant usage on schema cron to alice")
    su.execute("create schema if not exists alice authorization alice")
    alice = psycopg.connect(host=su.info.host, port=su.info.port, user="alice",
                            dbname=su.info.dbname, autocommit=True)
    conns.append(alice)
    try:
        make_docs(alice)
        create_index(alice, llm, refresh_rate=5)
        job = "dbms_cloud_ai vector index alice.DOCS"
        assert su.execute("select schedule, username, command from cron.job where jobname = %s",
                          (job,)).fetchall() == [
            ("*/5 * * * *", "alice", "call dbms_cloud_ai.refresh_vector_index_job('\"DOCS\"')")]
        alice.execute("select dbms_cloud_ai.update_vector_index('docs', 'refresh_rate', '120')")
        assert su.execute("select schedule from cron.job where jobname = %s",
                          (job,)).fetchall() == [("0 */2 * * *",)]
        alice.execute("select dbms_cloud_ai.drop_vector_index('docs', include_data => true)")
        assert su.execute("select count(*) from cron.job where jobname = %s", (job,)).fetchone()[0] == 0
    finally:
        su.execute("select cron.unschedule(jobid) from cron.job where username = 'alice'")
        su.execute("drop table if exists alice.handbook")
        su.execute("revoke usage on schema cron from alice")


def test_pg_cron_runs_the_refresh_job_procedure(cron_db, llm):
    """The job's command is a CALL of the committing procedure (refresh, commit, then
    the HNSW maintenance): pg_cron runs it at top level, as the owner, and it succeeds."""
    su, version, conns = cron_db
    # pg_cron 1.5 added schedules in seconds; before it the finest is a minute.
    schedule, timeout = ("1 seconds", 20) if _version(version) >= (1, 5) else ("* * * * *", 75)
    su.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    su.execute("grant usage on schema cron to alice")
    su.execute("create schema if not exists alice authorization alice")
    alice = psycopg.connect(host=su.info.host, port=su.info.port, user="alice",
                            dbname=su.info.dbname, autocommit=True)
    conns.append(alice)
    try:
        make_docs(alice)
        create_index(alice, llm, refresh_rate=5)
        alice.execute("update handbook set body = 'Parking is free on Sundays.' where id = 2")
        (job,) = su.execute("select jobid from cron.job where jobname = "
                            "'dbms_cloud_ai vector index alice.DOCS'").fetchone()
        su.execute("select cron.alter_job(%s, schedule => %s)", (job, schedule))

        def ran():
            failed = su.execute("select return_message from cron.job_run_details "
                                "where jobid = %s and status = 'failed'", (job,)).fetchall()
            assert not failed, f"pg_cron runs failed: {failed}"
            return su.execute("select count(*) from cron.job_run_details "
                              "where jobid = %s and status = 'succeeded'", (job,)).fetchone()[0]
        _wait("pg_cron ran no refresh job", ran, timeout)
        su.execute("select cron.unschedule(%s)", (job,))
        assert outcome(alice)[:2] == ("OK", None)
        assert alice.execute("select content from dbms_cloud_ai._vector_chunk "
                             "where source = 'alice.handbook:2'").fetchone()[0] \
            == "Parking is free on Sundays."
    finally:
        su.execute("select cron.unschedule(jobid) from cron.job where username = 'alice'")
        su.execute("delete from cron.job_run_details where username = 'alice'")
        su.execute("drop table if exists alice.handbook")
        su.execute("revoke usage on schema cron from alice")


def test_update_from_0_7_0_moves_its_jobs_to_the_recording_refresh(cron_db):
    """0.7.0 scheduled refresh_vector_index; the update points the jobs at
    refresh_vector_index_job (pg_cron's cron.job only, checked by membership)."""
    su, _, conns = cron_db
    su.execute("drop extension dbms_cloud_ai cascade")
    su.execute("create extension dbms_cloud_ai version '0.7.0'")
    su.execute("grant usage on schema cron to alice")
    alice = psycopg.connect(host=su.info.host, port=su.info.port, user="alice",
                            dbname=su.info.dbname, autocommit=True)
    conns.append(alice)
    old = "select dbms_cloud_ai.refresh_vector_index('\"DOCS\"')"
    try:
        alice.execute("select cron.schedule('dbms_cloud_ai vector index alice.DOCS', "
                      "'*/5 * * * *', %s)", (old,))
        alice.execute("select cron.schedule('mine', '*/5 * * * *', %s)", (old,))   # not ours
        su.execute("alter extension dbms_cloud_ai update")
        assert dict(su.execute("select jobname, command from cron.job where username = 'alice'"
                               ).fetchall()) == {
            "dbms_cloud_ai vector index alice.DOCS":
                "call dbms_cloud_ai.refresh_vector_index_job('\"DOCS\"')",
            "mine": old}
    finally:
        su.execute("select cron.unschedule(jobid) from cron.job where username = 'alice'")
        su.execute("revoke usage on schema cron from alice")


def test_url_index_refreshes_while_data_access_is_disabled_but_narrate_is_refused(db, alice, llm):
    make_profile(alice, llm, "EMB", embedding_model="m")
    llm.script(Raw(200, "Trains are booked in second class.", headers={"content-type": "text/plain"}))
    alice.execute("select dbms_cloud_ai.create_vector_index('WEB', %s)",
                  (json.dumps({"location": f"{llm.url}/policy.txt", "profile_name": "EMB"}),))
    index_profile(alice, llm, index="WEB")
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    try:
        llm.reset()
        llm.script(Raw(200, "Trains are booked in first class.", headers={"content-type": "text/plain"}))
        assert alice.execute("select dbms_cloud_ai.refresh_vector_index('web')").fetchone()[0] == 1
        llm.reset()
        with raises("LL006"):
            generate(alice, "How are trains booked?", "RAG", "narrate")
        assert llm.requests == []
    finally:
        admin.execute("select dbms_cloud_ai.enable_data_access()")


def outcome(conn, index="DOCS"):
    return conn.execute("select last_refresh_status, last_refresh_error, last_refresh_at is not null "
                        "from dbms_cloud_ai.user_cloud_vector_indexes where index_name = %s",
                        (index,)).fetchone()


def chunk_text(conn, source):
    return conn.execute("select content from dbms_cloud_ai._vector_chunk where source = %s",
                        (source,)).fetchone()[0]


@pytest.mark.parametrize("status,state", [(500, "LL000"), (429, "LL002")])
def test_a_failed_scheduled_refresh_is_recorded_not_raised(docs, llm, status, state):
    """refresh_vector_index_job (what pg_cron runs): the refresh rolls back, the
    failure is recorded with a WARNING, and the job ends normally so the record
    commits; an interactive refresh still raises."""
    assert outcome(docs) == ("OK", None, True)          # create's own refresh
    docs.execute("set dbms_cloud_ai.http_max_attempts = 1")
    docs.execute("update handbook set body = 'Parking is free on Sundays.' where id = 2")
    llm.reset()
    llm.embed_script(Raw(status, {"error": {"message": "overloaded"}}))
    notices: list[tuple[str, str]] = []
    docs.add_notice_handler(lambda d: notices.append((d.severity_nonlocalized, d.message_primary)))
    assert docs.execute("call dbms_cloud_ai.refresh_vector_index_job('docs')").fetchone()[0] is None
    st, error, at = outcome(docs)
    assert (st, at) == ("FAILED", True) and error.startswith(f"{state}: ") and len(error) <= 500
    assert [n for n in notices if n[0] == "WARNING" and state in n[1] and "DOCS" in n[1]]
    assert chunk_text(docs, "alice.handbook:2") == DOCS[2]            # rolled back
    assert docs.execute("select count(*) from dbms_cloud_ai._model_call "
                        "where action = 'VECTOR_INDEX' and error_sqlstate = %s",
                        (state,)).fetchone()[0] == 1                  # the failed request, kept
    assert docs.execute("select last_refresh_status from dbms_cloud_ai.all_cloud_vector_indexes"
                        ).fetchone()[0] == "FAILED"
    # the next run succeeds and says so
    assert docs.execute("call dbms_cloud_ai.refresh_vector_index_job('docs')").fetchone()[0] == 1
    assert outcome(docs) == ("OK", None, True)
    assert chunk_text(docs, "alice.handbook:2") == "Parking is free on Sundays."
    # interactive: the caller sees the error; nothing of it is kept
    docs.execute("update handbook set body = 'Parking is closed.' where id = 2")
    llm.embed_script(Raw(status, {"error": {"message": "overloaded"}}))
    with raises(state):
        docs.execute("select dbms_cloud_ai.refresh_vector_index('docs')")
    assert outcome(docs) == ("OK", None, True)


def test_scheduled_refresh_of_a_disabled_or_missing_index(docs, llm):
    docs.execute("select dbms_cloud_ai.disable_vector_index('docs')")
    assert docs.execute("call dbms_cloud_ai.refresh_vector_index_job('docs')").fetchone()[0] is None
    assert outcome(docs)[:2] == ("FAILED", "55000: vector index DOCS is disabled")
    with raises("42501"):      # another owner's: refused, nothing to record
        docs.execute("call dbms_cloud_ai.refresh_vector_index_job('\"bob\".\"DOCS\"')")
    # an index dropped under its job: recorded nowhere, reported
    assert docs.execute("call dbms_cloud_ai.refresh_vector_index_job('gone')").fetchone()[0] is None


def query_index(conn, llm, query, name="Q", profile="EMB", wait=True):
    make_profile(conn, llm, profile, credential="C" + profile, embedding_model="m")
    conn.execute("select dbms_cloud_ai.create_vector_index(%s, %s, null, %s)",
                 (name, json.dumps({"location": f"query:{query}", "profile_name": profile,
                                    "chunk_size": 200, "chunk_overlap": 20}), wait))


def test_query_source_indexes_its_rows_and_narrate_finds_them(alice, llm):
    """query:<select>: column 1 the id, column 2 the text; run as runsql runs
    generated SQL, so a statement_timeout is needed."""
    make_docs(alice)
    alice.execute("set statement_timeout = '30s'")
    query_index(alice, llm, "select id, body from alice.handbook where id <> 3;")
    assert chunks(alice, "Q") == 2
    assert attrs_of(alice, "Q")["location"] == "query:select id, body from alice.handbook where id <> 3"
    assert sorted(r[0] for r in alice.execute("select source from dbms_cloud_ai._vector_chunk")) == [
        "query:1", "query:2"]
    index_profile(alice, llm, index="Q", enable_sources=True)
    llm.script(Answer("It opens at eight."))
    out = generate(alice, "When does the cafeteria open in the morning?", "RAG", "narrate")
    assert out.startswith("It opens at eight.") and "  - query:1" in out
    assert json.dumps(DOCS[1]) in llm.chat_requests[-1].json["messages"][-1]["content"]
    alice.execute("set statement_timeout = 0")
    with raises("55000"):            # as runsql: not without a statement_timeout
        alice.execute("select dbms_cloud_ai.refresh_vector_index('q')")


def test_query_source_refusals(db, alice, llm):
    make_docs(alice)
    alice.execute("set statement_timeout = '30s'")
    make_profile(alice, llm, "EMB", credential="CEMB", embedding_model="m")
    for what, query, state in [
            ("writing", "delete from alice.handbook returning id, body", "42501"),
            ("writing CTE", "with d as (delete from alice.handbook returning *) "
                            "select id, body from d", "42501"),
            ("locking", "select id, body from alice.handbook for update", "42501"),
            ("two statements", "select id, body from alice.handbook; select 1, 'x'", "42501"),
            ("a function not allowed", "select 1, pg_catalog.pg_sleep(1)::text", "42501"),
            ("the extension's tables", "select chunk_no, content from dbms_cloud_ai._vector_chunk",
             "42501"),
            ("not SQL", "select id, body frm alice.handbook", "22023"),
            ("unqualified", "select id, body from handbook", "22023"),
            ("three columns", "select id, body, 1 from alice.handbook", "22023"),
            ("one column", "select body from alice.handbook", "22023")]:
        with case(what), raises(state) as e:
            alice.execute("select dbms_cloud_ai.create_vector_index('Q', %s)",
                          (json.dumps({"location": f"query:{query}", "profile_name": "EMB"}),))
        with case(what):
            assert "location" in e["error"].diag.message_primary
            assert alice.execute("select count(*) from dbms_cloud_ai._vector_index").fetchone()[0] == 0
    admin = db.connect("ai_admin")
    admin.execute("select dbms_cloud_ai.disable_data_access()")
    try:
        with raises("LL006"):      # a query's rows are row values, as a table's
            query_index(alice, llm, "select id, body from alice.handbook", profile="EMB2")
    finally:
        admin.execute("select dbms_cloud_ai.enable_data_access()")


def test_query_source_over_a_table_the_owner_cannot_read(alice, bob, llm):
    bob.execute("create table bob.secret (id int, body text)")
    bob.execute("insert into bob.secret values (1, 'The vault code is 1234.')")
    bob.execute("grant usage on schema bob to alice")
    alice.execute("set statement_timeout = '30s'")
    query_index(alice, llm, "select id, body from bob.secret", wait=False)
    with raises("42501"):
        alice.execute("select dbms_cloud_ai.refresh_vector_index('q')")
    assert alice.execute("call dbms_cloud_ai.refresh_vector_index_job('q')").fetchone()[0] is None
    status, error, _ = outcome(alice, "Q")
    assert status == "FAILED" and error.startswith("42501: ")
    assert chunks(alice, "Q") == 0 and llm.embedding_requests == []


def test_dba_views_show_every_index_to_administrators_only(docs, llm, bob, db):
    """Oracle's DBA_CLOUD_VECTOR_INDEXES / _ATTRIBUTES: every role's indexes for
    dbms_cloud_ai_admin, never their chunks, and nothing of them in the
    administrator's ALL_ views or narrate until they are shared with it."""
    make_docs(bob, table="bobdocs")
    create_index(bob, llm, name="BOBS", table="bobdocs", profile="BEMB")
    admin = db.connect("ai_admin")
    assert admin.execute("select owner, index_name, status from dbms_cloud_ai.dba_cloud_vector_indexes "
                         "order by 1").fetchall() == [("alice", "DOCS", "ENABLED"),
                                                      ("bob", "BOBS", "ENABLED")]
    assert ("alice", "DOCS", "location", "table:alice.handbook(id, body)") in admin.execute(
        "select owner, index_name, attribute_name, attribute_value "
        "from dbms_cloud_ai.dba_cloud_vector_index_attributes").fetchall()
    for view in ("dba_cloud_vector_indexes", "dba_cloud_vector_index_attributes"):
        for conn in (docs, bob):
            with raises("42501"):
                conn.execute(f"select * from dbms_cloud_ai.{view}")
    # the administrator's own view of them: none is its own or shared with it
    for view in ("all_cloud_vector_indexes", "all_cloud_vector_index_attributes"):
        assert admin.execute(f"select count(*) from dbms_cloud_ai.{view}").fetchone()[0] == 0
    assert admin.execute("select count(*) from dbms_cloud_ai._vector_chunk").fetchone()[0] == 0
    make_profile(admin, llm, "ARAG", credential="ACRED", vector_index_name='"alice"."DOCS"')
    with raises("42704"):
        generate(admin, "When does the cafeteria open?", "ARAG", "narrate")
    # shared with it: its ALL_ views list it, and it may read its chunks
    docs.execute("select dbms_cloud_ai.grant_vector_index_access('DOCS', 'ai_admin')")
    assert admin.execute("select owner, index_name from dbms_cloud_ai.all_cloud_vector_indexes"
                         ).fetchall() == [("alice", "DOCS")]
    assert admin.execute("select count(*) from dbms_cloud_ai._vector_chunk").fetchone()[0] == 3


def test_a_profile_that_only_embeds_needs_no_chat_model(alice, llm):
    """An OpenAI-compatible server that only embeds (infinity, a local embeddings
    server): its profile names embedding_model alone, indexes documents, embeds
    narrate's questions; a chat through it is 22023 before any request."""
    make_docs(alice)
    make_profile(alice, llm, "EMBONLY", provider=None, credential=None,
                 embedding_model="text-embedding-3-small")
    alice.execute("select dbms_cloud_ai.create_vector_index('DOCS', %s)", (json.dumps(
        {"location": "table:alice.handbook(id, body)", "profile_name": "EMBONLY"}),))
    assert chunks(alice) == 3
    llm.reset()
    with raises("22023") as e:
        generate(alice, "hello", "EMBONLY", "chat")
    assert "set_attribute(" in hint_of(e) and llm.requests == []
    index_profile(alice, llm)
    llm.script(Answer("Eight."))
    assert generate(alice, "When does the cafeteria open?", "RAG", "narrate") == "Eight."
    assert [r.json.get("model") for r in llm.embedding_requests] == ["text-embedding-3-small"]
    # neither model nor embedding_model: still refused when the profile is made
    with raises("22023"):
        make_profile(alice, llm, "NEITHER", provider=None, credential=None)


# --- issue 30, class 4: content-derived columns follow the chunks' rule ---

def content_row(conn, owner="alice"):
    return conn.execute("""
        select x.common_words, x.last_refresh_error from dbms_cloud_ai._vector_index_content x
          join dbms_cloud_ai._vector_index i using (index_id)
         where i.owner = %s""", (owner,)).fetchall()


def test_administrators_read_no_content_derived_column_of_an_index_not_shared_with_them(docs, db, bob, llm):
    """Administrators read every index row (DBA_CLOUD_VECTOR_INDEXES), never what it
    derives from the documents of an index not shared with them: common_words and
    last_refresh_error live in _vector_index_content, read as the chunks are (the
    owner, grantees); the DBA_ view shows NULL for them.  Status and times are not
    content, and stay visible."""
    docs.execute("select dbms_cloud_ai.disable_vector_index('docs')")
    assert docs.execute("call dbms_cloud_ai.refresh_vector_index_job('docs')").fetchone()[0] is None
    db.admin.execute("update dbms_cloud_ai._vector_index_content set common_words = '{vaultcode}'")
    error = "55000: vector index DOCS is disabled"
    assert content_row(docs) == [(["vaultcode"], error)]
    assert outcome(docs)[:2] == ("FAILED", error)
    # no such column on the row every administrator reads
    for column in ("common_words", "last_refresh_error"):
        with raises("42703"):
            docs.execute(f"select {column} from dbms_cloud_ai._vector_index")
    admin = db.connect("ai_admin")
    row = admin.execute("select last_refresh_status, last_refresh_error, last_refresh_at is not null "
                        "from dbms_cloud_ai.dba_cloud_vector_indexes where owner = 'alice'").fetchall()
    assert row == [("FAILED", None, True)]
    assert content_row(admin) == []
    assert admin.execute("select count(*) from dbms_cloud_ai._vector_index_content").fetchone()[0] == 0
    assert admin.execute("select count(*) from dbms_cloud_ai.all_cloud_vector_indexes "
                         "where owner = 'alice'").fetchone()[0] == 0
    # bob neither, until alice shares the index; then as its chunks
    assert content_row(bob) == []
    docs.execute("select dbms_cloud_ai.grant_vector_index_access('docs', 'bob')")
    assert content_row(bob) == [(["vaultcode"], error)]
    assert bob.execute("select last_refresh_error from dbms_cloud_ai.all_cloud_vector_indexes"
                       ).fetchall() == [(error,)]
    assert content_row(admin) == []
    # shared with the administrator (here through PUBLIC): it reads them, as the chunks
    docs.execute("select dbms_cloud_ai.grant_vector_index_access('docs', 'PUBLIC')")
    assert content_row(admin) == [(["vaultcode"], error)]
    assert admin.execute("select last_refresh_error from dbms_cloud_ai.dba_cloud_vector_indexes "
                         "where owner = 'alice'").fetchall() == [(error,)]
    docs.execute("select dbms_cloud_ai.revoke_vector_index_access('docs', 'PUBLIC')")
    docs.execute("select dbms_cloud_ai.revoke_vector_index_access('docs', 'bob')")
    assert content_row(admin) == content_row(bob) == []
    # an administrator's own index: its own content
    make_docs(admin, table="admindocs")
    create_index(admin, llm, name="ADOCS", table="admindocs", profile="AEMB")
    assert admin.execute("select last_refresh_status, last_refresh_error "
                         "from dbms_cloud_ai.user_cloud_vector_indexes").fetchall() == [("OK", None)]
    assert content_row(admin, "ai_admin") == [([], None)]


def test_a_grantee_retrieves_by_words_beyond_the_newest_chunks(alice, bob, llm):
    """Retrieval reads the index's common words as the package's owner role, for
    the owner and for a grantee alike (_vector_index_content, policy
    vector_index_content_search).  The words step read them from the index row
    before, which that role could not see for a grantee: a grantee's question
    matched no word and only the newest 300 chunks were scored."""
    make_docs(alice, docs={1: "The office cafeteria opens at eight in the morning."})
    create_index(alice, llm)
    alice.execute("insert into handbook select i, 'Filler paragraph ' || i || ' about storage rooms.' "
                  "from generate_series(2, 321) i")
    assert alice.execute("select dbms_cloud_ai.refresh_vector_index('DOCS')").fetchone()[0] == 320
    alice.execute("select dbms_cloud_ai.grant_vector_index_access('DOCS', 'bob')")
    alice.execute("select dbms_cloud_ai.grant_profile_access('EMB', 'bob')")
    make_profile(bob, llm, "BRAG", credential="BCRED", key="sk-bob-own",
                 vector_index_name='"alice"."DOCS"', enable_sources=True)
    make_profile(alice, llm, "RAG", credential="RCRED", vector_index_name="DOCS",
                 enable_sources=True)
    for conn, profile in ((alice, "RAG"), (bob, "BRAG")):
        llm.script(Answer("At eight."))
        out = generate(conn, "When does the cafeteria open?", profile, "narrate")
        assert out.startswith("At eight.") and "  - alice.handbook:1" in out.splitlines(), \
            (profile, out)
