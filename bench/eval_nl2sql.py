"""NL2SQL evaluation: execution accuracy over the demo schema (issue 17).

Run by `make bench` against a throwaway cluster, or against any running server
(superuser postgres, trust auth):

    DCA_PGHOST=/path/to/sock DCA_PGPORT=5432 .venv/bin/python bench/eval_nl2sql.py [--scripted]
    DCA_PGHOST=... DCA_PGPORT=... .venv/bin/python bench/eval_nl2sql.py \
        --url http://127.0.0.1:8080 --model NAME [--limit N] [--json OUT] [--verbose]

It creates a fresh database dca_eval_nl2sql with demo/sample_schema.sql (schema sh)
and the extension, a login role eval_nl2sql_user that may read sh, a credential
and an openai profile (object_list: schema sh, comments and constraints on,
temperature 0) whose provider_endpoint is

  --scripted (the default without --url): tools/fake_llm.py in this process,
      answering with demo/answers.json like `make demo` offline.  It knows only
      the walk-through's questions, so its score is low by design: it is the
      floor a real model is compared with;
  --url URL --model NAME: an OpenAI-compatible server (a host ACE lets the
      role reach its host and port);
  --oracle: the fake model answering every question with its gold query, a
      check of the harness and of the extension's SQL path: every gold query
      should pass the validator and score as correct.  Not a model's figure.

For each question of bench/nl2sql_eval.json, as that role:
dbms_cloud_ai.generate(question, profile, 'showsql') under statement_timeout
--gen-timeout; the SQL it returns is run in a read-only transaction under
statement_timeout --exec-timeout, and so is the gold query; both results are
compared (see `same_result` and bench/README.md, "NL2SQL evaluation").  An error
is a wrong answer with a category: generation failed (with its SQLSTATE),
execution error, timeout.  It prints the counts per category, execution
accuracy (strict, and with extra columns allowed), the latency of generate per
question, and with --verbose a line per question.

A benchmark, not a test: it exits 0 whatever the score (2 if no server).
"""

from __future__ import annotations

import argparse
import collections
import datetime
import decimal
import itertools
import json
import os
import pathlib
import statistics
import sys
import time
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "bench"))

from benchlib import connect, drop_database, durability, fresh_database  # noqa: E402
from fake_llm import Answer, FakeLLM, keyword_responder  # noqa: E402

DBNAME = "dca_eval_nl2sql"
ROLE = "eval_nl2sql_user"
PROFILE = "EVAL"
CREDENTIAL = "EVAL_CRED"
QUESTIONS = ROOT / "bench" / "nl2sql_eval.json"
SCHEMA = ROOT / "demo" / "sample_schema.sql"
ANSWERS = ROOT / "demo" / "answers.json"
DEFAULT_MAX_WAIT = 300.0  # model/timing.py: set_max_wait's default
MAX_COLUMNS = 12          # beyond this, extra-column matching is not tried (combinations)

CORRECT = "correct"
WRONG = "wrong result"
GEN_FAILED = "generation failed"
EXEC_ERROR = "execution error"
TIMEOUT = "timeout"
CATEGORIES = (CORRECT, WRONG, GEN_FAILED, EXEC_ERROR, TIMEOUT)


# --- comparing results ---------------------------------------------------------------

def norm(v):
    """One value, comparable across the types two equivalent queries may give it:
    every number is rounded to 2 decimals (count 3 = 3.00 = 3.0, avg 150.6533 = 150.65);
    a timestamp at midnight is its date; a string loses trailing blanks (char(n)).
    Tagged so that values of different kinds sort together and never compare equal."""
    if v is None:
        return (0, "")
    if isinstance(v, bool):
        return (1, str(v))
    if isinstance(v, (int, float, decimal.Decimal)):
        return (2, round(float(v), 2) + 0.0)   # + 0.0: -0.0 is 0.0
    if isinstance(v, datetime.datetime):
        if v.time() == datetime.time(0) and v.tzinfo is None:
            return (3, v.date().isoformat())
        return (3, v.isoformat())
    if isinstance(v, datetime.date):
        return (3, v.isoformat())
    if isinstance(v, str):
        return (4, v.rstrip())
    return (5, str(v))


def row_key(row) -> tuple:
    # Column order is ignored: a row is the sorted tuple of its normalized values.
    return tuple(sorted(norm(v) for v in row))


def rows_match(got: list[tuple], gold: list[tuple], ordered: bool) -> bool:
    a, b = [row_key(r) for r in got], [row_key(r) for r in gold]
    return a == b if ordered else sorted(a) == sorted(b)


def same_result(got: list[tuple], ncols: int, gold: list[tuple], gold_ncols: int,
                ordered: bool) -> tuple[bool, bool]:
    """(strict, lenient): strict when the rows are equal as multisets (as lists when
    ordered) of rows with the same number of columns, names and column order ignored;
    lenient also when some gold_ncols of the query's columns give the gold rows (the
    model added a column the question did not ask for, e.g. the count beside the top
    country)."""
    if ncols == gold_ncols:
        ok = rows_match(got, gold, ordered)
        return ok, ok
    if len(got) != len(gold) or ncols < gold_ncols or ncols > MAX_COLUMNS:
        return False, False
    for cols in itertools.combinations(range(ncols), gold_ncols):
        if rows_match([tuple(r[i] for i in cols) for r in got], gold, ordered):
            return False, True
    return False, False


# --- the database ------------------------------------------------------------------

def setup(endpoint: str, model: str | None, api_key: str, ace: tuple[str, int] | None,
          wait: float) -> list[str]:
    created = fresh_database(DBNAME, [ROLE])   # extension, and a PUBLIC ACE for 127.0.0.1
    with connect("postgres", DBNAME) as c:
        if wait > DEFAULT_MAX_WAIT:   # the administrator's cap on a model call's wait
            c.execute("select dbms_cloud_ai.set_max_wait(%s)", (wait,))
        c.execute(SCHEMA.read_text())
        c.execute(sql.SQL("grant dbms_cloud_ai_user to {}").format(sql.Identifier(ROLE)))
        c.execute(sql.SQL("grant usage on schema sh to {}").format(sql.Identifier(ROLE)))
        c.execute(sql.SQL("grant select on all tables in schema sh to {}").format(sql.Identifier(ROLE)))
        if ace:
            c.execute("select dbms_cloud_ai.append_host_ace(host => %s, principal_name => %s, "
                      "lower_port => %s)", (ace[0], ROLE, ace[1]))
    attrs = {"provider": "openai", "credential_name": CREDENTIAL, "provider_endpoint": endpoint,
             "object_list": [{"owner": "sh"}], "comments": True, "constraints": True,
             "temperature": 0,
             # a failed generation is scored by its SQLSTATE (LL005), not Oracle's text
             "raise_on_invalid_sql": True}
    if model:
        attrs["model"] = model
    with connect(ROLE, DBNAME) as c:
        c.execute("select dbms_cloud.create_credential(%s, 'user', %s)", (CREDENTIAL, api_key))
        c.execute("select dbms_cloud_ai.create_profile(%s, %s)", (PROFILE, json.dumps(attrs)))
    return created


def run_query(conn: psycopg.Connection, query: str, timeout_ms: int) -> tuple[list[tuple], int]:
    """Rows and column count of ``query``, read-only, bounded, rolled back."""
    with conn.transaction(force_rollback=True):
        conn.execute("set transaction read only")
        conn.execute("select set_config('statement_timeout', %s, true)", (f"{timeout_ms}ms",))
        cur = conn.execute(query)   # no parameters: the text is sent as it is, % and all
        if cur.description is None:
            return [], 0
        return cur.fetchall(), len(cur.description)


def message(e: psycopg.Error) -> str:
    detail = e.diag.message_detail
    return (e.diag.message_primary or str(e).splitlines()[0]) + (f" ({detail})" if detail else "")


def failure(e: psycopg.Error, generating: bool) -> str:
    if e.sqlstate in ("57014", "LL001"):   # statement_timeout; the provider's deadline
        return TIMEOUT
    return GEN_FAILED if generating else EXEC_ERROR


def oracle(questions: list[dict]):
    """A responder that answers each question with its gold query, in a repair round
    too (so a gold query the extension cannot use ends as a generation failure with
    PostgreSQL's error, not as a wrong result)."""
    def respond(wire, body):
        text = "\n".join(str(m.get("content")) for m in body.get("messages", ()) if m.get("role") == "user")
        hit = [q for q in questions if f"Question: {q['question']}" in text]
        return Answer(hit[-1]["gold_sql"] if hit else "SELECT 'not a question of the set'")
    return respond


def evaluate(questions: list[dict], args) -> list[dict]:
    user = connect(ROLE, DBNAME)
    runner = connect(ROLE, DBNAME)
    gen_ms, exec_ms = int(args.gen_timeout * 1000), int(args.exec_timeout * 1000)
    # A small model on a small machine may need more than http_timeout's default (120 s)
    # for one answer: --gen-timeout bounds both the call and each model request.
    user.execute("select set_config('statement_timeout', %s, false), "
                 "set_config('dbms_cloud_ai.http_timeout', %s, false)",
                 (f"{gen_ms}ms", f"{gen_ms}ms"))
    results = []
    for q in questions:
        r = {"id": q["id"], "question": q["question"], "tags": q.get("tags", []),
             "ordered": q["ordered"], "sql": None, "category": None, "sqlstate": None,
             "error": None, "strict": False, "lenient": False, "latency_s": None}
        gold, gold_ncols = run_query(runner, q["gold_sql"], exec_ms)
        t0 = time.perf_counter()
        try:
            r["sql"] = user.execute("select dbms_cloud_ai.generate(%s, %s, 'showsql')",
                                    (q["question"], PROFILE)).fetchone()[0]
        except psycopg.Error as e:
            r.update(category=failure(e, True), sqlstate=e.sqlstate, error=message(e))
        r["latency_s"] = time.perf_counter() - t0
        if r["category"] is None:
            try:
                got, ncols = run_query(runner, r["sql"], exec_ms)
            except psycopg.Error as e:
                r.update(category=failure(e, False), sqlstate=e.sqlstate,
                         error=message(e))
            else:
                r["strict"], r["lenient"] = same_result(got, ncols, gold, gold_ncols, q["ordered"])
                r["category"] = CORRECT if r["strict"] else WRONG
                r["rows"] = len(got)
        results.append(r)
        if args.verbose:
            print_row(r)
    user.close()
    runner.close()
    return results


# --- the report --------------------------------------------------------------------

def oneline(s: str | None, width: int) -> str:
    s = " ".join((s or "").split())
    return s if len(s) <= width else s[: width - 3] + "..."


def print_row(r: dict) -> None:
    what = r["category"] + (f" {r['sqlstate']}" if r["sqlstate"] else "")
    if r["category"] == WRONG and r["lenient"]:
        what += " (ok with extra columns)"
    print(f"  {r['id']:<5}{what:<37}{r['latency_s'] * 1000:>9.0f} ms  {oneline(r['question'], 60)}",
          flush=True)
    detail = r["error"] if r["error"] else r["sql"]
    print(f"  {'':<5}{oneline(detail, 140)}", flush=True)


def report(results: list[dict], label: str, wall: float) -> dict:
    n = len(results)
    counts = collections.Counter(r["category"] for r in results)
    states = collections.Counter((r["category"], r["sqlstate"]) for r in results if r["sqlstate"])
    strict = sum(r["strict"] for r in results)
    lenient = sum(r["lenient"] for r in results)
    lat = [r["latency_s"] for r in results]
    print()
    print(f"NL2SQL evaluation, {label}: {n} questions of {QUESTIONS.relative_to(ROOT)}, "
          f"{wall:.1f}s wall")
    for cat in CATEGORIES:
        extra = ", ".join(f"{s}: {k}" for (c, s), k in sorted(states.items()) if c == cat)
        print(f"    {cat:<20}{counts.get(cat, 0):>4}" + (f"   ({extra})" if extra else ""))
    print(f"    execution accuracy: {strict}/{n} = {strict / n:.1%} "
          f"(with extra columns allowed: {lenient}/{n} = {lenient / n:.1%})")
    print(f"    latency of generate(..., 'showsql') per question: mean {statistics.fmean(lat):.3f}s, "
          f"median {statistics.median(lat):.3f}s, max {max(lat):.3f}s")
    tags = collections.defaultdict(lambda: [0, 0])
    for r in results:
        for t in r["tags"]:
            tags[t][0] += r["strict"]
            tags[t][1] += 1
    print("    by tag (correct/questions): " + ", ".join(
        f"{t} {ok}/{k}" for t, (ok, k) in sorted(tags.items())))
    return {"label": label, "questions": n, "correct": strict, "correct_lenient": lenient,
            "accuracy": strict / n, "accuracy_lenient": lenient / n,
            "categories": {c: counts.get(c, 0) for c in CATEGORIES},
            "latency_mean_s": statistics.fmean(lat), "latency_median_s": statistics.median(lat),
            "wall_s": wall}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--scripted", action="store_true",
                      help="the scripted fake model (tools/fake_llm.py, demo/answers.json); "
                           "the default without --url")
    mode.add_argument("--oracle", action="store_true",
                      help="the fake model answering with the gold queries: checks the harness")
    mode.add_argument("--url", help="an OpenAI-compatible server, e.g. http://127.0.0.1:8080")
    ap.add_argument("--model", help="the model name to ask the server for (with --url)")
    ap.add_argument("--api-key", default=os.environ.get("LOCAL_MODEL_API_KEY") or "no-key-needed",
                    help="the server's key, if it needs one (default: env LOCAL_MODEL_API_KEY)")
    ap.add_argument("--limit", type=int, help="only the first N questions")
    ap.add_argument("--json", metavar="OUT", help="write the summary and every result here")
    ap.add_argument("--verbose", "-v", action="store_true", help="a line per question")
    ap.add_argument("--gen-timeout", type=float, default=120.0,
                    help="statement_timeout of each generate call, seconds (120)")
    ap.add_argument("--exec-timeout", type=float, default=10.0,
                    help="statement_timeout of each query run, seconds (10)")
    ap.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("eval: DCA_PGHOST/DCA_PGPORT not set (socket directory and port of a server "
              "where postgres is a trust-auth superuser); or run `make bench`", file=sys.stderr)
        return 2
    if args.url and not args.model:
        ap.error("--url needs --model")
    if args.limit is not None and args.limit < 1:
        ap.error("--limit must be at least 1")
    questions = json.loads(QUESTIONS.read_text())["questions"][: args.limit]
    print(f"eval_nl2sql: {durability()}", flush=True)

    fake = None
    created: list[str] = []
    try:
        if args.url:
            url = args.url if "://" in args.url else "http://" + args.url
            parts = urlsplit(url)
            ace = (parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
            label = f"OpenAI-compatible server {url}, model {args.model}"
            created = setup(url, args.model, args.api_key, ace, args.gen_timeout)
        elif args.oracle:
            fake = FakeLLM(oracle(questions)).start()
            label = "ORACLE (the fake model answering with the gold queries; a harness check)"
            created = setup(fake.url, "gpt-4o-mini", "sk-eval-oracle", None, args.gen_timeout)
        else:
            spec = json.loads(ANSWERS.read_text())
            fake = FakeLLM(keyword_responder(spec["answers"], spec["fallback"])).start()
            label = "scripted model (tools/fake_llm.py with demo/answers.json)"
            created = setup(fake.url, "gpt-4o-mini", "sk-eval-scripted", None, args.gen_timeout)
        if args.verbose:
            print(f"\n  {'id':<5}{'outcome':<37}{'generate':>12}  question / the model's SQL or "
                  "the error")
        t0 = time.perf_counter()
        results = evaluate(questions, args)
        summary = report(results, label, time.perf_counter() - t0)
        if args.json:
            pathlib.Path(args.json).write_text(
                json.dumps({"summary": summary, "results": results}, indent=2, default=str) + "\n")
            print(f"    results written to {args.json}")
        return 0
    finally:
        if fake is not None:
            fake.stop()
        if not args.keep:
            drop_database(DBNAME, created)


if __name__ == "__main__":
    sys.exit(main())
