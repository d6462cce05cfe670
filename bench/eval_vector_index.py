"""Retrieval quality of each path with a real embedding model (issue 19).

bench_vector_index.py measures speed at scale with the fake's hashed
embeddings, which make a poor judge of meaning.  This one asks 30 questions of
30 short handbook documents, each question written for one document mostly
in other words, with all-MiniLM-L6-v2 (scripts/local-embeddings.sh, or any
OpenAI-compatible embeddings server) embedding documents and questions, and
reports for each retrieval path how often the document is first, and among
the first 3 (match_limit 3):

    scripts/local-embeddings.sh start
    DCA_PGHOST=... DCA_PGPORT=... .venv/bin/python -m bench.eval_vector_index \
        --url http://127.0.0.1:8766 --model all-minilm-l6-v2

Paths: words+cosine (full text, then cosine), hnsw (pgvector, when the server
has it) and the exact scan.  An evaluation, not a test: it exits 0 whatever
the figures (2 without a server).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import httpx

from bench.bench_vector_index import PATHS, prepare
from bench.benchlib import connect, drop_database, fresh_database

DB = "dca_eval_vector_index"
USER = "eval_vector_index_user"
LIMIT = 3

# (document, a question it answers, mostly in other words)
CASES = [
    ("Staff request annual leave through the shift planner at least four weeks in advance.",
     "How early must I ask for my vacation days?"),
    ("Unworn shoes can be returned within 60 days with the receipt.",
     "What is the deadline to bring back trainers I never used?"),
    ("The staff car park behind the warehouse opens at six in the morning.",
     "From what time can employees leave their vehicle on site?"),
    ("Payslips are published on the intranet on the last working day of each month.",
     "When do I see my salary statement?"),
    ("Lost badges must be reported to security, who issue a replacement for ten euros.",
     "I misplaced my access card, what do I do?"),
    ("The canteen serves a vegetarian dish every day and a vegan dish on Fridays.",
     "Is there plant-based food for lunch?"),
    ("Laptops are replaced every four years or earlier if they fail.",
     "How often do we get a new computer?"),
    ("Customers can pay with cards, cash, or the store's gift vouchers.",
     "Which payment methods are accepted at the till?"),
    ("Fire drills take place twice a year; the assembly point is the north lawn.",
     "Where should we gather during an evacuation?"),
    ("New hires shadow an experienced colleague during their first two weeks.",
     "How are newcomers trained when they start?"),
    ("Overtime is paid at one and a half times the normal hourly rate.",
     "What do I earn for extra hours?"),
    ("Store opening hours are nine to eight, Monday to Saturday, closed on Sundays.",
     "Can shoppers visit on the weekend?"),
    ("Damaged goods from suppliers are photographed and sent back within five days.",
     "What happens to broken deliveries from vendors?"),
    ("Employees get a thirty percent discount on all products, limited to five pairs a year.",
     "Do workers get cheaper shoes?"),
    ("The first aid kit is in the back office next to the kettle.",
     "Where are the bandages kept?"),
    ("Remote work is allowed two days a week for office staff with their manager's agreement.",
     "Can I work from home?"),
    ("Expense claims need receipts and are reimbursed with the next salary.",
     "How do I get money back for a business taxi?"),
    ("Inventory is counted every quarter after closing time.",
     "When do we do the stock take?"),
    ("Uniforms are provided free: two shirts and one jacket each year.",
     "Do I have to buy my own work clothes?"),
    ("Sick leave must be reported to the manager before the shift starts.",
     "Who do I tell when I am ill and cannot come in?"),
    ("Online orders ship within two working days; express delivery arrives the next day.",
     "How fast does a web purchase reach the customer?"),
    ("The loyalty card gives one point per euro; one hundred points are worth five euros.",
     "How does the rewards programme work?"),
    ("Bicycles can be parked in the covered rack by the staff entrance.",
     "Where do I leave my bike?"),
    ("Performance reviews happen every January with the line manager.",
     "When is my yearly appraisal?"),
    ("Cash registers are balanced by two people at the end of every day.",
     "Who checks the tills at closing?"),
    ("Children's shoe sizes are measured free of charge with the foot gauge.",
     "Can kids get their feet sized in the shop?"),
    ("Parental leave is sixteen weeks at full pay for either parent.",
     "How long can I stay home after my baby is born?"),
    ("Stolen goods are reported to the police and the regional manager the same day.",
     "What is the procedure after shoplifting?"),
    ("Waterproofing spray is recommended for leather hiking boots every month.",
     "How do I keep my walking boots dry?"),
    ("The pension scheme matches contributions up to five percent of salary.",
     "Does the company add to my retirement savings?"),
]


def embed(client: httpx.Client, url: str, model: str, text: str) -> list[float]:
    base = url.rstrip("/")
    base = base if base.endswith("/v1") else base + "/v1"
    r = client.post(f"{base}/embeddings", json={"model": model, "input": [text]})
    r.raise_for_status()
    v = r.json()["data"][0]["embedding"]
    n = sum(x * x for x in v) ** 0.5
    return [x / n for x in v]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default=os.environ.get("LOCAL_EMBED_URL", "http://127.0.0.1:8766"))
    ap.add_argument("--model", default=os.environ.get("LOCAL_EMBED_NAME", "all-minilm-l6-v2"))
    a = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("eval: set DCA_PGHOST and DCA_PGPORT", file=sys.stderr)
        return 2
    created = fresh_database(DB, [USER])
    try:
        with connect("postgres", DB) as admin:
            admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
        paths = prepare(DB, USER, a.model, LIMIT)
        with connect(USER, DB) as u:
            u.execute("select dbms_cloud.create_credential('C', 'u', 'none')")
            u.execute("select dbms_cloud_ai.create_profile('EMB', %s)", (json.dumps(
                {"provider": "openai", "credential_name": "C", "provider_endpoint": a.url,
                 "embedding_model": a.model}),))
            u.execute(f"create table {USER}.docs (id int primary key, body text)")
            for i, (doc, _) in enumerate(CASES):
                u.execute(f"insert into {USER}.docs values (%s, %s)", (i, doc))
            u.execute("select dbms_cloud_ai.create_vector_index('HB', %s)", (json.dumps(
                {"location": f"table:{USER}.docs(id, body)", "profile_name": "EMB"}),))
            u.execute("call dbms_cloud_ai.maintain_vector_indexes('HB')")   # the HNSW index
            index_id = u.execute("select index_id::text from dbms_cloud_ai._vector_index").fetchone()[0]
            call = "select * from public.bench_vector_index_search(%s, %s, %s::float4[], %s)"
            first = {p: 0 for p in paths + ["exact"]}
            top = dict(first)
            with httpx.Client(timeout=60) as client:
                for i, (_, q) in enumerate(CASES):
                    vec = embed(client, a.url, a.model, q)
                    for p in paths + ["exact"]:
                        got = [r[0] for r in u.execute(call, (index_id, q, vec, p))]
                        target = f"{USER}.docs:{i}"
                        first[p] += bool(got) and got[0] == target
                        top[p] += target in got
        print(f"retrieval quality, {len(CASES)} questions over {len(CASES)} documents, "
              f"embeddings {a.model} ({a.url}), match_limit {LIMIT}:")
        for p in paths + ["exact"]:
            print(f"  {PATHS[p]:<16} first: {first[p] / len(CASES):4.0%}   "
                  f"among the first {LIMIT}: {top[p] / len(CASES):4.0%}")
    finally:
        drop_database(DB, created)
    return 0


if __name__ == "__main__":
    sys.exit(main())
