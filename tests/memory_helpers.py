"""Shared pieces of the long-term memory tests: a scripted extractor, the job runner."""

from __future__ import annotations

import json

from fake_llm import Answer
from helpers import make_profile

EXTRACT_SYSTEM = "You maintain long-term memory"


def is_extraction(body) -> bool:
    """An extraction request (OpenAI wire format, as the memory profiles use)."""
    msgs = body.get("messages") or []
    return bool(msgs) and msgs[0].get("role") == "system" \
        and str(msgs[0].get("content", "")).startswith(EXTRACT_SYSTEM)


def conversation_of(body) -> list[dict]:
    """The conversation an extraction request carries: [{"id", "role", "text"}]."""
    return json.loads(body["messages"][1]["content"])


def user_messages(body) -> list[dict]:
    return [m for m in conversation_of(body) if m.get("id")]


def fact(text: str, message_id: str, quote: str) -> dict:
    return {"fact": text, "message_id": message_id, "quote": quote}


def facts_reply(facts: list[dict]) -> Answer:
    return Answer(json.dumps({"facts": facts}))


def remember_phrases(*markers: str):
    """An extractor that turns every user message containing ``remember: X``
    into the fact ``X`` (quoting it), and answers other requests with
    ``ok: <last user text>``."""
    def respond(wire, body):
        if is_extraction(body):
            facts = []
            for m in user_messages(body):
                if "remember: " in m["text"]:
                    said = m["text"].split("remember: ", 1)[1].strip()
                    facts.append(fact(said, m["id"], said))
            return facts_reply(facts)
        last = (body.get("messages") or [{}])[-1].get("content")
        return Answer("ok: " + last if isinstance(last, str) else "ok")
    return respond


def enable(db, organization: str | None = None):
    """Switch memory on for an organization (default: the database's), as an admin."""
    db.admin.execute("select dbms_cloud_ai.enable_memory(%s)", (organization,))


def memory_profile(conn, llm, name="P", **attrs):
    """A profile on the fake LLM with long_term_memory on."""
    return make_profile(conn, llm, name=name, long_term_memory=True, **attrs)


def conversation(conn, title="t") -> str:
    """A named conversation with a title (so no naming call is made)."""
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps({"title": title}),)).fetchone()[0]


def say(conn, prompt, conversation_id, profile="P", action="chat"):
    return conn.execute(
        "select dbms_cloud_ai.generate(%s, %s, %s, params => %s)",
        (prompt, profile, action, json.dumps({"conversation_id": conversation_id}))).fetchone()[0]


def make_due(db):
    """Every pending job is due now (instead of waiting idle_minutes)."""
    db.admin.execute("update dbms_cloud_ai._memory_job set due_at = now() where status = 'pending'")


def run_jobs(db, batch_size: int = 100) -> int:
    """Run the job runner as the superuser (as pg_cron would); jobs processed."""
    return db.admin.execute("call dbms_cloud_ai.run_memory_jobs(%s)", (batch_size,)).fetchone()[0]


def promote(db) -> int:
    make_due(db)
    return run_jobs(db)


def jobs(conn) -> list[dict]:
    cur = conn.execute("select * from dbms_cloud_ai.user_cloud_ai_memory_jobs order by due_at")
    cols = [c.name for c in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def memories(conn) -> list[str]:
    return [r[0] for r in conn.execute(
        "select fact from dbms_cloud_ai.user_cloud_ai_memories order by created, memory_id")]
