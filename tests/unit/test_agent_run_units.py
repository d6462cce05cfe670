"""Select AI Agent runs, no database: what a tool call's arguments become, the
placeholders of a task's instruction, the names the model calls tools by."""

from __future__ import annotations

import pytest
from dbms_cloud_ai.agents import run, tools
from dbms_cloud_ai.agents.team import Obj
from dbms_cloud_ai.errors import InvalidParameter
from dbms_cloud_ai.providers.base import tool_calls_in_text


def test_argument_values_become_the_text_postgresql_casts():
    assert tools._value("2000-01-01") == "2000-01-01"
    assert tools._value(7) == "7" and tools._value(2.5) == "2.5"
    assert tools._value(True) == "true" and tools._value(False) == "false"
    assert tools._value(None) is None
    assert tools._value({"a": [1]}) == '{"a": [1]}'


def test_run_tool_input_is_a_json_object_or_a_question():
    assert tools.arguments('{"p_birth_date": "2000-01-01"}') == {"p_birth_date": "2000-01-01"}
    assert tools.arguments(None) == {} and tools.arguments("  ") == {}
    assert tools.arguments("how many customers?") == {"query": "how many customers?"}
    with pytest.raises(InvalidParameter):
        tools.arguments("[1, 2]")


def test_model_names_keep_to_what_providers_accept():
    assert tools.model_name(Obj("o", "TOOL", "SQL_TOOL", "ENABLED", {})) == "SQL_TOOL"
    assert tools.model_name(Obj("o", "TOOL", "my tool.v2", "ENABLED", {})) == "my_tool_v2"
    assert len(tools.model_name(Obj("o", "TOOL", "X" * 128, "ENABLED", {}))) == 64


def test_instructions_get_the_prompt_and_the_variables():
    assert run._fill("Answer {query} for {who}; keep {other}", "Q?", {"who": "me"}) == \
        "Answer Q? for me; keep {other}"
    assert run._fill("n={n}", None, {"n": 3}) == "n=3"


def test_params_accept_only_conversation_id_and_variables():
    assert run._params('{"conversation_id": "x", "variables": {"a": 1}}')["variables"] == {"a": 1}
    for bad in ('{"conversation": 1}', '{"variables": [1]}'):
        with pytest.raises(InvalidParameter):
            run._params(bad)


def test_a_tool_call_written_in_doubled_braces_is_a_tool_call():
    offered = [{"name": "SHOP", "description": "d", "parameters": {"type": "object", "properties": {}}}]
    text = '{{"name": "SHOP", "arguments": {"query": "How many?"}}}'
    assert tool_calls_in_text(text, offered) == [{"id": "call_0", "name": "SHOP",
                                                  "arguments": {"query": "How many?"}}]
    assert tool_calls_in_text('{{"name": "OTHER", "arguments": {}}}', offered) == []
    assert tool_calls_in_text("{{not json}}", offered) == []
