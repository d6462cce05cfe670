"""Run an accepted query: read-only, as the caller, bounded, and undone.

The query (``sqlguard.Checked.sql``) runs inside ``dbms_cloud_ai._run_readonly``,
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
from dataclasses import dataclass
from decimal import Decimal

from . import db
from .errors import InvalidParameter, NotInPrerequisiteState
from .llm import _seconds

DEFAULT_MAX_STATEMENT_TIMEOUT = 300.0
DEFAULT_MAX_ROWS = 1000
HARD_MAX_ROWS = 1_000_000
DEFAULT_MAX_BYTES = 1 << 20
HARD_MAX_BYTES = 256 << 20

@dataclass
class Limits:
    max_rows: int
    max_bytes: int


@dataclass
class Result:
    rows: list[str]            # each row as JSON object text, columns in query order
    truncated: str | None      # why rows are missing, or None

    def as_oracle_json(self) -> str:
        return oracle_json([json.loads(r, object_pairs_hook=_Pairs, parse_float=Decimal)
                            for r in self.rows])


_LIMITS = """
    select pg_catalog.current_setting('statement_timeout') as st,
           pg_catalog.current_setting('dbms_cloud_ai.max_statement_timeout', true) as mst,
           pg_catalog.current_setting('dbms_cloud_ai.max_rows', true) as mr,
           pg_catalog.current_setting('dbms_cloud_ai.max_result_bytes', true) as mb"""


def _setting_int(raw, name, default, hard_max, example):
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= hard_max:
        raise InvalidParameter(f"invalid dbms_cloud_ai.{name} {raw!r}",
                               detail=f"Use a whole number from 1 to {hard_max}.",
                               hint=f"SET dbms_cloud_ai.{name} = {example};")
    return value


def limits(plpy) -> Limits:
    """Check that the session may run generated SQL now, before any model call."""
    row = db.one(plpy, _LIMITS)
    ceiling = DEFAULT_MAX_STATEMENT_TIMEOUT
    if row["mst"]:
        ceiling = _seconds(row["mst"], "ms")
        if not ceiling or ceiling <= 0:
            raise InvalidParameter(f"invalid dbms_cloud_ai.max_statement_timeout {row['mst']!r}",
                                   hint="SET dbms_cloud_ai.max_statement_timeout = '5min';")
    st = _seconds(row["st"], "ms")
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
    return Limits(_setting_int(row["mr"], "max_rows", DEFAULT_MAX_ROWS, HARD_MAX_ROWS, 1000),
                  _setting_int(row["mb"], "max_result_bytes", DEFAULT_MAX_BYTES, HARD_MAX_BYTES,
                               1048576))


class _Undo(Exception):
    """Raised to roll the query's subtransaction back after reading its rows."""


_RUN = "select r from dbms_cloud_ai._run_readonly($1, $2, $3, $4) r"
_HELD = """
    select pg_catalog.array_agg(l.classid || '/' || l.objid || '/' || l.objsubid || '/' || l.mode)
           as held
      from pg_catalog.pg_locks l
     where l.locktype = 'advisory' and l.pid = pg_catalog.pg_backend_pid() and l.granted"""
_RELEASE = "select dbms_cloud_ai._release_advisory_locks($1) as n"


def run(plpy, sql: str, search_path: list[str], lim: Limits) -> Result:
    """Rows of ``sql`` (already accepted by sqlguard) as JSON texts.

    Errors of the query (permission denied, statement timeout, division by
    zero) are PostgreSQL errors and pass through with their SQLSTATE."""
    path = ", ".join(['pg_catalog'] + ['"' + s.replace('"', '""') + '"' for s in search_path]
                     + ['pg_temp'])
    held = db.one(plpy, _HELD)["held"]
    rows = None
    try:
        with plpy.subtransaction():
            rows = db.query(plpy, _RUN, ("text", "text", "int8", "int8"),
                            (sql, path, lim.max_rows, lim.max_bytes))
            raise _Undo()
    except _Undo:
        pass
    finally:
        db.query(plpy, _RELEASE, ("text[]",), (held,))
    out = [r["r"] for r in rows]
    truncated = None
    if out and out[-1] is None:
        out.pop()
        truncated = f"the result was cut at {lim.max_bytes} bytes (dbms_cloud_ai.max_result_bytes)"
    elif len(out) > lim.max_rows:
        out = out[:lim.max_rows]
        truncated = f"the result was cut at {lim.max_rows} rows (dbms_cloud_ai.max_rows)"
    if truncated:
        plpy.warning(truncated, hint="Ask a narrower question, or raise the limit.")
    return Result(out, truncated)


# --- Oracle's JSON rendering ---------------------------------------------------

class _Pairs(list):
    """A JSON object as its key/value pairs: keeps order and repeated keys."""

    def __init__(self, pairs):
        super().__init__(pairs)


def oracle_json(rows: list) -> str:
    """``[\\n  {\\n    "key" : value\\n  }\\n]``: Oracle's pretty JSON."""
    return _render(rows, 0)


def _render(value, depth: int) -> str:
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(value, _Pairs):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)} : {_render(v, depth + 1)}"
                 for k, v in value]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(inner + _render(v, depth + 1) for v in value) + "\n" + pad + "]"
    if isinstance(value, Decimal):  # Oracle prints 21.2, not 21.2000000000000000
        text = format(value, "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    return json.dumps(value, ensure_ascii=False)
