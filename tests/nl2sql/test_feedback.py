"""Feedback (Oracle FEEDBACK and the SELECT AI feedback statement), ratings of
conversation prompts, the examples both become in later NL2SQL prompts (full
text and embeddings), the sources recorded with answers, and the export of
negative feedback.  End to end with the fake LLM: assertions are on what was
sent to it and on what the database kept."""

from __future__ import annotations

import hashlib
import json
import struct

import pytest
from fake_llm import Answer, Raw, Vectors, embed_text, last_user_text
from helpers import case, generate, make_profile, raises
from nl2sql_fixtures import PEOPLE_GYMNAST, people  # noqa: F401 - fixture

COUNT_SQL = 'SELECT count(*) AS "People Count" FROM alice.people p'
COUNT_SHOWN = 'SELECT count(*) AS "People Count"\nFROM alice.people AS p'
CORRECT_SQL = 'SELECT count(p.id) AS "People Count" FROM alice.people p'
AGE_SQL = 'SELECT avg(p.age) AS "Average Age" FROM alice.people p'
GYM_SQL = 'SELECT max(g.total_points) AS "Best" FROM alice.gymnast g'
Q_COUNT = "how many people are there"
Q_SIMILAR = "How many people are there in the database?"
Q_UNRELATED = "What is the best total score of a gymnast?"


# --- fixtures and helpers ------------------------------------------------------------------------

def oracle_sql_id(text: str) -> str:
    """Reference implementation (Tanel Poder / Slavik Markovich): the last 8 bytes of
    MD5(text || NUL) as two little-endian 32-bit words, high then low, in base 32."""
    d = hashlib.md5(text.encode() + b"\0").digest()
    msb, lsb = struct.unpack("<II", d[8:16])
    n = msb * 2**32 + lsb
    alphabet = "0123456789abcdfghjkmnpqrstuvwxyz"
    return "".join(alphabet[(n // 32**i) % 32] for i in range(12, -1, -1))


def showsql(conn, llm, question, sql=COUNT_SQL, profile="P"):
    llm.script(Answer(sql))
    return generate(conn, question, profile, "showsql")


def feedback(conn, profile="P", **kw):
    args = ", ".join(f"{k} => %({k})s" for k in kw)
    conn.execute(f"select dbms_cloud_ai.feedback(%(p)s{', ' + args if args else ''})",
                 {"p": profile, **kw})


def rows(conn, sql, params=()):
    cur = conn.execute(sql, params)
    cols = [d.name for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def statements(conn):
    return rows(conn, "select * from dbms_cloud_ai.user_cloud_ai_sql_statements order by created")


def feedback_rows(conn):
    return rows(conn, "select * from dbms_cloud_ai.user_cloud_ai_feedback order by created")


def chat_messages(llm, i=-1):
    return llm.chat_requests[i].json["messages"]


def last_question(llm) -> str:
    """The last user turn of the last chat request, whatever the wire format."""
    r = llm.chat_requests[-1]
    return last_user_text(r.wire, r.json)


def user_message(messages) -> str:
    return [m for m in messages if m.get("role") == "user"][-1]["content"]


def showprompt_user(conn, question, profile="P") -> str:
    out = json.loads(generate(conn, question, profile, "showprompt"))
    return user_message([m for m in out if "role" in m])


def example_block(text: str) -> str:
    """The examples part of an NL2SQL user message ('' when there is none)."""
    if "Examples: " not in text:
        return ""
    return text[text.index("Examples: "):text.index("\n\nQuestion: ")]


def shown_examples(text: str) -> list[dict]:
    """The examples of an NL2SQL user message: Oracle's JSON list of user_prompt and sql_query."""
    block = example_block(text)
    return json.loads(block[block.index("\n["):]) if block else []


def example_questions(text: str) -> list[str]:
    return [e["user_prompt"] for e in shown_examples(text)]


def sources(conn):
    return rows(conn, "select * from dbms_cloud_ai.user_cloud_ai_message_sources "
                      "order by source_kind, source_id")


def calls(conn):
    return rows(conn, "select * from dbms_cloud_ai.user_cloud_ai_calls order by created")


def create_conversation(conn, title="t"):
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps({"title": title}),)).fetchone()[0]


def prompt_ids(conn, cid):
    return [r[0] for r in conn.execute(
        "select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where conversation_id = %s order by created", (cid,)).fetchall()]


# --- the statement log and SQL_ID ---------------------------------------------------------------

def test_sql_id_is_oracles(alice):
    # Oracle's published example: V$SQL shows 7h35uxf5uhmm1 for this text.
    assert alice.execute("select dbms_cloud_ai.sql_id('select sysdate from dual')").fetchone()[0] \
        == "7h35uxf5uhmm1" == oracle_sql_id("select sysdate from dual")
    # SELECT AI texts are taken in their canonical form (action lower-case, spaces collapsed,
    # runsql when no action is named).
    for text in ("SELECT AI showsql  how many people", "select ai SHOWSQL how many people"):
        with case(text):
            assert alice.execute("select dbms_cloud_ai.sql_id(%s)", (text,)).fetchone()[0] \
                == oracle_sql_id("select ai showsql how many people")
    assert alice.execute("select dbms_cloud_ai.sql_id('select ai how many people')").fetchone()[0] \
        == oracle_sql_id("select ai runsql how many people")


def test_nl2sql_statements_are_logged_with_their_sql_id(people, llm):
    make_profile(people, llm)
    assert showsql(people, llm, Q_COUNT) == COUNT_SHOWN
    llm.script(Answer(COUNT_SQL))
    assert '"People Count" : 5' in generate(people, "  how   many people\nare there ", "P", "runsql")
    llm.script(Answer(COUNT_SQL), Answer("It counts people."))
    generate(people, "count the people", "P", "explainsql")
    llm.script(Answer(COUNT_SQL), Answer("There are 5 people."))
    generate(people, "say how many people", "P", "narrate")
    people.execute("select dbms_cloud_ai.set_profile('P')")
    llm.script(Answer(COUNT_SQL))
    people.execute("select dbms_cloud_ai.select_ai('showsql people count')")
    generate(people, "q", "P", "chat")                     # not NL2SQL: not logged
    generate(people, Q_COUNT, "P", "showprompt")           # no SQL: not logged
    got = statements(people)
    expected = [("SHOWSQL", "select ai showsql how many people are there", Q_COUNT),
                ("RUNSQL", "select ai runsql how many people are there", "  how   many people\nare there "),
                ("EXPLAINSQL", "select ai explainsql count the people", "count the people"),
                ("NARRATE", "select ai narrate say how many people", "say how many people"),
                ("SHOWSQL", "select ai showsql people count", "people count")]
    assert [(r["action"], r["sql_text"], r["prompt"]) for r in got] == expected
    assert all(r["sql_id"] == oracle_sql_id(r["sql_text"]) for r in got)
    assert all(r["sql"] == COUNT_SHOWN and r["profile_name"] == "P" for r in got)


# --- FEEDBACK: add, replace, delete ----------------------------------------------------------------

def test_feedback_add_replace_delete(people, llm):
    make_profile(people, llm)
    showsql(people, llm, Q_COUNT)
    sid = statements(people)[0]["sql_id"]
    n = len(llm.requests)
    feedback(people, sql_id=sid, feedback_type="POSITIVE", feedback_content="right")
    assert len(llm.requests) == n                          # no model call for a positive one
    [f] = feedback_rows(people)
    assert (f["sql_id"], f["sql_text"], f["question"], f["feedback_type"], f["generated_sql"],
            f["response"], f["feedback_content"], f["action"]) == (
        sid, f"select ai showsql {Q_COUNT}", Q_COUNT, "positive", COUNT_SHOWN, None, "right",
        "SHOWSQL")
    # Re-adding replaces the record (same id), here by sql_text with a correction.
    feedback(people, sql_text=f"SELECT AI showsql {Q_COUNT}", feedback_type="negative",
             response=CORRECT_SQL, feedback_content="count ids")
    [g] = feedback_rows(people)
    assert g["feedback_id"] == f["feedback_id"]
    assert (g["feedback_type"], g["response"], g["corrected_by"], g["feedback_content"],
            g["generated_sql"]) == ("negative", CORRECT_SQL, "user", "count ids", COUNT_SHOWN)
    assert g["modified"] >= f["modified"]
    # Delete, then deleting again is Oracle's "No matching feedback record for deletion".
    feedback(people, sql_id=sid, operation="DELETE")
    assert feedback_rows(people) == []
    with raises("42704"):
        feedback(people, sql_id=sid, operation="delete")
    # The statement is still known: feedback can be added again.
    feedback(people, sql_id=sid, feedback_type="positive")
    assert len(feedback_rows(people)) == 1


def test_feedback_errors(people, llm):
    make_profile(people, llm)
    showsql(people, llm, Q_COUNT)
    sid = statements(people)[0]["sql_id"]
    n = len(llm.requests)
    for what, kw, state in [
            ("both sql_id and sql_text", dict(sql_id=sid, sql_text=f"select ai showsql {Q_COUNT}",
                                              feedback_type="positive"), "22023"),
            ("neither", dict(feedback_type="positive"), "22023"),
            ("empty strings count as neither", dict(sql_id="", sql_text=" ", feedback_type="positive"), "22023"),
            ("unknown feedback_type", dict(sql_id=sid, feedback_type="neutral"), "22023"),
            ("unknown operation", dict(sql_id=sid, feedback_type="positive", operation="update"), "22023"),
            ("NULL feedback_type to add", dict(sql_id=sid), "22004"),
            ("malformed sql_id", dict(sql_id="not-an-id", feedback_type="positive"), "22P02"),
            ("positive for an unknown statement", dict(sql_text="select ai showsql how many cats",
                                                       feedback_type="positive"), "42704"),
            ("positive for an unknown sql_id", dict(sql_id="0000000000000", feedback_type="positive"), "42704"),
            ("negative for an unseen sql_id, even with a response",
             dict(sql_id="0000000000000", feedback_type="negative", response=CORRECT_SQL), "42704"),
            ("negative for an unseen sql_text without a response",
             dict(sql_text="select ai showsql how many cats", feedback_type="negative",
                  feedback_content="wrong"), "42704"),
            ("delete of a record that does not exist", dict(sql_id=sid, operation="delete"), "42704"),
            ("a response that is not a read-only query",
             dict(sql_id=sid, feedback_type="negative", response="DELETE FROM alice.people"), "42501"),
            ("a response that is not SQL", dict(sql_id=sid, feedback_type="negative",
                                                response="use count of ids"), "22023")]:
        with case(what):
            with raises(state):
                feedback(people, **kw)
    with case("unknown profile"):
        with raises("42704"):
            feedback(people, "NOPE", sql_id=sid, feedback_type="positive")
    assert feedback_rows(people) == []
    assert len(llm.requests) == n
    # Oracle: a negative add with an unseen sql_text plus response succeeds.
    feedback(people, sql_text="select ai showsql how many gymnasts", feedback_type="negative",
             response="select count(*) from alice.gymnast g")
    [f] = feedback_rows(people)
    assert (f["question"], f["action"], f["generated_sql"], f["sql_id"]) == (
        "how many gymnasts", None, None, oracle_sql_id("select ai showsql how many gymnasts"))


def test_negative_feedback_content_asks_the_model_for_a_correction(people, llm):
    make_profile(people, llm)
    showsql(people, llm, Q_COUNT)
    sid = statements(people)[0]["sql_id"]
    n = len(llm.requests)
    llm.script(Answer("```sql\n" + CORRECT_SQL + "\n```"))
    feedback(people, sql_id=sid, feedback_type="negative", feedback_content="count the ids instead")
    assert len(llm.requests) == n + 1
    msgs = chat_messages(llm)
    # The model sees the statement's prompt (tables, rules, question), its own SQL, then the feedback.
    assert msgs[-2] == {"role": "assistant", "content": COUNT_SHOWN}
    assert "count the ids instead" in msgs[-1]["content"]
    assert user_message(msgs[:-2]).endswith("Question: " + Q_COUNT)
    [f] = feedback_rows(people)
    assert (f["feedback_type"], f["corrected_by"]) == ("negative", "model")
    assert f["response"] == 'SELECT count(p.id) AS "People Count"\nFROM alice.people AS p'
    [c] = [c for c in calls(people) if c["purpose"] == "feedback"]
    assert (c["action"], c["status"], c["profile_name"]) == ("FEEDBACK", "ok", "P")
    assert c["prompt_version"].startswith("feedback-correction@")
    # A correction that is not a usable query: stored without one, with a WARNING.
    notices = []
    people.add_notice_handler(lambda d: notices.append((d.severity, d.message_primary)))
    llm.script(Answer("DELETE FROM alice.people"))
    feedback(people, sql_id=sid, feedback_type="negative", feedback_content="still wrong")
    [f] = feedback_rows(people)
    assert (f["response"], f["corrected_by"], f["feedback_content"]) == (None, None, "still wrong")
    assert any(s == "WARNING" and "not a usable query" in m for s, m in notices)


# --- the statement form --------------------------------------------------------------------------

def test_feedback_statement_applies_to_the_last_statement_of_the_session(people, llm, db):
    make_profile(people, llm)
    people.execute("select dbms_cloud_ai.set_profile('P')")
    showsql(people, llm, "how many gymnasts", GYM_SQL)
    showsql(people, llm, Q_COUNT)
    llm.script(Answer('{"feedback_type": "positive"}'))
    out = people.execute("select dbms_cloud_ai.select_ai('feedback the result is correct')").fetchone()[0]
    sid = oracle_sql_id(f"select ai showsql {Q_COUNT}")
    assert sid in out and out.startswith("Positive feedback recorded")
    msgs = chat_messages(llm)
    assert msgs[0]["role"] == "system" and '"feedback_type"' in msgs[0]["content"]
    assert msgs[1]["content"] == (f"Question: {Q_COUNT}\n\nQuery:\n{COUNT_SHOWN}\n\n"
                                  "Feedback: the result is correct")
    [f] = feedback_rows(people)
    assert (f["sql_id"], f["feedback_type"], f["feedback_content"]) == (sid, "positive",
                                                                       "the result is correct")
    assert [c["purpose"] for c in calls(people)][-1] == "feedback"
    assert calls(people)[-1]["action"] == "FEEDBACK"
    # Another session of the same role has no statement of its own yet.
    other = db.connect("alice")
    with raises("42704"):
        other.execute("select dbms_cloud_ai.generate('looks good', 'P', 'feedback')")
    # feedback is not an NL2SQL statement: the last one is still the count.
    llm.script(Answer('{"feedback_type": "negative"}'), Answer(CORRECT_SQL))
    out = people.execute("select dbms_cloud_ai.select_ai('FEEDBACK wrong: count ids, not rows')").fetchone()[0]
    assert out.startswith("Negative feedback recorded") and "count(p.id)" in out
    [f] = feedback_rows(people)
    assert (f["feedback_type"], f["corrected_by"]) == ("negative", "model")


def test_feedback_statement_for_a_named_query(people, llm):
    make_profile(people, llm)
    people.execute("select dbms_cloud_ai.set_profile('P')")
    showsql(people, llm, "how many people", COUNT_SQL)
    showsql(people, llm, "how many gymnasts", GYM_SQL)
    llm.script(Answer('The answer: {"feedback_type": "negative"}'), Answer(CORRECT_SQL))
    out = people.execute("""select dbms_cloud_ai.select_ai(
        'feedback for query "select ai showsql how many people", please use count(p.id) instead of count(*)')""").fetchone()[0]  # noqa: E501
    assert out.startswith("Negative feedback recorded for SQL_ID " + oracle_sql_id("select ai showsql how many people"))
    classify, correct = llm.chat_requests[-2].json["messages"], chat_messages(llm)
    assert classify[1]["content"].endswith("Feedback: please use count(p.id) instead of count(*)")
    assert "please use count(p.id) instead of count(*)" in correct[-1]["content"]
    [f] = feedback_rows(people)
    assert (f["question"], f["feedback_type"], f["corrected_by"]) == ("how many people", "negative", "model")
    # By sql_id too; an unknown query is 42704 before any model call.
    sid = oracle_sql_id("select ai showsql how many gymnasts")
    llm.script(Answer('{"feedback_type": "positive"}'))
    generate(people, f"for sql_id {sid}: perfect", "P", "feedback")
    assert {r["sql_id"]: r["feedback_type"] for r in feedback_rows(people)}[sid] == "positive"
    n = len(llm.requests)
    with raises("42704"):
        people.execute("""select dbms_cloud_ai.select_ai('feedback for query "select ai showsql how many cats", wrong')""")  # noqa: E501
    with raises("22023"):
        people.execute("""select dbms_cloud_ai.select_ai('feedback for query "select ai showsql how many people"')""")
    assert len(llm.requests) == n
    # A reply that is neither positive nor negative is the provider's fault (LL003).
    llm.script(Answer("I cannot tell."))
    with raises("LL003"):
        people.execute("select dbms_cloud_ai.select_ai('feedback hmm')")


# --- ratings ------------------------------------------------------------------------------------

def test_rate_prompt_is_owner_only_and_changeable(people, bob, llm):
    make_profile(people, llm)
    cid = create_conversation(people)
    llm.script(Answer(COUNT_SQL))
    generate(people, Q_COUNT, "P", "showsql", params=json.dumps({"conversation_id": cid}))
    [pid] = prompt_ids(people, cid)

    def rating():
        return people.execute("select rating, rating_comment, rated is not null from "
                              "dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                              "where conversation_prompt_id = %s", (pid,)).fetchone()

    people.execute("select dbms_cloud_ai.rate_prompt(%s, 1, 'spot on')", (pid,))
    assert rating() == (1, "spot on", True)
    people.execute("select dbms_cloud_ai.rate_prompt(%s, -1, 'no, wrong table')", (pid.lower(),))
    assert rating() == (-1, "no, wrong table", True)
    people.execute("select dbms_cloud_ai.rate_prompt(%s, null)", (pid,))
    assert rating() == (None, None, False)
    for value in (0, 2, -2, 5):
        with case(value), raises("22023"):
            people.execute("select dbms_cloud_ai.rate_prompt(%s, %s)", (pid, value))
    with raises("22P02"):
        people.execute("select dbms_cloud_ai.rate_prompt('nope', 1)")
    with raises("22004"):
        people.execute("select dbms_cloud_ai.rate_prompt(null, 1)")
    with raises("42704"):
        people.execute("select dbms_cloud_ai.rate_prompt('40D1E4B2-8E1B-10C4-E063-1A5B000A677D', 1)")
    # bob: alice's prompt behaves as missing; he sees none of her ratings or feedback.
    people.execute("select dbms_cloud_ai.rate_prompt(%s, -1, 'alice says no')", (pid,))
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.rate_prompt(%s, 1, 'bob says yes')", (pid,))
    with raises("42704"):
        bob.execute("select dbms_cloud_ai.rate_prompt(%s, null)", (pid,))
    assert rating() == (-1, "alice says no", True)
    for view in ("user_cloud_ai_conversation_prompts", "user_cloud_ai_negative_feedback",
                 "user_cloud_ai_feedback", "user_cloud_ai_sql_statements"):
        with case(view):
            assert bob.execute(f"select count(*) from dbms_cloud_ai.{view}").fetchone()[0] == 0
    assert bob.execute("select dbms_cloud_ai.export_negative_feedback()").fetchone()[0] == ""
    for table in ("_feedback", "_example", "_sql_statement"):
        with case(table):
            assert bob.execute(f"select count(*) from dbms_cloud_ai.{table}").fetchone()[0] == 0


def test_feedback_is_per_role(people, bob, llm):
    make_profile(people, llm)
    make_profile(bob, llm)
    showsql(people, llm, Q_COUNT)
    sid = statements(people)[0]["sql_id"]
    feedback(people, sql_id=sid, feedback_type="positive")
    # bob's profile of the same name knows no such statement, and has no record to delete.
    with raises("42704"):
        feedback(bob, sql_id=sid, feedback_type="positive")
    with raises("42704"):
        feedback(bob, sql_id=sid, operation="delete")
    assert len(feedback_rows(people)) == 1
    # and alice's example never reaches bob's prompts.
    bob.execute("create table bob.people (id int)")
    assert example_block(showprompt_user(bob, Q_SIMILAR)) == ""
    assert example_block(showprompt_user(people, Q_SIMILAR)) != ""


# --- examples in later prompts --------------------------------------------------------------------

def test_examples_appear_in_similar_prompts_only(people, llm):
    make_profile(people, llm)
    make_profile(people, llm, name="OTHER", credential=None, provider="openai", key=None)
    showsql(people, llm, Q_COUNT)
    assert example_block(showprompt_user(people, Q_SIMILAR)) == ""   # no feedback yet
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    fid = feedback_rows(people)[0]["feedback_id"]
    # showprompt shows the example, before the question ...
    text = showprompt_user(people, Q_SIMILAR)
    block = example_block(text)
    assert shown_examples(text) == [{"user_prompt": Q_COUNT, "sql_query": COUNT_SHOWN}]
    assert text.endswith(block + "\n\nQuestion: " + Q_SIMILAR)
    # ... and it is what the model receives; the answer records its source.
    llm.script(Answer(COUNT_SQL))
    generate(people, Q_SIMILAR, "P", "showsql")
    assert example_block(user_message(chat_messages(llm))) == block
    [s] = sources(people)
    assert (s["source_kind"], s["source_id"]) == ("feedback", fid)
    assert 0.5 <= s["similarity"] <= 1
    answer_call = [c for c in calls(people) if c["purpose"] == "answer"][-1]
    assert s["call_id"] == answer_call["call_id"]
    # An unrelated question gets no example, nor does another profile's prompt.
    for q, profile in ((Q_UNRELATED, "P"), ("What is the average age?", "P"), (Q_SIMILAR, "OTHER")):
        with case((q, profile)):
            assert example_block(showprompt_user(people, q, profile)) == ""
    llm.script(Answer(GYM_SQL))
    generate(people, Q_UNRELATED, "P", "showsql")
    assert example_questions(user_message(chat_messages(llm))) == []
    assert len(sources(people)) == 1


def test_corrected_and_rated_examples_at_most_three(people, llm):
    make_profile(people, llm)
    # Negative feedback with a correction: the example is the corrected SQL.
    showsql(people, llm, "how many people do we have")
    feedback(people, sql_text="select ai showsql how many people do we have", feedback_type="negative",
             response=CORRECT_SQL)
    # Negative feedback without a correction is no example.
    showsql(people, llm, "how many people live here", AGE_SQL)
    feedback(people, sql_text="select ai showsql how many people live here", feedback_type="negative")
    # Prompts rated +1 whose action is runsql or showsql are examples; chat or -1 are not.
    cid = create_conversation(people)
    params = json.dumps({"conversation_id": cid})
    for q, action, answer in (("how many people in total", "showsql", COUNT_SQL),
                              ("how many people are listed", "runsql", COUNT_SQL),
                              ("how many people exist", "showsql", COUNT_SQL),
                              ("how many people overall", "showsql", GYM_SQL),
                              ("how many people chat", "chat", "five")):
        llm.script(Answer(answer))
        generate(people, q, "P", action, params=params)
    pids = prompt_ids(people, cid)
    for pid, r in zip(pids, (1, 1, 1, -1, 1)):
        people.execute("select dbms_cloud_ai.rate_prompt(%s, %s)", (pid, r))
    text = showprompt_user(people, "how many people")
    block = example_block(text)
    assert len(shown_examples(text)) == 3
    assert CORRECT_SQL in [e["sql_query"] for e in shown_examples(text)]   # as the user wrote it
    assert "Average Age" not in block and "Best" not in block       # uncorrected, rated -1
    assert "how many people chat" not in block                      # a chat prompt
    llm.script(Answer(COUNT_SQL))
    generate(people, "how many people", "P", "showsql")
    last = [c for c in calls(people) if c["purpose"] == "answer"][-1]["call_id"]
    kinds = sorted(s["source_kind"] for s in sources(people) if s["call_id"] == last)
    assert len(kinds) == 3 and set(kinds) <= {"feedback", "rated_prompt"} and "rated_prompt" in kinds
    # Clearing a rating, deleting a prompt or feedback removes its example at once.
    people.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (pids[0],))
    people.execute("select dbms_cloud_ai.rate_prompt(%s, null)", (pids[1],))
    people.execute("select dbms_cloud_ai.rate_prompt(%s, -1)", (pids[2],))
    feedback(people, sql_text="select ai showsql how many people do we have", operation="delete")
    assert example_block(showprompt_user(people, "how many people")) == ""
    assert people.execute("select count(*) from dbms_cloud_ai._example").fetchone()[0] == 0


def test_a_corrected_query_is_shown_to_the_model_as_written(people, llm):
    """Oracle keeps the user's corrected SQL as given: odd spacing, case, line breaks and a
    comment reach the feedback record, showprompt and the model unchanged."""
    make_profile(people, llm)
    showsql(people, llm, Q_COUNT)
    odd = 'select   COUNT(p.id)  as "People Count"\n  from ALICE.people p -- ids, not rows\n'
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="negative",
             response=odd)
    assert feedback_rows(people)[0]["response"] == odd
    assert shown_examples(showprompt_user(people, Q_SIMILAR)) \
        == [{"user_prompt": Q_COUNT, "sql_query": odd}]
    llm.script(Answer(COUNT_SQL))
    generate(people, Q_SIMILAR, "P", "showsql")
    assert shown_examples(user_message(chat_messages(llm))) \
        == [{"user_prompt": Q_COUNT, "sql_query": odd}]


def test_dropping_the_profile_drops_its_feedback(people, llm):
    make_profile(people, llm)
    showsql(people, llm, Q_COUNT)
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    people.execute("select dbms_cloud_ai.drop_profile('P')")
    for table in ("_feedback", "_example", "_sql_statement"):
        with case(table):
            assert people.execute(f"select count(*) from dbms_cloud_ai.{table}").fetchone()[0] == 0


# --- embeddings ---------------------------------------------------------------------------------

def test_examples_by_embeddings(people, llm):
    make_profile(people, llm, embedding_model="text-embedding-3-small")
    showsql(people, llm, Q_COUNT)
    assert llm.embedding_requests == []          # no example stored yet: nothing to compare
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    [e] = llm.embedding_requests
    assert e.path == "/v1/embeddings"
    assert e.headers["authorization"].startswith("Bearer sk-")
    assert e.json == {"model": "text-embedding-3-small", "input": [Q_COUNT], "encoding_format": "float"}
    stored = people.execute("select embedding, embedding_model from dbms_cloud_ai._example").fetchone()
    assert stored[1] == "text-embedding-3-small"
    assert stored[0] == pytest.approx(embed_text(Q_COUNT), abs=1e-5)
    # A similar question: its embedding is asked for first, then the example is in the prompt.
    llm.script(Answer(COUNT_SQL))
    generate(people, "How many people do we have?", "P", "showsql")
    assert [r.json["input"] for r in llm.embedding_requests[1:]] == [["How many people do we have?"]]
    assert Q_COUNT in example_questions(user_message(chat_messages(llm)))
    [s] = sources(people)
    assert s["source_kind"] == "feedback" and s["similarity"] >= 0.6
    # An unrelated one: asked too, but no example is close enough.
    llm.script(Answer(GYM_SQL))
    generate(people, Q_UNRELATED, "P", "showsql")
    assert len(llm.embedding_requests) == 3
    assert example_questions(user_message(chat_messages(llm))) == []
    # Every embedding request is a recorded call.
    emb = [c for c in calls(people) if c["purpose"] == "embedding"]
    assert len(emb) == 3 and all(c["status"] == "ok" and c["input_tokens"] == 5 for c in emb)
    assert {c["action"] for c in emb} == {"FEEDBACK", "SHOWSQL"}
    # A rating embeds the rated prompt's question too.
    cid = create_conversation(people)
    llm.script(Answer(AGE_SQL))
    generate(people, "average age of people", "P", "showsql", params=json.dumps({"conversation_id": cid}))
    [pid] = prompt_ids(people, cid)
    people.execute("select dbms_cloud_ai.rate_prompt(%s, 1)", (pid,))
    assert llm.embedding_requests[-1].json["input"] == ["average age of people"]
    assert "average age of people" in example_questions(showprompt_user(people, "the average age of the people"))


def test_examples_stored_before_embedding_model_are_found_by_full_text(people, llm):
    make_profile(people, llm)
    showsql(people, llm, Q_COUNT)
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    people.execute("select dbms_cloud_ai.set_attribute('P', 'embedding_model', 'e')")
    # No example has an embedding of model e: the question is not embedded, full text finds it.
    assert Q_COUNT in example_questions(showprompt_user(people, Q_SIMILAR))
    assert llm.embedding_requests == []
    # Adding it again stores its embedding; from then on the question is embedded too.
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    assert Q_COUNT in example_questions(showprompt_user(people, Q_SIMILAR))
    assert [r.json["input"] for r in llm.embedding_requests] == [[Q_COUNT], [Q_SIMILAR]]
    # A per-call embedding_model of another name: no stored vector matches, full text again.
    llm.requests.clear()
    out = json.loads(generate(people, Q_SIMILAR, "P", "showprompt",
                              attributes=json.dumps({"embedding_model": "other"})))
    assert example_questions(user_message([m for m in out if "role" in m])) != []
    assert llm.embedding_requests == []


@pytest.mark.parametrize("provider,path,body_key", [
    ("cohere", "/v2/embed", "texts"),
    ("google", "/v1beta/models/text-embedding-004:embedContent", "content"),
    (None, "/v1/embeddings", "input"),
    ("azure", "/openai/deployments/emb-deploy/embeddings?api-version=2024-10-21", "input")])
def test_embedding_endpoints_of_each_provider(people, llm, provider, path, body_key):
    extra = {"model": "m"} if provider is None else {}
    if provider == "azure":
        extra = {"azure_deployment_name": "chat", "azure_embedding_deployment_name": "emb-deploy"}
    make_profile(people, llm, provider=provider, embedding_model="text-embedding-004", **extra)
    showsql(people, llm, Q_COUNT)
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    [e] = llm.embedding_requests
    assert e.path == path
    assert body_key in e.json
    if provider == "google":
        assert e.json["content"] == {"parts": [{"text": Q_COUNT}]}
        assert e.headers["x-goog-api-key"].startswith("sk-")
    llm.script(Answer(COUNT_SQL))
    generate(people, Q_SIMILAR, "P", "showsql")
    assert len(llm.embedding_requests) == 2
    assert Q_COUNT in example_questions(last_question(llm))


def test_providers_without_embeddings_refuse(people, llm):
    make_profile(people, llm, provider="anthropic", embedding_model="voyage-3")
    llm.script(Answer(COUNT_SQL))
    generate(people, Q_COUNT, "P", "showsql")
    n = len(llm.requests)
    with raises("0A000"):
        feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    assert len(llm.requests) == n and feedback_rows(people) == []
    # Without embedding_model the same profile finds examples by full text.
    people.execute("select dbms_cloud_ai.set_attribute('P', 'embedding_model', null)")
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    assert example_questions(showprompt_user(people, Q_SIMILAR)) != []


# infinity (an OpenAI-compatible embedding server) counts characters in its usage,
# not tokens (issue 17): its figure is not stored as a token count.
def test_infinity_usage_in_characters_is_replaced_by_an_estimate(people, llm):
    make_profile(people, llm, embedding_model="all-MiniLM-L6-v2")
    showsql(people, llm, Q_COUNT)
    n = len(Q_COUNT)
    llm.embed_script(Raw(200, {"object": "list", "model": "all-MiniLM-L6-v2",
                               "id": "infinity-7d1c3a4e-0b7e-4d39-9a55-3d0f7c2b9e11",
                               "data": [{"object": "embedding", "index": 0,
                                         "embedding": embed_text(Q_COUNT)}],
                               "usage": {"prompt_tokens": n, "total_tokens": n}}))
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    [emb] = [c for c in calls(people) if c["purpose"] == "embedding"]
    assert emb["status"] == "ok" and emb["tokens_estimated"] is True
    assert 0 < emb["input_tokens"] < n


# all-MiniLM-L6-v2 (served by infinity, issue 17) gives every text a few components
# of about 1e-33 at the same coordinates: their product is below float4's range, so the
# cosine is summed in float8 (a float4 product raised 22003 "underflow").
def test_tiny_components_of_real_embeddings_do_not_underflow(people, llm):
    make_profile(people, llm, embedding_model="all-minilm-l6-v2")
    showsql(people, llm, Q_COUNT)

    def with_tiny(text):
        v = embed_text(text)
        tiny = [i for i, x in enumerate(v) if x == 0][:2]
        v[tiny[0]], v[tiny[1]] = -1.967660544854404e-33, 1.897856935237692e-33
        return v
    llm.embed_script(Vectors([with_tiny(Q_COUNT)]), Vectors([with_tiny(Q_SIMILAR)]))
    feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    assert Q_COUNT in example_questions(showprompt_user(people, Q_SIMILAR))
    assert len(llm.embedding_requests) == 2


def test_embedding_failure_is_a_provider_error(people, llm):
    make_profile(people, llm, embedding_model="e")
    showsql(people, llm, Q_COUNT)
    llm.embed_script(Raw(400, {"error": {"message": "no such model"}}))
    with raises("LL004"):
        feedback(people, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    assert feedback_rows(people) == []
    failed = [c for c in calls(people) if c["purpose"] == "embedding"]
    assert [(c["status"], c["http_status"]) for c in failed] == [("error", 400)]


# --- export of negative feedback -------------------------------------------------------------------

def test_export_of_negative_feedback(people, llm, db):
    make_profile(people, llm)
    cid = create_conversation(people)
    llm.script(Answer(COUNT_SQL))
    generate(people, Q_COUNT, "P", "runsql", params=json.dumps({"conversation_id": cid}))
    [pid] = prompt_ids(people, cid)
    people.execute("select dbms_cloud_ai.rate_prompt(%s, -1, 'counts rows, wanted ids')", (pid,))
    showsql(people, llm, "how many gymnasts", GYM_SQL)
    feedback(people, sql_text="select ai showsql how many gymnasts", feedback_type="negative",
             response="select count(*) from alice.gymnast g", feedback_content="count, not max")
    showsql(people, llm, "average age", AGE_SQL)
    feedback(people, sql_text="select ai showsql average age", feedback_type="positive")  # not exported
    got = rows(people, "select * from dbms_cloud_ai.user_cloud_ai_negative_feedback order by created")
    assert [(r["source"], r["question"], r["answer"], r["correction"], r["comment"]) for r in got] == [
        ("rating", Q_COUNT, COUNT_SHOWN, None, "counts rows, wanted ids"),
        ("feedback", "how many gymnasts", 'SELECT max(g.total_points) AS "Best"\nFROM alice.gymnast AS g',
         "select count(*) from alice.gymnast g", "count, not max")]   # as written
    assert got[0]["source_id"] == pid and got[0]["action"] == "RUNSQL"
    assert got[1]["sql_id"] == oracle_sql_id("select ai showsql how many gymnasts")
    text = people.execute("select dbms_cloud_ai.export_negative_feedback()").fetchone()[0]
    lines = [json.loads(line) for line in text.split("\n")]
    assert [(x["source"], x["question"], x["answer"], x["correction"], x["comment"]) for x in lines] \
        == [(r["source"], r["question"], r["answer"], r["correction"], r["comment"]) for r in got]
    assert set(lines[0]) == {"source", "source_id", "created", "profile_name", "action", "sql_id",
                             "question", "answer", "correction", "comment"}
    assert people.execute("select dbms_cloud_ai.export_negative_feedback('OTHER')").fetchone()[0] == ""
    assert people.execute("select dbms_cloud_ai.export_negative_feedback('p')").fetchone()[0] == text
    # Administrators see every role's, in the dba_ view and the export; others may not.
    with raises("42501"):
        people.execute("select dbms_cloud_ai.export_negative_feedback(all_users => true)")
    with raises("42501"):
        people.execute("select * from dbms_cloud_ai.dba_cloud_ai_negative_feedback")
    admin = db.connect("ai_admin")
    assert [(r["owner"], r["source"]) for r in rows(
        admin, "select * from dbms_cloud_ai.dba_cloud_ai_negative_feedback order by created")] \
        == [("alice", "rating"), ("alice", "feedback")]
    exported = admin.execute("select dbms_cloud_ai.export_negative_feedback(all_users => true)").fetchone()[0]
    assert [json.loads(line)["owner"] for line in exported.split("\n")] == ["alice", "alice"]
    assert admin.execute("select count(*) from dbms_cloud_ai.dba_cloud_ai_feedback").fetchone()[0] == 2
