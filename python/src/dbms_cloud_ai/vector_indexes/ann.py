"""The pgvector path: an HNSW index per vector index, when the database has pgvector.

Nothing here requires pgvector: a database with ``CREATE EXTENSION vector``
(only a superuser can run it: pgvector is not a trusted extension) gets, from
the maintenance after a refresh, one partial HNSW index over each vector
index's chunk embeddings:

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
extension's tables), another model's dimensions or a maintenance not run yet
all leave retrieval on the full-text path until the maintenance builds it.

Where the DDL runs (issue 30, class 3).  DROP INDEX holds ACCESS EXCLUSIVE
on the shared chunks table and CREATE INDEX holds SHARE until their
transaction ends; run inside a caller's transaction left open, they stopped
every other role's narrate (or refresh).  So no function runs them: the
procedures maintain_vector_indexes and refresh_vector_index_job call
``maintain``, which runs each DDL in a transaction of its own and commits it at
once (CONCURRENTLY is refused below top level).  A procedure that commits
refuses to start inside a transaction block (2D000, before any lock), and the
DDL function (dbms_cloud_ai._vector_ann_step, PL/pgSQL, run as the extension's
owner) is executable by dbms_cloud_ai_owner only, that is through the writer's
gate from this module: no role can run it in a transaction it keeps open.
Each DDL takes its lock with NOWAIT (a queued ACCESS EXCLUSIVE request would
stop every reader behind it, a queued SHARE request every writer); a busy
table leaves the work to the next maintenance.  The search runs as
dbms_cloud_ai_owner through the writer too, as a prepared statement whose
text names pgvector's schema (quote_ident) and the dimensions.  Its plan must
be custom (writer's custom_plan), because a partial index matches only a
constant index_id.
"""

from __future__ import annotations

from .. import db, writer
from ..model import detached

HNSW_MAX = {"vector": 2000, "halfvec": 4000}
EF_SEARCH = 100        # hnsw.ef_search for the search: candidates examined (pgvector's default 40)
EF_SEARCH_MAX = 1000   # pgvector's largest (match_limit goes up to 8192)
_PREFIX = "vector_chunk_ann_"

# One DDL (or none) as the extension's owner (sql/api/090-vector-indexes.sql).
_STEP = "select dbms_cloud_ai._vector_ann_step($1::uuid, dbms_cloud_ai._caller()) as done"
_MAX_STEPS = 100           # per vector index and call: each step drops or builds one index
_PROGRESS = ("dropped", "built")
# pgvector's schema, as _vector_ann_step finds it (0.5.0 or later: HNSW; usable
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


def maintain(plpy, index_ids, gone: bool = True) -> dict[str, str | None]:
    """In a committing procedure (detached.start has run): for each vector index
    of the caller's in ``index_ids``, drop its HNSW indexes of other dimensions
    and build the one of its chunks' dimensions; with ``gone``, drop those of
    vector indexes that no longer exist (anyone's: nobody can use them).  Each
    DDL is its own transaction, committed at once; what could not be done now
    (the table busy, the cap reached, an error) is reported and left to the next
    maintenance.  Returns each index's last outcome."""
    out: dict[str, str | None] = {}
    for index_id in [*index_ids, *([None] if gone else [])]:
        done = None
        for _ in range(_MAX_STEPS):
            try:
                done = writer.one(plpy, _STEP, ("text",), (index_id,))["done"]
            except plpy.SPIError as e:     # a build's statement_timeout, say: undone
                detached.recommit(plpy, rollback=True)
                plpy.warning(f"HNSW maintenance of vector index {index_id or '(gone)'} failed: "
                             f"{str(e.args[0] if e.args else e).splitlines()[0]}",
                             hint="Retrieval uses full text meanwhile; CALL "
                                  "dbms_cloud_ai.maintain_vector_indexes() again.")
                done = "failed"
                break
            detached.recommit(plpy)
            if done not in _PROGRESS:
                break
        if done == "busy":
            plpy.notice(f"HNSW index of vector index {index_id or '(gone)'} left to the next "
                        "maintenance: the chunks table is busy",
                        hint="CALL dbms_cloud_ai.maintain_vector_indexes() again later.")
        out[index_id] = done
    return out


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
    db.query(plpy, _SET, ("text", "text"), ("hnsw.ef_search", str(min(EF_SEARCH_MAX, max(EF_SEARCH, limit)))))
    try:
        return [dict(r) for r in writer.query(
            plpy, _search_sql(plpy, schema, dims), ("text", "float4[]", "text", "float8", "int4"),
            (index_id, vector.values, vector.model, threshold, limit), custom_plan=True)]
    finally:
        # None: before this backend loaded pgvector; the setting then lasts
        # until the end of the transaction (set_config local)
        if saved is not None:
            db.query(plpy, _SET, ("text", "text"), ("hnsw.ef_search", saved))
