"""Under load (issue 15): many sessions waiting on a slow model, and what that does to the rest.

Against a running cluster (DCA_PGHOST / DCA_PGPORT, superuser postgres, trust auth):

    .venv/bin/python -m bench.bench_load [--parts 1,2,3] [--forms function,procedure]
        [--sessions 10,50,100] [--calls 3] [--delay 1.0] [--ai-sessions 50]
        [--oltp-seconds 20] [--oltp-clients 4] [--vacuum-calls 10] [--vacuum-delay 8]
        [--updates 2000]

A real model thinks for seconds, so in production a generate() call is mostly
a backend waiting on a socket.  The other benchmarks measure the extension's
own cost with a model that answers at once; this one measures what many such
waits do.  The model is tools/fake_llm.py's FakeLLM, in this process, a
ThreadingHTTPServer answering every request after --delay seconds, all at the
same time.  The calls are `generate(..., action => 'chat')` as two login roles
(load_user, load_user2, members of dbms_cloud_ai_user), sessions alternating
between them, each with its own credential and openai profile LOAD.

1. Concurrency.  N sessions (opened and warmed up before the clock starts)
   make --calls calls each, all at once.  Ideal wall time: calls x delay; any
   more is the extension (or the server) making the calls take turns.  A
   monitor samples pg_stat_activity and pg_locks every 100 ms: a benchmark
   backend in a Lock wait, or an ungranted lock, would mean generate()
   serializes on a lock; none is expected.  Then N brand-new sessions make
   ONE call each (connect + first call): the cold start under concurrency,
   where each backend loads PL/Python and the package at once on the same
   CPUs (issue 15 measured 30 such sessions at 7.4 s on 0.2.0, ideal 1 s).
2. Effect on OLTP.  pgbench's TPC-B-like script in its own database, alone,
   then while --ai-sessions sessions make back-to-back calls: TPS and average
   latency both ways.  Waiting backends should cost the OLTP load nothing.
3. Vacuum horizon.  While --vacuum-calls calls wait --vacuum-delay seconds,
   another connection updates an unrelated table (load_churn, autovacuum
   off) --updates times, then VACUUM (VERBOSE) reports how many dead tuples
   it removed and how many are "dead but not yet removable".  A SELECT of
   generate() holds a snapshot for its whole wait, so its backend_xmin holds
   back the horizon of the whole database; the procedure
   generate_detached() commits before each model request and should not.
   A second VACUUM after the calls end shows the tuples were removable then.

--forms picks the statement for parts 1 and 3: `function` (SELECT
generate(...)) and `procedure` (CALL generate_detached(...), skipped when the
installed version lacks it).  Sizes are capped to what max_connections
leaves free (less a margin), and what was capped is said.  The header gives
fsync / synchronous_commit / full_page_writes: the figures hold for that
durability only.  It creates databases dca_load and dca_load_oltp and the
two roles (if missing) and drops them at the end.

A benchmark, not a test: it exits 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import fake_llm
import psycopg
from fake_llm import Answer, FakeLLM
from psycopg import sql

from bench.benchlib import Bench, check, connect, durability, summary

DBNAME = "dca_load"
OLTP_DB = "dca_load_oltp"
ROLES = ("load_user", "load_user2")
PROFILE = "LOAD"
PROMPT = "What is 4 + 4 ?"
ANSWER = "8"
MARGIN = 5          # connections left free for the monitor, setup and anyone else
SAMPLE_EVERY = 0.1  # seconds between lock samples
FORMS = {
    "function": "select dbms_cloud_ai.generate(%s, profile_name => %s, action => 'chat')",
    # response => null: a procedure's OUT argument must be given in CALL (an INOUT
    # one with a default need not be, and takes the null as well).
    "procedure": "call dbms_cloud_ai.generate_detached(prompt => %s, profile_name => %s, action => 'chat',"
                 " response => null)",
}

# socketserver's listen backlog is 5: 100 simultaneous connects would see some
# SYNs dropped and retried after 1 s, an artefact of the fake, not of the extension.
fake_llm.ThreadingHTTPServer.request_queue_size = 512


class Model:
    """The fake model's think time, changed between phases (0 for warm-ups)."""

    def __init__(self) -> None:
        self.delay = 0.0

    def __call__(self, wire, body):
        return Answer(ANSWER, delay=self.delay)


class Session:
    """One login session of a benchmark role, making calls in one form."""

    def __init__(self, i: int, form: str) -> None:
        self.conn = connect(ROLES[i % len(ROLES)], DBNAME)
        self.query = FORMS[form]

    def call(self) -> float:
        t0 = time.perf_counter()
        got = self.conn.execute(self.query, (PROMPT, PROFILE)).fetchone()[0]
        dt = time.perf_counter() - t0
        if got != ANSWER:
            raise RuntimeError(f"call returned {got!r}")
        return dt


def in_parallel(items, work, timeout: float = 120):
    """work(item) for every item, each in its own thread, all released at once.
    Returns (wall seconds from the release to the last result, results)."""
    barrier = threading.Barrier(len(items) + 1)

    def task(item):
        barrier.wait(timeout)
        return work(item)

    with ThreadPoolExecutor(max_workers=len(items)) as ex:
        futures = [ex.submit(task, it) for it in items]
        barrier.wait(timeout)
        t0 = time.perf_counter()
        results = [f.result() for f in futures]
        return time.perf_counter() - t0, results


def open_sessions(n: int, form: str, model: Model) -> list[Session]:
    """n sessions, opened in parallel and warmed up (one call with no think time:
    PL/Python and the package loaded, the HTTP connection to the model open)."""
    with ThreadPoolExecutor(max_workers=n) as ex:
        sessions = list(ex.map(lambda i: Session(i, form), range(n)))
    saved, model.delay = model.delay, 0.0
    try:
        in_parallel(sessions, Session.call)
    finally:
        model.delay = saved
    return sessions


def close_sessions(sessions: list[Session], admin: psycopg.Connection) -> None:
    """Close them and wait until their backends are gone, so the next phase
    sees the connection slots free."""
    pids = [s.conn.info.backend_pid for s in sessions]
    for s in sessions:
        s.conn.close()
    for _ in range(100):
        if not admin.execute("select count(*) from pg_stat_activity where pid = any(%s)",
                             (pids,)).fetchone()[0]:
            return
        time.sleep(0.1)


def free_connections(admin: psycopg.Connection) -> tuple[int, str]:
    """Connections a non-superuser may still open, less MARGIN, and how that was worked out."""
    mc, reserved, used = admin.execute(
        "select current_setting('max_connections')::int,"
        " current_setting('superuser_reserved_connections')::int,"
        " (select count(*) from pg_stat_activity where backend_type = 'client backend')::int").fetchone()
    return (mc - reserved - used - MARGIN,
            f"max_connections {mc} - {reserved} reserved - {used} in use - margin {MARGIN}")


def capped(wanted: int, admin: psycopg.Connection, also_needed: int = 0) -> int:
    """``wanted``, or fewer if the free connections do not allow it (said on stdout)."""
    free, why = free_connections(admin)
    free -= also_needed
    if wanted <= free:
        return wanted
    extra = f" - {also_needed} for pgbench" if also_needed else ""
    if free < 1:
        print(f"  skipped {wanted} sessions: no connection free ({why}{extra})")
        return 0
    print(f"  {wanted} sessions capped to {free} ({why}{extra})")
    return free


class LockMonitor:
    """Samples, every SAMPLE_EVERY seconds in its own thread and connection,
    the benchmark roles' backends in DBNAME: how many wait on a heavyweight
    lock, how many locks they wait for (pg_locks, not granted), and which
    other wait events the active ones show."""

    QUERY = """
        with ours as (select pid, state, wait_event_type, wait_event from pg_stat_activity
                      where datname = %(db)s and usename::text = any(%(roles)s))
        select (select count(*) from ours where wait_event_type = 'Lock')::int,
               (select count(*) from pg_locks l join ours using (pid) where not l.granted)::int,
               (select coalesce(array_agg(wait_event_type || ':' || wait_event), '{}') from ours
                 where state = 'active' and wait_event is not null and wait_event_type <> 'Lock')"""

    def __init__(self) -> None:
        self.samples = 0
        self.lock_waits = 0        # backend-samples in a Lock wait
        self.max_lock_waiters = 0  # most backends in a Lock wait in one sample
        self.max_ungranted = 0
        self.other_waits: collections.Counter = collections.Counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> LockMonitor:
        self._conn = connect("postgres", DBNAME)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._conn.close()

    def _run(self) -> None:
        params = {"db": DBNAME, "roles": list(ROLES)}
        while not self._stop.wait(SAMPLE_EVERY):
            waiting, ungranted, others = self._conn.execute(self.QUERY, params).fetchone()
            self.samples += 1
            self.lock_waits += waiting
            self.max_lock_waiters = max(self.max_lock_waiters, waiting)
            self.max_ungranted = max(self.max_ungranted, ungranted)
            self.other_waits.update(others)

    def others(self) -> str:
        return ", ".join(f"{w} {n}" for w, n in self.other_waits.most_common(4)) or "none"


def table(headers: list[str], rows: list[list]) -> None:
    cells = [[f"{c:.3f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    print("  " + "  ".join(h.rjust(w) for h, w in zip(headers, widths)))
    for r in cells:
        print("  " + "  ".join(c.rjust(w) for c, w in zip(r, widths)))


# -- setup -------------------------------------------------------------------

def setup(b: Bench, oltp: bool) -> None:
    """A profile for each role; the OLTP database when part 2 runs."""
    for role in ROLES:
        b.profile(role, PROFILE)
    if oltp:
        with connect("postgres", "postgres") as c:
            c.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(OLTP_DB)))
            c.execute(sql.SQL("create database {}").format(sql.Identifier(OLTP_DB)))


def drop_oltp() -> None:
    with connect("postgres", "postgres") as c:
        c.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(OLTP_DB)))


def header(admin: psycopg.Connection) -> None:
    row = admin.execute(
        "select current_setting('server_version'), current_setting('fsync'),"
        " current_setting('synchronous_commit'), current_setting('full_page_writes'),"
        " current_setting('max_connections'), current_setting('shared_buffers'),"
        " (select extversion from pg_extension where extname = 'dbms_cloud_ai')").fetchone()
    version, fsync, sync_commit, fpw, max_conn, shared_buffers, ext = row
    print(f"dbms_cloud_ai {ext} under load; PostgreSQL {version}; psycopg {psycopg.__version__}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at start")
    print(f"durability: fsync = {fsync}, synchronous_commit = {sync_commit}, "
          f"full_page_writes = {fpw}; max_connections = {max_conn}, shared_buffers = {shared_buffers}")
    if fsync != "on" or sync_commit != "on":
        print("NOTE: not a durable configuration (a throwaway cluster?): commits cost less here "
              "than on a production server, which matters for part 2 (OLTP) most")


def usable_forms(admin: psycopg.Connection, forms: list[str]) -> list[str]:
    has_procedure = admin.execute(
        "select exists (select from pg_proc where proname = 'generate_detached'"
        " and pronamespace = 'dbms_cloud_ai'::regnamespace and prokind = 'p')").fetchone()[0]
    if "procedure" in forms and not has_procedure:
        print("form `procedure` skipped: the installed version has no procedure "
              "dbms_cloud_ai.generate_detached")
        forms = [f for f in forms if f != "procedure"]
    return forms


# -- part 1: concurrency -----------------------------------------------------

def warm_run(n: int, form: str, calls: int, model: Model, admin) -> list:
    sessions = open_sessions(n, form, model)
    try:
        with LockMonitor() as mon:
            wall, lats = in_parallel(sessions, lambda s: [s.call() for _ in range(calls)])
    finally:
        close_sessions(sessions, admin)
    st = summary([x for per in lats for x in per])
    if mon.other_waits:
        print(f"  {form} x {n}: other wait events (backend-samples): {mon.others()}")
    return [form, n, calls, wall, calls * model.delay, st["p50"], st["p95"], st["max"],
            f"{mon.lock_waits}/{mon.samples}", mon.max_lock_waiters, mon.max_ungranted]


def cold_call(i: int, form: str) -> tuple[float, float]:
    """A brand-new session's connect and first call: (connect s, total s)."""
    t0 = time.perf_counter()
    with connect(ROLES[i % len(ROLES)], DBNAME) as c:
        t1 = time.perf_counter()
        got = c.execute(FORMS[form], (PROMPT, PROFILE)).fetchone()[0]
        t2 = time.perf_counter()
    if got != ANSWER:
        raise RuntimeError(f"call returned {got!r}")
    return t1 - t0, t2 - t0


def cold_run(n: int, form: str, model: Model) -> list:
    with LockMonitor() as mon:
        wall, res = in_parallel(list(range(n)), lambda i: cold_call(i, form))
    total = summary([r[1] for r in res])
    conn = summary([r[0] for r in res])
    return [form, n, wall, model.delay, total["p50"], total["p95"], total["max"], conn["p50"],
            f"{mon.lock_waits}/{mon.samples}", mon.max_ungranted]


def part_concurrency(args, forms, model: Model, admin) -> None:
    model.delay = args.delay
    print(f"\n1. Concurrency: model answers after {args.delay:g} s; sessions alternate between "
          f"{len(ROLES)} roles; lock samples every {SAMPLE_EVERY * 1000:.0f} ms")
    warm, cold = [], []
    for form in forms:
        for wanted in args.sessions:
            n = capped(wanted, admin)
            if n:
                warm.append(warm_run(n, form, args.calls, model, admin))
                cold.append(cold_run(n, form, model))
    if not warm:
        return
    print(f"\n  warm sessions (opened and warmed up before the clock), {args.calls} calls each; "
          "seconds; lock waits = backend-samples in a Lock wait / samples")
    table(["form", "sessions", "calls", "wall", "ideal", "p50", "p95", "max", "lock waits",
           "max waiting", "ungranted"], warm)
    print("\n  cold sessions: each connects and makes ONE call, all at once; seconds")
    table(["form", "sessions", "wall", "ideal", "p50", "p95", "max", "connect p50",
           "lock waits", "ungranted"], cold)


# -- part 2: OLTP --------------------------------------------------------------

def pgbench(args, *extra: str) -> str:
    host, port = os.environ["DCA_PGHOST"], os.environ["DCA_PGPORT"]
    cmd = [args.pgbench, "-h", host, "-p", port, "-U", "postgres", *extra, OLTP_DB]
    done = subprocess.run(cmd, capture_output=True, text=True)
    check(done.returncode == 0, f"{shlex.join(cmd)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def oltp_run(args) -> tuple[float, float]:
    """(TPS, average latency ms) of one pgbench run."""
    out = pgbench(args, "-n", "-c", str(args.oltp_clients), "-j", str(args.oltp_jobs),
                  "-T", str(args.oltp_seconds), *shlex.split(args.pgbench_args))
    tps = re.search(r"^tps = ([\d.]+)", out, re.M)
    lat = re.search(r"^latency average = ([\d.]+) ms", out, re.M)
    check(bool(tps and lat), f"could not read pgbench's output:\n{out}")
    return float(tps[1]), float(lat[1])


def back_to_back(s: Session, stop: threading.Event) -> list[float]:
    lats = []
    while not stop.is_set():
        lats.append(s.call())
    return lats


def part_oltp(args, model: Model, admin) -> None:
    print(f"\n2. Effect on OLTP: pgbench TPC-B-like, scale {args.oltp_scale}, -c {args.oltp_clients} "
          f"-j {args.oltp_jobs} -T {args.oltp_seconds} {args.pgbench_args}".rstrip())
    t0 = time.perf_counter()
    pgbench(args, "-i", "-q", "-s", str(args.oltp_scale))
    print(f"  initialised {OLTP_DB} in {time.perf_counter() - t0:.1f} s")
    alone = oltp_run(args)
    m = capped(args.ai_sessions, admin, also_needed=args.oltp_clients)
    rows = [["alone", *alone, 0, 0, "-", "-"]]
    if m:
        model.delay = args.delay
        sessions = open_sessions(m, "function", model)
        stop = threading.Event()
        try:
            with ThreadPoolExecutor(max_workers=m) as ex, LockMonitor() as mon:
                futures = [ex.submit(back_to_back, s, stop) for s in sessions]
                try:
                    time.sleep(args.delay)  # every session in a call before pgbench starts
                    loaded = oltp_run(args)
                finally:
                    stop.set()  # else leaving the executor would wait for ever
                lats = [x for f in futures for x in f.result()]
        finally:
            close_sessions(sessions, admin)
        rows.append([f"with {m} AI sessions", *loaded, m, len(lats), summary(lats)["p50"],
                     f"{mon.lock_waits}/{mon.samples}"])
    print(f"\n  AI sessions make back-to-back SELECT generate() chat calls, model answering after {args.delay:g} s")
    table(["pgbench", "tps", "latency ms", "AI sessions", "AI calls", "AI p50 s", "AI lock waits"], rows)
    if len(rows) == 2:
        print(f"  TPS loaded / alone: {rows[1][1] / rows[0][1]:.3f}")


# -- part 3: vacuum horizon -----------------------------------------------------

VACUUM_LINE = re.compile(r"tuples: (\d+) removed, (\d+) remain, (\d+) are dead but not yet removable")
CUTOFF_LINE = re.compile(r"removable cutoff: \d+, which was (\d+) XIDs old")


def make_churn_table(admin) -> None:
    admin.execute("drop table if exists load_churn")
    admin.execute("create table load_churn (id int primary key, v int) with (autovacuum_enabled = off)")
    admin.execute("insert into load_churn select g, 0 from generate_series(1, 100) g")
    admin.execute("vacuum load_churn")


def vacuum_verbose(conn: psycopg.Connection) -> dict:
    """VACUUM (VERBOSE) load_churn; its tuple counts, read from the INFO notices."""
    notices: list[str] = []

    def keep(diag) -> None:
        notices.append(diag.message_primary or "")

    conn.add_notice_handler(keep)
    try:
        conn.execute("vacuum (verbose) load_churn")
    finally:
        conn.remove_notice_handler(keep)
    text = "\n".join(notices)
    m, cut = VACUUM_LINE.search(text), CUTOFF_LINE.search(text)
    if not m:
        print("  could not read VACUUM VERBOSE's tuples line; notices were:\n" + text)
        return {"removed": "?", "not removable": "?", "cutoff age": "?"}
    return {"removed": int(m[1]), "not removable": int(m[3]), "cutoff age": int(cut[1]) if cut else "?"}


def horizons(admin, pids: list[int]) -> tuple[int, int, int | None]:
    """(waiters with a backend_xmin, with an xid, age of the oldest backend_xmin in XIDs)."""
    return admin.execute(
        "select count(backend_xmin)::int, count(backend_xid)::int, max(age(backend_xmin))"
        " from pg_stat_activity where pid = any(%s)", (pids,)).fetchone()


def wait_in_flight(fake: FakeLLM, target: int, limit: float) -> bool:
    deadline = time.monotonic() + limit
    while len(fake.requests) < target:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def churn(conn, updates: int) -> float:
    t0 = time.perf_counter()
    for i in range(updates):
        conn.execute("update load_churn set v = v + 1 where id = %s", (i % 100 + 1,), prepare=True)
    return time.perf_counter() - t0


def horizon_run(form: str, args, fake: FakeLLM, model: Model, admin, churner) -> list:
    n = capped(args.vacuum_calls, admin)
    if not n:
        return []
    sessions = open_sessions(n, form, model)
    pids = [s.conn.info.backend_pid for s in sessions]
    model.delay = args.vacuum_delay
    try:
        with ThreadPoolExecutor(max_workers=n) as ex:
            sent = len(fake.requests)
            futures = [ex.submit(Session.call, s) for s in sessions]
            if not wait_in_flight(fake, sent + n, args.vacuum_delay):
                print(f"  {form}: not all {n} calls reached the model within {args.vacuum_delay:g} s")
            upd_s = churn(churner, args.updates)
            with_xmin, with_xid, xmin_age = horizons(admin, pids)  # after the churn: its age shows
            during = vacuum_verbose(churner)
            still = sum(not f.done() for f in futures)
            for f in futures:
                f.result()
        after = vacuum_verbose(churner)
    finally:
        close_sessions(sessions, admin)
    if still < n:
        print(f"  {form}: only {still} of {n} calls were still waiting when VACUUM ended; "
              "raise --vacuum-delay")
    return [form, n, f"{with_xmin}/{n}", f"{with_xid}/{n}", "-" if xmin_age is None else xmin_age,
            args.updates, upd_s, during["removed"], during["not removable"], during["cutoff age"],
            still, after["removed"], after["not removable"]]


def part_horizon(args, forms, fake: FakeLLM, model: Model, admin) -> None:
    print(f"\n3. Vacuum horizon: {args.vacuum_calls} calls wait {args.vacuum_delay:g} s on the model "
          f"while another connection makes {args.updates} single-row UPDATEs of load_churn (100 rows)")
    make_churn_table(admin)
    rows = []
    with connect("postgres", DBNAME) as churner:
        # The churn's own durability is beside the point: keep it quick so it
        # and the VACUUM fit inside the model's think time.
        churner.execute("set synchronous_commit = off")
        for form in forms:
            row = horizon_run(form, args, fake, model, admin, churner)
            if row:
                rows.append(row)
    admin.execute("drop table load_churn")
    if rows:
        print("\n  VACUUM (VERBOSE) load_churn while the calls wait, and again after they end")
        table(["form", "calls", "with xmin", "with xid", "xmin age", "updates", "upd s", "removed",
               "not removable", "cutoff age", "still waiting", "after: removed", "not removable"], rows)
        print("  (UPDATEs prune their page themselves when the horizon allows, so a free horizon "
              "shows as few tuples to remove, and none not removable)")


# -- main ------------------------------------------------------------------------

def int_list(s: str) -> list[int]:
    return [int(x) for x in s.split(",") if x]


def str_list(s: str) -> list[str]:
    return [x for x in s.split(",") if x]


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", type=int_list, default=[1, 2, 3], help="which parts (default 1,2,3)")
    ap.add_argument("--forms", type=str_list, default=["function", "procedure"],
                    help="statement forms for parts 1 and 3 (default function,procedure)")
    ap.add_argument("--sessions", type=int_list, default=[10, 50, 100], help="part 1 (default 10,50,100)")
    ap.add_argument("--calls", type=int, default=3, help="part 1: calls per warm session (default 3)")
    ap.add_argument("--delay", type=float, default=1.0, help="model think time, parts 1-2 (default 1.0 s)")
    ap.add_argument("--ai-sessions", type=int, default=50, help="part 2: calling sessions (default 50)")
    ap.add_argument("--oltp-seconds", type=int, default=20, help="part 2: pgbench -T (default 20)")
    ap.add_argument("--oltp-clients", type=int, default=4, help="part 2: pgbench -c (default 4)")
    ap.add_argument("--oltp-jobs", type=int, default=2, help="part 2: pgbench -j (default 2)")
    ap.add_argument("--oltp-scale", type=int, default=10, help="part 2: pgbench -i -s (default 10)")
    ap.add_argument("--pgbench", help="pgbench binary (default: the server major's, /usr/lib/postgresql/N/bin)")
    ap.add_argument("--pgbench-args", default="", help="part 2: more pgbench flags, e.g. '-M prepared'")
    ap.add_argument("--vacuum-calls", type=int, default=10, help="part 3: waiting calls (default 10)")
    ap.add_argument("--vacuum-delay", type=float, default=8.0, help="part 3: model think time (default 8 s)")
    ap.add_argument("--updates", type=int, default=2000, help="part 3: UPDATEs of load_churn (default 2000)")
    ap.add_argument("--keep", action="store_true", help="keep the databases and roles afterwards")
    args = ap.parse_args()
    unknown = set(args.forms) - set(FORMS)
    if unknown:
        ap.error(f"unknown form(s) {', '.join(sorted(unknown))}; known: {', '.join(FORMS)}")
    return args


def main() -> int:
    args = arguments()
    if not os.environ.get("DCA_PGHOST"):
        print("bench: DCA_PGHOST/DCA_PGPORT not set", file=sys.stderr)
        return 2
    print(f"bench_load: {durability()}", flush=True)
    model = Model()
    with Bench(DBNAME, users=ROLES, responder=model, keep=args.keep) as b:
        fake = b.fake
        setup(b, 2 in args.parts)
        try:
            run(args, model, fake)
        finally:
            if not args.keep:
                drop_oltp()
        return 0


def run(args, model: Model, fake: FakeLLM) -> None:
    """The parts asked for, against the world main() set up."""
    with connect("postgres", DBNAME) as admin:
        header(admin)
        if args.pgbench is None:
            major = admin.execute("select current_setting('server_version_num')::int / 10000").fetchone()[0]
            args.pgbench = f"/usr/lib/postgresql/{major}/bin/pgbench"
        forms = usable_forms(admin, args.forms)
        started = time.perf_counter()
        if 1 in args.parts and forms:
            part_concurrency(args, forms, model, admin)
        if 2 in args.parts:
            part_oltp(args, model, admin)
        if 3 in args.parts and forms:
            part_horizon(args, forms, fake, model, admin)
        print(f"\n{len(fake.requests)} requests reached the fake model; "
              f"{time.perf_counter() - started:.0f} s in all")


if __name__ == "__main__":
    sys.exit(main())
