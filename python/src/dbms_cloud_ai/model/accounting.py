"""Every model request, counted: provider, model, prompt version, tokens, latency, status.

``llm.chat`` calls ``record`` after each request, successful or not.  Records
wait in this backend's memory and ``flush`` writes them in one INSERT at the
end of a successful call (``generate`` and friends), together with the sources
(retrieved context) an answer used.

A failed call ends its statement with an error, and PostgreSQL rolls back
whatever the statement wrote; the record of the failed request must survive
that.  So records stay in memory until a later flush can tell that the
transaction that wrote them committed (``pg_xact_status`` of the writing
transaction) and that their row is there (a rolled-back savepoint removes it
from a transaction that commits): until then they are written again, with
ON CONFLICT DO NOTHING.  Until then, ``pending`` shows them
(the ``user_cloud_ai_calls`` view adds them to the stored rows).  What is
still pending when the session ends is lost; the server log has a line for
each failed request (``plpy.log``).
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime

from .. import writer
from . import spool

MAX_PENDING = 10_000
# A provider's token counts are its word, and its answer may be hostile: a count
# below zero or above this (no request of any model comes near) is clamped and
# the record flagged (tokens_estimated), so no answer can lift a budget or make
# a record that the int4 columns refuse (which would fail every later flush).
MAX_TOKENS = 100_000_000
INT4_MAX = 2**31 - 1

# Benchmarks switch accounting off (as superuser, through GD) to measure what it
# costs; nothing else does.
ENABLED = True


def version(name: str, *texts: str) -> str:
    """A prompt template's version: its name and a hash of its text, so that
    any change to the wording gives a new version without anyone bumping it."""
    h = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:8]
    return f"{name}@{h}"


@dataclass
class Turn:
    """What the calls of one generate() belong to."""

    owner: str
    profile_name: str | None
    action: str | None
    conversation_id: str | None = None
    prompt_id: str | None = None          # the conversation prompt the turn will write
    call_ids: list[str] = field(default_factory=list)


_turn: Turn | None = None
_pending: list[dict] = []     # records not yet known to be committed (and journaled: spool)
_sources: list[dict] = []
_reservation = None           # the spend reservation of the request about to be sent


def reserved(reservation) -> None:
    """budget.check reserved the estimate of the next request; record() settles it."""
    global _reservation
    _reservation = reservation


def _tokens(value) -> tuple[int | None, bool]:
    """A token count fit to store, and whether it had to be changed."""
    if value is None:
        return None, False
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return 0, True
    if value > MAX_TOKENS:
        return MAX_TOKENS, True
    return value, False


def begin(owner: str, profile_name: str | None, action: str | None) -> Turn:
    global _turn
    _turn = Turn(owner, profile_name, (action or "").upper() or None)
    return _turn


@contextmanager
def turn(plpy, ctx, profile_name: str | None, action: str | None):
    """Account the model calls made inside: they belong to this owner, profile
    and action, and are written when the block ends without error (unless the
    transaction is read-only: then a later call writes them).  Turns nest: a
    function tool of a team run may call generate() or run_team() itself, and the
    run's later calls still belong to the run's turn."""
    global _turn
    spool.init(plpy, ctx.who)
    outer = _turn
    t = begin(ctx.who, profile_name, action)
    try:
        yield t
        if ctx.settings.get("ro") != "on":
            flush(plpy, ctx.who, ctx.settings.get("xid"))
    finally:
        _turn = outer


def current() -> Turn | None:
    return _turn


def end():
    global _turn
    _turn = None


def new_call_id() -> str:
    """The id of a call about to be made, as user_cloud_ai_calls shows it (an
    upper-case GUID); the HTTP layer sends it as the client request id."""
    return str(uuid.uuid4()).upper()


def record(*, provider: str, model: str | None, purpose: str, prompt_version: str,
           completion=None, error=None, latency_ms: float, attempts: int = 1,
           call_id: str | None = None) -> str:
    """Remember one request; returns its call id (``call_id`` if given: the
    id the request carried, from new_call_id)."""
    global _reservation
    turn = _turn
    call_id = (call_id or str(uuid.uuid4())).lower()
    if not ENABLED:
        return call_id
    inp, inp_clamped = _tokens(completion.input_tokens if completion is not None else None)
    out, out_clamped = _tokens(completion.output_tokens if completion is not None else None)
    if _reservation is not None:
        spool.settle(_reservation, (inp or 0) + (out or 0))
        _reservation = None
    rec = {
        "call_id": call_id,
        "owner": turn.owner if turn else None,
        "created": time.time(),
        "profile_name": turn.profile_name if turn else None,
        "action": turn.action if turn else None,
        "purpose": purpose,
        "provider": provider,
        "model": (completion.model if completion is not None and completion.model else model),
        "prompt_version": prompt_version,
        "input_tokens": inp,
        "output_tokens": out,
        "tokens_estimated": (bool(completion.tokens_estimated) or inp_clamped or out_clamped)
                            if completion is not None else False,
        "latency_ms": min(max(round(latency_ms), 0), INT4_MAX),
        "attempts": min(max(int(attempts or 1), 1), INT4_MAX),
        "status": "ok" if error is None else "error",
        "error_sqlstate": getattr(error, "sqlstate", None) if error is not None else None,
        "http_status": getattr(error, "status", None) if error is not None else None,
        "conversation_id": turn.conversation_id if turn else None,
        "conversation_prompt_id": None,
        "_xid": None,
    }
    if turn is not None:
        turn.call_ids.append(call_id)
    if rec["owner"] is not None:
        _pending.append(rec)
        del _pending[:-MAX_PENDING]
        spool.journal(rec["owner"], [rec])
    return call_id


def mark_failed(call_ids, sqlstate: str) -> None:
    """Requests the provider answered but whose answers were of no use (NL2SQL's
    SQL, still wrong after the repair round): status error with ``sqlstate``.
    Journaled again: an adopter keeps a call id's last line."""
    ids = {c.lower() for c in call_ids if c}
    changed = [r for r in _pending if r["call_id"] in ids]
    for r in changed:
        r["status"], r["error_sqlstate"] = "error", sqlstate
    for owner in {r["owner"] for r in changed}:
        spool.journal(owner, [r for r in changed if r["owner"] == owner])


def add_sources(call_id: str, kind: str, items) -> None:
    """``items``: (source_id, similarity) pairs an answer used."""
    owner = _turn.owner if _turn else None
    if not ENABLED or owner is None:      # as record(): nothing outside a turn
        return
    for source_id, similarity in items:
        _sources.append({"call_id": call_id, "owner": owner, "source_kind": kind,
                         "source_id": str(source_id), "similarity": similarity, "_xid": None})


def turn_totals(turn: Turn) -> dict:
    """Tokens and latency of a turn's calls, and the model of its last answer."""
    ids = set(turn.call_ids)
    recs = [r for r in _pending if r["call_id"] in ids]
    ok = [r for r in recs if r["status"] == "ok"]
    answers = [r for r in ok if r["purpose"] == "answer"]
    last = (answers or ok or recs or [None])[-1]
    return {
        "provider": last["provider"] if last else None,
        "model": last["model"] if last else None,
        "prompt_version": last["prompt_version"] if last else None,
        "input_tokens": min(sum(r["input_tokens"] or 0 for r in recs), INT4_MAX) if recs else None,
        "output_tokens": min(sum(r["output_tokens"] or 0 for r in recs), INT4_MAX) if recs else None,
        "tokens_estimated": any(r["tokens_estimated"] for r in recs) if recs else None,
        "latency_ms": sum(r["latency_ms"] for r in recs) if recs else None,
    }


def link_prompt(turn: Turn, prompt_id: str, conversation_id: str | None) -> None:
    ids = set(turn.call_ids)
    for r in _pending:
        if r["call_id"] in ids:
            r["conversation_prompt_id"] = prompt_id
            r["conversation_id"] = conversation_id
    for s in _sources:
        if s["call_id"] in ids:
            s["conversation_prompt_id"] = prompt_id


_COLUMNS = spool.FIELDS    # the INSERTs below list the columns in this order

# Records held (written but not yet seen committed) before a flush checks them.
CONFIRM_EVERY = 32

_INSERT_ONE = """
    insert into dbms_cloud_ai._model_call
           (call_id, owner, created, profile_name, action, purpose, provider, model,
            prompt_version, input_tokens, output_tokens, tokens_estimated, latency_ms, attempts,
            status, error_sqlstate, http_status, conversation_id, conversation_prompt_id)
    values ($1::uuid, $2::name, pg_catalog.to_timestamp($3), $4, $5, $6, $7, $8, $9, $10, $11,
            $12, $13, $14, $15, $16, $17, $18::uuid, $19::uuid)
    on conflict (call_id) do nothing
    returning pg_catalog.pg_current_xact_id()::text as xid,
              -- the subtransaction that wrote the row (plpy.execute runs each
              -- statement in one): once it is committed, the row is there
              xmin::text as sub,
              pg_catalog.pg_xact_status($20::xid8) as previous"""
_INSERT_TYPES = ("text", "text", "float8", "text", "text", "text", "text", "text", "text", "int4",
                 "int4", "bool", "int4", "int4", "text", "text", "int4", "text", "text", "text")

_FLUSH = """
    with calls as (
        insert into dbms_cloud_ai._model_call
        select r.call_id, r.owner, pg_catalog.to_timestamp(r.created), r.profile_name, r.action,
               r.purpose, r.provider, r.model, r.prompt_version, r.input_tokens, r.output_tokens,
               r.tokens_estimated, r.latency_ms, r.attempts, r.status, r.error_sqlstate,
               r.http_status, r.conversation_id, r.conversation_prompt_id
          from pg_catalog.json_to_recordset($1::json) as r(
               call_id uuid, owner name, created float8, profile_name text, action text,
               purpose text, provider text, model text, prompt_version text, input_tokens int,
               output_tokens int, tokens_estimated bool, latency_ms int, attempts int,
               status text, error_sqlstate text, http_status int, conversation_id uuid,
               conversation_prompt_id uuid)
        on conflict (call_id) do nothing
        returning xmin),
    sources as (
        insert into dbms_cloud_ai._message_source
               (call_id, owner, conversation_prompt_id, source_kind, source_id, similarity)
        select s.call_id, s.owner, s.conversation_prompt_id, s.source_kind, s.source_id,
               s.similarity
          from pg_catalog.json_to_recordset($2::json) as s(
               call_id uuid, owner name, conversation_prompt_id uuid, source_kind text,
               source_id text, similarity real)
        on conflict do nothing
        returning xmin)
    select (select pg_catalog.count(*) from calls) operator(pg_catalog.+)
           (select pg_catalog.count(*) from sources) as n,
           pg_catalog.pg_current_xact_id()::text as xid,
           -- the statement's subtransaction, if it inserted a row (else the
           -- records it sent are confirmed by this path's look-ups)
           coalesce((select c.xmin::text from calls c limit 1),
                    (select s.xmin::text from sources s limit 1)) as sub,
           (select pg_catalog.json_agg(k.call_id)
              from pg_catalog.json_to_recordset($3::json) as k(call_id uuid, xid xid8)
             where pg_catalog.pg_xact_status(k.xid) operator(pg_catalog.=) 'committed'
               and (select m.call_id from dbms_cloud_ai._model_call m       -- a probe (as above)
                     where m.call_id operator(pg_catalog.=) k.call_id) is not null)::text as stored"""
_FLUSH_TYPES = ("text", "text", "text")


# Accounting rows are written through writer.py, as every write: users hold no INSERT.

def flush(plpy, owner: str, current_xid: str | None = None) -> None:
    """Write this owner's records, in one statement.

    Every record not yet known to be committed is sent (ON CONFLICT DO NOTHING
    makes re-sending harmless); the same statement reports the status of the
    transactions that wrote earlier flushes, and records whose transaction
    committed are forgotten.  In the steady state a call sends its own record
    and confirms the one of the call before it.

    A record is forgotten only when its row is there: the subtransaction that
    wrote it committed (the single-record path), or the transaction that wrote
    it committed and the row is found (the full path; the statement's snapshot
    predates its own insert).  A savepoint rolled back after the write
    (ROLLBACK TO SAVEPOINT, a PL/pgSQL exception block) removes the row while
    its top-level transaction commits.  A source is forgotten with its call.

    ``current_xid``: the transaction the call runs in, if it had written
    before the call started (pg_current_xact_id_if_assigned()).  Records that
    transaction wrote are left alone until a later transaction checks them:
    re-sending and checking them on every call would make N calls in one
    statement or transaction (a generate() per row) cost O(N^2)."""
    _adopt(plpy, owner)
    mine = [r for r in _pending if r["owner"] == owner
            and (current_xid is None or r["_xid"] != current_xid)]
    mine_sources = [s for s in _sources if s["owner"] == owner
                    and (current_xid is None or s["_xid"] != current_xid)]
    if not mine and not mine_sources:
        return
    fresh = [r for r in mine if r["_xid"] is None]
    sent = [r for r in mine if r["_xid"] is not None]   # sent before, not yet confirmed
    if len(fresh) == 1 and (not sent or (len(sent) == 1 and sent[0].get("_sub"))) \
            and not any(s["_xid"] is None for s in mine_sources):
        # The common case, one new call after a confirmed one or a single
        # unconfirmed one: one INSERT, which also asks how the subtransaction that
        # wrote the unconfirmed record ended (plpy.execute runs each statement in
        # one).  Committed: its row is there, with no look-up of the row (a
        # rolled-back savepoint aborts the subtransaction, whatever its top-level
        # transaction does), and the record is forgotten.  Aborted or unknown: it
        # is sent again at once (the full path below), as are the records of a
        # transaction that made several calls, checked there together.
        r = fresh[0]
        prev = sent[0] if sent else None
        row = writer.one(plpy, _INSERT_ONE, _INSERT_TYPES,
                         tuple(r[k] for k in _COLUMNS) + (prev["_sub"] if prev else None,))
        if row is not None:
            r["_xid"] = row["xid"]
            r["_sub"] = _xid8(row["xid"], row["sub"])
            if prev is None or row["previous"] == "in progress":
                return
            if row["previous"] == "committed":
                done = prev["call_id"]
                _forget(lambda x: x["call_id"] == done)
                return
            mine = [x for x in mine if x is not r]
    if not fresh and not any(s["_xid"] is None for s in mine_sources) \
            and len(mine) < CONFIRM_EVERY:
        return
    written = [{"call_id": r["call_id"], "xid": r["_xid"]} for r in mine if r["_xid"]]
    row = writer.one(plpy, _FLUSH, _FLUSH_TYPES,
                     (json.dumps([{k: r[k] for k in _COLUMNS} for r in mine]),
                      json.dumps([{k: v for k, v in s.items() if not k.startswith("_")}
                                 for s in mine_sources]),
                      json.dumps(written)))
    stored = set(json.loads(row["stored"] or "[]"))
    _forget(lambda r: r["owner"] == owner and r["call_id"] in stored)
    held = {r["call_id"] for r in _pending}
    _sources[:] = [s for s in _sources if s["call_id"] in held or s["_xid"] is None]
    for r in mine + mine_sources:
        r["_xid"] = row["xid"]
        r["_sub"] = _xid8(row["xid"], row["sub"])


def _xid8(top: str, sub: str | None) -> str | None:
    """The 64-bit id (xid8) of a subtransaction of ``top`` (an xid8) from its
    32-bit xid: assigned after ``top``, so in the same epoch unless the counter
    wrapped in between."""
    if sub is None:
        return None
    top8, sub32 = int(top), int(sub)
    base = top8 - (top8 & 0xFFFFFFFF)
    return str(base + sub32 + (1 << 32 if sub32 < (top8 & 0xFFFFFFFF) else 0))


# How often a backend looks for the journals of the role's ended backends: the
# first flush of a session always does; then at most this often, so the
# directory scan is not paid on every call.
ADOPT_EVERY = 10.0
_adopted_at: dict[str, float] = {}


def _adopt(plpy, owner: str) -> None:
    """Take over the records of this role's ended backends (spool.adopt)."""
    last = _adopted_at.get(owner)
    if not ENABLED or (last is not None and time.monotonic() - last < ADOPT_EVERY):
        return
    spool.init(plpy, owner)
    _pending.extend(spool.adopt(owner))
    _adopted_at[owner] = time.monotonic()


def _forget(predicate):
    gone: dict[str, list[str]] = {}
    for r in _pending:
        if predicate(r):
            gone.setdefault(r["owner"], []).append(r["call_id"])
    _pending[:] = [r for r in _pending if not predicate(r)]
    _sources[:] = [s for s in _sources if not predicate(s)]
    for owner, ids in gone.items():
        spool.forget(owner, ids, [r for r in _pending if r["owner"] == owner])


def held(owner: str) -> list[dict]:
    """This owner's records still in memory: not yet known to be in a committed
    row (some may be stored already; budget.check asks which)."""
    return [r for r in _pending if r["owner"] == owner]


def pending(plpy, owner: str) -> list[dict]:
    """This owner's records still in memory, for user_cloud_ai_calls, which
    shows those that are in no row it can see (never written, or written by a
    transaction or savepoint that rolled back)."""
    _adopt(plpy, owner)
    return [{**{k: r[k] for k in _COLUMNS},
             "created": datetime.fromtimestamp(r["created"], UTC).isoformat()}
            for r in held(owner)]
