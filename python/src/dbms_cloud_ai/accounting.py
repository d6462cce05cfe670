"""Every model request, counted: provider, model, prompt version, tokens, latency, status.

``llm.chat`` calls ``record`` after each request, successful or not.  Records
wait in this backend's memory and ``flush`` writes them in one INSERT at the
end of a successful call (``generate`` and friends), together with the sources
(retrieved context) an answer used.

A failed call ends its statement with an error, and PostgreSQL rolls back
whatever the statement wrote; the record of the failed request must survive
that.  So records stay in memory until a later flush can tell that the
transaction that wrote them committed (``pg_xact_status`` of the writing
transaction): a record whose transaction rolled back is written again, one
whose transaction committed is forgotten.  Until then, ``pending`` shows them
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
from datetime import datetime, timezone

from . import db

MAX_PENDING = 10_000

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
_pending: list[dict] = []     # records not yet known to be committed
_sources: list[dict] = []


def begin(owner: str, profile_name: str | None, action: str | None) -> Turn:
    global _turn
    _turn = Turn(owner, profile_name, (action or "").upper() or None)
    return _turn


@contextmanager
def turn(plpy, ctx, profile_name: str | None, action: str | None):
    """Account the model calls made inside: they belong to this owner, profile
    and action, and are written when the block ends without error (unless the
    transaction is read-only: then a later call writes them)."""
    t = begin(ctx.who, profile_name, action)
    try:
        yield t
        if ctx.settings.get("ro") != "on":
            flush(plpy, ctx.who)
    finally:
        end()


def current() -> Turn | None:
    return _turn


def end():
    global _turn
    _turn = None


def record(*, provider: str, model: str | None, purpose: str, prompt_version: str,
           completion=None, error=None, latency_ms: float, attempts: int = 1) -> str:
    """Remember one request; returns its call id."""
    turn = _turn
    call_id = str(uuid.uuid4())
    if not ENABLED:
        return call_id
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
        "input_tokens": completion.input_tokens if completion is not None else None,
        "output_tokens": completion.output_tokens if completion is not None else None,
        "tokens_estimated": bool(completion.tokens_estimated) if completion is not None else False,
        "latency_ms": int(round(latency_ms)),
        "attempts": attempts,
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
    return call_id


def add_sources(call_id: str, kind: str, items) -> None:
    """``items``: (source_id, similarity) pairs an answer used."""
    owner = _turn.owner if _turn else None
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
        "input_tokens": sum(r["input_tokens"] or 0 for r in recs) if recs else None,
        "output_tokens": sum(r["output_tokens"] or 0 for r in recs) if recs else None,
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


_COLUMNS = ("call_id", "owner", "created", "profile_name", "action", "purpose", "provider",
            "model", "prompt_version", "input_tokens", "output_tokens", "tokens_estimated",
            "latency_ms", "attempts", "status", "error_sqlstate", "http_status",
            "conversation_id", "conversation_prompt_id")

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
        returning 1),
    sources as (
        insert into dbms_cloud_ai._message_source
               (call_id, owner, conversation_prompt_id, source_kind, source_id, similarity)
        select s.call_id, s.owner, s.conversation_prompt_id, s.source_kind, s.source_id,
               s.similarity
          from pg_catalog.json_to_recordset($2::json) as s(
               call_id uuid, owner name, conversation_prompt_id uuid, source_kind text,
               source_id text, similarity real)
        on conflict do nothing
        returning 1)
    select (select pg_catalog.count(*) from calls) operator(pg_catalog.+)
           (select pg_catalog.count(*) from sources) as n,
           pg_catalog.pg_current_xact_id()::text as xid,
           (select pg_catalog.json_object_agg(x::text, pg_catalog.pg_xact_status(x))
              from pg_catalog.unnest($3::xid8[]) x)::text as statuses"""


def flush(plpy, owner: str) -> None:
    """Write this owner's records, in one statement.

    Every record not yet known to be committed is sent (ON CONFLICT DO NOTHING
    makes re-sending harmless); the same statement reports the status of the
    transactions that wrote earlier flushes, and records whose transaction
    committed are forgotten.  In the steady state a call sends its own records
    and those of the call before it."""
    mine = [r for r in _pending if r["owner"] == owner]
    mine_sources = [s for s in _sources if s["owner"] == owner]
    if not mine and not mine_sources:
        return
    old = sorted({r["_xid"] for r in mine + mine_sources if r["_xid"]})
    row = db.one(plpy, _FLUSH, ("text", "text", "text[]"),
                 (json.dumps([{k: r[k] for k in _COLUMNS} for r in mine]),
                  json.dumps([{k: v for k, v in s.items() if k != "_xid"} for s in mine_sources]),
                  old))
    committed = {x for x, st in json.loads(row["statuses"] or "{}").items() if st == "committed"}
    _forget(lambda r: r["owner"] == owner and r["_xid"] in committed)
    for r in mine + mine_sources:
        r["_xid"] = row["xid"]


_STATUS = """select (select pg_catalog.json_object_agg(x::text, pg_catalog.pg_xact_status(x))
                       from pg_catalog.unnest($1::xid8[]) x)::text as s"""


def _statuses(plpy, records) -> dict:
    """committed / aborted / in progress for the transactions that wrote ``records``."""
    xids = sorted({r["_xid"] for r in records if r["_xid"]})
    if not xids:
        return {}
    return json.loads(db.one(plpy, _STATUS, ("text[]",), (xids,))["s"] or "{}")


def _unwritten(rec, statuses) -> bool:
    return rec["_xid"] is None or statuses.get(rec["_xid"]) == "aborted"


def _forget(predicate):
    _pending[:] = [r for r in _pending if not predicate(r)]
    _sources[:] = [s for s in _sources if not predicate(s)]


def pending(plpy, owner: str) -> list[dict]:
    """This owner's records that are in no committed row yet (never written,
    or written by a transaction that rolled back), for user_cloud_ai_calls."""
    mine = [r for r in _pending if r["owner"] == owner]
    statuses = _statuses(plpy, mine)
    return [{**{k: r[k] for k in _COLUMNS},
             "created": datetime.fromtimestamp(r["created"], timezone.utc).isoformat()}
            for r in mine if _unwritten(r, statuses)]
