"""Is this version's generate() slower than a released one's?  Both side by side, in one run.

Run by `make bench` against a throwaway cluster (DCA_PGHOST / DCA_PGPORT):

    scripts/install-release.sh 0.3.0            # once, as root: the release's Python package
    .venv/bin/python -m bench.bench_versions [--release 0.3.0] [--sets 8] [--calls 300]

Two databases, dca_v_release with the released version (CREATE EXTENSION ...
VERSION) and dca_v_current with the installed one, each with the role
bench_user, a credential and an openai profile whose endpoint is an
in-process fake LLM.  A third connection runs bench_generate.py's httpx
baseline with the request the current version sends.

Why not two runs of bench_generate.py with an install in between: a backend's
speed depends on the backend (where its memory lands, which core it shares
with the client and the fake), by up to a few hundred microseconds per call on
a small machine, more than the differences this is meant to find.  Here the
three backends run interleaved call by call, and that is repeated with a fresh
set of three connections --sets times; the verdict is the median over sets of
the difference of the two ratios (generate p50 / baseline p50).

A benchmark, not a test: it exits 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from fake_llm import Answer, FakeLLM

from bench import ROOT
from bench.bench_generate import API_KEY, BARE_POST_HTTPX, CREDENTIAL, PROFILE, PROMPT, ROLE, TRANSPORT_HEADERS
from bench.benchlib import check, connect, durability, fresh_databases

GENERATE = "select dbms_cloud_ai.generate(%s, profile_name => %s, action => 'chat')"
BASELINE = "select public.bench_bare_post_httpx(%s, %s, %s)"


def newest_release() -> str:
    """The newest version a frozen script installs or updates to (sql/released keeps the
    oldest install script and every update script; CREATE EXTENSION ... VERSION chains them)."""
    return max((p.stem.split("--")[-1] for p in (ROOT / "sql" / "released").glob("dbms_cloud_ai--*.sql")),
               key=lambda v: tuple(int(x) for x in v.split(".")))


def setup(fake: FakeLLM, dbs: dict[str, str | None]) -> bool:
    created_role = fresh_databases(dbs, ROLE)
    for db, version in dbs.items():
        with connect("postgres", db) as c:
            c.execute("create extension dbms_cloud_ai "
                      + (f"version '{version}' " if version else "") + "cascade")
            c.execute(f"grant dbms_cloud_ai_user to {ROLE}")
            c.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
            c.execute(BARE_POST_HTTPX)
            c.execute(f"grant execute on function public.bench_bare_post_httpx(text, text, text) "
                      f"to {ROLE}")
        with connect(ROLE, db) as c:
            c.execute("select dbms_cloud.create_credential(%s, 'user', %s)", (CREDENTIAL, API_KEY))
            c.execute("select dbms_cloud_ai.create_profile(%s, %s)",
                      (PROFILE, json.dumps({"provider": "openai", "credential_name": CREDENTIAL,
                                            "provider_endpoint": fake.url})))
    return created_role


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--release", default=newest_release(),
                    help="released version to compare with (default: the newest in sql/released)")
    ap.add_argument("--sets", type=int, default=8, help="fresh connection sets (default 8)")
    ap.add_argument("--calls", type=int, default=300, help="measured calls of each per set (default 300)")
    ap.add_argument("--warmup", type=int, default=30, help="uncounted calls of each per set (default 30)")
    args = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("bench: DCA_PGHOST/DCA_PGPORT not set; run `make bench`", file=sys.stderr)
        return 2
    print(f"bench_versions: {durability()}", flush=True)
    release_db, current_db = "dca_v_release", "dca_v_current"
    fake = FakeLLM(lambda wire, body: Answer("8")).start()
    created_role = False
    try:
        created_role = setup(fake, {release_db: args.release, current_db: None})
        with connect("postgres", current_db) as c:
            current = c.execute("select extversion from pg_extension "
                                "where extname = 'dbms_cloud_ai'").fetchone()[0]
        # The request the current version sends, replayed by the baseline.
        with connect(ROLE, current_db) as c:
            fake.reset()
            check(c.execute(GENERATE, (PROMPT, PROFILE)).fetchone()[0] == "8", "generate() failed")
            rec = fake.requests[-1]
        baseline_args = (fake.url + rec.path, rec.body.decode(),
                         json.dumps({k: v for k, v in rec.headers.items()
                                     if k not in TRANSPORT_HEADERS}))
        ratios: dict[str, list[float]] = {"release": [], "current": []}
        p50s: dict[str, list[float]] = {"release": [], "current": [], "baseline": []}
        started = time.perf_counter()
        for s in range(args.sets):
            conns = {"release": connect(ROLE, release_db), "current": connect(ROLE, current_db),
                     "baseline": connect(ROLE, current_db if s % 2 else release_db)}
            conns["baseline"].execute("select dbms_cloud_ai.get_profile()")  # httpx on sys.path
            runs = {"release": (GENERATE, (PROMPT, PROFILE)), "current": (GENERATE, (PROMPT, PROFILE)),
                    "baseline": (BASELINE, baseline_args)}
            lat: dict[str, list[float]] = {k: [] for k in conns}
            names = list(conns)
            for i in range(args.warmup + args.calls):
                for name in names[i % 3:] + names[:i % 3]:  # rotate who goes first
                    q, params = runs[name]
                    t0 = time.perf_counter()
                    got = conns[name].execute(q, params, prepare=True).fetchone()[0]
                    if i >= args.warmup:
                        lat[name].append(time.perf_counter() - t0)
                    check(got == "8", f"{name} returned {got!r}")
            for c in conns.values():
                c.close()
            med = {k: statistics.median(v) * 1e6 for k, v in lat.items()}
            for k in p50s:
                p50s[k].append(med[k])
            for k in ratios:
                ratios[k].append(med[k] / med["baseline"])
            print(f"set {s + 1}: p50 (us) {args.release} {med['release']:5.0f}  {current} "
                  f"{med['current']:5.0f}  baseline {med['baseline']:5.0f}  | ratio "
                  f"{ratios['release'][-1]:.3f} {ratios['current'][-1]:.3f}", flush=True)
        diffs = [c - r for c, r in zip(ratios["current"], ratios["release"])]
        print(f"\ngenerate(..., 'chat'), {args.release} against {current}: {args.sets} sets of "
              f"{args.calls} calls each, {time.perf_counter() - started:.0f}s")
        print(f"ratio generate p50 / bare httpx p50, median over sets: {args.release} "
              f"{statistics.median(ratios['release']):.3f}, {current} "
              f"{statistics.median(ratios['current']):.3f}")
        print(f"difference {current} - {args.release}, median over sets: {statistics.median(diffs):+.3f} "
              f"(sets: {' '.join(f'{d:+.3f}' for d in diffs)})")
        print(f"p50 (us), median over sets: {args.release} {statistics.median(p50s['release']):.0f}, "
              f"{current} {statistics.median(p50s['current']):.0f}, "
              f"baseline {statistics.median(p50s['baseline']):.0f}")
        return 0
    finally:
        fake.stop()
        with connect("postgres", "postgres") as c:
            for db in (release_db, current_db):
                c.execute(f"drop database if exists {db} with (force)")
            if created_role:
                c.execute(f"drop role if exists {ROLE}")


if __name__ == "__main__":
    sys.exit(main())
