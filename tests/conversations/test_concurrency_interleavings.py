"""Isolation-style interleavings (security.md 8.F2): a turn appended to a named
conversation against drop, prompt delete, the retention purge, subject erasure
and memory promotion; two creations of one name.

Like PostgreSQL's isolation specs, each scenario is a few sessions, each a
list of steps, and every permutation of the steps (each session's own in
order) is run.  The sessions are psycopg connections, each driven by its own
thread.  A turn is split where it really waits: ``call`` starts generate() and
returns once the fake model holds the request (history read, nothing
written), ``answer`` lets the model reply and waits for the turn to end.
Explicit transactions add a ``commit`` step, so the other session also runs
while the turn's write is uncommitted.  A step whose session is still busy
(waiting for a lock another session holds) is deferred, as isolationtester
does, and runs once that session is free.

Every permutation then checks the invariants: no prompt without its
conversation and no summary or memory job without one, a dropped or purged
conversation stays gone, nothing deleted or erased reappears (no summary made
from a deleted prompt, no memory of an erased subject), nothing that was not
deleted is lost, the appending session gets an answer (recorded, or a WARNING
that it was not recorded) or a documented error, and no session ever sees a
deadlock (40P01) or serialization failure (40001).
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
import time
import uuid
from dataclasses import dataclass

import memory_helpers as mh
import psycopg
import pytest
from fake_llm import Answer, last_user_text
from helpers import make_profile, raises

STEP_WAIT = 30.0          # a step that neither ends, blocks nor reaches the model by then: a hang
SUMMARY_SYSTEM = "You keep a running summary of a conversation"
NEVER = {"40P01", "40001"}


# --- the fake model: answers, and holds the requests a test names ------------------------

class Gate:
    """Holds a model request mid-flight until the test opens it."""

    def __init__(self):
        self.entered = threading.Event()
        self._open = threading.Event()

    def hold(self):
        self.entered.set()
        self._open.wait(30)

    def open(self):
        self._open.set()


def is_summary(body) -> bool:
    msgs = body.get("messages") or []
    return bool(msgs) and str(msgs[0].get("content", "")).startswith(SUMMARY_SYSTEM)


class Model:
    """Answers ``answer to <question>``, summary requests with ``SUMMARY`` and
    what they fold, extraction requests with every ``remember: X`` as a fact.
    A tag's gate holds the answer whose question carries ``[hold:<tag>]``, or,
    for a tag starting with ``x-``, the extraction whose messages carry it."""

    def __init__(self):
        self.gates: dict[str, Gate] = {}

    def gate(self, tag: str) -> Gate:
        return self.gates.setdefault(tag, Gate())

    def __call__(self, wire, body):
        extraction, summary = mh.is_extraction(body), is_summary(body)
        question = last_user_text(wire, body)
        for tag, gate in list(self.gates.items()):
            mark = f"[hold:{tag}]"
            if tag.startswith("x-"):
                if extraction and mark in json.dumps(body):
                    gate.hold()
            elif not extraction and not summary and mark in question:
                gate.hold()
        if extraction:
            return mh.remember_phrases()(wire, body)
        if summary:
            return Answer("SUMMARY " + body["messages"][1]["content"])
        return Answer("answer to " + question)


@pytest.fixture
def model(llm):
    m = Model()
    llm.responder = m
    yield m
    for g in m.gates.values():
        g.open()


# --- sessions, steps, permutations -------------------------------------------------------

class Session:
    """A connection driven by its own thread, one step at a time."""

    def __init__(self, db, role: str, name: str):
        self.name = name
        self.conn = db.connect(role)
        self.pid = self.conn.info.backend_pid
        self.notices: list[tuple] = []   # (severity, sqlstate): a Diagnostic dies with its callback
        self.conn.add_notice_handler(lambda d: self.notices.append((d.severity, d.sqlstate)))
        self.jobs: queue.Queue = queue.Queue()
        self.done = threading.Event()
        self.done.set()
        self.outcomes: dict[str, tuple] = {}
        threading.Thread(target=self._loop, daemon=True, name=name).start()

    def _loop(self):
        while True:
            label, fn = self.jobs.get()
            try:
                self.outcomes[label] = ("ok", fn(self.conn))
            except psycopg.Error as e:
                self.outcomes[label] = ("error", e.sqlstate)
            except BaseException as e:
                self.outcomes[label] = ("error", repr(e))
            finally:
                self.done.set()

    def submit(self, label, fn):
        self.done.clear()
        self.jobs.put((label, fn))

    @property
    def busy(self) -> bool:
        return not self.done.is_set()

    def reset(self):
        assert not self.busy
        if self.conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            self.conn.execute("rollback")
        self.outcomes.clear()
        self.notices.clear()

    def warned(self) -> bool:
        """A WARNING (01000) was raised: generate() says the answer was not recorded."""
        return ("WARNING", "01000") in self.notices

    def errors(self) -> list[str]:
        return [v for k, v in self.outcomes.values() if k == "error"]


@dataclass
class Step:
    """``fn(conn)`` runs in ``session``.  ``held``: the step has been reached once
    the model holds that gate's request.  ``release``: opens that gate (it runs
    while its session is busy, held by the model)."""
    session: Session
    label: str
    fn: object = None
    held: Gate | None = None
    release: Gate | None = None


def _lock_waiting(admin, pid) -> bool:
    return admin.execute("select cardinality(pg_blocking_pids(%s)) > 0", (pid,)).fetchone()[0]


def _settle(admin, step: Step):
    """Wait until the step's session is done, waits for a lock, or is held by the model."""
    s, deadline = step.session, time.monotonic() + STEP_WAIT
    while s.busy:
        if step.held is not None and step.held.entered.is_set():
            return
        if _lock_waiting(admin, s.pid):
            return
        assert time.monotonic() < deadline, f"step {step.label} hangs"
        s.done.wait(0.005)


def run_permutation(admin, order: list[Step], *, strict: bool = False) -> list[str]:
    """Run the steps in this order; a step whose session is busy (waiting for a
    lock) is deferred until it is free, as isolationtester does (``strict``:
    the next step waits for its session instead).  Returns the order the steps
    really started in."""
    ran, pending = [], list(order)
    while pending:
        # The first pending step that can start: its session is free (or it is
        # the release of its session's held model call), and it is the next of
        # its session.
        step = None
        for st in pending[:1] if strict else pending:
            nxt = next(x for x in pending if x.session is st.session)
            if nxt is st and (st.release is not None or not st.session.busy):
                step = st
                break
        if step is None:
            deadline = time.monotonic() + STEP_WAIT
            while all(st.session.busy for st in (pending[:1] if strict else pending)):
                assert time.monotonic() < deadline, f"stuck after {ran}: {[st.label for st in pending]}"
                time.sleep(0.005)
            continue
        pending.remove(step)
        ran.append(step.label)
        if step.release is not None:
            step.release.open()
        if step.fn is not None:
            step.session.submit(step.label, step.fn)
        _settle(admin, step)
    for s in {st.session.name: st.session for st in order}.values():
        assert s.done.wait(STEP_WAIT), f"{s.name} never finished after {ran}"
    return ran


def interleavings(lengths: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every order of the sessions' steps that keeps each session's own order,
    as the sequence of session indexes."""
    owners = [i for i, n in enumerate(lengths) for _ in range(n)]
    return sorted(set(itertools.permutations(owners)))


def merge(seqs: list[list[Step]], owners: tuple[int, ...]) -> list[Step]:
    pos = [0] * len(seqs)
    out = []
    for i in owners:
        out.append(seqs[i][pos[i]])
        pos[i] += 1
    return out


def explore(db, sessions: list[Session], variants, build, check) -> dict:
    """For each variant, every interleaving of ``build(n, variant)``'s step
    sequences, each on fresh objects; ``check(ctx, ran)`` after each.  No
    session ever sees 40P01 or 40001.  Returns {variant: permutations run}."""
    n, runs = 0, {}
    for variant in variants:
        ctx = build(n, variant)
        for k, owners in enumerate(interleavings(tuple(len(s) for s in ctx["seqs"]))):
            if k:
                ctx = build(n, variant)
            ran = run_permutation(db.admin, merge(ctx["seqs"], owners))
            ctx["ran"] = ran
            try:
                for s in sessions:
                    assert not NEVER & set(s.errors()), f"{s.name}: {s.errors()}"
                check(ctx, ran)
                assert orphans(db.admin) == NO_ORPHANS
            except AssertionError as e:
                raise AssertionError(f"variant {variant}, order {' '.join(ran)}: {e}") from None
            for s in sessions:
                s.reset()
            runs[variant] = runs.get(variant, 0) + 1
            n += 1
    return runs


def before(ran: list[str], a: str, b: str) -> bool:
    """Step a started before step b (both ran)."""
    return ran.index(a) < ran.index(b)


# --- the appending turn ------------------------------------------------------------------

def say(prompt, cid, profile="P"):
    def fn(conn):
        return conn.execute("select dbms_cloud_ai.generate(%s, %s, 'chat', params => %s)",
                            (prompt, profile, json.dumps({"conversation_id": cid}))).fetchone()[0]
    return fn


def sql(text, args=(), *, begin=False):
    def fn(conn):
        if begin:
            conn.execute("begin")
        cur = conn.execute(text, args)
        return cur.fetchone() if cur.description else None
    return fn


def appender(s: Session, model: Model, cid: str, text: str, tag: str, in_tx: bool):
    """The turn's prompt and its steps: call (held by the model), answer[, commit]."""
    gate = model.gate(tag)
    prompt = f"{text} [hold:{tag}]"
    call = say(prompt, cid)
    if in_tx:
        def call_in_tx(conn, call=call):
            conn.execute("begin")
            return call(conn)
        return prompt, [Step(s, "a.call", call_in_tx, held=gate),
                        Step(s, "a.answer", release=gate), Step(s, "a.commit", sql("commit"))]
    return prompt, [Step(s, "a.call", call, held=gate), Step(s, "a.answer", release=gate)]


def turn_outcome(s: Session, prompt: str) -> str:
    """recorded / not_recorded (answered, with a WARNING) / the error's SQLSTATE."""
    kind, value = s.outcomes["a.call"]
    if kind == "error":
        return value
    assert value == "answer to " + prompt, value
    return "not_recorded" if s.warned() else "recorded"


def written(ran: list[str]) -> str:
    """The step after which the appended turn is committed."""
    return "a.commit" if "a.commit" in ran else "a.answer"


# --- checks shared by the scenarios ------------------------------------------------------

NO_ORPHANS = {"prompts": 0, "summaries": 0, "jobs": 0, "memories": 0}


def orphans(admin) -> dict:
    """Rows that outlived what they belong to."""
    return dict(admin.execute("""
        select 'prompts', count(*) from dbms_cloud_ai._conversation_prompt p
         where not exists (select from dbms_cloud_ai._conversation c
                            where c.conversation_id = p.conversation_id)
        union all
        select 'summaries', count(*) from dbms_cloud_ai._conversation_summary s
         where not exists (select from dbms_cloud_ai._conversation c
                            where c.conversation_id = s.conversation_id)
        union all
        select 'jobs', count(*) from dbms_cloud_ai._memory_job j
         where not exists (select from dbms_cloud_ai._conversation c
                            where c.conversation_id = j.conversation_id)
        union all
        select 'memories', count(*) from dbms_cloud_ai._memory m
         where not exists (select from dbms_cloud_ai._conversation_prompt p
                            where p.conversation_prompt_id = any (m.source_prompt_ids))
        """).fetchall())


def prompts_of(admin, cid) -> list[str]:
    return [r[0] for r in admin.execute(
        "select prompt from dbms_cloud_ai._conversation_prompt where conversation_id = %s "
        "order by seq", (cid,))]


def conversation_exists(admin, cid) -> bool:
    return admin.execute("select count(*) from dbms_cloud_ai._conversation "
                         "where conversation_id = %s", (cid,)).fetchone()[0] == 1


def copies(admin, text: str) -> list[str]:
    """Where ``text`` is still stored: prompts, answers, summaries, memories,
    titles, the NL2SQL log."""
    return [r[0] for r in admin.execute("""
        select 'prompt' from dbms_cloud_ai._conversation_prompt
         where prompt like %(p)s or prompt_response like %(p)s
        union all select 'summary' from dbms_cloud_ai._conversation_summary where summary like %(p)s
        union all select 'memory' from dbms_cloud_ai._memory where fact like %(p)s
        union all select 'title' from dbms_cloud_ai._conversation
                   where title like %(p)s or description like %(p)s
        union all select 'sql_statement' from dbms_cloud_ai._sql_statement where prompt like %(p)s
        """, {"p": f"%{text}%"})]


def conversation(conn, title, **attrs) -> str:
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps({"title": title, **attrs}),)).fetchone()[0]


def turn(conn, prompt, cid):
    return say(prompt, cid)(conn)


def marker() -> str:
    return "M" + uuid.uuid4().hex


# (the appender in an explicit transaction, the other session in one)
APPENDER_VARIANTS = [(False, False), (True, False), (False, True), (True, True)]
# Permutations of a 2-step other session's steps against the appender's 2 or 3.
ONE_STEP_RUNS = {(False, False): 3, (True, False): 4, (False, True): 6, (True, True): 10}


# --- append vs drop_conversation ---------------------------------------------------------

def test_append_vs_drop_conversation(db, llm, model):
    alice = db.connect("alice")
    make_profile(alice, llm)
    a, b = Session(db, "alice", "appender"), Session(db, "alice", "dropper")
    seen = set()

    def build(n, variant):
        a_tx, b_tx = variant
        cid = conversation(alice, f"drop {n}")
        turn(alice, f"before {n}", cid)
        prompt, a_steps = appender(a, model, cid, f"question {n}", f"d{n}", a_tx)
        b_steps = [Step(b, "b.drop", sql("select dbms_cloud_ai.drop_conversation(%s)", (cid,),
                                         begin=b_tx))]
        if b_tx:
            b_steps.append(Step(b, "b.commit", sql("commit")))
        return {"seqs": [a_steps, b_steps], "cid": cid, "prompt": prompt}

    def check(ctx, ran):
        cid, outcome = ctx["cid"], turn_outcome(a, ctx["prompt"])
        dropped = "b.commit" if "b.commit" in ran else "b.drop"
        assert b.errors() == []
        # Dropped, with everything in it, and it stays dropped.
        assert not conversation_exists(db.admin, cid)
        assert prompts_of(db.admin, cid) == []
        with raises("42704"):
            turn(alice, "again", cid)
        if before(ran, dropped, "a.call"):
            assert outcome == "42704"
        elif before(ran, written(ran), "b.drop"):
            assert outcome == "recorded"
        else:
            assert outcome in ("recorded", "not_recorded")
        seen.add(outcome)

    runs = explore(db, [a, b], APPENDER_VARIANTS, build, check)
    assert runs == ONE_STEP_RUNS
    assert seen == {"42704", "recorded", "not_recorded"}


# --- append vs delete_conversation_prompt (with a summary being made) --------------------

def test_append_vs_delete_conversation_prompt(db, llm, model):
    """The turn folds the oldest prompt into the summary while another session
    deletes that prompt: the deleted text is never stored again, the rest stays."""
    alice = db.connect("alice")
    make_profile(alice, llm)
    a, b = Session(db, "alice", "appender"), Session(db, "alice", "deleter")
    summaries_made = []

    def build(n, variant):
        a_tx, b_tx = variant
        cid = conversation(alice, f"delete {n}", conversation_length=1, summarize_history=True)
        mk = marker()
        turn(alice, f"old {mk}", cid)
        turn(alice, f"middle {n}", cid)
        (pid,) = db.admin.execute("select conversation_prompt_id::text from dbms_cloud_ai._conversation_prompt "
                                  "where conversation_id = %s and prompt like 'old %%'", (cid,)).fetchone()
        prompt, a_steps = appender(a, model, cid, f"question {n}", f"p{n}", a_tx)
        b_steps = [Step(b, "b.delete", sql("select dbms_cloud_ai.delete_conversation_prompt(%s)",
                                           (pid,), begin=b_tx))]
        if b_tx:
            b_steps.append(Step(b, "b.commit", sql("commit")))
        return {"seqs": [a_steps, b_steps], "cid": cid, "prompt": prompt, "marker": mk}

    def check(ctx, ran):
        assert turn_outcome(a, ctx["prompt"]) == "recorded"
        assert b.errors() == []
        assert copies(db.admin, ctx["marker"]) == []
        n = ctx["prompt"].split()[1]
        assert prompts_of(db.admin, ctx["cid"]) == [f"middle {n}", ctx["prompt"]]
        summaries_made.append(db.admin.execute(
            "select summary is not null from dbms_cloud_ai._conversation_summary "
            "where conversation_id = %s", (ctx["cid"],)).fetchone())

    runs = explore(db, [a, b], APPENDER_VARIANTS, build, check)
    assert runs == ONE_STEP_RUNS
    # The turns really summarised the prompt being deleted (and every such summary was dropped).
    assert sum(1 for r in model_summaries(llm) if "old M" in r) >= 10


def model_summaries(llm) -> list[str]:
    return [json.dumps(r.json) for r in llm.chat_requests if is_summary(r.json)]


# --- append vs the retention purge -------------------------------------------------------

def test_append_vs_purge_expired_conversations(db, llm, model):
    """The conversation expires (its retention shortened) and is purged while a
    turn is in flight."""
    alice = db.connect("alice")
    make_profile(alice, llm)
    a, b = Session(db, "alice", "appender"), Session(db, "alice", "purger")
    seen = set()

    def build(n, variant):
        a_tx, b_tx = variant
        cid = conversation(alice, f"purge {n}", retention_days=30)
        db.admin.execute("update dbms_cloud_ai._conversation set created = now() - interval '2 days', "
                         "expires_at = now() + interval '28 days' where conversation_id = %s", (cid,))
        turn(alice, f"before {n}", cid)
        prompt, a_steps = appender(a, model, cid, f"question {n}", f"g{n}", a_tx)
        b_steps = [Step(b, "b.expire", sql("select dbms_cloud_ai.update_conversation(%s, %s)",
                                           (cid, '{"retention_days": 1}'), begin=b_tx))]
        if b_tx:
            b_steps.append(Step(b, "b.commit", sql("commit")))
        b_steps.append(Step(b, "b.purge", sql("call dbms_cloud_ai.purge_expired_conversations()")))
        return {"seqs": [a_steps, b_steps], "cid": cid, "prompt": prompt}

    def check(ctx, ran):
        cid, outcome = ctx["cid"], turn_outcome(a, ctx["prompt"])
        expired = "b.commit" if "b.commit" in ran else "b.expire"
        assert b.errors() == []
        assert b.outcomes["b.purge"][1][0] >= 1
        assert not conversation_exists(db.admin, cid)
        assert prompts_of(db.admin, cid) == []
        if before(ran, expired, "a.call"):
            assert outcome == "42704"
        elif before(ran, written(ran), "b.expire"):
            assert outcome == "recorded"
        else:
            assert outcome in ("recorded", "not_recorded")
        seen.add(outcome)

    runs = explore(db, [a, b], [(False, False), (True, False), (False, True)], build, check)
    assert runs == {(False, False): 6, (True, False): 10, (False, True): 10}
    assert seen == {"42704", "recorded", "not_recorded"}


# --- append vs subject erasure -----------------------------------------------------------

def test_append_vs_erase_memories(db, llm, model):
    """A gateway's visitor (memory on) talks while an administrator erases the
    visitor: the turn is in flight with the erased fact in its history and in
    the summary it is making.  Nothing erased comes back; the turn's own new
    words are erased if they were stored before the erasure, kept otherwise."""
    mh.enable(db)
    db.admin.execute("select dbms_cloud_ai.set_memory_role('carol', identity => 'asserted')")
    carol = db.connect("carol")
    mh.memory_profile(carol, llm, summarize_history=True, conversation_length=1)
    a, b = Session(db, "carol", "appender"), Session(db, "ai_admin", "eraser")
    fates = set()

    def build(n, variant):
        a_tx, b_tx = variant
        visitor = f"visitor-{n}-{uuid.uuid4().hex[:8]}"
        for conn in (carol, a.conn):
            conn.execute("select dbms_cloud_ai.set_end_user(%s)", (visitor,))
        cid = conversation(carol, f"erase {n}")
        mk = marker()
        turn(carol, f"please remember: my code is {mk}", cid)
        mh.promote(db)
        turn(carol, f"hello {n}", cid)
        prompt, a_steps = appender(a, model, cid, f"please remember: new {n}", f"e{n}", a_tx)
        b_steps = [Step(b, "b.erase", sql("select dbms_cloud_ai.erase_memories(%s)", (visitor,),
                                          begin=b_tx))]
        if b_tx:
            b_steps.append(Step(b, "b.commit", sql("commit")))
        return {"seqs": [a_steps, b_steps], "cid": cid, "prompt": prompt, "marker": mk,
                "visitor": visitor}

    def check(ctx, ran):
        assert turn_outcome(a, ctx["prompt"]) == "recorded"
        assert b.errors() == []
        assert b.outcomes["b.erase"][1][0] == 1
        assert copies(db.admin, ctx["marker"]) == []
        erased = "b.commit" if "b.commit" in ran else "b.erase"
        kept = prompts_of(db.admin, ctx["cid"])
        assert kept in ([], [ctx["prompt"]])
        if before(ran, written(ran), "b.erase"):
            assert kept == []
        if before(ran, erased, "a.call"):
            assert kept == [ctx["prompt"]]
        # Promotion afterwards: only what was kept becomes a memory.
        mh.promote(db)
        facts = [r[0] for r in db.admin.execute(
            "select fact from dbms_cloud_ai._memory where subject = %s", (ctx["visitor"],))]
        assert facts == [p.split("remember: ")[1] for p in kept]
        assert copies(db.admin, ctx["marker"]) == []
        fates.add("kept" if kept else "erased")

    runs = explore(db, [a, b], APPENDER_VARIANTS, build, check)
    assert runs == ONE_STEP_RUNS
    assert fates == {"kept", "erased"}


# --- append vs memory promotion ----------------------------------------------------------

def test_append_vs_run_memory_jobs(db, llm, model):
    """A turn is appended while the conversation's job waits for its extraction:
    every fact stated is a memory once, after the next run; none is lost."""
    mh.enable(db)
    alice = db.connect("alice")
    mh.memory_profile(alice, llm)
    a, r = Session(db, "alice", "appender"), Session(db, "postgres", "runner")
    held = []

    def build(n, variant):
        a_tx, _ = variant
        cid = conversation(alice, f"promote {n}")
        first = f"fact {n} [hold:x-{n}]"
        turn(alice, f"please remember: {first}", cid)
        mh.make_due(db)
        gate = model.gate(f"x-{n}")
        prompt, a_steps = appender(a, model, cid, f"please remember: second {n}", f"r{n}", a_tx)
        r_steps = [Step(r, "r.run", sql("call dbms_cloud_ai.run_memory_jobs(10)"), held=gate),
                   Step(r, "r.answer", release=gate)]
        return {"seqs": [a_steps, r_steps], "cid": cid, "prompt": prompt, "first": first,
                "gate": gate}

    def check(ctx, ran):
        assert turn_outcome(a, ctx["prompt"]) == "recorded"
        assert r.errors() == []
        mh.promote(db)
        facts = sorted(r_[0] for r_ in db.admin.execute(
            "select fact from dbms_cloud_ai._memory where source_conversation_id = %s", (ctx["cid"],)))
        assert facts == sorted([ctx["first"], ctx["prompt"].split("remember: ")[1]])
        assert db.admin.execute("select status from dbms_cloud_ai._memory_job where conversation_id = %s",
                                (ctx["cid"],)).fetchone()[0] == "done"
        held.append(ctx["gate"].entered.is_set())

    runs = explore(db, [a, r], [(False, None), (True, None)], build, check)
    assert runs == {(False, None): 6, (True, None): 10}
    # The extraction really was in flight while the turn was appended (the runner
    # skips a job whose row an uncommitted turn holds).
    assert sum(held) >= 8


GAP_CASES = {
    # the run reads and ends while the older turn waits, uncommitted
    "run ends before the older turn commits": False,
    # the run reads, then the older turn commits, then the run ends
    "older turn commits while the run waits for its model": "autocommit",
    # the run's end waits for the older turn's transaction, which re-scheduled the job
    "run ends while the older turn's transaction is open": "transaction",
}


@pytest.mark.parametrize("case_", list(GAP_CASES))
def test_a_prompt_committed_after_a_newer_one_is_still_promoted(db, llm, model, case_):
    """Prompts get their seq when inserted but become visible when committed: a
    job run that reads a newer prompt while an older one is uncommitted must not
    skip the older one for good.  The older turn is held after its insert (its
    summary write waits for a lock) while a newer turn commits and the job runs."""
    mode = GAP_CASES[case_]
    mh.enable(db)
    alice = db.connect("alice")
    mh.memory_profile(alice, llm, summarize_history=True, conversation_length=1)
    cid = conversation(alice, "gap")
    for text in ("please remember: one", "please remember: two", "please remember: three"):
        turn(alice, text, cid)
    mh.promote(db)
    assert sorted(mh.memories(alice)) == ["one", "three", "two"]
    locker, older, newer = (Session(db, "postgres", "locker"), Session(db, "alice", "older"),
                            Session(db, "alice", "newer"))
    runner = Session(db, "postgres", "runner")
    no_summary = json.dumps({"summarize_history": False})
    gate = model.gate("x-gap")
    five = "five [hold:x-gap]" if mode else "five"
    older_turn = say("please remember: four", cid)
    if mode == "transaction":
        def older_turn(conn, turn_=older_turn):
            conn.execute("begin")
            return turn_(conn)
    order = [
        Step(locker, "lock summary", sql("select 1 from dbms_cloud_ai._conversation_summary "
                                         "where conversation_id = %s for update", (cid,), begin=True)),
        Step(older, "older turn", older_turn),   # waits in its summary write, its prompt inserted
        Step(newer, "newer turn", sql(
            "select dbms_cloud_ai.generate(%s, 'P', 'chat', attributes => %s, params => %s)",
            (f"please remember: {five}", no_summary, json.dumps({"conversation_id": cid})))),
        Step(runner, "due", sql("update dbms_cloud_ai._memory_job set due_at = now()")),
        Step(runner, "run", sql("call dbms_cloud_ai.run_memory_jobs(10)"), held=gate),
        Step(locker, "unlock", sql("commit")),
    ]
    if mode:
        order += [Step(older, "older turn ended", sql("select 1")),
                  Step(runner, "extraction answers", release=gate)]
    if mode == "transaction":
        order.append(Step(older, "older commits", sql("commit")))
    ran = run_permutation(db.admin, order, strict=True)
    assert ran == [s.label for s in order]
    for s in (locker, older, newer, runner):
        assert s.errors() == [], (s.name, s.outcomes)
    assert gate.entered.is_set() == bool(mode)
    mh.promote(db)
    assert sorted(mh.memories(alice)) == sorted(["one", "two", "three", "four", five])


# --- two creations of one name -----------------------------------------------------------

CREATIONS = {
    "credential": ("select dbms_cloud.create_credential(%(name)s, 'user', 'sk-same')", "42710",
                   "select count(*) from dbms_cloud._credential where credential_name = %(name)s"),
    "profile": ("select dbms_cloud_ai.create_profile(%(name)s, "
                "'{\"provider\": \"openai\", \"credential_name\": \"CRED\"}')", "42710",
                "select count(*) from dbms_cloud_ai._profile where profile_name = %(name)s"),
    # Titles are no key: both are created, each with its own id.
    "conversation": ("select dbms_cloud_ai.create_conversation(json_build_object('title', %(name)s::text)::text)",
                     None, "select count(*) from dbms_cloud_ai._conversation where title = %(name)s"),
    "conversation (procedure)": (
        "call dbms_cloud_ai.create_conversation(json_build_object('title', %(name)s::text)::text, null)",
        None, "select count(*) from dbms_cloud_ai._conversation where title = %(name)s"),
}


@pytest.mark.parametrize("what", list(CREATIONS))
def test_two_creations_of_one_name(db, what):
    create, duplicate, count = CREATIONS[what]
    db.connect("alice").execute("select dbms_cloud.create_credential('CRED', 'user', 'sk-x')")
    s1, s2 = Session(db, "alice", "first"), Session(db, "alice", "second")

    def build(n, in_tx):
        name = f"SAME_{n}"
        seqs = []
        for s in (s1, s2):
            steps = [Step(s, f"{s.name}.create", sql(create, {"name": name}, begin=in_tx))]
            if in_tx:
                steps.append(Step(s, f"{s.name}.commit", sql("commit")))
            seqs.append(steps)
        return {"seqs": seqs, "name": name}

    def check(ctx, ran):
        results = [s.outcomes[f"{s.name}.create"] for s in (s1, s2)]
        stored = db.admin.execute(count, {"name": ctx["name"]}).fetchone()[0]
        if duplicate:
            assert sorted(results, key=str) == sorted([("ok", results[0][1] if results[0][0] == "ok"
                                                        else results[1][1]), ("error", duplicate)], key=str)
            assert stored == 1
        else:
            assert [k for k, _ in results] == ["ok", "ok"]
            assert stored == 2
            if what == "conversation":
                assert results[0][1] != results[1][1]
            else:   # each session's current conversation is its own
                mine = [s.conn.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0]
                        for s in (s1, s2)]
                assert mine[0] != mine[1] and None not in mine

    runs = explore(db, [s1, s2], [False, True], build, check)
    assert runs == {False: 2, True: 6}
