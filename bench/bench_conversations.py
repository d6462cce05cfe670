"""Conversations at scale: turn latency against history size, and purge throughput.

Run against a running server (superuser postgres, trust auth), like bench_generate.py:

    DCA_PGHOST=/path/to/sock DCA_PGPORT=5432 .venv/bin/python -m bench.bench_conversations \
        [--turns N] [--warmup W] [--large-prompts N] [--expired-prompts N] [--batch-size B] \
        [--purge-as admin|superuser] [--only turn|purge] [--keep]

It creates a fresh database dca_bench_conv with the extension, a login role
bench_conv_user (member of dbms_cloud_ai_user) with a credential and an openai
profile BENCH whose provider_endpoint is an in-process fake LLM answering at
once, and a login role bench_conv_admin (member of dbms_cloud_ai_admin).

(a) Turn latency.  Two titled conversations of bench_conv_user with the
    default conversation_length (10): one holding 10 prompts, one holding
    100,000, both bulk-inserted as superuser with generate_series straight into
    dbms_cloud_ai._conversation_prompt (owner bench_conv_user), then ANALYZE.
    One connection per conversation runs the same prepared
    generate(..., 'chat', params => '{"conversation_id": ...}'), interleaved
    turn by turn (alternating which goes first), warm-up not counted.  Each
    turn reads the 10 newest pairs, calls the model and appends one row.
    Goal: p50 (large) / p50 (small) <= 1.1.

(b) Purge throughput.  1,000,000 prompts in 1,000 conversations whose
    expires_at is in the past, bulk-inserted the same way, and one live
    conversation.  An appender session loops generate() turns on the live
    conversation; after a baseline of turns, another session runs
    dbms_cloud_ai.purge_expired_conversations(batch_size) as bench_conv_admin
    (or as the superuser with --purge-as superuser).  Reported: rows purged per
    second, and the appender's turn latency before and during the purge, with
    the longest single turn (the longest stall) against its p50.

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

DBNAME = "dca_bench_conv"
ROLE = "bench_conv_user"
ADMIN = "bench_conv_admin"
PROFILE = "BENCH"
ANSWER = "ok"
GOAL = 1.1


def new_conversation(conn, title: str, **attrs) -> str:
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps({"title": title, **attrs}),)).fetchone()[0]


def bulk_prompts(su, cid: str, n: int, label: str) -> None:
    """n prompt rows for one conversation of ROLE, straight into the table, as superuser."""
    su.execute("""
        insert into dbms_cloud_ai._conversation_prompt
               (conversation_prompt_id, conversation_id, owner, profile_name, prompt_action,
                prompt, prompt_response, created, modified)
        select gen_random_uuid(), %(cid)s::uuid, %(owner)s, %(profile)s, 'CHAT',
               %(label)s || ' question ' || g, %(label)s || ' answer ' || g,
               now() - make_interval(secs => %(n)s - g), now() - make_interval(secs => %(n)s - g)
          from generate_series(1, %(n)s) g""",
               {"cid": cid, "owner": ROLE, "profile": PROFILE, "label": label, "n": n})


def turn_sql(conn, cid: str) -> str:
    return sql.SQL("select dbms_cloud_ai.generate({}, {}, 'chat', params => {})").format(
        sql.Literal("next question"), sql.Literal(PROFILE),
        sql.Literal(json.dumps({"conversation_id": cid}))).as_string(conn)


# --- (a) ------------------------------------------------------------------------------------------

def bench_turns(args, fake: FakeLLM) -> None:
    us = 1e6
    with connect(ROLE, DBNAME) as c:
        small = new_conversation(c, "small", retention_days=0)
        large = new_conversation(c, "large", retention_days=0)
    t0 = time.perf_counter()
    with connect("postgres", DBNAME) as su:
        bulk_prompts(su, small, 10, "small")
        bulk_prompts(su, large, args.large_prompts, "large")
        su.execute("analyze dbms_cloud_ai._conversation, dbms_cloud_ai._conversation_prompt")
    load = time.perf_counter() - t0

    conns = {"small": connect(ROLE, DBNAME), "large": connect(ROLE, DBNAME)}
    runs = {name: (conns[name].cursor(), turn_sql(conns[name], cid), [])
            for name, cid in (("small", small), ("large", large))}
    # The history really is the 10 newest pairs of each conversation.
    for name, (cur, q, _) in runs.items():
        fake.reset()
        check(cur.execute(q, prepare=True).fetchone()[0] == ANSWER, "generate() failed")
        msgs = fake.requests[-1].json["messages"]
        check(len(msgs) == 21, f"{name}: {len(msgs)} messages sent, expected 21")
        n = 10 if name == "small" else args.large_prompts
        check(msgs[0]["content"] == f"{name} question {n - 9}", f"{name}: wrong window {msgs[0]}")
    names = list(runs)
    clock = time.perf_counter
    started = clock()
    for i in range(args.warmup + args.turns):
        for name in (names if i % 2 == 0 else names[::-1]):
            cur, q, lat = runs[name]
            t1 = clock()
            cur.execute(q, prepare=True)
            row = cur.fetchone()
            t2 = clock()
            check(row[0] == ANSWER, f"{name} returned {row[0]!r}")
            if i >= args.warmup:
                lat.append(t2 - t1)
    wall = clock() - started
    with connect(ROLE, DBNAME) as c:
        counts = dict(c.execute("select conversation_title, count(*) from "
                                "dbms_cloud_ai.user_cloud_ai_conversation_prompts group by 1").fetchall())
    server = conns["small"].execute("select current_setting('server_version')").fetchone()[0]
    for conn in conns.values():
        conn.close()

    st = {name: summary(runs[name][2]) for name in names}
    cols = ("p50", "p95", "p99", "mean", "max")
    print()
    print(f"(a) one generate() turn: conversation of 10 prompts vs {args.large_prompts:,} prompts")
    print(f"    PostgreSQL {server}; {args.turns} turns each after {args.warmup} warm-up, interleaved, "
          f"{wall:.1f}s wall; bulk load + ANALYZE {load:.1f}s")
    print(f"    conversation_length 10 (default): each turn sends 10 pairs; rows at the end: "
          f"small {counts.get('small', 0):,}, large {counts.get('large', 0):,}")
    print()
    print(f"    {'latency (us)':<30}" + "".join(f"{c:>9}" for c in cols))
    for name in names:
        label = f"{name} ({'10' if name == 'small' else f'{args.large_prompts:,}'} prompts)"
        print(f"    {label:<30}" + "".join(f"{st[name][c] * us:>9.0f}" for c in cols))
    print(f"    {'ratio large / small':<30}" + "".join(f"{st['large'][c] / st['small'][c]:>9.2f}"
                                                       for c in cols))
    r50 = st["large"]["p50"] / st["small"]["p50"]
    r95 = st["large"]["p95"] / st["small"]["p95"]
    print(f"    goal: p50 ratio <= {GOAL}: {r50:.2f} -> {'met' if r50 <= GOAL else 'NOT met'} "
          f"(p95 ratio {r95:.2f})")


# --- (b) ------------------------------------------------------------------------------------------

def bench_purge(args, fake: FakeLLM) -> None:
    us = 1e6
    per = max(1, args.expired_prompts // args.expired_conversations)
    total = per * args.expired_conversations
    t0 = time.perf_counter()
    with connect("postgres", DBNAME) as su:
        su.execute("""
            insert into dbms_cloud_ai._conversation
                   (conversation_id, owner, title, retention_days, conversation_length, title_pending,
                    created, modified, expires_at)
            select gen_random_uuid(), %(owner)s, 'expired ' || g, 7, null, false,
                   now() - interval '30 days', now() - interval '30 days', now() - interval '23 days'
              from generate_series(1, %(n)s) g""", {"owner": ROLE, "n": args.expired_conversations})
        su.execute("""
            insert into dbms_cloud_ai._conversation_prompt
                   (conversation_prompt_id, conversation_id, owner, profile_name, prompt_action,
                    prompt, prompt_response, created, modified)
            select gen_random_uuid(), c.conversation_id, c.owner, %(profile)s, 'CHAT',
                   'old question ' || g, 'old answer ' || g, c.created, c.created
              from dbms_cloud_ai._conversation c cross join generate_series(1, %(per)s) g
             where c.title like 'expired %%'""", {"profile": PROFILE, "per": per})
        su.execute("analyze dbms_cloud_ai._conversation, dbms_cloud_ai._conversation_prompt")
        expired = su.execute("select count(*) from dbms_cloud_ai._conversation_prompt p "
                             "join dbms_cloud_ai._conversation c using (conversation_id) "
                             "where c.expires_at <= now()").fetchone()[0]
    load = time.perf_counter() - t0
    check(expired == total, f"{expired} expired prompts loaded, expected {total}")

    with connect(ROLE, DBNAME) as c:
        live = new_conversation(c, "live")
    appender = connect(ROLE, DBNAME)
    q = turn_sql(appender, live)
    cur = appender.cursor()
    before: list[float] = []
    during: list[float] = []
    phase = {"now": []}  # warm-up turns, not counted
    stop = threading.Event()
    failures: list[BaseException] = []

    def append():
        clock = time.perf_counter
        try:
            while not stop.is_set():
                t1 = clock()
                cur.execute(q, prepare=True)
                row = cur.fetchone()
                t2 = clock()
                if row[0] != ANSWER:
                    raise RuntimeError(f"appender got {row[0]!r}")
                phase["now"].append(t2 - t1)
        except BaseException as e:
            failures.append(e)

    purger_role = ADMIN if args.purge_as == "admin" else "postgres"
    purger = connect(purger_role, DBNAME)
    fake.reset()
    th = threading.Thread(target=append, name="appender")
    th.start()
    deadline = time.monotonic() + 60
    while len(phase["now"]) < args.warmup and time.monotonic() < deadline and not failures:
        time.sleep(0.01)
    phase["now"] = before
    while len(before) < args.baseline_turns and time.monotonic() < deadline and not failures:
        time.sleep(0.05)
    phase["now"] = during
    t1 = time.perf_counter()
    purged = purger.execute("call dbms_cloud_ai.purge_expired_conversations(%s)",
                            (args.batch_size,)).fetchone()[0]
    purge_s = time.perf_counter() - t1
    phase["now"] = []
    stop.set()
    th.join(60)
    check(not failures, f"appender failed: {failures[:1]!r}")
    with connect("postgres", DBNAME) as su:
        left = su.execute("select count(*) from dbms_cloud_ai._conversation_prompt p "
                          "join dbms_cloud_ai._conversation c using (conversation_id) "
                          "where c.expires_at <= now()").fetchone()[0]
        left_conv = su.execute("select count(*) from dbms_cloud_ai._conversation "
                               "where expires_at <= now()").fetchone()[0]
        live_rows = su.execute("select count(*) from dbms_cloud_ai._conversation_prompt "
                               "where conversation_id = %s::uuid", (live,)).fetchone()[0]
    appender.close()
    purger.close()
    check(left == 0 and left_conv == 0, f"purge left {left} expired prompts, {left_conv} conversations")
    appended = len(before) + len(during)
    check(live_rows >= appended, f"live conversation has {live_rows} rows, appender made {appended}")

    b, d = summary(before), summary(during) if during else None
    print()
    purger_kind = "member of dbms_cloud_ai_admin" if args.purge_as == "admin" else "superuser"
    print(f"(b) purge of {total:,} expired prompts in {args.expired_conversations:,} conversations, "
          f"batch_size {args.batch_size}, as {purger_role} ({purger_kind})")
    print(f"    bulk load + ANALYZE {load:.1f}s")
    print(f"    purge_expired_conversations returned {purged:,} rows in {purge_s:.2f}s: "
          f"{total / purge_s:,.0f} prompts/s ({purged / purge_s:,.0f} rows/s incl. conversations)")
    print("    appender (one session, turns on a live conversation, fake LLM answers at once):")
    cols = ("n", "p50", "p95", "p99", "max")
    print(f"    {'turn latency (us)':<30}" + "".join(f"{c:>9}" for c in cols))
    for label, s in (("before the purge", b), ("during the purge", d)):
        if s is None:
            print(f"    {label:<30}   (no turn completed)")
            continue
        print(f"    {label:<30}{s['n']:>9}" + "".join(f"{s[c] * us:>9.0f}" for c in cols[1:]))
    if d:
        print(f"    longest stall during the purge: {d['max'] * 1000:.1f} ms = {d['max'] / d['p50']:.1f}x "
              f"its p50 ({d['p50'] * 1000:.2f} ms); {d['max'] / b['p50']:.1f}x the p50 before the purge")
    print(f"    after: 0 expired prompts or conversations left; live conversation holds {live_rows:,} rows")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=1000, help="(a) measured turns per conversation (1000)")
    ap.add_argument("--warmup", type=int, default=30, help="(a) uncounted turns per conversation first (30)")
    ap.add_argument("--large-prompts", type=int, default=100_000, help="(a) prompts in the large one (100000)")
    ap.add_argument("--expired-prompts", type=int, default=1_000_000, help="(b) expired prompts (1000000)")
    ap.add_argument("--expired-conversations", type=int, default=1_000, help="(b) spread over (1000)")
    ap.add_argument("--batch-size", type=int, default=10_000, help="(b) purge batch size (10000)")
    ap.add_argument("--baseline-turns", type=int, default=200, help="(b) appender turns before the purge (200)")
    ap.add_argument("--purge-as", choices=("admin", "superuser"), default="admin",
                    help="(b) run the purge as a dbms_cloud_ai_admin member (default) or as postgres")
    ap.add_argument("--only", choices=("turn", "purge"), help="run only (a) or only (b)")
    ap.add_argument("--keep", action="store_true", help=f"keep database {DBNAME} afterwards")
    args = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("bench: DCA_PGHOST/DCA_PGPORT not set (socket directory and port of a server "
              "where postgres is a trust-auth superuser)", file=sys.stderr)
        return 2
    print(f"bench_conversations: {durability()}", flush=True)

    with Bench(DBNAME, users=[ROLE], admins=[ADMIN], responder=lambda wire, body: Answer(ANSWER),
               profile=PROFILE, keep=args.keep) as b:
        fake = b.fake
        print(f"dbms_cloud_ai conversations benchmark: database {DBNAME}, role {ROLE}, "
              f"fake LLM at {fake.url} (answers at once)")
        if args.only in (None, "turn"):
            bench_turns(args, fake)
        if args.only in (None, "purge"):
            bench_purge(args, fake)
        return 0


if __name__ == "__main__":
    sys.exit(main())
