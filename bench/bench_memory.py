"""Long-term memory at scale: recall latency among 100,000 subjects, job-runner throughput.

Run by `make bench` against a throwaway cluster (DCA_PGHOST / DCA_PGPORT), or
against any server where postgres is a trust-auth superuser:

    .venv/bin/python -m bench.bench_memory [--subjects N] [--per-subject K] [--memories M]
        [--reps R] [--calls C] [--warmup W] [--block B] [--breakdown N] [--history N]
        [--jobs J] [--batch-size B] [--runners N] [--only recall|jobs] [--keep]

It creates a fresh database dca_bench_mem with the extension, switches long-term
memory on for its organization (the database's own), and a fake LLM in this
process that answers at once.

(a) Recall.  The login role bench_mem_user (member of dbms_cloud_ai_user,
    identity 'role': the role is the end user) holds --memories (200, the
    default max_memories) memories.  Around it, --subjects - 1 other subjects
    (99,999), each the role that owns its own memories (owner = subject, as with
    identity 'role'; the roles themselves need not exist), hold --per-subject
    (10) each: about 1,000,000 rows.  Facts are short sentences (17 to 56
    characters) of eight kinds, drawn from about 150 words, so full-text
    matches are realistic; all rows are bulk-inserted as superuser straight into
    dbms_cloud_ai._memory in random order (a subject's memories are spread over
    the table as they would be after months of use), then VACUUM ANALYZE.
    Measured, all as bench_mem_user:

    1. inside the backend (a PL/Python harness calling the loaded package):
       identity.current() + memory.recall() for the question, per call, with
       perf_counter: what the extension adds at recall, without the model call.
       Goal: p50 < 2 ms.  memory.search() (the search_memories tool) too.
    2. the raw queries (memory._RECALL and memory._SEARCH, taken from the loaded
       package), PREPAREd with the types recall uses and EXECUTEd from the
       client: p50/p95 including the round trip; plus EXPLAIN (ANALYZE, BUFFERS)
       of the recall.
    3. end to end: generate(question, profile, 'chat') outside any conversation
       (a first turn: recall, then the model), with a profile that has
       long_term_memory on and one that has it off, in one session, in blocks
       of --block (50) that alternate (the order flipping every round; two
       sessions interleaved call by call slow each other down on a 2-core
       machine, by up to 2x for the cheaper one).  The difference of the p50s
       is what memory costs a first turn (identity, recall, the longer request,
       recording the recalled memories as the answer's sources).
    4. where that difference goes: --breakdown (300) more calls each, with
       timing wrappers (they call straight through) installed in the backend
       around sqlapi.generate, identity.current, memory.recall, llm.chat and
       accounting.flush; p50 per call of each.

(b) Job runner.  --jobs (10,000) due conversations of a gateway role
    bench_mem_gw (identity 'asserted'), one subject each, two prompts each (one
    stating a preference), bulk-inserted as superuser into _conversation,
    _conversation_prompt (with organization and subject) and _memory_job.  The
    fake model answers every extraction with one valid fact (citing the message
    id and quoting the words).  Timed: CALL dbms_cloud_ai.run_memory_jobs(B) as
    the superuser (as a scheduler would), on an autocommit connection; jobs/s
    and ms/job (and ms/job in each fifth of the run, from the jobs' finish
    times); then it checks every job is done and every fact stored.  With
    --runners N > 1, the first run's conversations are deleted and another
    --jobs conversations are run by N runners at once (SKIP LOCKED shares them
    out); it checks that each job ran exactly once.

First, --history (200,000) model calls of 2,000 of the other subjects are
bulk-inserted into _model_call and analyzed, as in a database in use: the plans
a session caches for the accounting statements are then those of production,
not those of an empty table.  (With --only jobs, _memory starts empty, and the
runner plans on an empty table; see bench/README.md, "Figures: long-term memory".)

A benchmark, not a test: it exits 0 whatever the figures (2 if no server).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time

from fake_llm import Answer, FakeLLM
from psycopg import sql

from bench.benchlib import Bench, check, connect, durability, summary

DBNAME = "dca_bench_mem"
ROLE = "bench_mem_user"
GATEWAY = "bench_mem_gw"
PROFILE_ON = "MEM_ON"
PROFILE_OFF = "MEM_OFF"
ANSWER = "ok"
QUESTION = "Which format and currency should my quarterly sales report use?"
GOAL_MS = 2.0
EXTRACT_PREFIX = "You maintain long-term memory"

# A fact: one of eight kinds of durable statement, words drawn at random.
FACTS = [
    ("Prefers answers in ", ["French", "German", "Spanish", "Italian", "Portuguese", "Dutch",
                             "Japanese", "English", "Polish", "Swedish"],
     " with ", ["tables", "bullet points", "charts", "short paragraphs", "examples", "citations"]),
    ("Works as a ", ["analyst", "engineer", "accountant", "manager", "designer", "nurse",
                     "teacher", "lawyer", "consultant", "buyer", "planner", "auditor"],
     " in the ", ["finance team", "sales team", "marketing team", "logistics team",
                  "research team", "support team", "legal team", "procurement team"]),
    ("Wants ", ["quarterly", "monthly", "weekly", "daily", "annual"],
     " ", ["sales reports as tables", "revenue reports as CSV", "inventory reports as charts",
           "churn reports as PDF", "budget reports as slides", "margin reports as a summary"]),
    ("Lives in ", ["Lyon", "Berlin", "Madrid", "Osaka", "Toronto", "Nairobi", "Lima", "Oslo",
                   "Perth", "Austin", "Porto", "Gdansk", "Seoul", "Quito"],
     " and works ", ["remotely", "from the office", "part time", "night shifts",
                     "four days a week"]),
    ("Prefers to be contacted by ", ["email", "phone", "Slack", "Teams", "text message"],
     " in the ", ["morning", "afternoon", "evening"]),
    ("Uses ", ["Excel", "Tableau", "Power BI", "Python", "R", "Looker", "SAP", "Qlik", "dbt"],
     " for ", ["forecasting", "dashboards", "ad hoc queries", "budget planning", "audits",
               "data cleaning"]),
    ("Always show ", ["totals", "percentages", "growth rates", "averages", "medians",
                      "year over year changes"],
     " in ", ["euros", "dollars", "yen", "pounds", "francs", "kronor"]),
    ("Has a ", ["dog", "cat", "parrot", "rabbit", "horse", "tortoise"],
     " named ", ["Max", "Luna", "Rocky", "Bella", "Coco", "Milo", "Nala", "Oscar", "Pepper"]),
]


def _words(words: list[str]) -> str:
    return "public.bench_pick(array[" + ", ".join("'" + w + "'" for w in words) + "])"


FACT_FN = ("create function public.bench_fact() returns text language sql volatile as $$\n"
           f"select case floor(random() * {len(FACTS)})::int\n"
           + "".join(f"    when {i} then '{a}' || {_words(x)} || '{b}' || {_words(y)}\n"
                     for i, (a, x, b, y) in enumerate(FACTS))
           + "end $$")
PICK_FN = """
create function public.bench_pick(words text[]) returns text language sql volatile as $$
    select words[1 + floor(random() * pg_catalog.cardinality(words))::int] $$;
"""

# The measured subject's memories (distinct facts) and everyone else's, in one
# random order; owner = subject.  A duplicate fact of another subject is dropped.
# OFFSET 0 keeps each fact drawn once per row (md5 must hash the same draw).
MEMORIES = """
insert into dbms_cloud_ai._memory
       (memory_id, organization, subject, owner, fact, fact_key,
        source_conversation_id, source_prompt_id{ids_col}, created)
select gen_random_uuid(), %(org)s, x.subject, x.subject, x.fact, md5(lower(x.fact)),
       gen_random_uuid(), x.pid{ids_val}, now() - random() * interval '365 days'
  from ((select %(role)s::text as subject, f.fact, gen_random_uuid() as pid
           from (select distinct public.bench_fact() as fact
                   from generate_series(1, 20 * %(mine)s)) f
          order by random() limit %(mine)s)
        union all
        (select 'subject_' || lpad(s::text, 6, '0'), public.bench_fact(), gen_random_uuid()
           from generate_series(1, %(others)s) s, generate_series(1, %(per)s) k
         offset 0)) x
 order by random()
    on conflict do nothing
"""

# Earlier traffic: --history model calls over 90 days by 2,000 of the other
# subjects (about 100 each), so that the accounting tables have the size and
# statistics of a database in use: a generic plan made on an empty table, or on
# statistics where every owner has one or two calls, scans an owner's calls on
# every call (see bench/README.md, "Figures: long-term memory").
HISTORY = """
insert into dbms_cloud_ai._model_call
       (call_id, owner, created, profile_name, action, purpose, provider, model, prompt_version,
        input_tokens, output_tokens, latency_ms, status)
select gen_random_uuid(), 'subject_' || lpad((1 + g %% least(2000, greatest(%(others)s, 1)))::text, 6, '0'),
       now() - random() * interval '90 days', 'MEM_ON', 'CHAT', 'answer', 'openai',
       'gpt-4o-mini', 'chat@0badf00d', (200 + random() * 2000)::int, (20 + random() * 300)::int,
       (300 + random() * 2000)::int, 'ok'
  from generate_series(1, %(n)s) g
 order by 3
"""

# The harness: what recall runs inside the backend, timed there.
HARNESS = r"""
create function public.bench_memory_recall(question text, reps int)
returns table(identity_us float8, recall_us float8, search_us float8, recalled int, found int,
              recall_chars int)
language plpython3u volatile
as $python$
    # identity.current() + memory.recall(), as memory.chat() runs them on a first
    # turn, and memory.search() as the search_memories tool runs it; timed here.
    # Needs the package loaded: call a dbms_cloud_ai function in the session first.
    import time
    dca = GD.get("dbms_cloud_ai")
    if dca is None:
        plpy.error("call a dbms_cloud_ai function in this session first")
    current, mem, clock, out = dca.memory.identity.current, dca.memory.recall, time.perf_counter, []
    for _ in range(reps):
        t0 = clock()
        ident = current(plpy)
        t1 = clock()
        rows = mem.recall(plpy, ident, question)
        t2 = clock()
        found = mem.search(plpy, ident, question, mem.TOOL_LIMIT)
        t3 = clock()
        chars = len(mem.recall_message(rows)["content"]) if rows else 0
        out.append(((t1 - t0) * 1e6, (t2 - t1) * 1e6, (t3 - t2) * 1e6, len(rows), len(found),
                    chars))
    return out
$python$;
create function public.bench_memory_instrument(install boolean)
returns table(call int, part text, us float8)
language plpython3u volatile
as $python$
    # Timing wrappers (they call straight through) around what a first turn
    # runs, kept in this backend across statements: install, run generate()
    # from the client, then collect (which removes them).
    import time
    dca = GD.get("dbms_cloud_ai")
    if dca is None:
        plpy.error("call a dbms_cloud_ai function in this session first")
    for mod, name, orig in GD.pop("bench_mem_saved", []):
        setattr(mod, name, orig)
    calls = GD.pop("bench_mem_calls", [])
    if not install:
        return [(i, k, v * 1e6) for i, c in enumerate(calls) for k, v in c.items()]
    clock, calls, saved = time.perf_counter, [], []
    targets = [(dca.sqlapi, "generate", "sqlapi.generate"),
               (dca.memory.identity, "current", "identity.current"),
               (dca.memory.recall, "recall", "memory.recall"),
               (dca.model.llm, "chat", "llm.chat"), (dca.model.accounting, "flush", "accounting.flush")]
    def wrap(mod, name, key):
        orig = getattr(mod, name)
        def timed(*a, **k):
            if key == "sqlapi.generate":
                calls.append({})
            t0 = clock()
            try:
                return orig(*a, **k)
            finally:
                if calls:
                    calls[-1][key] = calls[-1].get(key, 0.0) + clock() - t0
        setattr(mod, name, timed)
        saved.append((mod, name, orig))
    for mod, name, key in targets:
        wrap(mod, name, key)
    GD["bench_mem_saved"], GD["bench_mem_calls"] = saved, calls
    return []
$python$;
create function public.bench_memory_sql() returns text[] language plpython3u volatile as $python$
    dca = GD.get("dbms_cloud_ai")
    if dca is None:
        plpy.error("call a dbms_cloud_ai function in this session first")
    mem = dca.memory.recall
    return [mem._RECALL, mem._SEARCH, mem._tsquery(plpy.execute(
        "select current_setting('bench.question') as q")[0]["q"]), ",".join(mem._TYPES)]
$python$;
"""


def setup(b: Bench) -> None:
    """Memory on, the gateway's role, the harness, and two profiles each (memory on and off)."""
    with connect("postgres", DBNAME) as c:
        c.execute("select dbms_cloud_ai.enable_memory()")
        c.execute("select dbms_cloud_ai.set_memory_role(%s, identity => 'asserted')", (GATEWAY,))
        c.execute(PICK_FN)
        c.execute(FACT_FN)
        c.execute(HARNESS)
        c.execute(f"grant execute on function public.bench_memory_recall(text, int) to {ROLE}")
        c.execute(f"grant execute on function public.bench_memory_sql() to {ROLE}")
        c.execute(f"grant execute on function public.bench_memory_instrument(boolean) to {ROLE}")
    for role in (ROLE, GATEWAY):
        b.profile(role, PROFILE_ON, long_term_memory=True)
        b.profile(role, PROFILE_OFF, long_term_memory=False)


def load_history(args) -> float:
    t0 = time.perf_counter()
    with connect("postgres", DBNAME) as su:
        su.execute(HISTORY, {"n": args.history, "others": args.subjects - 1})
        su.execute("analyze dbms_cloud_ai._model_call, dbms_cloud_ai._message_source")
    return time.perf_counter() - t0


def fmt_row(label: str, s: dict, cols=("p50", "p95", "p99", "mean"), scale=1.0, width=46) -> str:
    return f"    {label:<{width}}" + "".join(f"{s[c] * scale:>9.0f}" for c in cols)


# --- (a) recall ---------------------------------------------------------------------------------

def load_memories(args) -> dict:
    t0 = time.perf_counter()
    with connect("postgres", DBNAME) as su:
        su.execute("set work_mem = '64MB'")
        # Later versions keep every message that stated a fact (source_prompt_ids).
        many = su.execute("""select exists (select from information_schema.columns
                                             where table_schema = 'dbms_cloud_ai'
                                               and table_name = '_memory'
                                               and column_name = 'source_prompt_ids')""").fetchone()[0]
        stmt = MEMORIES.format(ids_col=", source_prompt_ids" if many else "",
                               ids_val=", array[x.pid]" if many else "")
        su.execute(stmt, {"org": DBNAME, "role": ROLE, "mine": args.memories,
                          "others": args.subjects - 1, "per": args.per_subject})
        loaded = time.perf_counter() - t0
        su.execute("vacuum analyze dbms_cloud_ai._memory")
        shape = su.execute("""
            select count(*), count(distinct subject),
                   count(*) filter (where subject = %s),
                   round(avg(length(fact))), min(length(fact)), max(length(fact)),
                   pg_size_pretty(pg_total_relation_size('dbms_cloud_ai._memory'))
              from dbms_cloud_ai._memory""", (ROLE,)).fetchone()
        per = su.execute("""
            select min(n), round(avg(n), 2), max(n) from
              (select count(*) n from dbms_cloud_ai._memory where subject <> %s group by subject) t""",
                         (ROLE,)).fetchone()
    return {"load_s": loaded, "total_s": time.perf_counter() - t0, "rows": shape[0],
            "subjects": shape[1], "mine": shape[2], "avg_len": shape[3], "min_len": shape[4],
            "max_len": shape[5], "size": shape[6], "per_min": per[0], "per_avg": per[1],
            "per_max": per[2]}


def bench_recall(args, fake: FakeLLM) -> None:
    us = 1e6
    shape = load_memories(args)
    check(shape["mine"] == args.memories, f"{shape['mine']} memories for {ROLE}, "
                                          f"expected {args.memories}")
    print(f"(a) recall for one subject with {shape['mine']} memories among "
          f"{shape['subjects']:,} subjects")
    print(f"    data: {shape['rows']:,} rows in dbms_cloud_ai._memory ({shape['size']} with "
          f"indexes); the other {shape['subjects'] - 1:,} subjects hold {shape['per_min']} to "
          f"{shape['per_max']} each (mean {shape['per_avg']}; duplicate facts dropped),")
    print(f"    owner = subject; facts {shape['min_len']} to {shape['max_len']} characters "
          f"(mean {shape['avg_len']}); rows in random order; bulk load {shape['load_s']:.1f}s, "
          f"with VACUUM ANALYZE {shape['total_s']:.1f}s")
    print(f"    question: {QUESTION!r}; organization settings: defaults "
          f"(max_memories 200, recall_tokens 400)")
    print()

    # 1. inside the backend
    c = connect(ROLE, DBNAME)
    ident = c.execute("select * from dbms_cloud_ai.memory_identity()").fetchone()
    check(ident[1] == ROLE and ident[3], f"memory_identity() = {ident}")
    c.execute("select public.bench_memory_recall(%s, %s)", (QUESTION, args.warmup)).fetchall()
    rows = c.execute("select * from public.bench_memory_recall(%s, %s)",
                     (QUESTION, args.reps)).fetchall()
    ids = summary([r[0] / us for r in rows])
    rec = summary([r[1] / us for r in rows])
    both = summary([(r[0] + r[1]) / us for r in rows])
    srch = summary([r[2] / us for r in rows])
    recalled, found, chars = rows[0][3], rows[0][4], rows[0][5]
    check(recalled > 0 and found > 0, f"recall found {recalled}, search {found}")
    cols = ("p50", "p95", "p99", "mean", "max")
    print(f"    1. inside the backend, {args.reps} calls after {args.warmup} warm-up (us):")
    print(f"    {'':<46}" + "".join(f"{x:>9}" for x in cols))
    print(fmt_row("identity.current()", ids, cols, us))
    print(fmt_row(f"memory.recall() (reads 200, keeps {recalled})", rec, cols, us))
    print(fmt_row("identity + recall", both, cols, us))
    print(fmt_row(f"memory.search() (tool, limit 5: {found} found)", srch, cols, us))
    p50_ms = both["p50"] * 1000
    print(f"    goal: identity + recall p50 < {GOAL_MS:g} ms: {p50_ms:.3f} ms -> "
          f"{'met' if p50_ms < GOAL_MS else 'NOT met'} (p95 {both['p95'] * 1000:.3f} ms); "
          f"recalled {recalled} facts, {chars} characters")
    print()

    # 2. the raw queries, prepared as recall prepares them
    c.execute("select set_config('bench.question', %s, false)", (QUESTION,))
    recall_sql, search_sql, tsq, types = c.execute("select public.bench_memory_sql()").fetchone()[0]
    c.execute(f"prepare bench_recall({types}) as {recall_sql}")
    c.execute(f"prepare bench_search({types}) as {search_sql}")
    # EXECUTE takes no bind parameters: the values are literals of the statement.
    execs = {name: sql.SQL("execute {}({}, {}, {}, {})").format(
        sql.Identifier(stmt), sql.Literal(DBNAME), sql.Literal(ROLE), sql.Literal(limit),
        sql.Literal(tsq)).as_string(c)
        for name, stmt, limit in (("recall", "bench_recall", 200), ("search", "bench_search", 5))}
    cur = c.cursor()
    lat = {"recall": [], "search": []}
    clock = time.perf_counter
    for i in range(args.warmup + args.reps):
        for name in ("recall", "search"):
            t0 = clock()
            cur.execute(execs[name])
            got = cur.fetchall()
            t1 = clock()
            if i >= args.warmup:
                lat[name].append(t1 - t0)
    check(len(got) > 0, "search found nothing")
    plan = [r[0] for r in c.execute("explain (analyze, buffers) " + execs["recall"]).fetchall()]
    splan = [r[0] for r in c.execute("explain (analyze, buffers) " + execs["search"]).fetchall()]
    print(f"    2. raw queries, PREPAREd with the types recall uses, EXECUTEd from the client "
          f"({args.reps} each; us, with the round trip):")
    print(f"    {'':<46}" + "".join(f"{x:>9}" for x in cols))
    print(fmt_row("_RECALL (limit max_memories = 200)", summary(lat["recall"]), cols, us))
    print(fmt_row("_SEARCH (limit 5)", summary(lat["search"]), cols, us))
    print(f"    tsquery: {tsq}")
    print("    EXPLAIN (ANALYZE, BUFFERS) of _RECALL:")
    for line in plan:
        print("      " + line)
    print("    EXPLAIN (ANALYZE, BUFFERS) of _SEARCH:")
    for line in splan:
        print("      " + line)
    print()

    # 3. end to end, memory on against off: one session, alternating blocks
    stmts = {v: sql.SQL("select dbms_cloud_ai.generate({}, {}, 'chat')").format(
        sql.Literal(QUESTION), sql.Literal(PROFILE_ON if v == "on" else PROFILE_OFF)
    ).as_string(c) for v in ("on", "off")}
    fake.reset()
    for v in ("on", "off"):
        check(c.execute(stmts[v]).fetchone()[0] == ANSWER, f"generate ({v}) failed")
    sent = {v: fake.requests[i].json["messages"] for i, v in enumerate(("on", "off"))}
    check(len(sent["off"]) == 1, f"memory off: {len(sent['off'])} messages sent")
    check(len(sent["on"]) == 2 and sent["on"][0]["content"].count("\n- ") == recalled,
          f"memory on: expected the {recalled} recalled facts, then the question; sent {sent['on']}")
    sizes = {v: len(fake.requests[i].body) for i, v in enumerate(("on", "off"))}
    cur = c.cursor()
    started = clock()
    lat, _ = blocks(cur, stmts, args.warmup, args.calls, args.block)
    wall = clock() - started
    server = c.execute("select current_setting('server_version')").fetchone()[0]
    st = {v: summary(lat[v]) for v in lat}
    print(f"    3. generate(question, profile, 'chat'), a first turn (no conversation), "
          f"{args.calls} calls each after {args.warmup} warm-up, in one session,")
    print(f"       blocks of {args.block} alternating on/off, {wall:.1f}s wall; PostgreSQL {server}; "
          f"request body {sizes['on']} bytes (memory on) / {sizes['off']} bytes (off) (us):")
    print(f"    {'':<46}" + "".join(f"{x:>9}" for x in cols))
    print(fmt_row("long_term_memory on (recall)", st["on"], cols, us))
    print(fmt_row("long_term_memory off", st["off"], cols, us))
    print(f"    {'difference on - off':<46}" + "".join(
        f"{(st['on'][x] - st['off'][x]) * us:>9.0f}" for x in cols))
    d = (st["on"]["p50"] - st["off"]["p50"]) * 1000
    print(f"    memory adds {d:.3f} ms to a first turn at p50 "
          f"({'under' if d < GOAL_MS else 'NOT under'} {GOAL_MS:g} ms), "
          f"ratio {st['on']['p50'] / st['off']['p50']:.2f}")
    print()

    # 4. where the difference goes: timing wrappers in the backend, another run
    if args.breakdown:
        c.execute("select public.bench_memory_instrument(true)").fetchall()
        _, order = blocks(cur, stmts, 0, args.breakdown, args.block)
        per: dict[int, dict] = {}
        for i, part, t in c.execute("select * from public.bench_memory_instrument(false)"):
            per.setdefault(i, {})[part] = t / us
        check(len(per) == len(order), f"{len(per)} calls instrumented, {len(order)} made")
        parts = {"on": [], "off": []}
        for i, v in enumerate(order):
            parts[v].append(per[i])
        names = [("sqlapi.generate", "generate() inside the backend"),
                 ("identity.current", "identity.current()"), ("memory.recall", "memory.recall()"),
                 ("llm.chat", "llm.chat() (request, HTTP, reply, record)"),
                 ("accounting.flush", "accounting.flush() (writes the records)"),
                 ("rest", "the rest of generate()")]
        for p in per.values():
            p["rest"] = p.get("sqlapi.generate", 0) - sum(p.get(k, 0) for k, _ in names[1:5])
        print(f"    4. where it goes: {args.breakdown} more calls each, timing wrappers around the "
              f"package's functions (p50 per call, us):")
        print(f"    {'':<46}{'on':>9}{'off':>9}{'on - off':>10}")
        for key, label in names:
            med = {v: summary([p.get(key, 0.0) for p in parts[v]])["p50"] for v in parts}
            print(f"    {label:<46}{med['on'] * us:>9.0f}{med['off'] * us:>9.0f}"
                  f"{(med['on'] - med['off']) * us:>10.0f}")
        print()
    c.close()


def blocks(cur, stmts: dict, warmup: int, n: int, block: int) -> tuple[dict, list[str]]:
    """Each statement n times after warmup, in blocks of ``block`` that alternate
    (the order flipping every round) in one session; latencies, and the order run."""
    lat = {v: [] for v in stmts}
    order: list[str] = []
    clock = time.perf_counter

    def run(v, k, keep):
        for _ in range(k):
            t0 = clock()
            cur.execute(stmts[v], prepare=True)
            row = cur.fetchone()
            t1 = clock()
            order.append(v)
            check(row[0] == ANSWER, f"generate ({v}) returned {row[0]!r}")
            if keep:
                lat[v].append(t1 - t0)

    for v in stmts:
        run(v, warmup, False)
    names, rounds = list(stmts), 0
    while min(len(x) for x in lat.values()) < n:
        for v in (names if rounds % 2 == 0 else names[::-1]):
            run(v, min(block, n - len(lat[v])), True)
        rounds += 1
    return lat, order


# --- (b) job runner -----------------------------------------------------------------------------

def extractor(wire, body):
    """Every extraction gets one valid fact: the user message that states a
    preference, cited by its id and quoted; anything else gets ANSWER."""
    msgs = body.get("messages") or []
    if msgs and str(msgs[0].get("content", "")).startswith(EXTRACT_PREFIX):
        convo = json.loads(msgs[1]["content"])
        facts = []
        for m in convo:
            if m.get("id") and "I prefer " in m["text"]:
                quote = m["text"][m["text"].index("I prefer "):].rstrip(".")
                facts.append({"fact": "Prefers " + quote[len("I prefer "):],
                              "message_id": m["id"], "quote": quote})
        return Answer(json.dumps({"facts": facts}), input_tokens=180, output_tokens=40)
    return Answer(ANSWER)


JOBS = """
insert into dbms_cloud_ai._conversation
       (conversation_id, owner, title, retention_days, title_pending, created, modified)
select gen_random_uuid(), %(owner)s, %(tag)s || ' ' || g, 0, false,
       now() - interval '1 hour', now() - interval '30 minutes'
  from generate_series(1, %(n)s) g;
insert into dbms_cloud_ai._conversation_prompt
       (conversation_prompt_id, conversation_id, owner, profile_name, prompt_action, prompt,
        prompt_response, created, modified, organization, subject)
select gen_random_uuid(), c.conversation_id, c.owner, %(profile)s, 'CHAT',
       case k when 1 then 'Hello, this is visitor ' || split_part(c.title, ' ', 2)
                          || '. For the record, I prefer answers in '
                          || (array['French','German','Spanish','Italian','Dutch'])[1 + (k + length(c.title)) %% 5]
                          || ' with ' || (array['tables','bullet points','charts'])[1 + length(c.title) %% 3] || '.'
              else 'How many orders did we ship last week?' end,
       case k when 1 then 'Noted.' else 'You shipped 1,234 orders last week.' end,
       now() - interval '40 minutes' + k * interval '1 minute',
       now() - interval '40 minutes' + k * interval '1 minute',
       %(org)s, %(tag)s || '_' || lpad(split_part(c.title, ' ', 2), 6, '0')
  from dbms_cloud_ai._conversation c, generate_series(1, 2) k
 where c.title like %(tag)s || ' %%'
 order by c.conversation_id, k;
insert into dbms_cloud_ai._memory_job
       (conversation_id, owner, organization, subject, profile_name, status, due_at, created)
select c.conversation_id, c.owner, %(org)s,
       %(tag)s || '_' || lpad(split_part(c.title, ' ', 2), 6, '0'), %(profile)s, 'pending',
       now() - interval '15 minutes' + random() * interval '10 minutes', now() - interval '30 minutes'
  from dbms_cloud_ai._conversation c
 where c.title like %(tag)s || ' %%';
"""


def load_jobs(n: int, tag: str) -> float:
    t0 = time.perf_counter()
    with connect("postgres", DBNAME) as su:
        for stmt in JOBS.split(";\n"):
            if stmt.strip():
                su.execute(stmt, {"owner": GATEWAY, "tag": tag, "n": n, "org": DBNAME,
                                  "profile": PROFILE_ON})
        su.execute("analyze dbms_cloud_ai._conversation, dbms_cloud_ai._conversation_prompt, "
                   "dbms_cloud_ai._memory_job, dbms_cloud_ai._memory, dbms_cloud_ai._model_call")
    return time.perf_counter() - t0


def verify_jobs(tag: str, n: int) -> dict:
    with connect("postgres", DBNAME) as su:
        by = dict(((s, r), k) for s, r, k in su.execute("""
            select status, coalesce(reason, ''), count(*) from dbms_cloud_ai._memory_job
             where subject like %s || '\\_%%' group by 1, 2""", (tag,)).fetchall())
        stored = su.execute("select count(*) from dbms_cloud_ai._memory "
                            "where subject like %s || '\\_%%'", (tag,)).fetchone()[0]
        calls = su.execute("""
            select count(*) from dbms_cloud_ai._model_call m
              join dbms_cloud_ai._memory_job j on j.call_id = m.call_id
             where j.subject like %s || '\\_%%' and m.purpose = 'memory'""", (tag,)).fetchone()[0]
        # Each job finishes in its own transaction: its finish time shows whether
        # the per-job cost changes during the run.
        fifths = [r[0] for r in su.execute("""
            select round((extract(epoch from max(finished) - min(finished)) * 1000
                          / greatest(count(*) - 1, 1))::numeric, 2)
              from (select finished, ntile(5) over (order by finished) k
                      from dbms_cloud_ai._memory_job
                     where subject like %s || '\\_%%' and finished is not null) t
             group by k order by k""", (tag,)).fetchall()]
        prompts = su.execute("select count(*) from dbms_cloud_ai._conversation_prompt "
                             "where owner = %s", (GATEWAY,)).fetchone()[0]
    return {"by": by, "stored": stored, "calls": calls, "fifths": fifths, "prompts": prompts}


def run_runners(runners: int, batch: int) -> tuple[float, list[int], list[float]]:
    conns = [connect("postgres", DBNAME) for _ in range(runners)]
    done: list[int] = [0] * runners
    each: list[float] = [0.0] * runners
    errors: list[BaseException] = []
    barrier = threading.Barrier(runners + 1)

    def work(i):
        try:
            barrier.wait()
            t0 = time.perf_counter()
            done[i] = conns[i].execute("call dbms_cloud_ai.run_memory_jobs(%s)",
                                       (batch,)).fetchone()[0]
            each[i] = time.perf_counter() - t0
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(runners)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    for conn in conns:
        conn.close()
    check(not errors, f"runner failed: {errors[:1]!r}")
    return wall, done, each


def report_run(label: str, n: int, wall: float, done: list[int], each: list[float], v: dict,
               extractions: int) -> None:
    ok = v["by"].get(("done", "stored"), 0)
    print(f"    {label}: {wall:.2f}s for {sum(done):,} jobs -> {sum(done) / wall:,.0f} jobs/s, "
          f"{wall * 1000 / max(sum(done), 1):.2f} ms/job"
          + (f" (runners processed {', '.join(f'{d:,} in {t:.2f}s' for d, t in zip(done, each))})"
             if len(done) > 1 else ""))
    print("      jobs: " + ", ".join(f"{s}/{r or '-'} {k:,}" for (s, r), k in sorted(v["by"].items()))
          + f"; memories stored {v['stored']:,}; extraction calls recorded {v['calls']:,}; "
            f"requests the model got {extractions:,}")
    print("      ms/job in each fifth of the run (from the jobs' finish times): "
          + ", ".join(f"{x}" for x in v["fifths"])
          + f"; {GATEWAY} holds {v['prompts']:,} prompts")
    check(ok == n and v["stored"] == n and sum(done) == n and extractions == n and v["calls"] == n,
          f"{label}: expected {n:,} jobs done/stored, {n:,} memories, {n:,} extractions")


def bench_jobs(args, fake: FakeLLM) -> None:
    n = args.jobs
    fake.reset()
    fake.responder = extractor
    load = load_jobs(n, "solo")
    print(f"(b) job runner: {n:,} due conversations of {GATEWAY} (identity 'asserted'), one "
          f"subject and one job each,")
    with connect("postgres", DBNAME) as su:
        sizes = su.execute("select (select count(*) from dbms_cloud_ai._memory), "
                           "(select count(*) from dbms_cloud_ai._model_call)").fetchone()
    print(f"    2 prompts each (one states a preference), organization {DBNAME}; bulk load + "
          f"ANALYZE {load:.1f}s; the fake model answers each extraction at once with one valid fact;")
    print(f"    at the start _memory holds {sizes[0]:,} rows and _model_call {sizes[1]:,} "
          f"(analyzed)")
    wall, done, each = run_runners(1, args.batch_size)
    ext = len([r for r in fake.requests if r.json["messages"][0]["content"].startswith(EXTRACT_PREFIX)])
    report_run(f"CALL run_memory_jobs({args.batch_size}), one runner (superuser)", n, wall, done,
               each, verify_jobs("solo", n), ext)
    if args.runners > 1:
        fake.reset()
        fake.responder = extractor
        # The same starting point: the first run's conversations (and prompts) go.
        with connect("postgres", DBNAME) as su:
            su.execute("delete from dbms_cloud_ai._conversation where owner = %s", (GATEWAY,))
            su.execute("vacuum analyze dbms_cloud_ai._conversation, "
                       "dbms_cloud_ai._conversation_prompt, dbms_cloud_ai._memory_job")
        load = load_jobs(n, "para")
        wall, done, each = run_runners(args.runners, args.batch_size)
        reqs = [r for r in fake.requests
                if r.json["messages"][0]["content"].startswith(EXTRACT_PREFIX)]
        cited = {json.loads(r.json["messages"][1]["content"])[0]["id"] for r in reqs}
        check(len(cited) == len(reqs), f"{len(reqs) - len(cited)} jobs ran twice")
        report_run(f"{args.runners} runners at once, another {n:,} jobs", n, wall, done, each,
                   verify_jobs("para", n), len(reqs))
        print(f"      each job ran exactly once ({len(cited):,} distinct conversations extracted)")
    fake.responder = lambda wire, body: Answer(ANSWER)
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subjects", type=int, default=100_000, help="(a) subjects, with the measured one (100000)")
    ap.add_argument("--per-subject", type=int, default=10, help="(a) memories of each other subject (10)")
    ap.add_argument("--memories", type=int, default=200, help="(a) memories of the measured subject (200)")
    ap.add_argument("--reps", type=int, default=2000, help="(a) measured recalls and raw queries (2000)")
    ap.add_argument("--calls", type=int, default=1000, help="(a) measured generate() calls each way (1000)")
    ap.add_argument("--warmup", type=int, default=50, help="(a) uncounted calls first (50)")
    ap.add_argument("--block", type=int, default=50, help="(a) calls per block of on / off (50)")
    ap.add_argument("--breakdown", type=int, default=300,
                    help="(a) calls each with timing wrappers, to see where the time goes; 0 skips (300)")
    ap.add_argument("--history", type=int, default=200_000,
                    help="recorded model calls loaded first, as in a database in use (200000)")
    ap.add_argument("--jobs", type=int, default=10_000, help="(b) due conversations (10000)")
    ap.add_argument("--batch-size", type=int, default=500, help="(b) run_memory_jobs batch size (500)")
    ap.add_argument("--runners", type=int, default=2,
                    help="(b) runners at once for the second run; 1 skips it (2)")
    ap.add_argument("--only", choices=("recall", "jobs"), help="run only (a) or only (b)")
    ap.add_argument("--keep", action="store_true", help=f"keep database {DBNAME} afterwards")
    args = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("bench: DCA_PGHOST/DCA_PGPORT not set (socket directory and port of a server "
              "where postgres is a trust-auth superuser)", file=sys.stderr)
        return 2
    print(f"bench_memory: {durability()}", flush=True)
    check(args.memories <= 200, "--memories above max_memories (200) would not all be recalled")

    started = time.perf_counter()
    with Bench(DBNAME, users=[ROLE, GATEWAY], responder=lambda wire, body: Answer(ANSWER),
               keep=args.keep) as b:
        fake = b.fake
        setup(b)
        print(f"dbms_cloud_ai long-term memory benchmark: database {DBNAME}, roles {ROLE} and "
              f"{GATEWAY}, fake LLM at {fake.url} (answers at once)")
        took = load_history(args)
        print(f"earlier traffic: {args.history:,} recorded model calls of 2,000 other subjects "
              f"over 90 days ({took:.1f}s with ANALYZE)")
        print()
        if args.only in (None, "recall"):
            bench_recall(args, fake)
        if args.only in (None, "jobs"):
            bench_jobs(args, fake)
        print(f"total {time.perf_counter() - started:.0f}s")
        return 0


if __name__ == "__main__":
    sys.exit(main())
