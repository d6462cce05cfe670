"""select_ai.agent: Select AI Agent (Oracle's DBMS_CLOUD_AI_AGENT) over the extension's schema
dbms_cloud_ai_agent: tools, tasks, agents and teams, their runs' history, get_definition."""

from .core import Agent, AgentAttributes, AsyncAgent
from .definition import async_get_definition, get_definition
from .history import (
    AsyncTaskHistory,
    AsyncTeamHistory,
    AsyncToolHistory,
    TaskHistory,
    TaskHistoryEvent,
    TeamHistory,
    TeamHistoryEvent,
    ToolHistory,
    ToolHistoryEvent,
)
from .task import AsyncTask, Task, TaskAttributes
from .team import AsyncTeam, Team, TeamAttributes
from .tool import (
    AsyncTool,
    EmailNotificationToolParams,
    HTTPToolParams,
    HumanToolParams,
    NotificationToolParams,
    NotificationType,
    RAGToolParams,
    SlackNotificationToolParams,
    SQLToolParams,
    Tool,
    ToolAttributes,
    ToolParams,
    ToolType,
    WebSearchToolParams,
)

__all__ = [
    "Agent", "AgentAttributes", "AsyncAgent", "AsyncTask", "AsyncTaskHistory", "AsyncTeam",
    "AsyncTeamHistory", "AsyncTool", "AsyncToolHistory", "EmailNotificationToolParams",
    "HTTPToolParams", "HumanToolParams", "NotificationToolParams", "NotificationType",
    "RAGToolParams", "SQLToolParams", "SlackNotificationToolParams", "Task", "TaskAttributes",
    "TaskHistory", "TaskHistoryEvent", "Team", "TeamAttributes", "TeamHistory",
    "TeamHistoryEvent", "Tool", "ToolAttributes", "ToolHistory", "ToolHistoryEvent",
    "ToolParams", "ToolType", "WebSearchToolParams", "async_get_definition", "get_definition",
]
