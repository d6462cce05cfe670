"""Every write an API call makes to the extension's tables (issue 14, class 2).

Ordinary roles hold no INSERT, UPDATE or DELETE on the tables: they could
otherwise forge rows (accounting that lifts a budget), take locks that block
everyone (LOCK TABLE needs only a write privilege) or probe unique keys.  The
package's write statements run inside ``dbms_cloud_ai._write``, a SECURITY
DEFINER function owned by the NOLOGIN role dbms_cloud_ai_owner, and nothing
crosses that boundary as SQL text or arguments:

- ``query`` (the caller's side) puts the statement, its parameters and a
  one-time random token in this module's memory, and runs
  ``select dbms_cloud_ai._write(token, current_user)``: the caller's name is
  evaluated in the caller's own context, before the call switches roles;
- ``perform`` (the owner's side) runs only the statement the package put
  there, once, for the token it was given, so the name is the package's.  A role calling ``_write`` from SQL
  holds no token (42501); no SQL role can read or change the package's memory
  (PL/Python is untrusted: only superusers create functions in it).

Inside, the caller's name is the setting ``dbms_cloud_ai.caller`` (local to
``_write``, which resets it on entry) and ``dbms_cloud_ai._caller()`` returns
it, as the owner role only: the write statements, column defaults and the
owner role's row-level security policies (sql/schema/099-writer.sql) use it
where they would use ``current_user``.  The caller's name must be bound to its
role (sql/schema/097-role-binding.sql): checked here on every write.

Administrators' cross-owner functions (erasure, purge of every role's expired
conversations, drop_role_data, host ACEs, budgets, prices) keep running with
their own table privileges, under the administrators' policies.
"""

from __future__ import annotations

import secrets

from . import db
from .errors import InsufficientPrivilege

# The caller, for _caller(); and the caller's name bound to its role, binding it
# on its first write, in one statement on every write.  (A binding seen once
# cannot be remembered: the transaction that made it may still roll back.)
_CALLER = """
    with caller as (
        select pg_catalog.set_config('dbms_cloud_ai.caller', $1, true)::name as name,
               (select r.oid from pg_catalog.pg_roles r where r.rolname = $1) as oid),
    bound as (select b.role_oid from dbms_cloud_ai._role_binding b where b.role_name = $1),
    new as (
        insert into dbms_cloud_ai._role_binding (role_name, role_oid)
        select c.name, c.oid from caller c where not exists (select from bound)
        on conflict (role_name) do nothing
        returning role_oid)
    select coalesce((select n.role_oid from new n), (select b.role_oid from bound b)) as bound,
           (select c.oid from caller c) as mine"""

# current_user is an argument of the call, so it is evaluated in the caller's
# own context (the function runs as dbms_cloud_ai_owner).
_CALL = "select dbms_cloud_ai._write($1, current_user)"

_pending: dict | None = None      # the one write the package is making now


def query(plpy, sql: str, types: tuple[str, ...] = (), args: tuple = ()):
    """Run one write statement (``$n`` parameters) as dbms_cloud_ai_owner on
    behalf of the calling role; its rows, like ``db.query``."""
    global _pending
    if "current_user" in sql:   # there it is dbms_cloud_ai_owner: name _caller() instead
        raise ValueError("a write statement names current_user")
    if _pending is not None:
        raise InsufficientPrivilege("dbms_cloud_ai writes cannot nest",
                                    hint="Report this as a bug of dbms_cloud_ai.")
    token = secrets.token_hex(16)
    _pending = {"token": token, "sql": sql, "types": types, "args": args, "rows": None}
    try:
        db.query(plpy, _CALL, ("text",), (token,))
        return _pending["rows"]
    finally:
        _pending = None


def one(plpy, sql: str, types: tuple[str, ...] = (), args: tuple = ()):
    """The first row of ``query`` or None."""
    rows = query(plpy, sql, types, args)
    return rows[0] if rows.nrows() else None


def bind(plpy) -> None:
    """Bind the caller's name to its role now (a write that writes nothing else)."""
    query(plpy, "")


def perform(plpy, token, caller) -> None:
    """The owner's side (``dbms_cloud_ai._write``): run the pending statement
    for ``caller`` if ``token`` is its token.  The token proves that the call is
    the package's own ``_CALL``, whose second argument is current_user."""
    p = _pending
    if p is None or token is None or caller is None or p.get("taken") \
            or not secrets.compare_digest(token, p["token"]):
        raise InsufficientPrivilege("dbms_cloud_ai._write is internal",
                                    hint="Tables of dbms_cloud_ai are written by its API "
                                         "functions only.")
    p["taken"] = True
    row = db.one(plpy, _CALLER, ("text",), (caller,))
    if row["mine"] is None or row["bound"] != row["mine"]:
        from .roles import stale_error
        raise stale_error(caller)
    if p["sql"]:
        p["rows"] = db.query(plpy, p["sql"], p["types"], p["args"])
