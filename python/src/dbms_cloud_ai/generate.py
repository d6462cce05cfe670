"""GENERATE: validate the call, resolve the profile, run the action."""

from __future__ import annotations

from dataclasses import dataclass, replace

from . import attributes, conversations, llm, profiles
from .errors import DcaError, FeatureNotSupported, InvalidParameter

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


@dataclass
class Call:
    """One generate() call: what every action handler receives."""

    plpy: object
    prompt: str
    action: str
    profile: profiles.Profile
    attrs: dict
    params: dict
    ctx: profiles.CallContext
    thread: conversations.Thread | None

    def system(self) -> list[dict]:
        text = "\n\n".join(self.attrs[k] for k in ("role", "additional_instructions")
                            if self.attrs.get(k))
        return [{"role": "system", "content": text}] if text else []

    def history(self) -> list[dict]:
        return self.thread.history if self.thread else []


def _chat(call: Call) -> str:
    messages = call.system() + call.history() + [{"role": "user", "content": call.prompt}]
    return llm.chat(call.plpy, call.attrs, messages, call.ctx).text


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
    thread = conversations.for_call(plpy, params, attrs, name, profile.name, ctx.session_conversation)
    call = Call(plpy, prompt, name, profile, attrs, params, ctx, thread)
    answer = handler(call)
    if thread is not None:
        # The naming call is a model call too: make it before writing anything,
        # so that no lock (the prompt row's key-share lock on its conversation)
        # is held while waiting for the model.
        named = None
        if thread.title_pending and conversations.claim_naming(plpy, thread.conversation_id):
            named = _name_conversation(call, answer)
        recorded = conversations.record(plpy, thread, profile.name, name, prompt, answer)
        if recorded and named is not None:
            conversations.set_title(plpy, thread, *named)
    return answer


def _name_conversation(call: Call, answer: str) -> tuple[str | None, str | None]:
    """A title and description for an untitled conversation after its first turn.

    A failure here must not lose the answer: the conversation stays untitled
    ((None, None)).  The call's settings are read again (settings=None): the
    ones in call.ctx date from before the first model call, and reusing them
    would give this call the whole statement_timeout again, so it could
    overrun it and the statement, answer included, would be cancelled."""
    try:
        reply = llm.chat(call.plpy, call.attrs, conversations.title_request(call.prompt, answer),
                         replace(call.ctx, settings=None)).text
        return conversations.parse_title(reply)
    except DcaError:
        return None, None
