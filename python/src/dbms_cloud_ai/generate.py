"""GENERATE: validate the call, resolve the profile, run the action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import attributes, data_access, profiles, sharing
from .conversations import store as conversations
from .conversations import summaries
from .errors import DcaError, InvalidParameter
from .lazy import LazyModule, lazy_function
from .memory import identity
from .memory import recall as memory
from .model import accounting, llm
from .turn import PARAMS, Action, Answer, Call

if TYPE_CHECKING:   # the same modules, for tools that read imports (lazy.py)
    from .agents import run as agents
    from .memory import jobs as memory_jobs
    from .nl2sql import actions as nl2sql
    from .nl2sql import feedback
    from .text import actions as text_actions
    from .vector_indexes import narrate as documents
else:
    agents = LazyModule("agents.run")             # Select AI Agent: the session's team
    feedback = LazyModule("nl2sql.feedback")
    memory_jobs = LazyModule("memory.jobs")   # only a turn that long-term memory will read
    nl2sql = LazyModule("nl2sql.actions")
    text_actions = LazyModule("text.actions")
    documents = LazyModule("vector_indexes.narrate")   # narrate over a vector index

CHAT_VERSION = accounting.version("chat", "system: role, additional_instructions; history; prompt")


def _chat(call: Call) -> Answer:
    messages = call.system() + call.history() + [{"role": "user", "content": call.prompt}]
    return Answer(memory.chat(call, messages, CHAT_VERSION))


def _nl2sql(name):
    """The NL2SQL action; a profile naming a vector index needs it usable first, as in Oracle,
    where a disabled index refuses the profile's queries (42704 missing, 55000 disabled)."""
    action = lazy_function(nl2sql, name)

    def run(call: Call) -> Answer:
        if call.attrs.get("vector_index_name"):
            documents.index_of(call.plpy, call.attrs["vector_index_name"])
        return action(call)
    return run


def _narrate(call: Call) -> Answer:
    """narrate answers from documents when the profile names a vector index,
    else from the rows of a generated query."""
    if call.attrs.get("vector_index_name"):
        return documents.narrate(call)
    return nl2sql.narrate(call)


# Every action, once, in Oracle's order.  Handlers import their module on first
# use (a chat session loads no NL2SQL): lazy_function.
ACTIONS = {a.name: a for a in (
    Action("runsql", _nl2sql("runsql"), history="records", keeps="sql", logs_statement=True,
           replay="rerun"),
    Action("showsql", _nl2sql("showsql"), history="records", keeps="sql", logs_statement=True),
    Action("explainsql", _nl2sql("explainsql"), history="records", logs_statement=True),
    Action("narrate", _narrate, history="records", logs_statement=True,
           sends_rows=True),
    Action("chat", _chat, history="records"),
    Action("showprompt", _nl2sql("showprompt"), history="reads"),
    # text/actions.py's SUMMARY_PARAMS (a test keeps them equal: importing it here
    # would load the text actions into every session)
    Action("summarize", lazy_function(text_actions, "summarize_action"),
           params=("min_words", "max_words", "summary_style", "chunk_processing_method",
                   "extractiveness_level")),
    Action("translate", lazy_function(text_actions, "translate_action")),
    Action("feedback", lazy_function(feedback, "statement")),
    # The session's team (dbms_cloud_ai_agent.set_team): generate() hands it over
    # before resolving a profile, as each agent names its own.
    Action("agent", lazy_function(agents, "agent_action"), params=("variables",)),
)}


def _action(name) -> Action:
    action = ACTIONS.get((name or "runsql").strip().lower())
    if action is None:
        raise InvalidParameter(f"unknown action {name!r}",
                               detail="Oracle's actions are " + ", ".join(ACTIONS) + ".",
                               hint="Pass one of the valid actions, for example action => 'chat'.")
    return action


def _params(action: Action, params_json) -> dict:
    params = attributes.parse_json_object(params_json, "params")
    for key in params:
        if key not in PARAMS and key not in action.params:
            raise InvalidParameter(f"unknown generate parameter {key!r}",
                                   detail="Valid parameters: "
                                   + ", ".join(PARAMS + action.params) + ".",
                                   hint="Remove it from params.")
    return params


def generate(plpy, prompt, profile_name, action, attributes_json, params_json,
             search_path=None):
    """GENERATE: the call checked, a retry answered from its stored turn, else the
    action's handler, then the steps after the answer (the turn recorded, the
    NL2SQL statement logged), all accounted to the turn."""
    act = _action(action)
    if act.name == "agent":
        return agents.session_run(plpy, prompt, params_json, search_path)
    call, request_id = _call(plpy, act, prompt, profile_name, attributes_json, params_json,
                             search_path)
    if act.sends_rows:          # before anything is read, sent, stored or replayed
        data_access.require(call.ctx, act.name)
    stored = conversations.stored_turn(plpy, request_id) if request_id is not None else None
    if stored is not None:      # a retry of a call that stored its turn: no model call
        return _replay(call, act, stored, request_id)
    with accounting.turn(plpy, call.ctx, call.profile.name, act.name) as turn:
        if call.thread is not None:
            turn.conversation_id = call.thread.conversation_id
        answer = act.handler(call)
        prompt_id = None
        if call.thread is not None and act.records and not answer.failed:
            try:
                prompt_id = _record(call, act, answer, turn, request_id)
            except conversations.TurnExists as e:
                # The same request id ran concurrently and stored first: this call's
                # model calls are accounted to that turn, whose answer it returns.
                accounting.link_prompt(turn, e.turn["prompt_id"], call.thread.conversation_id)
                return _replay(call, act, e.turn, request_id)
        # Oracle's FEEDBACK names NL2SQL statements by SQL_ID: log them.
        # Not for a shared profile: its statements are the owner's to give feedback on.
        if act.logs_statement and answer.sql and call.ctx.owner is None:
            feedback.log_statement(plpy, call.ctx, call.profile.name, act.name, call.prompt,
                                   answer.sql, prompt_id)
    return answer.text


def _call(plpy, act: Action, prompt, profile_name, attributes_json, params_json,
          search_path) -> tuple[Call, str | None]:
    """The checked call, and its request_id when the turn it stores can be retried."""
    if prompt is None or not prompt.strip():
        raise InvalidParameter("prompt must not be empty",
                               hint="Pass the question as prompt => '...'.")
    ctx = profiles.for_call(plpy, profile_name)
    overrides = attributes.parse_all(attributes.parse_json_object(attributes_json, "attributes"))
    sharing.check_overrides(ctx.profile.name, ctx.owner, overrides)
    caps = sharing.check_caps(ctx.profile.name, ctx.owner, ctx.profile.attrs, overrides)
    attrs = attributes.merge(ctx.profile.attrs, overrides)
    if overrides:
        attributes.check_profile(attrs)
    params = _params(act, params_json)
    request_id = conversations.parse_request_id(params.get("request_id"))
    thread = None
    if act.history is not None:
        thread = conversations.for_call(plpy, params, attrs, ctx.profile.name,
                                        ctx.session_conversation,
                                        rows_private=not data_access.enabled(ctx), caps=caps)
    call = Call(plpy, prompt, act.name, ctx.profile, attrs, params, ctx, thread,
                list(search_path or []), records=act.records)
    return call, _checked_request_id(call, request_id)


def _checked_request_id(call: Call, request_id):
    """request_id when the turn will be stored in a named conversation; None when
    nothing is stored (nothing to store twice); 22023 for a session conversation."""
    if call.thread is None or not call.records:
        return None
    if request_id is not None and call.thread.kind != "named":
        raise InvalidParameter(
            "params request_id needs a named conversation",
            detail="The session's short-term conversation is not kept across sessions, "
                   "where a retry usually comes from.",
            hint="Pass params conversation_id (dbms_cloud_ai.create_conversation()), "
                 "or leave out request_id.")
    return request_id


def _record(call: Call, act: Action, answer: Answer, turn, request_id) -> str | None:
    """The steps after the answer of a recorded turn, in order: name the
    conversation, store the turn, save the condensed history, queue the memory
    job.  The prompt id when a named conversation stored it."""
    plpy, thread = call.plpy, call.thread
    kept = act.kept(answer)
    # The naming call is a model call too: make it before writing anything,
    # so that no lock (the prompt row's key-share lock on its conversation)
    # is held while waiting for the model.
    named = None
    if thread.title_pending and conversations.claim_naming(plpy, thread.conversation_id):
        named = _name_conversation(call, kept)
    prompt_id = conversations.new_prompt_id()
    accounting.link_prompt(turn, prompt_id, thread.conversation_id)
    speaker = None
    if thread.kind == "named" and call.attrs.get("long_term_memory"):
        speaker = call.speaker or identity.current(plpy)
    recorded = conversations.record(plpy, thread, call.profile.name, act.name, call.prompt, kept,
                                    prompt_id, accounting.turn_totals(turn), speaker, request_id)
    if not recorded:
        return None
    if named is not None:
        conversations.set_title(plpy, thread, *named)
    summaries.save(plpy, thread)
    if speaker is not None:
        memory_jobs.enqueue(plpy, speaker, thread.conversation_id, call.profile.name, prompt_id)
    return prompt_id if thread.kind == "named" else None


def _replay(call: Call, act: Action, stored: dict, request_id: str):
    """The answer of the turn ``request_id`` stored, for a retry of that call:
    nothing is written and the model is not asked.  runsql keeps the SQL, not
    its rows: the stored query is checked and run again."""
    conversations.check_replay(stored, request_id, call.thread.conversation_id,
                               call.profile.name, call.action, call.prompt)
    if act.replay != "rerun":
        return stored["prompt_response"]
    return nl2sql.rerun(call, stored["prompt_response"])


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
    ((None, None)).  It gets what is left of statement_timeout (model/timing.py)."""
    try:
        reply = llm.chat(call.plpy, call.attrs, conversations.title_request(call.prompt, answer),
                         call.ctx, purpose="title",
                         prompt_version=conversations.TITLE_VERSION).text
        return conversations.parse_title(reply)
    except DcaError:
        return None, None
