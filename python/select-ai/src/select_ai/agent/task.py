"""Task, AsyncTask: what an agent is asked to do (DBMS_CLOUD_AI_AGENT CREATE_TASK ...)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass

from select_ai._abc import SelectAIDataClass
from select_ai._run import arun, run
from select_ai.agent._object import AgentObject, AsyncMethods, Kind, SyncMethods
from select_ai.errors import AgentTaskNotFoundError

__all__ = ["AsyncTask", "Task", "TaskAttributes"]


@dataclass
class TaskAttributes(SelectAIDataClass):
    """instruction: what to do ({query} is the user's prompt); tools: the tools' names; input:
    the task whose result this one reads; enable_human_tool: the agent may ask the user."""

    instruction: str
    tools: list[str] | None = None
    input: str | None = None
    enable_human_tool: bool | None = True


class _Task(AgentObject):
    _kind = Kind("task", "task_name", "user_ai_agent_tasks", "user_ai_agent_task_attributes",
                 "task_name", AgentTaskNotFoundError)
    _attributes_class = TaskAttributes

    def __init__(self, task_name: str | None = None, description: str | None = None,
                 attributes: TaskAttributes | None = None):
        self._init(task_name, description, attributes)


class Task(SyncMethods, _Task):
    """An agent task: create, delete, enable, disable, fetch, list, set attributes."""

    @classmethod
    def delete_task(cls, task_name: str, force: bool = False) -> None:
        run(cls._plan_delete(task_name, force))

    @classmethod
    def fetch(cls, task_name: str) -> Task:
        """The saved task (AgentTaskNotFoundError when there is none)."""
        return run(cls._plan_fetch(task_name))

    @classmethod
    def list(cls, task_name_pattern: str | None = ".*") -> Iterator[Task]:
        yield from run(cls._plan_list(task_name_pattern))


class AsyncTask(AsyncMethods, _Task):
    """Task, for asyncio."""

    @classmethod
    async def delete_task(cls, task_name: str, force: bool = False) -> None:
        await arun(cls._plan_delete(task_name, force))

    @classmethod
    async def fetch(cls, task_name: str) -> AsyncTask:
        return await arun(cls._plan_fetch(task_name))

    @classmethod
    async def list(cls, task_name_pattern: str | None = ".*") -> AsyncGenerator[AsyncTask, None]:
        for task in await arun(cls._plan_list(task_name_pattern)):
            yield task
