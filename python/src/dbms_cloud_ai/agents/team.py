"""What a team run reads: the team, each step's agent and task, the task's tools.

Objects are rows of dbms_cloud_ai._agent_object (sql/schema/130-agents.sql), read
as the caller, so row-level security decides what is there.  The session's team
(SET_TEAM) is a setting any role can set: every read checks it again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import db, names, sharing
from ..errors import DcaError, NotInPrerequisiteState
from . import catalog
from . import sharing as team_sharing

TEAM_GUC = "dbms_cloud_ai.agent_team"


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
    supervisor: Obj | None = None          # the supervisor_agent (agents/supervisor.py)
    supervisor_task: Step | None = None    # its supervisor_task, as a step (order 0)


def _obj(d: dict, enabled: bool = True) -> Obj:
    obj = Obj(d["owner"], d["object_type"], d["name"], d["status"], d["attributes"])
    if enabled and obj.status != "ENABLED":
        k = obj.kind.lower()
        raise NotInPrerequisiteState(f"{k} {obj.name} is disabled",
                                     hint=f"Enable it with dbms_cloud_ai_agent.enable_{k}().")
    return obj


def load(plpy, kind: str, name: str, enabled: bool = True) -> Obj:
    """One object of the caller's (catalog.load): 42704 when it is not there, 55000
    when it is disabled."""
    return _obj(catalog.load(plpy, kind, name), enabled)


def load_team(plpy, team_name) -> Team:
    """The team (the caller's own, or "OWNER"."TEAM" shared with it: catalog.team_plan)
    and, in order, each step's agent, task and tools, all enabled."""
    plan = catalog.team_plan(plpy, team_name)
    team = _obj(plan["team"])
    steps = [Step(order, _obj(s["agent"]), _obj(s["task"]), [_obj(t) for t in s["tools"]])
             for order, s in enumerate(plan["steps"], 1)]
    if not steps:
        raise NotInPrerequisiteState(f"team {team.name} has no agents",
                                     hint='Set its attribute agents: [{"name": ..., "task": ...}].')
    sup = plan.get("supervisor")
    if sup is None:
        return Team(team.owner, team.name, team.attrs, steps)
    agent = _obj(sup["agent"])
    task = (Step(0, agent, _obj(sup["task"]), [_obj(t) for t in sup["tools"]])
            if sup["task"] else None)
    return Team(team.owner, team.name, team.attrs, steps, agent, task)


def profile_ref(obj: Obj, name: str, caller: str) -> str:
    """The profile an agent or tool names, as the caller names it: a shared team's
    parts name their owner's profiles, which the caller uses as "OWNER"."NAME"
    (shared with it, or 42704 as any profile it may not use)."""
    if obj.owner == caller or sharing.parse(name).owner is not None:
        return name
    return sharing.display(obj.owner, names.normalize(name, "profile"))


# --- the session's team ---------------------------------------------------------
# The setting holds the caller's own team's name, or a shared team as "OWNER"."TEAM"
# (sharing.display); every read checks again that the caller may still use it.

_SHARED_SESSION = f"""
    select t.owner::text as owner, t.object_name from dbms_cloud_ai._agent_object t
     where t.object_type = 'TEAM' and t.object_name = $1 and t.owner::text = $2
       and {team_sharing.USABLE}"""


def set_session(plpy, team_name) -> None:
    ref = team_sharing.parse(team_name)
    owner = team_sharing.resolve_owner(plpy, ref)       # 42704 unless shared with the caller
    value = (load(plpy, "TEAM", ref.name, enabled=False).name if owner is None
             else sharing.display(owner, ref.name))
    db.query(plpy, "select pg_catalog.set_config($1, $2, false)", ("text", "text"), (TEAM_GUC, value))


def get_session(plpy) -> str | None:
    """The session's team, if the caller may still use it (a shared one as "OWNER"."TEAM")."""
    raw = db.one(plpy, "select pg_catalog.current_setting($1, true) as v", ("text",), (TEAM_GUC,))["v"]
    if not raw:
        return None
    try:
        ref = team_sharing.parse(raw) if raw.startswith('"') else sharing.Ref(None, raw)
    except DcaError:
        return None
    if ref.owner is not None:
        row = db.one(plpy, _SHARED_SESSION, ("text", "text"), (ref.name, ref.owner))
        return sharing.display(row["owner"], row["object_name"]) if row else None
    row = db.one(plpy, """
        select o.object_name from dbms_cloud_ai._agent_object o
         where o.owner = current_user and o.object_type = 'TEAM' and o.object_name = $1""",
                 ("text",), (raw,))
    return row["object_name"] if row else None


def clear_session(plpy) -> None:
    db.query(plpy, "select pg_catalog.set_config($1, '', false)", ("text",), (TEAM_GUC,))


def session_team(plpy) -> str:
    name = get_session(plpy)
    if name is None:
        raise NotInPrerequisiteState("no team is set for this session",
                                     hint="Call dbms_cloud_ai_agent.set_team(team_name) first.")
    return name if name.startswith('"') else '"' + name + '"'
