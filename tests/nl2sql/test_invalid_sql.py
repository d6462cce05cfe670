"""No valid query: Oracle's "Sorry, unfortunately ..." text, or the typed error.

When no readable table is in scope, or the model's SQL still cannot run after the repair
round, Oracle's NL2SQL actions return a text instead of raising, so a query that calls
generate() per row goes on.  The profile attribute raise_on_invalid_sql brings back the
errors (LL005, 42704).  The Oracle sentence itself is the contract here: it is asserted.
"""

from __future__ import annotations

import json

import pytest
from fake_llm import Answer
from helpers import case, generate, make_profile, raises
from nl2sql_fixtures import people  # noqa: F401 - fixture

SORRY = ("Sorry, unfortunately a valid SELECT statement could not be generated for your "
         "natural language prompt.")
PEOPLE_COUNT = 'SELECT count(*) AS "People Count" FROM alice.people p'
BAD = ("SELECT p.nickname FROM alice.people p", "SELECT p.shoe_size FROM alice.people p")
GHOST = [{"owner": "alice", "name": "ghost"}]      # Oracle accepts it; nothing readable
ACTIONS = ("runsql", "showsql", "explainsql", "narrate")


def calls(conn) -> list[tuple]:
    return conn.execute("select action, purpose, status, error_sqlstate "
                        "from dbms_cloud_ai.user_cloud_ai_calls order by created").fetchall()


@pytest.mark.parametrize("action", ACTIONS)
def test_no_readable_table_answers_oracles_text(people, llm, action):
    make_profile(people, llm, object_list=GHOST)
    answer = generate(people, "how many people", action=action)
    assert answer.startswith(SORRY + " ")
    assert llm.requests == []                        # nothing to describe: no model call
    with raises("42704"):
        generate(people, "how many people", action=action,
                 attributes=json.dumps({"raise_on_invalid_sql": True}))


@pytest.mark.parametrize("action", ACTIONS)
def test_sql_that_fails_after_repair_answers_oracles_text(people, llm, action):
    make_profile(people, llm, repair_rounds=1)   # answer, one repair
    llm.script(Answer(BAD[0]), Answer(BAD[1]))
    answer = generate(people, "how many people", action=action)
    assert answer.startswith(SORRY + " ")
    assert len(llm.requests) == 2                    # answer, repair; no explanation/narration
    assert calls(people) == [(action.upper(), "answer", "error", "LL005"),
                             (action.upper(), "repair", "error", "LL005")]
    # The same, as the typed error, when the profile asks for it.
    people.execute("select dbms_cloud_ai.set_attribute('P', 'raise_on_invalid_sql', 'TRUE')")
    llm.script(Answer(BAD[0]), Answer(BAD[1]))
    with raises("LL005"):
        generate(people, "how many people", action=action)
    assert len(llm.requests) == 4
    people.execute("select dbms_cloud_ai.set_attribute('P', 'raise_on_invalid_sql', 'false')")
    llm.script(Answer(BAD[0]), Answer(BAD[1]))
    assert generate(people, "how many people", action=action).startswith(SORRY)


def test_the_attribute_is_a_checked_boolean(people, llm):
    make_profile(people, llm)
    for value in ("yes", "1", "[true]"):
        with case(value), raises("22023"):
            people.execute("select dbms_cloud_ai.set_attribute('P', 'raise_on_invalid_sql', %s)",
                           (value,))
    with raises("22023"):
        generate(people, "q", action="runsql", attributes='{"raise_on_invalid_sql": "maybe"}')
    assert people.execute("select default_value from dbms_cloud_ai.profile_attribute_names "
                          "where attribute_name = 'raise_on_invalid_sql'").fetchone() == ("false",)


def test_a_looped_generate_goes_on_past_a_failing_row(people, llm):
    make_profile(people, llm, repair_rounds=1)   # answer, one repair
    llm.script(Answer(PEOPLE_COUNT), Answer(BAD[0]), Answer(BAD[1]), Answer(PEOPLE_COUNT))
    got = people.execute("""select v.q, dbms_cloud_ai.generate(v.q, 'P', 'showsql')
                              from (values (1, 'how many people'), (2, 'their nicknames'),
                                           (3, 'how many people again')) v(n, q)
                             order by v.n""").fetchall()
    assert [q for q, _ in got] == ["how many people", "their nicknames", "how many people again"]
    assert got[0][1].startswith("SELECT count(*)") and got[2][1].startswith("SELECT count(*)")
    assert got[1][1].startswith(SORRY)
    assert len(llm.requests) == 4


def test_a_failed_turn_is_not_stored_in_its_conversation(people, llm):
    """The conversation keeps questions that got a query: a non-answer would be sent back
    to the model as history.  The requests are accounted to the conversation all the same."""
    make_profile(people, llm, repair_rounds=1)   # answer, one repair
    cid = people.execute("select dbms_cloud_ai.create_conversation()").fetchone()[0]
    params = json.dumps({"conversation_id": cid})
    llm.script(Answer(BAD[0]), Answer(BAD[1]))
    assert generate(people, "their nicknames", action="runsql", params=params).startswith(SORRY)
    assert people.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                          ).fetchone() == (0,)
    assert people.execute("select conversation_title from dbms_cloud_ai.user_cloud_ai_conversations"
                          ).fetchone() == ("New Conversation",)      # not named by a non-answer
    assert people.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_calls "
                          "where conversation_id = %s and status = 'error'", (cid,)).fetchone() == (2,)
    # The next turn's history has no trace of it.
    llm.script(Answer(PEOPLE_COUNT), Answer('{"title": "People", "description": "d"}'))
    generate(people, "how many people", action="runsql", params=params)
    first = llm.requests[2].json["messages"]
    assert not any("nicknames" in m["content"] or SORRY in m["content"] for m in first)
    assert people.execute("select prompt from dbms_cloud_ai.user_cloud_ai_conversation_prompts"
                          ).fetchall() == [("how many people",)]
