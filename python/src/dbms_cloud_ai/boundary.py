"""The SQL boundary: turn our exceptions into PostgreSQL errors with a SQLSTATE."""

from __future__ import annotations

import functools

from . import db, role_binding
from .errors import DcaError, LockNotAvailable

_error_classes: dict[int, type] = {}


def _error_class(plpy):
    """A plpy.Error subclass named after the extension.

    PL/Python prints an escaping exception as "<type>: <message>"; with this
    class the client sees "dbms_cloud_ai: profile ... does not exist" instead of
    "plpy.Error: ...", and the sqlstate/detail/hint attributes become the
    error's fields (attributes left unset never show up as "None")."""
    cls = _error_classes.get(id(plpy.Error))
    if cls is None:
        cls = type("dbms_cloud_ai", (plpy.Error,), {"__module__": "builtins"})
        _error_classes[id(plpy.Error)] = cls
    return cls


def raise_sql_error(plpy, sqlstate, message, detail=None, hint=None):
    err = _error_class(plpy)(message)
    err.sqlstate = sqlstate
    if detail:
        err.detail = detail
    if hint:
        err.hint = hint
    raise err


def _stale_role(plpy):
    """On "does not exist", the documented error instead when the caller is a later
    role of a dropped role's name (its rows are hidden, not missing): only failed
    calls pay for the look-up."""
    try:
        role_binding.check(plpy)
    except DcaError as e:
        return e
    except plpy.SPIError:
        return None
    return None


def sql_entry(func):
    """Decorate a function called from a PL/Python body.

    A DcaError becomes an error with its SQLSTATE, detail and hint.
    PostgreSQL's own errors (plpy.SPIError, including query cancellation) keep
    their SQLSTATE, message, detail and hint; raised again in our class, so the
    client reads "dbms_cloud_ai: canceling statement due to statement timeout"
    rather than PL/Python's "spiexceptions.QueryCanceled: ...".  Anything else is a bug: it
    is reported as XX000 with only the exception's type, since its text could
    carry request data.
    """

    @functools.wraps(func)
    def wrapper(plpy, *args, **kwargs):
        try:
            return func(plpy, *args, **kwargs)
        except DcaError as e:
            if e.sqlstate == "42704":
                e = _stale_role(plpy) or e
            raise_sql_error(plpy, e.sqlstate, e.message, e.detail, e.hint)
        except plpy.SPIError as e:
            if getattr(e, "sqlstate", None) == LockNotAvailable.sqlstate:
                raise_sql_error(
                    plpy, LockNotAvailable.sqlstate,
                    f"{func.__name__}: another session holds a lock on a dbms_cloud_ai table",
                    detail="The extension's functions wait at most lock_timeout (5s) for a lock.",
                    hint="Retry; an administrator finds the holder with pg_blocking_pids() "
                         "and pg_locks.")
            sqlstate = getattr(e, "sqlstate", None)
            if not sqlstate:
                raise
            detail, hint = db.spi_detail_hint(e)
            raise_sql_error(plpy, sqlstate, str(e.args[0] if e.args else e), detail, hint)
        except Exception as e:  # noqa: BLE001 - last line of defence
            raise_sql_error(plpy, "XX000", f"internal error in {func.__name__}",
                            detail=type(e).__name__, hint="Report this as a bug in dbms_cloud_ai.")

    return wrapper
