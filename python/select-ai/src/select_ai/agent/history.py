"""The runs of your teams, their tasks and tool calls (the USER_AI_AGENT_*_HISTORY views),
newest first, as typed events."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from psycopg import sql as pgsql

from select_ai._abc import SelectAIDataClass
from select_ai._run import Sql, arun, run
from select_ai.agent._object import SCHEMA

__all__ = [
    "AsyncTaskHistory", "AsyncTeamHistory", "AsyncToolHistory", "TaskHistory",
    "TaskHistoryEvent", "TeamHistory", "TeamHistoryEvent", "ToolHistory", "ToolHistoryEvent",
]


@dataclass
class TeamHistoryEvent(SelectAIDataClass):
    """One run of a team."""

    team_exec_id: str
    team_name: str
    state: str
    start_date: datetime | None = None
    end_date: datetime | None = None
    conversation_id: str | None = None
    params: str | None = None


@dataclass
class TaskHistoryEvent(SelectAIDataClass):
    """One task of a run."""

    team_exec_id: str
    team_name: str
    task_order: int | None
    agent_name: str
    task_name: str | None
    conversation_params: str | None
    input: str | None
    result: str | None
    state: str
    start_date: datetime | None
    end_date: datetime | None


@dataclass
class ToolHistoryEvent(SelectAIDataClass):
    """One tool call of a run; input and output parsed when they are JSON."""

    invocation_id: int | str   # Oracle's is a number, the extension's a UUID: kept as read
    team_exec_id: str
    task_order: int | None
    tool_name: str | None
    agent_name: str | None
    task_name: str | None
    start_date: datetime | None
    end_date: datetime | None
    input: Any | None
    output: Any | None
    tool_output: str | None

    def __post_init__(self):
        super().__post_init__()
        self.input, self.output = _json(self.input), _json(self.output)


def _json(value):
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def _check_limit(limit) -> None:
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValueError("'limit' must be a positive integer or None")


def _plan(view: str, event_type: type, filters: dict, limit):
    """The view's rows matching the filters given (None: any), newest first."""
    _check_limit(limit)
    columns = [f.name for f in fields(event_type)]
    given = {k: v for k, v in filters.items() if v is not None}
    where = pgsql.SQL(" AND ").join(
        pgsql.SQL("{} = {}").format(pgsql.Identifier(k), pgsql.Placeholder(k)) for k in given)
    text = pgsql.SQL("SELECT {} FROM {} WHERE {} ORDER BY start_date DESC NULLS LAST LIMIT {}").format(
        pgsql.SQL(", ").join(map(pgsql.Identifier, columns)), pgsql.Identifier(SCHEMA, view),
        where if given else pgsql.SQL("true"), pgsql.Placeholder("limit"))
    rows = yield Sql(text, {**given, "limit": limit}, fetch="all")
    return [event_type(*row) for row in rows]


class TeamHistory:
    @classmethod
    def list(cls, team_name: str | None = None, team_exec_id: str | None = None,
             limit: int | None = None) -> Iterator[TeamHistoryEvent]:
        yield from run(_team(team_name, team_exec_id, limit))


class TaskHistory:
    @classmethod
    def list(cls, team_name: str | None = None, task_name: str | None = None,
             agent_name: str | None = None, team_exec_id: str | None = None,
             limit: int | None = None) -> Iterator[TaskHistoryEvent]:
        yield from run(_task(team_name, task_name, agent_name, team_exec_id, limit))


class ToolHistory:
    @classmethod
    def list(cls, tool_name: str | None = None, task_name: str | None = None,
             agent_name: str | None = None, team_exec_id: str | None = None,
             limit: int | None = None) -> Iterator[ToolHistoryEvent]:
        yield from run(_tool(tool_name, task_name, agent_name, team_exec_id, limit))


class AsyncTeamHistory:
    @classmethod
    async def list(cls, team_name: str | None = None, team_exec_id: str | None = None,
                   limit: int | None = None) -> AsyncGenerator[TeamHistoryEvent, None]:
        for event in await arun(_team(team_name, team_exec_id, limit)):
            yield event


class AsyncTaskHistory:
    @classmethod
    async def list(cls, team_name: str | None = None, task_name: str | None = None,
                   agent_name: str | None = None, team_exec_id: str | None = None,
                   limit: int | None = None) -> AsyncGenerator[TaskHistoryEvent, None]:
        for event in await arun(_task(team_name, task_name, agent_name, team_exec_id, limit)):
            yield event


class AsyncToolHistory:
    @classmethod
    async def list(cls, tool_name: str | None = None, task_name: str | None = None,
                   agent_name: str | None = None, team_exec_id: str | None = None,
                   limit: int | None = None) -> AsyncGenerator[ToolHistoryEvent, None]:
        for event in await arun(_tool(tool_name, task_name, agent_name, team_exec_id, limit)):
            yield event


def _team(team_name, team_exec_id, limit):
    return _plan("user_ai_agent_team_history", TeamHistoryEvent,
                 {"team_name": team_name, "team_exec_id": team_exec_id}, limit)


def _task(team_name, task_name, agent_name, team_exec_id, limit):
    return _plan("user_ai_agent_task_history", TaskHistoryEvent,
                 {"team_name": team_name, "task_name": task_name, "agent_name": agent_name,
                  "team_exec_id": team_exec_id}, limit)


def _tool(tool_name, task_name, agent_name, team_exec_id, limit):
    return _plan("user_ai_agent_tool_history", ToolHistoryEvent,
                 {"tool_name": tool_name, "task_name": task_name, "agent_name": agent_name,
                  "team_exec_id": team_exec_id}, limit)
