"""What a team run reads: the team, each step's agent and task, the task's tools.

Objects are rows of dbms_cloud_ai._agent_object (sql/schema/130-agents.sql), read
as the caller, so row-level security decides what is there.  The session's team
(SET_TEAM) is a setting any role can set: every read checks it again.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .. import db
from ..errors import InvalidParameter, NotInPrerequisiteState, NullValue, UndefinedObject

TEAM_GUC = "dbms_cloud_ai.agent_team"
_SIMPLE = re.compile(r"[A-Za-z][A-Za-z0-9_$#]*\Z")
MAX_NAME = 128


def object_name(raw, kind: str) -> str:
    """Oracle's rule: an unquoted name is upper-cased, a double-quoted one kept."""
    if raw is None or not str(raw).strip():
        raise NullValue(f"{kind}_name must not be NULL",
                        hint=f"Pass the {kind} name, for example '{kind.upper()}_1'.")
    name = str(raw).strip()
    if len(name) >= 2 and name[0] == '"' and name[-1] == '"':
        name = name[1:-1]
        ok = bool(name) and '"' not in name and "\x00" not in name
    else:
        ok = bool(_SIMPLE.match(name))
        name = name.upper()
    if not ok or len(name) > MAX_NAME:
        raise InvalidParameter(f"invalid {kind} name {raw!r}",
                               hint=f"Pass the {kind} name, for example '{kind.upper()}_1'.")
    return name


@dataclass
class Obj:
    owner: str
    kind: str          # TOOL, TASK, AGENT, TEAM
    name: str
    status: str
    attrs: dict


@dataclass
class Step:
    order: int
    agent: Obj
    task: Obj
    tools: list[Obj] = field(default_factory=list)

    @property
    def human(self) -> bool:
        """The human tool is offered unless the agent or the task turns it off."""
        return (self.agent.attrs.get("enable_human_tool", True) is not False
                and self.task.attrs.get("enable_human_tool", True) is not False)


@dataclass
class Team:
    owner: str
    name: str
    attrs: dict
    steps: list[Step]


_READ = """
    select o.owner::text as owner, o.object_type, o.object_name, o.status, o.attributes::text as attrs
      from dbms_cloud_ai._agent_object o
     where o.owner = coalesce($3::name, current_user) and o.object_type = $1 and o.object_name = $2"""


def load(plpy, kind: str, name: str, owner: str | None = None, enabled: bool = True) -> Obj:
    """One object of ``kind`` (the caller's own unless ``owner``): 42704 when it is
    not there, 55000 when it is disabled."""
    row = db.one(plpy, _READ, ("text", "text", "text"), (kind, name, owner))
    if row is None:
        raise UndefinedObject(f"{kind.lower()} {name} does not exist",
                              hint=f"Create it with dbms_cloud_ai_agent.create_{kind.lower()}().")
    if enabled and row["status"] != "ENABLED":
        raise NotInPrerequisiteState(f"{kind.lower()} {name} is disabled",
                                     hint=f"Enable it with dbms_cloud_ai_agent.enable_{kind.lower()}().")
    return Obj(row["owner"], kind, name, row["status"], json.loads(row["attrs"]))


def _names(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    return [object_name(v, "tool") for v in value if v is not None]


def load_team(plpy, team_name) -> Team:
    """The team and, in order, each step's agent, task and tools (all enabled)."""
    team = load(plpy, "TEAM", object_name(team_name, "team"))
    if str(team.attrs.get("process") or "sequential").lower() != "sequential":
        raise InvalidParameter(f"team {team.name}: process {team.attrs.get('process')!r} is not supported",
                               hint="Use process 'sequential'.")
    entries = team.attrs.get("agents") or []
    if not isinstance(entries, list) or not entries:
        raise NotInPrerequisiteState(f"team {team.name} has no agents",
                                     hint="Set its attribute agents: [{\"name\": ..., \"task\": ...}].")
    steps = []
    for order, entry in enumerate(entries, 1):
        entry = {str(k).lower(): v for k, v in entry.items()} if isinstance(entry, dict) else {}
        agent = load(plpy, "AGENT", object_name(entry.get("name"), "agent"), team.owner)
        task = load(plpy, "TASK", object_name(entry.get("task"), "task"), team.owner)
        tools = [load(plpy, "TOOL", n, team.owner) for n in _names(task.attrs.get("tools"))]
        steps.append(Step(order, agent, task, tools))
    return Team(team.owner, team.name, team.attrs, steps)


# --- the session's team ---------------------------------------------------------

def set_session(plpy, team_name) -> None:
    team = load(plpy, "TEAM", object_name(team_name, "team"), enabled=False)
    db.query(plpy, "select pg_catalog.set_config($1, $2, false)", ("text", "text"), (TEAM_GUC, team.name))


def get_session(plpy) -> str | None:
    """The session's team, if the caller still has it."""
    row = db.one(plpy, """
        select o.object_name from dbms_cloud_ai._agent_object o
         where o.owner = current_user and o.object_type = 'TEAM'
           and o.object_name = nullif(pg_catalog.current_setting($1, true), '')""",
                 ("text",), (TEAM_GUC,))
    return row["object_name"] if row else None


def clear_session(plpy) -> None:
    db.query(plpy, "select pg_catalog.set_config($1, '', false)", ("text",), (TEAM_GUC,))


def session_team(plpy) -> str:
    name = get_session(plpy)
    if name is None:
        raise NotInPrerequisiteState("no team is set for this session",
                                     hint="Call dbms_cloud_ai_agent.set_team(team_name) first.")
    return '"' + name + '"'
