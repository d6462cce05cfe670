"""generate_detached: every action, with no snapshot and no transaction while
the model answers.

A function waits inside its caller's statement: the statement's snapshot holds
back the xmin horizon of the whole database (VACUUM removes no row version
newer than it, in any table) for as long as the provider takes, and a
transaction that wrote first holds its id too.  The procedure instead commits
before each provider request (llm, embeddings, a location_uri fetch: every
wait goes through http.post_json or http.get, which call ``waiting``) and waits
in a transaction that has neither taken a snapshot nor been given an id.  What
the call wrote before the request is committed then; what it writes after the
answer is committed when the procedure returns, or rolled back on an error
(accounting records survive that: accounting.py, spool.py).

A procedure that commits cannot have a SET clause, so the settings the
functions pin with one (search_path, lock_timeout) are set here for each of its
transactions, with any the caller adds (the memory job runner: the job owner's
role, which a commit would otherwise drop).
"""

from __future__ import annotations

from contextlib import contextmanager

from .. import db
from ..errors import InvalidTransactionTermination

_PIN = """select pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true),
                 pg_catalog.set_config('lock_timeout', '5s', true)"""
_SET = "select pg_catalog.set_config($1, $2, true)"

_active = False   # a detached call is running in this backend
_settings: dict[str, str] = {}   # more transaction settings it keeps


def pin(plpy, settings: dict[str, str] | None = None) -> None:
    """search_path and lock_timeout as the functions' SET clauses have them, and
    ``settings`` (kept for the transactions after each commit of this call)."""
    global _settings
    if settings is not None:
        _settings = dict(settings)
    db.query(plpy, _PIN)
    for name, value in _settings.items():
        db.query(plpy, _SET, ("text", "text"), (name, value))


def run(plpy, fn, *args):
    """``fn(plpy, *args)`` (generate), committing before each model request."""
    begin(plpy)
    try:
        return fn(plpy, *args)
    finally:
        end()


def begin(plpy, settings: dict[str, str] | None = None,
          name: str = "dbms_cloud_ai.generate_detached") -> None:
    """Start a detached call: commit (refused inside a transaction block) and pin."""
    global _active
    start(plpy, name,
          detail="It commits before each model request, so that nothing is held while "
                 "the model answers.",
          hint="CALL it on its own (autocommit, not after BEGIN, not from a function), "
               "or use dbms_cloud_ai.generate() inside the transaction.",
          settings=settings)
    _active = True


def start(plpy, name: str, detail: str, hint: str,
          settings: dict[str, str] | None = None) -> None:
    """The first step of every committing procedure: commit (2D000 inside a
    transaction block, before anything is done or locked) and pin."""
    try:
        # Also ends the CALL's own transaction, which has done nothing yet.
        plpy.commit()
    except plpy.SPIError:
        raise InvalidTransactionTermination(
            f"{name} cannot run inside a transaction block", detail=detail, hint=hint) from None
    pin(plpy, settings or {})


def end() -> None:
    global _active, _settings
    _active, _settings = False, {}


@contextmanager
def waiting(plpy):
    """Around one provider request: in a generate_detached call, commit first
    and wait in a new transaction that holds no snapshot; pin the settings
    again once the answer is in.  Elsewhere nothing happens."""
    if not _active or plpy is None:
        yield
        return
    try:
        plpy.commit()
    except plpy.SPIError as e:
        if getattr(e, "sqlstate", None) != InvalidTransactionTermination.sqlstate:
            raise
        # Reached through SQL the call runs (a view that calls generate(), read by
        # runsql): an atomic context, which waits as generate() does.
        yield
        return
    try:
        yield
    finally:
        pin(plpy)
