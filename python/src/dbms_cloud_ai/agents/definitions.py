"""What the catalog says about its objects: describe_tool, describe_team,
list_tools, get_definition (a script that recreates an object), export_team
(a portable JSON specification) and import_team (its inverse).

An export names no owner and no credential, and leaves out the profile of each
agent and SQL/RAG tool: import_team sets them to the profile the importer
names.  An import runs in the one statement of its call: an error undoes all
of it.
"""

from __future__ import annotations

import json

from .. import db, jsontext
from ..errors import InvalidJson, InvalidParameter
from . import attributes, catalog, references
from . import sharing as team_sharing

FORMAT = "dbms_cloud_ai_agent.export_team/1"
_ARGS = """
    select coalesce(p.proargnames[t.i], '$' || t.i) as name,
           pg_catalog.format_type(t.typ, null) as type
      from pg_catalog.pg_proc p
     cross join lateral pg_catalog.unnest(p.proargtypes::oid[]) with ordinality t(typ, i)
     where p.oid = $1::pg_catalog.oid order by t.i"""


def _as_given(obj: dict) -> dict:
    """The attributes as the user gave them (a default Oracle fills in, too)."""
    out = {}
    for k, v in obj["attributes"].items():
        text = obj["texts"].get(k)
        if text is None or isinstance(v, str):
            out[k] = text if text is not None else v
        else:
            try:
                out[k] = jsontext.loads(text)
            except ValueError:
                out[k] = v
    return out


def describe_tool(plpy, tool_name, search_path) -> str:
    tool = catalog.load(plpy, "TOOL", tool_name)
    args = []
    fn = tool["attributes"].get("function")
    if fn:
        found = references.resolve_function(plpy, fn, search_path)
        if found:     # an overloaded name: the first overload's
            args = [dict(r) for r in db.query(plpy, _ARGS, ("int8",), (found[0]["oid"],))]
    return json.dumps({"tool_name": tool["name"], "description": tool["description"],
                       "status": tool["status"], "attributes": _as_given(tool),
                       "function_args": args})


def _literal(v) -> str:
    return "null" if v is None else "'" + str(v).replace("'", "''") + "'"


def _name(name: str) -> str:
    """A stored name as create_<kind> reads it back to the same name."""
    simple = name[:1].isalpha() and all(c.isalnum() or c in "_$#" for c in name)
    return name if simple and name == name.upper() else '"' + name + '"'


def get_definition(plpy, object_type, object_name) -> str:
    obj = catalog.load(plpy, object_type, object_name)
    k = obj["object_type"].lower()
    return (f"SELECT DBMS_CLOUD_AI_AGENT.CREATE_{k.upper()}(\n"
            f"    {k}_name    => {_literal(_name(obj['name']))},\n"
            f"    attributes  => {_literal(json.dumps(_as_given(obj)))},\n"
            f"    status      => {_literal(obj['status'])},\n"
            f"    description => {_literal(obj['description'])});\n")


def _tools_of(read, task: dict) -> list[dict]:
    return [read("TOOL", t) for t in task["attributes"].get("tools") or []]


def describe_team(plpy, team_name) -> str:
    """The team, its agents with their tasks, and its skills (the tools)."""
    team, read = team_sharing.open_team(plpy, team_name)
    agents, skills, seen = [], [], set()
    for m in team["attributes"]["agents"]:
        agent, task = read("AGENT", m["name"]), read("TASK", m["task"])
        tools = _tools_of(read, task)
        agents.append({"agent_name": agent["name"], "role": agent["attributes"].get("role"),
                       "task_name": task["name"],
                       "instruction": task["attributes"].get("instruction"),
                       "tools": [t["name"] for t in tools]})
        for t in tools:
            if t["name"] not in seen:
                seen.add(t["name"])
                skills.append(_tool_summary(t))
    return json.dumps({"name": team["name"], "description": team["description"],
                       "status": team["status"], "process": team["attributes"].get("process"),
                       "agents": agents, "skills": skills})


def _tool_summary(t: dict) -> dict:
    a = t["attributes"]
    return {"tool_name": t["name"], "tool_type": a.get("tool_type"),
            "description": t["description"], "instruction": a.get("instruction"),
            "status": t["status"]}


def list_tools(plpy, team_name) -> str:
    team, read = team_sharing.open_team(plpy, team_name)
    out, seen = [], set()
    for m in team["attributes"]["agents"]:
        for t in _tools_of(read, read("TASK", m["task"])):
            if t["name"] not in seen:
                seen.add(t["name"])
                out.append(_tool_summary(t))
    return json.dumps(out)


# --- export and import ------------------------------------------------------------------

_PRIVATE_TOOL_PARAMS = ("profile_name", "credential_name")


def _portable(obj: dict, drop: tuple = ()) -> dict:
    attrs = {k: v for k, v in _as_given(obj).items() if k not in drop}
    if isinstance(attrs.get("tool_params"), dict):
        attrs["tool_params"] = {k: v for k, v in attrs["tool_params"].items()
                                if k not in _PRIVATE_TOOL_PARAMS}
    return {"description": obj["description"], "attributes": attrs}


def export_team(plpy, team_name, params) -> str:
    """EXPORT_TEAM: one of the caller's teams as a portable specification: the
    first (agent, task) pair at the top (name, task), the others in members,
    every tool once in tools, the team's own attributes in team."""
    attributes.parse_object(params, "TEAM")   # no params are known yet; JSON is checked
    team = catalog.load(plpy, "TEAM", team_name)
    pairs, tools, seen = [], [], set()
    for m in team["attributes"]["agents"]:
        agent, task = catalog.load(plpy, "AGENT", m["name"]), catalog.load(plpy, "TASK", m["task"])
        pair = {"name": agent["name"], **_portable(agent, ("profile_name",)),
                "task": {"task_name": task["name"], **_portable(task)}}
        pairs.append(pair)
        for t in _tools_of(lambda k, n: catalog.load(plpy, k, n), task):
            if t["name"] not in seen:
                seen.add(t["name"])
                tools.append({"tool_name": t["name"], **_portable(t)})
    team_part = _portable(team, ("agents",))
    spec = {"format": FORMAT, "team_name": team["name"], "team": team_part, **pairs[0],
            "members": pairs[1:], "tools": tools}
    return json.dumps(spec)


def _spec(text) -> dict:
    if isinstance(text, dict):
        return text
    if text is None:
        raise InvalidParameter("specification must not be NULL",
                               hint="Pass the text dbms_cloud_ai_agent.export_team() returned.")
    try:
        spec = jsontext.loads(text)
    except ValueError as e:
        raise InvalidJson("specification is not valid JSON", detail=str(e),
                          hint="Pass the text dbms_cloud_ai_agent.export_team() returned.") from None
    if not isinstance(spec, dict) or "name" not in spec or not isinstance(spec.get("task"), dict):
        raise InvalidParameter("specification is not a team's export",
                               hint="Pass the text dbms_cloud_ai_agent.export_team() returned.")
    return spec


def _part(d: dict, what: str) -> tuple[dict, str | None]:
    if not isinstance(d, dict) or not isinstance(d.get("attributes", {}), dict):
        raise InvalidParameter(f"specification: {what} is not an object with attributes",
                               hint="Pass the text dbms_cloud_ai_agent.export_team() returned.")
    return dict(d.get("attributes") or {}), d.get("description")


def import_team(plpy, profile_name, team_name, specification, force, params, search_path) -> None:
    """IMPORT_TEAM: recreate the team, its agents, tasks and tools as the
    caller's; agents and SQL/RAG tools use ``profile_name``."""
    attributes.parse_object(params, "TEAM")
    if profile_name is None or not str(profile_name).strip():
        raise InvalidParameter("profile_name must name your AI profile",
                               hint="Pass profile_name => the profile the imported agents use.")
    references.require_profile(plpy, profile_name)
    if isinstance(specification, str) and len(specification) > 16 * attributes.MAX_BYTES:
        raise InvalidParameter("specification is too large",
                               hint="Pass the text dbms_cloud_ai_agent.export_team() returned.")
    spec = _spec(specification)
    name = team_name or spec.get("team_name")
    replace = bool(force)
    for t in spec.get("tools") or []:
        attrs, desc = _part(t, "a tool")
        if attrs.get("tool_type", "").upper() in ("SQL", "RAG"):
            attrs["tool_params"] = {**(attrs.get("tool_params") or {}), "profile_name": profile_name}
        catalog.create(plpy, "TOOL", t.get("tool_name"), json.dumps(attrs), None, desc,
                       search_path, replace=replace)
    members = []
    for pair in [spec, *(spec.get("members") or [])]:
        task = pair.get("task")
        t_attrs, t_desc = _part(task, "a task")
        catalog.create(plpy, "TASK", task.get("task_name"), json.dumps(t_attrs), None, t_desc,
                       search_path, replace=replace)
        a_attrs, a_desc = _part({k: v for k, v in pair.items() if k != "task"}, "an agent")
        a_attrs["profile_name"] = profile_name
        catalog.create(plpy, "AGENT", pair.get("name"), json.dumps(a_attrs), None, a_desc,
                       search_path, replace=replace)
        members.append({"name": pair.get("name"), "task": task.get("task_name")})
    team_attrs, team_desc = _part(spec.get("team") or {}, "the team")
    team_attrs["agents"] = members
    catalog.create(plpy, "TEAM", name, json.dumps(team_attrs), None, team_desc, search_path,
                   replace=replace)
