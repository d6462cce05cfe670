"""Replays of Oracle's documented conversation sequences with scripted answers.

Each test plays a sequence from the reference (sections 1, 3 and 10) against
the fake LLM and asserts, turn by turn, exactly which messages the model
received: the newest ``conversation_length`` prompt/response pairs (default
10), oldest first, as user/assistant messages between the system message (if
any) and the new prompt.  Conversations are created with a title, so no extra
title-naming call is made and ``llm.requests[i]`` is turn ``i``.

Only the chat action exists in this version; runsql, showsql, explainsql and
narrate take part in history the same way once they arrive.
"""

from __future__ import annotations

import json

import psycopg
from fake_llm import Answer
from helpers import generate, make_profile

# Section 10.3: the User's Guide conversational chain on the SH schema, with
# scripted answers in the shape Oracle stores for NL2SQL (the SQL text).
CUSTOMER_ANALYSIS = [
    ("what are the total number of customers",
     'SELECT COUNT(c."CUST_ID") AS "Total Customers" FROM "SH"."CUSTOMERS" c'),
    ("break out count of customers by country",
     'SELECT co."COUNTRY_NAME", COUNT(c."CUST_ID") AS "Customer Count" FROM "SH"."CUSTOMERS" c '
     'JOIN "SH"."COUNTRIES" co ON c."COUNTRY_ID" = co."COUNTRY_ID" GROUP BY co."COUNTRY_NAME"'),
    ("what age group is most common",
     "SELECT FLOOR((2025 - c.\"CUST_YEAR_OF_BIRTH\") / 10) * 10 AS \"Age Group\", COUNT(*) AS \"Customers\" "
     'FROM "SH"."CUSTOMERS" c GROUP BY 1 ORDER BY 2 DESC FETCH FIRST 1 ROWS ONLY'),
    ("keep the top 5 customers and their country by their purchases and include a rank in the result",
     'SELECT RANK() OVER (ORDER BY SUM(s."AMOUNT_SOLD") DESC) AS "Rank", c."CUST_FIRST_NAME", '
     'co."COUNTRY_NAME", SUM(s."AMOUNT_SOLD") AS "Purchases" FROM "SH"."CUSTOMERS" c JOIN "SH"."SALES" s '
     'ON s."CUST_ID" = c."CUST_ID" JOIN "SH"."COUNTRIES" co ON co."COUNTRY_ID" = c."COUNTRY_ID" '
     'GROUP BY c."CUST_FIRST_NAME", co."COUNTRY_NAME" FETCH FIRST 5 ROWS ONLY'),
]

# Sections 3 and 10.1: the chat notebook about Autonomous Database.
ADB_CHAT = [
    ("what is Oracle Autonomous Database",
     "Oracle Autonomous Database is a self-driving, self-securing, self-repairing cloud database."),
    ("when was it first released",
     "Oracle Autonomous Database was first released in March 2018."),
    ("How does it integrate with other Oracle Cloud services",
     "It integrates with OCI Identity, Object Storage, Data Integration, Analytics Cloud and more."),
]


# --- helpers -----------------------------------------------------------------------------

def create_conversation(conn, title="Replay", **attrs) -> str:
    """A titled conversation (no title-naming model call); returns its id."""
    return conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                        (json.dumps({"title": title, **attrs}),)).fetchone()[0]


def pairs(turns) -> list[dict]:
    """The user/assistant messages for (prompt, answer) pairs, oldest first."""
    out = []
    for prompt, answer in turns:
        out += [{"role": "user", "content": prompt}, {"role": "assistant", "content": answer}]
    return out


def script_by_prompt(llm, turns):
    """Answer each prompt of ``turns`` with its scripted answer, whatever the order."""
    answers = dict(turns)

    def respond(wire, body):
        prompt = body["messages"][-1]["content"]
        assert prompt in answers, f"unexpected prompt {prompt!r}"
        return Answer(answers[prompt])
    llm.responder = respond


def stored(conn, cid) -> list[tuple]:
    return conn.execute(
        "select profile_name, prompt_action, prompt, prompt_response "
        "from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where conversation_id = %s order by created, conversation_prompt_id", (cid,)).fetchall()


def play(conn, llm, turns, *, window, system=(), profile="P", first_request=0, **gen_kw):
    """Play ``turns`` in order; after each, check the request the model got.

    ``window`` is the number of pairs the conversation sends; ``first_request``
    is the index in ``llm.requests`` of the first turn's request."""
    for i, (prompt, answer) in enumerate(turns):
        assert generate(conn, prompt, profile=profile, **gen_kw) == answer
        assert len(llm.requests) == first_request + i + 1, "exactly one model call per turn"
        expected = list(system) + pairs(turns[max(0, i - window):i]) + [{"role": "user", "content": prompt}]
        got = llm.requests[first_request + i].json["messages"]
        assert got == expected, f"turn {i + 1} ({prompt!r})"


# --- (a) the four-question customer analysis, named conversation via params ----------------------

def test_customer_analysis_in_a_named_conversation(alice, llm):
    make_profile(alice, llm, additional_instructions="Answer with Oracle SQL only.")
    cid = create_conversation(alice, "Customer analysis")
    script_by_prompt(llm, CUSTOMER_ANALYSIS)
    system = [{"role": "system", "content": "Answer with Oracle SQL only."}]
    params = json.dumps({"conversation_id": cid})

    play(alice, llm, CUSTOMER_ANALYSIS, window=10, system=system, params=params)

    # Turn by turn, spelled out: the last call carried the three earlier pairs, in order.
    last = llm.requests[3].json["messages"]
    assert [m["role"] for m in last] == ["system"] + ["user", "assistant"] * 3 + ["user"]
    assert [m["content"] for m in last[1::2]] == [p for p, _ in CUSTOMER_ANALYSIS]
    # Every row stored, with its response, action and profile; the title kept.
    assert stored(alice, cid) == [("P", "CHAT", p, a) for p, a in CUSTOMER_ANALYSIS]
    assert alice.execute("select conversation_title from dbms_cloud_ai.user_cloud_ai_conversations "
                         "where conversation_id = %s", (cid,)).fetchone() == ("Customer analysis",)


def test_customer_analysis_id_is_case_insensitive_and_without_params_context_free(alice, llm):
    make_profile(alice, llm)
    cid = create_conversation(alice)
    script_by_prompt(llm, CUSTOMER_ANALYSIS)
    (p1, a1), (p2, a2) = CUSTOMER_ANALYSIS[:2]
    generate(alice, p1, params=json.dumps({"conversation_id": cid.lower()}))
    # Without conversation_id (and no session conversation) a call is context free
    # and is not recorded anywhere.
    generate(alice, p2)
    assert llm.requests[1].json["messages"] == [{"role": "user", "content": p2}]
    generate(alice, p2, params=json.dumps({"conversation_id": cid}))
    assert llm.requests[2].json["messages"] == pairs([(p1, a1)]) + [{"role": "user", "content": p2}]
    assert [r[2] for r in stored(alice, cid)] == [p1, p2]


# --- (b) the chat sequence: session conversation, then a named one via set_conversation_id ------------

def test_adb_chat_in_the_session_conversation(db, alice, llm):
    make_profile(alice, llm, conversation=True)
    alice.execute("select dbms_cloud_ai.set_profile('P')")
    script_by_prompt(llm, ADB_CHAT)

    play(alice, llm, ADB_CHAT, window=10, profile=None)

    view = alice.execute("select prompt_number, profile_name, prompt_action, prompt, prompt_response "
                         "from dbms_cloud_ai.session_cloud_ai_conversation_prompts "
                         "order by prompt_number").fetchall()
    assert [(r[1], r[2], r[3], r[4]) for r in view] == [("P", "CHAT", p, a) for p, a in ADB_CHAT]
    assert [r[0] for r in view] == sorted(r[0] for r in view)
    # Nothing went to the long-term tables.
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                         ).fetchone() == (0,)

    # Another session of the same role does not see it: it starts afresh.
    other = db.connect("alice")
    assert other.execute("select count(*) from dbms_cloud_ai.session_cloud_ai_conversation_prompts"
                         ).fetchone() == (0,)
    n = len(llm.requests)
    generate(other, ADB_CHAT[1][0])
    assert llm.requests[n].json["messages"] == [{"role": "user", "content": ADB_CHAT[1][0]}]

    # A per-call override turns it off for one call: no history sent, nothing recorded.
    generate(alice, ADB_CHAT[2][0], attributes='{"conversation": false}')
    assert llm.requests[-1].json["messages"] == [{"role": "user", "content": ADB_CHAT[2][0]}]
    assert alice.execute("select count(*) from dbms_cloud_ai.session_cloud_ai_conversation_prompts"
                         ).fetchone() == (3,)


def test_adb_chat_via_set_conversation_id_wins_over_the_session_conversation(alice, llm):
    make_profile(alice, llm, conversation=True)
    script_by_prompt(llm, ADB_CHAT)
    # First the session conversation holds the three turns.
    play(alice, llm, ADB_CHAT, window=10)

    # Then the same chat in a named conversation made current with set_conversation_id:
    # it starts empty (the session's turns are ignored) and builds its own history.
    cid = create_conversation(alice, "Autonomous Database")
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid,))
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone() == (cid,)
    play(alice, llm, ADB_CHAT, window=10, first_request=3)
    assert stored(alice, cid) == [("P", "CHAT", p, a) for p, a in ADB_CHAT]
    # The named turns were not added to the session conversation.
    assert alice.execute("select count(*) from dbms_cloud_ai.session_cloud_ai_conversation_prompts"
                         ).fetchone() == (3,)

    # clear_conversation_id: back to the session conversation and its three pairs.
    alice.execute("select dbms_cloud_ai.clear_conversation_id()")
    assert alice.execute("select dbms_cloud_ai.get_conversation_id()").fetchone() == (None,)
    generate(alice, ADB_CHAT[2][0])
    assert llm.requests[6].json["messages"] == pairs(ADB_CHAT) + [{"role": "user", "content": ADB_CHAT[2][0]}]


def test_explicit_conversation_id_wins_over_set_conversation_id(alice, llm):
    make_profile(alice, llm)
    script_by_prompt(llm, ADB_CHAT + CUSTOMER_ANALYSIS)
    current = create_conversation(alice, "current")
    explicit = create_conversation(alice, "explicit")
    alice.execute("select dbms_cloud_ai.set_conversation_id(%s)", (current,))
    play(alice, llm, ADB_CHAT[:2], window=10)
    play(alice, llm, CUSTOMER_ANALYSIS[:2], window=10, first_request=2,
         params=json.dumps({"conversation_id": explicit}))
    generate(alice, ADB_CHAT[2][0])
    assert llm.requests[4].json["messages"] == pairs(ADB_CHAT[:2]) + [{"role": "user", "content": ADB_CHAT[2][0]}]
    assert [r[2] for r in stored(alice, current)] == [p for p, _ in ADB_CHAT]
    assert [r[2] for r in stored(alice, explicit)] == [p for p, _ in CUSTOMER_ANALYSIS[:2]]


def test_session_conversation_keeps_ten_prompts_of_the_same_profile(alice, llm):
    make_profile(alice, llm, conversation=True)
    alice.execute("select dbms_cloud_ai.create_profile('Q2', %s)",
                  (json.dumps({"provider": "openai", "credential_name": "CRED",
                               "provider_endpoint": llm.url, "conversation": True}),))
    turns = [(f"question {i}", f"answer {i}") for i in range(1, 13)]
    script_by_prompt(llm, turns + [("other profile", "other answer")])
    play(alice, llm, turns, window=10)  # turn 12 sees turns 2..11
    # A prompt made with another profile sees none of P's history.
    generate(alice, "other profile", profile="Q2")
    assert llm.requests[-1].json["messages"] == [{"role": "user", "content": "other profile"}]
    rows = alice.execute("select profile_name, prompt from dbms_cloud_ai.session_cloud_ai_conversation_prompts "
                         "order by prompt_number").fetchall()
    assert rows == [("P", p) for p, _ in turns[2:]] + [("Q2", "other profile")]


# --- (c) longer than conversation_length ------------------------------------------------------------

def test_conversation_longer_than_its_length(alice, llm):
    make_profile(alice, llm)
    cid = create_conversation(alice, "Short memory", conversation_length=3)
    turns = [(f"turn {i} question", f"turn {i} answer") for i in range(1, 7)]
    script_by_prompt(llm, turns)

    play(alice, llm, turns, window=3, params=json.dumps({"conversation_id": cid}))

    # Spelled out for the last turn: the 3 newest pairs, oldest first.
    assert [m["content"] for m in llm.requests[5].json["messages"]] == [
        "turn 3 question", "turn 3 answer", "turn 4 question", "turn 4 answer",
        "turn 5 question", "turn 5 answer", "turn 6 question"]
    # All rows stay stored.
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                         "where conversation_id = %s", (cid,)).fetchone() == (6,)
    assert [r[2] for r in stored(alice, cid)] == [p for p, _ in turns]

    # A larger conversation_length (partial update) widens the window at once.
    alice.execute("select dbms_cloud_ai.update_conversation(%s, '{\"conversation_length\": 5}')", (cid,))
    more = [("turn 7 question", "turn 7 answer")]
    script_by_prompt(llm, turns + more)
    generate(alice, more[0][0], params=json.dumps({"conversation_id": cid}))
    assert llm.requests[6].json["messages"] == pairs(turns[1:]) + [{"role": "user", "content": more[0][0]}]
    # ... and conversation_length 1 sends only the newest pair.
    alice.execute("select dbms_cloud_ai.update_conversation(%s, '{\"conversation_length\": 1}')", (cid,))
    generate(alice, turns[0][0], params=json.dumps({"conversation_id": cid}))
    assert llm.requests[7].json["messages"] == pairs(more) + [{"role": "user", "content": turns[0][0]}]
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                         "where conversation_id = %s", (cid,)).fetchone() == (8,)


def test_default_length_is_ten_pairs(alice, llm):
    make_profile(alice, llm)
    cid = create_conversation(alice, "Default length")
    assert alice.execute("select conversation_length from dbms_cloud_ai.user_cloud_ai_conversations "
                         "where conversation_id = %s", (cid,)).fetchone() == (None,)
    turns = [(f"q{i}", f"a{i}") for i in range(1, 13)]
    script_by_prompt(llm, turns)
    play(alice, llm, turns, window=10, params=json.dumps({"conversation_id": cid}))
    assert len(llm.requests[11].json["messages"]) == 21
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                         "where conversation_id = %s", (cid,)).fetchone() == (12,)


def test_deleted_prompt_leaves_the_window(alice, llm):
    make_profile(alice, llm)
    cid = create_conversation(alice, "Pruned", conversation_length=3)
    turns = [(f"q{i}", f"a{i}") for i in range(1, 5)]
    script_by_prompt(llm, turns + [("q5", "a5")])
    play(alice, llm, turns, window=3, params=json.dumps({"conversation_id": cid}))
    pid = alice.execute("select conversation_prompt_id from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
                        "where conversation_id = %s and prompt = 'q3'", (cid,)).fetchone()[0]
    alice.execute("select dbms_cloud_ai.delete_conversation_prompt(%s)", (pid,))
    generate(alice, "q5", params=json.dumps({"conversation_id": cid}))
    assert llm.requests[4].json["messages"] == pairs([turns[0], turns[1], turns[3]]) + [
        {"role": "user", "content": "q5"}]


# --- (d) two profiles, and coming back from another session ------------------------------------------

def test_conversation_spanning_two_profiles_resumed_from_another_session(db, llm):
    first = db.connect("alice")
    make_profile(first, llm, name="OCI_GENAI", model="model-one")
    make_profile(first, llm, name="GENAI", credential="CRED2", model="model-two")
    cid = create_conversation(first, "Two profiles", conversation_length=4)
    turns = CUSTOMER_ANALYSIS + ADB_CHAT[:1]
    profiles = ["OCI_GENAI", "genai", "OCI_GENAI", "GENAI", "oci_genai"]
    script_by_prompt(llm, turns + ADB_CHAT[1:])
    params = json.dumps({"conversation_id": cid})

    for i, ((prompt, answer), profile) in enumerate(zip(turns[:3], profiles)):
        assert generate(first, prompt, profile=profile, params=params) == answer
        req = llm.requests[i].json
        assert req["model"] == ("model-one" if profile.upper() == "OCI_GENAI" else "model-two")
        assert req["messages"] == pairs(turns[:i]) + [{"role": "user", "content": prompt}]
    first.close()

    # Come back from another session: the history is in the tables, not the session.
    second = db.connect("alice")
    second.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid,))
    for i in (3, 4):
        prompt, answer = turns[i]
        assert generate(second, prompt, profile=profiles[i]) == answer
        assert llm.requests[i].json["messages"] == pairs(turns[max(0, i - 4):i]) + [
            {"role": "user", "content": prompt}]

    # A third session continues with params only, the window now the 4 newest pairs.
    third = db.connect("alice")
    prompt, answer = ADB_CHAT[1]
    generate(third, prompt, profile="GENAI", params=params)
    assert llm.requests[5].json["messages"] == pairs(turns[1:5]) + [{"role": "user", "content": prompt}]

    rows = third.execute(
        "select profile_name, prompt, prompt_response, sid from dbms_cloud_ai.user_cloud_ai_conversation_prompts "
        "where conversation_id = %s order by created", (cid,)).fetchall()
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("OCI_GENAI", turns[0][0], turns[0][1]), ("GENAI", turns[1][0], turns[1][1]),
        ("OCI_GENAI", turns[2][0], turns[2][1]), ("GENAI", turns[3][0], turns[3][1]),
        ("OCI_GENAI", turns[4][0], turns[4][1]), ("GENAI", prompt, answer)]
    # sid is the backend pid of the session that made each turn: three sessions.
    assert len({r[3] for r in rows}) == 3
    assert rows[0][3] == rows[2][3] and rows[3][3] == rows[4][3]


def test_another_role_cannot_continue_it(alice, bob, llm):
    make_profile(alice, llm)
    make_profile(bob, llm)
    cid = create_conversation(alice, "Private")
    script_by_prompt(llm, ADB_CHAT)
    generate(alice, ADB_CHAT[0][0], params=json.dumps({"conversation_id": cid}))
    try:
        generate(bob, ADB_CHAT[1][0], params=json.dumps({"conversation_id": cid}))
    except psycopg.Error as e:
        assert e.sqlstate == "42704", e
    else:
        raise AssertionError("bob continued alice's conversation")
    assert len(llm.requests) == 1
    assert [r[2] for r in stored(alice, cid)] == [ADB_CHAT[0][0]]
