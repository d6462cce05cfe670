"""Refreshing a vector index: read its sources, chunk them, embed what changed.

A chunk is keyed by (source, chunk number) and carries the md5 of its text and
the embedding model: a refresh embeds only the chunks whose hash changed (new
or edited text, another model), deletes the chunks that are gone, and leaves
the others as they are.  Embeddings go through the index's profile (the
owner's, with its credential and embedding_model): one accounted request per
chunk (purpose 'embedding', action VECTOR_INDEX), counted against budgets.

A table or query source sends row values to the embedding provider: refused with LL006
while data access is disabled (data_access.py).  URL documents are not row
values and are refreshed either way.
"""

from __future__ import annotations

import json

from .. import data_access, db, profiles, sharing, writer
from ..errors import DataAccessDisabled, InvalidParameter, NotInPrerequisiteState, UndefinedObject
from ..model import accounting, embeddings
from . import options, retrieve, sources

WRITE_BATCH = 200          # chunks per upsert statement

_UPSERT = """
    insert into dbms_cloud_ai._vector_chunk
           (index_id, source, chunk_no, content, hash, embedding, embedding_model)
    select $1::uuid, c.source, c.chunk_no, c.content, c.hash, c.embedding, $3
      from pg_catalog.json_to_recordset($2::json) as c(source text, chunk_no int, content text,
                                                        hash text, embedding float4[])
    on conflict (index_id, source, chunk_no) do update
       set content = excluded.content, hash = excluded.hash, embedding = excluded.embedding,
           embedding_model = excluded.embedding_model, modified = pg_catalog.now()"""
_DELETE_GONE = """
    delete from dbms_cloud_ai._vector_chunk c
     where c.index_id = $1::uuid and c.owner = dbms_cloud_ai._caller()
       and (c.source, c.chunk_no) not in (
           select k.source, k.chunk_no
             from pg_catalog.json_to_recordset($2::json) as k(source text, chunk_no int))"""


# The index's common words, after a refresh: lexemes in retrieve.RARE chunks or
# more, which retrieval leaves out of its full-text candidates.  ts_stat runs
# its query as dbms_cloud_ai_owner here (policy vector_chunk_search).  They are
# derived from the documents, so they live in _vector_index_content, which
# administrators do not read for indexes not shared with them (issue 30, class 4).
COMMON_WORDS = """
    insert into dbms_cloud_ai._vector_index_content as x (index_id, common_words)
    select $1::uuid, coalesce((
           select pg_catalog.array_agg(s.word order by s.word)
             from pg_catalog.ts_stat(pg_catalog.format(
                      'select c.tsv from dbms_cloud_ai._vector_chunk c where c.index_id = %L',
                      $1::text)) s
            where s.ndoc >= $2), '{}')
    on conflict (index_id) do update set common_words = excluded.common_words"""


def _index(plpy, name: str) -> dict:
    row = db.one(plpy, """
        select index_id::text as index_id, index_name, attributes::text as attributes, status
          from dbms_cloud_ai._vector_index where owner = current_user and index_name = $1""",
                 ("text",), (name,))
    if row is None:
        raise UndefinedObject(f'vector index "{name}" does not exist',
                              hint="Create it with dbms_cloud_ai.create_vector_index().")
    return {**row, "attrs": json.loads(row["attributes"])}


def run(plpy, index_name) -> int:
    """Refresh the caller's index; the number of chunks embedded."""
    idx = _index(plpy, options.own_name(index_name, plpy))
    attrs = idx["attrs"]
    if idx["status"] != "ENABLED":
        raise NotInPrerequisiteState(f"vector index {idx['index_name']} is disabled",
                                     hint="Enable it with dbms_cloud_ai.enable_vector_index().")
    unreadable = sources.unreadable(idx["index_name"], attrs)
    if unreadable is not None:
        raise unreadable
    ctx = profiles.for_call(plpy, sharing.stored_ref(options.profile(attrs)))
    model = embeddings.model_of(ctx.profile.attrs)
    if not model:
        raise InvalidParameter(
            f"vector index attribute profile_name: profile {ctx.profile.name} has no embedding_model",
            hint="Set embedding_model on the profile, then refresh the index.")
    srcs = sources.all_of(attrs)
    if any(s.kind in ("table", "query") for s in srcs) and not data_access.enabled(ctx):
        raise DataAccessDisabled(
            f"data access is disabled for SELECT AI: vector index {idx['index_name']} embeds "
            "table rows",
            detail="An administrator ran dbms_cloud_ai.disable_data_access().",
            hint="A member of dbms_cloud_ai_admin can run dbms_cloud_ai.enable_data_access().")
    size, overlap = options.value(attrs, "chunk_size"), options.value(attrs, "chunk_overlap")
    wanted = []
    for src in srcs:
        for source_id, text in sources.documents(plpy, ctx, src, options.credential(attrs)):
            wanted.extend(sources.chunks(source_id, text or "", size, overlap))
    # a table may repeat an id: its first row's chunks count
    wanted = list({(c.source, c.no): c for c in reversed(wanted)}.values())[::-1]
    have = {(r["source"], r["chunk_no"]): r["hash"] for r in db.query(plpy, """
        select source, chunk_no, hash from dbms_cloud_ai._vector_chunk
         where index_id = $1::uuid and owner = current_user""", ("text",), (idx["index_id"],))}
    changed = [c for c in wanted if have.get((c.source, c.no)) != c.hash(model)]
    dim = attrs.get("vector_dimension")
    rows = []
    with accounting.turn(plpy, ctx, ctx.profile.name, "vector_index"):
        for c in changed:
            vec = embeddings.embed(plpy, ctx.profile.attrs, c.content, ctx)
            if dim is not None and len(vec.values) != dim:
                raise InvalidParameter(
                    f"vector index attribute vector_dimension is {dim}, but model {model} "
                    f"returned {len(vec.values)} dimensions",
                    hint="Correct it with dbms_cloud_ai.update_vector_index(), or remove it.")
            rows.append({"source": c.source, "chunk_no": c.no, "content": c.content,
                         "hash": c.hash(model), "embedding": vec.values})
    for i in range(0, len(rows), WRITE_BATCH):
        writer.query(plpy, _UPSERT, ("text", "text", "text"),
                     (idx["index_id"], json.dumps(rows[i:i + WRITE_BATCH]), model))
    if len(wanted) != len(have) or any((c.source, c.no) not in have for c in wanted):
        writer.query(plpy, _DELETE_GONE, ("text", "text"),
                     (idx["index_id"],
                      json.dumps([{"source": c.source, "chunk_no": c.no} for c in wanted])))
    writer.query(plpy, """
        update dbms_cloud_ai._vector_index
           set refreshed = pg_catalog.now(), embedding_model = $2
         where index_id = $1::uuid and owner = dbms_cloud_ai._caller()""",
                 ("text", "text"), (idx["index_id"], model))
    # The HNSW index (pgvector) is not built here, in the caller's transaction,
    # but by the maintenance procedures (ann.maintain): issue 30, class 3.
    if changed or len(wanted) != len(have):
        writer.query(plpy, COMMON_WORDS, ("text", "int4"), (idx["index_id"], retrieve.RARE))
    return len(changed)
