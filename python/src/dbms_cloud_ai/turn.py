"""One generate() call, a *turn*: the Call every action handler receives, the
Answer it returns, and the Action record that describes an action once.

generate.py holds the table of actions (ACTIONS) and runs a turn: validate,
build the Call, replay a retry, run the handler, then the steps after the
answer.  Handlers live with their concern (nl2sql/actions.py, text/actions.py,
feedback.py, memory/recall.py) and import this module, never generate.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from . import profiles
from .conversations import store as conversations
from .conversations import summaries

# generate() params every action accepts; an Action adds its own (Action.params).
PARAMS = ("conversation_id", "request_id")


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
    use_examples: bool = True            # NL2SQL: include feedback examples (nl2sql/examples.py)
    speaker: object = None               # long-term memory: identity.Identity, once read
    records: bool = True                 # the turn is stored in its conversation (Action.records)

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
        if self.records:
            summaries.before_answer(self)
        return self.thread.history


@dataclass
class Answer:
    """What a handler returns: the text generate() returns, and for NL2SQL the
    accepted query (the statement log for FEEDBACK; what runsql's turn keeps)."""

    text: str | None
    sql: str | None = None
    failed: bool = False   # NL2SQL answered Oracle's "could not be generated" text: not recorded


@dataclass(frozen=True)
class Action:
    """An action of generate(), described once."""

    name: str
    handler: Callable[[Call], Answer]
    history: str | None = None     # the conversation: "records" (reads it, stores the turn),
                                   # "reads" (stores nothing: showprompt), None (unused)
    keeps: str = "text"            # what a recorded turn keeps: the answer "text", or the "sql"
    logs_statement: bool = False   # NL2SQL: logged by sql_id, for Oracle's FEEDBACK
    replay: str = "stored"         # a retry (same request_id): the "stored" answer, or "rerun" its SQL
    params: tuple[str, ...] = ()   # generate() params of this action alone
    sends_rows: bool = False       # sends query results to the model (refused while data
                                   # access is disabled: data_access.py)

    @property
    def records(self) -> bool:
        return self.history == "records"

    def kept(self, answer: Answer) -> str | None:
        return answer.sql if self.keeps == "sql" else answer.text
