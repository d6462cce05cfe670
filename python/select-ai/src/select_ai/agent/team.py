"""Team, AsyncTeam: agents and their tasks, run in order (DBMS_CLOUD_AI_AGENT CREATE_TEAM,
RUN_TEAM, DESCRIBE_TEAM, LIST_TOOLS, EXPORT_TEAM, IMPORT_TEAM, GRANT/REVOKE_TEAM_ACCESS)."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterator, Mapping
from dataclasses import dataclass

from select_ai._abc import SelectAIDataClass
from select_ai._run import arun, run
from select_ai.agent._object import AgentObject, AsyncMethods, Kind, SyncMethods, call
from select_ai.errors import AgentTeamNotFoundError

__all__ = ["AsyncTeam", "Team", "TeamAttributes"]


@dataclass
class TeamAttributes(SelectAIDataClass):
    """agents: [{"name": agent, "task": task}, ...]; process: "sequential"; a supervised team
    names its supervisor_agent and supervisor_task."""

    agents: list[Mapping]
    process: str = "sequential"
    supervisor_agent: str | None = None
    supervisor_task: str | None = None


def _json_or_none(value: str | Mapping | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return json.dumps(value)
    raise TypeError("value must be a JSON string or mapping")


def _check_location(object_storage_credential_name, location) -> None:
    if bool(object_storage_credential_name) != bool(location):
        raise ValueError("object_storage_credential_name and location must be specified together")


def _grantee(user_or_role_name) -> str:
    if not isinstance(user_or_role_name, str):
        raise TypeError("'user_or_role_name' must be a string")
    grantee = user_or_role_name.strip()
    if not grantee:
        raise ValueError("'user_or_role_name' cannot be empty")
    return grantee


class _Team(AgentObject):
    _kind = Kind("team", "team_name", "user_ai_agent_teams", "user_ai_agent_team_attributes",
                 "agent_team_name",
                 AgentTeamNotFoundError)
    _attributes_class = TeamAttributes

    def __init__(self, team_name: str, attributes: TeamAttributes | None = None,
                 description: str | None = None):
        self._init(team_name, description, attributes)

    def _plan_run(self, prompt=None, params=None):
        return (yield call("run_team", "team", fetch="value", team_name=self.team_name,
                           user_prompt=prompt or None,
                           params=json.dumps(params) if params else None))

    def _plan_text(self, function: str):
        return (yield call(function, "team", fetch="value", team_name=self.team_name))

    def _plan_access(self, user_or_role_name, grant: bool):
        yield call("grant_team_access" if grant else "revoke_team_access", "team",
                   team_name=self.team_name, user_or_role_name=_grantee(user_or_role_name))

    @staticmethod
    def _plan_export(team_name, object_storage_credential_name=None, location=None, params=None):
        _check_location(object_storage_credential_name, location)
        step = call("export_team", "team", fetch="value", team_name=team_name,
                    params=_json_or_none(params) if params is not None else "{}",
                    object_storage_credential_name=object_storage_credential_name,
                    location=location)
        value = yield step
        # To Object Storage, Oracle's EXPORT_TEAM is a procedure: nothing comes back.
        return None if object_storage_credential_name else value

    @staticmethod
    def _plan_import(profile_name, team_name=None, specification=None,
                     object_storage_credential_name=None, location=None, force=False,
                     params=None):
        _check_location(object_storage_credential_name, location)
        if specification is None and object_storage_credential_name is None:
            raise ValueError("specification or object storage location must be specified")
        yield call("import_team", "team", profile_name=profile_name, team_name=team_name,
                   specification=_json_or_none(specification),
                   object_storage_credential_name=object_storage_credential_name,
                   location=location, force=bool(force), params=_json_or_none(params))


class Team(SyncMethods, _Team):
    """An agent team: create, delete, enable, disable, fetch, list, set attributes, run,
    describe, list its tools, export and import, share."""

    @classmethod
    def delete_team(cls, team_name: str, force: bool | None = False) -> None:
        run(cls._plan_delete(team_name, force))

    def grant_access(self, user_or_role_name: str) -> None:
        run(self._plan_access(user_or_role_name, grant=True))

    def revoke_access(self, user_or_role_name: str) -> None:
        run(self._plan_access(user_or_role_name, grant=False))

    @classmethod
    def fetch(cls, team_name: str) -> Team:
        """The saved team (AgentTeamNotFoundError when there is none)."""
        return run(cls._plan_fetch(team_name))

    @classmethod
    def list(cls, team_name_pattern: str | None = ".*") -> Iterator[Team]:
        yield from run(cls._plan_list(team_name_pattern))

    def run(self, prompt: str | None = None, params: Mapping | None = None) -> str | None:
        """Run the team on a prompt (params: conversation_id, variables); its answer."""
        return run(self._plan_run(prompt, params))

    def describe_team(self) -> str | None:
        return run(self._plan_text("describe_team"))

    def list_tools(self) -> str | None:
        return run(self._plan_text("list_tools"))

    @classmethod
    def export_team(cls, team_name: str, object_storage_credential_name: str | None = None,
                    location: str | None = None,
                    params: str | Mapping | None = None) -> str | None:
        return run(cls._plan_export(team_name, object_storage_credential_name, location, params))

    @classmethod
    def import_team(cls, profile_name: str, team_name: str | None = None,
                    specification: str | Mapping | None = None,
                    object_storage_credential_name: str | None = None,
                    location: str | None = None, force: bool | None = False,
                    params: str | Mapping | None = None) -> None:
        run(cls._plan_import(profile_name, team_name, specification,
                             object_storage_credential_name, location, force, params))

    def export(self, object_storage_credential_name: str | None = None,
               location: str | None = None, params: str | Mapping | None = None) -> str | None:
        return self.export_team(self.team_name, object_storage_credential_name, location, params)


class AsyncTeam(AsyncMethods, _Team):
    """Team, for asyncio."""

    @classmethod
    async def delete_team(cls, team_name: str, force: bool | None = False) -> None:
        await arun(cls._plan_delete(team_name, force))

    async def grant_access(self, user_or_role_name: str) -> None:
        await arun(self._plan_access(user_or_role_name, grant=True))

    async def revoke_access(self, user_or_role_name: str) -> None:
        await arun(self._plan_access(user_or_role_name, grant=False))

    @classmethod
    async def fetch(cls, team_name: str) -> AsyncTeam:
        return await arun(cls._plan_fetch(team_name))

    @classmethod
    async def list(cls, team_name_pattern: str | None = ".*") -> AsyncGenerator[AsyncTeam, None]:
        for team in await arun(cls._plan_list(team_name_pattern)):
            yield team

    async def run(self, prompt: str | None = None, params: Mapping | None = None) -> str | None:
        return await arun(self._plan_run(prompt, params))

    async def describe_team(self) -> str | None:
        return await arun(self._plan_text("describe_team"))

    async def list_tools(self) -> str | None:
        return await arun(self._plan_text("list_tools"))

    @classmethod
    async def export_team(cls, team_name: str, object_storage_credential_name: str | None = None,
                          location: str | None = None,
                          params: str | Mapping | None = None) -> str | None:
        return await arun(cls._plan_export(team_name, object_storage_credential_name, location,
                                           params))

    @classmethod
    async def import_team(cls, profile_name: str, team_name: str | None = None,
                          specification: str | Mapping | None = None,
                          object_storage_credential_name: str | None = None,
                          location: str | None = None, force: bool | None = False,
                          params: str | Mapping | None = None) -> None:
        await arun(cls._plan_import(profile_name, team_name, specification,
                                    object_storage_credential_name, location, force, params))

    async def export(self, object_storage_credential_name: str | None = None,
                     location: str | None = None,
                     params: str | Mapping | None = None) -> str | None:
        return await self.export_team(self.team_name, object_storage_credential_name, location,
                                      params)
