"""Vector indexes (issue 19): build throughput and retrieval latency on each path.

Run by `make bench` against a throwaway cluster (DCA_PGHOST / DCA_PGPORT), or
against any server where postgres is a trust-auth superuser:

    .venv/bin/python -m bench.bench_vector_index [--build N] [--chunks M] [--queries Q]
        [--exact-queries E] [--keep]

It creates a fresh database dca_bench_vector_index with the extension and a fake LLM in
this process (its embeddings are a hashed bag of words, 256 dimensions,
tools/fake_llm.embed_text).  Texts are 30 words drawn Zipf-like from 3,000
made-up words, so full-text matches are neither all nor none of the chunks.

1. Build: --build (1,000) rows of a table of bench_vector_index_user's, one chunk each,
   indexed by create_vector_index (one embedding request per chunk to the fake
   endpoint, accounted): chunks/s.  Then a refresh with nothing changed, and
   one with a tenth of the rows edited (only those are embedded again).
2. Retrieval at 1,000 chunks (that index) and at --chunks (100,000): the
   larger index's chunks are bulk-inserted as the superuser, with the fake's
   embedding of each text.  Each question is 5 words of a random chunk (its
   target); the question's vector is the fake's embedding of them.  Timed from
   the client as bench_vector_index_user (row-level security applies), PREPAREd with the
   types the extension uses, excluding the embedding call:
   - words+cosine: vector_indexes/retrieve.py's statement without pgvector (GIN full-text
     candidates, the best by ts_rank, re-ranked by cosine; bounded fallbacks);
   - hnsw: vector_indexes/ann.py, pgvector's HNSW index of the vector index (when the
     server has pgvector: the database gets CREATE EXTENSION vector; the
     1,000-chunk index builds it at create, the bulk-loaded one is timed);
   - exact scan: cosine over every chunk of the index (the quality reference).
   Quality: how often the target chunk is among the 5 returned, and how many of
   the exact scan's 5 each path also returns (recall@5).

A benchmark, not a test: it exits 0 whatever the figures (2 if no server).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import sys
import time

from dbms_cloud_ai.vector_indexes import refresh, retrieve
from fake_llm import embed_text

from bench.benchlib import Bench, connect, durability, summary

DB = "dca_bench_vector_index"
USER = "bench_vector_index_user"
LIMIT = 5


def vocabulary(n=3000, seed=7) -> list[str]:
    rnd = random.Random(seed)
    syll = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "pe", "dra", "gon", "fel", "mar", "tis"]
    words = set()
    while len(words) < n:
        words.add("".join(rnd.choice(syll) for _ in range(rnd.randint(2, 4))))
    return sorted(words)


def text(rnd, words, n=30) -> str:
    return " ".join(words[int(len(words) ** rnd.random()) - 1] for _ in range(n)) + "."


def question(rnd, body: str) -> str:
    ws = body.rstrip(".").split()
    return " ".join(rnd.sample(ws, 5))


EXACT = f"""
    select c.source, c.chunk_no, {retrieve.embeddings.cosine_sql("c.embedding", "$2::float4[]")} as similarity
      from dbms_cloud_ai._vector_chunk c
     where c.index_id = $1::uuid and c.embedding_model = $3
     order by similarity desc, c.source, c.chunk_no limit $4"""


# What narrate runs, inside the backend: retrieve.search on one path (the
# chunks read as dbms_cloud_ai_owner through the writer's gate, so the GIN and
# HNSW indexes apply), or the exact scan (as the caller: a scan of the index's
# chunks by its id).
HARNESS = r"""
create function public.bench_vector_index_search(index_id text, question text, vec float4[], path text)
returns setof text language plpython3u volatile
as $python$
    import importlib
    if "dbms_cloud_ai" not in GD:
        plpy.execute("select dbms_cloud_ai.get_profile()")
    retrieve = importlib.import_module("dbms_cloud_ai.vector_indexes.retrieve")
    embeddings = importlib.import_module("dbms_cloud_ai.model.embeddings")
    v = embeddings.Vector(list(vec), "m")
    if path == "exact":
        plan = GD.get("bench_vector_index_exact")
        if plan is None:
            plan = GD["bench_vector_index_exact"] = plpy.prepare(EXACT_SQL, ["text", "float4[]", "text", "int4"])
        return [r["source"] for r in plan.execute([index_id, vec, "m", LIMIT])]
    return [r["source"] for r in retrieve.search(plpy, index_id, question, v, 0.0, LIMIT, path=path)]
$python$;
"""
PATHS = {"text": "words+cosine", "hnsw": "hnsw (pgvector)", "exact": "exact scan"}


def prepare(db: str, user: str, model: str, limit: int) -> list[str]:
    """The user, its schema, the harness and pgvector (when the server has it) in a
    fresh database; the retrieval paths to compare."""
    harness = HARNESS.replace("EXACT_SQL", repr(EXACT)).replace("LIMIT", str(limit)) \
        .replace('"m"', "MODEL").replace("import importlib", f"import importlib\n    MODEL = {model!r}")
    with connect("postgres", db) as admin:
        admin.execute(f"grant dbms_cloud_ai_user to {user}")
        admin.execute(f"create schema {user} authorization {user}")
        admin.execute(harness)
        admin.execute(f"grant execute on function public.bench_vector_index_search(text, text, float4[], "
                      f"text) to {user}")
        pgvector = admin.execute("select exists (select from pg_available_extensions "
                                 "where name = 'vector')").fetchone()[0]
        if pgvector:
            admin.execute("create extension vector")
    return ["text", "hnsw"] if pgvector else ["text"]


def measure(conn, index_id, questions, paths, exact_n):
    """Per path: latencies, target hit rate, recall@LIMIT against the exact scan."""
    call = "select * from public.bench_vector_index_search(%s, %s, %s::float4[], %s)"
    got = {p: {"ms": [], "hits": 0, "n": 0, "overlap": []} for p in paths + ["exact"]}
    for p in paths:
        conn.execute(call, (index_id, "warm up", embed_text("warm up"), p)).fetchall()
    for i, (q, target) in enumerate(questions):
        vec = embed_text(q)
        found = {}
        for p in paths + (["exact"] if i < exact_n else []):
            t = time.perf_counter()
            found[p] = {r[0] for r in conn.execute(call, (index_id, q, vec, p), prepare=True)}
            g = got[p]
            g["ms"].append((time.perf_counter() - t) * 1000)
            g["hits"] += target in found[p]
            g["n"] += 1
        if "exact" in found:
            for p in paths:
                got[p]["overlap"].append(len(found[p] & found["exact"]) / max(1, len(found["exact"])))
    return got


def report(label, got):
    for p, g in got.items():
        if not g["n"]:
            continue
        s = summary(g["ms"])
        line = (f"  {label}: {PATHS[p]:<16} p50 {s['p50']:7.2f} ms  p95 {s['p95']:7.2f} ms"
                f"  target in top {LIMIT}: {g['hits'] / g['n']:.0%}")
        if g["overlap"]:
            line += f"  recall@{LIMIT} vs exact: {sum(g['overlap']) / len(g['overlap']):.0%}"
        print(line + (f"  (n={g['n']})" if p == "exact" else ""))


def copy_chunks(admin, index_id, n, words, rnd) -> list[tuple[str, str]]:
    """n chunks with the fake's embeddings, COPYed as the superuser; (source, text) of each."""
    out, buf = [], io.StringIO()
    for i in range(n):
        body = text(rnd, words)
        src = f"bulk:{i}"
        out.append((src, body))
        vec = "{" + ",".join("0" if x == 0 else repr(x) for x in embed_text(body)) + "}"
        buf.write(f"{index_id}\t{USER}\t{src}\t0\t{body}\th{i}\t{vec}\tm\n")
        if len(out) % 20000 == 0 or i == n - 1:
            with admin.cursor().copy(
                    "copy dbms_cloud_ai._vector_chunk (index_id, owner, source, chunk_no, content, "
                    "hash, embedding, embedding_model) from stdin") as cp:
                cp.write(buf.getvalue())
            buf = io.StringIO()
    admin.execute("vacuum analyze dbms_cloud_ai._vector_chunk")
    # what a refresh does last: the index's common words
    # (as the superuser, who names the owner _caller() names for the writer)
    admin.execute(refresh.COMMON_WORDS.replace("%L", "%%L").replace("$1", "%(i)s").replace("$2", "%(n)s")
                  .replace("(index_id, common_words)", "(index_id, owner, common_words)")
                  .replace("select %(i)s::uuid,", "select %(i)s::uuid, %(o)s,"),
                  {"i": index_id, "n": retrieve.RARE, "o": USER})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", type=int, default=1000)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--exact-queries", type=int, default=20)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("bench: set DCA_PGHOST and DCA_PGPORT", file=sys.stderr)
        return 2
    print("vector index benchmark;", durability())
    rnd, words = random.Random(1), vocabulary()
    with Bench(DB, users=[USER], keep=a.keep) as b:
        paths = prepare(DB, USER, "m", LIMIT)
        pgvector = "hnsw" in paths
        print("pgvector: " + ("available: paths words+cosine and hnsw" if pgvector
                              else "not available: path words+cosine only"))
        b.profile(USER, "EMB", embedding_model="m")
        with connect(USER, DB) as u:
            u.execute(f"create table {USER}.docs (id int primary key, body text)")
            small = [(i, text(rnd, words)) for i in range(a.build)]
            with u.cursor().copy(f"copy {USER}.docs from stdin") as cp:
                for row in small:
                    cp.write_row(row)
            attrs = json.dumps({"location": f"table:{USER}.docs(id, body)", "profile_name": "EMB"})
            t = time.perf_counter()
            u.execute("select dbms_cloud_ai.create_vector_index('SMALL', %s)", (attrs,))
            u.execute("call dbms_cloud_ai.maintain_vector_indexes('SMALL')")   # its HNSW index
            build = time.perf_counter() - t
            print(f"build: {a.build} chunks in {build:.2f} s = {a.build / build:.0f} chunks/s "
                  "(one accounted embedding request each, fake endpoint)")
            t = time.perf_counter()
            n = u.execute("select dbms_cloud_ai.refresh_vector_index('SMALL')").fetchone()[0]
            print(f"refresh, nothing changed: {time.perf_counter() - t:.2f} s ({n} embedded)")
            u.execute(f"update {USER}.docs set body = body || ' edited' where id % 10 = 0")
            t = time.perf_counter()
            n = u.execute("select dbms_cloud_ai.refresh_vector_index('SMALL')").fetchone()[0]
            print(f"refresh, a tenth edited: {time.perf_counter() - t:.2f} s ({n} embedded)")
            small_id = u.execute("select index_id::text from dbms_cloud_ai._vector_index "
                                 "where index_name = 'SMALL'").fetchone()[0]
            u.execute("select dbms_cloud_ai.create_vector_index('LARGE', %s, null, false)", (attrs,))
            large_id = u.execute("select index_id::text from dbms_cloud_ai._vector_index "
                                 "where index_name = 'LARGE'").fetchone()[0]
        with connect(USER, DB) as u:
            qs = []
            for _ in range(a.queries):
                i, b = rnd.choice(small)
                b = b if i % 10 else b + " edited"
                qs.append((question(rnd, b), f"{USER}.docs:{i}"))
            print(f"retrieval at {a.build} chunks ({a.queries} questions, match_limit {LIMIT}):")
            report(f"{a.build:>7}", measure(u, small_id, qs, paths, a.exact_queries))
        with connect("postgres", DB) as admin:
            t = time.perf_counter()
            big = copy_chunks(admin, large_id, a.chunks, words, rnd)
            print(f"(loaded {a.chunks} chunks in {time.perf_counter() - t:.0f} s)")
            if pgvector:    # what the refresh after such a load does last (vector_indexes/ann.py)
                admin.execute("set maintenance_work_mem = '512MB'")
                t = time.perf_counter()
                admin.execute("select dbms_cloud_ai._vector_ann_step(%s::uuid, %s)", (large_id, USER))
                print(f"(HNSW index of {a.chunks} chunks built in {time.perf_counter() - t:.0f} s, "
                      "maintenance_work_mem 512MB)")
        with connect(USER, DB) as u:
            qs = [(question(rnd, b), s) for s, b in (rnd.choice(big) for _ in range(a.queries))]
            print(f"retrieval at {a.chunks} chunks:")
            report(f"{a.chunks:>7}", measure(u, large_id, qs, paths, a.exact_queries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
