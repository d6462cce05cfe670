"""The anthropic and google adapters against a real server (issue 17): litellm's proxy
(scripts/local-gateway.sh) speaks Anthropic's /v1/messages and Gemini's generateContent
in front of the local model, and OpenAI's chat completions too.

Each wire: chat, a named conversation, runsql against the ground truth, and the request of
long-term memory that offers the search_memories tool.  The assertions hold for any
competent model at temperature 0; every answer costs tens of seconds on 2 cores, so the
calls are few.  The fixtures: tests/real/real_fixtures.py.
"""

from __future__ import annotations

import pytest
from helpers import generate, raises
from memory_helpers import conversation, enable, jobs, say
from real_fixtures import (  # noqa: F401 - fixtures
    GATEWAY_MODELS,
    gateway,
    gateway_profile,
    local_model,
    sh,
    via_gateway,
)
from test_real_model import runsql_value, truth

pytestmark = pytest.mark.real


def test_chat(via_gateway):
    assert "42" in generate(via_gateway, "What is 17 + 25? Reply with the number only.")


def test_a_named_conversation_remembers_an_earlier_turn(via_gateway):
    cid = conversation(via_gateway, "pets")
    say(via_gateway, "My dog is called Pixel. Reply with OK.", cid)
    assert "pixel" in say(via_gateway, "What is my dog called?", cid).lower()


def test_runsql_equals_the_ground_truth(via_gateway, sh):
    assert int(runsql_value(via_gateway, "How many customers are there?")) == \
        truth(sh, "select count(*) from sh.customers")


def test_the_memory_tool_round_is_accepted(db, via_gateway):
    """A later turn of a conversation with long-term memory offers the search_memories tool
    (Anthropic's tools, Gemini's functionDeclarations); whether the model calls it is its
    choice, so what must hold is that the gateway takes every request of the round."""
    enable(db)
    via_gateway.execute("select dbms_cloud_ai.set_attribute('P', 'long_term_memory', 'true')")
    cid = conversation(via_gateway, "about me")
    say(via_gateway, "My favourite colour is teal. Reply with OK.", cid)
    assert say(via_gateway, "Search your memory of me: what is my favourite colour?", cid).strip()
    # Memory applied to the conversation (its turns wait for extraction), so the later
    # turn was offered the tool.
    assert [j for j in jobs(via_gateway) if j["conversation_id"].lower() == cid.lower()]
    rows = via_gateway.execute("select purpose, status from dbms_cloud_ai.user_cloud_ai_calls "
                               "where action = 'CHAT' order by created desc limit 3").fetchall()
    assert rows and all(status == "ok" for _, status in rows), rows


def test_the_openai_wire(db, alice, gateway, local_model):
    conn = gateway_profile(db, alice, gateway, "openai", local_model.name)
    assert "42" in generate(conn, "What is 17 + 25? Reply with the number only.")


@pytest.mark.parametrize("provider", sorted(GATEWAY_MODELS))
def test_a_wrong_key_is_refused(db, alice, gateway, provider):
    """The gateway checks the key each adapter sends (x-api-key, x-goog-api-key).  litellm
    without a database answers a key other than its master key with HTTP 400
    (no_db_connection), not 401: LL004, not 28000; no model call is made."""
    conn = gateway_profile(db, alice, gateway, provider, GATEWAY_MODELS[provider])
    conn.execute("select dbms_cloud.update_credential('GW', 'password', %s)", ("sk-" + "0" * 48,))
    with raises("LL004"):
        generate(conn, "What is 17 + 25?")
