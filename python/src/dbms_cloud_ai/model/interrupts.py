"""PostgreSQL's interrupts, seen from Python code that waits on the network.

A backend's signal handlers only set flags (``QueryCancelPending`` for
pg_cancel_backend and statement_timeout, ``ProcDiePending`` for
pg_terminate_backend, ``InterruptPending`` for any of them); the server acts on
them at its next CHECK_FOR_INTERRUPTS, which Python code waiting in a socket
read never reaches.  The HTTP layer's watchdog thread therefore looks here
every 100 ms while a request waits (``pending``, ``stopping``: plain reads, safe
from any thread).  The flags are ``volatile sig_atomic_t`` globals exported by
the postgres binary: reading one is a plain load, as the server's own code does.

When something is pending, ``service`` runs a trivial query: the executor's
CHECK_FOR_INTERRUPTS raises PostgreSQL's own error (57014 for a cancel or a
statement timeout), or ends the backend (terminate, client gone).  Only the
backend's own thread may call it (it uses plpy).

The client connection is checked too, as client_connection_check_interval
would: a client that went away while the call waited ends the backend at once,
not at the call's deadline.
"""

from __future__ import annotations

import select
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .. import db
from ..errors import FeatureNotSupported
from ..lazy import LazyModule

if TYPE_CHECKING:   # the same module, for tools that read imports (lazy.py)
    import ctypes
else:   # only a wait longer than one poll interval needs it (cold start)
    ctypes = LazyModule("ctypes", package=None)

_flags = None        # {name: ctypes.c_int}, or {} outside a backend
_client_fd = None    # the client socket's descriptor, or None (no client: background worker)
_FLAGS = ("InterruptPending", "QueryCancelPending", "ProcDiePending", "ClientConnectionLost")
# Client gone: the peer closed (RDHUP), or the socket broke.
_GONE = getattr(select, "POLLRDHUP", 0) | select.POLLHUP | select.POLLERR | select.POLLNVAL


def _load():
    """Find the flags (once; the watchdog thread or the backend's may be first)."""
    global _flags, _client_fd
    try:
        lib = ctypes.CDLL(None)
        flags = {name: ctypes.c_int.in_dll(lib, name) for name in _FLAGS}
        port = ctypes.c_void_p.in_dll(lib, "MyProcPort").value
    except (OSError, ValueError):  # not inside a postgres backend (unit tests)
        _flags = {}
        return
    if port:
        # struct Port starts with "pgsocket sock" (libpq/libpq-be.h)
        _client_fd = ctypes.c_int.from_address(port).value
    _flags = flags


def _client_gone() -> bool:
    if _client_fd is None or _client_fd < 0:
        return False
    p = select.poll()
    p.register(_client_fd, _GONE)
    try:
        return any(ev & _GONE for _, ev in p.poll(0))
    except OSError:
        return False


def pending() -> bool:
    """Whether the server has an interrupt to act on, or the client went away."""
    if _flags is None:
        _load()
    if not _flags:
        return False
    if _flags["InterruptPending"].value:
        return True
    if _client_gone():
        # What PostgreSQL's own connection check does when it finds the client gone.
        _flags["ClientConnectionLost"].value = 1
        _flags["InterruptPending"].value = 1
        return True
    return False


def stopping() -> bool:
    """Whether the pending interrupt ends the statement (cancel, statement
    timeout) or the backend (terminate, client gone), rather than being one
    the server handles and goes on (a barrier, a memory-context dump)."""
    if _flags is None:
        _load()
    return bool(_flags) and any(_flags[n].value for n in _FLAGS[1:])


def service(plpy) -> None:
    """Let PostgreSQL act on what is pending: a trivial query reaches
    CHECK_FOR_INTERRUPTS, which raises the server's own error or exits."""
    db.one(plpy, "select 1 as x")


# TimeoutId STATEMENT_TIMEOUT (utils/timeout.h) is 3 from PostgreSQL 9.3 through 18:
# every reason added since (STANDBY_LOCK_TIMEOUT, IDLE_*, TRANSACTION_TIMEOUT in 17, ...)
# comes after it.  The majors read from the sources are these; another is refused
# rather than arming whatever timer its enum has at 3.
_STATEMENT_TIMEOUT = 3
CHECKED_MAJORS = range(13, 19)
_timer = None        # the backend's library, once its version and functions are checked


def _statement_timer():
    """The server's timer functions (timeout.c), or 0A000 on a server whose TimeoutId
    was not checked or that lacks them (get_timeout_active: PostgreSQL 14 on)."""
    global _timer
    if _timer is not None:
        return _timer
    lib = ctypes.CDLL(None)
    lib.GetConfigOption.restype = ctypes.c_char_p
    lib.GetConfigOption.argtypes = [ctypes.c_char_p, ctypes.c_bool, ctypes.c_bool]
    raw = lib.GetConfigOption(b"server_version_num", True, False)
    major = int(raw) // 10000 if raw and raw.isdigit() else None
    if major not in CHECKED_MAJORS:
        raise FeatureNotSupported(
            f"a tool's time limit cannot be armed on PostgreSQL {major or 'of unknown version'}",
            detail="Its statement timer's id was checked for PostgreSQL "
                   f"{CHECKED_MAJORS[0]} to {CHECKED_MAJORS[-1]} only.",
            hint="Run the extension on a checked PostgreSQL version.")
    try:
        lib.get_timeout_active.restype = ctypes.c_bool
        lib.get_timeout_finish_time.restype = ctypes.c_int64
        for name in ("enable_timeout_after", "enable_timeout_at", "disable_timeout"):
            getattr(lib, name)
    except AttributeError as e:
        raise FeatureNotSupported(f"a tool's time limit cannot be armed on PostgreSQL {major}: "
                                  f"the server has no {e.args[0] if e.args else 'timer function'}",
                                  hint="Use PostgreSQL 14 or later.") from None
    _timer = lib
    return lib


@contextmanager
def time_limit(seconds: float):
    """Cancel what runs inside after ``seconds`` (57014, as statement_timeout does),
    then put the statement's own timeout back as it was, however the block ends.
    Setting statement_timeout inside a statement changes nothing until the next
    top-level statement, so the server's timer is armed directly (timeout.c);
    outside a backend, no limit; on a server not checked, 0A000 before anything runs."""
    if _flags is None:
        _load()
    if not _flags:
        yield
        return
    lib = _statement_timer()
    was_active = lib.get_timeout_active(_STATEMENT_TIMEOUT)
    finish = lib.get_timeout_finish_time(_STATEMENT_TIMEOUT) if was_active else None
    try:
        lib.enable_timeout_after(_STATEMENT_TIMEOUT, ctypes.c_int(max(1, int(seconds * 1000))))
        if was_active and lib.get_timeout_finish_time(_STATEMENT_TIMEOUT) > finish:
            lib.enable_timeout_at(_STATEMENT_TIMEOUT, ctypes.c_int64(finish))  # the earlier stands
        yield
    finally:
        if was_active:
            lib.enable_timeout_at(_STATEMENT_TIMEOUT, ctypes.c_int64(finish))
        else:
            lib.disable_timeout(_STATEMENT_TIMEOUT, ctypes.c_bool(False))
