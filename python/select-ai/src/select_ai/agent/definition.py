"""get_definition: the script that recreates an agent object (DBMS_CLOUD_AI_AGENT.GET_DEFINITION)."""

from __future__ import annotations

from select_ai._run import arun, run
from select_ai.agent._object import call

__all__ = ["async_get_definition", "get_definition"]


def _plan(object_type: str, object_name: str):
    topic = str(object_type).lower() if str(object_type).lower() in (
        "agent", "task", "tool", "team") else None
    return (yield call("get_definition", topic, fetch="value", object_type=object_type,
                       object_name=object_name))


def get_definition(object_type: str, object_name: str) -> str | None:
    """The script recreating the AGENT, TASK, TOOL or TEAM of that name."""
    return run(_plan(object_type, object_name))


async def async_get_definition(object_type: str, object_name: str) -> str | None:
    return await arun(_plan(object_type, object_name))
