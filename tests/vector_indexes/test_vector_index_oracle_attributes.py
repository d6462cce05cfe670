"""Oracle's vector index attributes as Oracle's SDK sets and reads them:
vector_db_provider "oracle", pipeline_name (default <INDEX_NAME>$VECPIPELINE),
refresh_rate's default shown, and OCI Object Storage locations, stored at
creation and refused (0A000) when the index is refreshed."""

from __future__ import annotations

import json

from helpers import hint_of, make_profile, raises
from vector_indexes.test_vector_indexes import attrs_of

BUCKET = "https://objectstorage.us-ashburn-1.oraclecloud.com/n/acme/b/docs/o/handbook/"


def emb_profile(conn, llm, name="EMB"):
    make_profile(conn, llm, name, credential="C" + name, embedding_model="cohere.embed-v4.0")


def create(conn, name, **attrs):
    conn.execute("select dbms_cloud_ai.create_vector_index(%s, %s, description => 'Test')",
                 (name, json.dumps(attrs)))


def status(conn, name):
    return conn.execute("select last_refresh_status, last_refresh_error, chunks "
                        "from dbms_cloud_ai.user_cloud_vector_indexes where index_name = %s",
                        (name,)).fetchone()


def test_object_storage_index_is_created_with_oracles_defaults(alice, llm):
    emb_profile(alice, llm)
    alice.execute("select dbms_cloud.create_credential('OBJSTORE_CRED', 'u', 'p')")
    create(alice, "vidx", location=BUCKET, object_storage_credential_name="OBJSTORE_CRED",
           profile_name="EMB")
    assert attrs_of(alice, "VIDX") == {
        "location": BUCKET, "object_storage_credential_name": "OBJSTORE_CRED",
        "profile_name": "EMB", "vector_db_provider": "oracle", "refresh_rate": "1440",
        "pipeline_name": "VIDX$VECPIPELINE"}
    state, error, chunks = status(alice, "VIDX")
    assert (state, chunks) == ("FAILED", 0)
    assert error.startswith("0A000")
    assert llm.requests == [] and llm.embedding_requests == []


def test_refresh_of_object_storage_is_refused_and_a_job_records_it(alice, llm):
    emb_profile(alice, llm)
    create(alice, "vidx", location="oci://docs@acme/handbook/", profile_name="EMB")
    with raises("0A000") as e:
        alice.execute("select dbms_cloud_ai.refresh_vector_index('vidx')")
    assert "VIDX" in str(e["error"]) and "oci://docs@acme/handbook/" in str(e["error"])
    assert hint_of(e)
    assert alice.execute("call dbms_cloud_ai.refresh_vector_index_job('vidx')").fetchone()[0] is None
    assert status(alice, "VIDX")[0] == "FAILED"
    assert llm.embedding_requests == []


def test_every_attribute_oracles_suite_sets_round_trips(alice, llm):
    emb_profile(alice, llm)
    emb_profile(alice, llm, "EMB2")
    alice.execute("select dbms_cloud.create_credential('OBJSTORE_CRED', 'u', 'p')")
    create(alice, "vidx", location=BUCKET, object_storage_credential_name="OBJSTORE_CRED",
           profile_name="EMB", chunk_size=2048, chunk_overlap=256, match_limit=5,
           similarity_threshold=0.5, refresh_rate=40, vector_distance_metric="L2_SQUARED",
           vector_dimension=1024, vector_db_provider="ORACLE", pipeline_name="MY_PIPE")
    assert attrs_of(alice, "VIDX") == {
        "location": BUCKET, "object_storage_credential_name": "OBJSTORE_CRED",
        "profile_name": "EMB", "chunk_size": "2048", "chunk_overlap": "256", "match_limit": "5",
        "similarity_threshold": "0.5", "refresh_rate": "40",
        "vector_distance_metric": "L2_SQUARED", "vector_dimension": "1024",
        "vector_db_provider": "oracle", "pipeline_name": "MY_PIPE"}
    for name, value in (("match_limit", "10"), ("similarity_threshold", "0.8"),
                        ("refresh_rate", "30"), ("profile_name", "EMB2"),
                        ("location", "oci://docs@acme/other/")):
        alice.execute("select dbms_cloud_ai.update_vector_index('vidx', %s, %s)", (name, value))
        assert attrs_of(alice, "VIDX")[name] == value
    alice.execute("select dbms_cloud_ai.update_vector_index('vidx', 'pipeline_name', 'MY_PIPE')")


def test_pipeline_name_is_fixed_for_the_index_life(alice, llm):
    emb_profile(alice, llm)
    create(alice, "vidx", location=BUCKET, profile_name="EMB")
    for value in ("test_pipeline", None):
        with raises("22023") as e:
            alice.execute("select dbms_cloud_ai.update_vector_index('vidx', 'pipeline_name', %s)",
                          (value,))
        assert hint_of(e)
    assert attrs_of(alice, "VIDX")["pipeline_name"] == "VIDX$VECPIPELINE"


PIPELINE_COLUMNS = ["pipeline_id", "pipeline_name", "pipeline_type", "status", "description",
                    "created", "last_modified", "last_execution", "operation_id", "status_table",
                    "oracle_maintained", "index_name", "last_refresh_status",
                    "last_refresh_error", "last_refresh_at"]


def pipelines(conn):
    cur = conn.execute("select * from dbms_cloud.user_cloud_pipelines order by pipeline_name")
    assert [d.name for d in cur.description] == PIPELINE_COLUMNS
    return [dict(zip(PIPELINE_COLUMNS, r)) for r in cur.fetchall()]


def test_user_cloud_pipelines_shows_the_callers_refreshes(alice, bob, llm):
    alice.execute("create table handbook (id int primary key, body text)")
    alice.execute("insert into handbook values (1, 'The cafeteria opens at eight.')")
    emb_profile(alice, llm)
    create(alice, "docs", location="table:alice.handbook(id, body)", profile_name="EMB")
    create(alice, "vidx", location=BUCKET, profile_name="EMB", pipeline_name="MY_PIPE")
    docs, mine = pipelines(alice)
    assert (docs["pipeline_name"], docs["index_name"], docs["pipeline_type"], docs["status"],
            docs["description"], docs["last_refresh_status"]) == (
        "DOCS$VECPIPELINE", "DOCS", "LOAD", "STARTED", "Test", "OK")
    assert docs["last_execution"] is not None
    assert (mine["pipeline_name"], mine["last_execution"], mine["last_refresh_status"]) == (
        "MY_PIPE", None, "FAILED")
    alice.execute("select dbms_cloud_ai.disable_vector_index('docs')")
    assert pipelines(alice)[0]["status"] == "STOPPED"
    assert alice.execute("select last_execution from dbms_cloud.user_cloud_pipelines "
                         "where pipeline_name = 'DOCS$VECPIPELINE'").fetchone()[0] is not None
    assert pipelines(bob) == []


def test_names_are_shown_as_given_and_resolved_as_oracle_does(alice, llm):
    emb_profile(alice, llm, "VECTOR_AI_PROFILE")
    alice.execute("select dbms_cloud.create_credential('objstore_cred', 'u', 'p')")
    create(alice, "vidx", location=BUCKET, profile_name="vector_ai_profile",
           object_storage_credential_name="objstore_cred")
    a = attrs_of(alice, "VIDX")
    assert (a["profile_name"], a["object_storage_credential_name"]) == (
        "vector_ai_profile", "objstore_cred")
    with raises("42704"):                     # a quoted name is another profile
        alice.execute("""select dbms_cloud_ai.update_vector_index('vidx', 'profile_name',
                                                                 '"vector_ai_profile"')""")
    with raises("22023"):
        alice.execute("select dbms_cloud_ai.update_vector_index('vidx', 'profile_name', 'a b')")
