"""GENERATE: validate the call, resolve the profile, run the action."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from . import (
    accounting,
    attributes,
    conversations,
    identity,
    llm,
    memory,
    profiles,
    summaries,
)
from .errors import DcaError, FeatureNotSupported, InvalidParameter
from .lazy import LazyModule

feedback = LazyModule("feedback")
memory_jobs = LazyModule("memory_jobs")   # only a turn that long-term memory will read
nl2sql = LazyModule("nl2sql")
text_actions = LazyModule("text_actions")

ACTIONS = ("runsql", "showsql", "explainsql", "narrate", "chat", "showprompt",
           "summarize", "translate", "feedback")
PARAMS = ("conversation_id", "request_id")
# Accepted by that action only (text_actions.SUMMARY_PARAMS: a test keeps them equal).
ACTION_PARAMS = {"summarize": ("min_words", "max_words", "summary_style",
                               "chunk_processing_method", "extractiveness_level")}


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
    search_path: list[str] = field(default_factory=list)  # the caller's, for NL2SQL
    use_examples: bool = True            # NL2SQL: include feedback examples (feedback.py)
    generated_sql: str | None = None     # NL2SQL: the accepted query, for the statement log
    speaker: object = None               # long-term memory: identity.Identity, once read

    def system(self, instructions: bool = True) -> list[dict]:
        """The role, and additional_instructions unless the action places
        them itself (NL2SQL puts them next to the question)."""
        keys = ("role", "additional_instructions") if instructions else ("role",)
        text = "\n\n".join(self.attrs[k] for k in keys if self.attrs.get(k))
        return [{"role": "system", "content": text}] if text else []

    def history(self) -> list[dict]:
        """The conversation sent before the question.  The first use in a turn
        that is recorded folds the prompts that fell out of the window into the
        summary (one model call, nothing written; ``summaries``): so the summary
        call comes before the answer and after the action's own checks."""
        if self.thread is None:
            return []
        if self.action not in _READS_HISTORY_ONLY:
            summaries.before_answer(self)
        return self.thread.history


CHAT_VERSION = accounting.version("chat", "system: role, additional_instructions; history; prompt")


def _chat(call: Call) -> str:
    messages = call.system() + call.history() + [{"role": "user", "content": call.prompt}]
    return memory.chat(call, messages, CHAT_VERSION)


def _nl2sql(call: Call):
    return getattr(nl2sql, call.action)(call.plpy, call, call.search_path)


# Each handler returns the answer, or (answer, what the conversation keeps):
# runsql and showsql keep the SQL, as Oracle does.
HANDLERS = {
    "chat": _chat,
    "runsql": _nl2sql,
    "showsql": _nl2sql,
    "explainsql": _nl2sql,
    "narrate": _nl2sql,
    "showprompt": _nl2sql,
    "summarize": lambda call: text_actions.summarize_action(call),
    "translate": lambda call: text_actions.translate_action(call),
    "feedback": lambda call: feedback.statement(call),
}

# Actions whose prompt includes the conversation but which are not recorded in it.
_READS_HISTORY_ONLY = {"showprompt": "runsql"}


def generate(plpy, prompt, profile_name, action, attributes_json, params_json,
             search_path=None):
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
        if key not in PARAMS and key not in ACTION_PARAMS.get(name, ()):
            raise InvalidParameter(f"unknown generate parameter {key!r}",
                                   detail="Valid parameters: "
                                   + ", ".join(PARAMS + ACTION_PARAMS.get(name, ())) + ".",
                                   hint="Remove it from params.")
    handler = HANDLERS.get(name)
    if handler is None:
        raise FeatureNotSupported(
            f"action {name} is not available in this version of dbms_cloud_ai",
            detail="This version implements: " + ", ".join(HANDLERS) + ".",
            hint="Use action => 'chat'.")
    request_id = conversations.parse_request_id(params.get("request_id"))
    thread = conversations.for_call(plpy, params, attrs, _READS_HISTORY_ONLY.get(name, name),
                                    profile.name, ctx.session_conversation)
    call = Call(plpy, prompt, name, profile, attrs, params, ctx, thread, list(search_path or []))
    if not _records_turn(thread, name):
        request_id = None       # nothing is stored, so there is nothing to store twice
    elif request_id is not None and thread.kind != "named":
        raise InvalidParameter(
            "params request_id needs a named conversation",
            detail="The session's short-term conversation is not kept across sessions, "
                   "where a retry usually comes from.",
            hint="Pass params conversation_id (dbms_cloud_ai.create_conversation()), "
                 "or leave out request_id.")
    if request_id is not None:
        stored = conversations.stored_turn(plpy, request_id)
        if stored is not None:  # a retry of a call that stored its turn: no model call
            return _replay(call, stored, request_id)
    with accounting.turn(plpy, ctx, profile.name, name) as turn:
        if thread is not None:
            turn.conversation_id = thread.conversation_id
        answer = handler(call)
        kept = answer
        if isinstance(answer, tuple):
            answer, kept = answer
        prompt_id = None
        if thread is not None and name not in _READS_HISTORY_ONLY:
            # The naming call is a model call too: make it before writing anything,
            # so that no lock (the prompt row's key-share lock on its conversation)
            # is held while waiting for the model.
            named = None
            if thread.title_pending and conversations.claim_naming(plpy, thread.conversation_id):
                named = _name_conversation(call, kept)
            prompt_id = conversations.new_prompt_id()
            accounting.link_prompt(turn, prompt_id, thread.conversation_id)
            speaker = None
            if thread.kind == "named" and attrs.get("long_term_memory"):
                speaker = call.speaker or identity.current(plpy)
            try:
                recorded = conversations.record(plpy, thread, profile.name, name, prompt, kept,
                                                prompt_id, accounting.turn_totals(turn), speaker,
                                                request_id)
            except conversations.TurnExists as e:
                # The same request id ran concurrently and stored first: this call's
                # model calls are accounted to that turn, whose answer it returns.
                accounting.link_prompt(turn, e.turn["prompt_id"], thread.conversation_id)
                return _replay(call, e.turn, request_id)
            if recorded and named is not None:
                conversations.set_title(plpy, thread, *named)
            if recorded:
                summaries.save(plpy, thread)
            if recorded and speaker is not None:
                memory_jobs.enqueue(plpy, speaker, thread.conversation_id, profile.name,
                                    prompt_id)
            if not recorded or thread.kind != "named":
                prompt_id = None
        # Oracle's FEEDBACK names NL2SQL statements by SQL_ID: log them.
        if call.generated_sql:
            feedback.log_statement(plpy, ctx, profile.name, name, prompt, call.generated_sql,
                                   prompt_id)
    return answer


def _records_turn(thread, action) -> bool:
    return thread is not None and action not in _READS_HISTORY_ONLY


def _replay(call: Call, stored: dict, request_id: str):
    """The answer of the turn ``request_id`` stored, for a retry of that call:
    nothing is written and the model is not asked.  runsql keeps the SQL, not
    its rows: the stored query is checked and run again."""
    conversations.check_replay(stored, request_id, call.thread.conversation_id,
                               call.profile.name, call.action, call.prompt)
    if call.action != "runsql":
        return stored["prompt_response"]
    return nl2sql.rerun(call.plpy, call, stored["prompt_response"], call.search_path)


def select_ai(plpy, statement, search_path):
    """Oracle's ``SELECT AI [action] prompt``: the first word is the action when
    it names one (any case), else the action is runsql and all is the prompt.
    Uses the session profile, as the statement form does."""
    if statement is None or not statement.strip():
        raise InvalidParameter("SELECT AI needs a prompt",
                               hint="For example: select dbms_cloud_ai.select_ai("
                                    "'showsql how many customers');")
    first, *rest = statement.split(None, 1)
    if first.lower() in ACTIONS:
        action, prompt = first.lower(), (rest[0].strip() if rest else "")
    else:
        action, prompt = "runsql", statement.strip()
    return generate(plpy, prompt, None, action, None, None, search_path)


def _name_conversation(call: Call, answer: str) -> tuple[str | None, str | None]:
    """A title and description for an untitled conversation after its first turn.

    A failure here must not lose the answer: the conversation stays untitled
    ((None, None)).  The call's settings are read again (settings=None): the
    ones in call.ctx date from before the first model call, and reusing them
    would give this call the whole statement_timeout again, so it could
    overrun it and the statement, answer included, would be cancelled."""
    try:
        reply = llm.chat(call.plpy, call.attrs, conversations.title_request(call.prompt, answer),
                         replace(call.ctx, settings=None), purpose="title",
                         prompt_version=conversations.TITLE_VERSION).text
        return conversations.parse_title(reply)
    except DcaError:
        return None, None
