"""Run an accepted query: read-only, as the caller, bounded, and undone.

The query (``sqlguard.Checked.sql``) is first analysed by PostgreSQL as a
temporary view that ``resolve.checked_view`` verifies by OID (what every name
resolved to); the rows are then read from that view, so what runs is what was
checked.  The read happens inside ``dbms_cloud_ai._run_readonly``,
a SECURITY INVOKER PL/pgSQL function that makes the transaction read-only for
the length of the call (PL/Python would lose the setting: every plpy.execute
runs in its own subtransaction, whose end restores it), sets the caller's
search_path, and returns each row as JSON text up to a row and a byte limit.
That call runs in a subtransaction this module always rolls back, so whatever
slipped through -- a setting changed with set_config, a NOTIFY, a transaction
advisory lock -- is undone, and the caller's transaction is as it was; session
advisory locks taken by the query are released by the helper.

Limits (settings, any role may lower or raise them within the hard caps):

* ``statement_timeout`` must be set, and at most
  ``dbms_cloud_ai.max_statement_timeout`` (default 5min): PostgreSQL cannot
  stop a query any other way once it runs, so without one we refuse to start.
* ``dbms_cloud_ai.max_rows`` (default 1000, at most 1,000,000) and
  ``dbms_cloud_ai.max_result_bytes`` (default 1MB, at most 256MB): a larger
  result is cut and a WARNING says so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .. import db, settings
from ..errors import NotInPrerequisiteState, ResultTooLarge
from . import resolve


@dataclass
class Limits:
    max_rows: int
    max_bytes: int


@dataclass
class Result:
    """Rows as JSON arrays of [column name, value as JSON text] pairs (the form
    _run_readonly returns: order and repeated names kept, values never parsed)."""

    rows: list[str]
    truncated: str | None      # why rows are missing, or None

    def as_oracle_json(self) -> str:
        """Oracle's pretty JSON: ``[\n  {\n    "key" : value\n  }\n]``; nested
        values (json, arrays of a row) are written as PostgreSQL wrote them."""
        return oracle_json([json.loads(r) for r in self.rows])

    def compact(self) -> list[str]:
        """Each row as a JSON object text, for the model (narrate)."""
        return ["{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + v
                               for k, v in json.loads(r)) + "}" for r in self.rows]


_LIMITS = """
    select pg_catalog.current_setting('statement_timeout') as st,
           pg_catalog.current_setting('dbms_cloud_ai.max_statement_timeout', true) as mst,
           pg_catalog.current_setting('dbms_cloud_ai.max_rows', true) as mr,
           pg_catalog.current_setting('dbms_cloud_ai.max_result_bytes', true) as mb"""


def limits(plpy) -> Limits:
    """Check that the session may run generated SQL now, before any model call."""
    row = db.one(plpy, _LIMITS)
    ceiling = settings.value("dbms_cloud_ai.max_statement_timeout", row["mst"])
    st = settings.seconds(row["st"], "ms")
    if not st:
        raise NotInPrerequisiteState(
            "generated SQL is not run without a statement_timeout",
            detail="statement_timeout is 0 (no limit) in this session; a generated query "
                   "could run for ever.",
            hint="SET statement_timeout = '30s'; (or ask your DBA to set it for your role)")
    if st > ceiling:
        raise NotInPrerequisiteState(
            f"statement_timeout ({row['st']}) is above dbms_cloud_ai.max_statement_timeout "
            f"({ceiling:g}s)",
            hint="Lower it, e.g. SET statement_timeout = '30s';")
    return Limits(settings.value("dbms_cloud_ai.max_rows", row["mr"]),
                  settings.value("dbms_cloud_ai.max_result_bytes", row["mb"]))


class _Undo(Exception):
    """Raised to roll the query's subtransaction back after reading its rows."""


_RUN = "select r from dbms_cloud_ai._run_readonly($1, $2, $3, $4) r"
_HELD = """
    select pg_catalog.array_agg(l.classid || '/' || l.objid || '/' || l.objsubid || '/' || l.mode)
           as held
      from pg_catalog.pg_locks l
     where l.locktype = 'advisory' and l.pid = pg_catalog.pg_backend_pid() and l.granted"""
_RELEASE = "select dbms_cloud_ai._release_advisory_locks($1) as lost"


def path_of(search_path: list[str]) -> str:
    """The search_path generated SQL is analysed and run with: pg_catalog
    first, the caller's schemas, pg_temp last (never first)."""
    return ", ".join(['pg_catalog'] + ['"' + s.replace('"', '""') + '"' for s in search_path]
                     + ['pg_temp'])


def run(plpy, checked, search_path: list[str], lim: Limits, verify: bool = True) -> Result:
    """Rows of ``checked`` (a ``sqlguard.Checked``) as JSON texts.

    Errors of the query (permission denied, statement timeout, division by
    zero) are PostgreSQL errors and pass through with their SQLSTATE; a query
    that resolves to something not allowed is refused (42501) before it runs.
    ``verify`` is off only when the tests switch the validator off
    (actions.VALIDATE): the text then runs as it is, under the same limits."""
    path = path_of(search_path)
    held = db.one(plpy, _HELD)["held"]
    rows = None
    try:
        with plpy.subtransaction():
            if verify:
                query = f"select v.r from {resolve.checked_view(plpy, checked, path)} v"
            else:
                query = resolve.view_body(checked.sql)
            rows = db.query(plpy, _RUN, ("text", "text", "int8", "int8"),
                            (query, path, lim.max_rows, lim.max_bytes))
            raise _Undo()
    except _Undo:
        pass
    finally:
        lost = db.one(plpy, _RELEASE, ("text[]",), (held,))["lost"]
        if lost:
            plpy.warning("generated SQL released advisory locks of yours that another session "
                         "then took: " + ", ".join(lost))
    out = [r["r"] for r in rows]
    truncated = None
    if out and out[-1] is None:
        out.pop()
        if not out:
            raise ResultTooLarge(
                f"the first row of the result is larger than dbms_cloud_ai.max_result_bytes "
                f"({lim.max_bytes})",
                hint="Ask for fewer or shorter columns, or raise it: "
                     "SET dbms_cloud_ai.max_result_bytes = 16777216;")
        truncated = f"the result was cut at {lim.max_bytes} bytes (dbms_cloud_ai.max_result_bytes)"
    elif len(out) > lim.max_rows:
        out = out[:lim.max_rows]
        truncated = f"the result was cut at {lim.max_rows} rows (dbms_cloud_ai.max_rows)"
    if truncated:
        plpy.warning(truncated, hint="Ask a narrower question, or raise the limit.")
    return Result(out, truncated)


# --- Oracle's JSON rendering ---------------------------------------------------

_DECIMAL = re.compile(r"-?[0-9]+\.[0-9]+\Z")


def _value(raw: str) -> str:
    """A value's JSON text; numbers without trailing zeros (21.2, not 21.2000)."""
    if _DECIMAL.match(raw):
        return raw.rstrip("0").rstrip(".")
    return raw


def oracle_json(rows: list[list]) -> str:
    """Rows given as [[key, raw JSON value], ...] lists, laid out as Oracle does."""
    if not rows:
        return "[]"
    objects = []
    for pairs in rows:
        if not pairs:
            objects.append("  {}")
            continue
        items = [f"    {json.dumps(k, ensure_ascii=False)} : {_value(v)}" for k, v in pairs]
        objects.append("  {\n" + ",\n".join(items) + "\n  }")
    return "[\n" + ",\n".join(objects) + "\n]"
