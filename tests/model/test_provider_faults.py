"""Provider faults (docs/security.md, reference 8.E): bounded time, exact retries, jitter,
no locks while waiting, no half-written history, one client request id per call.

The matrix (FAULTS) injects each fault into a turn of a named conversation with
long-term memory on, made inside the caller's own transaction under a
savepoint, with a small deadline (dbms_cloud_ai.http_timeout).  For each one:

* the documented SQLSTATE (docs/reference/errors.md);
* wall-clock time <= deadline + 1 s (<= 1 s where nothing may be waited for);
* the exact number of requests at the fake server, and the attempts accounted;
  the gaps between attempts (Retry-After honoured within +-20 %, backoff
  within its full-jitter range);
* every table of the extension's schemas has the same row count afterwards,
  and no prompt of the failed turn exists;
* the failure itself is accounted: user_cloud_ai_calls shows one error row at
  once (held in the session's memory: the failed statement's writes are rolled
  back), and the session's next successful call stores it in _model_call;
* the caller's transaction goes on after ROLLBACK TO SAVEPOINT and commits
  what it wrote before and after.

Then: 20 sessions hit a 503 burst (jitter), a call waits on a hanging server
while other sessions append, drop, purge and erase (locks, xid), a waiting call
is cancelled or its client disconnects (it ends at once), and every attempt of a call carries the
call's id in its client request id header.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field

import memory_helpers as mh
import psycopg
import pytest
from dbms_cloud_ai.model.http import BACKOFF_BASE
from fake_llm import Answer, Drip, Hang, Raw, SilentPort, closed_port, last_user_text
from helpers import case, generate, make_profile, raises, timed, together

DEADLINE = 2.0           # dbms_cloud_ai.http_timeout of the matrix, seconds
ATTEMPTS = 3             # dbms_cloud_ai.http_max_attempts (the default)
SLACK = 0.3              # scheduling slack on a loaded 2-CPU machine
FAILING = "the question whose call fails"
SCHEMAS = ("dbms_cloud_ai", "dbms_cloud")
REQUEST_ID = "x-client-request-id"


def _json(n: int) -> bytes:
    return b'{"choices": [{"message": {"content": "' + b"a" * n + b'"}}]}'


@dataclass
class Fault:
    name: str
    sqlstate: str
    requests: int                     # at the fake server
    attempts: int                     # accounted (connection attempts included)
    steps: tuple = ()                 # scripted replies of the fake server
    endpoint: str | None = None       # "refused", "dns", "silent": not the fake server
    http_status: int | None = None
    deadline: float = DEADLINE
    max_elapsed: float | None = None  # tighter than deadline + 1 s
    min_elapsed: float = 0.0
    gaps: list = field(default_factory=list)  # (lo, hi) seconds between requests i and i+1

    def __str__(self):
        return self.name


def server_error(status: int) -> Fault:
    # Full jitter: retry n waits uniformly in [0, BACKOFF_BASE * 2**(n-1)].
    return Fault(f"HTTP {status}", "LL000", ATTEMPTS, ATTEMPTS,
                 steps=(Raw(status, {"error": {"message": "upstream trouble"}}),) * ATTEMPTS,
                 http_status=status,
                 gaps=[(0, BACKOFF_BASE * 2 ** i + SLACK) for i in range(ATTEMPTS - 1)])


def rejected(status: int, sqlstate: str) -> Fault:
    return Fault(f"HTTP {status}", sqlstate, 1, 1, http_status=status, max_elapsed=1.0,
                 steps=(Raw(status, {"error": {"message": "no"}}), Answer("never")))


def malformed(name: str, body) -> Fault:
    return Fault(name, "LL003", 1, 1, steps=(Raw(200, body), Answer("never")), http_status=200,
                 max_elapsed=1.5)


TIMEOUT = dict(sqlstate="LL001", attempts=1, min_elapsed=DEADLINE - SLACK)

FAULTS = [
    Fault("connection refused", "LL000", 0, ATTEMPTS, endpoint="refused",
          max_elapsed=BACKOFF_BASE * 3 + 1),
    Fault("DNS failure", "LL000", 0, ATTEMPTS, endpoint="dns", max_elapsed=BACKOFF_BASE * 3 + 1),
    Fault("TCP accepted, request never read", requests=0, endpoint="silent", **TIMEOUT),
    Fault("accept then silence", requests=1, steps=(Hang(DEADLINE + 3),), **TIMEOUT),
    Fault("slow headers", requests=1, steps=(Drip(headers=True, interval=0.3),), **TIMEOUT),
    Fault("1-byte drip body", requests=1, steps=(Drip(text="x" * 40, interval=0.8),), **TIMEOUT),
    server_error(500),
    server_error(502),
    server_error(503),
    server_error(504),
    Fault("429 Retry-After: 1", "LL002", ATTEMPTS, ATTEMPTS, http_status=429, deadline=3.5,
          steps=(Raw(429, {"error": "slow down"}, headers={"retry-after": "1"}),) * ATTEMPTS,
          min_elapsed=2 * 0.8, gaps=[(0.8, 1.2)] * (ATTEMPTS - 1)),
    Fault("429 Retry-After: 3600", "LL002", 1, 1, http_status=429, max_elapsed=1.0,
          steps=(Raw(429, {"error": "slow down"}, headers={"retry-after": "3600"}),
                 Answer("never"))),
    rejected(400, "LL004"),
    rejected(401, "28000"),
    rejected(403, "28000"),
    rejected(422, "LL004"),
    malformed("malformed JSON", b'{"choices": [{"message": {"content": "cut'),
    malformed("empty choices", {"id": "x", "choices": []}),
    malformed("wrong schema", {"output": {"text": "an answer in another API's shape"}}),
    malformed("10 MB body", _json(10 * 1024 * 1024)),
    malformed("non-UTF-8 bytes", b'{"choices": [{"message": {"content": "caf\xe9 \xff"}}]}'),
    malformed("nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000),
]


# --- the harness ----------------------------------------------------------------------------

def row_counts(db) -> dict[str, int]:
    """Rows of every table of the extension's schemas (the superuser sees past RLS)."""
    tables = [r[0] for r in db.admin.execute(
        "select c.oid::regclass::text from pg_class c join pg_namespace n on n.oid = c.relnamespace"
        " where n.nspname = any(%s) and c.relkind in ('r', 'p') order by 1", (list(SCHEMAS),))]
    return {t: db.admin.execute(f"select count(*) from {t}").fetchone()[0] for t in tables}


def changed(before: dict, after: dict) -> dict:
    return {t: after[t] - before.get(t, 0) for t in after if after[t] != before.get(t, 0)}


def params(cid: str) -> str:
    return json.dumps({"conversation_id": cid})


@pytest.fixture
def turn(db, llm):
    """alice with memory on, a good profile OK, a titled conversation with one stored turn."""
    mh.enable(db)
    alice = db.connect("alice")
    mh.memory_profile(alice, llm, name="OK", credential="C_OK")
    cid = mh.conversation(alice, "faults")
    assert mh.say(alice, "a first question", cid, profile="OK") == "fake answer"
    alice.execute("create table alice.t (v text)")
    return alice, cid


def faulty_profile(db, conn, llm, fault: Fault, name: str, stack) -> None:
    endpoint = {}
    if fault.endpoint == "refused":
        endpoint = {"provider_endpoint": f"http://127.0.0.1:{closed_port()}"}
    elif fault.endpoint == "dns":
        db.admin.execute("select dbms_cloud_ai.append_host_ace('x.invalid', 'PUBLIC')")
        endpoint = {"provider_endpoint": "https://x.invalid:8080"}
    elif fault.endpoint == "silent":
        endpoint = {"provider_endpoint": f"http://127.0.0.1:{stack.enter_context(SilentPort())}"}
    mh.memory_profile(conn, llm, name=name, credential="C_" + name, **endpoint)


def call_under_savepoint(conn, prompt, cid, profile="P"):
    """generate() inside the caller's transaction, trapped by a savepoint; returns
    (error, elapsed).  The transaction writes before and after and commits."""
    err = None
    with conn.transaction():
        conn.execute("insert into alice.t values ('before')")
        with timed() as t:
            try:
                with conn.transaction():
                    generate(conn, prompt, profile, params=params(cid))
            except psycopg.Error as e:
                err = e
        conn.execute("insert into alice.t values ('after')")
    assert [r[0] for r in conn.execute("select v from alice.t")] == ["before", "after"]
    conn.execute("delete from alice.t")
    return err, t["elapsed"]


def check_fault(db, llm, alice, cid, fault: Fault, name: str) -> None:
    """One fault injected into a turn of conversation ``cid`` (see the module doc)."""
    with ExitStack() as stack:
        faulty_profile(db, alice, llm, fault, name, stack)
        alice.execute("select set_config('dbms_cloud_ai.http_timeout', %s, false)",
                      (str(fault.deadline),))
        seen = {r[0] for r in alice.execute("select call_id from dbms_cloud_ai.user_cloud_ai_calls")}
        llm.reset()
        llm.script(*fault.steps)
        before = row_counts(db)
        err, elapsed = call_under_savepoint(alice, FAILING, cid, name)

    # the documented SQLSTATE, in bounded time
    assert err is not None, "the call succeeded"
    assert err.sqlstate == fault.sqlstate, f"{err.sqlstate}: {err}"
    assert fault.min_elapsed <= elapsed <= fault.deadline + 1.0, elapsed
    if fault.max_elapsed is not None:
        assert elapsed <= fault.max_elapsed, elapsed
    # exact retries, and their spacing
    reqs = list(llm.requests)
    assert len(reqs) == fault.requests, [r.path for r in reqs]
    for (lo, hi), a, b in zip(fault.gaps, reqs, reqs[1:]):
        assert lo <= b.at - a.at <= hi, (lo, b.at - a.at, hi)

    # nothing written: not the prompt, not a job, not a summary, not a call row
    assert changed(before, row_counts(db)) == {}
    assert db.admin.execute("select count(*) from dbms_cloud_ai._conversation_prompt "
                            "where prompt = %s", (FAILING,)).fetchone()[0] == 0
    # ... but the failure is accounted at once, in this session (held in memory)
    rows = [r for r in alice.execute(
        "select call_id, status, error_sqlstate, attempts, http_status, conversation_id,"
        "       conversation_prompt_id, profile_name from dbms_cloud_ai.user_cloud_ai_calls")
        if r[0] not in seen]
    assert len(rows) == 1, rows
    call_id, *accounted = rows[0]
    assert accounted == ["error", fault.sqlstate, fault.attempts, fault.http_status, cid, None,
                         name]
    # every attempt carried the call's id as its client request id
    assert all(r.headers.get(REQUEST_ID) == call_id for r in reqs)

    # the session goes on: the next call answers, adds one whole turn and stores the failure
    llm.reset()
    before = row_counts(db)
    assert mh.say(alice, "the next question", cid, profile="OK") == "fake answer"
    assert changed(before, row_counts(db)) == {"dbms_cloud_ai._conversation_prompt": 1,
                                               "dbms_cloud_ai._model_call": 2}
    stored = db.admin.execute(
        "select status, error_sqlstate, attempts, http_status from dbms_cloud_ai._model_call "
        "where call_id = %s::uuid", (call_id,)).fetchone()
    assert stored == ("error", fault.sqlstate, fault.attempts, fault.http_status)


# One database per group (a fresh clone and backend cost about a second each).
GROUPS = {
    "connect": ["connection refused", "DNS failure", "TCP accepted, request never read"],
    "slow": ["accept then silence", "slow headers", "1-byte drip body"],
    "retried status": ["HTTP 500", "HTTP 502", "HTTP 503", "HTTP 504", "429 Retry-After: 1",
                       "429 Retry-After: 3600"],
    "rejected or malformed": ["HTTP 400", "HTTP 401", "HTTP 403", "HTTP 422", "malformed JSON",
                              "empty choices", "wrong schema", "10 MB body", "non-UTF-8 bytes",
                              "nested 100,000 deep"],
}


def test_groups_cover_every_fault():
    names = [n for g in GROUPS.values() for n in g]
    assert sorted(names) == sorted(f.name for f in FAULTS) and len(names) >= 16


@pytest.mark.parametrize("group", GROUPS)
def test_faults(db, llm, turn, group):
    alice, cid = turn
    by_name = {f.name: f for f in FAULTS}
    for i, name in enumerate(GROUPS[group]):
        with case(name):
            check_fault(db, llm, alice, cid, by_name[name], f"P{i}")


def test_recovered_fault_writes_exactly_one_turn(db, llm, turn):
    """The control: a 503 then an answer is one whole turn, one call row with 2 attempts."""
    alice, cid = turn
    mh.memory_profile(alice, llm, name="P", credential="C_P")
    llm.reset()
    llm.script(Raw(503), Answer("recovered"))
    before = row_counts(db)
    err, elapsed = call_under_savepoint(alice, "a question that recovers", cid)
    assert err is None and elapsed <= DEADLINE + 1
    assert len(llm.requests) == 2
    assert changed(before, row_counts(db)) == {"dbms_cloud_ai._conversation_prompt": 1,
                                               "dbms_cloud_ai._model_call": 1}
    assert alice.execute(
        "select prompt_response from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where prompt = 'a question that recovers'").fetchone() == ("recovered",)
    assert alice.execute("select attempts, status from dbms_cloud_ai.user_cloud_ai_calls "
                         "where call_id = %s", (llm.requests[0].headers[REQUEST_ID],)
                         ).fetchone() == (2, "ok")


def test_errors_trapped_in_plpgsql_leave_the_transaction_usable(db, llm, turn):
    """An exception block traps each class of provider error; the block's own
    writes and the transaction's go on."""
    alice, cid = turn
    mh.memory_profile(alice, llm, name="P", credential="C_P")
    alice.execute("set dbms_cloud_ai.http_max_attempts = 1")
    alice.execute("select set_config('dca.test_params', %s, false)", (params(cid),))
    trap = """
        do $$ begin
            insert into alice.t values ('before');
            begin
                perform dbms_cloud_ai.generate('trapped', 'P', 'chat',
                                               params => current_setting('dca.test_params'));
            exception when others then
                insert into alice.t values ('trapped ' || sqlstate);
            end;
            insert into alice.t values ('after');
        end $$"""
    cases = [(Raw(500), "LL000"), (Raw(429, headers={"retry-after": "3600"}), "LL002"),
             (Raw(401), "28000"), (Raw(422), "LL004"), (Raw(200, b"{"), "LL003")]
    before = row_counts(db)
    for step, sqlstate in cases:
        with case(sqlstate):
            llm.reset()
            llm.script(step, Answer("never"))
            alice.execute(trap)
            assert [r[0] for r in alice.execute("select v from alice.t")] == \
                ["before", f"trapped {sqlstate}", "after"]
            alice.execute("delete from alice.t")
            assert len(llm.requests) == 1
    assert changed(before, row_counts(db)) == {}


# --- E3: jitter -----------------------------------------------------------------------------

def burst(db, llm, sessions: int, rounds: list) -> list[list[float]]:
    """``sessions`` connections make one call each at once, once per round; every
    call's first attempt gets a 503 (with the round's Retry-After if not None),
    its second an answer.  Returns, per round, the delays between each call's
    two attempts, measured at the fake server."""
    owner = db.connect("alice")
    make_profile(owner, llm)
    conns = [db.connect("alice") for _ in range(sessions)]
    seen: set[str] = set()
    lock = threading.Lock()
    headers: dict = {}

    def respond(wire, body):
        prompt = last_user_text(wire, body)
        with lock:
            first = prompt not in seen
            seen.add(prompt)
        return Raw(503, {"error": "overloaded"}, headers=headers) if first \
            else Answer("ok " + prompt)

    def run_all(fn):
        errors = together(fn, conns)
        assert not errors, errors[:3]

    # Load the package in every backend first, so imports do not blur the delays.
    run_all(lambda s, conn: generate(conn, "warm up"))
    out = []
    for r, retry_after in enumerate(rounds):
        llm.reset()
        llm.responder = respond
        headers.clear()
        if retry_after is not None:
            headers["retry-after"] = retry_after
        delays: list[float] = []

        def call(s, conn, r=r):
            prompt = f"round {r} session {s}"
            assert generate(conn, prompt) == "ok " + prompt
        run_all(call)
        by_call: dict[str, list] = {}
        for req in llm.requests:
            by_call.setdefault(req.headers[REQUEST_ID], []).append(req)
        assert len(by_call) == sessions  # one id per call, the same on both attempts
        for reqs in by_call.values():
            assert len(reqs) == 2 and reqs[0].json == reqs[1].json
            delays.append(reqs[1].at - reqs[0].at)
        out.append(delays)
    return out


def test_jitter_spreads_a_503_burst(db, llm):
    """20 sessions: each retry waits somewhere in [0, base]; they do not retry in step.

    Full jitter's standard deviation is base/sqrt(12) = 29 % of the base delay; a
    20-sample estimate is under 25 % one time in eight, so this fast check asks
    for 15 % (P(false failure) ~ 1e-4); the long test pools 200 samples for 25 %.
    The control round: a Retry-After of one base delay (honoured as given, no
    jitter) puts the 20 retries in step, far under that threshold (measured:
    about 1 %), so the measurement does tell jitter from none."""
    delays, control = burst(db, llm, 20, [None, str(BACKOFF_BASE)])
    assert all(0 <= d <= BACKOFF_BASE + SLACK for d in delays), delays
    assert statistics.pstdev(delays) >= 0.15 * BACKOFF_BASE, delays
    assert all(BACKOFF_BASE - 0.05 <= d <= BACKOFF_BASE + SLACK for d in control), control
    assert statistics.pstdev(control) < 0.1 * BACKOFF_BASE, control


@pytest.mark.long
def test_jitter_spread_over_ten_bursts(db, llm):
    delays = [d for r in burst(db, llm, 20, [None] * 10) for d in r]
    assert all(0 <= d <= BACKOFF_BASE + SLACK for d in delays)
    assert statistics.pstdev(delays) >= 0.25 * BACKOFF_BASE, statistics.pstdev(delays)


# --- E6: no locks and no transaction id while waiting ---------------------------------------

def in_flight(llm, prompt: str, timeout: float = 10.0):
    """Wait until the fake server has received the request carrying ``prompt``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for r in list(llm.requests):
            if prompt in r.body.decode(errors="replace"):
                return r
        time.sleep(0.02)
    raise AssertionError(f"no request for {prompt!r}")


def background(fn):
    out: dict = {}

    def run():
        with timed() as t:
            try:
                out["value"] = fn()
            except BaseException as e:
                out["error"] = e
        out["elapsed"] = t["elapsed"]
    th = threading.Thread(target=run)
    th.start()
    return th, out


def locks_of(db, pid: int) -> list[tuple]:
    return db.admin.execute(
        "select locktype, mode, coalesce(relation::regclass::text, ''), granted"
        "  from pg_locks where pid = %s and locktype <> 'virtualxid'", (pid,)).fetchall()


def test_waiting_call_holds_no_locks_and_no_xid(db, llm):
    """While a call waits on a hanging server, other sessions append to its
    conversation, drop it, purge expired conversations and erase the user's
    memories, each in < 1 s; the waiting backend has no transaction id and no
    lock beyond ACCESS SHARE on the tables it read."""
    mh.enable(db)
    alice = db.connect("alice")
    mh.memory_profile(alice, llm)
    remember = mh.remember_phrases()

    def respond(wire, body):
        if "the hanging question" in last_user_text(wire, body):
            return Hang(15)
        return remember(wire, body)
    llm.responder = respond
    source = mh.conversation(alice, "source")
    mh.say(alice, "please remember: I take my tea without sugar", source)
    mh.promote(db)
    assert mh.memories(alice)
    cid = mh.conversation(alice, "shared")
    mh.say(alice, "an earlier turn", cid)
    expired = mh.conversation(alice, "old")
    db.admin.execute("update dbms_cloud_ai._conversation set expires_at = now() - interval '1 day'"
                     " where conversation_id = %s::uuid", (expired,))

    caller = db.connect("alice")
    wait = 4.0
    caller.execute(f"set dbms_cloud_ai.http_timeout = {wait}")
    pid = caller.info.backend_pid
    th, out = background(lambda: generate(caller, "the hanging question", params=params(cid)))
    in_flight(llm, "the hanging question")

    def no_locks_no_xid():
        xid, state = db.admin.execute("select backend_xid, state from pg_stat_activity "
                                      "where pid = %s", (pid,)).fetchone()
        assert state == "active" and xid is None
        locks = locks_of(db, pid)
        assert all(t == "relation" and m == "AccessShareLock" for t, m, _, _ in locks), locks
        return {rel for _, _, rel, _ in locks}

    read = no_locks_no_xid()
    other, admin = db.connect("alice"), db.connect("ai_admin")
    steps = [
        ("append", lambda: mh.say(other, "meanwhile", cid)),
        ("drop", lambda: other.execute("select dbms_cloud_ai.drop_conversation(%s)", (cid,))),
        ("purge", lambda: admin.execute("call dbms_cloud_ai.purge_expired_conversations()")
            .fetchone()[0]),
        ("erase", lambda: admin.execute("select dbms_cloud_ai.erase_memories('alice')")
            .fetchone()[0]),
    ]
    for name, step in steps:
        with case(name):
            with timed() as t:
                got = step()
            assert t["elapsed"] < 1.0, t["elapsed"]
            if name in ("purge", "erase"):
                assert got >= 1  # they did real work on alice's rows
    assert th.is_alive(), "the call did not wait"
    read |= no_locks_no_xid()
    th.join(wait + 5)
    assert out["error"].sqlstate == "LL001" and out["elapsed"] <= wait + 1
    assert not mh.memories(alice)
    assert db.admin.execute("select count(*) from dbms_cloud_ai._conversation where "
                            "conversation_id = any(%s::uuid[])", ([cid, expired],)).fetchone()[0] == 0
    assert db.admin.execute("select count(*) from dbms_cloud_ai._conversation_prompt where "
                            "prompt = 'the hanging question'").fetchone()[0] == 0
    # What the wait holds: ACCESS SHARE on the relations it read (held to the end of
    # any transaction), which conflicts only with ACCESS EXCLUSIVE (DROP, TRUNCATE,
    # ALTER TABLE, so an ALTER EXTENSION UPDATE waits for it, at most the deadline).
    assert read


# --- E5: cancel and disconnect mid-call ------------------------------------------------------

def test_cancel_mid_call_ends_it_at_once_and_writes_nothing(db, llm, turn):
    alice, cid = turn
    mh.memory_profile(alice, llm, name="P", credential="C_P")
    alice.execute(f"set dbms_cloud_ai.http_timeout = {DEADLINE}")
    llm.reset()
    llm.script(Hang(DEADLINE + 3))
    before = row_counts(db)
    th, out = background(lambda: generate(alice, FAILING, params=params(cid)))
    in_flight(llm, FAILING)
    sent = time.monotonic()
    assert db.admin.execute("select pg_cancel_backend(%s)", (alice.info.backend_pid,)).fetchone()[0]
    th.join(DEADLINE + 5)
    # The wait looks at PostgreSQL's interrupt flags every 100 ms: the cancel
    # ends it long before the deadline (tests/security/test_cancel_and_terminate.py measures).
    assert out["error"].sqlstate == "57014", out["error"]
    assert time.monotonic() - sent <= 0.5 + SLACK
    assert changed(before, row_counts(db)) == {}
    llm.reset()
    assert mh.say(alice, "after the cancel", cid, profile="OK") == "fake answer"


DISCONNECT = """
import sys, psycopg
conn = psycopg.connect(sys.argv[1], autocommit=True, application_name="dca-disconnect")
conn.execute("set dbms_cloud_ai.http_timeout = %s" % sys.argv[3])
conn.execute("select dbms_cloud_ai.generate(%s, 'P', 'chat', params => %s)", (sys.argv[4], sys.argv[2]))
"""


@pytest.mark.parametrize("reply", ["hang", "late answer"])
def test_client_disconnect_mid_call(db, llm, turn, reply):
    """The client dies while its call waits: the backend ends at once (the wait
    checks the client socket) and leaves no half turn (with a late answer the
    turn is whole or absent)."""
    alice, cid = turn
    mh.memory_profile(alice, llm, name="P", credential="C_P")
    llm.reset()
    llm.script(Hang(DEADLINE + 3) if reply == "hang" else Answer("too late", delay=1.0))
    before = row_counts(db)
    info = db.admin.info
    dsn = f"host={info.host} port={info.port} dbname={info.dbname} user=alice"
    client = subprocess.Popen([sys.executable, "-c", DISCONNECT, dsn, params(cid), str(DEADLINE),
                               FAILING], stderr=subprocess.DEVNULL)
    try:
        in_flight(llm, FAILING)
        started = time.monotonic()
        pid = db.admin.execute("select pid from pg_stat_activity where application_name = "
                               "'dca-disconnect'").fetchone()[0]
    finally:
        client.kill()
        client.wait()
    while db.admin.execute("select count(*) from pg_stat_activity where pid = %s",
                           (pid,)).fetchone()[0]:
        assert time.monotonic() - started <= 0.5 + SLACK, "the backend outlived its client"
        time.sleep(0.05)
    diff = changed(before, row_counts(db))
    prompts = db.admin.execute("select prompt_response from dbms_cloud_ai._conversation_prompt "
                               "where prompt = %s", (FAILING,)).fetchall()
    if reply == "hang":
        assert diff == {} and prompts == []
    else:  # finished before the backend saw the client gone: a whole turn, or nothing
        assert prompts in ([], [("too late",)])
        assert diff in ({}, {"dbms_cloud_ai._conversation_prompt": 1,
                             "dbms_cloud_ai._model_call": 1}), diff


# --- E7: one client request id per logical call ----------------------------------------------

def test_every_attempt_carries_the_calls_request_id(db, llm, alice):
    make_profile(alice, llm)
    alice.execute("set dbms_cloud_ai.http_max_attempts = 3")
    llm.script(Raw(500, headers={"retry-after": "0"}), Raw(503, headers={"retry-after": "0"}),
               Answer("third time"))
    assert generate(alice, "one") == "third time"
    llm.script(Raw(502, headers={"retry-after": "0"}), Answer("second time"))
    assert generate(alice, "two") == "second time"
    llm.script(*[Raw(500, headers={"retry-after": "0"})] * 3)
    with raises("LL000"):
        generate(alice, "three")
    ids = [r.headers.get(REQUEST_ID) for r in llm.requests]
    assert len(ids) == 8 and all(ids)
    one, two, three = ids[:3], ids[3:5], ids[5:]
    assert len(set(one)) == len(set(two)) == len(set(three)) == 1
    assert len({one[0], two[0], three[0]}) == 3
    # the DBA finds each request by the id the provider logged
    calls = dict(alice.execute("select call_id, attempts from dbms_cloud_ai.user_cloud_ai_calls"))
    assert calls == {one[0]: 3, two[0]: 2, three[0]: 3}
    admin = db.connect("ai_admin")
    stored = dict(admin.execute("select call_id, owner from dbms_cloud_ai.dba_cloud_ai_calls"))
    assert stored == {one[0]: "alice", two[0]: "alice"}  # the failed one waits for the next call


PROVIDER_HEADERS = [  # (provider, extra attributes, the header it documents or ours)
    ("openai", {}, "x-client-request-id"), ("anthropic", {}, "x-client-request-id"),
    ("cohere", {}, "x-client-request-id"), ("google", {}, "x-client-request-id"),
    ("huggingface", {}, "x-client-request-id"), (None, {"model": "llama3.2"}, "x-client-request-id"),
    ("azure", {"azure_deployment_name": "d"}, "x-ms-client-request-id"),
]


def test_request_id_header_per_provider(alice, llm):
    for provider, extra, header in PROVIDER_HEADERS:
        with case(provider):
            llm.reset()
            name = provider or "compatible"
            make_profile(alice, llm, name=name, credential="C_" + name, provider=provider, **extra)
            llm.script(Raw(500, headers={"retry-after": "0"}), Answer("fine"))
            assert generate(alice, "q", profile=name) == "fine"
            sent = [r.headers.get(header) for r in llm.requests]
            assert len(sent) == 2 and sent[0] and sent[0] == sent[1]
            assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_calls "
                                 "where call_id = %s", (sent[0],)).fetchone()[0] == 1


# --- name resolution under the deadline (no server needed) ----------------------------------

def test_a_hanging_dns_lookup_is_cut_at_the_deadline(monkeypatch):
    """getaddrinfo has no timeout of its own (a resolver that does not answer
    blocks for the resolver's timeout x attempts x servers), and PostgreSQL cannot
    interrupt it: the lookup must be bounded by the call's deadline too."""
    import socket

    from dbms_cloud_ai.errors import ProviderTimeout
    from dbms_cloud_ai.model import http
    real = socket.getaddrinfo

    def unanswered(host, *args, **kw):
        if host == "unanswered.invalid":
            time.sleep(5)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return real(host, *args, **kw)
    monkeypatch.setattr(socket, "getaddrinfo", unanswered)
    with timed() as t:
        with pytest.raises(ProviderTimeout) as e:
            http.post_json("http://unanswered.invalid:8080/v1/chat/completions", {}, {},
                           provider="openai", deadline=time.monotonic() + 1.0, max_attempts=3)
    assert t["elapsed"] <= 1.0 + 0.2
    assert e.value.attempts == 1


# --- the model's SQL inside markdown fences and prose ----------------------------------------

FENCED = ("Sure! Here is the query you asked for:\n"
          "```python\nprint('not this block')\n```\n"
          "```sql\nSELECT count(*) AS n FROM alice.t;\n```\n"
          "It counts the rows of t. Note: run it as a read-only user.")


def test_sql_inside_markdown_fences(db, llm, alice):
    """The 8.E scenario "SQL inside markdown fences": showsql and runsql take the
    ```sql block out of the prose (not the other block) and show or run it; a
    fenced block with a second statement is refused whole, not cut to its first."""
    alice.execute("create table alice.t (v text); insert into alice.t values ('a'), ('b')")
    alice.execute("set statement_timeout = '20s'")
    make_profile(alice, llm, object_list=[{"owner": "ALICE", "name": "T"}])
    cid = mh.conversation(alice, "fences")
    llm.script(Answer(FENCED), Answer(FENCED))
    shown = generate(alice, "how many rows?", "P", "showsql", params=params(cid))
    assert "count(*)" in shown.lower()
    assert not any(s in shown for s in ("```", "Sure", "print", "counts the rows", ";"))
    rows = json.loads(generate(alice, "how many rows?", "P", "runsql", params=params(cid)))
    assert [list(r.values()) for r in rows] == [[2]]
    before = row_counts(db)
    llm.script(Answer("Here you go:\n```sql\nSELECT count(*) FROM alice.t;\n"
                      "DELETE FROM alice.t;\n```\nDone."))
    with raises("42501"):
        generate(alice, "how many rows, then empty it", "P", "runsql", params=params(cid))
    assert len(llm.requests) == 3  # a refusal is final: no repair round
    assert alice.execute("select count(*) from alice.t").fetchone()[0] == 2
    assert changed(before, row_counts(db)) == {}
    assert alice.execute("select prompt_action, prompt_response from "
                         "dbms_cloud_ai.user_cloud_ai_conversation_prompts order by created"
                         ).fetchall() == [("SHOWSQL", shown), ("RUNSQL", shown)]
