"""Prepared statements through plpy, planned once per backend.

Plans are cached by SQL text.  PostgreSQL re-plans a cached plan by itself when
the role changes under row-level security, so one cache serves every role.
"""

from __future__ import annotations

_plans: dict[str, object] = {}


def query(plpy, sql: str, types: tuple[str, ...] = (), args: tuple = ()):
    """Run ``sql`` (with $n placeholders) as a prepared statement; return rows."""
    plan = _plans.get(sql)
    if plan is None:
        plan = plpy.prepare(sql, list(types))
        _plans[sql] = plan
    return plpy.execute(plan, list(args))


def one(plpy, sql: str, types: tuple[str, ...] = (), args: tuple = ()):
    """The first row of ``query`` or None."""
    rows = query(plpy, sql, types, args)
    return rows[0] if rows.nrows() else None


def current_user(plpy) -> str:
    """The role running the statement (the caller, in SECURITY INVOKER functions)."""
    return one(plpy, "select current_user::text as u")["u"]


def spi_detail_hint(e) -> tuple[str | None, str | None]:
    """The DETAIL and HINT of a plpy.SPIError (its ``spidata`` is (sqlstate,
    detail, hint, ...); absent on errors plpy raised itself)."""
    spidata = getattr(e, "spidata", None)
    if isinstance(spidata, tuple) and len(spidata) > 2:
        return spidata[1], spidata[2]
    return None, None
