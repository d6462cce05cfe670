"""Agent, AsyncAgent: an actor with a role, which asks its AI profile's model (DBMS_CLOUD_AI_AGENT
CREATE_AGENT ...)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from dataclasses import dataclass

from select_ai._abc import SelectAIDataClass
from select_ai._run import arun, run
from select_ai.agent._object import AgentObject, AsyncMethods, Kind, SyncMethods
from select_ai.errors import AgentNotFoundError

__all__ = ["Agent", "AgentAttributes", "AsyncAgent"]


@dataclass
class AgentAttributes(SelectAIDataClass):
    """profile_name: the AI profile whose model the agent asks; role: sent to the model;
    enable_human_tool: the agent may ask the user; supervisor: it supervises a team's agents."""

    profile_name: str
    role: str
    enable_human_tool: bool | None = True
    supervisor: bool | None = None


class _Agent(AgentObject):
    _kind = Kind("agent", "agent_name", "user_ai_agents", "user_ai_agent_attributes", "agent_name",
                 AgentNotFoundError)
    _attributes_class = AgentAttributes

    def __init__(self, agent_name: str | None = None, description: str | None = None,
                 attributes: AgentAttributes | None = None):
        self._init(agent_name, description, attributes)


class Agent(SyncMethods, _Agent):
    """An AI agent: create, delete, enable, disable, fetch, list, set attributes."""

    @classmethod
    def delete_agent(cls, agent_name: str, force: bool | None = False) -> None:
        run(cls._plan_delete(agent_name, force))

    @classmethod
    def fetch(cls, agent_name: str) -> Agent:
        """The saved agent (AgentNotFoundError when there is none)."""
        return run(cls._plan_fetch(agent_name))

    @classmethod
    def list(cls, agent_name_pattern: str | None = ".*") -> Iterator[Agent]:
        """Your agents whose name matches the regular expression (case-insensitive)."""
        yield from run(cls._plan_list(agent_name_pattern))


class AsyncAgent(AsyncMethods, _Agent):
    """Agent, for asyncio."""

    @classmethod
    async def delete_agent(cls, agent_name: str, force: bool | None = False) -> None:
        await arun(cls._plan_delete(agent_name, force))

    @classmethod
    async def fetch(cls, agent_name: str) -> AsyncAgent:
        return await arun(cls._plan_fetch(agent_name))

    @classmethod
    async def list(cls, agent_name_pattern: str | None = ".*") -> AsyncGenerator[AsyncAgent, None]:
        for agent in await arun(cls._plan_list(agent_name_pattern)):
            yield agent
