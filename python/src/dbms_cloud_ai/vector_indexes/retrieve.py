"""The chunks of an index closest to a question.

With pgvector, through the index's HNSW index (ann.py).  Without it (or before
the first refresh built that index), one statement, two steps:

1. candidates: the chunks whose tsvector (GIN index, 'english' stemming, stop
   words dropped) matches any of the question's selective words, the
   CANDIDATES best by ts_rank among the first MAX_MATCHES found.  A word is
   selective unless it is one of the index's common words (in RARE chunks or
   more, counted by each refresh: refresh.COMMON_WORDS): a word found in most
   chunks says nothing about which to take, and ranking its matches would cost
   a scan.  When every word is common, the chunks matching all of them;
2. the cosine of each candidate's stored embedding with the question's
   (float8 products: embeddings.cosine_sql); the match_limit best at
   similarity_threshold or more.

When the words find fewer than match_limit chunks, the chunks matching any of
them (common ones too; the CANDIDATES best among the first MAX_MATCHES / 4) are
scored too; when even those are too few, the newest FALLBACK_SCAN chunks (a
bounded scan: meaning without a shared word still answers on small indexes).  bench/bench_vector_index.py measures speed
and quality against an exact scan (bench/README.md).

The caller has read the index row itself (row-level security: its own, or one
granted to it); the chunks of that index and its common words are then read as
dbms_cloud_ai_owner through the writer's gate (policies vector_chunk_search and
vector_index_content_search, sql/schema/090-vector-indexes*.sql): under the callers' policy PostgreSQL
may not use the GIN index for @@, which is not leakproof, and scans every
chunk of the table instead.
"""

from __future__ import annotations

import re

from .. import writer
from ..model import embeddings
from . import ann

CANDIDATES = 50           # re-ranked by cosine: about 50 us each (256 dimensions); 100 was
                          # 22 ms at 100,000 chunks, over the goal (bench/README.md)
FALLBACK_SCAN = 300
RARE = 300                # a word in this many chunks or more is not selective
MAX_MATCHES = 2000        # matches ranked by ts_rank at most (the first found)
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """The text's distinct words (only word characters reach a tsquery)."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(text or "")))[:32]


_COSINE = embeddings.cosine_sql("c.embedding", "$3::float4[]")
# $1 index, $2 words, $3 question vector, $4 model, $5 threshold, $6 limit,
# $7 candidates, $8 fallback scan size (0: none), $9 matches ranked at most
_SEARCH = f"""
    with lexemes as (
        -- to_tsvector, not plainto_tsquery per word: a stop word then drops out
        -- silently instead of raising a NOTICE to the caller
        select pg_catalog.quote_literal(l.lexeme)::tsquery as q,
               l.lexeme = any (coalesce((select x.common_words
                                           from dbms_cloud_ai._vector_index_content x
                                          where x.index_id = $1::uuid), '{{}}')) as common
          from pg_catalog.unnest(pg_catalog.tsvector_to_array(pg_catalog.to_tsvector(
                   'pg_catalog.english', pg_catalog.array_to_string($2::text[], ' ')))) as l(lexeme)),
    query as (
        select coalesce(
                   (select pg_catalog.string_agg(l.q::text, ' | ') from lexemes l where not l.common),
                   (select pg_catalog.string_agg(l.q::text, ' & ') from lexemes l))::tsquery as q,
               (select pg_catalog.string_agg(l.q::text, ' | ') from lexemes l)::tsquery as any_word),
    matches as (
        select c.source, c.chunk_no, c.content, c.embedding, c.embedding_model,
               pg_catalog.ts_rank(c.tsv, query.q) as rank
          from query, dbms_cloud_ai._vector_chunk c
         where c.index_id = $1::uuid and c.tsv operator(pg_catalog.@@) query.q
         limit $9),
    words as (
        select m.source, m.chunk_no, m.content, m.embedding, m.embedding_model
          from matches m order by m.rank desc limit $7),
    -- too few: any word, common ones too (the first MAX_MATCHES / 4 found)
    broad as (
        select b.source, b.chunk_no, b.content, b.embedding, b.embedding_model
          from (select c.source, c.chunk_no, c.content, c.embedding, c.embedding_model,
                       pg_catalog.ts_rank(c.tsv, query.any_word) as rank
                  from query, dbms_cloud_ai._vector_chunk c
                 where c.index_id = $1::uuid and c.tsv operator(pg_catalog.@@) query.any_word
                   and (select pg_catalog.count(*) from words) < $6
                 limit $9 / 4) b
         order by b.rank desc limit $7),
    -- still too few (no word found at all): the newest chunks
    recent as (
        select c.source, c.chunk_no, c.content, c.embedding, c.embedding_model
          from dbms_cloud_ai._vector_chunk c
         where c.index_id = $1::uuid and $8 > 0
           and (select pg_catalog.count(*) from words) < $6
           and (select pg_catalog.count(*) from broad) < $6
         order by c.modified desc
         limit $8),
    found as (
        select * from words union all select * from broad union all select * from recent),
    scored as (
        select distinct on (c.source, c.chunk_no) c.source, c.chunk_no, c.content,
               {_COSINE} as similarity
          from found c
         where c.embedding_model = $4)
    select source, chunk_no, content, similarity from scored
     where similarity >= $5
     order by similarity desc, source, chunk_no
     limit $6"""
_TYPES = ("text", "text[]", "float4[]", "text", "float8", "int4", "int4", "int4", "int4")


def search(plpy, index_id: str, question: str, vector, threshold: float, limit: int,
           candidates: int = CANDIDATES, fallback: int = FALLBACK_SCAN,
           path: str = "auto") -> list[dict]:
    """path: "auto" (HNSW when there is one, else full text), or one of
    "hnsw" / "text" (bench/bench_vector_index.py compares them)."""
    if path in ("auto", "hnsw"):
        found = ann.search(plpy, index_id, vector, threshold, limit)
        if found is not None or path == "hnsw":
            return found or []
    return [dict(r) for r in writer.query(
        plpy, _SEARCH, _TYPES,
        (index_id, words(question), vector.values, vector.model, threshold, limit,
         candidates, fallback, MAX_MATCHES))]
