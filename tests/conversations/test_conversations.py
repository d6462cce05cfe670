"""Conversations: named long-term ones (tables), the session's short-term one
(temporary table), their views, isolation between roles, retention and purge,
and what history the model actually received at every turn."""

from __future__ import annotations

import json
import re
import threading
import time

import pytest
from fake_llm import Answer, Raw, last_user_text
from helpers import case, generate, make_profile, raises

GUID = re.compile(r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\Z")
UNKNOWN = "40D1E4B2-8E1B-10C4-E063-1A5B000A677D"
MALFORMED = ("abc", "", "40D1E4B2-8E1B-10C4-E063-1A5B000A677", "40D1E4B2-8E1B-10C4-E063-1A5B000A677DX",
             "40D1E4B28E1B10C4E0631A5B000A677D", "zzzzzzzz-8e1b-10c4-e063-1a5b000a677d")

CONV_COLS = ["conversation_id", "conversation_title", "description", "created", "modified",
             "retention_days", "conversation_length", "tags"]
# Oracle's columns first, in Oracle's order, then what this extension adds (accounting, rating).
ORACLE_PROMPT_COLS = ["conversation_prompt_id", "conversation_id", "conversation_title",
                      "profile_name", "prompt_action", "prompt", "prompt_response", "created",
                      "modified", "client_identifier", "client_ip", "sid", "serial#"]
PROMPT_COLS = ORACLE_PROMPT_COLS + [
    "provider", "model", "prompt_version", "input_tokens", "output_tokens", "tokens_estimated",
    "latency_ms", "rating", "rating_comment", "rated", "request_id"]


# --- helpers ---------------------------------------------------------------------------------

@pytest.fixture
def echo(llm):
    """The fake answers every request with 're: <last user message>'."""
    llm.responder = lambda wire, body: Answer("re: " + last_user_text(wire, body))
    yield llm
    llm.responder = lambda wire, body: Answer("fake answer")


def create(conn, **attrs) -> str:
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps(attrs),)).fetchone()[0]


def chat(conn, prompt, cid=None, profile="P", **kw):
    if cid is not None:
        kw["params"] = json.dumps({"conversation_id": cid})
    return generate(conn, prompt, profile, "chat", **kw)


def pairs(*turns):
    """[(prompt, answer), ...] as the user/assistant messages the model should receive."""
    out = []
    for q, a in turns:
        out += [{"role": "user", "content": q}, {"role": "assistant", "content": a}]
    return out


def user(q):
    return [{"role": "user", "content": q}]


def sent(llm, i=-1):
    return llm.requests[i].json["messages"]


def conversation(conn, cid):
    row = conn.execute("select * from dbms_cloud_ai.user_cloud_ai_conversations where conversation_id = %s",
                       (cid,)).fetchone()
    return None if row is None else dict(zip(CONV_COLS, row))


def prompts(conn, cid=None):
    cur = conn.execute("select * from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                       "where %(c)s::text is null or conversation_id = %(c)s order by created",
                       {"c": cid})
    cols = [d.name for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def table_prompts(db, cid):
    """Prompt rows of a conversation as the superuser sees them (no row-level security)."""
    return db.admin.execute("select count(*) from dbms_cloud_ai._conversation_prompt "
                            "where conversation_id = %s::uuid", (cid,)).fetchone()[0]


def table_conversations(db, cid):
    return db.admin.execute("select count(*) from dbms_cloud_ai._conversation "
                            "where conversation_id = %s::uuid", (cid,)).fetchone()[0]


def expire_in(db, cid, seconds):
    """Move a conversation in time so that it expires ``seconds`` from now (negative: expired)."""
    db.admin.execute("""
        update dbms_cloud_ai._conversation
           set expires_at = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => %s),
               created = pg_catalog.clock_timestamp() + pg_catalog.make_interval(secs => %s)
                         - pg_catalog.make_interval(days => retention_days)
         where conversation_id = %s::uuid""", (seconds, seconds, cid))


def session_prompts(conn):
    return conn.execute("select prompt, prompt_response, profile_name, prompt_action from "
                        "dbms_cloud_ai.session_cloud_ai_conversation_prompts order by prompt_number").fetchall()


# --- create / update -------------------------------------------------------------------------

def test_create_returns_oracle_style_ids_with_defaults(db, alice):
    cid = alice.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    assert GUID.match(cid) and len(cid) == 36
    c = conversation(alice, cid)
    assert c["conversation_title"] == "New Conversation"       # Oracle's, until the first turn
    assert c["description"] is None
    assert c["retention_days"] == 7
    assert c["conversation_length"] is None          # not given: NULL in the view (10 is used)
    assert c["tags"] == {}
    assert c["created"] is not None and c["modified"] is not None
    # The function form does not make it the session's conversation.
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] is None
    # Expiry is created + retention_days; 0 keeps it forever.
    assert db.admin.execute("select expires_at - created = interval '7 days' from dbms_cloud_ai._conversation "
                            "where conversation_id = %s::uuid", (cid,)).fetchone()[0] is True

    full = create(alice, title="Sales analysis", description="Q3 numbers", retention_days=0,
                  conversation_length=20)
    c = conversation(alice, full)
    assert (c["conversation_title"], c["description"], c["retention_days"], c["conversation_length"]) \
        == ("Sales analysis", "Q3 numbers", 0, 20)
    assert db.admin.execute("select expires_at from dbms_cloud_ai._conversation where conversation_id = %s::uuid",
                            (full,)).fetchone()[0] is None

    j = alice.execute("""select dbms_cloud_ai.create_conversation('{"title": "jsonb", "retention_days": 3}'::jsonb)"""
                      ).fetchone()[0]
    assert GUID.match(j)
    assert conversation(alice, j)["conversation_title"] == "jsonb"
    assert conversation(alice, j)["retention_days"] == 3
    assert len({cid, full, j}) == 3
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversations").fetchone()[0] == 3


def test_procedure_form_returns_the_id_and_makes_it_current(alice, echo):
    make_profile(alice, echo)
    cid = alice.execute("call dbms_cloud_ai.create_conversation(attributes => %s, conversation_id => NULL)",
                        ('{"title": "From CALL"}',)).fetchone()[0]
    assert GUID.match(cid)
    assert conversation(alice, cid)["conversation_title"] == "From CALL"
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] == cid
    chat(alice, "first")                      # no params: the session's conversation
    chat(alice, "second")
    assert sent(echo) == pairs(("first", "re: first")) + user("second")
    assert [p["prompt"] for p in prompts(alice, cid)] == ["first", "second"]

    alice.execute("select dbms_cloud_ai.clear_conversation_id()")
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] is None
    chat(alice, "third")
    assert sent(echo) == user("third")
    assert len(prompts(alice)) == 2


def test_attribute_errors(alice):
    cid = create(alice, title="t")
    bad = [('{"titel": "x"}', "22023"), ('{"title": 5}', "22023"), ('{"title": "%s"}' % ("x" * 129), "22023"),
           ('{"description": 3}', "22023"), ('{"retention_days": -1}', "22023"),
           ('{"retention_days": 36501}', "22023"), ('{"retention_days": "soon"}', "22023"),
           ('{"retention_days": true}', "22023"), ('{"retention_days": 1.5}', "22023"),
           ('{"conversation_length": 0}', "22023"), ('{"conversation_length": 1000}', "22023"),
           ('{"conversation_length": "long"}', "22023"), ('[1, 2]', "22023"),
           ('{not json', "22P02"), ('{"title": "a", ', "22P02")]
    for attrs, state in bad:
        with case(f"create {attrs[:40]}"):
            with raises(state):
                alice.execute("select dbms_cloud_ai.create_conversation(%s)", (attrs,))
        with case(f"update {attrs[:40]}"):
            with raises(state):
                alice.execute("select dbms_cloud_ai.update_conversation(%s, %s)", (cid, attrs))
    # Nothing was created or changed by the refused calls.
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversations").fetchone()[0] == 1
    assert conversation(alice, cid)["conversation_title"] == "t"
    # The limits themselves are accepted.
    for attrs in ({"title": "x" * 128}, {"retention_days": 0}, {"retention_days": 36500},
                  {"conversation_length": 1}, {"conversation_length": 999}):
        with case(f"limit {attrs}"):
            create(alice, **attrs)
            alice.execute("select dbms_cloud_ai.update_conversation(%s, %s)", (cid, json.dumps(attrs)))
    assert conversation(alice, cid)["conversation_length"] == 999


def test_update_changes_only_the_given_keys(db, alice):
    cid = create(alice, title="T", description="D", retention_days=14, conversation_length=20)
    alice.execute("select dbms_cloud_ai.add_conversation_tag(%s, 'team', 'sales')", (cid,))
    before = conversation(alice, cid)
    expires = db.admin.execute("select expires_at from dbms_cloud_ai._conversation where conversation_id = %s::uuid",
                               (cid,)).fetchone()[0]
    alice.execute("""select dbms_cloud_ai.update_conversation(%s, '{"title": "T2"}')""", (cid,))
    after = conversation(alice, cid)
    assert after["conversation_title"] == "T2"
    for k in ("description", "retention_days", "conversation_length", "tags", "created"):
        assert after[k] == before[k], k
    assert after["modified"] > before["modified"]
    assert db.admin.execute("select expires_at from dbms_cloud_ai._conversation where conversation_id = %s::uuid",
                            (cid,)).fetchone()[0] == expires
    alice.execute("""select dbms_cloud_ai.update_conversation(
                         %s, '{"description": "D2", "conversation_length": 5}'::jsonb)""",
                  (cid,))
    c = conversation(alice, cid)
    assert (c["conversation_title"], c["description"], c["retention_days"], c["conversation_length"]) \
        == ("T2", "D2", 14, 5)


def test_retention_change_counts_from_creation(db, alice):
    cid = create(alice, title="old", retention_days=7)
    expire_in(db, cid, 2 * 86400)            # created 5 days ago, expires in 2 days
    alice.execute("""select dbms_cloud_ai.update_conversation(%s, '{"retention_days": 30}')""", (cid,))
    assert db.admin.execute("select expires_at - created = interval '30 days' from dbms_cloud_ai._conversation "
                            "where conversation_id = %s::uuid", (cid,)).fetchone()[0] is True
    alice.execute("""select dbms_cloud_ai.update_conversation(%s, '{"retention_days": 0}')""", (cid,))
    assert db.admin.execute("select expires_at from dbms_cloud_ai._conversation where conversation_id = %s::uuid",
                            (cid,)).fetchone()[0] is None
    # 3 days from a creation 5 days ago is already past: the conversation is gone.
    alice.execute("""select dbms_cloud_ai.update_conversation(%s, '{"retention_days": 3}')""", (cid,))
    assert conversation(alice, cid) is None
    with raises("42704"):
        alice.execute("""select dbms_cloud_ai.update_conversation(%s, '{"retention_days": 30}')""", (cid,))


# --- ids: malformed, unknown, force -------------------------------------------------------------

def test_malformed_and_unknown_ids(alice, llm):
    make_profile(alice, llm)
    cid = create(alice, title="keep")
    calls = {
        "drop": "select dbms_cloud_ai.drop_conversation(%s)",
        "update": """select dbms_cloud_ai.update_conversation(%s, '{"title": "x"}')""",
        "delete_prompt": "select dbms_cloud_ai.delete_conversation_prompt(%s)",
        "set": "select dbms_cloud_ai.set_conversation_id(%s)",
        "add_tag": "select dbms_cloud_ai.add_conversation_tag(%s, 'k', 'v')",
        "remove_tag": "select dbms_cloud_ai.remove_conversation_tag(%s, 'k')",
        "generate": """select dbms_cloud_ai.generate('q', 'P', 'chat',
                       params => pg_catalog.json_build_object('conversation_id', %s::text)::text)""",
    }
    forced = {"drop": "select dbms_cloud_ai.drop_conversation(%s, force => true)",
              "delete_prompt": "select dbms_cloud_ai.delete_conversation_prompt(%s, force => true)",
              "remove_tag": "select dbms_cloud_ai.remove_conversation_tag(%s, 'k', force => true)"}
    for name, sql in list(calls.items()) + [(n + " force", s) for n, s in forced.items()]:
        for bad in MALFORMED:
            with case(f"{name} {bad!r}"):
                with raises("22P02"):
                    alice.execute(sql, (bad,))
    for name, sql in calls.items():
        with case(f"{name} unknown"):
            with raises("42704"):
                alice.execute(sql, (UNKNOWN,))
    for name, sql in forced.items():
        with case(f"{name} forced unknown"):
            alice.execute(sql, (UNKNOWN,))          # silent
    assert llm.requests == []
    assert conversation(alice, cid)["conversation_title"] == "keep"
    # Ids are accepted in lower case too, and always shown in upper case.
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid.lower(),))
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] == cid


def test_drop_conversation(db, alice, echo):
    make_profile(alice, echo)
    cid = create(alice, title="to drop")
    other = create(alice, title="stays")
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid,))
    chat(alice, "one")
    chat(alice, "two", other)
    assert table_prompts(db, cid) == 1
    alice.execute("select dbms_cloud_ai.drop_conversation(%s)", (cid,))
    assert conversation(alice, cid) is None
    assert prompts(alice, cid) == []
    assert table_prompts(db, cid) == 0 and table_conversations(db, cid) == 0
    # Dropping the current conversation clears it from the session.
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] is None
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.drop_conversation(%s)", (cid,))
    alice.execute("select dbms_cloud_ai.drop_conversation(%s, force => true)", (cid,))
    with raises("42704"):
        chat(alice, "three", cid)
    assert conversation(alice, other)["conversation_title"] == "stays"
    assert len(prompts(alice, other)) == 1


def test_delete_conversation_prompt(alice, echo):
    make_profile(alice, echo)
    cid = create(alice, title="t")
    chat(alice, "one", cid)
    chat(alice, "two", cid)
    first, second = prompts(alice, cid)
    alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (first["conversation_prompt_id"],))
    assert [p["prompt"] for p in prompts(alice, cid)] == ["two"]
    assert conversation(alice, cid) is not None
    chat(alice, "three", cid)                          # the deleted turn is no longer sent
    assert sent(echo) == pairs(("two", "re: two")) + user("three")
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (first["conversation_prompt_id"],))
    alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s, true)", (first["conversation_prompt_id"],))
    # A conversation id is not a prompt id.
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (cid,))
    assert [p["prompt"] for p in prompts(alice, cid)] == ["two", "three"]
    assert second["conversation_prompt_id"] in {p["conversation_prompt_id"] for p in prompts(alice, cid)}


def test_tags(alice):
    cid = create(alice, title="t")
    alice.execute("select dbms_cloud_ai.add_conversation_tag(%s, 'team', 'sales')", (cid,))
    alice.execute("select dbms_cloud_ai.add_conversation_tag(%s, 'prio', 'high')", (cid,))
    assert conversation(alice, cid)["tags"] == {"team": "sales", "prio": "high"}
    alice.execute("select dbms_cloud_ai.add_conversation_tag(%s, 'prio', 'low')", (cid,))
    assert conversation(alice, cid)["tags"] == {"team": "sales", "prio": "low"}
    alice.execute("select dbms_cloud_ai.remove_conversation_tag(%s, 'team')", (cid,))
    assert conversation(alice, cid)["tags"] == {"prio": "low"}
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.remove_conversation_tag(%s, 'team')", (cid,))
    alice.execute("select dbms_cloud_ai.remove_conversation_tag(%s, 'team', force => true)", (cid,))
    assert conversation(alice, cid)["tags"] == {"prio": "low"}


def test_session_conversation_id(alice, bob):
    a = create(alice, title="a")
    b = create(alice, title="b")
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] is None
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (a,))
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] == a
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (b,))
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] == b
    with raises("42704"):
        alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (UNKNOWN,))
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] == b
    alice.execute("select dbms_cloud_ai.clear_conversation_id()")
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] is None


# --- history sent to the model ------------------------------------------------------------------

def test_turns_are_recorded_and_sent_back_oldest_first(db, echo):
    alice = db.connect("alice", application_name="sales-app")
    make_profile(alice, echo, additional_instructions="Be brief.")
    cid = create(alice, title="Product")
    assert chat(alice, "What is Oracle Autonomous Database", cid) == "re: What is Oracle Autonomous Database"
    assert sent(echo) == [{"role": "system", "content": "Be brief."}] + user("What is Oracle Autonomous Database")
    chat(alice, "When was it first released", cid)
    chat(alice, "How does it integrate with other services", cid)
    assert sent(echo) == ([{"role": "system", "content": "Be brief."}]
                          + pairs(("What is Oracle Autonomous Database", "re: What is Oracle Autonomous Database"),
                                  ("When was it first released", "re: When was it first released"))
                          + user("How does it integrate with other services"))
    assert len(echo.requests) == 3
    rows = prompts(alice, cid)
    assert list(rows[0]) == PROMPT_COLS
    assert [r["prompt"] for r in rows] == ["What is Oracle Autonomous Database", "When was it first released",
                                           "How does it integrate with other services"]
    pid = alice.info.backend_pid
    for r in rows:
        assert GUID.match(r["conversation_prompt_id"])
        assert r["conversation_id"] == cid and r["conversation_title"] == "Product"
        assert r["profile_name"] == "P" and r["prompt_action"] == "CHAT"
        assert r["prompt_response"] == "re: " + r["prompt"]
        assert r["created"] is not None and r["modified"] is not None
        assert r["client_identifier"] == "sales-app"
        assert r["sid"] == pid
    assert len({r["conversation_prompt_id"] for r in rows}) == 3
    assert rows[0]["created"] < rows[1]["created"] < rows[2]["created"]


def test_history_spans_profiles(alice, echo):
    make_profile(alice, echo, name="P")
    make_profile(alice, echo, name="Q", credential="CRED2", model="other-model")
    cid = create(alice, title="t")
    chat(alice, "asked with P", cid, profile="P")
    chat(alice, "asked with Q", cid, profile="Q")
    assert echo.requests[-1].json["model"] == "other-model"
    assert sent(echo) == pairs(("asked with P", "re: asked with P")) + user("asked with Q")
    assert [(p["profile_name"], p["prompt"]) for p in prompts(alice, cid)] == [("P", "asked with P"),
                                                                              ("Q", "asked with Q")]


def test_conversation_length_limits_what_is_sent_not_what_is_kept(alice, echo):
    make_profile(alice, echo)
    short = create(alice, title="short", conversation_length=2)
    for i in range(1, 5):
        chat(alice, f"s{i}", short)
    assert sent(echo) == pairs(("s2", "re: s2"), ("s3", "re: s3")) + user("s4")
    assert len(prompts(alice, short)) == 4

    default = create(alice, title="default")           # length not given: 10
    for i in range(1, 13):
        chat(alice, f"d{i}", default)
    assert sent(echo) == pairs(*[(f"d{i}", f"re: d{i}") for i in range(2, 12)]) + user("d12")
    assert len(prompts(alice, default)) == 12
    alice.execute("""select dbms_cloud_ai.update_conversation(%s, '{"conversation_length": 1}')""", (default,))
    chat(alice, "d13", default)
    assert sent(echo) == pairs(("d12", "re: d12")) + user("d13")


def test_explicit_id_wins_over_the_session_id(alice, echo):
    make_profile(alice, echo)
    a = create(alice, title="a")
    b = create(alice, title="b")
    chat(alice, "in a", a)
    chat(alice, "in b", b)
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (a,))
    chat(alice, "explicit b", b)
    assert sent(echo) == pairs(("in b", "re: in b")) + user("explicit b")
    chat(alice, "session a")
    assert sent(echo) == pairs(("in a", "re: in a")) + user("session a")
    assert [p["prompt"] for p in prompts(alice, a)] == ["in a", "session a"]
    assert [p["prompt"] for p in prompts(alice, b)] == ["in b", "explicit b"]


def test_named_conversation_wins_over_session_conversation(alice, echo):
    make_profile(alice, echo, conversation=True)
    chat(alice, "session one")
    cid = create(alice, title="named")
    chat(alice, "named one", cid)
    assert sent(echo) == user("named one")                  # no session history
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid,))
    chat(alice, "named two")
    assert sent(echo) == pairs(("named one", "re: named one")) + user("named two")
    assert [r[0] for r in session_prompts(alice)] == ["session one"]   # nothing written there
    alice.execute("select dbms_cloud_ai.clear_conversation_id()")
    chat(alice, "session two")
    assert sent(echo) == pairs(("session one", "re: session one")) + user("session two")
    assert [p["prompt"] for p in prompts(alice, cid)] == ["named one", "named two"]


def test_failed_model_call_writes_nothing(alice, llm):
    make_profile(alice, llm, conversation=True)
    alice.execute("set dbms_cloud_ai.http_max_attempts = 1")
    cid = create(alice)                                       # untitled: no title call either
    llm.script(Raw(500, {"error": {"message": "boom"}}))
    with raises("LL000"):
        chat(alice, "lost", cid)
    assert len(llm.requests) == 1
    assert prompts(alice, cid) == []
    assert conversation(alice, cid)["conversation_title"] == "New Conversation"
    llm.script(Raw(500, {"error": {"message": "boom"}}))
    with raises("LL000"):
        chat(alice, "lost too")                               # session conversation
    assert session_prompts(alice) == []
    llm.script(Answer("ok"))
    chat(alice, "works")
    assert sent(llm) == user("works")


def test_untitled_conversation_is_named_after_its_first_turn(alice, llm):
    make_profile(alice, llm)
    cid = create(alice, retention_days=3)
    assert conversation(alice, cid)["conversation_title"] == "New Conversation"
    llm.script(Answer("You have 55500 customers."),
               Answer('{"title": "Customer Count", "description": "Counting the customers."}'))
    assert chat(alice, "How many customers do I have", cid) == "You have 55500 customers."
    assert len(llm.requests) == 2
    assert sent(llm, 0) == user("How many customers do I have")
    naming = json.dumps(sent(llm, 1))
    assert "How many customers do I have" in naming and "You have 55500 customers." in naming
    c = conversation(alice, cid)
    assert (c["conversation_title"], c["description"]) == ("Customer Count", "Counting the customers.")
    assert prompts(alice, cid)[0]["conversation_title"] == "Customer Count"
    assert len(prompts(alice, cid)) == 1                      # the naming call is not a turn
    # The next turn does not ask again, and the naming exchange is not history.
    llm.script(Answer("By country: ..."))
    chat(alice, "How many in each country", cid)
    assert len(llm.requests) == 3
    assert sent(llm) == pairs(("How many customers do I have", "You have 55500 customers.")) \
        + user("How many in each country")


def test_titled_conversation_is_never_renamed(alice, llm):
    make_profile(alice, llm)
    cid = create(alice, title="Mine")
    for i in range(2):
        chat(alice, f"q{i}", cid)
        assert len(llm.requests) == i + 1
    assert conversation(alice, cid)["conversation_title"] == "Mine"


def test_a_chosen_new_conversation_title_is_kept(db, alice, llm):
    """A title the user chose is never replaced, even when it is Oracle's placeholder:
    the table tells the two apart (title NULL and title_pending until the first turn)."""
    make_profile(alice, llm)
    chosen, untitled = create(alice, title="New Conversation"), create(alice)
    for cid in (chosen, untitled):
        assert conversation(alice, cid)["conversation_title"] == "New Conversation"
    llm.script(Answer("a1"), Answer("a2"), Answer('{"title": "Named", "description": "d"}'))
    chat(alice, "q1", chosen)
    chat(alice, "q2", untitled)
    assert len(llm.requests) == 3                             # one naming call: the untitled one
    assert conversation(alice, chosen)["conversation_title"] == "New Conversation"
    assert conversation(alice, untitled)["conversation_title"] == "Named"
    assert prompts(alice, chosen)[0]["conversation_title"] == "New Conversation"
    stored = db.admin.execute("select title from dbms_cloud_ai._conversation where conversation_id = %s",
                           (chosen,)).fetchone()
    assert stored == ("New Conversation",)


def test_naming_failure_keeps_the_answer(alice, llm):
    make_profile(alice, llm)
    alice.execute("set dbms_cloud_ai.http_max_attempts = 1")
    cid = create(alice)
    llm.script(Answer("the answer"), Raw(500, {"error": {"message": "boom"}}))
    assert chat(alice, "q", cid) == "the answer"
    assert len(llm.requests) == 2
    assert [p["prompt_response"] for p in prompts(alice, cid)] == ["the answer"]


def test_naming_call_respects_what_is_left_of_statement_timeout(alice, llm):
    """The naming call gets only the time the answer left: a slow naming call
    must not overrun statement_timeout and lose the answer with 57014."""
    make_profile(alice, llm)
    alice.execute("set dbms_cloud_ai.http_max_attempts = 1")
    cid = create(alice)
    alice.execute("set statement_timeout = '2s'")
    llm.script(Answer("slow answer", delay=1.2), Answer('{"title": "late"}', delay=1.5))
    assert chat(alice, "q", cid) == "slow answer"
    alice.execute("reset statement_timeout")
    assert [p["prompt_response"] for p in prompts(alice, cid)] == ["slow answer"]
    assert conversation(alice, cid)["conversation_title"] == "New Conversation"


def test_other_actions_are_refused_before_any_write(alice, llm):
    make_profile(alice, llm, conversation=True)
    cid = create(alice, title="t")
    # feedback is no conversation action: it neither reads nor writes one (and here has no
    # NL2SQL statement to apply to: 42704).
    with raises("42704"):
        generate(alice, "the result is correct", "P", "feedback",
                 params=json.dumps({"conversation_id": cid}))
    assert llm.requests == []
    assert prompts(alice) == []
    assert session_prompts(alice) == []


# --- the session's short-term conversation ------------------------------------------------------

def test_session_conversation_chat_sequence(alice, llm):
    """Oracle's chat sequence with "conversation": true (reference section 3)."""
    make_profile(alice, llm, conversation=True)
    llm.script(Answer("An autonomous Oracle database in the cloud."), Answer("March 2018."),
               Answer("Through OCI services."))
    chat(alice, "what is Oracle Autonomous Database")
    assert sent(llm) == user("what is Oracle Autonomous Database")
    assert chat(alice, "when was it first released") == "March 2018."
    assert sent(llm) == pairs(("what is Oracle Autonomous Database", "An autonomous Oracle database in the cloud.")) \
        + user("when was it first released")
    chat(alice, "How does it integrate with other Oracle Cloud services")
    assert sent(llm) == pairs(("what is Oracle Autonomous Database", "An autonomous Oracle database in the cloud."),
                              ("when was it first released", "March 2018.")) \
        + user("How does it integrate with other Oracle Cloud services")
    assert session_prompts(alice) == [
        ("what is Oracle Autonomous Database", "An autonomous Oracle database in the cloud.", "P", "CHAT"),
        ("when was it first released", "March 2018.", "P", "CHAT"),
        ("How does it integrate with other Oracle Cloud services", "Through OCI services.", "P", "CHAT")]
    # Session prompts are not named-conversation prompts.
    assert prompts(alice) == []
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversations").fetchone()[0] == 0


def test_session_conversation_keeps_ten_prompts_of_the_same_profile(alice, echo):
    make_profile(alice, echo, name="P", conversation=True)
    make_profile(alice, echo, name="Q", credential="CRED2", conversation=True)
    chat(alice, "q1", profile="Q")
    for i in range(1, 13):
        chat(alice, f"p{i}", profile="P")
    assert sent(echo) == pairs(*[(f"p{i}", f"re: p{i}") for i in range(2, 12)]) + user("p12")
    chat(alice, "q2", profile="Q")
    assert sent(echo) == pairs(("q1", "re: q1")) + user("q2")
    chat(alice, "p13", profile="P")
    assert sent(echo) == pairs(*[(f"p{i}", f"re: p{i}") for i in range(3, 13)]) + user("p13")
    rows = session_prompts(alice)
    assert [r[0] for r in rows if r[2] == "P"] == [f"p{i}" for i in range(4, 14)]
    assert [r[0] for r in rows if r[2] == "Q"] == ["q1", "q2"]


def test_session_conversation_per_call_override(alice, echo):
    make_profile(alice, echo)                                 # conversation off
    chat(alice, "plain")
    assert session_prompts(alice) == []
    chat(alice, "on 1", attributes='{"conversation": true}')
    chat(alice, "on 2", attributes='{"conversation": true}')
    assert sent(echo) == pairs(("on 1", "re: on 1")) + user("on 2")
    chat(alice, "plain again")
    assert sent(echo) == user("plain again")

    make_profile(alice, echo, name="C", credential="CRED2", conversation=True)
    chat(alice, "c1", profile="C")
    chat(alice, "off", profile="C", attributes='{"conversation": false}')
    assert sent(echo) == user("off")
    chat(alice, "c2", profile="C")
    assert sent(echo) == pairs(("c1", "re: c1")) + user("c2")
    assert [r[0] for r in session_prompts(alice)] == ["on 1", "on 2", "c1", "c2"]


def test_session_conversation_is_private_to_its_connection(db, echo):
    one, two = db.connect("alice"), db.connect("alice")
    make_profile(one, echo, conversation=True)
    chat(one, "in one")
    chat(one, "more in one")
    assert len(session_prompts(one)) == 2
    assert session_prompts(two) == []
    chat(two, "in two")
    assert sent(echo) == user("in two")
    chat(one, "back in one")
    assert sent(echo) == pairs(("in one", "re: in one"), ("more in one", "re: more in one")) + user("back in one")
    # DISCARD TEMP (connection poolers run DISCARD ALL) forgets it, and it starts again.
    two.execute("discard temp")
    assert session_prompts(two) == []
    chat(two, "after discard")
    chat(two, "after discard 2")
    assert sent(echo) == pairs(("after discard", "re: after discard")) + user("after discard 2")
    # A new session starts empty: the table was temporary.
    one.close()
    three = db.connect("alice")
    assert session_prompts(three) == []
    chat(three, "fresh")
    assert sent(echo) == user("fresh")


# --- views and isolation --------------------------------------------------------------------------

def test_views_and_admin_only_dba_views(db, alice, bob, echo):
    make_profile(alice, echo)
    make_profile(bob, echo, credential="BOBCRED")
    a = create(alice, title="alice's")
    b = create(bob, title="bob's")
    chat(alice, "qa", a)
    chat(bob, "qb", b)
    cur = alice.execute("select * from dbms_cloud_ai.user_cloud_ai_conversations")
    assert [d.name for d in cur.description] == CONV_COLS
    assert [r[0] for r in cur.fetchall()] == [a]
    cur = alice.execute("select * from dbms_cloud_ai.user_cloud_ai_conversation_prompts")
    assert [d.name for d in cur.description] == PROMPT_COLS
    assert [r[5] for r in cur.fetchall()] == ["qa"]
    for view in ("dba_cloud_ai_conversations", "dba_cloud_ai_conversation_prompts"):
        with raises("42501"):
            alice.execute(f"select * from dbms_cloud_ai.{view}")
    admin = db.connect("ai_admin")
    cur = admin.execute("select * from dbms_cloud_ai.dba_cloud_ai_conversations order by conversation_title")
    cols = [d.name for d in cur.description]
    assert "owner" in cols and set(cols) - {"owner"} == set(CONV_COLS)
    assert [(r[cols.index("conversation_id")], r[cols.index("owner")]) for r in cur.fetchall()] \
        == [(a, "alice"), (b, "bob")]
    cur = admin.execute("select * from dbms_cloud_ai.dba_cloud_ai_conversation_prompts order by prompt")
    cols = [d.name for d in cur.description]
    assert "owner" in cols and set(cols) - {"owner"} == set(PROMPT_COLS)
    assert [(r[cols.index("prompt")], r[cols.index("owner")]) for r in cur.fetchall()] \
        == [("qa", "alice"), ("qb", "bob")]
    # The admin reads, but cannot change or drop a live conversation of another role.
    assert admin.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversations").fetchone()[0] == 0
    with raises("42704"):
        admin.execute("select dbms_cloud_ai.drop_conversation(%s)", (a,))
    assert admin.execute("delete from dbms_cloud_ai._conversation_prompt").rowcount == 0
    assert admin.execute("delete from dbms_cloud_ai._conversation").rowcount == 0
    assert admin.execute("update dbms_cloud_ai._conversation set title = 'x'").rowcount == 0
    assert conversation(alice, a)["conversation_title"] == "alice's"


def test_another_role_can_never_touch_a_conversation(db, alice, bob, llm):
    make_profile(alice, llm)
    make_profile(bob, llm, credential="BOBCRED")
    cid = create(alice, title="private")
    alice.execute("select dbms_cloud_ai.add_conversation_tag(%s, 'k', 'v')", (cid,))
    llm.script(Answer("secret answer"))
    chat(alice, "secret question", cid)
    pid = prompts(alice, cid)[0]["conversation_prompt_id"]
    n = len(llm.requests)

    for sql in ("select count(*) from dbms_cloud_ai.user_cloud_ai_conversations",
                "select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts",
                "select count(*) from dbms_cloud_ai._conversation",
                "select count(*) from dbms_cloud_ai._conversation_prompt"):
        with case(sql):
            assert bob.execute(sql).fetchone()[0] == 0
    for sql, arg in (("""select dbms_cloud_ai.update_conversation(%s, '{"title": "mine now"}')""", cid),
                     ("select dbms_cloud_ai.add_conversation_tag(%s, 'k', 'stolen')", cid),
                     ("select dbms_cloud_ai.remove_conversation_tag(%s, 'k')", cid),
                     ("select dbms_cloud_ai.drop_conversation(%s)", cid),
                     ("select dbms_cloud_ai.delete_conversation_prompt(%s)", pid),
                     ("select dbms_cloud_ai.set_conversation_id(%s)", cid)):
        with case(sql):
            with raises("42704"):
                bob.execute(sql, (arg,))
    with raises("42704"):
        chat(bob, "continue it", cid)
    # Setting the session setting by hand does not help either.
    bob.execute("select pg_catalog.set_config('dbms_cloud_ai.conversation_id', %s, false)", (cid,))
    assert bob.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] is None
    with raises("42704"):
        chat(bob, "continue it")
    bob.execute("select dbms_cloud_ai.clear_conversation_id()")
    # force => true is silent and does nothing.
    bob.execute("select dbms_cloud_ai.drop_conversation(%s, force => true)", (cid,))
    bob.execute("select dbms_cloud_ai.delete_conversation_prompt(%s, force => true)", (pid,))
    bob.execute("select dbms_cloud_ai.remove_conversation_tag(%s, 'k', force => true)", (cid,))
    # Direct table writes are refused: users hold no write privilege at all.
    for sql in ("update dbms_cloud_ai._conversation set title = 'x'",
                "delete from dbms_cloud_ai._conversation_prompt",
                "delete from dbms_cloud_ai._conversation",
                "insert into dbms_cloud_ai._conversation (conversation_id, owner) "
                "values (gen_random_uuid(), 'alice')"):
        with case(sql), raises("42501"):
            bob.execute(sql)
    assert len(llm.requests) == n
    c = conversation(alice, cid)
    assert (c["conversation_title"], c["tags"]) == ("private", {"k": "v"})
    assert [(p["prompt"], p["prompt_response"]) for p in prompts(alice, cid)] == [("secret question", "secret answer")]


# --- retention -------------------------------------------------------------------------------------

def test_expiry_boundaries(db, alice, echo):
    make_profile(alice, echo)
    cid = create(alice, title="expiring")
    chat(alice, "before", cid)
    pid = prompts(alice, cid)[0]["conversation_prompt_id"]
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid,))

    expire_in(db, cid, 1)                                  # one second left: still there
    assert conversation(alice, cid) is not None
    assert len(prompts(alice, cid)) == 1
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] == cid
    chat(alice, "just in time", cid)
    assert sent(echo) == pairs(("before", "re: before")) + user("just in time")

    expire_in(db, cid, -1)                                 # one second past: gone everywhere
    assert conversation(alice, cid) is None
    assert prompts(alice, cid) == []
    admin = db.connect("ai_admin")
    assert admin.execute("select count(*) from dbms_cloud_ai.dba_cloud_ai_conversations").fetchone()[0] == 0
    assert admin.execute("select count(*) from dbms_cloud_ai.dba_cloud_ai_conversation_prompts").fetchone()[0] == 0
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone()[0] is None
    n = len(echo.requests)
    with raises("42704"):
        chat(alice, "too late", cid)
    with raises("42704"):
        chat(alice, "too late via the session")
    assert len(echo.requests) == n
    for sql, arg in (("""select dbms_cloud_ai.update_conversation(%s, '{"title": "x"}')""", cid),
                     ("select dbms_cloud_ai.add_conversation_tag(%s, 'k', 'v')", cid),
                     ("select dbms_cloud_ai.set_conversation_id(%s)", cid),
                     ("select dbms_cloud_ai.delete_conversation_prompt(%s)", pid),
                     ("select dbms_cloud_ai.drop_conversation(%s)", cid)):
        with case(sql):
            with raises("42704"):
                alice.execute(sql, (arg,))
    alice.execute("select dbms_cloud_ai.drop_conversation(%s, force => true)", (cid,))
    assert table_prompts(db, cid) == 2                     # still on disk until the purge


def test_retention_zero_never_expires(db, alice):
    cid = create(alice, title="forever", retention_days=0)
    db.admin.execute("update dbms_cloud_ai._conversation set created = now() - interval '100 years' "
                     "where conversation_id = %s::uuid", (cid,))
    assert conversation(alice, cid)["conversation_title"] == "forever"
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid,))
    alice.execute("select dbms_cloud_ai.update_conversation(%s, '{\"description\": \"still here\"}')", (cid,))
    assert db.connect("ai_admin").execute("call dbms_cloud_ai.purge_expired_conversations()").fetchone()[0] == 0
    assert conversation(alice, cid)["description"] == "still here"


def _turns(conn, cid, n, tag):
    for i in range(n):
        chat(conn, f"{tag}{i}", cid)


def test_purge_as_admin_deletes_expired_rows_of_all_roles_in_batches(db, alice, bob, llm):
    make_profile(alice, llm)
    make_profile(bob, llm, credential="BOBCRED")
    a_old, a_live = create(alice, title="a old"), create(alice, title="a live")
    b_old, b_forever = create(bob, title="b old"), create(bob, title="b forever", retention_days=0)
    _turns(alice, a_old, 3, "a")
    _turns(bob, b_old, 2, "b")
    _turns(alice, a_live, 1, "l")
    _turns(bob, b_forever, 1, "f")
    expire_in(db, a_old, -1)
    expire_in(db, b_old, -1)
    expire_in(db, a_live, 60)
    admin = db.connect("ai_admin")
    purge = "call dbms_cloud_ai.purge_expired_conversations(batch_size => %s, max_batches => %s)"
    count = "select count(*) from dbms_cloud_ai._conversation_prompt"
    # 5 expired prompts, 2 per batch: one batch at a time deletes exactly 2 prompts
    # (plus any expired conversation left without prompts).
    returned, prompts_left = [], []
    for _ in range(3):
        returned.append(admin.execute(purge, (2, 1)).fetchone()[0])
        prompts_left.append(db.admin.execute(count).fetchone()[0])
    assert prompts_left == [5, 3, 2]                       # 7 at the start, 2 of them live
    assert sum(returned) == 5 + 2                          # 5 prompts and 2 conversations
    assert admin.execute(purge, (2, None)).fetchone()[0] == 0
    for cid in (a_old, b_old):
        assert table_conversations(db, cid) == 0 and table_prompts(db, cid) == 0
    for cid in (a_live, b_forever):
        assert table_conversations(db, cid) == 1 and table_prompts(db, cid) == 1
    assert [p["prompt"] for p in prompts(alice)] == ["l0"]
    assert [p["prompt"] for p in prompts(bob)] == ["f0"]


def test_purge_as_a_user_deletes_only_its_own_expired_rows(db, alice, bob, llm):
    make_profile(alice, llm)
    make_profile(bob, llm, credential="BOBCRED")
    a_old, a_empty, a_live = create(alice, title="a old"), create(alice, title="a empty"), create(alice, title="a live")
    b_old = create(bob, title="b old")
    _turns(alice, a_old, 2, "a")
    _turns(alice, a_live, 1, "l")
    _turns(bob, b_old, 2, "b")
    for cid in (a_old, a_empty, b_old):
        expire_in(db, cid, -1)
    # One prompt per batch, as many batches as needed: 2 prompts, then 2 conversations.
    assert alice.execute("call dbms_cloud_ai.purge_expired_conversations(batch_size => 1)").fetchone()[0] == 2 + 2
    assert alice.execute("call dbms_cloud_ai.purge_expired_conversations()").fetchone()[0] == 0
    assert table_conversations(db, a_old) == 0 and table_conversations(db, a_empty) == 0
    assert table_conversations(db, b_old) == 1 and table_prompts(db, b_old) == 2
    assert table_prompts(db, a_live) == 1
    assert bob.execute("call dbms_cloud_ai.purge_expired_conversations()").fetchone()[0] == 3


# --- concurrency -------------------------------------------------------------------------------------

def chat_in_background(caller, llm, prompt, cid, what):
    """Start a chat turn in a thread; return once its second model request has arrived."""
    result = {}

    def run():
        try:
            result["answer"] = chat(caller, prompt, cid)
        except Exception as e:  # noqa: BLE001 - reported by the caller's assertions
            result["error"] = e

    t = threading.Thread(target=run)
    t.start()
    deadline = time.monotonic() + 5
    while len(llm.requests) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(llm.requests) == 2, what
    return t, result


def test_drop_during_a_model_call_leaves_no_orphans(db, llm):
    caller, dropper = db.connect("alice"), db.connect("alice")
    make_profile(caller, llm)
    cid = create(caller, title="dropped meanwhile")
    llm.script(Answer("first"))
    chat(caller, "first", cid)
    notices = []
    caller.add_notice_handler(lambda d: notices.append((d.severity_nonlocalized or d.severity, d.message_primary)))
    llm.script(Answer("late answer", delay=1.0))
    t, result = chat_in_background(caller, llm, "second", cid, "the second model call never started")
    dropper.execute("select dbms_cloud_ai.drop_conversation(%s)", (cid,))
    t.join(10)
    assert not t.is_alive()
    assert result.get("answer") == "late answer", result
    assert any(sev == "WARNING" for sev, _ in notices), notices
    assert table_prompts(db, cid) == 0 and table_conversations(db, cid) == 0
    assert db.admin.execute("""select count(*) from dbms_cloud_ai._conversation_prompt p
                                where not exists (select from dbms_cloud_ai._conversation c
                                                   where c.conversation_id = p.conversation_id)""").fetchone()[0] == 0


def test_concurrent_sessions_append_without_loss_in_order(db, echo):
    owner = db.connect("alice")
    make_profile(owner, echo)
    cid = create(owner, title="shared")
    sessions, turns = 4, 5
    errors = []

    def run(s):
        conn = db.connect("alice")
        try:
            for i in range(turns):
                chat(conn, f"s{s}-t{i}", cid)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(s,)) for s in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    rows = prompts(owner, cid)
    assert len(rows) == sessions * turns
    assert len({r["conversation_prompt_id"] for r in rows}) == sessions * turns
    for s in range(sessions):
        mine = [r["prompt"] for r in rows if r["prompt"].startswith(f"s{s}-")]
        assert mine == [f"s{s}-t{i}" for i in range(turns)]
    seqs = [r[0] for r in db.admin.execute("select seq from dbms_cloud_ai._conversation_prompt "
                                           "where conversation_id = %s::uuid order by created", (cid,))]
    assert len(set(seqs)) == len(seqs)


def test_naming_call_holds_no_lock(db, llm):
    """The naming call, like the answer, runs before anything is written: a drop
    from another session does not wait for it."""
    caller, dropper = db.connect("alice"), db.connect("alice")
    make_profile(caller, llm)
    cid = create(caller)
    llm.script(Answer("answer"), Answer('{"title": "T", "description": "D"}', delay=1.0))
    t, result = chat_in_background(caller, llm, "q", cid, "the naming call never started")
    dropper.execute("set lock_timeout = '300ms'")
    dropper.execute("select dbms_cloud_ai.drop_conversation(%s)", (cid,))
    t.join(10)
    assert result.get("answer") == "answer", result
    assert table_prompts(db, cid) == 0 and table_conversations(db, cid) == 0
