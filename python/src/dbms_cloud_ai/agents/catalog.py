"""The catalog of DBMS_CLOUD_AI_AGENT: create, drop, enable, disable and
set_attribute(s) of tools, tasks, agents and teams, and what the code that
runs teams reads of them.

One table holds the four kinds (``dbms_cloud_ai._agent_object``, one row per
(owner, object_type, object_name)); reads run as the caller under row-level
security, writes through the writer (writer.py).

For the runtime (agents-run):

- ``load(plpy, object_type, name, owner=None) -> dict``: one object of the
  caller's (``owner`` None) or of ``owner`` as the caller may read it; keys
  object_id, owner, object_type, name, status, description, attributes (typed,
  with Oracle's defaults), texts (as given); 42704 when missing.
- ``team_plan(plpy, team_name) -> dict``: a team resolved to its ordered
  steps, each {"agent": load(...), "task": load(...), "tools": [load(...)]};
  ``team_name`` may be "OWNER"."TEAM" for a team shared with the caller (its
  parts are read as the team's owner's, inside the package only:
  agents/sharing.py); keys team (the team's load dict) and steps; also
  supervisor (None, or a step whose task is None when the team names no
  supervisor_task).
- ``references.resolve_function(plpy, name, search_path) -> list[dict]``: the
  functions a custom tool's name may mean, as PostgreSQL resolves it (every
  overload in the first schema of the path that has the name: oid, signature,
  schema, executable), for the EXECUTE check at run time.
"""

from __future__ import annotations

import json

from .. import writer
from ..attributes import given_texts
from ..errors import DuplicateObject, InvalidParameter, NotInPrerequisiteState, NullValue
from . import attributes, objects, references
from . import sharing as team_sharing

A = objects.A


def _status(kind: str, status) -> str:
    if status is None:
        return "ENABLED"
    s = str(status).strip().upper()
    if s not in ("ENABLED", "DISABLED"):
        raise InvalidParameter(f"invalid {kind.lower()} status {status!r}",
                               hint="Pass status => 'enabled' or 'disabled'.")
    return s


load = objects.load      # for the runtime: see the module's docstring
missing = objects.missing


def _check_references(plpy, kind: str, name: str, attrs: dict, changed: dict, search_path):
    what = f"{kind.lower()} {name}"
    if kind == "AGENT" and "profile_name" in changed:
        references.check_profile(plpy, attrs["profile_name"], what)
    if kind == "TOOL":
        params = attrs.get("tool_params") or {}
        if attrs.get("tool_type") in ("SQL", "RAG") and params.get("profile_name") \
                and ("tool_params" in changed or "tool_type" in changed):
            references.check_profile(plpy, params["profile_name"], what)
        if attrs.get("function") and "function" in changed:
            references.check_function(plpy, attrs["function"], search_path)


def create(plpy, object_type, name, attributes_json, status, description, search_path=None,
           replace: bool = False) -> None:
    """CREATE_<KIND>; ``replace`` (import_team's force): an existing object of
    that name is replaced (its id kept, so a team's grants stay)."""
    kind = attributes.kind_of(object_type)
    stored = attributes.object_name(name, kind)
    given = attributes.parse_object(attributes_json, kind)
    parsed = attributes.parse_all(kind, given)
    for k in attributes.REQUIRED[kind]:
        if parsed.get(k) is None:
            raise NullValue(f"{kind.lower()} attribute {k} is required",
                            hint=attributes.hint(kind))
    attrs = attributes.merge(kind, {}, parsed)
    _check_references(plpy, kind, stored, attrs, attrs, search_path)
    texts = attributes.texts({}, parsed, _given_texts(attributes_json), attrs)
    conflict = ("do update set status = excluded.status, description = excluded.description, "
                "attributes = excluded.attributes, attribute_text = excluded.attribute_text, "
                "last_modified = pg_catalog.now()") if replace else "do nothing"
    row = writer.one(plpy, f"""
        insert into dbms_cloud_ai._agent_object
               (owner, object_type, object_name, status, description, attributes, attribute_text)
        values (dbms_cloud_ai._caller(), $1, $2, $3, $4, $5::jsonb, $6::jsonb)
        on conflict (owner, object_type, object_name) {conflict} returning object_id""",
                     ("text", "text", "text", "text", "text", "text"),
                     (kind, stored, _status(kind, status), description, json.dumps(attrs),
                      json.dumps(texts)))
    if row is None:
        k = kind.lower()
        raise DuplicateObject(f"{k} {stored} already exists",
                              hint=f"Drop it with {A}.drop_{k}() or change it with "
                                   f"{A}.set_attributes().")


def _given_texts(attributes_json) -> dict:
    return given_texts(attributes_json) if isinstance(attributes_json, str) else {}


def drop(plpy, object_type, name, force) -> None:
    kind = attributes.kind_of(object_type)
    stored = attributes.object_name(name, kind)
    gone = writer.one(plpy, """
        delete from dbms_cloud_ai._agent_object
         where owner = dbms_cloud_ai._caller() and object_type = $1 and object_name = $2
        returning 1 as x""", ("text", "text"), (kind, stored))
    if gone is None and not force:
        raise missing(kind, stored)


def set_status(plpy, object_type, name, status: str) -> None:
    obj = load(plpy, object_type, name)
    kind = obj["object_type"]
    if obj["status"] == status:
        other = "disable" if status == "ENABLED" else "enable"
        raise NotInPrerequisiteState(f"{kind.lower()} {obj['name']} is already {status.lower()}",
                                     hint=f"Call {A}.{other}_{kind.lower()}() to change it.")
    writer.query(plpy, "update dbms_cloud_ai._agent_object set status = $2, "
                       "last_modified = pg_catalog.now() where object_id = $1",
                 ("bigint", "text"), (obj["object_id"], status))


def set_attributes(plpy, object_name, object_type, changes: dict, given: dict,
                   search_path=None) -> None:
    """Merge ``changes`` (a None value removes an optional attribute);
    ``given``: their texts as the user wrote them."""
    obj = load(plpy, object_type, object_name)
    kind = obj["object_type"]
    attributes.bounded(changes, "attributes", kind)
    parsed = attributes.parse_all(kind, changes)
    base = {k: v for k, v in obj["attributes"].items()
            if not (k == "instruction" and kind == "TOOL" and "instruction" not in obj["texts"])}
    merged = attributes.merge(kind, base, parsed)
    attributes.bounded(merged, "attributes", kind)
    _check_references(plpy, kind, obj["name"], merged, parsed, search_path)
    texts = attributes.texts(obj["texts"], parsed, given, merged)
    writer.query(plpy, "update dbms_cloud_ai._agent_object set attributes = $2::jsonb, "
                       "attribute_text = $3::jsonb, last_modified = pg_catalog.now() "
                       "where object_id = $1",
                 ("bigint", "text", "text"), (obj["object_id"], json.dumps(merged), json.dumps(texts)))


def set_attribute(plpy, object_name, object_type, attribute_name, attribute_value,
                  search_path=None) -> None:
    """SET_ATTRIBUTE: one attribute; NULL or '' for a required one: 22004."""
    if attribute_name is None:
        raise NullValue("attribute_name must not be NULL",
                        hint=attributes.hint(attributes.kind_of(object_type)))
    key = str(attribute_name).strip().lower()
    given = {} if attribute_value is None else {key: str(attribute_value)}
    set_attributes(plpy, object_name, object_type, {attribute_name: attribute_value}, given,
                   search_path)


def set_attributes_json(plpy, object_name, object_type, attributes_json, search_path=None):
    kind = attributes.kind_of(object_type)
    changes = attributes.parse_object(attributes_json, kind)
    set_attributes(plpy, object_name, kind, changes, _given_texts(attributes_json), search_path)


# --- for the runtime -------------------------------------------------------------------

def team_plan(plpy, team_name) -> dict:
    """A team and its ordered (agent, task) steps with the tools of each task
    (see the module's docstring)."""
    team, read = team_sharing.open_team(plpy, team_name)

    def step(agent_name, task_name):
        task = read("TASK", task_name)
        return {"agent": read("AGENT", agent_name), "task": task,
                "tools": [read("TOOL", t) for t in task["attributes"].get("tools") or []]}

    attrs = team["attributes"]
    steps = [step(m["name"], m["task"]) for m in attrs["agents"]]
    supervisor = None
    if attrs.get("supervisor_agent"):
        task = attrs.get("supervisor_task")
        supervisor = (step(attrs["supervisor_agent"], task) if task else
                      {"agent": read("AGENT", attrs["supervisor_agent"]), "task": None, "tools": []})
    return {"team": team, "steps": steps, "supervisor": supervisor}
