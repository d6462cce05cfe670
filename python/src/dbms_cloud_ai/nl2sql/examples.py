"""Examples in NL2SQL prompts: earlier questions with a query their asker
confirmed or corrected (feedback.py stores them), the closest first.

By cosine similarity of the questions' embeddings when the profile has an
``embedding_model``, else by the overlap of their words (full text).  NL2SQL
(actions.py) puts at most MAX_EXAMPLES before the question and records which
ones an answer used as its sources.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .. import db
from ..model import accounting, embeddings

MAX_EXAMPLES = 3
MIN_OVERLAP = 0.5        # full text: shared words / all words of the two questions (Jaccard)
TS_CONFIG = "pg_catalog.english"


def _collapse(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Example:
    kind: str            # feedback or rated_prompt (the source kind recorded with the answer)
    source_id: str
    question: str
    sql: str
    similarity: float


_HAS_EMBEDDED = """select exists (select from dbms_cloud_ai._example e
                                   where e.owner = current_user and e.profile_name = $1
                                     and e.embedding_model = $2) as x"""

# Candidates of the owner's profile: those with an embedding of the profile's
# model get the cosine similarity with the question's (vectors are unit
# length; multiplied in float8, because real models give components near
# 1e-33 whose float4 product underflows, an error); the others match at least
# one word of the question (an OR query over its lexemes, through the GIN
# index) and get the Jaccard overlap of the two questions' lexemes, ranked
# with ts_rank_cd among equals.
_EXAMPLES = f"""
    with q as (select pg_catalog.tsvector_to_array(pg_catalog.to_tsvector('{TS_CONFIG}', $2)) as words),
    w as (select q.words,
                 nullif(pg_catalog.array_to_string(array(
                     select '''' || pg_catalog.replace(pg_catalog.replace(l, '\\', '\\\\'), '''', '''''')
                            || '''' from pg_catalog.unnest(q.words) l), ' | '), '')::tsquery as query
            from q)
    select e.source_kind,
           pg_catalog.upper(coalesce(e.feedback_id, e.conversation_prompt_id)::text) as source_id,
           e.question, e.sql,
           case when $3::float4[] is not null and e.embedding_model = $4
                then {embeddings.cosine_sql("e.embedding", "$3::float4[]")}
           end as cosine,
           (select pg_catalog.count(*) from pg_catalog.unnest(w.words) x
             where x = any (pg_catalog.tsvector_to_array(e.tsv)))::float8
             / greatest(pg_catalog.cardinality(array(
                   select pg_catalog.unnest(w.words)
                   union select pg_catalog.unnest(pg_catalog.tsvector_to_array(e.tsv)))), 1) as overlap,
           coalesce(pg_catalog.ts_rank_cd(e.tsv, w.query), 0)::float8 as rank
      from dbms_cloud_ai._example e, w
     where e.owner = current_user and e.profile_name = $1
       and (e.tsv @@ w.query or ($3::float4[] is not null and e.embedding_model = $4))
     order by e.example_id desc
     limit 500"""


def examples_for(plpy, call) -> list[Example]:
    """The closest examples for ``call.prompt`` (at most MAX_EXAMPLES), best first."""
    if not getattr(call, "use_examples", True):
        return []
    name = call.profile.name
    model = embeddings.model_of(call.attrs)
    qvec = None
    if model and embeddings.supported(call.attrs) \
            and db.one(plpy, _HAS_EMBEDDED, ("text", "text"), (name, model))["x"]:
        qvec = embeddings.embed(plpy, call.attrs, call.prompt, call.ctx).values
    rows = db.query(plpy, _EXAMPLES, ("text", "text", "float4[]", "text"),
                    (name, call.prompt, qvec, model))
    by_meaning, by_words = [], []
    for r in rows:
        if r["cosine"] is not None:
            if r["cosine"] >= embeddings.MIN_COSINE:
                by_meaning.append((r["cosine"], 0.0, r))
        elif r["overlap"] >= MIN_OVERLAP:
            by_words.append((r["overlap"], r["rank"], r))
    picked, seen = [], set()
    for score, _, r in sorted(by_meaning, key=lambda t: t[0], reverse=True) \
            + sorted(by_words, key=lambda t: (t[0], t[1]), reverse=True):
        key = (_collapse(r["question"]).lower(), _collapse(r["sql"]))
        if key in seen:
            continue
        seen.add(key)
        picked.append(Example(r["source_kind"], r["source_id"], r["question"], r["sql"],
                              round(float(score), 4)))
        if len(picked) == MAX_EXAMPLES:
            break
    return picked


EXAMPLES_INTRO = ("Examples: earlier questions about these tables, each with a query that its "
                  "asker confirmed or corrected, as a JSON list of user_prompt and sql_query. "
                  "Where one fits, follow its choice of tables, joins, filters and column "
                  "aliases; the question to answer is the one below.")


def render(examples: list[Example]) -> str:
    """The examples for the user message, placed before the question: Oracle's
    shape, a JSON list of {"user_prompt", "sql_query"}.  Both as stored: the
    SQL exactly as the user corrected it (JSON escapes its line breaks and
    quotes, so no text in it can pass for a rule or a question)."""
    if not examples:
        return ""
    shown = [{"user_prompt": ex.question, "sql_query": ex.sql} for ex in examples]
    return f"\n\n{EXAMPLES_INTRO}\n{json.dumps(shown, indent=2, ensure_ascii=False)}"


def record_sources(completion, examples: list[Example]) -> None:
    """Store with the answer which examples its prompt included."""
    call_id = completion.extra.get("call_id") if completion is not None else None
    if not call_id or not examples:
        return
    for kind in ("feedback", "rated_prompt"):
        items = [(ex.source_id, ex.similarity) for ex in examples if ex.kind == kind]
        if items:
            accounting.add_sources(call_id, kind, items)
