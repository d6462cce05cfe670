"""Tool calling in each provider's wire format, no database: the tools offered,
a tool-call reply parsed into Completion.tool_calls, the follow-up request
that replays the calls and carries the results, and the fake LLM's view of it."""

from __future__ import annotations

import copy
import json
import time
from urllib.parse import urlsplit

import pytest
from dbms_cloud_ai.errors import ProviderBadResponse
from dbms_cloud_ai.model import http
from dbms_cloud_ai.providers import COMPATIBLE, PROVIDERS
from dbms_cloud_ai.providers.base import ChatRequest, usage_or_estimate
from dbms_cloud_ai.providers.google import gemini_schema
from fake_llm import (
    Answer,
    FakeLLM,
    ToolCalls,
    last_user_text,
    offered_tools,
    render,
    tool_call_requests,
    tool_results,
    wire_format,
)

SEARCH = {
    "name": "search_memories",
    "description": "Search the user's saved memories.",
    "parameters": {"type": "object",
                   "properties": {"query": {"type": "string", "description": "What to look for"},
                                  "limit": {"type": "integer"}},
                   "required": ["query"]},
}
FORGET = {"name": "forget", "description": "Forget a memory.",
          "parameters": {"type": "object", "properties": {"id": {"type": "integer"}}}}

# provider -> (adapter, profile attributes)
CASES = {
    "openai": (PROVIDERS["openai"], {}),
    "azure": (PROVIDERS["azure"], {"azure_deployment_name": "dep", "azure_resource_name": "res"}),
    "anthropic": (PROVIDERS["anthropic"], {}),
    "google": (PROVIDERS["google"], {}),
    "cohere": (PROVIDERS["cohere"], {}),
    "openai-compatible": (COMPATIBLE, {"model": "llama3.2"}),
}
WIRES = {"openai": "openai", "azure": "openai", "openai-compatible": "openai",
         "anthropic": "anthropic", "google": "google", "cohere": "cohere"}

SYSTEM = {"role": "system", "content": "Use the tools."}
QUESTION = {"role": "user", "content": "Where did I park? Grüße"}
CALLS = [{"id": "c1", "name": "search_memories", "arguments": {"query": "parking", "limit": 3}},
         {"id": "c2", "name": "search_memories", "arguments": {"query": "car"}}]
RESULT1 = json.dumps([{"memory": "Level 2, spot 14"}])
RESULT2 = json.dumps({"memories": []})
FOLLOW_UP = [
    SYSTEM, QUESTION,
    {"role": "assistant", "content": None, "tool_calls": CALLS},
    {"role": "tool", "tool_call_id": "c1", "name": "search_memories", "content": RESULT1},
    {"role": "tool", "tool_call_id": "c2", "name": "search_memories", "content": RESULT2},
]


def request(messages, tools=None, **kw) -> ChatRequest:
    return ChatRequest(messages=copy.deepcopy(messages), model="m", tools=tools, **kw)


def wire_of(provider: str, req: ChatRequest) -> str:
    adapter, attrs = CASES[provider]
    wire = wire_format(urlsplit(adapter.url(attrs | {"provider_endpoint": "http://h"}, req)).path)
    assert wire == WIRES[provider]  # the fake recognises the adapter's URL
    return wire


def body_of(provider, req):
    adapter, attrs = CASES[provider]
    return json.loads(json.dumps(adapter.body(req, attrs)))  # what goes on the wire


def parse(provider, reply, req):
    adapter, _ = CASES[provider]
    return adapter.parse(json.loads(json.dumps(reply)), req)


# -- tools offered ---------------------------------------------------------------

EXPECTED_TOOLS = {
    "openai": [{"type": "function", "function": SEARCH}, {"type": "function", "function": FORGET}],
    "cohere": [{"type": "function", "function": SEARCH}, {"type": "function", "function": FORGET}],
    "anthropic": [{"name": t["name"], "description": t["description"],
                   "input_schema": t["parameters"]} for t in (SEARCH, FORGET)],
    "google": [{"functionDeclarations": [SEARCH, FORGET]}],
}


@pytest.mark.parametrize("provider", CASES)
def test_tools_are_offered_in_the_providers_format(provider):
    req = request([SYSTEM, QUESTION], tools=[SEARCH, FORGET])
    wire = wire_of(provider, req)
    body = body_of(provider, req)
    assert body["tools"] == EXPECTED_TOOLS[wire]
    assert offered_tools(wire, body) == ["search_memories", "forget"]
    # OpenAI's wire says tool_choice "auto" (its default) outright: llama-cpp-python's
    # server takes a missing one as "none" (issue 17).
    assert body.pop("tool_choice", None) == ("auto" if wire == "openai" else None)
    # Everything else is the body of the same request without tools.
    plain = body_of(provider, request([SYSTEM, QUESTION]))
    assert {k: v for k, v in body.items() if k != "tools"} == plain
    assert offered_tools(wire, plain) == []


# -- tool-call replies -----------------------------------------------------------

DEFAULT_ID = {"openai": "call_1", "cohere": "call_1", "anthropic": "toolu_1", "google": "call_1"}


@pytest.mark.parametrize("provider", CASES)
def test_a_tool_call_reply_parses_into_tool_calls(provider):
    req = request([SYSTEM, QUESTION], tools=[SEARCH])
    wire = wire_of(provider, req)
    step = ToolCalls([{"id": "given", "name": "search_memories", "arguments": {"query": "parking"}},
                      {"name": "forget", "arguments": {"id": 7}}],
                     input_tokens=31, output_tokens=9)
    c = parse(provider, render(wire, step, "m"), req)
    assert c.text == ""
    assert c.tool_calls == [
        # Gemini replies carry no id: the adapter numbers the calls.
        {"id": "call_0" if wire == "google" else "given", "name": "search_memories",
         "arguments": {"query": "parking"}},
        {"id": DEFAULT_ID[wire], "name": "forget", "arguments": {"id": 7}},
    ]
    assert (c.input_tokens, c.output_tokens, c.tokens_estimated) == (31, 9, False)
    assert c.finish_reason == {"openai": "tool_calls", "anthropic": "tool_use", "google": "STOP",
                               "cohere": "TOOL_CALL"}[wire]


@pytest.mark.parametrize("provider", CASES)
def test_text_that_comes_with_tool_calls(provider):
    req = request([QUESTION], tools=[SEARCH])
    wire = wire_of(provider, req)
    step = ToolCalls([{"name": "search_memories", "arguments": {}}], text="I will search.",
                     input_tokens=None, output_tokens=None)
    c = parse(provider, render(wire, step, "m"), req)
    assert c.text == "I will search."
    assert [t["name"] for t in c.tool_calls] == ["search_memories"]
    assert c.tool_calls[0]["arguments"] == {}
    assert c.tokens_estimated and c.input_tokens > 0 and c.output_tokens > 0


def test_the_text_none_beside_tool_calls_is_no_text():
    """llama-cpp-python's server (0.3.36, chatml-function-calling) writes content "None"
    next to its tool calls (issue 17): that is no text, not the word None."""
    req = request([QUESTION], tools=[SEARCH])
    reply = render("openai", ToolCalls([{"id": "c", "name": "search_memories",
                                         "arguments": {"query": "q"}}]), "m")
    reply["choices"][0]["message"]["content"] = "None"
    c = parse("openai", reply, req)
    assert (c.text, [t["name"] for t in c.tool_calls]) == ("", ["search_memories"])


@pytest.mark.parametrize("provider", CASES)
def test_a_plain_answer_has_no_tool_calls(provider):
    req = request([QUESTION], tools=[SEARCH])
    c = parse(provider, render(wire_of(provider, req), Answer("Level 2."), "m"), req)
    assert (c.text, c.tool_calls) == ("Level 2.", [])


def test_the_fake_renders_tool_calls_as_the_providers_do():
    step = ToolCalls([{"id": "x1", "name": "search_memories", "arguments": {"query": "q"}}])
    openai = render("openai", step, "m")["choices"][0]
    assert openai["finish_reason"] == "tool_calls"
    assert openai["message"] == {"role": "assistant", "content": None, "tool_calls": [
        {"id": "x1", "type": "function",
         "function": {"name": "search_memories", "arguments": '{"query": "q"}'}}]}
    anthropic = render("anthropic", step, "m")
    assert anthropic["stop_reason"] == "tool_use"
    assert anthropic["content"] == [{"type": "tool_use", "id": "x1", "name": "search_memories",
                                     "input": {"query": "q"}}]
    google = render("google", step, "m")["candidates"][0]
    assert google["content"]["parts"] == [{"functionCall": {"name": "search_memories",
                                                            "args": {"query": "q"}}}]
    cohere = render("cohere", ToolCalls(step.calls, text="plan"), "m")
    assert cohere["finish_reason"] == "TOOL_CALL"
    assert cohere["message"] == {"role": "assistant", "tool_plan": "plan", "tool_calls": [
        {"id": "x1", "type": "function",
         "function": {"name": "search_memories", "arguments": '{"query": "q"}'}}]}


# -- the follow-up request -------------------------------------------------------

def expected_follow_up(wire):
    """The follow-up's conversation as each provider wants it."""
    args = [json.dumps(c["arguments"]) for c in CALLS]
    if wire in ("openai", "cohere"):
        fn_calls = [{"id": c["id"], "type": "function",
                     "function": {"name": c["name"], "arguments": a}} for c, a in zip(CALLS, args)]
    if wire == "openai":
        return [SYSTEM, QUESTION,
                # "" and never null: llama-cpp-python's server refuses null (issue 17)
                {"role": "assistant", "content": "", "tool_calls": fn_calls},
                {"role": "tool", "tool_call_id": "c1", "content": RESULT1},
                {"role": "tool", "tool_call_id": "c2", "content": RESULT2}]
    if wire == "cohere":
        return [SYSTEM, QUESTION,
                {"role": "assistant", "tool_calls": fn_calls},
                {"role": "tool", "tool_call_id": "c1",
                 "content": [{"type": "document", "document": {"data": RESULT1}}]},
                {"role": "tool", "tool_call_id": "c2",
                 "content": [{"type": "document", "document": {"data": RESULT2}}]}]
    if wire == "anthropic":
        return [QUESTION,
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["arguments"]}
                    for c in CALLS]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "c1", "content": RESULT1},
                    {"type": "tool_result", "tool_use_id": "c2", "content": RESULT2}]}]
    return [{"role": "user", "parts": [{"text": QUESTION["content"]}]},
            {"role": "model", "parts": [{"functionCall": {"name": c["name"], "args": c["arguments"]}}
                                        for c in CALLS]},
            {"role": "user", "parts": [
                {"functionResponse": {"name": "search_memories",
                                      "response": {"result": json.loads(RESULT1)}}},
                {"functionResponse": {"name": "search_memories",
                                      "response": {"result": json.loads(RESULT2)}}}]}]


@pytest.mark.parametrize("provider", CASES)
def test_the_follow_up_carries_calls_and_results_in_the_providers_format(provider):
    req = request(FOLLOW_UP, tools=[SEARCH])
    wire = wire_of(provider, req)
    body = body_of(provider, req)
    conversation = body["contents"] if wire == "google" else body["messages"]
    assert conversation == expected_follow_up(wire)
    if wire == "anthropic":
        assert body["system"] == SYSTEM["content"]
    if wire == "google":
        assert body["systemInstruction"] == {"parts": [{"text": SYSTEM["content"]}]}
    assert req.messages == FOLLOW_UP  # the neutral messages are left alone

    # Gemini has no ids: calls and results are matched by their order.
    ids = ["call_0", "call_1"] if wire == "google" else ["c1", "c2"]
    assert tool_results(wire, body) == [
        {"id": ids[0], "name": "search_memories", "content": RESULT1},
        {"id": ids[1], "name": "search_memories", "content": RESULT2}]
    assert tool_call_requests(wire, body) == [
        {"id": i, "name": c["name"], "arguments": c["arguments"]} for i, c in zip(ids, CALLS)]
    assert last_user_text(wire, body) == QUESTION["content"]
    assert offered_tools(wire, body) == ["search_memories"]


@pytest.mark.parametrize("provider", CASES)
def test_the_assistants_text_with_its_calls_is_kept(provider):
    call = {"id": "c1", "name": "search_memories", "arguments": {"query": "x"}}
    req = request([QUESTION, {"role": "assistant", "content": "Searching.", "tool_calls": [call]},
                   {"role": "tool", "tool_call_id": "c1", "name": "search_memories",
                    "content": "not json"},
                   {"role": "user", "content": "And then?"}], tools=[SEARCH])
    wire = wire_of(provider, req)
    body = body_of(provider, req)
    if wire == "openai":
        assert body["messages"][1]["content"] == "Searching."
        assert body["messages"][2:] == [{"role": "tool", "tool_call_id": "c1", "content": "not json"},
                                        {"role": "user", "content": "And then?"}]
    elif wire == "cohere":
        assert body["messages"][1]["tool_plan"] == "Searching."
        assert "content" not in body["messages"][1]
    elif wire == "anthropic":
        assert body["messages"][1]["content"][0] == {"type": "text", "text": "Searching."}
        # The result and the next question share one user turn, results first.
        assert body["messages"][2] == {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": "not json"},
            {"type": "text", "text": "And then?"}]}
        assert len(body["messages"]) == 3
    else:
        assert body["contents"][1]["parts"][0] == {"text": "Searching."}
        assert body["contents"][2] == {"role": "user", "parts": [
            {"functionResponse": {"name": "search_memories", "response": {"result": "not json"}}}]}
        assert body["contents"][3] == {"role": "user", "parts": [{"text": "And then?"}]}
    assert tool_results(wire, body) == [
        {"id": "call_0" if wire == "google" else "c1", "name": "search_memories",
         "content": "not json"}]
    assert last_user_text(wire, body) == "And then?"


# -- no tools: the bodies of before ----------------------------------------------

CONVERSATION = [SYSTEM, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"},
                {"role": "user", "content": "More"}, {"role": "user", "content": "And more"}]
TURNS = CONVERSATION[1:]
BODIES_WITHOUT_TOOLS = {  # as the adapters built them before tool calling existed
    "openai": {"model": "m", "messages": CONVERSATION, "max_tokens": 77, "temperature": 1.5,
               "stop": ["END"], "seed": 3},
    "azure": {"messages": CONVERSATION, "max_tokens": 77, "temperature": 1.5, "stop": ["END"],
              "seed": 3},
    "openai-compatible": {"model": "m", "messages": CONVERSATION, "max_tokens": 77,
                          "temperature": 1.5, "stop": ["END"], "seed": 3},
    "cohere": {"model": "m", "messages": CONVERSATION, "max_tokens": 77, "temperature": 1.0,
               "stop_sequences": ["END"], "seed": 3},
    "anthropic": {"model": "m", "max_tokens": 77, "system": "Use the tools.", "temperature": 1.0,
                  "stop_sequences": ["END"],
                  "messages": TURNS[:2] + [{"role": "user", "content": "More\n\nAnd more"}]},
    "google": {"systemInstruction": {"parts": [{"text": "Use the tools."}]},
               "generationConfig": {"maxOutputTokens": 77, "temperature": 1.5,
                                    "stopSequences": ["END"], "seed": 3},
               "contents": [{"role": "model" if m["role"] == "assistant" else "user",
                             "parts": [{"text": m["content"]}]} for m in TURNS]},
}


@pytest.mark.parametrize("tools", [None, []])
@pytest.mark.parametrize("provider", CASES)
def test_bodies_without_tools_are_unchanged(provider, tools):
    adapter, attrs = CASES[provider]
    req = request(CONVERSATION, tools=tools, temperature=1.5, max_tokens=77, stop=["END"], seed=3)
    body = adapter.body(req, {k: v for k, v in attrs.items() if k != "model"})
    assert json.dumps(body, sort_keys=True) == json.dumps(BODIES_WITHOUT_TOOLS[provider],
                                                          sort_keys=True)
    if "messages" in body and provider != "anthropic":
        assert body["messages"] is req.messages  # passed through, not rebuilt


# -- robustness ------------------------------------------------------------------

@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", '"text"', "", None, 42])
@pytest.mark.parametrize("wire", ["openai", "cohere"])
def test_unusable_arguments_become_an_empty_object(wire, raw):
    reply = render(wire, ToolCalls([{"id": "a", "name": "search_memories", "arguments": {}}]), "m")
    fn = (reply["choices"][0]["message"] if wire == "openai" else reply["message"])["tool_calls"][0]
    fn["function"]["arguments"] = raw
    provider = "openai" if wire == "openai" else "cohere"
    c = parse(provider, reply, request([QUESTION], tools=[SEARCH]))
    assert c.tool_calls == [{"id": "a", "name": "search_memories", "arguments": {}}]
    assert c.text == ""


def test_replies_without_content_or_calls_are_still_refused():
    req = request([QUESTION])
    with pytest.raises(ProviderBadResponse):
        parse("openai", {"choices": [{"message": {"role": "assistant", "content": None}}]}, req)
    with pytest.raises(ProviderBadResponse):
        parse("openai", {"choices": [{"message": {"role": "assistant"}}]}, req)
    with pytest.raises(ProviderBadResponse):
        parse("openai", {"choices": [{"message": {"content": None, "tool_calls": []}}]}, req)
    with pytest.raises(ProviderBadResponse):
        parse("cohere", {"message": {"role": "assistant"}}, req)
    with pytest.raises(ProviderBadResponse):
        parse("cohere", {"message": {"role": "assistant", "content": []}}, req)
    with pytest.raises(ProviderBadResponse):
        parse("anthropic", {"content": []}, req)
    with pytest.raises(ProviderBadResponse):
        parse("google", {"candidates": [{"content": {"role": "model"}}]}, req)


def test_estimates_cope_with_tool_messages():
    req = request(FOLLOW_UP, tools=[SEARCH])
    inp, out, est = usage_or_estimate(req, "", None, None, CALLS)
    assert est and out > 0
    plain_inp, _, _ = usage_or_estimate(request([SYSTEM, QUESTION]), "x", None, None)
    assert inp > plain_inp
    anthropic_like = request([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    assert usage_or_estimate(anthropic_like, "ok", None, None)[0] > 0
    # Plain messages are estimated as before: four characters a token.
    assert usage_or_estimate(request([{"role": "user", "content": "x" * 40}]), "y" * 8,
                             None, None) == (10, 2, True)


def test_gemini_thought_signatures_go_back_with_their_calls():
    req = request([QUESTION], tools=[SEARCH])
    reply = render("google", ToolCalls([{"name": "search_memories", "arguments": {"query": "q"}}]), "m")
    reply["candidates"][0]["content"]["parts"][0]["thoughtSignature"] = "c2ln"
    c = parse("google", reply, req)
    assert c.tool_calls == [{"id": "call_0", "name": "search_memories", "arguments": {"query": "q"},
                             "thought_signature": "c2ln"}]
    follow = request([QUESTION, {"role": "assistant", "content": "", "tool_calls": c.tool_calls}])
    assert body_of("google", follow)["contents"][1] == {"role": "model", "parts": [
        {"functionCall": {"name": "search_memories", "args": {"query": "q"}},
         "thoughtSignature": "c2ln"}]}


def test_gemini_parameters_keep_only_what_its_schema_accepts():
    schema = {"$schema": "x", "type": "object", "additionalProperties": False, "title": "T",
              "properties": {"q": {"type": ["string", "null"], "description": "d"},
                             "tags": {"type": "array", "items": {"type": "string", "title": "t"}}},
              "required": ["q"]}
    assert gemini_schema(schema) == {
        "type": "object", "required": ["q"],
        "properties": {"q": {"type": "string", "nullable": True, "description": "d"},
                       "tags": {"type": "array", "items": {"type": "string"}}}}
    body = body_of("google", request([QUESTION], tools=[SEARCH | {"parameters": schema}]))
    assert "additionalProperties" not in json.dumps(body["tools"])
    # The other providers take JSON schema as it is.
    assert body_of("openai", request([QUESTION], tools=[SEARCH | {"parameters": schema}]))[
        "tools"][0]["function"]["parameters"] == schema


# -- a round trip through the fake server ----------------------------------------

@pytest.fixture(scope="module")
def fake():
    server = FakeLLM().start()
    yield server
    server.stop()


def call(fake, provider, req):
    adapter, attrs = CASES[provider]
    attrs = attrs | {"provider_endpoint": fake.url}
    reply = http.post_json(adapter.url(attrs, req), adapter.headers("k", attrs),
                           adapter.body(req, attrs), provider=provider,
                           deadline=time.monotonic() + 5, max_attempts=1)
    return adapter.parse(reply.data, req)


@pytest.mark.parametrize("provider", CASES)
def test_round_trip_through_the_fake(fake, provider):
    fake.reset()
    fake.script(ToolCalls([{"name": "search_memories", "arguments": {"query": "parking"}}]),
                Answer("Level 2, spot 14."))
    messages = [SYSTEM, QUESTION]
    first = call(fake, provider, request(messages, tools=[SEARCH]))
    assert first.text == ""
    [tc] = first.tool_calls
    assert (tc["name"], tc["arguments"]) == ("search_memories", {"query": "parking"})
    messages += [{"role": "assistant", "content": first.text, "tool_calls": first.tool_calls},
                 {"role": "tool", "tool_call_id": tc["id"], "name": tc["name"], "content": RESULT1}]
    second = call(fake, provider, request(messages, tools=[SEARCH]))
    assert (second.text, second.tool_calls) == ("Level 2, spot 14.", [])

    r1, r2 = fake.chat_requests
    assert offered_tools(r1.wire, r1.json) == ["search_memories"]
    assert tool_results(r1.wire, r1.json) == []
    assert tool_results(r2.wire, r2.json) == [
        {"id": tc["id"], "name": "search_memories", "content": RESULT1}]
    assert tool_call_requests(r2.wire, r2.json) == [
        {"id": tc["id"], "name": "search_memories", "arguments": {"query": "parking"}}]
    assert last_user_text(r2.wire, r2.json) == QUESTION["content"]
