"""Teams for the run tests (tests/agents/test_run_*.py, tests/real/test_real_agents.py),
made through the catalog's functions."""

from __future__ import annotations

import json

from helpers import make_profile


def create(db, conn, kind: str, name: str, attrs: dict):
    """One object, through the catalog's create_<kind>."""
    conn.execute(f"select dbms_cloud_ai_agent.create_{kind.lower()}(%s, %s)", (name, json.dumps(attrs)))


def team(db, conn, fake, name="T", steps=(("A", "K", "Answer {query}", ()),), profile="P",
         human=False, provider="openai", role="You are a helpful analyst.", inputs=None,
         make=True, credential="CRED"):
    """A team of ``steps``: (agent, task, instruction, tools); ``inputs``: {task: input task}."""
    if make:
        make_profile(conn, fake, profile, provider=provider, credential=credential)
    for agent, task, instruction, tools in steps:
        create(db, conn, "AGENT", agent, {"profile_name": profile, "role": role,
                                          "enable_human_tool": human})
        t = {"instruction": instruction, "tools": list(tools), "enable_human_tool": human}
        if inputs and task in inputs:
            t["input"] = inputs[task]
        create(db, conn, "TASK", task, t)
    create(db, conn, "TEAM", name, {"agents": [{"name": a, "task": t} for a, t, _, _ in steps],
                                    "process": "sequential"})
    return name


def function_tool(db, conn, name, function, instruction="Computes something"):
    create(db, conn, "TOOL", name, {"instruction": instruction, "function": function})


def run_team(conn, team_name="T", prompt=None, params=None):
    return conn.execute("select dbms_cloud_ai_agent.run_team(%s, %s, %s)",
                        (team_name, prompt, json.dumps(params) if params is not None else None)
                        ).fetchone()[0]


def rows(conn, sql, *args):
    cur = conn.execute(sql, args)
    names = [c.name for c in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def team_history(conn):
    return rows(conn, "select * from dbms_cloud_ai_agent.user_ai_agent_team_history order by start_date")


def task_history(conn):
    return rows(conn, "select * from dbms_cloud_ai_agent.user_ai_agent_task_history "
                      "order by start_date, task_order")


def tool_history(conn):
    return rows(conn, "select * from dbms_cloud_ai_agent.user_ai_agent_tool_history order by start_date")


def own_schema(db, role="alice"):
    """The role's own schema (first on its default search_path, "$user")."""
    db.admin.execute(f"create schema if not exists {role} authorization {role}")
