"""What accounting costs a turn, and how fast the usage reports are over 1,000,000 calls.

Run by `make bench` against a throwaway cluster (DCA_PGHOST / DCA_PGPORT), or
against any server where postgres is a trust-auth superuser:

    .venv/bin/python -m bench.bench_accounting [--calls N] [--block B] [--warmup W]
        [--rows N] [--runs R] [--only cost|reports] [--keep]

It creates a fresh database dca_bench_acc with the extension, a login role
bench_acc_user (member of dbms_cloud_ai_user) with a credential and an openai
profile BENCH whose provider_endpoint is an in-process fake LLM answering at
once, and a login role bench_acc_admin (member of dbms_cloud_ai_admin).

(a) The cost of accounting.  One connection, logged in as postgres, runs
    generate() as bench_acc_user (SET ROLE) and switches accounting off and on
    through GD between blocks (DO ... plpython3u needs the superuser; the
    switch is dbms_cloud_ai.model.accounting.ENABLED, for benchmarks only).  Blocks
    of --block calls alternate off/on (the order flips every pair) until each
    side has --calls measured calls, for two statements: a plain chat, and a
    chat turn in a titled conversation (which also writes the prompt row with
    the turn's token totals); then the plain chat once more against a model that
    takes --model-ms (default 20) to answer.  Client-side latency (execute +
    fetch), prepared statements.  Goal: p50 on / p50 off <= 1.1 (issue 16).

(b) Usage reports over --rows recorded calls (default 1,000,000), bulk-inserted
    as superuser with one INSERT ... SELECT generate_series: 90 days with
    traffic growing towards today and business hours heavier, 200 owners with a
    skewed share (bench_acc_user is the heaviest), each owner mostly on its
    profile's model, a realistic action mix (chat, runsql, showsql, narrate,
    explainsql, summarize, feedback) with repairs, explanations, narrations and
    titles, 2 % errors; then conversation prompts for the answers in
    conversations, 10 % of them rated.  Prices for the six models.  Then
    dbms_cloud_ai.summarize_usage() as bench_acc_admin, as a scheduled job would
    (its time is reported), and five report queries an operator runs, each timed
    cold-ish (a new connection, and PostgreSQL's buffer cache emptied of the
    report's tables by pg_prewarm of a filler table bigger than shared_buffers;
    the operating system's cache stays warm) and warm (median of --runs in one
    connection).  The same queries are then timed once more without the daily
    summary (every day read from the calls, as before the first
    summarize_usage()), to show what the summary buys.  Goal: < 200 ms each.

(c) A turn again, with those calls recorded: accounting off, on, with a
    budget for the role, and with a budget for PUBLIC (the database-wide
    budget sums today's tokens of every role on every call).

A benchmark, not a test: it exits 0 whatever the figures (2 if no server).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import psycopg
from fake_llm import Answer, FakeLLM
from psycopg import sql

from bench.benchlib import Bench, check, connect, durability, summary

DBNAME = "dca_bench_acc"
ROLE = "bench_acc_user"
ADMIN = "bench_acc_admin"
PROFILE = "BENCH"
ANSWER = "8"
COST_GOAL = 1.1   # issue 16, at default durability
REPORT_GOAL_MS = 200.0

SWITCH = """do $$ GD["dbms_cloud_ai"].model.accounting.ENABLED = {} $$ language plpython3u"""

# --rows calls over 90 days; owner 0 (the heaviest) is the login role :'user'.
CALLS = """
insert into dbms_cloud_ai._model_call
select gen_random_uuid(), g.owner, g.created, 'BENCH', g.action,
       case when g.action in ('RUNSQL', 'SHOWSQL') and g.r_purpose < 0.06 then 'repair'
            when g.action = 'EXPLAINSQL' and g.r_purpose < 0.5 then 'explanation'
            when g.action = 'NARRATE' and g.r_purpose < 0.5 then 'narration'
            when g.action = 'CHAT' and g.r_purpose < 0.03 then 'title'
            else 'answer' end,
       g.provider, g.model, lower(g.action) || '@0badf00d',
       case when g.err then null else g.input_tokens end,
       case when g.err then null else g.output_tokens end,
       g.provider = 'openai-compatible',
       g.latency_ms, case when g.err then 3 else 1 end,
       case when g.err then 'error' else 'ok' end,
       case when not g.err then null when g.r_err < 0.5 then 'LL000'
            when g.r_err < 0.75 then 'LL001' else 'LL002' end,
       case when not g.err then null when g.r_err < 0.5 then 500
            when g.r_err < 0.75 then null else 429 end,
       null, case when g.r_conv < 0.4 then gen_random_uuid() end
  from (select case when o.n = 0 then %(user)s else 'user_' || lpad(o.n::text, 3, '0') end as owner,
               least(t.created, now()) as created,
               case when r.a < 0.40 then 'CHAT' when r.a < 0.70 then 'RUNSQL'
                    when r.a < 0.80 then 'SHOWSQL' when r.a < 0.88 then 'NARRATE'
                    when r.a < 0.95 then 'EXPLAINSQL' when r.a < 0.98 then 'SUMMARIZE'
                    else 'FEEDBACK' end as action,
               case when mm.m < 0.60 then 'openai' when mm.m < 0.75 then 'anthropic'
                    when mm.m < 0.87 then 'google' when mm.m < 0.92 then 'cohere'
                    else 'openai-compatible' end as provider,
               case when mm.m < 0.45 then 'gpt-4o-mini-2024-07-18'
                    when mm.m < 0.60 then 'gpt-4o-2024-08-06'
                    when mm.m < 0.75 then 'claude-haiku-4-5-20251001'
                    when mm.m < 0.87 then 'gemini-2.5-flash'
                    when mm.m < 0.92 then 'command-a-03-2025' else 'llama3.2' end as model,
               (200 + 3000 * r.t ^ 2 + case when r.a >= 0.40 then 2500 else 0 end)::int
                   as input_tokens,
               (20 + 700 * r.u ^ 3)::int as output_tokens,
               (exp(6.7 + 0.9 * (r.z1 + r.z2 + r.z3 - 1.5) * 2))::int as latency_ms,
               r.e < 0.02 as err, r.e / 0.02 as r_err, r.p as r_purpose, r.c as r_conv
          from (select random() a, random() m, random() t, random() u, random() z1,
                       random() z2, random() z3, random() e, random() p, random() c,
                       random() o, random() d, random() h, random() b
                  from generate_series(1, %(rows)s) i) r
         -- 200 owners, skewed: owner n gets about (sqrt((n+1)/200) - sqrt(n/200)) of the calls
         cross join lateral (select floor(200 * r.o ^ 2)::int as n) o
         -- each owner mostly uses its profile's model (80 %%), now and then another
         cross join lateral (select case when r.m < 0.8 then ((o.n * 0.6180339887) %% 1)
                                         else r.m / 0.2 - 4 end as m) mm
         -- 90 days, half the traffic flat and half growing towards today; 70 %% in 08-18 UTC
         cross join lateral (
             select date_trunc('day', now(), 'UTC')
                    - floor(case when r.d < 0.5 then 90 * r.d * 2
                                 else 90 * (1 - sqrt(r.d * 2 - 1)) end) * interval '1 day'
                    + case when r.b < 0.7 then 8 + 10 * r.h else 24 * r.h end * interval '1 hour'
                    as created) t
         order by 2) g"""

# One conversation per owner; a prompt for every successful answer in a
# conversation, 10 % of them rated (three in four +1).
PROMPTS = """
insert into dbms_cloud_ai._conversation (conversation_id, owner, title, title_pending, retention_days)
select gen_random_uuid(), o.owner, 'bench usage', false, 0
  from (select distinct owner from dbms_cloud_ai._model_call) o;
insert into dbms_cloud_ai._conversation_prompt
       (conversation_prompt_id, conversation_id, owner, profile_name, prompt_action, prompt,
        prompt_response, created, provider, model, prompt_version, input_tokens, output_tokens,
        latency_ms, rating)
select m.conversation_prompt_id, c.conversation_id, m.owner, m.profile_name, m.action,
       'question', 'answer', m.created, m.provider, m.model, m.prompt_version, m.input_tokens,
       m.output_tokens, m.latency_ms,
       case when random() < 0.1 then case when random() < 0.75 then 1 else -1 end end
  from dbms_cloud_ai._model_call m
  join dbms_cloud_ai._conversation c on c.owner = m.owner and c.title = 'bench usage'
 where m.conversation_prompt_id is not null and m.purpose = 'answer' and m.status = 'ok'
   and m.prompt_version like '%@0badf00d'          -- the generated calls, not those of (a)
 order by m.created"""

PRICES = [("openai", "gpt-4o-mini", "0.15", "0.60"), ("openai", "gpt-4o", "2.50", "10.00"),
          ("anthropic", "claude-haiku-4-5", "1.00", "5.00"),
          ("google", "gemini-2.5-flash", "0.30", "2.50"),
          ("cohere", "command-a-03-2025", "2.50", "10.00"),
          ("openai-compatible", "llama3.2", "0", "0")]

TODAY = "(now() at time zone 'UTC')::date"
# (label, role, query): what an operator asks.
REPORTS = [
    ("a day, everyone (every row and column)", ADMIN,
     f"select * from dbms_cloud_ai.dba_cloud_ai_usage where day = {TODAY} - 1"),
    ("a week, everyone, per action and model", ADMIN,
     f"""select action, provider, model, sum(calls) as calls, sum(errors) as errors,
                sum(input_tokens) as input_tokens, sum(output_tokens) as output_tokens,
                sum(rating_balance) as rating_balance, sum(cost) as cost
           from dbms_cloud_ai.dba_cloud_ai_usage where day > {TODAY} - 7
          group by 1, 2, 3 order by 1, 2, 3"""),
    ("one user, 30 days (as that user)", ROLE,
     f"""select * from dbms_cloud_ai.user_cloud_ai_usage where day > {TODAY} - 30
          order by day, action, provider, model"""),
    ("top 10 users by tokens, this month", ADMIN,
     """select owner, sum(calls) as calls, sum(input_tokens + output_tokens) as tokens,
                sum(cost) as cost
           from dbms_cloud_ai.dba_cloud_ai_usage
          where day >= date_trunc('month', now() at time zone 'UTC')::date
          group by owner order by tokens desc limit 10"""),
    ("error rate per model, this week", ADMIN,
     f"""select provider, model, sum(calls) as calls, sum(errors) as errors,
                round(sum(errors) / sum(calls), 4) as error_rate
           from dbms_cloud_ai.dba_cloud_ai_usage where day > {TODAY} - 7
          group by 1, 2 order by error_rate desc"""),
]


# --- (a) and (c): a turn with and without accounting --------------------------------------------

def turn_statements(conn) -> dict[str, str]:
    """The two statements measured: a plain chat, and a turn in a titled conversation."""
    cid = conn.execute("""select dbms_cloud_ai.create_conversation('{"title": "bench"}')""").fetchone()[0]
    chat = sql.SQL("select dbms_cloud_ai.generate({}, {}, 'chat')").format(
        sql.Literal("What is 4 + 4 ?"), sql.Literal(PROFILE)).as_string(conn)
    turn = sql.SQL("select dbms_cloud_ai.generate({}, {}, 'chat', params => {})").format(
        sql.Literal("What is 4 + 4 ?"), sql.Literal(PROFILE),
        sql.Literal(json.dumps({"conversation_id": cid}))).as_string(conn)
    return {"chat": chat, "conversation turn": turn}


def set_accounting(conn, on: bool) -> None:
    conn.execute("reset role")
    conn.execute(SWITCH.format("True" if on else "False"))
    conn.execute(f"set role {ROLE}")


def timed_block(cur, q: str, n: int) -> list[float]:
    out = []
    clock = time.perf_counter
    for _ in range(n):
        t0 = clock()
        cur.execute(q, prepare=True)
        row = cur.fetchone()
        out.append(clock() - t0)
        check(row[0] == ANSWER, f"generate() returned {row[0]!r}")
    return out


def measure_cost(conn, statements: dict[str, str], calls: int, block: int, warmup: int,
                 variants=("off", "on"), setups=None) -> dict:
    """{statement: {variant: [latencies]}}: blocks of each variant alternate, the order
    flipping every round, so that both see the same machine conditions."""
    setups = setups or {"off": lambda: set_accounting(conn, False),
                        "on": lambda: set_accounting(conn, True)}
    cur = conn.cursor()
    results = {}
    for name, q in statements.items():
        for v in variants:                                  # warm up every variant
            setups[v]()
            timed_block(cur, q, warmup)
        lat = {v: [] for v in variants}
        rounds = 0
        while min(len(x) for x in lat.values()) < calls:
            order = list(variants) if rounds % 2 == 0 else list(reversed(variants))
            for v in order:
                take = min(block, calls - len(lat[v]))
                if take > 0:
                    setups[v]()
                    lat[v] += timed_block(cur, q, take)
            rounds += 1
        results[name] = lat
    set_accounting(conn, True)
    return results


def print_cost(results: dict, title: str, base: str = "off") -> None:
    us = 1e6
    print(title)
    print(f"{'latency (us)':<40}{'p50':>9}{'p95':>9}{'p99':>9}{'mean':>9}")
    for name, lat in results.items():
        stats = {v: summary(x) for v, x in lat.items()}
        for v, s in stats.items():
            print(f"{name + ', ' + v:<40}" + "".join(f"{s[c] * us:>9.0f}" for c in ("p50", "p95", "p99", "mean")))
        for v, s in stats.items():
            if v == base:
                continue
            b = stats[base]
            print(f"{'  ratio ' + v + ' / ' + base:<40}"
                  + "".join(f"{s[c] / b[c]:>9.3f}" for c in ("p50", "p95", "p99", "mean")))
    print()


def bench_cost(args, fake: FakeLLM) -> None:
    conn = connect("postgres", DBNAME)
    conn.execute(f"set role {ROLE}")
    statements = turn_statements(conn)
    conn.execute(statements["chat"]).fetchone()           # loads the package in this backend
    results = measure_cost(conn, statements, args.calls, args.block, args.warmup)
    # The same chat against a model that takes --model-ms to answer (a fast real one).
    slow = max(args.calls // 5, 50)
    fake.responder = lambda wire, body: Answer(ANSWER, delay=args.model_ms / 1000)
    try:
        results[f"chat, model answers in {args.model_ms:g} ms"] = measure_cost(
            conn, {"chat": statements["chat"]}, slow, min(args.block, 25), 10)["chat"]
    finally:
        fake.responder = lambda wire, body: Answer(ANSWER)
    conn.close()
    print(f"(a) accounting cost: {args.calls} calls each way ({slow} with the slower model), "
          f"blocks of {args.block} alternating off/on, {args.warmup} warm-up calls each")
    print_cost(results, "")
    for name, lat in results.items():
        r = summary(lat["on"])["p50"] / summary(lat["off"])["p50"]
        print(f"goal ({name}): p50 on / off <= {COST_GOAL}: {r:.3f} -> "
              f"{'met' if r <= COST_GOAL else 'NOT met'}; accounting adds "
              f"{(summary(lat['on'])['p50'] - summary(lat['off'])['p50']) * 1e6:.0f} us per turn")
    print()


# --- (b): report queries ------------------------------------------------------------------------

def load(rows: int) -> dict:
    t = {}
    with connect("postgres", DBNAME) as c:
        t0 = time.perf_counter()
        c.execute(CALLS, {"user": ROLE, "rows": rows})
        t["calls"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        c.execute(PROMPTS)
        t["prompts"] = time.perf_counter() - t0
        c.execute("vacuum analyze dbms_cloud_ai._model_call")
        c.execute("vacuum analyze dbms_cloud_ai._conversation_prompt")
        t["rated"] = c.execute("select count(*) from dbms_cloud_ai._conversation_prompt "
                               "where rating is not null").fetchone()[0]
        t["size"] = c.execute("""
            select pg_size_pretty(pg_total_relation_size('dbms_cloud_ai._model_call'))""").fetchone()[0]
    with connect(ADMIN, DBNAME) as c:
        for p in PRICES:
            c.execute("select dbms_cloud_ai.set_model_price(%s, %s, %s::numeric, %s::numeric)", p)
    return t


def summarize() -> tuple[float, int, int]:
    with connect(ADMIN, DBNAME) as c:
        t0 = time.perf_counter()
        days = c.execute("select dbms_cloud_ai.summarize_usage()").fetchone()[0]
        elapsed = time.perf_counter() - t0
    with connect("postgres", DBNAME) as c:
        c.execute("vacuum analyze dbms_cloud_ai._usage_daily")
        n = c.execute("select count(*) from dbms_cloud_ai._usage_daily").fetchone()[0]
    return elapsed, days, n


def unsummarize() -> None:
    with connect("postgres", DBNAME) as c:
        c.execute("truncate dbms_cloud_ai._usage_daily")
        c.execute("update dbms_cloud_ai._usage_state set summarized_through = null, summarized_at = null")


def evict_setup() -> str | None:
    """A filler table bigger than shared_buffers and pg_prewarm, or why not."""
    with connect("postgres", DBNAME) as c:
        try:
            c.execute("create extension if not exists pg_prewarm")
        except psycopg.Error as e:
            return f"pg_prewarm unavailable ({e.sqlstate}): cold-ish is a new connection only"
        sb = c.execute("select setting::int8 * current_setting('block_size')::int8 "
                       "from pg_settings where name = 'shared_buffers'").fetchone()[0]
        rows = int(sb * 1.25 / 1000) + 1000                 # ~8 rows of ~1 kB per 8 kB page
        c.execute("drop table if exists public.bench_filler")
        c.execute("create table public.bench_filler as select i, repeat('x', 950) as pad "
                  "from generate_series(1, %s) i", (rows,))
    return None


def evict() -> None:
    with connect("postgres", DBNAME) as c:
        c.execute("select pg_prewarm('public.bench_filler')")


def run_reports(runs: int, can_evict: bool) -> list[dict]:
    out = []
    for label, role, q in REPORTS:
        if can_evict:
            evict()
        conn = connect(role, DBNAME)
        t0 = time.perf_counter()
        rows = conn.execute(q).fetchall()
        cold = time.perf_counter() - t0
        warm = []
        for _ in range(runs):
            t0 = time.perf_counter()
            conn.execute(q).fetchall()
            warm.append(time.perf_counter() - t0)
        conn.close()
        out.append({"label": label, "rows": len(rows), "cold": cold * 1000,
                    "warm": statistics.median(warm) * 1000})
    return out


def bench_reports(args) -> None:
    t = load(args.rows)
    why_not = evict_setup()
    print(f"(b) usage reports over {args.rows:,} calls ({t['size']} with indexes; generated in "
          f"{t['calls']:.1f} s), 200 owners, 90 days, {t['rated']:,} rated prompts")
    with connect("postgres", DBNAME) as c:
        settings = {k: c.execute(f"select current_setting('{k}')").fetchone()[0]
                    for k in ("shared_buffers", "work_mem", "jit", "max_parallel_workers_per_gather")}
    print("server: " + ", ".join(f"{k}={v}" for k, v in sorted(settings.items()))
          + "; cold-ish: " + (why_not or "new connection, buffer cache emptied (pg_prewarm of a "
                              "filler table), OS cache warm"))
    elapsed, days, n = summarize()
    print(f"summarize_usage(), first run: {days} days -> {n:,} summary rows in {elapsed:.1f} s; "
          f"a later run (yesterday, and a recheck of 7 days) is what a schedule pays:")
    with connect(ADMIN, DBNAME) as c:
        t0 = time.perf_counter()
        c.execute("select dbms_cloud_ai.summarize_usage()").fetchone()
        print(f"summarize_usage(), next run: {(time.perf_counter() - t0) * 1000:.0f} ms")
    summarized = run_reports(args.runs, why_not is None)
    unsummarize()
    live = run_reports(args.runs, why_not is None)
    elapsed, days, n = summarize()                          # leave it as a schedule would
    print()
    print(f"{'report query (ms)':<42}{'rows':>6}{'cold-ish':>10}{'warm':>8}"
          f"{'no summary: cold-ish':>22}{'warm':>8}")
    for s, raw in zip(summarized, live):
        print(f"{s['label']:<42}{s['rows']:>6}{s['cold']:>10.0f}{s['warm']:>8.0f}"
              f"{raw['cold']:>22.0f}{raw['warm']:>8.0f}")
    worst = max(max(s["cold"], s["warm"]) for s in summarized)
    print(f"goal: each < {REPORT_GOAL_MS:.0f} ms with the daily summary: slowest {worst:.0f} ms -> "
          f"{'met' if worst < REPORT_GOAL_MS else 'NOT met'}")
    print()


def bench_cost_at_scale(args) -> None:
    """(c) the turn once more with the calls of (b) recorded, and with budgets."""
    admin = connect("postgres", DBNAME)
    conn = connect("postgres", DBNAME)
    conn.execute(f"set role {ROLE}")
    statements = {"chat": turn_statements(conn)["chat"]}
    conn.execute(statements["chat"]).fetchone()
    huge = 10 ** 15

    def variant(on: bool, budgets: dict):
        def apply():
            admin.execute("delete from dbms_cloud_ai._token_budget")
            for who, n in budgets.items():
                admin.execute("select dbms_cloud_ai.set_token_budget(%s, %s)", (who, n))
            set_accounting(conn, on)
        return apply

    setups = {"off": variant(False, {}), "on": variant(True, {}),
              "on, role budget": variant(True, {ROLE: huge}),
              "on, PUBLIC budget": variant(True, {"PUBLIC": huge})}
    n = max(args.calls // 4, 50)
    results = measure_cost(conn, statements, n, args.block, args.warmup,
                           variants=tuple(setups), setups=setups)
    today = admin.execute("select count(*) from dbms_cloud_ai._model_call "
                          "where created >= date_trunc('day', now(), 'UTC')").fetchone()[0]
    admin.execute("delete from dbms_cloud_ai._token_budget")
    conn.close()
    admin.close()
    print_cost(results, f"(c) a chat with {args.rows:,} calls recorded ({today:,} of them today, "
                        f"which a PUBLIC budget sums on every call): {n} calls each way")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=1000, help="(a) measured calls each way (1000)")
    ap.add_argument("--block", type=int, default=50, help="(a) calls per block (50)")
    ap.add_argument("--warmup", type=int, default=50, help="(a) uncounted calls first, each way (50)")
    ap.add_argument("--model-ms", type=float, default=20.0,
                    help="(a) answer time of the slower model, ms (20)")
    ap.add_argument("--rows", type=int, default=1_000_000, help="(b) recorded calls (1000000)")
    ap.add_argument("--runs", type=int, default=5, help="(b) warm runs per query (5)")
    ap.add_argument("--only", choices=("cost", "reports"), help="run only (a), or only (b) and (c)")
    ap.add_argument("--keep", action="store_true", help=f"keep database {DBNAME} afterwards")
    args = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("bench: DCA_PGHOST/DCA_PGPORT not set (socket directory and port of a server "
              "where postgres is a trust-auth superuser)", file=sys.stderr)
        return 2
    print(f"bench_accounting: {durability()}", flush=True)

    with Bench(DBNAME, users=[ROLE], admins=[ADMIN], responder=lambda wire, body: Answer(ANSWER),
               profile=PROFILE, keep=args.keep) as b:
        fake = b.fake
        print(f"dbms_cloud_ai accounting benchmark: database {DBNAME}, roles {ROLE} and {ADMIN}, "
              f"fake LLM at {fake.url} (answers at once)")
        print()
        if args.only in (None, "cost"):
            bench_cost(args, fake)
        if args.only in (None, "reports"):
            bench_reports(args)
            bench_cost_at_scale(args)
        return 0


if __name__ == "__main__":
    sys.exit(main())
