#!/usr/bin/env python3
"""A quick NL2SQL check of the local model (docs/local-model.md): 10 questions over the demo
schema (demo/sample_schema.sql, schema sh) sent straight to the server, each answer run against
a database holding that schema and compared with the result of a gold query.

    quickeval.py URL DSN [MODEL]      e.g. http://127.0.0.1:8765 "host=/tmp/sock port=5432 dbname=demo"

A result is right when it has the gold result's row count and each gold column's values
(rounded, as text) equal some returned column's values: extra columns and column names are
free, row order is not compared (so the month question checks the counts, whatever form the
month takes).  Needs psycopg (the test venv has it).
"""
import json
import re
import sys
import time
import urllib.request
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = [
    ("How many customers are there?", "select count(*) from sh.customers"),
    ("How many products are in the Footwear category?",
     "select count(*) from sh.products where prod_category = 'Footwear'"),
    ("What is the total amount sold over all sales?", "select sum(amount_sold) from sh.sales"),
    ("What is the total amount sold in each sales channel?",
     "select channel, sum(amount_sold) from sh.sales group by channel"),
    ("Which product has the highest list price?",
     "select prod_name from sh.products order by prod_list_price desc limit 1"),
    ("How many customers live in Germany?",
     "select count(*) from sh.customers c join sh.countries k using (country_id) "
     "where k.country_name = 'Germany'"),
    ("What is the total quantity sold of products in the Electronics category?",
     "select sum(s.quantity_sold) from sh.sales s join sh.products p using (prod_id) "
     "where p.prod_category = 'Electronics'"),
    ("Who are the 3 customers who spent the most? Give their first and last names.",
     "select c.cust_first_name, c.cust_last_name from sh.sales s join sh.customers c using (cust_id) "
     "group by c.cust_id, c.cust_first_name, c.cust_last_name order by sum(s.amount_sold) desc limit 3"),
    ("How many sales were made in each month of 2024?",
     "select count(*) from sh.sales "
     "where time_id >= '2024-01-01' and time_id < '2025-01-01' group by date_trunc('month', time_id)"),
    ("How many customers does each country in Europe have?",
     "select k.country_name, count(*) from sh.customers c join sh.countries k using (country_id) "
     "where k.country_region = 'Europe' group by k.country_name"),
]
SYSTEM = ("You write PostgreSQL queries. Answer the user's question with exactly one SELECT "
          "statement over the schema below, using schema-qualified table names. Reply with the SQL "
          "only, no explanation.\n\n{schema}")


def schema_ddl():
    """The demo schema's DDL and comments: what a model needs to know about the tables."""
    text = (ROOT / "demo" / "sample_schema.sql").read_text()
    keep = [ln for ln in text.split("\ninsert into")[0].splitlines()
            if not ln.startswith("--") and not ln.startswith("create index")]
    return "\n".join(keep).strip()


def chat(url, model, messages, max_tokens=300):
    body = json.dumps({"model": model, "messages": messages, "temperature": 0,
                       "max_tokens": max_tokens}).encode()
    req = urllib.request.Request(url + "/v1/chat/completions", body, {"Content-Type": "application/json"})
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=600) as r:
        data = json.load(r)
    return data, time.monotonic() - t0


def extract_sql(text):
    m = re.search(r"```(?:sql)?\s*(.*?)```", text, re.S | re.I)
    sql = (m.group(1) if m else text).strip()
    return sql.rstrip(";").strip()


def norm(v):
    if isinstance(v, float) or type(v).__name__ == "Decimal":
        return f"{float(v):.2f}"
    return str(v)


def columns(rows):
    return [sorted(norm(r[i]) for r in rows) for i in range(len(rows[0]))] if rows else []


def same(got, gold):
    if len(got) != len(gold):
        return False
    if not gold:
        return True
    got_cols = columns(got)
    return all(col in got_cols for col in columns(gold))


def run(conn, sql):
    with conn.transaction():
        with conn.cursor() as cur:
            cur.execute("set local transaction read only")
            cur.execute("set local statement_timeout = '5s'")
            cur.execute(sql)
            return cur.fetchall()


def main():
    url, dsn = sys.argv[1], sys.argv[2]
    model = sys.argv[3] if len(sys.argv) > 3 else "local"
    system = SYSTEM.format(schema=schema_ddl())
    right = runs = 0
    with psycopg.connect(dsn, autocommit=True) as conn:
        for question, gold in QUESTIONS:
            data, secs = chat(url, model, [{"role": "system", "content": system},
                                           {"role": "user", "content": question}])
            sql = extract_sql(data["choices"][0]["message"]["content"] or "")
            usage = data.get("usage", {})
            try:
                got = run(conn, sql)
                runs += 1
                ok = same(got, run(conn, gold))
                verdict = "right" if ok else "wrong result"
            except psycopg.Error as e:
                ok, verdict = False, f"error: {str(e).splitlines()[0]}"
            right += ok
            print(f"{secs:6.1f}s p={usage.get('prompt_tokens')} c={usage.get('completion_tokens')} "
                  f"{verdict:14.60} | {question} | {sql!r}", flush=True)
    print(f"{right}/{len(QUESTIONS)} right, {runs}/{len(QUESTIONS)} ran")


if __name__ == "__main__":
    main()
