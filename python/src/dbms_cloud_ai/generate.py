"""GENERATE: validate the call, resolve the profile, run the action."""

from __future__ import annotations

from . import attributes, llm, profiles
from .errors import FeatureNotSupported, InvalidParameter

ACTIONS = ("runsql", "showsql", "explainsql", "narrate", "chat", "showprompt",
           "summarize", "translate", "feedback")
PARAMS = ("conversation_id",)


def _action(action):
    name = (action or "runsql").strip().lower()
    if name not in ACTIONS:
        raise InvalidParameter(f"unknown action {action!r}",
                               detail="Oracle's actions are " + ", ".join(ACTIONS)
                               + "; this version implements " + ", ".join(HANDLERS) + ".",
                               hint="Pass one of the valid actions, for example action => 'chat'.")
    return name


def _chat(plpy, prompt, attrs, params, ctx):
    messages = []
    system = "\n\n".join(attrs[k] for k in ("role", "additional_instructions") if attrs.get(k))
    if system:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": prompt})
    return llm.chat(plpy, attrs, messages, ctx).text


HANDLERS = {"chat": _chat}


def generate(plpy, prompt, profile_name, action, attributes_json, params_json):
    name = _action(action)
    if prompt is None or not prompt.strip():
        raise InvalidParameter("prompt must not be empty",
                               hint="Pass the question as prompt => '...'.")
    ctx = profiles.for_call(plpy, profile_name)
    profile = ctx.profile
    overrides = attributes.parse_all(attributes.parse_json_object(attributes_json, "attributes"))
    attrs = attributes.merge(profile.attrs, overrides)
    if overrides:
        attributes.check_profile(attrs)
    params = attributes.parse_json_object(params_json, "params")
    for key in params:
        if key not in PARAMS:
            raise InvalidParameter(f"unknown generate parameter {key!r}",
                                   detail="Valid parameters: " + ", ".join(PARAMS) + ".",
                                   hint="Remove it from params.")
    handler = HANDLERS.get(name)
    if handler is None:
        raise FeatureNotSupported(
            f"action {name} is not available in this version of dbms_cloud_ai",
            detail="This version implements: " + ", ".join(HANDLERS) + ".",
            hint="Use action => 'chat'.")
    if params.get("conversation_id") is not None:
        raise FeatureNotSupported("conversations are not available in this version of dbms_cloud_ai",
                                  hint="Remove conversation_id from params.")
    return handler(plpy, prompt, attrs, params, ctx)
