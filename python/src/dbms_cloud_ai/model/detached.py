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

A commit never changes who the call acts for.  A transaction-local role (SET
LOCAL ROLE, as PostgREST runs each request) or a transaction-local end user
(set_end_user(..., is_local => true)) ends with the transaction, so after the
first commit the rest of the call would resolve the profile, send the key and
run the model's SQL as the session user.  PostgreSQL shows no difference
between SET and SET LOCAL before the commit, so the identity (current_user's
OID and the signed end-user setting) is taken before the first commit and
compared after every commit, before anything else runs in the new transaction
(after a provider request: once the answer is in, as the wait must take no
snapshot, and the request was made before the commit): a change ends the call
with 2D000.  Only an empty transaction has then been committed by us (the
CALL's own, or the work its caller's DO block did before it: documented).
"""

from __future__ import annotations

from contextlib import contextmanager

from .. import db
from ..errors import InvalidTransactionTermination

_PIN = """select pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true),
                 pg_catalog.set_config('lock_timeout', '5s', true)"""
_SET = "select pg_catalog.set_config($1, $2, true)"

_IDENTITY = """select (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user)::int8 as who,
                      current_user::text as name,
                      pg_catalog.current_setting('dbms_cloud_ai.end_user', true) as end_user"""

_active = False   # a detached call is running in this backend
_settings: dict[str, str] = {}   # more transaction settings it keeps
_identity = ""                   # who the call acts for (identity())
_name = ""                       # the procedure, for errors


def pin(plpy, settings: dict[str, str] | None = None) -> None:
    """search_path and lock_timeout as the functions' SET clauses have them, and
    ``settings`` (kept for the transactions after each commit of this call)."""
    global _settings
    if settings is not None:
        _settings = dict(settings)
    db.query(plpy, _PIN)
    for name, value in _settings.items():
        db.query(plpy, _SET, ("text", "text"), (name, value))


def identity(plpy) -> str:
    """Who a call acts for, as one comparable value: the current role's OID and
    the end user it asserted (the setting, signed for this role and backend)."""
    row = db.one(plpy, _IDENTITY)
    return f"{row['who']}:{row['name']}:{row['end_user'] or ''}"


def require_identity(plpy, expected: str, name: str) -> None:
    """After a commit: 2D000 unless the call still acts for ``expected``."""
    now = identity(plpy)
    if now == expected:
        return
    was, is_ = expected.split(":", 2), now.split(":", 2)
    what = (f"role {was[1]} (it would continue as {is_[1]})" if was[:2] != is_[:2]
            else "the end user set with set_end_user")
    raise InvalidTransactionTermination(
        f"{name} cannot continue: its commit ended the transaction-local {what}",
        detail="A commit ends SET LOCAL ROLE, set_config('role', ..., true) and "
               "set_end_user(..., is_local => true); the rest of the call would have acted "
               "for someone else.",
        hint="SET ROLE and call dbms_cloud_ai.set_end_user() for the session before the CALL, "
             "or call dbms_cloud_ai.generate() inside the transaction.")


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
          detail="It commits before each model request, so that nothing is held while the "
                 "model answers.",
          hint="CALL it on its own (autocommit, not after BEGIN, not from a function), or use "
               "dbms_cloud_ai.generate() inside the transaction.",
          settings=settings)
    _active = True


def start(plpy, name: str, detail: str, hint: str,
          settings: dict[str, str] | None = None) -> None:
    """The first step of every committing procedure: commit (2D000 inside a
    transaction block, before anything is done or locked), require the identity
    the call began with, and pin.  Its later commits go through recommit."""
    global _identity, _name
    who = identity(plpy)
    try:
        # Also ends the CALL's own transaction, which has done nothing yet.
        plpy.commit()
    except plpy.SPIError:
        raise InvalidTransactionTermination(
            f"{name} cannot run inside a transaction block", detail=detail, hint=hint) from None
    require_identity(plpy, who, name)
    _identity, _name = who, name      # before the pin, which may fail (a job owner's role)
    pin(plpy, settings or {})


def recommit(plpy, rollback: bool = False, settings: dict[str, str] | None = None) -> None:
    """A later commit (or rollback) of a procedure that began with start(): end the
    transaction, require the identity the procedure began with (2D000), pin again
    (``settings``: replace those kept)."""
    if rollback:
        plpy.rollback()
    else:
        plpy.commit()
    require_identity(plpy, _identity, _name)
    pin(plpy, settings)


def end() -> None:
    """The detached call is over (its identity stays for recommit's last use: the
    memory runner records a failed job after rolling it back)."""
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
        # Once the answer is in, before anything else runs in this transaction
        # (the wait itself takes no snapshot: a query here would) and before the
        # settings are pinned again (the memory runner's pin sets the job
        # owner's role): the identity the call began with, or 2D000.
        require_identity(plpy, _identity, _name)
        pin(plpy)
