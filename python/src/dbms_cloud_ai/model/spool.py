"""What was sent to a provider, kept where the caller's transaction cannot undo it.

A request is spent once it is sent, whatever the caller's transaction does
next: ROLLBACK, a read-only transaction, a one-shot statement that fails, a
reconnect.  The extension's tables are transactional, so three stores live
outside them, in the server's data directory (a backend's working directory),
where no SQL role can read or write (only the server's OS user):

- **Spend counters**: per database, UTC day and principal (a role, or PUBLIC
  for the whole database), the tokens of every request sent while a budget
  applied.  ``reserve`` checks a budget and reserves a request's estimate in one
  step under an exclusive ``flock``, so concurrent sessions cannot both pass the
  last room; ``settle`` replaces the estimate with the tokens recorded.
- **Call journals**: per backend and owner, the accounting records this
  backend holds that are not yet known to be stored (``accounting._pending``),
  appended as JSON lines, in a folder of the owner's role OID and name.  A
  record is a line of its values in FIELDS order (a JSON array: it is written
  on every call, and an object with its 19 keys took three times as long to
  encode).  When a
  backend has ended (reconnect, crash, a terminated session), the next flush
  of the same role, in any backend, adopts its journal and stores the records.

- **Run journals** (``journal_path``, ``claim_ended``): the same per-backend,
  per-role-OID files for the run history of agents (agents/history.py, which
  writes and reads them), in a folder ``runs`` beside ``calls``.

All survive the end of a process, not the loss of the operating system's
page cache (no fsync: that would cost every call a disk flush).  The directory
can be moved with the server's environment variable DBMS_CLOUD_AI_SPOOL_DIR.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time

from .. import db

JOURNAL_COMPACT_LINES = 64     # rewrite a journal when it has this many lines
KEEP_DAYS = 3                  # spend counters of older UTC days are removed

_dboid: int | None = None
_me: str | None = None         # "<pid>-<process start time>" of this backend


def _root() -> str:
    return os.environ.get("DBMS_CLOUD_AI_SPOOL_DIR") or os.path.join(os.getcwd(),
                                                                      "dbms_cloud_ai_spool")


def init(plpy, owner: str | None = None) -> None:
    """Learn this backend's database (once): every store is per database; and
    the OID of ``owner``: a journal belongs to the role, not to its name (a role
    created later under a dropped role's name must not adopt its records)."""
    global _dboid
    if _dboid is None:
        _dboid = db.one(plpy, "select oid::int8 as oid from pg_catalog.pg_database "
                              "where datname operator(pg_catalog.=) pg_catalog.current_database()")["oid"]
    if owner is not None and owner not in _role_oids:
        row = db.one(plpy, "select pg_catalog.to_regrole(pg_catalog.quote_ident($1))::oid::int8 as oid",
                     ("text",), (owner,))
        _role_oids[owner] = row["oid"] if row and row["oid"] is not None else 0


_role_oids: dict[str, int] = {}


def _database() -> int:
    if _dboid is None:
        raise RuntimeError("spool.init(plpy) was not called in this backend")
    return _dboid


def _name(principal: str) -> str:
    """A principal (any role name) as a file name."""
    return principal.encode().hex() or "00"


def _mkdir(path: str) -> None:
    os.makedirs(path, mode=0o700, exist_ok=True)


# --- spend counters -----------------------------------------------------------------------------

def _day(now: float | None = None) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() if now is None else now))


def _counter(day: str, principal: str) -> str:
    d = os.path.join(_root(), str(_database()), "spend", day)
    if not os.path.isdir(d):
        _mkdir(d)
        _prune(os.path.dirname(d), day)
    return os.path.join(d, _name(principal))


def _prune(spend_dir: str, today: str) -> None:
    keep = {_day(time.time() - 86400 * i) for i in range(KEEP_DAYS)} | {today}
    for entry in os.scandir(spend_dir):
        if entry.name not in keep:
            shutil.rmtree(entry.path, ignore_errors=True)


class _Locked:
    """An exclusively locked counter file (a 20-digit number, rewritten in place)."""

    def __init__(self, path: str):
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)

    def __enter__(self):
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        raw = os.pread(self.fd, 32, 0).strip()
        self.value = int(raw) if raw.isdigit() else 0
        return self

    def write(self, value: int) -> None:
        self.value = max(0, value)
        os.pwrite(self.fd, b"%020d\n" % self.value, 0)

    def __exit__(self, *exc):
        os.close(self.fd)     # releases the lock


def reserve(plpy, limits: dict[str, tuple[int, int]], estimate: int):
    """For each principal with a budget: ``limits[p] = (limit, used)``, ``used``
    from the tables.  Spent today is the larger of the counter and ``used``
    (the tables also hold calls made while no budget applied).  Returns the
    reservation to settle, or ``(principal, limit, spent)`` of the first budget
    the estimate would exceed (nothing is reserved then)."""
    init(plpy)
    day = _day()
    order = sorted(limits)           # always locked in the same order: no deadlock
    paths = [_counter(day, p) for p in order]
    held: list[_Locked] = []
    try:
        for path in paths:
            held.append(_Locked(path).__enter__())
        for p, lk in zip(order, held):
            limit, used = limits[p]
            spent = max(lk.value, used)
            if spent + estimate > limit:
                return None, (p, limit, spent)
        for p, lk in zip(order, held):
            lk.write(max(lk.value, limits[p][1]) + estimate)
    finally:
        for lk in held:
            lk.__exit__()
    return (paths, estimate), None


def settle(reservation, tokens: int) -> None:
    """Replace a reservation's estimate by the tokens the request was recorded with."""
    paths, estimate = reservation
    if tokens == estimate:
        return
    for path in paths:
        with _Locked(path) as lk:
            lk.write(lk.value + tokens - estimate)


# --- call journals ------------------------------------------------------------------------------

def _start_time(pid: int) -> str | None:
    """The process's start time (clock ticks since boot), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return stat.rsplit(b")", 1)[1].split()[19].decode()


def _self() -> str:
    global _me
    if _me is None:
        _me = f"{os.getpid()}-{_start_time(os.getpid())}"
    return _me


def _alive(prefix: str) -> bool:
    pid, _, start = prefix.partition("-")
    return pid.isdigit() and _start_time(int(pid)) == start


def _journal_dir(owner: str, kind: str = "calls") -> str:
    return os.path.join(_root(), str(_database()), kind,
                        f"{_role_oids.get(owner, 0)}-{_name(owner)}")


# A call record's fields, in the order of its journal line (and of accounting's INSERT).
FIELDS = ("call_id", "owner", "created", "profile_name", "action", "purpose", "provider",
          "model", "prompt_version", "input_tokens", "output_tokens", "tokens_estimated",
          "latency_ms", "attempts", "status", "error_sqlstate", "http_status",
          "conversation_id", "conversation_prompt_id")

_ENCODE = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
_lines: dict[str, int] = {}    # journal path -> lines written since its last rewrite
_fds: dict[str, int] = {}      # journal path -> its descriptor, open for appending
_paths: dict[str, str] = {}    # owner -> this backend's journal of the owner
_forgets: dict[str, list[str]] = {}   # journal path -> call ids stored, not yet written


def _journal(owner: str) -> str:
    path = _paths.get(owner)
    if path is None:
        d = _journal_dir(owner)
        path = os.path.join(d, _self() + ".jsonl")
        _mkdir(d)
        _lines.setdefault(path, 0)
        _paths[owner] = path
    return path


def _append(path: str, objs: list[dict]) -> None:
    """One write(2) of whole lines, the stored calls not yet written first; the
    descriptor stays open (an open and a close per call cost more than the write)."""
    ids = _forgets.pop(path, None)
    if ids:
        objs = [{"forget": ids}, *objs]
    data = "".join(_ENCODE(o) + "\n" for o in objs).encode()
    fd = _fds.get(path)
    if fd is None:
        fd = _fds[path] = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.write(fd, data)
    _lines[path] = _lines.get(path, 0) + len(objs)


def _close(path: str) -> None:
    fd = _fds.pop(path, None)
    if fd is not None:
        os.close(fd)


def journal(owner: str, records: list[dict]) -> None:
    """Append records this backend now holds for ``owner``."""
    _append(_journal(owner), [_line(r) for r in records])


def forget(owner: str, call_ids: list[str], still_held: list[dict]) -> None:
    """Records now known to be stored.  Their ids go into the journal with its
    next append (one write per call): until then an adopter would only store
    them again, which their primary key ignores.  The journal is rewritten
    with the records still held when it has grown long."""
    path = _journal(owner)
    if _lines[path] + 1 < JOURNAL_COMPACT_LINES:
        _forgets.setdefault(path, []).extend(call_ids)
        return
    _forgets.pop(path, None)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.writelines(_ENCODE(_line(r)) + "\n" for r in still_held)
    _close(path)          # the descriptor would go on writing to the replaced file
    os.replace(tmp, path)
    _lines[path] = len(still_held)


def _line(rec: dict) -> list:
    return [rec[k] for k in FIELDS]


def _record(obj) -> dict | None:
    """A journal line's record: an array in FIELDS order (or an object, as
    journals written before the array form were)."""
    if isinstance(obj, list):
        return dict(zip(FIELDS, obj)) if len(obj) == len(FIELDS) else None
    return obj if isinstance(obj, dict) and "forget" not in obj else None


def adopt(owner: str) -> list[dict]:
    """The records of ``owner`` that ended backends held and never stored.

    A journal is claimed by renaming it into this backend's name, so two
    backends never adopt the same one; if this backend ends before the adopted
    records are journaled as its own, the claimed file is adopted again later
    (a record stored twice is ignored: call ids are the primary key)."""
    d = _journal_dir(owner)
    try:
        entries = [e.name for e in os.scandir(d)]
    except FileNotFoundError:
        return []
    mine = _self()
    out: dict[str, dict] = {}
    for name in entries:
        prefix = name.split(".", 1)[0]
        if prefix == mine or _alive(prefix):
            continue
        claimed = os.path.join(d, f"{mine}.adopted-{name}")
        try:
            os.rename(os.path.join(d, name), claimed)
        except FileNotFoundError:       # another backend claimed it first
            continue
        forgotten: set[str] = set()
        records: dict[str, dict] = {}
        with open(claimed, "rb") as f:
            for line in f:
                try:
                    obj = json.loads(line)
                except ValueError:      # a line cut short when the process ended
                    continue
                if isinstance(obj, dict) and "forget" in obj:
                    forgotten.update(obj["forget"])
                elif (rec := _record(obj)) and rec.get("owner") == owner and rec.get("call_id"):
                    records[rec["call_id"]] = rec
        found = [{**rec, "_xid": None} for cid, rec in records.items()
                 if cid not in forgotten and cid not in out]
        if found:
            journal(owner, found)
            out.update((r["call_id"], r) for r in found)
        os.unlink(claimed)
    return list(out.values())


# --- other journals (the run history: agents/history.py) ----------------------------------------

def journal_path(kind: str, owner: str) -> str:
    """This backend's journal of ``kind`` for ``owner`` (a folder per role OID,
    as the call journals), its folder made."""
    d = _journal_dir(owner, kind)
    _mkdir(d)
    return os.path.join(d, _self() + ".jsonl")


def claim_ended(kind: str, owner: str, max_files: int) -> tuple[list[str], bool]:
    """Claim (rename into this backend's name, as ``adopt``) at most ``max_files``
    journals of ``kind`` that ended backends left for ``owner``; the caller reads
    and removes them.  Also says whether any were left (a live backend's, or
    past the cap): a later look should not wait."""
    d = _journal_dir(owner, kind)
    try:
        entries = sorted(e.name for e in os.scandir(d))
    except FileNotFoundError:
        return [], False
    mine = _self()
    claimed: list[str] = []
    left = False
    for name in entries:
        prefix = name.split(".", 1)[0]
        if prefix == mine:
            continue
        if _alive(prefix) or len(claimed) >= max_files:
            left = True
            continue
        dst = os.path.join(d, f"{mine}.adopted-{name}")
        try:
            os.rename(os.path.join(d, name), dst)
        except FileNotFoundError:       # another backend claimed it first
            continue
        claimed.append(dst)
    return claimed, left
