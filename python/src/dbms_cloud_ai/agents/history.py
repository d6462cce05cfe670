"""The run history: a row per team run, per task of a run, per tool invocation.

Rows are written through the writer as the run goes.  A run that fails ends its
statement with an error, which rolls those rows back: so each run keeps a copy of
its rows here, and a failed run's copy (state FAILED) stays in the backend's
memory, shown by the history views (``unsaved``) until the next agent call of the
session writes it (``flush``), as accounting keeps the records of a failed
statement.  A run whose backend is gone while RUNNING reads as FAILED in the
views (sql/api/130-agents-run.sql, _agent_run_state).
"""

from __future__ import annotations

import datetime
import json
import uuid
from dataclasses import dataclass, field

from .. import db, writer

MAX_TEXT = 1 << 20          # what one history column keeps of a text (1 MiB)
MAX_UNSAVED = 100           # failed runs kept in memory at most

_unsaved: list[dict] = []   # {"owner", "team": row, "tasks": [row], "tools": [row]}


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


def start(plpy, owner: str, team_owner: str, team_name: str, conversation_id: str | None,
          params: str | None, user_prompt: str | None) -> Run:
    run = Run(owner, {"team_exec_id": str(uuid.uuid4()), "owner": owner, "team_owner": team_owner,
                      "team_name": team_name, "state": "RUNNING", "start_date": _now(),
                      "end_date": None, "conversation_id": conversation_id, "params": params,
                      "user_prompt": _clip(user_prompt), "pending": None, "error": None})
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
    _write_team(plpy, run.team)
    return run


def set_state(plpy, run: Run, state: str, pending: dict | None = None, ended: bool = False) -> None:
    run.team.update(state=state, pending=pending, end_date=_now() if ended else None)
    _write_team(plpy, run.team)


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


def flush(plpy, owner: str) -> None:
    """Write the failed runs of ``owner`` this backend still holds (those a committed
    flush wrote are forgotten first)."""
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
    _forget_written(plpy)
    out = []
    for u in _unsaved:
        if u["owner"] != owner:
            continue
        if kind == "team":
            out.append({**u["team"], "pending": None, "backend_pid": 0})
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
    _unsaved[:] = [u for u in _unsaved if u["team"]["team_exec_id"] not in done]
    _committed[:] = [i for i in _committed if i not in done]
