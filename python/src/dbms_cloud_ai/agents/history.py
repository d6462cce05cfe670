"""The run history: a row per team run, per task of a run, per tool invocation.

Rows are written through the writer as the run goes.  A run that fails ends its
statement with an error, which rolls those rows back: so each run keeps a copy of
its rows here, and a failed run's copy (state FAILED) stays in the backend's
memory, shown by the history views (``unsaved``) until the next agent call of the
session writes it (``flush``), as accounting keeps the records of a failed
statement.  A run whose backend is gone while RUNNING reads as FAILED in the
views (sql/api/130-agents-run.sql, _agent_run_state).

The memory ends with the backend (a disconnect after a failed run, a
pg_terminate_backend, which ends the process without returning to Python, in
a model wait or in a tool function): so every row a run writes is also appended
to a journal of the backend (model/spool.py: per database and role OID, a
process's end does not undo it), and a run that ends well (SUCCEEDED, or waiting
for a human: its statement returns) is forgotten there.  The next ``flush`` or
``unsaved`` of the same role, in any session, adopts the journals of ended
backends: their runs, FAILED (one left RUNNING: its backend ended mid-run), are
held and journaled as this backend's own until a committed flush writes them
(upserts by team_exec_id).  A live backend's journal is never adopted, and a
role created later under a dropped role's name adopts nothing (another OID).
"""

from __future__ import annotations

import datetime
import json
import os
import time
import uuid
from dataclasses import dataclass, field

from .. import db, writer
from ..model import spool

MAX_TEXT = 1 << 20          # what one history column keeps of a text (1 MiB)
MAX_UNSAVED = 100           # failed runs kept in memory at most

_unsaved: list[dict] = []   # {"owner", "team": row, "tasks": [row], "tools": [row]}

JOURNAL = "runs"            # the journals' folder in the spool (model/spool.py)
COMPACT_LINES = 256         # a journal is rewritten with what it still holds past this
COMPACT_BYTES = 8 << 20     # ... or past this size
MAX_ADOPT_FILES = 16        # journals adopted by one look
MAX_JOURNAL_BYTES = 64 << 20  # what is read of one journal
ADOPT_EVERY = 10.0          # seconds between looks for ended backends' journals
ADOPT_RETRY = 0.5           # ... while some were left (a live backend's, or past the cap)

_live: dict[str, Run] = {}          # this backend's runs in progress, by team_exec_id
_journal_size: dict[str, list] = {}   # journal path -> [lines, bytes] since its last rewrite
_adopted_at: dict[str, float] = {}    # owner -> when its journals were last looked at


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat()


def _clip(text):
    return text if text is None or len(text) <= MAX_TEXT else text[:MAX_TEXT]


@dataclass
class Run:
    """One run's rows as written (the copy kept if it fails)."""

    owner: str
    team: dict
    tasks: dict = field(default_factory=dict)     # task_order -> row
    tools: list = field(default_factory=list)

    @property
    def team_exec_id(self) -> str:
        return self.team["team_exec_id"]


_TEAM_UPSERT = """
    insert into dbms_cloud_ai._agent_team_run
           (team_exec_id, team_owner, team_name, state, start_date, end_date, conversation_id,
            params, user_prompt, pending, error)
    values ($1::uuid, $2, $3, $4, $5::timestamptz, $6::timestamptz, $7::uuid, $8, $9, $10::jsonb, $11)
    on conflict (team_exec_id) do update
       set state = excluded.state, end_date = excluded.end_date, pending = excluded.pending,
           error = excluded.error, backend_pid = pg_catalog.pg_backend_pid()"""
_TEAM_TYPES = ("text",) * 11

_TASK_UPSERT = """
    insert into dbms_cloud_ai._agent_task_run
           (team_exec_id, task_order, agent_name, task_name, conversation_params, input, result,
            state, start_date, end_date)
    values ($1::uuid, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $10::timestamptz)
    on conflict (team_exec_id, task_order) do update
       set result = excluded.result, state = excluded.state, end_date = excluded.end_date,
           input = excluded.input"""
_TASK_TYPES = ("text", "int4") + ("text",) * 8

_TOOL_INSERT = """
    insert into dbms_cloud_ai._agent_tool_run
           (invocation_id, team_exec_id, task_order, tool_name, agent_name, task_name,
            start_date, end_date, input, output, tool_output)
    values ($1::uuid, $2::uuid, $3, $4, $5, $6, $7::timestamptz, $8::timestamptz, $9, $10, $11)
    on conflict (invocation_id) do nothing"""
_TOOL_TYPES = ("text", "text", "int4") + ("text",) * 8


def _write_team(plpy, r: dict) -> None:
    writer.query(plpy, _TEAM_UPSERT, _TEAM_TYPES,
                 (r["team_exec_id"], r["team_owner"], r["team_name"], r["state"], r["start_date"],
                  r["end_date"], r["conversation_id"], r["params"], r["user_prompt"],
                  json.dumps(r["pending"]) if r["pending"] is not None else None, r["error"]))


def _write_task(plpy, t: dict) -> None:
    writer.query(plpy, _TASK_UPSERT, _TASK_TYPES,
                 (t["team_exec_id"], t["task_order"], t["agent_name"], t["task_name"],
                  t["conversation_params"], t["input"], t["result"], t["state"], t["start_date"],
                  t["end_date"]))


def _write_tool(plpy, t: dict) -> None:
    writer.query(plpy, _TOOL_INSERT, _TOOL_TYPES,
                 (t["invocation_id"], t["team_exec_id"], t["task_order"], t["tool_name"],
                  t["agent_name"], t["task_name"], t["start_date"], t["end_date"], t["input"],
                  t["output"], t["tool_output"]))


# --- the journal: a run's rows, past the end of the backend ------------------------------------

def _append(owner: str, lines: list[dict]) -> None:
    path = spool.journal_path(JOURNAL, owner)
    data = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in lines).encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    size = _journal_size.setdefault(path, [0, 0])
    size[0] += len(lines)
    size[1] += len(data)


def _snapshot(team: dict, tasks, tools) -> list[dict]:
    return [{"team": team}, *({"task": t} for t in tasks), *({"tool": t} for t in tools)]


def _jot(run: Run, *lines: dict) -> None:
    _append(run.owner, list(lines))


def _forget(owner: str, ids: list[str]) -> None:
    """Runs now stored or ended well.  The journal is emptied when it holds
    nothing else (the usual case: a run's texts do not stay on disk), and
    rewritten with what it still holds when it has grown long."""
    if not ids:
        return
    path = spool.journal_path(JOURNAL, owner)
    lines, size = _journal_size.get(path, (0, 0))
    others = any(r.owner == owner for r in _live.values()) or any(
        u["owner"] == owner and u["team"]["team_exec_id"] not in ids for u in _unsaved)
    if others and lines + 1 < COMPACT_LINES and size < COMPACT_BYTES:
        _append(owner, [{"forget": i} for i in ids])
        return
    held = [line for r in _live.values() if r.owner == owner
            for line in _snapshot(r.team, r.tasks.values(), r.tools)]
    held += [line for u in _unsaved if u["owner"] == owner and u["team"]["team_exec_id"] not in ids
             for line in _snapshot(u["team"], u["tasks"], u["tools"])]
    data = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in held)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(data)
    os.replace(tmp, path)
    _journal_size[path] = [len(held), len(data)]


_TEAM_KEYS = ("team_exec_id", "owner", "team_owner", "team_name", "state", "start_date",
              "end_date", "conversation_id", "params", "user_prompt", "pending", "error")
_TASK_KEYS = ("team_exec_id", "task_order", "agent_name", "task_name", "conversation_params",
              "input", "result", "state", "start_date", "end_date")
_TOOL_KEYS = ("invocation_id", "owner", "team_exec_id", "task_order", "tool_name", "agent_name",
              "task_name", "start_date", "end_date", "input", "output", "tool_output")


def _fits(row, keys) -> bool:
    """A journal row with every column (a damaged line must not stop adoption)."""
    return isinstance(row, dict) and all(k in row for k in keys) \
        and isinstance(row["team_exec_id"], str) and isinstance(row["start_date"], str)


def _read(path: str, owner: str) -> list[dict]:
    """The runs of ``owner`` a journal holds and has not forgotten, as FAILED."""
    teams: dict[str, dict] = {}
    tasks: dict[str, dict] = {}
    tools: dict[str, dict] = {}
    gone: set[str] = set()
    with open(path, "rb") as f:
        for line in f.read(MAX_JOURNAL_BYTES).splitlines():
            try:
                obj = json.loads(line)
            except ValueError:          # a line cut short when the process ended
                continue
            if not isinstance(obj, dict):
                continue
            # In order: a run forgotten, then failing or resumed, is back.
            if isinstance(i := obj.get("forget"), str):
                gone.add(i)
            elif _fits(t := obj.get("team"), _TEAM_KEYS) and t["owner"] == owner:
                teams[t["team_exec_id"]] = t
                gone.discard(t["team_exec_id"])
            elif _fits(t := obj.get("task"), _TASK_KEYS):
                tasks.setdefault(t["team_exec_id"], {})[t["task_order"]] = t
            elif _fits(t := obj.get("tool"), _TOOL_KEYS):
                tools.setdefault(t["team_exec_id"], {})[t["invocation_id"]] = t
    out = []
    for i, team in teams.items():
        if i in gone:
            continue
        its_tasks = list(tasks.get(i, {}).values())
        its_tools = [t for t in tools.get(i, {}).values() if t.get("owner") == owner]
        if team["state"] != "FAILED":       # its backend ended during the run
            last = max([team["start_date"]] + [t["end_date"] or t["start_date"]
                                               for t in its_tasks + its_tools], key=_instant)
            team.update(state="FAILED", end_date=last, pending=None,
                        error="57P01: the run's session ended before the run")
            for t in its_tasks:
                if t["state"] not in ("SUCCEEDED", "FAILED"):
                    t.update(state="FAILED", end_date=last)
        out.append({"owner": owner, "team": team, "tasks": its_tasks, "tools": its_tools})
    return out


def _instant(text: str) -> datetime.datetime:
    try:
        return datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return datetime.datetime.min.replace(tzinfo=datetime.UTC)


def _adopt(plpy, owner: str) -> None:
    """Hold the runs this role's ended backends left in their journals."""
    last = _adopted_at.get(owner)
    if last is not None and time.monotonic() - last < ADOPT_EVERY:
        return
    spool.init(plpy, owner)
    claimed, left = spool.claim_ended(JOURNAL, owner, MAX_ADOPT_FILES)
    held = {u["team"]["team_exec_id"] for u in _unsaved}
    for path in claimed:
        for u in _read(path, owner):
            if u["team"]["team_exec_id"] in held:
                continue
            held.add(u["team"]["team_exec_id"])
            _append(owner, _snapshot(u["team"], u["tasks"], u["tools"]))
            _unsaved.append(u)
        os.unlink(path)
    del _unsaved[:-MAX_UNSAVED]
    # Journals left (a live backend's, or past the cap): look again soon.
    _adopted_at[owner] = time.monotonic() - (ADOPT_EVERY - ADOPT_RETRY if left else 0)


def start(plpy, owner: str, team_owner: str, team_name: str, conversation_id: str | None,
          params: str | None, user_prompt: str | None) -> Run:
    spool.init(plpy, owner)
    run = Run(owner, {"team_exec_id": str(uuid.uuid4()), "owner": owner, "team_owner": team_owner,
                      "team_name": team_name, "state": "RUNNING", "start_date": _now(),
                      "end_date": None, "conversation_id": conversation_id, "params": params,
                      "user_prompt": _clip(user_prompt), "pending": None, "error": None})
    _live[run.team_exec_id] = run
    _jot(run, {"team": run.team})
    _write_team(plpy, run.team)
    return run


def resume(plpy, owner: str, row: dict) -> Run:
    """A run that waited for a human, read back with its tasks, now RESUMING."""
    team = {k: row[k] for k in ("team_exec_id", "owner", "team_owner", "team_name", "start_date",
                                "end_date", "conversation_id", "params", "user_prompt", "error")}
    team["pending"] = json.loads(row["pending"]) if row["pending"] else None
    team["state"] = "RESUMING"
    run = Run(owner, team)
    for t in db.query(plpy, """
            select team_exec_id::text, task_order, agent_name, task_name, conversation_params,
                   input, result, state, start_date::text, end_date::text
              from dbms_cloud_ai._agent_task_run
             where team_exec_id = $1::uuid and owner = current_user order by task_order""",
                      ("text",), (run.team_exec_id,)):
        run.tasks[t["task_order"]] = dict(t)
    spool.init(plpy, owner)
    _live[run.team_exec_id] = run
    _append(owner, _snapshot(run.team, run.tasks.values(), ()))
    _write_team(plpy, run.team)
    return run


def set_state(plpy, run: Run, state: str, pending: dict | None = None, ended: bool = False) -> None:
    run.team.update(state=state, pending=pending, end_date=_now() if ended else None)
    if state in ("SUCCEEDED", "WAITING_FOR_HUMAN"):     # its statement returns: nothing to keep
        _live.pop(run.team_exec_id, None)
        _forget(run.owner, [run.team_exec_id])
    else:
        _jot(run, {"team": run.team})
    _write_team(plpy, run.team)


def link_prompt(plpy, run: Run, prompt_id: str) -> None:
    """The conversation prompt the run recorded as its turn: memory erasure finds
    the run's copies of an erased prompt by it."""
    writer.query(plpy, """
        update dbms_cloud_ai._agent_team_run
           set conversation_prompt_ids = conversation_prompt_ids operator(pg_catalog.||) $2::uuid
         where team_exec_id = $1::uuid""", ("text", "text"), (run.team_exec_id, prompt_id))


def task(plpy, run: Run, order: int, agent_name: str, task_name: str, state: str,
         input_text: str | None = None, result: str | None = None,
         conversation_params: str | None = None) -> None:
    row = run.tasks.get(order) or {"team_exec_id": run.team_exec_id, "task_order": order,
                                   "agent_name": agent_name, "task_name": task_name,
                                   "conversation_params": conversation_params, "input": None,
                                   "result": None, "start_date": _now(), "end_date": None}
    row.update(state=state, end_date=_now() if state in ("SUCCEEDED", "FAILED") else None)
    if input_text is not None:
        row["input"] = _clip(input_text)
    if result is not None:
        row["result"] = _clip(result)
    run.tasks[order] = row
    _jot(run, {"task": row})
    _write_task(plpy, row)


def wrapped(output: str, ok: bool) -> str:
    """A tool history's ``output``: Oracle's wrapper around what the model was
    given, {"status": "success", "result": "'<value>'"} (the value between single
    quotes, as Oracle shows it; the SDK's test_3304 reads it back so), or
    {"status": "error", "result": "<message>"} for a call that failed."""
    if ok:
        return json.dumps({"status": "success", "result": f"'{output}'"}, ensure_ascii=False)
    return json.dumps({"status": "error", "result": output}, ensure_ascii=False)


def tool(plpy, run: Run | None, owner: str, order: int | None, tool_name: str, agent_name, task_name,
         started: str, input_text: str, output: str, tool_output: str | None,
         invocation_id: str) -> None:
    row = {"invocation_id": invocation_id, "owner": owner,
           "team_exec_id": run.team_exec_id if run else None, "task_order": order,
           "tool_name": tool_name, "agent_name": agent_name, "task_name": task_name,
           "start_date": started, "end_date": _now(), "input": _clip(input_text),
           "output": _clip(output), "tool_output": _clip(tool_output)}
    if run is not None:
        run.tools.append(row)
        _jot(run, {"tool": row})
    _write_tool(plpy, row)


def failed(run: Run, error: BaseException) -> None:
    """Keep the failed run's rows (its statement is about to roll back)."""
    now = _now()
    run.team.update(state="FAILED", end_date=now, pending=None,
                    error=_clip(f"{getattr(error, 'sqlstate', None) or 'XX000'}: {error}"))
    for t in run.tasks.values():
        if t["state"] not in ("SUCCEEDED", "FAILED"):
            t.update(state="FAILED", end_date=now)
    _unsaved.append({"owner": run.owner, "team": run.team, "tasks": list(run.tasks.values()),
                     "tools": list(run.tools)})
    del _unsaved[:-MAX_UNSAVED]
    _live.pop(run.team_exec_id, None)
    try:
        _append(run.owner, _snapshot(run.team, run.tasks.values(), ()))
    except OSError:     # the journal is a second copy: the run's own error goes on
        pass


def flush(plpy, owner: str) -> None:
    """Write the failed runs of ``owner`` this backend still holds (those a committed
    flush wrote are forgotten first)."""
    _adopt(plpy, owner)
    if not _unsaved:
        return
    _forget_written(plpy)
    mine = [u for u in _unsaved if u["owner"] == owner]
    for u in mine:
        _write_team(plpy, u["team"])
        for t in u["tasks"]:
            _write_task(plpy, t)
        for t in u["tools"]:
            _write_tool(plpy, t)
    # Forgotten only when the writes commit: until then the views show both,
    # and a second flush finds the rows there (upserts).
    _committed.extend(u["team"]["team_exec_id"] for u in mine
                      if u["team"]["team_exec_id"] not in _committed)


_committed: list[str] = []


def unsaved(plpy, owner: str, kind: str) -> list[dict]:
    """The rows of ``kind`` (team, task, tool) of failed runs not yet written."""
    _adopt(plpy, owner)
    _forget_written(plpy)
    out = []
    for u in _unsaved:
        if u["owner"] != owner:
            continue
        if kind == "team":
            out.append({**u["team"], "pending": None, "backend_pid": 0, "conversation_prompt_ids": []})
        elif kind == "task":
            out.extend({**t, "owner": owner} for t in u["tasks"])
        else:
            out.extend(u["tools"])
    return out


def _forget_written(plpy) -> None:
    """Drop the held runs that a committed flush has written."""
    if not _committed:
        return
    rows = db.query(plpy, """
        select team_exec_id::text as id from dbms_cloud_ai._agent_team_run
         where team_exec_id = any($1::uuid[]) and state = 'FAILED'""", ("text[]",), (_committed,))
    done = {r["id"] for r in rows}
    for owner in {u["owner"] for u in _unsaved}:
        _forget(owner, [u["team"]["team_exec_id"] for u in _unsaved
                        if u["owner"] == owner and u["team"]["team_exec_id"] in done])
    _unsaved[:] = [u for u in _unsaved if u["team"]["team_exec_id"] not in done]
    _committed[:] = [i for i in _committed if i not in done]
