"""Attributes of tools, tasks, agents and teams: Oracle's names, types and defaults.

Values arrive as a JSON object (create_<kind>, set_attributes) or one string
(set_attribute: '["T1"]', 'true').  Each is parsed into a typed JSON value,
stored in ``_agent_object.attributes`` with the defaults Oracle applies, and
the text the user gave is kept beside it (``attribute_text``), which the
``_ATTRIBUTES`` views show.  A set of attributes is bounded in size and depth
(MAX_BYTES, MAX_DEPTH): they go into every prompt of a run.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from .. import jsontext, names
from ..attributes import parse_json_object
from ..errors import FeatureNotSupported, InvalidJson, InvalidParameter, NullValue, ResultTooLarge

KINDS = ("TOOL", "TASK", "AGENT", "TEAM")
TOOL_TYPES = ("SQL", "RAG", "WEBSEARCH", "NOTIFICATION", "HTTP", "HUMAN")
# Tool types this version stores but cannot run yet: refused at create and set
# time, in this one place, so that lifting one is a one-line change.
UNSUPPORTED_TOOL_TYPES = frozenset(("WEBSEARCH",))
WHY_UNSUPPORTED = {"WEBSEARCH": "a web search tool needs a provider's web search service, "
                                "which this version does not call"}
NOTIFICATION_TYPES = ("slack", "email")
TOOL_PARAMS = ("profile_name", "credential_name", "endpoint", "notification_type", "recipient",
               "sender", "channel", "smtp_host", "subject")
MAX_BYTES = 64 * 1024      # the JSON text of one object's attributes
MAX_DEPTH = 8              # objects and arrays within each other
MAX_TEXT = 32 * 1024       # one instruction or role

# The instruction a built-in tool gets when none is given (Oracle fills one in).
DEFAULT_INSTRUCTIONS = {
    "SQL": "Use this tool to answer questions from the database: it turns the question into "
           "a SQL query over the tables of its AI profile and returns the rows.",
    "RAG": "Use this tool to answer questions from documents: it retrieves the passages of "
           "its AI profile's vector index that are closest to the question.",
    "HUMAN": "Use this tool to ask the user a question when you need more information.",
}


def hint(kind: str) -> str:
    return (f"See the attributes of {kind.lower()}s in the reference "
            f"(docs/reference/agents.md); set them with dbms_cloud_ai_agent.set_attribute().")


def _show(v) -> str:
    s = json.dumps(v) if not isinstance(v, str) else repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


def _text(kind, name, v, limit=MAX_TEXT):
    if v is None:
        raise NullValue(f"{kind.lower()} attribute {name} must not be NULL", hint=hint(kind))
    if isinstance(v, (dict, list, bool)):
        raise InvalidParameter(f"{kind.lower()} attribute {name} must be a string, not {_show(v)}",
                               hint=hint(kind))
    s = str(v)
    if not s.strip():
        raise NullValue(f"{kind.lower()} attribute {name} must not be empty", hint=hint(kind))
    if len(s) > limit:
        raise ResultTooLarge(f"{kind.lower()} attribute {name} is longer than {limit} characters",
                             hint=hint(kind))
    return s


def _bool(kind, name, v):
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true"
    if v is None or (isinstance(v, str) and not v.strip()):
        raise NullValue(f"{kind.lower()} attribute {name} must not be empty", hint=hint(kind))
    raise InvalidParameter(f"{kind.lower()} attribute {name} must be true or false, not {_show(v)}",
                           hint=hint(kind))


def _json(kind, name, v):
    """A JSON array or object may arrive as JSON text (set_attribute)."""
    if isinstance(v, str):
        try:
            return jsontext.loads(v)
        except ValueError:
            raise InvalidJson(f"{kind.lower()} attribute {name} is not valid JSON: {_show(v)}",
                              hint=hint(kind)) from None
    return v


def object_name(raw, kind: str) -> str:
    """An object's name by Oracle's rules (names.normalize)."""
    return names.normalize(raw, kind.lower())


def _ref(kind, name, v, target):
    """A name of another object in an attribute (a task's tools, a team's agents)."""
    if not isinstance(v, str) or not v.strip():
        raise InvalidParameter(f"{kind.lower()} attribute {name} must name a {target.lower()}, "
                               f"not {_show(v)}", hint=hint(kind))
    return object_name(v, target)


def _tools(kind, name, v):
    v = _json(kind, name, v)
    if not isinstance(v, list):
        raise InvalidParameter(f"{kind.lower()} attribute {name} must be a JSON array of tool names",
                               hint=hint(kind))
    return [_ref(kind, name, t, "TOOL") for t in v]


def _members(kind, name, v):
    v = _json(kind, name, v)
    if not isinstance(v, list) or not v:
        raise InvalidParameter(
            f"team attribute {name} must be a non-empty JSON array",
            detail='Each element looks like {"name": "<agent>", "task": "<task>"}.', hint=hint(kind))
    out = []
    for i, m in enumerate(v):
        if not isinstance(m, dict) or set(m) - {"name", "task"} or "name" not in m or "task" not in m:
            raise InvalidParameter(
                f"team attribute {name}: element {i + 1} must be {{\"name\": \"<agent>\", "
                "\"task\": \"<task>\"}", hint=hint(kind))
        out.append({"name": _ref(kind, name, m["name"], "AGENT"),
                    "task": _ref(kind, name, m["task"], "TASK")})
    return out


def _process(kind, name, v):
    s = _text(kind, name, v).strip().lower()
    if s != "sequential":
        raise InvalidParameter(f"team attribute process must be 'sequential', not {_show(v)}",
                               hint=hint(kind))
    return s


def _tool_type(kind, name, v):
    s = _text(kind, name, v).strip().upper()
    if s not in TOOL_TYPES:
        raise InvalidParameter(f"tool attribute tool_type must be one of {', '.join(TOOL_TYPES)}, "
                               f"not {_show(v)}", hint=hint(kind))
    return s


def _tool_inputs(kind, name, v):
    v = _json(kind, name, v)
    if not isinstance(v, list):
        raise InvalidParameter(f"tool attribute {name} must be a JSON array of "
                               '{"name": ..., "description": ...}', hint=hint(kind))
    for i, item in enumerate(v):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) \
                or not item["name"].strip() or set(item) - {"name", "description"} \
                or not isinstance(item.get("description", ""), str):
            raise InvalidParameter(f"tool attribute {name}: element {i + 1} must be "
                                   '{"name": "<argument>", "description": "<text>"}', hint=hint(kind))
    return v


def _tool_params(kind, name, v):
    v = _json(kind, name, v)
    if not isinstance(v, dict):
        raise InvalidParameter(f"tool attribute {name} must be a JSON object", hint=hint(kind))
    out = {}
    for k, val in v.items():
        key = k.strip().lower() if isinstance(k, str) else k
        if key not in TOOL_PARAMS:
            raise InvalidParameter(f"unknown tool_params key {k!r}",
                                   detail="Known keys: " + ", ".join(TOOL_PARAMS) + ".",
                                   hint=hint(kind))
        if val is not None:
            out[key] = _text(kind, f"tool_params.{key}", val)
    return out


def _function(kind, name, v):
    s = _text(kind, name, v, limit=300).strip()
    return s


# kind -> attribute -> (parser, default); a default None means none.
SPEC = {
    "AGENT": {"profile_name": (_text, None), "role": (_text, None),
              "enable_human_tool": (_bool, True), "supervisor": (_bool, None)},
    "TASK": {"instruction": (_text, None), "tools": (_tools, None),
             "input": (lambda k, n, v: _ref(k, n, v, "TASK"), None),
             "enable_human_tool": (_bool, True)},
    "TEAM": {"agents": (_members, None), "process": (_process, "sequential"),
             "supervisor_agent": (lambda k, n, v: _ref(k, n, v, "AGENT"), None),
             "supervisor_task": (lambda k, n, v: _ref(k, n, v, "TASK"), None)},
    "TOOL": {"instruction": (_text, None), "function": (_function, None),
             "tool_inputs": (_tool_inputs, None), "tool_type": (_tool_type, None),
             "tool_params": (_tool_params, None)},
}
REQUIRED = {"AGENT": ("profile_name", "role"), "TASK": ("instruction",), "TEAM": ("agents",),
            "TOOL": ()}
# Attributes that always have a value, so that NULL cannot remove them (Oracle
# refuses a team's process set to NULL, ORA-20053, rather than resetting it).
NOT_NULL = {k: v + (("process",) if k == "TEAM" else ()) for k, v in REQUIRED.items()}


def kind_of(object_type) -> str:
    """SET_ATTRIBUTE's object_type ('agent', 'Task', ...) as stored."""
    if object_type is None:
        raise NullValue("object_type must not be NULL",
                        hint="Pass object_type => 'agent', 'task', 'tool' or 'team'.")
    k = str(object_type).strip().upper()
    if k not in KINDS:
        raise InvalidParameter(f"unknown object_type {object_type!r}",
                               hint="Pass object_type => 'agent', 'task', 'tool' or 'team'.")
    return k


def _depth(v, level=0) -> int:
    if isinstance(v, dict):
        return max([_depth(x, level + 1) for x in v.values()] or [level + 1])
    if isinstance(v, list):
        return max([_depth(x, level + 1) for x in v] or [level + 1])
    return level


def bounded(value, what: str, kind: str):
    """Refuse attributes too large or too deeply nested (54000)."""
    if _depth(value) > MAX_DEPTH:
        raise ResultTooLarge(f"{what} of the {kind.lower()} are nested more than {MAX_DEPTH} deep",
                             hint=hint(kind))
    if len(json.dumps(value)) > MAX_BYTES:
        raise ResultTooLarge(f"{what} of the {kind.lower()} are larger than {MAX_BYTES} bytes",
                             hint=hint(kind))
    return value


def parse_object(text, kind: str) -> dict:
    """An attributes argument (JSON text, or a dict) as a dict, bounded."""
    if isinstance(text, str) and len(text) > MAX_BYTES:
        raise ResultTooLarge(f"attributes of the {kind.lower()} are larger than {MAX_BYTES} bytes",
                             hint=hint(kind))
    return bounded(parse_json_object(text, "attributes"), "attributes", kind)


def parse_value(kind: str, name, value):
    """One attribute: its folded name and typed value (None removes it)."""
    if name is None:
        raise NullValue("attribute_name must not be NULL", hint=hint(kind))
    key = str(name).strip().lower()
    if key not in SPEC[kind]:
        raise InvalidParameter(f"unknown {kind.lower()} attribute {name!r}",
                               detail="Known: " + ", ".join(SPEC[kind]) + ".", hint=hint(kind))
    if value is None:
        return key, None
    if isinstance(value, str):     # JSON text (set_attribute): bounded once parsed, below
        if len(value) > MAX_BYTES:
            raise ResultTooLarge(f"attribute {key} of the {kind.lower()} is larger than "
                                 f"{MAX_BYTES} bytes", hint=hint(kind))
        stripped = value.strip()
        if stripped[:1] in ("[", "{"):
            try:
                bounded(jsontext.loads(stripped), f"attribute {key}", kind)
            except ValueError:
                pass                 # the attribute's parser says what is wrong with it
    typed = SPEC[kind][key][0](kind, key, bounded(value, f"attribute {key}", kind))
    return key, bounded(typed, f"attribute {key}", kind)


def parse_all(kind: str, attrs: dict) -> dict:
    return dict(parse_value(kind, k, v) for k, v in attrs.items())


def merge(kind: str, base: dict, changes: dict) -> dict:
    """Apply typed changes (None removes), then the defaults; check the whole."""
    merged = dict(base)
    for k, v in changes.items():
        if v is None:
            if k in NOT_NULL[kind]:
                raise NullValue(f"{kind.lower()} attribute {k} is required and must not be NULL",
                                hint=hint(kind))
            merged.pop(k, None)
        else:
            merged[k] = v
    for k, (_, default) in SPEC[kind].items():
        if default is not None and k not in merged:
            merged[k] = default
    check(kind, merged)
    return merged


def check(kind: str, attrs: dict) -> None:
    """Cross-attribute rules of a whole set of attributes."""
    for k in REQUIRED[kind]:
        if k not in attrs:
            raise NullValue(f"{kind.lower()} attribute {k} is required", hint=hint(kind))
    if kind == "TOOL":
        _check_tool(attrs)
    if kind == "TEAM" and attrs.get("supervisor_task") and not attrs.get("supervisor_agent"):
        raise InvalidParameter("team attribute supervisor_task needs supervisor_agent",
                               hint=hint(kind))


def _check_tool(attrs: dict) -> None:
    t = attrs.get("tool_type")
    if t in UNSUPPORTED_TOOL_TYPES:
        raise FeatureNotSupported(
            f"tool_type {t} is not supported in this version: {WHY_UNSUPPORTED[t]}",
            detail="Supported tool types: "
                   + ", ".join(x for x in TOOL_TYPES if x not in UNSUPPORTED_TOOL_TYPES)
                   + ", and custom tools naming a function.",
            hint="Write a function that does it and create a tool with its \"function\".")
    if t is None and not attrs.get("function"):
        raise NullValue("a tool needs a tool_type or a function",
                        hint='Pass "tool_type" (SQL, RAG, HUMAN) or "function".')
    params = attrs.get("tool_params") or {}
    if t in ("SQL", "RAG") and not params.get("profile_name"):
        raise NullValue(f"a {t} tool needs tool_params.profile_name",
                        hint='Pass "tool_params": {"profile_name": "<profile>"}.')
    if t == "HTTP" and not params.get("endpoint"):
        raise NullValue("an HTTP tool needs tool_params.endpoint",
                        hint='Pass "tool_params": {"endpoint": "https://...", '
                             '"credential_name": "<credential>"}.')
    if t == "HTTP" and urlsplit(params["endpoint"].strip()).scheme.lower() not in ("http", "https"):
        raise InvalidParameter(f"tool_params.endpoint must be an http or https URL, "
                               f"not {_show(params['endpoint'])}",
                               hint='Pass "tool_params": {"endpoint": "https://host/path"}.')
    if t == "NOTIFICATION":
        _check_notification(params)
    if t in DEFAULT_INSTRUCTIONS and "instruction" not in attrs:
        attrs["instruction"] = DEFAULT_INSTRUCTIONS[t]


def _check_notification(params: dict) -> None:
    kind = str(params.get("notification_type") or "").strip().lower()
    if not kind:
        raise NullValue("a NOTIFICATION tool needs tool_params.notification_type",
                        hint="Pass \"notification_type\": \"slack\".")
    if kind not in NOTIFICATION_TYPES:
        raise InvalidParameter(f"notification_type must be slack or email, not {_show(kind)}",
                               hint="Pass \"notification_type\": \"slack\".")
    if kind == "email":
        missing = [k for k in ("recipient", "sender", "smtp_host") if not params.get(k)]
        if missing:
            raise NullValue("an email notification tool needs tool_params." + ", ".join(missing),
                            hint='Pass "tool_params": {"notification_type": "email", "recipient": '
                                 '"...", "sender": "...", "smtp_host": "host[:port]", '
                                 '"credential_name": "<smtp login>", "subject": "..."}.')
        return
    if not params.get("channel"):
        raise NullValue("a Slack notification tool needs tool_params.channel",
                        hint='Pass "tool_params": {"notification_type": "slack", '
                             '"credential_name": "<bot token credential>", "channel": "<id>"}.')


def texts(kept: dict, parsed: dict, given: dict, attrs: dict) -> dict:
    """The texts the views show: kept ones for attributes not changed now, the
    text given now for those set; a removed attribute's text goes."""
    out = {k: v for k, v in kept.items() if k not in parsed}
    out.update((k, given[k]) for k in parsed if k in given and k in attrs)
    return {k: v for k, v in out.items() if k in attrs}
