"""Every write an API call makes to the extension's tables (issue 14, class 2).

Ordinary roles hold no INSERT, UPDATE or DELETE on the tables: they could
otherwise forge rows (accounting that lifts a budget), take locks that block
everyone (LOCK TABLE needs only a write privilege) or probe unique keys.  The
package's write statements run inside ``dbms_cloud_ai._write``, a SECURITY
DEFINER function owned by the NOLOGIN role dbms_cloud_ai_owner, and nothing
crosses that boundary as SQL text or arguments:

- ``query`` (the caller's side) puts the statement, its parameters and a
  one-time random token in this module's memory, and runs ``_CALL``, which
  passes the caller's name (``current_user``), binding and OID, evaluated in
  the caller's own context before the call switches roles;
- ``perform`` (the owner's side) runs only the statement the package put
  there, once, for the token it was given, so the other arguments are the
  package's.  A role calling ``_write`` from SQL holds no token (42501); no SQL
  role can read or change the package's memory (PL/Python is untrusted: only
  superusers create functions in it).

Inside, the caller's name is also the setting ``dbms_cloud_ai.caller`` (set by
``_CALL``, local to the transaction) and ``dbms_cloud_ai._caller()`` returns
it, as the owner role only (a role that sets the setting itself changes
nothing: none of its code runs as the owner): the write statements, column
defaults and the owner role's row-level security policies
(in each table's schema file, sql/schema/) use it where they would use ``current_user``.
The caller's name must be bound to its role (sql/schema/012-role-binding.sql):
checked on every write.

Administrators' cross-owner functions (erasure, purge of every role's expired
conversations, drop_role_data, host ACEs, budgets, prices) keep running with
their own table privileges, under the administrators' policies.
"""

from __future__ import annotations

import secrets

from . import db
from .errors import InsufficientPrivilege

# The package's call of the writer.  Evaluated in the caller's own context, before
# the call switches to dbms_cloud_ai_owner: current_user is the caller; the
# setting _caller() reads inside is set to it by this same statement, with
# nothing of the caller's run in between (every name is qualified); and the
# caller's binding (its row, which it may read and not write) and OID come
# along, so the writer checks the binding on every write without a query of
# its own (a binding seen once cannot be remembered: the transaction that
# made it may still roll back).
_CALL = """
    select dbms_cloud_ai._write($1, current_user,
                                (select b.role_oid from dbms_cloud_ai._role_binding b
                                  where b.role_name = current_user),
                                pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid)
      from (select pg_catalog.set_config('dbms_cloud_ai.caller', current_user, true)) s"""

# A role's first write binds its name to its OID (also used by role_binding.bind_principal).
BIND = """
    insert into dbms_cloud_ai._role_binding (role_name, role_oid) values ($1, $2)
    on conflict (role_name) do nothing"""

_READ_ONLY = "select pg_catalog.current_setting('transaction_read_only') = 'on' as read_only"
_CUSTOM_PLAN = "select pg_catalog.set_config('plan_cache_mode', 'force_custom_plan', true)"
_pending: dict | None = None      # the one write the package is making now
# Tokens: a secret of this backend (never shown anywhere) and a counter, so no
# two writes share one and none can be guessed, without a system call per write.
_secret = secrets.token_hex(16)
_count = 0


def query(plpy, sql: str, types: tuple[str, ...] = (), args: tuple = (),
          custom_plan: bool = False):
    """Run one write statement (``$n`` parameters) as dbms_cloud_ai_owner on
    behalf of the calling role; its rows, like ``db.query``.  custom_plan: plan
    it for its parameters' values (``_write`` pins generic plans, which cannot
    use a partial index: vector_indexes/ann.py)."""
    global _pending, _count
    if "current_user" in sql:   # there it is dbms_cloud_ai_owner: name _caller() instead
        raise ValueError("a write statement names current_user")
    if _pending is not None:
        raise InsufficientPrivilege("dbms_cloud_ai writes cannot nest",
                                    hint="Report this as a bug of dbms_cloud_ai.")
    _count += 1
    token = f"{_secret}-{_count}"
    _pending = {"token": token, "sql": sql, "types": types, "args": args, "rows": None,
                "custom_plan": custom_plan}
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


def perform(plpy, token, caller, bound, mine) -> None:
    """The owner's side (``dbms_cloud_ai._write``): run the pending statement
    for ``caller`` if ``token`` is its token.  The token proves that the call is
    the package's own ``_CALL``, so the other arguments are what it computed."""
    p = _pending
    if p is None or token is None or caller is None or p.get("taken") \
            or not secrets.compare_digest(token, p["token"]):
        raise InsufficientPrivilege("dbms_cloud_ai._write is internal",
                                    hint="Tables of dbms_cloud_ai are written by its API "
                                         "functions only.")
    p["taken"] = True
    if bound is None:
        # The first write: bound now (or by a concurrent first write of the same
        # role, which the insert policy lets bind the name to its own OID only).
        # Not in a read-only transaction (a standby's too): a write fails there
        # anyway, and the one read made through this path, a grantee's read of
        # its owner's credential, needs no binding (the name has no rows yet).
        if not db.one(plpy, _READ_ONLY)["read_only"]:
            db.query(plpy, BIND, ("name", "oid"), (caller, mine))
    elif bound != mine:
        raise stale_error(caller)
    if p["custom_plan"]:    # until _write returns (its SET clause restores the setting)
        db.query(plpy, _CUSTOM_PLAN)
    if p["sql"]:
        p["rows"] = db.query(plpy, p["sql"], p["types"], p["args"])


# Here, not in role_binding.py (which writes through this module): the writer refuses
# a caller whose name is bound to another role with the same error as role_binding.check.
def stale_error(who: str) -> InsufficientPrivilege:
    return InsufficientPrivilege(
        f"role {who} is not the role that stored the dbms_cloud_ai rows of that name",
        detail="A role of this name was dropped; its rows are kept apart from this role.",
        hint=f"An administrator removes them with dbms_cloud_ai.drop_role_data('{who}') "
             f"(or, after a restore into another cluster, re-binds them with "
             f"dbms_cloud_ai.rebind_role('{who}')).")
