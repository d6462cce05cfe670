"""Condensed history: the prompts that fall out of a named conversation's window are
sent as a running summary that the model writes and updates incrementally.

The fake model answers a question with ``re: <question>`` and a summary request
with the previous summary and the questions it was asked to add, joined by
``|`` (``q1|q2``): so every assertion can say exactly what was summarised and
what was sent.  Conversations are created with a title (no naming call), so the
requests are the summary calls and the answers only.
"""

from __future__ import annotations

import json
import re
import threading
import time

import psycopg
import pytest
from dbms_cloud_ai.conversations import summaries
from fake_llm import Answer, Raw
from helpers import case, generate, make_profile, raises

SHOWN_SQL = "SELECT i.name\nFROM alice.items AS i"   # the checked query, as showsql shows it
SUMMARY_SYSTEM = "You keep a running summary of a conversation"
USER_LINE = re.compile(r"^User: (.*)$", re.M)


# --- the fake model -----------------------------------------------------------------------

def is_summary(body) -> bool:
    msgs = body.get("messages") or []
    return bool(msgs) and msgs[0]["role"] == "system" and msgs[0]["content"].startswith(SUMMARY_SYSTEM)


def previous_summary(body) -> str | None:
    text = body["messages"][1]["content"]
    if not text.startswith("Summary so far:\n"):     # the first summary
        return None
    return text.split("Summary so far:\n", 1)[1].split("\n\nExchanges to add", 1)[0]


def folded(body) -> list[str]:
    """The questions a summary request asks to add, oldest first."""
    text = body["messages"][1]["content"]
    return USER_LINE.findall(re.split(r"Exchanges to (?:add|summarise), oldest first:\n", text, maxsplit=1)[1])


def respond(wire, body):
    if is_summary(body):
        prev = previous_summary(body)
        return Answer("|".join(([prev] if prev else []) + folded(body)))
    return Answer("re: " + body["messages"][-1]["content"])


@pytest.fixture(autouse=True)
def fake(llm):
    llm.responder = respond
    yield llm
    llm.responder = lambda wire, body: Answer("fake answer")


# --- helpers ------------------------------------------------------------------------------

def create(conn, **attrs) -> str:
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps({"title": "Condensed", **attrs}),)).fetchone()[0]


def update(conn, cid, **attrs):
    conn.execute("select dbms_cloud_ai.update_conversation(%s, %s)", (cid, json.dumps(attrs)))


def chat(conn, prompt, cid, profile="P", action="chat", **kw):
    return generate(conn, prompt, profile, action, params=json.dumps({"conversation_id": cid}), **kw)


def pairs(*questions):
    out = []
    for q in questions:
        out += [{"role": "user", "content": q}, {"role": "assistant", "content": "re: " + q}]
    return out


def summary_msg(text):
    return {"role": "system", "content": f"{summaries.LABEL}\n{text}"}


def user(q):
    return [{"role": "user", "content": q}]


def bodies(llm, start=0):
    return [r.json for r in llm.requests[start:]]


def summary_requests(llm, start=0):
    return [b for b in bodies(llm, start) if is_summary(b)]


def answer_requests(llm, start=0):
    return [b for b in bodies(llm, start) if not is_summary(b)]


def stored(conn, cid):
    row = conn.execute("select summary, summarized_prompts, last_summarized_prompt_id, summary_call_id "
                       "from dbms_cloud_ai.user_cloud_ai_conversation_summaries where conversation_id = %s",
                       (cid,)).fetchone()
    return None if row is None else dict(zip(("summary", "prompts", "last_prompt_id", "call_id"), row))


def prompt_ids(conn, cid):
    return {p: i for p, i in conn.execute(
        "select prompt, conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where conversation_id = %s", (cid,))}


def all_text(llm, start=0) -> str:
    return "\n".join(r.body.decode() for r in llm.requests[start:])


# --- rolling forward ----------------------------------------------------------------------

def test_summary_rolls_forward_at_the_window_edge(alice, fake):
    make_profile(alice, fake)
    cid = create(alice, conversation_length=3, summarize_history=True)
    for q in ("q1", "q2", "q3", "q4"):
        assert chat(alice, q, cid) == "re: " + q
    # Up to the window's length nothing is summarised: the requests are the answers only.
    assert summary_requests(fake) == []
    assert fake.requests[-1].json["messages"] == pairs("q1", "q2", "q3") + user("q4")
    assert stored(alice, cid)["summary"] is None

    n = len(fake.requests)
    assert chat(alice, "q5", cid) == "re: q5"
    # q1 fell out: first the summary call (q1 alone), then the answer: summary, window, question.
    assert len(fake.requests) == n + 2
    s, a = fake.requests[n].json, fake.requests[n + 1].json
    assert s["messages"] == [
        {"role": "system", "content": summaries._SYSTEM.format(max_tokens=500)},
        {"role": "user", "content": "Exchanges to summarise, oldest first:\nUser: q1\nAssistant: re: q1"
                                    "\n\nReply with the summary of these exchanges alone."}]
    assert s["max_tokens"] == 500
    assert a["messages"] == [summary_msg("q1")] + pairs("q2", "q3", "q4") + user("q5")
    ids = prompt_ids(alice, cid)
    assert stored(alice, cid) == {"summary": "q1", "prompts": 1, "last_prompt_id": ids["q1"],
                                  "call_id": stored(alice, cid)["call_id"]}

    n = len(fake.requests)
    chat(alice, "q6", cid)
    assert bodies(fake, n)[1]["messages"] == [summary_msg("q1|q2")] + pairs("q3", "q4", "q5") + user("q6")
    chat(alice, "q7", cid)
    assert fake.requests[-1].json["messages"] == [summary_msg("q1|q2|q3")] + pairs("q4", "q5", "q6") + user("q7")
    assert stored(alice, cid)["prompts"] == 3
    assert stored(alice, cid)["last_prompt_id"] == prompt_ids(alice, cid)["q3"]
    # Every prompt is still stored: the summary limits what is sent, not what is kept.
    assert len(prompt_ids(alice, cid)) == 7


def test_each_summary_request_carries_the_previous_summary_and_only_the_new_turns(alice, fake):
    make_profile(alice, fake)
    cid = create(alice, conversation_length=2, summarize_history=True)
    for i in range(1, 11):
        chat(alice, f"q{i}", cid)
    reqs = summary_requests(fake)
    # Turns 4..10 each folded exactly the one prompt that fell out, onto the summary so far.
    assert [folded(b) for b in reqs] == [[f"q{i}"] for i in range(1, 8)]
    assert [previous_summary(b) for b in reqs] == [None] + ["|".join(f"q{j}" for j in range(1, i))
                                                         for i in range(2, 8)]
    for i, b in enumerate(reqs):
        with case(f"summary request {i}"):
            # Nothing but the previous summary and the new exchange: no older exchange again.
            assert len(USER_LINE.findall(b["messages"][1]["content"])) == 1
    # Lowering the window makes more fall out at once: they are folded together, once.
    update(alice, cid, conversation_length=1)
    n = len(fake.requests)
    chat(alice, "q11", cid)
    (s,) = summary_requests(fake, n)
    assert folded(s) == ["q8", "q9"] and previous_summary(s) == "|".join(f"q{j}" for j in range(1, 8))
    assert fake.requests[-1].json["messages"] == [summary_msg("|".join(f"q{j}" for j in range(1, 10)))] \
        + pairs("q10") + user("q11")
    # Raising it again does not unfold the summary: the window grows as new prompts arrive.
    update(alice, cid, conversation_length=3)
    chat(alice, "q12", cid)
    assert fake.requests[-1].json["messages"][1:] == pairs("q10", "q11") + user("q12")
    chat(alice, "q13", cid)
    assert fake.requests[-1].json["messages"][1:] == pairs("q10", "q11", "q12") + user("q13")
    assert summary_requests(fake, n + 2) == []


def test_system_instructions_come_first_and_nl2sql_sends_summary_before_the_window(alice, fake):
    make_profile(alice, fake, role="You are terse.", summarize_history=True)
    alice.execute("create table alice.items (id int primary key, name text)")
    cid = create(alice, conversation_length=1)
    chat(alice, "q1", cid)
    chat(alice, "q2", cid)
    n = len(fake.requests)
    chat(alice, "q3", cid)
    assert fake.requests[-1].json["messages"] == [
        {"role": "system", "content": "You are terse."}, summary_msg("q1")] + pairs("q2") + user("q3")
    # showsql: role, intro, the table, the summary, the window, the question.
    fake.script(Answer("q1|q2"), Answer("SELECT i.name FROM alice.items i"))
    alice.execute("set statement_timeout = '20s'")
    assert chat(alice, "names of items", cid, action="showsql") == SHOWN_SQL
    msgs = fake.requests[-1].json["messages"]
    assert summary_requests(fake, n + 2)[0]["messages"][1]["content"].endswith(
        "User: q2\nAssistant: re: q2\n\nReply with the updated summary alone.")
    assert [m["role"] for m in msgs] == ["system", "system", "system", "system", "user", "assistant", "user"]
    assert msgs[0]["content"] == "You are terse."
    assert msgs[2]["content"].startswith("CREATE TABLE alice.items (")
    assert msgs[3] == summary_msg("q1|q2")
    assert msgs[4:6] == pairs("q3")
    assert msgs[6]["content"].endswith("Question: names of items")


# --- on and off -----------------------------------------------------------------------------

def test_off_by_default_and_by_attribute(alice, fake):
    make_profile(alice, fake)
    off = create(alice, conversation_length=2)
    for i in range(1, 6):
        chat(alice, f"q{i}", off)
    # Off (the default): Oracle's behaviour, the newest pairs only, no summary call.
    assert summary_requests(fake) == []
    assert fake.requests[-1].json["messages"] == pairs("q3", "q4") + user("q5")
    assert stored(alice, off)["summary"] is None
    # Turned on later: the prompts that fell out so far are folded on the next turn.
    update(alice, off, summarize_history=True)
    n = len(fake.requests)
    chat(alice, "q6", off)
    assert [folded(b) for b in summary_requests(fake, n)] == [["q1", "q2", "q3"]]
    assert fake.requests[-1].json["messages"] == [summary_msg("q1|q2|q3")] + pairs("q4", "q5") + user("q6")
    # Turned off again: the newest pairs only; the summary stays stored, unused.
    update(alice, off, summarize_history=False)
    n = len(fake.requests)
    chat(alice, "q7", off)
    assert bodies(fake, n) == [fake.requests[-1].json]
    assert fake.requests[-1].json["messages"] == pairs("q5", "q6") + user("q7")


def test_conversation_attribute_overrides_the_profile(alice, fake):
    make_profile(alice, fake, summarize_history=True, summary_max_tokens=300)
    inherit = create(alice, conversation_length=1)
    off = create(alice, conversation_length=1, summarize_history=False)
    own_size = create(alice, conversation_length=1, summary_max_tokens=120)
    for cid in (inherit, off, own_size):
        for q in ("a", "b"):
            chat(alice, q, cid)
    n = len(fake.requests)
    chat(alice, "c", inherit)
    (s,) = summary_requests(fake, n)
    assert s["max_tokens"] == 300 and "at most 300 tokens" in s["messages"][0]["content"]
    n = len(fake.requests)
    chat(alice, "c", off)
    assert summary_requests(fake, n) == []
    assert fake.requests[-1].json["messages"] == pairs("b") + user("c")
    n = len(fake.requests)
    chat(alice, "c", own_size)
    (s,) = summary_requests(fake, n)
    assert s["max_tokens"] == 120 and "at most 120 tokens" in s["messages"][0]["content"]
    # A profile without it, a conversation with it: on.
    alice.execute("select dbms_cloud_ai.set_attribute('P', 'summarize_history', 'false')")
    n = len(fake.requests)
    chat(alice, "d", inherit)
    assert summary_requests(fake, n) == []
    on = create(alice, conversation_length=1, summarize_history=True)
    for q in ("a", "b", "c"):
        chat(alice, q, on)
    assert [folded(b) for b in summary_requests(fake, n)] == [["a"]]
    # The view shows each conversation's own settings (NULL: the profile's).
    rows = dict((r[0], r[1:]) for r in alice.execute(
        "select conversation_id, summarize_history, summary_max_tokens "
        "from dbms_cloud_ai.user_cloud_ai_conversation_summaries"))
    assert rows == {inherit: (None, None), off: (False, None), own_size: (None, 120), on: (True, None)}


def test_attribute_validation(alice, fake):
    make_profile(alice, fake)
    cid = create(alice)
    bad = ['{"summarize_history": "yes"}', '{"summarize_history": 1}', '{"summary_max_tokens": 49}',
           '{"summary_max_tokens": 4001}', '{"summary_max_tokens": "big"}', '{"summary_max_tokens": true}',
           '{"summary_max_tokens": 100.5}', '{"summarise_history": true}']
    for attrs in bad:
        with case(f"create {attrs}"):
            with raises("22023") as e:
                alice.execute("select dbms_cloud_ai.create_conversation(%s)", (attrs,))
            assert e["error"].diag.message_hint
        with case(f"update {attrs}"):
            with raises("22023"):
                alice.execute("select dbms_cloud_ai.update_conversation(%s, %s)", (cid, attrs))
    for name, value in (("summarize_history", "maybe"), ("summary_max_tokens", "12"),
                        ("summary_max_tokens", "x"), ("summary_max_tokens", "5000")):
        with case(f"profile {name}={value}"):
            with raises("22023"):
                alice.execute("select dbms_cloud_ai.set_attribute('P', %s, %s)", (name, value))
        with case(f"generate {name}={value}"):
            with raises("22023"):
                chat(alice, "q", cid, attributes=json.dumps({name: value}))
    assert len(fake.requests) == 0
    # The limits and the string forms are accepted; null goes back to the profile's.
    for attrs in ({"summarize_history": "true", "summary_max_tokens": 50},
                  {"summary_max_tokens": "4000"}, {"summarize_history": None, "summary_max_tokens": None}):
        with case(f"accepted {attrs}"):
            create(alice, **attrs)
            update(alice, cid, **attrs)
    alice.execute("select dbms_cloud_ai.set_attributes('P', %s)",
                  ('{"summarize_history": true, "summary_max_tokens": 4000}',))
    defaults = dict(alice.execute("select attribute_name, default_value from dbms_cloud_ai.profile_attribute_names "
                                  "where attribute_name like 'summar%'"))
    assert defaults == {"summarize_history": "false", "summary_max_tokens": "500"}
    # update changes only what it is given.
    update(alice, cid, summarize_history=True, summary_max_tokens=200)
    update(alice, cid, title="renamed")
    assert alice.execute("select summarize_history, summary_max_tokens from "
                         "dbms_cloud_ai.user_cloud_ai_conversation_summaries where conversation_id = %s",
                         (cid,)).fetchone() == (True, 200)


def test_session_conversations_are_not_summarised(alice, fake):
    make_profile(alice, fake, conversation=True, summarize_history=True)
    for i in range(1, 14):
        generate(alice, f"q{i}", "P", "chat")
    assert summary_requests(fake) == []
    assert fake.requests[-1].json["messages"] == pairs(*[f"q{i}" for i in range(3, 13)]) + user("q13")


# --- deleting and dropping ----------------------------------------------------------------

def test_deleted_prompts_leave_no_trace_in_what_is_sent(db, alice, fake):
    make_profile(alice, fake)
    cid = create(alice, conversation_length=2, summarize_history=True)
    for q in ("q1", "SECRET-PLUM", "q3", "q4", "q5"):
        chat(alice, q, cid)
    assert stored(alice, cid)["summary"] == "q1|SECRET-PLUM"
    # The deleted prompt was summarised: the summary made from it goes with it.
    plum = prompt_ids(alice, cid)["SECRET-PLUM"]
    alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (plum,))
    assert stored(alice, cid)["summary"] is None
    assert "SECRET-PLUM" not in db.admin.execute(
        "select coalesce(string_agg(coalesce(summary, ''), ''), '') from dbms_cloud_ai._conversation_summary"
    ).fetchone()[0]
    n = len(fake.requests)
    chat(alice, "q6", cid)
    # Rebuilt from what remains, and nothing of the deleted prompt is sent again, anywhere.
    assert [folded(b) for b in summary_requests(fake, n)] == [["q1", "q3"]]
    assert fake.requests[-1].json["messages"] == [summary_msg("q1|q3")] + pairs("q4", "q5") + user("q6")
    for q in ("q7", "q8"):
        chat(alice, q, cid)
    assert "SECRET-PLUM" not in all_text(fake, n)

    # A prompt of the window is not in the summary: the summary stays, the prompt is never sent.
    alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (prompt_ids(alice, cid)["q7"],))
    assert stored(alice, cid)["summary"] == "q1|q3|q4|q5"
    n = len(fake.requests)
    chat(alice, "q9", cid)
    assert summary_requests(fake, n) == []
    assert fake.requests[-1].json["messages"] == [summary_msg("q1|q3|q4|q5")] + pairs("q6", "q8") + user("q9")

    # A direct DELETE on the table is refused (users write through the API only);
    # the API's delete of a summarised prompt erases the summary.
    with raises("42501"):
        alice.execute("delete from dbms_cloud_ai._conversation_prompt where prompt = 'q4'")
    assert stored(alice, cid)["summary"] == "q1|q3|q4|q5"
    alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (prompt_ids(alice, cid)["q4"],))
    assert stored(alice, cid)["summary"] is None
    n = len(fake.requests)
    chat(alice, "q10", cid)
    assert fake.requests[-1].json["messages"] == [summary_msg("q1|q3|q5|q6")] + pairs("q8", "q9") + user("q10")
    assert not re.search(r"\bq4\b", all_text(fake, n))


def test_drop_and_purge_remove_summaries(db, alice, fake):
    make_profile(alice, fake)
    cids = [create(alice, conversation_length=1, summarize_history=True) for _ in range(2)]
    for cid in cids:
        for q in ("a", "b", "c"):
            chat(alice, q, cid)
        assert stored(alice, cid)["summary"] == "a"

    def rows(cid):
        return db.admin.execute("select count(*) from dbms_cloud_ai._conversation_summary "
                                "where conversation_id = %s::uuid", (cid,)).fetchone()[0]
    alice.execute("select dbms_cloud_ai.drop_conversation(%s)", (cids[0],))
    assert rows(cids[0]) == 0
    # Expired and purged (by an administrator): gone too.
    db.admin.execute("update dbms_cloud_ai._conversation set expires_at = now() - interval '1 second' "
                     "where conversation_id = %s::uuid", (cids[1],))
    assert stored(alice, cids[1]) is None            # expired: behaves as missing at once
    admin = db.connect("ai_admin")
    admin.execute("call dbms_cloud_ai.purge_expired_conversations()")
    assert rows(cids[1]) == 0
    # A superuser's own conversation drops cleanly too (the trigger skips a vanishing one).
    make_profile(db.admin, fake, credential="SCRED")
    own = create(db.admin, conversation_length=1, summarize_history=True)
    for q in ("a", "b", "c"):
        chat(db.admin, q, own)
    db.admin.execute("select dbms_cloud_ai.drop_conversation(%s)", (own,))
    assert rows(own) == 0


# --- accounting and failures ---------------------------------------------------------------

def test_the_summary_call_is_recorded_with_purpose_summary(alice, fake):
    make_profile(alice, fake)
    cid = create(alice, conversation_length=1, summarize_history=True)
    chat(alice, "a", cid)
    chat(alice, "b", cid)
    calls = alice.execute("select purpose from dbms_cloud_ai.user_cloud_ai_calls order by created").fetchall()
    assert calls == [("answer",), ("answer",)]
    chat(alice, "c", cid)
    rows = alice.execute("""
        select purpose, prompt_version, status, conversation_id, conversation_prompt_id, action,
               input_tokens, output_tokens, call_id
          from dbms_cloud_ai.user_cloud_ai_calls order by created""").fetchall()
    summary, answer = rows[2], rows[3]
    c_id = prompt_ids(alice, cid)["c"]
    assert summary[:7] == ("summary", summaries.VERSION, "ok", cid, c_id, "CHAT", 11)
    assert answer[0] == "answer" and answer[4] == c_id
    assert stored(alice, cid)["call_id"] == summary[8]
    # The turn's prompt row counts every call of the turn, the summary's included.
    assert alice.execute("select input_tokens, output_tokens from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                         "where conversation_prompt_id = %s", (c_id,)).fetchone() == (22, 14)
    assert summaries.VERSION.startswith("summary@")


def test_a_failed_summary_call_does_not_fail_the_turn(alice, fake):
    make_profile(alice, fake)
    cid = create(alice, conversation_length=1, summarize_history=True)
    chat(alice, "a", cid)
    chat(alice, "b", cid)
    n = len(fake.requests)
    fake.script(Raw(400, {"error": {"message": "no"}}))
    assert chat(alice, "c", cid) == "re: c"
    # The answer was made without the fallen-out prompt; nothing was stored.
    assert len(fake.requests) == n + 2
    assert fake.requests[-1].json["messages"] == pairs("b") + user("c")
    assert stored(alice, cid)["summary"] is None
    assert alice.execute("select status, error_sqlstate from dbms_cloud_ai.user_cloud_ai_calls "
                         "where purpose = 'summary'").fetchall() == [("error", "LL004")]
    # The next turn folds what fell out since: both.
    n = len(fake.requests)
    chat(alice, "d", cid)
    assert [folded(b) for b in summary_requests(fake, n)] == [["a", "b"]]
    assert fake.requests[-1].json["messages"] == [summary_msg("a|b")] + pairs("c") + user("d")
    # A failed answer after a summary call stores nothing (the statement is rolled back).
    fake.script(Answer("a|b|c"), Raw(400, {"error": {"message": "no"}}))
    with raises("LL004"):
        chat(alice, "e", cid)
    assert stored(alice, cid)["summary"] == "a|b"


# --- cost ------------------------------------------------------------------------------------

def _long_conversation(db, alice, prompts: int) -> str:
    cid = create(alice, summarize_history=True)
    db.admin.execute("""
        insert into dbms_cloud_ai._conversation_prompt
               (conversation_prompt_id, conversation_id, owner, profile_name, prompt_action, prompt,
                prompt_response)
        select gen_random_uuid(), %s::uuid, 'alice', 'P', 'CHAT', 'old ' || i, 're: old ' || i
          from generate_series(1, %s) i order by i""", (cid, prompts))
    return cid


def test_the_work_per_turn_does_not_grow_with_the_history(db, alice, fake):
    make_profile(alice, fake)
    sizes = {}
    for prompts in (40, 2000):
        cid = _long_conversation(db, alice, prompts)
        n = len(fake.requests)
        chat(alice, "first", cid)
        s, a = bodies(fake, n)
        # The summary is built from the latest fallen-out prompts only (at most MAX_FOLD), the
        # answer gets it and the window of 10.
        assert folded(s) == [f"old {i}" for i in range(prompts - 10 - summaries.MAX_FOLD + 1, prompts - 9)]
        assert len(folded(s)) == summaries.MAX_FOLD
        assert "left out" in s["messages"][1]["content"]
        assert a["messages"][1:] == [m for i in range(prompts - 9, prompts + 1)
                                     for m in ({"role": "user", "content": f"old {i}"},
                                               {"role": "assistant", "content": f"re: old {i}"})] + user("first")
        # The next turn folds one prompt onto the summary.
        n = len(fake.requests)
        chat(alice, "second", cid)
        s2, a2 = bodies(fake, n)
        assert folded(s2) == [f"old {prompts - 9}"]
        assert len(a2["messages"]) == 1 + 20 + 1
        sizes[prompts] = (len(json.dumps(s2)), len(json.dumps(a2)))
        # The history query reads a bounded number of rows, with the index, at any length.
        plan = db.admin.execute("""
            explain (analyze, format json)
            select seq, prompt, prompt_response from dbms_cloud_ai._conversation_prompt
             where conversation_id = %s::uuid and owner = 'alice' and seq > 0
             order by seq desc limit 31""", (cid,)).fetchone()[0][0]["Plan"]
        assert plan["Plans"][0]["Node Type"] in ("Index Scan", "Index Scan Backward")
        assert plan["Plans"][0]["Actual Rows"] <= 31
    # Same request sizes (to within the digits of the numbers) for 40 and 2,000 prompts.
    assert sizes[2000][0] < sizes[40][0] * 1.1 and sizes[2000][1] < sizes[40][1] * 1.1


# --- showprompt -----------------------------------------------------------------------------

def test_showprompt_shows_the_assembled_history(alice, fake):
    make_profile(alice, fake, summarize_history=True)
    alice.execute("create table alice.items (id int primary key, name text)")
    cid = create(alice, conversation_length=2)
    for q in ("q1", "q2", "q3", "q4"):
        chat(alice, q, cid)
    n = len(fake.requests)
    shown = json.loads(chat(alice, "names of items", cid, action="showprompt"))
    assert len(fake.requests) == n          # showprompt makes no model call
    msgs = [m for m in shown if "role" in m]
    assert msgs[0]["content"].startswith("You translate questions")
    assert msgs[1]["content"].startswith("CREATE TABLE alice.items (")
    # The stored summary, the window that the next turn sends, then the question.
    assert msgs[2:-1] == [summary_msg("q1")] + pairs("q3", "q4")
    assert msgs[-1]["content"].endswith("Question: names of items")
    note = shown[-1]
    assert "role" not in note and "1 earlier prompt" in note["summary_pending"]
    # That turn folds q2 first, and sends what showprompt showed with the new summary.
    fake.script(Answer("q1|q2"), Answer("SELECT i.name FROM alice.items i"))
    alice.execute("set statement_timeout = '20s'")
    chat(alice, "names of items", cid, action="showsql")
    assert fake.requests[-1].json["messages"] == msgs[:2] + [summary_msg("q1|q2")] + msgs[3:]
    shown = json.loads(chat(alice, "names of items", cid, action="showprompt"))
    assert [m for m in shown if "role" in m][2:-1] == [summary_msg("q1|q2")] + pairs("q4") + [
        {"role": "user", "content": "names of items"}, {"role": "assistant", "content": SHOWN_SQL}]
    # Without summarising: no summary, no note.
    update(alice, cid, summarize_history=False)
    shown = json.loads(chat(alice, "names of items", cid, action="showprompt"))
    assert all("role" in m for m in shown)
    assert not any(m["content"].startswith(summaries.LABEL) for m in shown)


# --- isolation ------------------------------------------------------------------------------

def test_other_roles_never_see_or_touch_a_summary(db, alice, bob, fake):
    make_profile(alice, fake)
    cid = create(alice, conversation_length=1, summarize_history=True)
    for q in ("private-a", "private-b", "c"):
        chat(alice, q, cid)
    assert stored(alice, cid)["summary"] == "private-a"
    assert bob.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_summaries").fetchone()[0] == 0
    assert bob.execute("select count(*) from dbms_cloud_ai._conversation_summary").fetchone()[0] == 0
    with raises("42501"):
        bob.execute("select count(*) from dbms_cloud_ai.dba_cloud_ai_conversation_summaries")
    with raises("42501"):  # writing a summary into alice's conversation
        bob.execute("insert into dbms_cloud_ai._conversation_summary (conversation_id, summary, first_seq, "
                    "covers_seq) values (%s::uuid, 'forged', 1, 1)", (cid,))
    for sql in ("update dbms_cloud_ai._conversation_summary set summary = 'x'",
                "delete from dbms_cloud_ai._conversation_summary"):
        with raises("42501"):
            bob.execute(sql)
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.update_conversation(%s, '{\"summarize_history\": false}')", (cid,))
    make_profile(bob, fake, credential="BCRED")
    n = len(fake.requests)
    with raises("42704"):
        chat(bob, "q", cid)
    assert len(fake.requests) == n
    # bob's own conversation has its own summary, and his requests never carry alice's.
    mine = create(bob, conversation_length=1, summarize_history=True)
    for q in ("x", "y", "z"):
        chat(bob, q, mine)
    assert "private" not in all_text(fake, n)
    assert stored(bob, mine)["summary"] == "x"
    assert stored(alice, cid)["summary"] == "private-a"
    # The administrator's view shows both, with their owners.
    admin = db.connect("ai_admin")
    rows = set(admin.execute("select owner, summary from dbms_cloud_ai.dba_cloud_ai_conversation_summaries"))
    assert rows == {("alice", "private-a"), ("bob", "x")}


# --- concurrency ----------------------------------------------------------------------------

def _in_thread(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - surfaced by the caller
            out["error"] = e
    t = threading.Thread(target=run)
    t.start()
    return t, out


def _wait_for(predicate, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError("timed out")


def test_two_turns_at_once_leave_one_consistent_summary(db, alice, fake):
    make_profile(alice, fake)
    cid = create(alice, conversation_length=2, summarize_history=True)
    for q in ("q1", "q2", "q3"):
        chat(alice, q, cid)
    gate = threading.Event()

    def slow(wire, body):
        if not is_summary(body):
            gate.wait(10)
        return respond(wire, body)
    fake.responder = slow
    conns = [db.connect("alice"), db.connect("alice")]
    n = len(fake.requests)
    runs = [_in_thread(lambda c=c, q=q: chat(c, q, cid)) for c, q in zip(conns, ("A", "B"))]
    # Both read the same state and folded q1 before either answered.
    _wait_for(lambda: len(answer_requests(fake, n)) == 2)
    gate.set()
    for t, out in runs:
        t.join(20)
        assert "error" not in out, out
    fake.responder = respond
    assert [folded(b) for b in summary_requests(fake, n)] == [["q1"], ["q1"]]
    # One of them stored it; the other found the generation moved and stored nothing.
    row = db.admin.execute("""select summary, prompts, generation, covers_seq = (select seq from
                                     dbms_cloud_ai._conversation_prompt where prompt = 'q1')
                                from dbms_cloud_ai._conversation_summary""").fetchone()
    assert row == ("q1", 1, 1, True)
    # The next turn continues from it: A and B are the window, q2 and q3 fell out.
    n = len(fake.requests)
    chat(alice, "q4", cid)
    (s,) = summary_requests(fake, n)
    assert previous_summary(s) == "q1" and folded(s) == ["q2", "q3"]


def test_a_prompt_deleted_during_a_turn_is_not_summarised(db, alice, fake):
    make_profile(alice, fake)
    cid = create(alice, conversation_length=1, summarize_history=True)
    for q in ("q1", "DOOMED", "q3"):
        chat(alice, q, cid)
    assert stored(alice, cid)["summary"] == "q1"
    gate = threading.Event()

    def slow(wire, body):
        if not is_summary(body):
            gate.wait(10)
        return respond(wire, body)
    fake.responder = slow
    n = len(fake.requests)
    other = db.connect("alice")
    t, out = _in_thread(lambda: chat(other, "q4", cid))
    # The turn folded DOOMED and waits for its answer; DOOMED is deleted meanwhile.
    _wait_for(lambda: len(answer_requests(fake, n)) == 1)
    assert folded(summary_requests(fake, n)[0]) == ["DOOMED"]
    alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (prompt_ids(alice, cid)["DOOMED"],))
    gate.set()
    t.join(20)
    assert out.get("value") == "re: q4"
    fake.responder = respond
    # The turn's summary was not stored (the delete changed the generation it read).
    assert db.admin.execute("select string_agg(coalesce(summary, '-'), '') "
                            "from dbms_cloud_ai._conversation_summary").fetchone()[0] == "q1"
    n = len(fake.requests)
    chat(alice, "q5", cid)
    assert "DOOMED" not in all_text(fake, n)
    assert fake.requests[-1].json["messages"] == [summary_msg("q1|q3")] + pairs("q4") + user("q5")


def test_repeatable_read_delete_racing_a_turn_fails_safely(db, alice, fake):
    """A delete whose snapshot predates the summary that a turn just stored cannot
    miss it: it fails with 40001 (retry), and the retry erases the summary."""
    make_profile(alice, fake)
    cid = create(alice, conversation_length=1, summarize_history=True)
    for q in ("q1", "q2"):
        chat(alice, q, cid)
    q1 = prompt_ids(alice, cid)["q1"]
    deleter = db.connect("alice")
    deleter.execute("begin isolation level repeatable read")
    deleter.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts")  # snapshot
    chat(alice, "q3", cid)                        # folds q1, stores the summary, commits
    assert stored(alice, cid)["summary"] == "q1"
    with pytest.raises(psycopg.errors.SerializationFailure):
        deleter.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (q1,))
    deleter.execute("rollback")
    deleter.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (q1,))
    assert stored(alice, cid)["summary"] is None


def test_an_action_that_refuses_first_makes_no_summary_call(alice, fake):
    """runsql without a finite statement_timeout is refused before any model call,
    the summary call included."""
    make_profile(alice, fake, summarize_history=True)
    alice.execute("create table alice.items (id int primary key, name text)")
    cid = create(alice, conversation_length=1)
    chat(alice, "q1", cid)
    chat(alice, "q2", cid)
    n = len(fake.requests)
    alice.execute("set statement_timeout = 0")
    with raises("55000"):
        chat(alice, "names of items", cid, action="runsql")
    assert len(fake.requests) == n
