"""The pgvector path: an HNSW index per vector index, when the database has pgvector.

Nothing here requires pgvector: a database with ``CREATE EXTENSION vector``
(only a superuser can run it: pgvector is not a trusted extension) gets, at
each refresh, one partial HNSW index over its chunks' embeddings:

    create index vector_chunk_ann_<index id>_<dims> on dbms_cloud_ai._vector_chunk
     using hnsw ((embedding::vector(<dims>)) vector_ip_ops)
     where index_id = '<index id>' and cardinality(embedding) = <dims>

The stored embeddings stay float4[] (the column cannot name a type that may be
absent); the index is on their cast, and the search orders by the same cast,
so PostgreSQL uses it.  Embeddings are unit length, so the inner product is the
cosine and orders as every metric of options.METRICS does; it is also the
cheapest of pgvector's distances.  Over 2,000 dimensions (HNSW's limit for
vector) the cast is to halfvec (4,000); beyond that there is no HNSW index and
retrieval takes the full-text path (retrieve.py).

The index is found in the catalog by name, never remembered: dropping
pgvector (with CASCADE), a restore (pg_dump does not dump indexes of an
extension's tables) or another model's dimensions all leave retrieval on the
full-text path until the next refresh builds the index again.

The DDL is dbms_cloud_ai._vector_ann_index (PL/pgSQL, run as the extension's
owner), called through the writer's
gate; the search runs as dbms_cloud_ai_owner through it too, as a prepared
statement whose text names pgvector's schema (quote_ident) and the
dimensions.  Its plan must be custom (writer's custom_plan), because a
partial index matches only a constant index_id.
"""

from __future__ import annotations

from .. import db, writer

HNSW_MAX = {"vector": 2000, "halfvec": 4000}
EF_SEARCH = 100        # hnsw.ef_search for the search: candidates examined (pgvector's default 40)
_PREFIX = "vector_chunk_ann_"

# The DDL runs as the extension's owner (sql/api/130-vector-indexes.sql says why).
_DDL = """
    select dbms_cloud_ai._vector_ann_index($1::uuid, $2, $3, dbms_cloud_ai._caller()) as n"""
# pgvector's schema, as _vector_ann_index finds it (0.5.0 or later: HNSW; usable
# by dbms_cloud_ai_owner, which runs the search: an administrator grants USAGE on
# a schema other than public, docs/reference/vector-indexes.md), when the vector
# index has its HNSW index ($1): one round trip.
_SEARCHABLE = """
    select n.nspname::text as schema
      from pg_catalog.pg_extension e join pg_catalog.pg_namespace n on n.oid = e.extnamespace
     where e.extname = 'vector'
       and pg_catalog.string_to_array(e.extversion, '.')::int[] >= '{0,5}'::int[]
       and pg_catalog.has_schema_privilege('dbms_cloud_ai_owner', n.oid, 'USAGE')
       and exists (select from pg_catalog.pg_class c
                    where c.relname = $1 and c.relnamespace = 'dbms_cloud_ai'::regnamespace
                      and c.relkind = 'i')"""


def kind(dims: int) -> str | None:
    """pgvector's type for an HNSW index of this many dimensions, or None."""
    for t, most in HNSW_MAX.items():
        if dims <= most:
            return t
    return None


def name(index_id: str, dims: int) -> str:
    return f"{_PREFIX}{index_id.replace('-', '')}_{dims}"


def _cast(plpy, schema: str, dims: int) -> str:
    return f"{plpy.quote_ident(schema)}.{kind(dims)}({int(dims)})"


def _ddl(plpy, index_id: str, dims: int | None, build: bool) -> str | None:
    return writer.one(plpy, _DDL, ("text", "int4", "bool"), (index_id, dims, build))["n"]


def drop(plpy, index_id: str) -> None:
    """Drop the HNSW indexes of a vector index (before the vector index goes)."""
    _ddl(plpy, index_id, None, False)


def ensure(plpy, index_id: str, dims: int | None) -> str | None:
    """The HNSW index of a vector index whose chunks have ``dims`` dimensions,
    built if missing (after a refresh wrote them: a build is faster than as
    many inserts), and those of other dimensions dropped; None when pgvector
    is absent or dims too many."""
    return _ddl(plpy, index_id, dims, True)


def _search_sql(plpy, schema: str, dims: int) -> str:
    cast = _cast(plpy, schema, dims)
    ip = f"operator({plpy.quote_ident(schema)}.<#>)"
    # $1 index, $2 question, $3 model, $4 threshold, $5 limit
    return f"""
        select n.source, n.chunk_no, n.content, n.similarity
          from (select c.source, c.chunk_no, c.content, c.embedding_model,
                       -(c.embedding::{cast} {ip} $2::float4[]::{cast})::float8 as similarity
                  from dbms_cloud_ai._vector_chunk c
                 where c.index_id = $1::uuid and pg_catalog.cardinality(c.embedding) = {int(dims)}
                 order by c.embedding::{cast} {ip} $2::float4[]::{cast}
                 limit $5) n
         where n.embedding_model = $3 and n.similarity >= $4
         order by n.similarity desc, n.source, n.chunk_no"""


_SET = "select pg_catalog.set_config($1, $2, true) as v"
_GET = "select pg_catalog.current_setting($1, true) as v"


def search(plpy, index_id: str, vector, threshold: float, limit: int) -> list[dict] | None:
    """The ``limit`` chunks closest to ``vector`` through the HNSW index, or
    None when the index has none for this vector's dimensions."""
    dims = len(vector.values)
    row = kind(dims) and db.one(plpy, _SEARCHABLE, ("name",), (name(index_id, dims),))
    if not row:
        return None
    schema = row["schema"]
    # hnsw.ef_search, as the caller's setting (pgvector reads it as a plain setting)
    saved = db.one(plpy, _GET, ("text",), ("hnsw.ef_search",))["v"]
    db.query(plpy, _SET, ("text", "text"), ("hnsw.ef_search", str(max(EF_SEARCH, limit))))
    try:
        return [dict(r) for r in writer.query(
            plpy, _search_sql(plpy, schema, dims), ("text", "float4[]", "text", "float8", "int4"),
            (index_id, vector.values, vector.model, threshold, limit), custom_plan=True)]
    finally:
        # None: before this backend loaded pgvector; the setting then lasts
        # until the end of the transaction (set_config local)
        if saved is not None:
            db.query(plpy, _SET, ("text", "text"), ("hnsw.ef_search", saved))
