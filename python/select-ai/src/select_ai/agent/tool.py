"""Tool, AsyncTool: what an agent may use: a built-in tool (SQL, RAG, web search, notification,
HTTP, human) or a PL/SQL function of the user's (DBMS_CLOUD_AI_AGENT CREATE_TOOL ...)."""

from __future__ import annotations

import enum
import json
from collections.abc import AsyncGenerator, Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

from select_ai._abc import SelectAIDataClass
from select_ai._run import arun, run
from select_ai.agent._object import AgentObject, AsyncMethods, Kind, SyncMethods, call
from select_ai.errors import AgentToolNotFoundError

__all__ = [
    "AsyncTool",
    "EmailNotificationToolParams",
    "HTTPToolParams",
    "HumanToolParams",
    "NotificationToolParams",
    "NotificationType",
    "RAGToolParams",
    "SQLToolParams",
    "SlackNotificationToolParams",
    "Tool",
    "ToolAttributes",
    "ToolParams",
    "ToolType",
    "WebSearchToolParams",
]


class NotificationType(enum.StrEnum):
    SLACK = "slack"
    EMAIL = "email"


class ToolType(enum.StrEnum):
    """The built-in tools."""

    HUMAN = "HUMAN"
    HTTP = "HTTP"
    RAG = "RAG"
    SQL = "SQL"
    WEBSEARCH = "WEBSEARCH"
    NOTIFICATION = "NOTIFICATION"


@dataclass
class ToolParams(SelectAIDataClass):
    """The tool_params of a built-in tool; each subclass names the ones its type needs."""

    _REQUIRED_FIELDS: ClassVar[list[str] | None] = None

    credential_name: str | None = None
    endpoint: str | None = None
    notification_type: NotificationType | None = None
    profile_name: str | None = None
    recipient: str | None = None
    sender: str | None = None
    channel: str | None = None
    smtp_host: str | None = None
    subject: str | None = None

    def __post_init__(self):
        super().__post_init__()
        for name in self._REQUIRED_FIELDS or ():
            if getattr(self, name) is None:
                raise AttributeError(f"Required field '{name}' not found.")

    @classmethod
    def create(cls, *, tool_type: ToolType | None = None, **kwargs) -> ToolParams:
        """The params class of the tool type (or notification type) with these values."""
        params_class = _PARAMS_OF_TYPE.get(_tool_type(tool_type), ToolParams)
        notification = kwargs.get("notification_type")
        if notification is not None and str(notification).lower() in _NOTIFICATION_PARAMS:
            params_class = _NOTIFICATION_PARAMS[str(notification).lower()]
        return params_class(**kwargs)

    @classmethod
    def keys(cls) -> set[str]:
        return set(ToolParams.__dataclass_fields__) - {"_REQUIRED_FIELDS"}


@dataclass
class SQLToolParams(ToolParams):
    _REQUIRED_FIELDS = ["profile_name"]


@dataclass
class RAGToolParams(ToolParams):
    _REQUIRED_FIELDS = ["profile_name"]


@dataclass
class NotificationToolParams(ToolParams):
    pass


@dataclass
class SlackNotificationToolParams(NotificationToolParams):
    _REQUIRED_FIELDS = ["credential_name", "channel"]
    notification_type: NotificationType | None = NotificationType.SLACK


@dataclass
class EmailNotificationToolParams(NotificationToolParams):
    _REQUIRED_FIELDS = ["credential_name", "recipient", "sender", "smtp_host"]
    notification_type: NotificationType | None = NotificationType.EMAIL


@dataclass
class WebSearchToolParams(ToolParams):
    _REQUIRED_FIELDS = ["credential_name"]


@dataclass
class HumanToolParams(ToolParams):
    pass


@dataclass
class HTTPToolParams(ToolParams):
    _REQUIRED_FIELDS = ["credential_name", "endpoint"]


_PARAMS_OF_TYPE = {
    ToolType.NOTIFICATION: NotificationToolParams, ToolType.HTTP: HTTPToolParams,
    ToolType.RAG: RAGToolParams, ToolType.SQL: SQLToolParams,
    ToolType.WEBSEARCH: WebSearchToolParams, ToolType.HUMAN: HumanToolParams,
}
_NOTIFICATION_PARAMS = {"slack": SlackNotificationToolParams, "email": EmailNotificationToolParams}


def _tool_type(value) -> ToolType | str | None:
    """A ToolType for the names Oracle knows, in any case; anything else as it is."""
    if value is None or isinstance(value, ToolType):
        return value
    try:
        return ToolType(str(value).upper())
    except ValueError:
        return value


@dataclass
class ToolAttributes(SelectAIDataClass):
    """instruction: goes into the prompt; function: the PL/SQL function of a custom tool;
    tool_params: a built-in tool's parameters; tool_inputs: [{name, description}, ...]."""

    instruction: str | None = None
    function: str | None = None
    tool_params: ToolParams | None = None
    tool_inputs: list[Mapping] | None = None
    tool_type: ToolType | None = None

    def __post_init__(self):
        super().__post_init__()
        self.tool_type = _tool_type(self.tool_type)

    def dict(self, exclude_null: bool = True) -> dict:
        out = {}
        for key, value in self.__dict__.items():
            if value is None and exclude_null:
                continue
            out[key] = value.dict(exclude_null=exclude_null) if isinstance(value, ToolParams) else value
        return out

    @classmethod
    def create(cls, **kwargs) -> ToolAttributes:
        """From the attribute view's rows: tool_params as JSON text, or its keys one by one."""
        attributes, params = {}, {}
        for key, value in kwargs.items():
            if key in ToolParams.keys():
                params[key] = value
            elif key == "tool_params":
                if value is not None:
                    params = json.loads(value) if isinstance(value, str) else dict(value)
            elif key in cls.__dataclass_fields__:
                attributes[key] = value
        params = {k: v for k, v in params.items() if k in ToolParams.keys()}
        attributes["tool_params"] = ToolParams.create(tool_type=attributes.get("tool_type"), **params)
        return cls(**attributes)


class _Tool(AgentObject):
    _kind = Kind("tool", "tool_name", "user_ai_agent_tools", "user_ai_agent_tool_attributes",
                 "tool_name", AgentToolNotFoundError)
    _attributes_class = ToolAttributes

    def __init__(self, tool_name: str | None = None, description: str | None = None,
                 attributes: ToolAttributes | None = None):
        self._init(tool_name, description, attributes)

    @classmethod
    def _from_rows(cls, rows: dict):
        return ToolAttributes.create(**{k.lower(): v for k, v in rows.items()}) if rows else None

    @classmethod
    def _built_in(cls, tool_name, tool_params, tool_type, description, instruction):
        if not isinstance(tool_params, ToolParams):
            raise TypeError("'tool_params' must be an object of type select_ai.agent.ToolParams")
        return cls(tool_name=tool_name, description=description,
                   attributes=ToolAttributes(tool_params=tool_params, tool_type=tool_type,
                                             instruction=instruction))

    def _plan_run_tool(self, input: str):
        return (yield call("run_tool", "tool", fetch="value", tool_name=self.tool_name,
                           input=input))

    def _plan_describe(self):
        return (yield call("describe_tool", "tool", fetch="value", tool_name=self.tool_name))


def _email(credential_name, recipient, sender, smtp_host, subject):
    return EmailNotificationToolParams(credential_name=credential_name, recipient=recipient,
                                       sender=sender, smtp_host=smtp_host, subject=subject)


class Tool(SyncMethods, _Tool):
    """An agent tool: the create_*_tool constructors, delete, enable, disable, fetch, list,
    set attributes, run_tool and describe_tool."""

    @classmethod
    def create_built_in_tool(cls, tool_name: str, tool_params: ToolParams, tool_type: ToolType,
                             description: str | None = None, replace: bool | None = False,
                             instruction: str | None = None) -> Tool:
        tool = cls._built_in(tool_name, tool_params, tool_type, description, instruction)
        tool.create(replace=replace)
        return tool

    @classmethod
    def create_email_notification_tool(cls, tool_name: str, credential_name: str, recipient: str,
                                       sender: str, smtp_host: str, description: str | None,
                                       subject: str | None = None, replace: bool = False,
                                       instruction: str | None = None) -> Tool:
        return cls.create_built_in_tool(
            tool_name, _email(credential_name, recipient, sender, smtp_host, subject),
            ToolType.NOTIFICATION, description, replace, instruction)

    @classmethod
    def create_pl_sql_tool(cls, tool_name: str, function: str, description: str | None = None,
                           replace: bool = False, instruction: str | None = None) -> Tool:
        tool = cls(tool_name=tool_name, description=description,
                   attributes=ToolAttributes(function=function, instruction=instruction))
        tool.create(replace=replace)
        return tool

    @classmethod
    def create_rag_tool(cls, tool_name: str, profile_name: str, description: str | None = None,
                        replace: bool = False, instruction: str | None = None) -> Tool:
        return cls.create_built_in_tool(tool_name, RAGToolParams(profile_name=profile_name),
                                        ToolType.RAG, description, replace, instruction)

    @classmethod
    def create_sql_tool(cls, tool_name: str, profile_name: str, description: str | None = None,
                        replace: bool = False, instruction: str | None = None) -> Tool:
        return cls.create_built_in_tool(tool_name, SQLToolParams(profile_name=profile_name),
                                        ToolType.SQL, description, replace, instruction)

    @classmethod
    def create_slack_notification_tool(cls, tool_name: str, credential_name: str, channel: str,
                                       description: str | None = None, replace: bool = False,
                                       instruction: str | None = None) -> Tool:
        params = SlackNotificationToolParams(credential_name=credential_name, channel=channel)
        return cls.create_built_in_tool(tool_name, params, ToolType.NOTIFICATION, description,
                                        replace, instruction)

    @classmethod
    def create_websearch_tool(cls, tool_name: str, credential_name: str, description: str | None,
                              replace: bool = False, instruction: str | None = None) -> Tool:
        params = WebSearchToolParams(credential_name=credential_name)
        return cls.create_built_in_tool(tool_name, params, ToolType.WEBSEARCH, description,
                                        replace, instruction)

    @classmethod
    def delete_tool(cls, tool_name: str, force: bool = False) -> None:
        run(cls._plan_delete(tool_name, force))

    def run_tool(self, input: str) -> str | None:
        """Run this tool directly on an input (JSON text of its arguments); its result."""
        return run(self._plan_run_tool(input))

    def describe_tool(self) -> str | None:
        """This tool's metadata, as JSON text."""
        return run(self._plan_describe())

    @classmethod
    def fetch(cls, tool_name: str) -> Tool:
        """The saved tool (AgentToolNotFoundError when there is none)."""
        return run(cls._plan_fetch(tool_name))

    @classmethod
    def list(cls, tool_name_pattern: str = ".*") -> Iterator[Tool]:
        yield from run(cls._plan_list(tool_name_pattern))


class AsyncTool(AsyncMethods, _Tool):
    """Tool, for asyncio."""

    @classmethod
    async def create_built_in_tool(cls, tool_name: str, tool_params: ToolParams,
                                   tool_type: ToolType, description: str | None = None,
                                   replace: bool | None = False,
                                   instruction: str | None = None) -> AsyncTool:
        tool = cls._built_in(tool_name, tool_params, tool_type, description, instruction)
        await tool.create(replace=replace)
        return tool

    @classmethod
    async def create_email_notification_tool(cls, tool_name: str, credential_name: str,
                                             recipient: str, sender: str, smtp_host: str,
                                             description: str | None, subject: str | None = None,
                                             replace: bool = False,
                                             instruction: str | None = None) -> AsyncTool:
        return await cls.create_built_in_tool(
            tool_name, _email(credential_name, recipient, sender, smtp_host, subject),
            ToolType.NOTIFICATION, description, replace, instruction)

    @classmethod
    async def create_pl_sql_tool(cls, tool_name: str, function: str,
                                 description: str | None = None, replace: bool = False,
                                 instruction: str | None = None) -> AsyncTool:
        tool = cls(tool_name=tool_name, description=description,
                   attributes=ToolAttributes(function=function, instruction=instruction))
        await tool.create(replace=replace)
        return tool

    @classmethod
    async def create_rag_tool(cls, tool_name: str, profile_name: str,
                              description: str | None = None, replace: bool = False,
                              instruction: str | None = None) -> AsyncTool:
        return await cls.create_built_in_tool(tool_name, RAGToolParams(profile_name=profile_name),
                                              ToolType.RAG, description, replace, instruction)

    @classmethod
    async def create_sql_tool(cls, tool_name: str, profile_name: str,
                              description: str | None = None, replace: bool = False,
                              instruction: str | None = None) -> AsyncTool:
        return await cls.create_built_in_tool(tool_name, SQLToolParams(profile_name=profile_name),
                                              ToolType.SQL, description, replace, instruction)

    @classmethod
    async def create_slack_notification_tool(cls, tool_name: str, credential_name: str,
                                             channel: str, description: str | None = None,
                                             replace: bool = False,
                                             instruction: str | None = None) -> AsyncTool:
        params = SlackNotificationToolParams(credential_name=credential_name, channel=channel)
        return await cls.create_built_in_tool(tool_name, params, ToolType.NOTIFICATION,
                                              description, replace, instruction)

    @classmethod
    async def create_websearch_tool(cls, tool_name: str, credential_name: str,
                                    description: str | None, replace: bool = False,
                                    instruction: str | None = None) -> AsyncTool:
        params = WebSearchToolParams(credential_name=credential_name)
        return await cls.create_built_in_tool(tool_name, params, ToolType.WEBSEARCH,
                                              description, replace, instruction)

    @classmethod
    async def delete_tool(cls, tool_name: str, force: bool = False) -> None:
        await arun(cls._plan_delete(tool_name, force))

    async def run_tool(self, input: str) -> str | None:
        return await arun(self._plan_run_tool(input))

    async def describe_tool(self) -> str | None:
        return await arun(self._plan_describe())

    @classmethod
    async def fetch(cls, tool_name: str) -> AsyncTool:
        return await arun(cls._plan_fetch(tool_name))

    @classmethod
    async def list(cls, tool_name_pattern: str = ".*") -> AsyncGenerator[AsyncTool, None]:
        for tool in await arun(cls._plan_list(tool_name_pattern)):
            yield tool


