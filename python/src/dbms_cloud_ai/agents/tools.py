"""Running one tool: a function tool (the caller's own function, checked and
called with parameters), a SQL tool (NL2SQL through its profile), a RAG tool
(narrate over its profile's vector index), and the human tool's definition.

A tool call's arguments come from the model, so they are hostile input: names
are checked against the function's signature, values travel as parameters and
are cast by PostgreSQL, and a mistake (an unknown argument, a missing one, a
value PostgreSQL refuses, an error the function raises) becomes a ToolFailed
that the run sends back to the model instead of ending the run.  The function
runs as the caller (this module runs in SECURITY INVOKER functions and never
through the writer), under the caller's search_path, in a subtransaction, with
the statement timer armed to dbms_cloud_ai.agent_tool_timeout.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import data_access, db, jsontext, profiles, settings
from ..errors import (
    CallInterrupted,
    DcaError,
    FeatureNotSupported,
    InsufficientPrivilege,
    InvalidParameter,
    UndefinedObject,
)
from ..lazy import LazyModule
from ..model import interrupts
from ..turn import Call
from . import mail, outbound, references
from .team import Obj, profile_ref

if TYPE_CHECKING:   # the same modules, for tools that read imports (lazy.py)
    from ..nl2sql import actions as nl2sql
    from ..vector_indexes import narrate as documents
else:
    nl2sql = LazyModule("nl2sql.actions")
    documents = LazyModule("vector_indexes.narrate")

HUMAN = "human"
HUMAN_TOOL = {
    "name": HUMAN,
    "description": "Ask the user a question when you need information or a decision only "
                   "they can give. The run waits for their answer.",
    "parameters": {"type": "object",
                   "properties": {"question": {"type": "string",
                                               "description": "the question for the user"}},
                   "required": ["question"]},
}
_QUESTION = {"type": "object",
             "properties": {"query": {"type": "string",
                                      "description": "the question, in natural language"}},
             "required": ["query"]}
_MESSAGE = {"type": "object",
            "properties": {"message": {"type": "string", "description": "the text to send"}},
            "required": ["message"]}
_MODEL_NAME = re.compile(r"[^A-Za-z0-9_-]")
MAX_OUTPUT = 64 * 1024         # what a tool's result gives back to the model at most
_JSON_TYPES = {"smallint": "integer", "integer": "integer", "bigint": "integer",
               "numeric": "number", "real": "number", "double precision": "number",
               "boolean": "boolean", "json": "object", "jsonb": "object"}


class ToolFailed(Exception):
    """The tool could not run this call: the message goes back to the model."""


@dataclass
class Function:
    oid: int
    qualified: str           # quote_ident'ed schema.name
    inputs: list[tuple[str, str]]    # (argument name, format_type) of the input arguments
    required: int            # how many leading inputs have no default


def kind(tool: Obj) -> str:
    if tool.attrs.get("function"):
        return "FUNCTION"
    return str(tool.attrs.get("tool_type") or "").upper()


def model_name(tool: Obj) -> str:
    """The name the model calls the tool by (providers allow [A-Za-z0-9_-], 64)."""
    return _MODEL_NAME.sub("_", tool.name)[:64] or "tool"


def _profile_name(tool: Obj) -> str:
    params = tool.attrs.get("tool_params") or {}
    name = params.get("profile_name") if isinstance(params, dict) else None
    if not name:
        raise InvalidParameter(f"tool {tool.name} has no tool_params.profile_name",
                               hint="Set it with dbms_cloud_ai_agent.set_attribute().")
    return name


# --- function tools -------------------------------------------------------------

_PIN = "select pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true) as x"
_PATH = """
    select pg_catalog.set_config('search_path',
               coalesce((select pg_catalog.string_agg(pg_catalog.quote_ident(s), ', ')
                           from pg_catalog.unnest($1::text[]) s), ''), true) as x"""
_SIGNATURE = """
    select pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(p.proname) as qualified,
           p.prokind, p.pronargs, p.pronargdefaults, p.provariadic <> 0 as variadic,
           coalesce(p.proargnames, array[]::text[]) as names,
           coalesce(p.proargmodes::text[], array[]::text[]) as modes,
           array(select pg_catalog.format_type(t, null)
                   from pg_catalog.unnest(p.proargtypes) with ordinality u(t, i) order by i) as types
      from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
     where p.oid = $1"""


_OWNER_MAY = """
    select coalesce(pg_catalog.has_function_privilege(r.oid, p.oid, 'EXECUTE')
                    and pg_catalog.has_schema_privilege(r.oid, p.pronamespace, 'USAGE'), false) as may
      from pg_catalog.pg_proc p
      left join pg_catalog.pg_roles r on r.rolname = $1
     where p.oid = $2"""


def _overload(plpy, tool: Obj, oid: int) -> Function | None:
    """One overload with named, non-variadic input arguments (None otherwise)."""
    sig = db.one(plpy, _SIGNATURE, ("int8",), (oid,))
    if sig is None or sig["prokind"] != "f" or sig["variadic"]:
        return None
    modes = list(sig["modes"]) or ["i"] * sig["pronargs"]
    names = list(sig["names"]) + [""] * len(modes)
    inputs = [n for n, m in zip(names, modes) if m in ("i", "b", "v")]
    if len(inputs) != sig["pronargs"] or any(not n for n in inputs):
        return None
    return Function(oid, sig["qualified"], list(zip(inputs, sig["types"])),
                    sig["pronargs"] - sig["pronargdefaults"])


def resolve(plpy, tool: Obj, search_path: list[str]) -> list[Function]:
    """The overloads the tool's function name means under the caller's search_path
    (references.resolve_function, as the catalog checked it); 42883 when there is
    none that a tool can call (named, non-variadic arguments), 42501 when the caller
    may not execute one of them."""
    name = str(tool.attrs["function"])
    if tool.owner != db.current_user(plpy) and len(references.name_parts(plpy, name)) != 2:
        # A grantee's search_path is not the owner's: an unqualified name could bind to a
        # function of a schema the owner never meant (the grantee's own, or public).
        raise InsufficientPrivilege(f"tool {tool.name} of a shared team names its function "
                                    f"{name} without a schema",
                                    hint="The team's owner names it as schema.function: "
                                         "dbms_cloud_ai_agent.set_attribute(tool, 'tool', "
                                         "'function', 'schema.name').")
    found = references.resolve_function(plpy, name, search_path)
    shared = bool(found) and tool.owner != db.current_user(plpy)
    for f in found:
        # A shared team's tool: its owner must still be able to execute it too.
        if not f["executable"] or (shared
                                   and not db.one(plpy, _OWNER_MAY, ("text", "int8"),
                                                  (tool.owner, f["oid"]))["may"]):
            raise InsufficientPrivilege(f"permission denied for function {f['signature']} of tool "
                                        f"{tool.name}", hint="Its owner grants EXECUTE on it "
                                        "(and USAGE on its schema).")
    overloads = [o for o in (_overload(plpy, tool, f["oid"]) for f in found) if o is not None]
    if not overloads:
        err = UndefinedObject(f"tool {tool.name}: no function {name} with named arguments",
                              hint="Name a function (schema.name) the caller can see under its "
                                   "search_path, with a name for every argument.")
        err.sqlstate = "42883"
        raise err
    return overloads


def _schema(fns: list[Function], tool: Obj) -> dict:
    """The JSON schema of the arguments: every overload's, required what all require."""
    described = {}
    for entry in tool.attrs.get("tool_inputs") or []:
        if isinstance(entry, dict) and entry.get("name"):
            described[str(entry["name"]).lower()] = str(entry.get("description") or "")
    props = {}
    for fn in fns:
        for name, typ in fn.inputs:
            if name in props:
                continue
            p = {"type": _JSON_TYPES.get(typ, "string")}
            if p["type"] == "object":
                p = {}
            p["description"] = described.get(name.lower()) or typ
            props[name] = p
    required = set.intersection(*({n for n, _ in fn.inputs[:fn.required]} for fn in fns))
    return {"type": "object", "properties": props,
            "required": [n for n in props if n in required]}


def _value(v):
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return json.dumps(v, ensure_ascii=False)


def _bind(fn: Function, args: dict) -> list:
    """[((name, type), value text)] for ``args`` on ``fn``; ToolFailed when they do not fit."""
    by_name = {n: (n, t) for n, t in fn.inputs}
    by_lower = {n.lower(): (n, t) for n, t in fn.inputs}
    chosen = []
    for key, value in args.items():
        found = by_name.get(key) or by_lower.get(str(key).lower())
        if found is None:
            raise ToolFailed(f"unknown argument {str(key)[:64]!r}; the arguments are: "
                             + ", ".join(n for n, _ in fn.inputs))
        chosen.append((found, _value(value)))
    given = {n for (n, _), _ in chosen}
    missing = [n for n, _ in fn.inputs[:fn.required] if n not in given]
    if missing:
        raise ToolFailed("missing argument(s): " + ", ".join(missing))
    return chosen


def call_function(plpy, fns: list[Function], args: dict, search_path: list[str],
                  timeout: float) -> str:
    """Call the overload the model's ``args`` fit (the first, in the catalog's order):
    names checked against its inputs, values passed as parameters and cast by
    PostgreSQL to its argument types."""
    failed = None
    for fn in fns:
        try:
            chosen = _bind(fn, args)
            break
        except ToolFailed as e:
            failed = failed or e
    else:
        raise failed
    # Identifiers from the catalog (quote_ident'ed by PostgreSQL, types by
    # format_type); every value is a parameter.
    quoted = db.query(plpy, "select pg_catalog.quote_ident(n) as q from pg_catalog.unnest($1::text[]) n",
                      ("text[]",), ([n for (n, _), _ in chosen],))
    parts = [f"{q['q']} => ${i}::pg_catalog.text::{typ}"
             for i, (q, ((_, typ), _)) in enumerate(zip(quoted, chosen), 1)]
    sql = f"select r::pg_catalog.text as r from {fn.qualified}({', '.join(parts)}) r"
    started = time.monotonic()
    try:
        with interrupts.time_limit(timeout):
            with plpy.subtransaction():
                plan = plpy.prepare(sql, ["text"] * len(chosen))
                db.one(plpy, _PATH, ("text[]",), (list(search_path or []),))
                rows = plpy.execute(plan, [v for _, v in chosen])
                db.one(plpy, _PIN)
    except plpy.SPIError as e:
        db.one(plpy, _PIN)
        state = getattr(e, "sqlstate", None)
        if state == "57014":
            if time.monotonic() - started < timeout * 0.95:   # a cancel, not our limit
                raise CallInterrupted("the run was canceled while a tool ran") from None
            raise ToolFailed(f"the function did not finish within {timeout:g}s") from None
        if state in ("42501",):
            raise InsufficientPrivilege(f"tool function {fn.qualified}: {e}") from None
        raise ToolFailed(f"error {state}: {str(e).splitlines()[0][:500]}") from None
    return "\n".join("" if r["r"] is None else r["r"] for r in rows)


# --- SQL and RAG tools ----------------------------------------------------------

def _nl_call(plpy, tool: Obj, question: str, action: str, search_path: list[str]) -> Call:
    ctx = profiles.for_call(plpy, profile_ref(tool, _profile_name(tool), db.current_user(plpy)))
    return Call(plpy, question, action, ctx.profile, ctx.profile.attrs, {}, ctx, None,
                list(search_path or []), records=False)


def _question(args: dict) -> str:
    q = args.get("query") if isinstance(args.get("query"), str) else None
    if q is None:
        q = next((v for v in args.values() if isinstance(v, str) and v.strip()), None)
    if not q or not q.strip():
        raise ToolFailed("missing argument: query (the question, in natural language)")
    return q


def sql_tool(plpy, tool: Obj, args: dict, search_path: list[str]) -> str:
    call = _nl_call(plpy, tool, _question(args), "runsql", search_path)
    try:
        return nl2sql.runsql(call).text or ""
    except DcaError as e:
        if e.sqlstate in ("57014", "42501", "53400", "LL006"):
            raise
        raise ToolFailed(f"error {e.sqlstate}: {e.message}") from None


def rag_tool(plpy, tool: Obj, args: dict, search_path: list[str]) -> str:
    call = _nl_call(plpy, tool, _question(args), "narrate", search_path)
    if not call.attrs.get("vector_index_name"):
        raise InvalidParameter(f"tool {tool.name}: profile {call.profile.name} names no "
                               "vector_index_name",
                               hint="Set it with dbms_cloud_ai.set_attribute(profile_name => "
                                    f"'{call.profile.name}', attribute_name => 'vector_index_name', "
                                    "attribute_value => '<index>').")
    data_access.require(call.ctx, "a RAG tool")
    return documents.narrate(call).text or ""


# --- one tool -------------------------------------------------------------------

@dataclass
class Prepared:
    """A tool as a run offers it: its definition for the model, how to run it."""

    tool: Obj
    definition: dict
    functions: list[Function] | None = None


def prepare(plpy, tool: Obj, search_path: list[str]) -> Prepared:
    k = kind(tool)
    desc = str(tool.attrs.get("instruction") or tool.attrs.get("description") or "")[:2000]
    if k == "FUNCTION":
        fns = resolve(plpy, tool, search_path)
        return Prepared(tool, {"name": model_name(tool), "description": desc or f"calls {fns[0].qualified}",
                               "parameters": _schema(fns, tool)}, fns)
    if k in ("SQL", "RAG"):
        _profile_name(tool)
        default = ("answers a question from the database" if k == "SQL"
                   else "answers a question from documents")
        return Prepared(tool, {"name": model_name(tool), "description": desc or default,
                               "parameters": _QUESTION})
    if k == "HUMAN":
        return Prepared(tool, {**HUMAN_TOOL, "name": model_name(tool)})
    if k == "HTTP":
        outbound.endpoint((tool.attrs.get("tool_params") or {}).get("endpoint"), f"tool {tool.name}")
        return Prepared(tool, {"name": model_name(tool),
                               "description": desc or "sends a request to a web service",
                               "parameters": _inputs_schema(tool)})
    if k == "NOTIFICATION" and _notification(tool) in ("slack", "email"):
        default = ("sends a message to a Slack channel" if _notification(tool) == "slack"
                   else "sends an email")
        return Prepared(tool, {"name": model_name(tool), "description": desc or default,
                               "parameters": _MESSAGE})
    raise FeatureNotSupported(f"tool {tool.name}: tool_type {k or 'none'} cannot be run",
                              hint="Function, SQL, RAG, HTTP, NOTIFICATION and HUMAN tools run "
                                   "here.")


def _notification(tool: Obj) -> str:
    return str((tool.attrs.get("tool_params") or {}).get("notification_type") or "").lower()


def _inputs_schema(tool: Obj) -> dict:
    """An HTTP tool's arguments: its tool_inputs (strings), else one ``input``."""
    props = {str(e["name"]): {"type": "string", "description": str(e.get("description") or e["name"])}
             for e in tool.attrs.get("tool_inputs") or [] if isinstance(e, dict) and e.get("name")}
    if not props:
        props = {"input": {"type": "string", "description": "what to send to the service"}}
    return {"type": "object", "properties": props, "required": list(props)}


def asks_human(prepared: Prepared) -> bool:
    return prepared.tool is None or kind(prepared.tool) == "HUMAN"


def timeout(plpy) -> float:
    row = db.one(plpy, "select pg_catalog.current_setting('dbms_cloud_ai.agent_tool_timeout', true) as v")
    return settings.value("dbms_cloud_ai.agent_tool_timeout", row["v"])


def run(plpy, prepared: Prepared, args: dict, search_path: list[str], limit: float) -> str:
    """The tool's result; ToolFailed for what the model should be told."""
    k = kind(prepared.tool)
    if k == "FUNCTION":
        out = call_function(plpy, prepared.functions, args, search_path, limit)
    elif k == "SQL":
        out = sql_tool(plpy, prepared.tool, args, search_path)
    elif k == "RAG":
        out = rag_tool(plpy, prepared.tool, args, search_path)
    elif k in ("HTTP", "NOTIFICATION"):
        try:
            send = (outbound.http_tool if k == "HTTP" else outbound.slack_tool
                    if _notification(prepared.tool) == "slack" else mail.email_tool)
            out = send(plpy, prepared.tool, args, limit)
        except outbound.Failed as e:
            raise ToolFailed(str(e)) from None
    else:
        raise ToolFailed("this tool cannot be called here")
    return out


def arguments(raw) -> dict:
    """RUN_TOOL's input: a JSON object of arguments (a SQL or RAG tool also takes
    the question as plain text)."""
    if raw is None or not str(raw).strip():
        return {}
    try:
        value = jsontext.loads(raw)     # hostile nesting is a ValueError too
    except ValueError:
        return {"query": str(raw)}
    if not isinstance(value, dict):
        raise InvalidParameter("input must be a JSON object of the tool's arguments",
                               hint='For example: \'{"p_birth_date": "2000-01-01"}\'.')
    return value
