"""The chunks of an index closest to a question, without pgvector.

Two steps, both in one statement: full-text candidates from the GIN index on
the chunks' tsvector (any word of the question, 'english' stemming, the
CANDIDATES best by ts_rank), then the cosine of each candidate's stored
embedding with the question's (float8 products: embeddings.cosine_sql); the
match_limit best at similarity_threshold or more.  When the words find fewer
than match_limit chunks, the newest FALLBACK_SCAN chunks of the index are
scored by cosine too (a bounded scan: meaning without a shared word still
answers on small indexes).  bench/vector_index.py measures both
(bench/README.md).

The chunks are read as the caller: row-level security shows an index's chunks
to its owner and its grantees only.
"""

from __future__ import annotations

import re

from .. import db
from ..model import embeddings

CANDIDATES = 200
FALLBACK_SCAN = 2000
_WORD = re.compile(r"\w+")


def tsquery(text: str) -> str:
    """Any of the text's words (only word characters: never malformed)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text or "")))[:64]
    return " | ".join(words)


_COSINE = embeddings.cosine_sql("c.embedding", "$3::float4[]")
# $1 index, $2 tsquery text, $3 question vector, $4 model, $5 threshold, $6 limit,
# $7 candidates, $8 fallback scan size (0: none)
_SEARCH = f"""
    with words as (
        select c.source, c.chunk_no, c.content, c.embedding, c.embedding_model
          from pg_catalog.to_tsquery('pg_catalog.english', nullif($2, '')) as q(q),
               dbms_cloud_ai._vector_chunk c
         where c.index_id = $1::uuid and c.tsv operator(pg_catalog.@@) q.q
         order by pg_catalog.ts_rank(c.tsv, q.q) desc
         limit $7),
    recent as (
        select c.source, c.chunk_no, c.content, c.embedding, c.embedding_model
          from dbms_cloud_ai._vector_chunk c
         where c.index_id = $1::uuid and $8 > 0
           and (select pg_catalog.count(*) from words) < $6
         order by c.modified desc
         limit $8),
    scored as (
        select c.source, c.chunk_no, c.content, {_COSINE} as similarity
          from (select * from words union select * from recent) c
         where c.embedding_model = $4)
    select source, chunk_no, content, similarity from scored
     where similarity >= $5
     order by similarity desc, source, chunk_no
     limit $6"""
_TYPES = ("text", "text", "float4[]", "text", "float8", "int4", "int4", "int4")


def search(plpy, index_id: str, question: str, vector, threshold: float, limit: int,
           candidates: int = CANDIDATES, fallback: int = FALLBACK_SCAN) -> list[dict]:
    return [dict(r) for r in db.query(
        plpy, _SEARCH, _TYPES,
        (index_id, tsquery(question), vector.values, vector.model, threshold, limit,
         candidates, fallback))]
