"""The select_ai client's vector indexes against a real server: VectorIndex and
AsyncVectorIndex over the extension's functions and views, the ORA- numbers of their
refusals, and what the client adds of Oracle's rules (attributes fixed at creation,
the vector table a dropped index leaves, regular expressions over 512 bytes)."""

from __future__ import annotations

import oracledb
import pytest
import select_ai
from helpers import make_profile
from select_ai import (
    AsyncVectorIndex,
    OracleVectorIndexAttributes,
    VectorDistanceMetric,
    VectorIndex,
    VectorIndexAttributes,
)
from select_ai.errors import VectorIndexNotFoundError

LOCATION = "https://objectstorage.us-ashburn-1.oraclecloud.com/n/ns/b/bucket/o/docs"


def dsn(db) -> str:
    return f"host={db.info.host} port={db.info.port} dbname={db.info.dbname}"


@pytest.fixture
def client(db, alice, llm):
    """select_ai connected as alice, who has the embedding profile emb and a credential
    for the documents."""
    make_profile(alice, llm, "EMB", credential="EMB_KEY", embedding_model="text-embedding-3-small")
    alice.execute("select dbms_cloud.create_credential('OBJ', 'user', 'secret')")
    select_ai.connect(user="alice", password="unused", dsn=dsn(db))
    yield alice
    select_ai.disconnect()


def attrs(**extra) -> OracleVectorIndexAttributes:
    return OracleVectorIndexAttributes(location=LOCATION, object_storage_credential_name="OBJ",
                                       profile_name="emb", **extra)


def ora(excinfo) -> int:
    assert isinstance(excinfo.value, oracledb.DatabaseError)
    return excinfo.value.args[0].code


def test_create_fetch_list_and_attributes_read_back(client):
    VectorIndex(index_name="docs", attributes=attrs(match_limit=3),
                description="Handbook").create()
    index = VectorIndex.fetch("docs")
    assert (index.index_name, index.description, index.owner) == ("docs", "Handbook", "ALICE")
    a = index.attributes
    assert isinstance(a, OracleVectorIndexAttributes)
    assert (a.location, a.profile_name, a.object_storage_credential_name) == (LOCATION, "emb", "OBJ")
    assert a.match_limit == 3 and a.refresh_rate == 1440 and a.chunk_size is None
    assert a.pipeline_name == "DOCS$VECPIPELINE" and a.vector_db_provider.value == "oracle"
    assert [i.index_name for i in VectorIndex.list("^do")] == ["DOCS"]
    with pytest.raises(VectorIndexNotFoundError):
        VectorIndex(index_name="nope").get_attributes()


def test_create_refusals_and_replace(client):
    index = VectorIndex(index_name="docs", attributes=attrs())
    index.create()
    with pytest.raises(oracledb.DatabaseError) as e:
        index.create()
    assert ora(e) == 20048 and "already exists" in str(e.value)
    index.create(replace=True)                          # dropped and created again
    for name, words in ((12345, "Invalid vector index name"), ("", "Missing vector index name")):
        with pytest.raises(oracledb.DatabaseError) as e:
            VectorIndex(index_name=name, attributes=attrs()).create()
        assert ora(e) == 20048 and words in str(e.value)
    with pytest.raises(oracledb.DatabaseError) as e:
        VectorIndex(index_name="long", attributes=attrs(), description="D" * 4001).create()
    assert ora(e) == 20045
    missing = OracleVectorIndexAttributes(location=LOCATION, profile_name="emb",
                                          object_storage_credential_name="GONE")
    with pytest.raises(oracledb.DatabaseError) as e:
        VectorIndex(index_name="other", attributes=missing).create()
    assert ora(e) == 20004 and "GONE" in str(e.value)
    with pytest.raises(TypeError):
        VectorIndex(index_name="x", attributes="not attributes")


def test_set_attributes_and_oracles_fixed_ones(client):
    index = VectorIndex(index_name="docs", attributes=attrs())
    index.create()
    index.set_attribute("match_limit", 8192)
    index.set_attribute("similarity_threshold", 0.5)
    a = index.get_attributes()
    assert (a.match_limit, a.similarity_threshold) == (8192, 0.5)
    for name, value in (("chunk_size", 2048), ("location", LOCATION),
                        ("vector_distance_metric", VectorDistanceMetric.EUCLIDEAN)):
        with pytest.raises(oracledb.DatabaseError) as e:
            index.set_attribute(name, value)
        assert ora(e) == 20047
    with pytest.raises(oracledb.DatabaseError) as e:
        index.set_attributes(VectorIndexAttributes(match_limit=4, chunk_overlap=10))
    assert ora(e) == 20047
    for name, value in (("description", "x"), ("pipeline_name", "other"), ("nope", 1)):
        with pytest.raises(oracledb.DatabaseError) as e:
            index.set_attribute(name, value)
        assert ora(e) == 20048
    with pytest.raises(oracledb.NotSupportedError):     # as python-oracledb refuses a bind
        index.set_attribute("match_limit", object())
    index.set_attributes(VectorIndexAttributes(match_limit=4, refresh_rate=30))
    assert (index.attributes.match_limit, index.attributes.refresh_rate) == (4, 30)


def test_delete_keeps_the_vector_table_unless_include_data(client):
    index = VectorIndex(index_name="docs", attributes=attrs())
    index.create()
    index.delete(include_data=False)
    with select_ai.cursor() as cr:
        cr.execute("SELECT column_name FROM user_tab_columns WHERE table_name = :t "
                   "ORDER BY column_id", t="DOCS$VECTAB")
        assert [r[0] for r in cr.fetchall()] == ["CONTENT", "ATTRIBUTES", "EMBEDDING"]
    with pytest.raises(oracledb.DatabaseError) as e:    # Oracle would create that table
        index.create(replace=True)
    assert ora(e) == 955
    with select_ai.cursor() as cr:
        cr.execute("DROP TABLE DOCS$VECTAB PURGE")
    index.create()
    index.delete()                                      # include_data defaults to True
    with pytest.raises(oracledb.DatabaseError) as e:
        index.delete()
    assert ora(e) == 20048 and "does not exist" in str(e.value)
    index.delete(force=True)
    assert client.execute("select to_regclass('alice.\"docs$vectab\"')").fetchone()[0] is None


def test_list_patterns_as_oracles_regexp_like(client):
    for name in ("docs_a", "docs_b", "other"):
        VectorIndex(index_name=name, attributes=attrs()).create()
    names = lambda p: [i.index_name for i in VectorIndex.list(p)]  # noqa: E731
    assert names("^DOCS") == ["DOCS_A", "DOCS_B"]
    assert names(None) == names("") == names(" ") == []            # Oracle's NULL pattern
    with pytest.raises(oracledb.DatabaseError) as e:
        names("[unclosed")
    assert ora(e) == 12726
    with pytest.raises(oracledb.DatabaseError) as e:
        names("a" * 513)
    assert ora(e) == 12733


def test_pipeline_stop_start_through_the_cursor(client):
    VectorIndex(index_name="docs", attributes=attrs()).create()
    status = "select status from dbms_cloud_ai.user_cloud_vector_indexes"
    with select_ai.cursor() as cr:
        cr.execute("BEGIN dbms_cloud_pipeline.stop_pipeline(pipeline_name => :1); END;",
                   ["DOCS$VECPIPELINE"])
        assert client.execute(status).fetchone()[0] == "DISABLED"
        cr.execute("SELECT status FROM user_cloud_pipelines WHERE pipeline_name = :1",
                   ["DOCS$VECPIPELINE"])
        assert cr.fetchone()[0] == "STOPPED"
        cr.execute("BEGIN dbms_cloud_pipeline.start_pipeline(pipeline_name => :1); END;",
                   ["DOCS$VECPIPELINE"])
        assert client.execute(status).fetchone()[0] == "ENABLED"
        with pytest.raises(oracledb.DatabaseError) as e:
            cr.execute("BEGIN dbms_cloud_pipeline.stop_pipeline(pipeline_name => :1); END;",
                       ["NOPE$VECPIPELINE"])
        assert ora(e) == 20044


@pytest.mark.anyio
async def test_async_vector_index(client, anyio_backend):
    select_ai.create_pool_async(user="alice", password="unused", dsn=dsn(client))
    try:
        index = AsyncVectorIndex(index_name="docs", attributes=attrs(), description="Async")
        await index.create()
        await index.disable()
        await index.enable()
        await index.set_attribute("match_limit", 0)
        fetched = await AsyncVectorIndex.fetch("docs")
        assert fetched.description == "Async" and fetched.attributes.match_limit == 0
        assert [i.index_name async for i in AsyncVectorIndex.list("^DOCS$")] == ["DOCS"]
        with pytest.raises(oracledb.DatabaseError) as e:
            await index.set_attribute("chunk_overlap", 10)
        assert ora(e) == 20047
        await index.delete()
        with pytest.raises(VectorIndexNotFoundError):
            await index.get_attributes()
    finally:
        await select_ai.async_disconnect()


@pytest.fixture
def anyio_backend():
    return "asyncio"
