"""generate(): the chat action end to end, and every way a call can be refused."""

from __future__ import annotations

import pytest
from fake_llm import Answer
from helpers import API_KEY, generate, hint_of, make_profile, raises


def test_chat_sends_prompt_and_returns_answer(alice, llm):
    make_profile(alice, llm, model="gpt-test", temperature=0.3, max_tokens=99,
                 stop_tokens=[";"], seed=42)
    llm.script(Answer("8"))
    assert generate(alice, "What is 4 + 4 ?") == "8"
    req = llm.requests[-1]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {API_KEY}"
    body = req.json
    assert body["model"] == "gpt-test"
    assert body["messages"] == [{"role": "user", "content": "What is 4 + 4 ?"}]
    assert body["temperature"] == 0.3
    assert body["max_tokens"] == 99
    assert body["stop"] == [";"]
    assert body["seed"] == 42


def test_default_model_and_max_tokens(alice, llm):
    make_profile(alice, llm)
    generate(alice, "hello")
    body = llm.requests[-1].json
    assert body["model"] == "gpt-4o-mini"
    assert body["max_tokens"] == 1024
    assert "temperature" not in body


def test_positional_and_named_notation(alice, llm):
    make_profile(alice, llm)
    llm.script(Answer("a"), Answer("b"))
    assert alice.execute("select dbms_cloud_ai.generate('q', 'P', 'chat')").fetchone()[0] == "a"
    assert alice.execute("select dbms_cloud_ai.generate(prompt => 'q', profile_name => 'p', "
                         "action => 'CHAT')").fetchone()[0] == "b"


def test_session_profile_is_used_when_profile_name_is_null(alice, llm):
    make_profile(alice, llm)
    alice.execute("select dbms_cloud_ai.set_profile('p')")
    llm.script(Answer("from session"))
    assert alice.execute("select dbms_cloud_ai.generate('hi', action => 'chat')").fetchone()[0] == "from session"


def test_attributes_override_for_one_call_only(alice, llm):
    make_profile(alice, llm, model="m1")
    generate(alice, "one", attributes='{"model": "m2", "temperature": 0.9}')
    assert llm.requests[-1].json["model"] == "m2"
    assert llm.requests[-1].json["temperature"] == 0.9
    generate(alice, "two")
    assert llm.requests[-1].json["model"] == "m1"
    stored = dict(alice.execute("select attribute_name, attribute_value from "
                                "dbms_cloud_ai.user_cloud_ai_profile_attributes").fetchall())
    assert stored["model"] == "m1"


def test_attributes_and_params_as_jsonb(alice, llm):
    make_profile(alice, llm)
    llm.script(Answer("ok"))
    out = alice.execute("select dbms_cloud_ai.generate('q', 'P', 'chat', '{\"model\":\"j\"}'::jsonb)").fetchone()[0]
    assert out == "ok"
    assert llm.requests[-1].json["model"] == "j"


def test_role_and_additional_instructions_become_system_message(alice, llm):
    make_profile(alice, llm, additional_instructions="Answer in French.")
    generate(alice, "hello")
    msgs = llm.requests[-1].json["messages"]
    assert msgs[0] == {"role": "system", "content": "Answer in French."}
    assert msgs[1] == {"role": "user", "content": "hello"}


def test_per_row_generate(alice, llm):
    make_profile(alice, llm)
    alice.execute("create table feedback (id int, txt text)")
    alice.execute("insert into feedback values (1, 'great'), (2, 'awful'), (3, 'ok')")
    llm.responder = lambda wire, body: Answer(body["messages"][-1]["content"].split(": ")[-1].upper())
    try:
        rows = alice.execute("select id, dbms_cloud_ai.generate('Sentiment of: ' || txt, 'P', 'chat') "
                             "from feedback order by id").fetchall()
    finally:
        llm.responder = lambda wire, body: Answer("fake answer")
    assert rows == [(1, "GREAT"), (2, "AWFUL"), (3, "OK")]
    assert len(llm.requests) == 3


@pytest.mark.parametrize("prompt", [None, "", "   "])
def test_empty_prompt_is_refused_without_a_call(alice, llm, prompt):
    make_profile(alice, llm)
    with raises("22023") as e:
        generate(alice, prompt)
    assert "prompt" in hint_of(e)
    assert llm.requests == []


def test_unknown_action_lists_the_valid_ones(alice, llm):
    make_profile(alice, llm)
    with raises("22023") as e:
        generate(alice, "q", action="dance")
    assert "chat" in e["error"].diag.message_detail
    assert llm.requests == []


def test_feedback_action_without_a_statement_to_apply_to(alice, llm):
    # Every Oracle action is implemented now; feedback with no NL2SQL statement in this
    # session is 42704 (tests/nl2sql/test_feedback.py has the rest), before any model call.
    make_profile(alice, llm)
    with raises("42704"):
        generate(alice, "the result is correct", action="feedback")
    assert llm.requests == []


def test_no_profile_set(alice, llm):
    with raises("55000") as e:
        alice.execute("select dbms_cloud_ai.generate('q', action => 'chat')")
    assert "set_profile" in hint_of(e)


def test_disabled_profile(alice, llm):
    make_profile(alice, llm)
    alice.execute("select dbms_cloud_ai.disable_profile('P')")
    with raises("55000") as e:
        generate(alice, "q")
    assert "enable_profile" in hint_of(e)
    assert llm.requests == []


def test_profile_of_another_role_looks_missing(alice, bob, llm):
    make_profile(alice, llm)
    with raises("42704") as e:
        generate(bob, "q")
    assert "create_profile" in hint_of(e)
    assert llm.requests == []


def test_unknown_params_key(alice, llm):
    make_profile(alice, llm)
    with raises("22023"):
        generate(alice, "q", params='{"bogus": 1}')


def test_bad_override_attribute(alice, llm):
    make_profile(alice, llm)
    with raises("22023"):
        generate(alice, "q", attributes='{"temperature": "hot"}')
    with raises("22P02"):
        generate(alice, "q", attributes='{not json')
    assert llm.requests == []
