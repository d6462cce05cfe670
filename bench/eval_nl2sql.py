"""NL2SQL evaluation: execution accuracy over the demo schema (issue 17), or over
schemas unlike it (issue 29).

Run by `make bench` against a throwaway cluster, or against any running server
(superuser postgres, trust auth):

    DCA_PGHOST=/path/to/sock DCA_PGPORT=5432 .venv/bin/python -m bench.eval_nl2sql [--scripted]
    DCA_PGHOST=... DCA_PGPORT=... .venv/bin/python -m bench.eval_nl2sql \
        --url http://127.0.0.1:8080 --model NAME [--set unfamiliar] [--limit N] [--only ID,ID]
        [--attributes JSON] [--json OUT] [--verbose]

The set (--set, or --questions FILE): demo, the default, is bench/nl2sql_eval.json over
demo/sample_schema.sql (schema sh); unfamiliar is bench/nl2sql_eval_unfamiliar.json over
the schemas its "schemas" list names (bench/nl2sql_eval_schemas.sql).  It creates a fresh
database dca_eval_nl2sql with the set's schemas and the extension, a login role
eval_nl2sql_user that may read them, a credential and openai profiles whose
provider_endpoint is

  --scripted (the default without --url): tools/fake_llm.py in this process,
      answering with demo/answers.json like `make demo` offline.  It knows only
      the walk-through's questions, so its score is low by design: it is the
      floor a real model is compared with;
  --url URL --model NAME: an OpenAI-compatible server (a host ACE lets the
      role reach its host and port);
  --oracle: the fake model answering every question with its gold query, a
      check of the harness and of the extension's SQL path: every gold query
      should pass the validator and score as correct.  Not a model's figure.

The demo set has one profile, EVAL (object_list: schema sh, comments and constraints on,
temperature 0), as the walk-through; a set with "schemas" has one profile per schema,
EVAL_<SCHEMA>, whose object_list names that schema only, without comments or
constraints (as a profile is made for a schema nobody annotated).  --attributes adds its
JSON object's attributes to every profile, passed through to create_profile as they are.

For each question (questions of one schema consecutive: a local model caches the prompt's
schema prefix), as that role: dbms_cloud_ai.generate(question, its schema's profile,
'showsql') under statement_timeout --gen-timeout; the SQL it returns is run in a
read-only transaction under statement_timeout --exec-timeout, and so is the gold query;
both results are compared (see `same_result` and bench/README.md, "NL2SQL evaluation").
An error is a wrong answer with a category: generation failed (with its SQLSTATE),
execution error, timeout.  It prints the counts per category, execution accuracy
(strict, and with extra columns allowed), the latency of generate per question, the
counts per tag and per schema, and with --verbose a line per question.

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
from dataclasses import dataclass
from urllib.parse import urlsplit

import psycopg
from fake_llm import Answer, FakeLLM, keyword_responder
from psycopg import sql

from bench import ROOT
from bench.benchlib import connect, drop_database, durability, fresh_database

DBNAME = "dca_eval_nl2sql"
ROLE = "eval_nl2sql_user"
PROFILE = "EVAL"
CREDENTIAL = "EVAL_CRED"
SETS = {"demo": ROOT / "bench" / "nl2sql_eval.json",
        "unfamiliar": ROOT / "bench" / "nl2sql_eval_unfamiliar.json"}
DEMO_SCHEMA = "sh"
DEMO_SQL = ROOT / "demo" / "sample_schema.sql"
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


# --- the set ----------------------------------------------------------------------

@dataclass
class EvalSet:
    path: pathlib.Path
    questions: list[dict]            # each with its "schema"
    schemas: dict[str, pathlib.Path]  # schema -> the SQL file that creates it, in run order
    profiles: dict[str, str]          # schema -> the profile its questions go through
    attrs: dict                       # what the set's profiles add to the harness's attributes


def load_set(path: pathlib.Path) -> EvalSet:
    """A set without "schemas" is over the demo schema, through the walk-through's profile
    (comments and constraints on), so the demo set's figures stay comparable.  A set with
    them gets one profile per schema with neither: the schemas have no comments, and a
    profile made for an unfamiliar schema is likely made with the defaults."""
    doc = json.loads(path.read_text())
    if "schemas" not in doc:
        questions = [{**q, "schema": q.get("schema", DEMO_SCHEMA)} for q in doc["questions"]]
        return EvalSet(path, questions, {DEMO_SCHEMA: DEMO_SQL}, {DEMO_SCHEMA: PROFILE},
                       {"comments": True, "constraints": True})
    schemas = {s["name"]: ROOT / s["sql"] for s in doc["schemas"]}
    return EvalSet(path, doc["questions"], schemas, {s: f"{PROFILE}_{s.upper()}" for s in schemas}, {})


def run_order(evalset: EvalSet, limit: int | None, only: list[str] | None) -> list[dict]:
    """The first ``limit`` questions of the file (those of ``only`` among them), the
    questions of one schema consecutive, else in file order: a local model reuses the
    cached prompt prefix, the schema's description; each switch of schema costs a cold
    prompt."""
    questions = evalset.questions[:limit]
    if only:
        questions = [q for q in questions if q["id"] in only]
    rank = {s: i for i, s in enumerate(evalset.schemas)}
    return sorted(questions, key=lambda q: rank[q["schema"]])


# --- the database ------------------------------------------------------------------

def setup(evalset: EvalSet, endpoint: str, model: str | None, api_key: str,
          ace: tuple[str, int] | None, wait: float, extra: dict) -> None:
    """The set's schemas, the role's grants, its credential and profiles, in the fresh
    database (main made it, and the role, first: they are dropped whatever fails here)."""
    role = sql.Identifier(ROLE)
    with connect("postgres", DBNAME) as c:
        if wait > DEFAULT_MAX_WAIT:   # the administrator's cap on a model call's wait
            c.execute("select dbms_cloud_ai.set_max_wait(%s)", (wait,))
        for path in dict.fromkeys(evalset.schemas.values()):   # a file of several schemas once
            c.execute(path.read_text())
        c.execute(sql.SQL("grant dbms_cloud_ai_user to {}").format(role))
        for schema in evalset.schemas:
            c.execute(sql.SQL("grant usage on schema {} to {}").format(sql.Identifier(schema), role))
            c.execute(sql.SQL("grant select on all tables in schema {} to {}").format(
                sql.Identifier(schema), role))
        if ace:
            c.execute("select dbms_cloud_ai.append_host_ace(host => %s, principal_name => %s, "
                      "lower_port => %s)", (ace[0], ROLE, ace[1]))
    with connect(ROLE, DBNAME) as c:
        c.execute("select dbms_cloud.create_credential(%s, 'user', %s)", (CREDENTIAL, api_key))
        for schema, profile in evalset.profiles.items():
            attrs = profile_attributes(schema, evalset.attrs, endpoint, model, extra)
            try:
                c.execute("select dbms_cloud_ai.create_profile(%s, %s)", (profile, json.dumps(attrs)))
            except psycopg.Error as e:   # e.g. an --attributes name this version does not know
                raise SystemExit(f"eval: create_profile({profile}) failed: {message(e)}"
                                 + (f"; {e.diag.message_hint}" if e.diag.message_hint else "")) from None


def profile_attributes(schema: str, set_attrs: dict, endpoint: str, model: str | None,
                       extra: dict) -> dict:
    """The profile of one schema: the set's attributes, then --attributes over all
    (a technique switched on or off for every profile, unknown names passed as they are)."""
    attrs = {"provider": "openai", "credential_name": CREDENTIAL, "provider_endpoint": endpoint,
             "object_list": [{"owner": schema}], **set_attrs,
             "temperature": 0,
             # a failed generation is scored by its SQLSTATE (LL005), not Oracle's text
             "raise_on_invalid_sql": True}
    if model:
        attrs["model"] = model
    return {**attrs, **extra}


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
        # the longest: a question may begin with another's whole text
        best = max(hit, key=lambda q: len(q["question"]), default=None)
        return Answer(best["gold_sql"] if best else "SELECT 'not a question of the set'")
    return respond


def evaluate(questions: list[dict], profiles: dict[str, str], args) -> list[dict]:
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
        r = {"id": q["id"], "schema": q["schema"], "question": q["question"], "tags": q.get("tags", []),
             "ordered": q["ordered"], "sql": None, "category": None, "sqlstate": None,
             "error": None, "strict": False, "lenient": False, "latency_s": None}
        gold, gold_ncols = run_query(runner, q["gold_sql"], exec_ms)
        t0 = time.perf_counter()
        try:
            r["sql"] = user.execute("select dbms_cloud_ai.generate(%s, %s, 'showsql')",
                                    (q["question"], profiles[q["schema"]])).fetchone()[0]
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
    print(f"  {r['id']:<6}{what:<37}{r['latency_s'] * 1000:>9.0f} ms  {oneline(r['question'], 60)}",
          flush=True)
    detail = r["error"] if r["error"] else r["sql"]
    print(f"  {'':<6}{oneline(detail, 140)}", flush=True)


def shown(path: pathlib.Path) -> str:
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def counts_by(results: list[dict], keys) -> dict[str, list[int]]:
    """[correct, questions] per key; ``keys(r)`` gives a result's keys, in first-seen order."""
    out: dict[str, list[int]] = {}
    for r in results:
        for k in keys(r):
            out.setdefault(k, [0, 0])
            out[k][0] += r["strict"]
            out[k][1] += 1
    return out


def report(results: list[dict], label: str, wall: float, path: pathlib.Path) -> dict:
    n = len(results)
    counts = collections.Counter(r["category"] for r in results)
    states = collections.Counter((r["category"], r["sqlstate"]) for r in results if r["sqlstate"])
    strict = sum(r["strict"] for r in results)
    lenient = sum(r["lenient"] for r in results)
    lat = [r["latency_s"] for r in results]
    print()
    print(f"NL2SQL evaluation, {label}: {n} questions of {shown(path)}, "
          f"{wall:.1f}s wall")
    for cat in CATEGORIES:
        extra = ", ".join(f"{s}: {k}" for (c, s), k in sorted(states.items()) if c == cat)
        print(f"    {cat:<20}{counts.get(cat, 0):>4}" + (f"   ({extra})" if extra else ""))
    print(f"    execution accuracy: {strict}/{n} = {strict / n:.1%} "
          f"(with extra columns allowed: {lenient}/{n} = {lenient / n:.1%})")
    print(f"    latency of generate(..., 'showsql') per question: mean {statistics.fmean(lat):.3f}s, "
          f"median {statistics.median(lat):.3f}s, max {max(lat):.3f}s")
    tags = counts_by(results, lambda r: r["tags"])
    print("    by tag (correct/questions): " + ", ".join(
        f"{t} {ok}/{k}" for t, (ok, k) in sorted(tags.items())))
    schemas = counts_by(results, lambda r: [r["schema"]])   # in run order
    print("    by schema (correct/questions): " + ", ".join(
        f"{s} {ok}/{k}" for s, (ok, k) in schemas.items()))
    return {"label": label, "questions": n, "correct": strict, "correct_lenient": lenient,
            "accuracy": strict / n, "accuracy_lenient": lenient / n,
            "categories": {c: counts.get(c, 0) for c in CATEGORIES},
            "latency_mean_s": statistics.fmean(lat), "latency_median_s": statistics.median(lat),
            "wall_s": wall, "set": shown(path),
            "by_schema": {s: {"correct": ok, "questions": k} for s, (ok, k) in schemas.items()},
            "by_tag": {t: {"correct": ok, "questions": k} for t, (ok, k) in sorted(tags.items())}}


def parse_args() -> argparse.Namespace:
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
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--set", choices=sorted(SETS), default="demo",
                       help="demo (bench/nl2sql_eval.json, the default) or unfamiliar "
                            "(bench/nl2sql_eval_unfamiliar.json)")
    which.add_argument("--questions", metavar="FILE", type=pathlib.Path,
                       help="another set file, shaped like those two")
    ap.add_argument("--limit", type=int, help="only the first N questions")
    ap.add_argument("--only", metavar="ID,ID", help="only these questions")
    ap.add_argument("--attributes", metavar="JSON", default="{}",
                    help="a JSON object of profile attributes added to every profile, e.g. "
                         "'{\"comments\": false}'")
    ap.add_argument("--json", metavar="OUT", help="write the summary and every result here")
    ap.add_argument("--verbose", "-v", action="store_true", help="a line per question")
    ap.add_argument("--gen-timeout", type=float, default=120.0,
                    help="statement_timeout of each generate call, seconds (120)")
    ap.add_argument("--exec-timeout", type=float, default=10.0,
                    help="statement_timeout of each query run, seconds (10)")
    ap.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = ap.parse_args()
    if args.url and not args.model:
        ap.error("--url needs --model")
    if args.limit is not None and args.limit < 1:
        ap.error("--limit must be at least 1")
    try:
        args.attributes = json.loads(args.attributes)
    except json.JSONDecodeError as e:
        ap.error(f"--attributes is not JSON: {e}")
    if not isinstance(args.attributes, dict):
        ap.error("--attributes must be a JSON object")
    args.only = [i.strip() for i in args.only.split(",") if i.strip()] if args.only else None
    return args


def main() -> int:
    args = parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("eval: DCA_PGHOST/DCA_PGPORT not set (socket directory and port of a server "
              "where postgres is a trust-auth superuser); or run `make bench`", file=sys.stderr)
        return 2
    evalset = load_set((args.questions or SETS[args.set]).resolve())
    unknown = set(args.only or ()) - {q["id"] for q in evalset.questions}
    if unknown:
        print(f"eval: --only names no question of {evalset.path.name}: {', '.join(sorted(unknown))}",
              file=sys.stderr)
        return 2
    questions = run_order(evalset, args.limit, args.only)
    if not questions:
        print("eval: no question to run (--limit and --only leave none)", file=sys.stderr)
        return 2
    print(f"eval_nl2sql: {durability()}", flush=True)

    fake = None
    created: list[str] = []
    try:
        if args.url:
            url = args.url if "://" in args.url else "http://" + args.url
            parts = urlsplit(url)
            ace = (parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
            label = f"OpenAI-compatible server {url}, model {args.model}"
            server = (url, args.model, args.api_key, ace)
        elif args.oracle:
            fake = FakeLLM(oracle(questions)).start()
            label = "ORACLE (the fake model answering with the gold queries; a harness check)"
            server = (fake.url, "gpt-4o-mini", "sk-eval-oracle", None)
        else:
            spec = json.loads(ANSWERS.read_text())
            fake = FakeLLM(keyword_responder(spec["answers"], spec["fallback"])).start()
            label = "scripted model (tools/fake_llm.py with demo/answers.json)"
            server = (fake.url, "gpt-4o-mini", "sk-eval-scripted", None)
        created = fresh_database(DBNAME, [ROLE])   # extension, and a PUBLIC ACE for 127.0.0.1
        setup(evalset, *server, args.gen_timeout, args.attributes)
        if args.attributes:
            label += f", profile attributes added: {json.dumps(args.attributes)}"
        if args.verbose:
            print(f"\n  {'id':<6}{'outcome':<37}{'generate':>12}  question / the model's SQL or "
                  "the error")
        t0 = time.perf_counter()
        results = evaluate(questions, evalset.profiles, args)
        summary = report(results, label, time.perf_counter() - t0, evalset.path)
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
