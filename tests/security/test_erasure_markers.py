"""Erasure completeness with markers (security.md 8.G2).

alice (ERASE-<hex> markers) and bob (KEEP-<hex> markers) each put a distinct
marker through every feature that stores user content: a credential's
username, a profile's description and attributes, a conversation's title,
description and tags, chat prompts and answers, narrate answers (with rows
of their own tables), the NL2SQL statement log, feedback and ratings (and the
examples they become), condensed-history summaries, titles the model writes,
memories and their jobs, the calls accounting, and the session's short-term
conversation.  Then an administrator erases alice's subject and a
catalog-driven scan reads every text-like column (text, varchar, char, name,
json, jsonb, bytea, tsvector and arrays or domains of them) of every table of
the extension's schemas, so a new table or column is scanned without
changing this file.  Every column where a marker was found must be classified
in ``POLICY`` (erased with the subject, or kept: the role's configuration),
or the test fails.

Pass: every marker alice stated where memory was on (and every copy derived
from it) is gone from every column; alice's configuration and what she said
outside memory conversations are kept, as documented; 100% of bob's markers
are where they were; the erasure's audit row holds no content; the erasing
backend's Python state (GD, SD, the package's modules) holds no marker.
"""

from __future__ import annotations

import json
import re
import uuid

import memory_helpers as mh
import pytest
from fake_llm import Answer, ToolCalls, last_user_text, offered_tools, tool_results

SCHEMAS = ("dbms_cloud_ai", "dbms_cloud")
# Text-like base types the scan reads (arrays and domains of them too).
SCANNED_TYPES = ("text", "varchar", "bpchar", "name", "json", "jsonb", "bytea", "tsvector")
SUMMARY_SYSTEM = "You keep a running summary of a conversation"
NAMING_SYSTEM = "You name conversations"
RECALL_HEADER = "Facts this user stated in earlier conversations."

ERASED, KEPT = "erased", "kept"
# Every column a marker reached, and what erasing a subject does to it.
POLICY = {
    ("dbms_cloud._credential", "username"): (KEPT, "the role's configuration"),
    ("dbms_cloud_ai._profile", "description"): (KEPT, "the role's configuration"),
    ("dbms_cloud_ai._profile", "attributes"): (KEPT, "the role's configuration"),
    ("dbms_cloud_ai._profile", "attribute_text"): (KEPT, "the role's configuration, as written"),
    ("dbms_cloud_ai._conversation", "title"): (
        ERASED, "a title the model wrote from an erased prompt; one the user gave is kept"),
    ("dbms_cloud_ai._conversation", "description"): (
        ERASED, "as title"),
    ("dbms_cloud_ai._conversation", "tags"): (KEPT, "set by the role, not said to the model"),
    ("dbms_cloud_ai._conversation_prompt", "prompt"): (
        ERASED, "what the subject said where memory was on; other conversations are kept"),
    ("dbms_cloud_ai._conversation_prompt", "prompt_response"): (ERASED, "with its prompt"),
    ("dbms_cloud_ai._conversation_prompt", "rating_comment"): (ERASED, "with its prompt"),
    ("dbms_cloud_ai._conversation_prompt", "request_id"): (ERASED, "with its prompt"),
    ("dbms_cloud_ai._conversation_summary", "summary"): (ERASED, "made from erased prompts"),
    ("dbms_cloud_ai._sql_statement", "sql_text"): (ERASED, "the NL2SQL log of an erased prompt"),
    ("dbms_cloud_ai._sql_statement", "prompt"): (ERASED, "as sql_text"),
    ("dbms_cloud_ai._sql_statement", "sql"): (ERASED, "as sql_text"),
    ("dbms_cloud_ai._feedback", "sql_text"): (ERASED, "feedback on an erased statement"),
    ("dbms_cloud_ai._feedback", "question"): (ERASED, "as sql_text"),
    ("dbms_cloud_ai._feedback", "feedback_content"): (ERASED, "as sql_text"),
    ("dbms_cloud_ai._feedback", "generated_sql"): (ERASED, "as sql_text"),
    ("dbms_cloud_ai._feedback", "response"): (ERASED, "as sql_text"),
    ("dbms_cloud_ai._example", "question"): (ERASED, "made from erased feedback or prompts"),
    ("dbms_cloud_ai._example", "sql"): (ERASED, "as question"),
    ("dbms_cloud_ai._example", "tsv"): (ERASED, "as question"),
    ("dbms_cloud_ai._memory", "fact"): (ERASED, "the subject's memories"),
    ("dbms_cloud_ai._memory", "fact_tsv"): (ERASED, "as fact"),
}


# --- the catalog-driven scan -------------------------------------------------------------

def scanned_columns(db) -> list[tuple[str, str, str, str]]:
    """(schema, table, column, base type) of every text-like column of every
    table of the extension's schemas, from the catalog."""
    return db.admin.execute("""
        select n.nspname::text, c.relname::text, a.attname::text, b.typname::text
          from pg_catalog.pg_attribute a
          join pg_catalog.pg_class c on c.oid = a.attrelid
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          join pg_catalog.pg_type t on t.oid = a.atttypid
          join pg_catalog.pg_type b on b.oid = case
                 when t.typbasetype <> 0 then t.typbasetype
                 when t.typelem <> 0 and t.typcategory = 'A' then t.typelem
                 else t.oid end
         where n.nspname = any (%s) and c.relkind in ('r', 'p')
           and a.attnum > 0 and not a.attisdropped
           and b.typname = any (%s)
         order by 1, 2, a.attnum""", (list(SCHEMAS), list(SCANNED_TYPES))).fetchall()


def _q(ident: str) -> str:
    return '"' + ident.replace('"', '""') + '"'


def _matches(column: str, base: str) -> str:
    """A condition: the column's value contains the marker m (any case)."""
    if base == "bytea":
        return (f"(pg_catalog.encode({_q(column)}::bytea, 'escape') ilike '%%' || m || '%%' "
                f"or position(convert_to(m, 'UTF8') in {_q(column)}::bytea) > 0)")
    return f"{_q(column)}::text ilike '%%' || m || '%%'"


def scan(db, marker: str) -> dict[tuple[str, str], int]:
    """Rows per (table, column) whose value contains ``marker`` (any case), as
    the superuser (no row-level security)."""
    return {col: n[marker] for col, n in scan_many(db, [marker]).items() if marker in n}


def scan_many(db, markers: list[str]) -> dict[tuple[str, str], dict[str, int]]:
    """{(table, column): {marker: rows containing it}} for every scanned column
    where at least one of ``markers`` occurs: one query per column."""
    hits = {}
    for schema, table, column, base in scanned_columns(db):
        rows = db.admin.execute(
            f"select m, count(*) from pg_catalog.unnest(%s::text[]) as m, {_q(schema)}.{_q(table)} "
            f"where {_matches(column, base)} group by m", (markers,)).fetchall()
        if rows:
            hits[(f"{schema}.{table}", column)] = dict(rows)
    return hits


def by_marker(hits) -> dict[str, dict[tuple[str, str], int]]:
    out: dict = {}
    for col, per in hits.items():
        for m, n in per.items():
            out.setdefault(m, {})[col] = n
    return out


# --- the backend's Python state ----------------------------------------------------------

BACKEND_SCAN = """
create function public.dca_test_python_state_hits(needles text[]) returns text[]
language plpython3u as $$
import gc, sys, types
mine = {id(needles), id(globals())}
found = set()
def look(o):
    if isinstance(o, str):
        for n in needles:
            if n.lower() in o.lower():
                found.add(n)
    elif isinstance(o, (bytes, bytearray)):
        for n in needles:
            if n.encode().lower() in bytes(o).lower():
                found.add(n)
# Everything the interpreter holds: GD, SD, the package's modules and caches,
# anything else still referenced.
roots = [GD, SD] + [m.__dict__ for k, m in list(sys.modules.items()) if k.startswith("dbms_cloud_ai")]
for o in roots + gc.get_objects():
    if id(o) in mine:
        continue
    if isinstance(o, dict):
        for k, v in list(o.items()):
            look(k); look(v)
    elif isinstance(o, (list, tuple, set, frozenset)):
        for v in list(o):
            look(v)
    else:
        d = getattr(o, "__dict__", None)
        if isinstance(d, dict):
            for v in list(d.values()):
                look(v)
return sorted(found)
$$;
grant execute on function public.dca_test_python_state_hits(text[]) to public;
"""


def python_state_hits(conn, markers: list[str]) -> list[str]:
    return conn.execute("select public.dca_test_python_state_hits(%s)", (markers,)).fetchone()[0]


# --- the fake model ----------------------------------------------------------------------

def respond(wire, body):
    msgs = body.get("messages") or []
    system = str(msgs[0].get("content", "")) if msgs and msgs[0].get("role") == "system" else ""
    if mh.is_extraction(body):
        return mh.remember_phrases()(wire, body)
    if system.startswith(SUMMARY_SYSTEM):
        return Answer("SUMMARY " + msgs[1]["content"])
    if system.startswith(NAMING_SYSTEM):
        question = msgs[-1]["content"].split("\n")[1]
        return Answer(json.dumps({"title": question[-100:], "description": question}))
    question = last_user_text(wire, body)
    if question.startswith("Write one PostgreSQL query"):
        schema = re.search(r"\b(\w+)\.items\b", json.dumps(body)).group(1)
        return Answer(f"SELECT i.note FROM {schema}.items i")
    # Memory: search when offered; the answer quotes what was recalled and found,
    # so an answer that used a memory holds a copy of it.
    if "search_memories" in offered_tools(wire, body) and not tool_results(wire, body):
        return ToolCalls([{"name": "search_memories", "arguments": {"query": question}}])
    parts = ["ok: " + question]
    parts += [m["content"] for m in msgs if m.get("role") == "system"
              and str(m.get("content", "")).startswith(RECALL_HEADER)]
    parts += ["found: " + r["content"] for r in tool_results(wire, body)]
    return Answer(" | ".join(parts))


# --- seeding -----------------------------------------------------------------------------

class Seeds:
    """Markers, each with its owner, the feature that stored it and its fate."""

    def __init__(self):
        self.rows: list[tuple[str, str, str, str]] = []

    def new(self, owner: str, feature: str, fate: str) -> str:
        m = ("ERASE-" if owner == "alice" else "KEEP-") + uuid.uuid4().hex
        self.rows.append((m, owner, feature, fate))
        return m

    def markers(self, owner=None, fate=None) -> list[str]:
        return [m for m, o, _, f in self.rows if (owner is None or o == owner)
                and (fate is None or f == fate)]

    def by_feature(self, owner, feature) -> str:
        return next(m for m, o, f, _ in self.rows if o == owner and f == feature)

    def feature(self, marker) -> str:
        return next(f for m, _, f, _ in self.rows if m == marker)


def say(conn, prompt, cid, profile="MEM", action="chat", request_id=None):
    params = json.dumps({"conversation_id": cid} | ({"request_id": request_id} if request_id else {})
                        ) if cid else None
    return conn.execute("select dbms_cloud_ai.generate(%s, %s, %s, params => %s)",
                        (prompt, profile, action, params)).fetchone()[0]


def seed_user(db, conn, llm, seeds: Seeds, who: str):
    """Every feature that stores what ``who`` says or configures, one marker each."""
    erased = ERASED if who == "alice" else KEPT
    conn.execute("set statement_timeout = '20s'")
    # Configuration: credential, profiles (kept by policy).
    conn.execute("select dbms_cloud.create_credential('CRED', %s, 'sk-test-key')",
                 (seeds.new(who, "credential username", KEPT),))
    attrs = {"provider": "openai", "credential_name": "CRED", "provider_endpoint": llm.url,
             "comments": True}
    conn.execute("select dbms_cloud_ai.create_profile('PLAIN', %s, description => %s)",
                 (json.dumps({**attrs, "role": seeds.new(who, "profile attribute", KEPT)}),
                  seeds.new(who, "profile description", KEPT)))
    conn.execute("select dbms_cloud_ai.create_profile('MEM', %s)",
                 (json.dumps({**attrs, "long_term_memory": True, "summarize_history": True,
                              "conversation_length": 1}),))
    conn.execute("select dbms_cloud_ai.create_profile('SESSION', %s)",
                 (json.dumps({**attrs, "long_term_memory": True, "conversation": True}),))
    conn.execute(f"create table {who}.items (id int primary key, note text)")
    conn.execute(f"insert into {who}.items values (1, %s)", (seeds.new(who, "row read by narrate", erased),))

    # A memory conversation with a title and tags the user gave (kept).
    cid = conn.execute("select dbms_cloud_ai.create_conversation(%s)", (json.dumps({
        "title": seeds.new(who, "conversation title (user's)", KEPT),
        "description": seeds.new(who, "conversation description (user's)", KEPT)}),)).fetchone()[0]
    conn.execute("select dbms_cloud_ai.add_conversation_tag(%s, 'k', %s)",
                 (cid, seeds.new(who, "conversation tag", KEPT)))
    say(conn, f"please remember: my code is {seeds.new(who, 'chat prompt, memory', erased)}", cid)
    say(conn, f"and {seeds.new(who, 'chat prompt', erased)}", cid,
        request_id=seeds.new(who, "client request id", erased))
    # NL2SQL in it: the statement log, the answer with the row, feedback, a rating.
    say(conn, f"narrate the notes {seeds.new(who, 'narrate prompt', erased)}", cid, action="narrate")
    say(conn, f"show the ids {seeds.new(who, 'showsql prompt', erased)}", cid, action="showsql")
    sql_id = conn.execute("select sql_id from dbms_cloud_ai.user_cloud_ai_sql_statements "
                          "where action = 'SHOWSQL' and conversation_prompt_id is not null").fetchone()[0]
    conn.execute("select dbms_cloud_ai.feedback('MEM', sql_id => %s, feedback_type => 'positive', "
                 "feedback_content => %s)", (sql_id, seeds.new(who, "feedback content", erased)))
    pid = conn.execute("select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                       "where conversation_id = %s and prompt_action = 'SHOWSQL'", (cid,)).fetchone()[0]
    conn.execute("select dbms_cloud_ai.rate_prompt(%s, 1, %s)", (pid, seeds.new(who, "rating comment", erased)))
    say(conn, "thanks", cid)                       # everything before fell out: summarised
    # An untitled memory conversation: the model names it from the first prompt.
    untitled = conn.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    say(conn, f"naming {seeds.new(who, 'model-written title', erased)}", untitled)
    # Outside memory: a conversation of a plain profile and a statement outside any
    # conversation (kept: erasure covers what was said where memory was on).
    plain = conn.execute("select dbms_cloud_ai.create_conversation('{\"title\": \"plain\"}')").fetchone()[0]
    say(conn, f"plain {seeds.new(who, 'chat without memory', KEPT)}", plain, profile="PLAIN")
    say(conn, f"ids {seeds.new(who, 'showsql outside conversations', KEPT)}", None, "PLAIN", "showsql")
    # The session's short-term conversation (a temporary table of the session).
    say(conn, f"session {seeds.new(who, 'session conversation', 'session')}", None, "SESSION")
    # Promotion, then a later conversation whose answers quote the memory: recalled
    # on its first turn, found by search_memories on the second.
    mh.promote(db)
    later = conn.execute("select dbms_cloud_ai.create_conversation('{\"title\": \"later\"}')").fetchone()[0]
    for question in ("what is my code", "tell me my code again"):
        assert seeds.by_feature(who, "chat prompt, memory") in say(conn, question, later)


@pytest.fixture
def seeded(db, llm):
    llm.responder = respond
    mh.enable(db)
    db.admin.execute(BACKEND_SCAN)
    seeds = Seeds()
    conns = {who: db.connect(who) for who in ("alice", "bob")}
    for who, conn in conns.items():
        seed_user(db, conn, llm, seeds, who)
    return seeds, conns


# --- the test ----------------------------------------------------------------------------

def test_subject_erasure_leaves_no_marker_and_keeps_everything_else(db, seeded, record_property):
    seeds, conns = seeded
    everything = seeds.markers()
    columns = scanned_columns(db)
    before = scan_many(db, everything)

    # The scan sees every feature's marker (the session's is in a temporary table).
    seen = by_marker(before)
    missing = [seeds.feature(m) for m in everything if m not in seen and seeds.feature(m) != "session conversation"]
    assert missing == [], f"features whose marker the scan does not find: {missing}"
    unclassified = sorted(set(before) - set(POLICY))
    assert unclassified == [], f"columns holding user content, not in POLICY: {unclassified}"
    # Both users reached the same columns (the scan is symmetric).
    alice_cols = {c for m in seeds.markers("alice") for c in seen.get(m, {})}
    bob_cols = {c for m in seeds.markers("bob") for c in seen.get(m, {})}
    assert alice_cols == bob_cols

    admin = db.connect("ai_admin")
    assert admin.execute("select dbms_cloud_ai.erase_memories('alice')").fetchone()[0] == 1
    after = by_marker(scan_many(db, everything))

    # alice: nothing she stated where memory was on, nor any copy of it, in any column.
    left = {seeds.feature(m): after[m] for m in seeds.markers("alice", ERASED) if m in after}
    assert left == {}, f"erased markers still stored: {left}"
    # ... and no alice marker at all in a column the policy erases, but for what
    # she said outside memory conversations (documented scope).
    for m in seeds.markers("alice", KEPT):
        assert after.get(m) == seen[m], f"kept by policy but changed: {seeds.feature(m)}"
    # bob: 100% of his markers, in every column, as before.
    for m in seeds.markers("bob"):
        assert after.get(m) == seen.get(m), f"bob's {seeds.feature(m)} changed"

    # The audit row: that it happened, never what or whose.
    raw = db.admin.execute("select to_jsonb(e)::text from dbms_cloud_ai._memory_erasure e").fetchall()
    assert len(raw) == 1
    assert not any(m.lower() in raw[0][0].lower() for m in everything)
    assert "alice" not in raw[0][0]

    # The erasing backend's Python state holds no marker of alice.
    assert python_state_hits(admin, seeds.markers("alice")) == []
    # The session conversation is a temporary table of alice's own session: only
    # she sees it and it ends with her session (documented limit).
    session_marker = seeds.markers("alice", "session")[0]
    assert conns["alice"].execute("select count(*) from dbms_cloud_ai.session_cloud_ai_conversation_prompts "
                                  "where prompt like %s", (f"%{session_marker}%",)).fetchone()[0] == 1
    assert conns["bob"].execute("select count(*) from dbms_cloud_ai.session_cloud_ai_conversation_prompts "
                                "where prompt like %s", (f"%{session_marker}%",)).fetchone()[0] == 0

    figures = {
        "tables_scanned": len({(s, t) for s, t, _, _ in columns}),
        "columns_scanned": len(columns),
        "markers_seeded": len(everything),
        "alice_markers_erased": len(seeds.markers("alice", ERASED)),
        "alice_markers_kept_by_policy": len(seeds.markers("alice", KEPT)),
        "bob_markers": len(seeds.markers("bob")),
        "columns_holding_markers": len(before),
        "marker_column_checks": 2 * len(columns) * len(everything),
        "marker_hits_before": sum(sum(v.values()) for v in before.values()),
    }
    for k, v in figures.items():
        record_property(k, v)
    print("erasure markers:", figures)
