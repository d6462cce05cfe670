"""What dbms_cloud_ai_agent.run_team() adds per step on top of the model's round trips.

Run by `make bench` against a throwaway cluster (DCA_PGHOST / DCA_PGPORT):

    .venv/bin/python -m bench.bench_agents [--runs N] [--warmup W] [--keep]

It creates a fresh database dca_bench_agents with the extension, a login role
bench_agent_user with an openai profile over an in-process fake LLM that answers
at once, a function tool over bench_agent_user.add2(a, b), and a team of two
tasks: the first calls the tool once then answers, the second takes the first's
result as its input and answers.  One run is therefore 3 model requests and 1
tool call.

For each run, on the client: the wall time of run_team (execute + fetch).  From
the run's own records (user_cloud_ai_calls, by its conversation id): the
latency_ms of its 3 model requests, which is each request's round trip as the
extension's HTTP layer saw it.  The difference is what the extension adds: the
team read, the history rows, the tool call, the accounting, the conversation
turn, and the statement's round trip.  Printed: p50/p95 of the run, of the model
round trips, of the difference, and the difference per step (per model request).

A benchmark, not a test: it exits 0 whatever the figures (2 if no server).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from fake_llm import Answer, ToolCalls, tool_results

from bench.benchlib import Bench, connect, durability, summary

DBNAME = "dca_bench_agents"
ROLE = "bench_agent_user"
PROFILE = "BENCH_AGENT"
STEPS = 3          # model requests per run


def respond(wire, body):
    """Task 1: ask for the tool, then answer; task 2: answer at once."""
    text = json.dumps(body)
    if "Sum it" in text and not tool_results(wire, body):
        return ToolCalls([{"name": "ADDER", "arguments": {"a": 2, "b": 3}}])
    return Answer("5")


def setup() -> None:
    with connect("postgres", DBNAME) as c:
        c.execute(f"create schema {ROLE} authorization {ROLE}")
    with connect(ROLE, DBNAME) as c:
        c.execute("create function add2(a integer, b integer) returns integer "
                  "language sql as 'select a + b'")
        for kind, name, attrs in (
                ("tool", "ADDER", {"instruction": "Adds two numbers", "function": "add2"}),
                ("agent", "A", {"profile_name": PROFILE, "role": "You add numbers.",
                                "enable_human_tool": False}),
                ("task", "SUM", {"instruction": "Sum it: {query}", "tools": ["ADDER"],
                                 "enable_human_tool": False}),
                ("task", "SAY", {"instruction": "Say the result", "input": "SUM",
                                 "enable_human_tool": False}),
                ("team", "T", {"agents": [{"name": "A", "task": "SUM"}, {"name": "A", "task": "SAY"}]})):
            c.execute(f"select dbms_cloud_ai_agent.create_{kind}(%s, %s)", (name, json.dumps(attrs)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200, help="measured runs (default 200)")
    ap.add_argument("--warmup", type=int, default=20, help="uncounted runs first (default 20)")
    ap.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("bench: DCA_PGHOST/DCA_PGPORT not set; run `make bench`", file=sys.stderr)
        return 2
    with Bench(DBNAME, users=[ROLE], responder=respond, profile=PROFILE, keep=args.keep):
        setup()
        conn = connect(ROLE, DBNAME)
        run = "select dbms_cloud_ai_agent.run_team('T', '2 and 3')"
        last = ("select conversation_id from dbms_cloud_ai_agent.user_ai_agent_team_history "
                "order by start_date desc limit 1")
        latency = ("select coalesce(sum(latency_ms), 0), count(*) from dbms_cloud_ai.user_cloud_ai_calls "
                   "where conversation_id = %s and purpose = 'answer'")
        walls, models, extra = [], [], []
        for i in range(args.warmup + args.runs):
            t0 = time.perf_counter()
            out = conn.execute(run, prepare=True).fetchone()[0]
            wall = (time.perf_counter() - t0) * 1000
            cid = conn.execute(last).fetchone()[0]
            model_ms, n = conn.execute(latency, (cid,)).fetchone()
            if out != "5" or n != STEPS:
                raise SystemExit(f"bench: unexpected run: answer {out!r}, {n} model requests")
            if i >= args.warmup:
                walls.append(wall)
                models.append(float(model_ms))
                extra.append(wall - float(model_ms))
        conn.close()
    print(f"bench_agents: {args.runs} runs of a 2-task team ({STEPS} model requests, 1 function tool "
          "call each), fake model on loopback")
    print(durability())
    for label, xs in (("run_team wall", walls), ("model round trips", models),
                      ("extension overhead", extra)):
        s = summary(xs)
        print(f"  {label:20s} p50 {s['p50']:8.2f} ms  p95 {s['p95']:8.2f} ms  mean {s['mean']:8.2f} ms")
    s = summary(extra)
    print(f"  overhead per step    p50 {s['p50'] / STEPS:8.2f} ms  (overhead / {STEPS} model requests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
