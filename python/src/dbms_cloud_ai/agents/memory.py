"""Long-term memory in a team run: the same conditions, recall and tool as a chat turn.

An agent whose profile has ``long_term_memory`` on, in an organization whose
memory switch is on, with a subject (memory/recall.py ``active``: exactly
chat's conditions), gets on each task

* recall: the first model request of the task carries the subject's most
  relevant memories (for the run's prompt) in a data section before the
  instruction, as a chat's first turn does; the memories are not kept in the
  task's messages (a paused run stores those), only sent;
* the ``search_memories`` tool beside the task's own tools; its calls run
  memory/recall.py ``run_tool_call`` (accounted as purpose 'tool' with the
  memories as sources, as chat's) and are rows of the run's tool history.

The subject is the caller's (identity.current, read once per run call): a
grantee running a shared team recalls its own memories, never the team
owner's.  The run's turn in its conversation is recorded with that speaker and
queues the memory job (memory/jobs.py ``enqueue``), as a chat turn does, when
any agent of the run has long_term_memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ..memory import identity, jobs
from ..memory import recall as memory
from ..model import accounting
from . import history

SEARCH_TOOL = memory.SEARCH_TOOL
NAME = SEARCH_TOOL["name"]


@dataclass
class _Probe:
    """What recall.active reads of a call."""

    plpy: object
    attrs: dict
    speaker: object = None


@dataclass
class RunMemory:
    plpy: object
    speaker: identity.Identity | None = None   # the caller's identity, once read
    profile_name: str | None = None            # the first profile with long_term_memory: the job's

    def for_task(self, ctx) -> identity.Identity | None:
        """The identity whose memories this task's agent uses, or None."""
        probe = _Probe(self.plpy, ctx.profile.attrs, self.speaker)
        ident = memory.active(probe)
        self.speaker = probe.speaker
        if ctx.profile.attrs.get("long_term_memory") and self.profile_name is None:
            self.profile_name = ctx.profile.name
        return ident

    def recorded_speaker(self, thread) -> identity.Identity | None:
        """Who the run's turn is recorded as said by (generate._record's rule):
        only in a named conversation, when an agent had long_term_memory."""
        if thread.kind != "named" or self.profile_name is None:
            return None
        if self.speaker is None:
            self.speaker = identity.current(self.plpy)
        return self.speaker

    def enqueue(self, thread, speaker, prompt_id: str) -> None:
        if speaker is not None:
            jobs.enqueue(self.plpy, speaker, thread.conversation_id, self.profile_name, prompt_id)


def recalled(plpy, ident, question: str, ctx) -> list[dict]:
    return memory.recall(plpy, ident, question, ctx.profile.attrs, ctx)


def with_recall(messages: list[dict], memories: list[dict]) -> list[dict]:
    """The request: the recalled memories just before the instruction (last)."""
    if not memories:
        return messages
    return messages[:-1] + [memory.recall_message(memories)] + messages[-1:]


def sources(completion, memories: list[dict]) -> None:
    if memories:
        accounting.add_sources(completion.extra["call_id"], "memory",
                                      [(m["memory_id"], m["rank"]) for m in memories])


def search(plpy, run, step, ident, tc: dict, ctx) -> str:
    """One search_memories call of a task: its result, and a tool-history row
    linked to the call it was accounted as."""
    started = history._now()
    output, call_id = memory.run_tool_call(plpy, ident, tc, ctx.profile.attrs, ctx)
    args = tc.get("arguments") if isinstance(tc.get("arguments"), dict) else {}
    history.tool(plpy, run, run.owner, step.order, NAME, step.agent.name, step.task.name, started,
                 json.dumps(args, ensure_ascii=False), output, output, call_id)
    return output
