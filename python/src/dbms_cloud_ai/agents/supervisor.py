"""Supervised teams: a team whose attribute supervisor_agent names an agent runs
that agent instead of its members in order.

The supervisor's model is offered one tool per member (agent, task) pair, named
after the task, with one argument ``request``; it calls members as it sees fit
and answers when done.  A call runs the member's task as a sub-step of the run
(run.py's task loop: the request fills {query}; the member's own tools and bounds apply;
its task history row has its task_order) and its result goes back to the
supervisor.  Delegation is one level deep: members get only their own tools.
Members ask no human here (a question could not resume inside a delegation): the
human tool is not offered to them, nor to the supervisor.

The supervisor's instruction is its supervisor_task's (task_order 0 in the
history, its tools offered too), else INSTRUCTION.  The run's bounds (steps per
task, tool calls, tokens, time) count the supervisor and its members together.
"""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable

from ..errors import NotInPrerequisiteState, ResultTooLarge
from ..model import accounting, llm
from . import history, tools
from .team import Obj, Step, Team

INSTRUCTION = ("You lead a team. Answer the user's request below. To delegate part of the work, "
               "call the tool of the team member that fits, with a self-contained request; use "
               "their results, then answer the user yourself.\n\nThe user's request: {query}")
VERSION = accounting.version(
    "agent-supervisor", INSTRUCTION, "one tool per member (request); results as text")
_NAME = re.compile(r"[^A-Za-z0-9_-]")


@dataclasses.dataclass
class Loop:
    """What run.py lends the supervisor of its task loop (passed in: run.py imports
    this module)."""

    task: Callable          # run._task: one task's tool loop
    context: Callable       # run._context: an agent's profile for a call
    invoke: Callable        # run._invoke: one tool call, its history row
    tool_row: Callable      # run._tool_row
    fill: Callable          # run._fill: {query} and the variables
    without_tools: Callable  # run._without_tools: one request more when the model said nothing


@dataclasses.dataclass
class _Member:
    step: Step
    definition: dict


def _members(team: Team) -> dict[str, _Member]:
    """The supervisor's tools: the task's name (made a valid function name, unique)."""
    out: dict[str, _Member] = {}
    for step in team.steps:
        base = _NAME.sub("_", step.task.name)[:60] or "member"
        name, n = base, 1
        while name in out or name == tools.HUMAN:
            n += 1
            name = f"{base}_{n}"
        what = str(step.task.attrs.get("instruction") or "").replace("{query}", "the request")
        out[name] = _Member(_quiet(step), {
            "name": name,
            "description": (f"Delegate to the team member {step.agent.name} (task "
                            f"{step.task.name}): {what}")[:1000],
            "parameters": {"type": "object",
                           "properties": {"request": {"type": "string",
                                                      "description": "what to do, in full"}},
                           "required": ["request"]}})
    return out


def _quiet(step: Step) -> Step:
    """The member's step without the human: neither the built-in tool nor HUMAN tools."""
    attrs = {**step.task.attrs, "enable_human_tool": False}
    return dataclasses.replace(step, task=dataclasses.replace(step.task, attrs=attrs),
                               tools=[t for t in step.tools if tools.kind(t) != "HUMAN"])


def _check(agent: Obj) -> None:
    if agent.attrs.get("supervisor") is not True:
        raise NotInPrerequisiteState(f"agent {agent.name} is not a supervisor",
                                     hint="Set its attribute supervisor to true, or name another "
                                          "agent as the team's supervisor_agent.")


def run(plpy, loop: Loop, run, team: Team, prompt, variables: dict, past: list, bounds,
        search_path, turn, mem) -> str:
    """The supervised run: the supervisor's tool loop; its answer is the run's."""
    agent = team.supervisor
    _check(agent)
    step = team.supervisor_task or Step(0, agent, Obj(agent.owner, "TASK", None, "ENABLED",
                                                      {"instruction": INSTRUCTION}))
    step = dataclasses.replace(_quiet(step), agent=agent)
    ctx = loop.context(plpy, step, run.owner)
    members = _members(team)
    own = [tools.prepare(plpy, t, search_path) for t in step.tools]
    by_name = {p.definition["name"]: p for p in own}
    defs = [m.definition for m in members.values()] + \
        [p.definition for p in own if p.definition["name"] not in members]
    system = str(agent.attrs.get("role") or "")
    instruction = loop.fill(str(step.task.attrs.get("instruction") or ""), prompt, variables)
    messages = ([{"role": "system", "content": system}] if system else []) + list(past) \
        + [{"role": "user", "content": instruction}]
    history.task(plpy, run, 0, agent.name, step.task.name, "RUNNING", input_text=prompt,
                 conversation_params=json.dumps({"conversation_id": run.team["conversation_id"]}))
    results: dict[int, str] = {}
    for _ in range(bounds.max_steps):
        turn.profile_name = ctx.profile.name
        bounds.before_request()
        c = llm.chat(plpy, ctx.profile.attrs, messages, ctx, prompt_version=VERSION, tools=defs)
        bounds.tokens += (c.input_tokens or 0) + (c.output_tokens or 0)
        if not c.tool_calls:
            text = c.text or ""
            if not text.strip() and any(m.get("role") == "tool" for m in messages):
                text = loop.without_tools(plpy, ctx, messages, bounds)
            history.task(plpy, run, 0, agent.name, step.task.name, "SUCCEEDED", result=text)
            return text
        messages.append({"role": "assistant", "content": c.text or None, "tool_calls": c.tool_calls})
        for tc in c.tool_calls:
            bounds.before_tool()
            member = members.get(tc.get("name"))
            if member is None:
                out = loop.invoke(plpy, run, step, by_name.get(tc.get("name")), tc,
                                     {**members, **by_name}, search_path, bounds)
            else:
                out = _delegate(plpy, loop, run, team, step, member, tc, variables, results,
                                bounds, search_path, turn, mem)
            messages.append({"role": "tool", "tool_call_id": tc.get("id"), "name": tc.get("name"),
                             "content": out})
    raise ResultTooLarge(f"the supervisor {agent.name} did not answer within "
                         f"dbms_cloud_ai.agent_max_steps ({bounds.max_steps}) model requests",
                         hint="It kept delegating; raise the setting or make its instruction say "
                              "when to answer.")


def _delegate(plpy, loop: Loop, run, team, step, member: _Member, tc: dict, variables, results, bounds,
              search_path, turn, mem) -> str:
    """One member's task for the request; the call is also a tool row of the supervisor's."""
    started, t0 = history._now(), time.monotonic()
    args = tc.get("arguments") if isinstance(tc.get("arguments"), dict) else {}
    request = args.get("request")
    if not isinstance(request, str) or not request.strip():
        out = "error: pass what the member should do as the string argument request"
    else:
        m = member.step
        source = m.task.attrs.get("input")
        if source and not any(s.task.name == str(source) and s.order in results for s in team.steps):
            # its input task has not run in this delegation: the request stands alone
            m = dataclasses.replace(m, task=dataclasses.replace(
                m.task, attrs={k: v for k, v in m.task.attrs.items() if k != "input"}))
        out = loop.task(plpy, run, team, m, request, variables, results, [], bounds,
                           search_path, turn, None, None, mem)
        results[m.order] = out
    loop.tool_row(plpy, run, step, tc, out, out, started, (time.monotonic() - t0) * 1000,
                     member.definition["name"], args)
    return out
