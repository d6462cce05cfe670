"""The fake LLM's wires (tools/fake_wires/), no database: every adapter's URL
reaches exactly one wire, its provider's; the embedding wires read what the
adapters send and render what they parse; a wire name without a wire is
answered the OpenAI way.  A new provider fails here until its wire exists."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

import pytest
from dbms_cloud_ai.errors import FeatureNotSupported
from dbms_cloud_ai.providers import COMPATIBLE, PROVIDERS
from dbms_cloud_ai.providers.base import ChatRequest
from fake_llm import (
    EMBEDDING_WIRES,
    Answer,
    ToolCalls,
    Vectors,
    embed_text,
    embedding_texts,
    last_user_text,
    offered_tools,
    render,
    render_embedding,
    request_model,
    tool_call_requests,
    tool_results,
    wire_format,
)
from fake_wires import WIRES, ChatWire, EmbeddingWire

# provider -> (profile attributes, its chat wire, its embedding wire or None: no embedding API)
ADAPTERS = {
    "openai": ({}, "openai", "openai-embeddings"),
    "azure": ({"azure_deployment_name": "dep", "azure_resource_name": "res"}, "openai", "openai-embeddings"),
    "anthropic": ({}, "anthropic", None),
    "cohere": ({}, "cohere", "cohere-embed"),
    "google": ({}, "google", "google-embed"),
    "huggingface": ({}, "openai", None),
    "oci": ({}, "openai", "openai-embeddings"),          # routed to an OpenAI-compatible server
    "openai-compatible": ({"model": "llama3.2"}, "openai", "openai-embeddings"),
}
ENDPOINTS = ["http://127.0.0.1:9", "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v2",
             "http://127.0.0.1:9/v1beta", "http://127.0.0.1:9/proxy/v1"]
TEXT = "How many customers live in Paris?"


def adapter(provider):
    return COMPATIBLE if provider == "openai-compatible" else PROVIDERS[provider]


def target(url: str) -> str:
    """What the fake server sees as the request's path: path and query."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def test_every_provider_has_its_wires():
    assert set(ADAPTERS) == set(PROVIDERS) | {"openai-compatible"}
    named = {w for _, chat, emb in ADAPTERS.values() for w in (chat, emb) if w}
    assert named == set(WIRES) - {"google-batch-embed"}    # no adapter batches (yet)
    for name, w in WIRES.items():
        assert w.name == name
        assert isinstance(w, ChatWire) != isinstance(w, EmbeddingWire)
    assert EMBEDDING_WIRES == tuple(n for n, w in WIRES.items() if isinstance(w, EmbeddingWire))


@pytest.mark.parametrize("endpoint", ENDPOINTS)
@pytest.mark.parametrize("provider", ADAPTERS)
def test_each_adapter_url_is_served_by_its_wire_alone(provider, endpoint):
    attrs, chat, emb = ADAPTERS[provider]
    attrs = attrs | {"provider_endpoint": endpoint}
    req = ChatRequest(messages=[{"role": "user", "content": TEXT}], model="some/model x")
    paths = {chat: target(adapter(provider).url(attrs, req))}
    try:
        paths[emb] = target(adapter(provider).embedding_url(attrs, "emb-model"))
    except FeatureNotSupported:
        assert emb is None
    for name, path in paths.items():
        assert [n for n, w in WIRES.items() if w.serves(path)] == [name]
        assert wire_format(path) == name


@pytest.mark.parametrize("provider", [p for p, (_, _, emb) in ADAPTERS.items() if emb])
def test_embedding_wires_read_and_answer_what_the_adapters_send(provider):
    attrs, _, emb = ADAPTERS[provider]
    attrs = attrs | {"provider_endpoint": "http://127.0.0.1:9"}
    a = adapter(provider)
    path = target(a.embedding_url(attrs, "emb-model"))
    body = json.loads(json.dumps(a.embedding_body(TEXT, "emb-model", attrs)))
    assert embedding_texts(emb, body) == [TEXT]
    model = request_model(emb, path, body)
    assert model == (None if provider == "azure" else "emb-model")   # Azure: the deployment's
    reply = json.loads(json.dumps(render_embedding(emb, Vectors(), body, model)))
    assert a.parse_embedding(reply, "emb-model").vector == embed_text(TEXT)
    assert a.parse_embedding(render_embedding(emb, Vectors([[0.5, 1.0]]), body, model),
                             "emb-model").vector == [0.5, 1.0]


def test_google_batches():
    body = {"requests": [{"content": {"parts": [{"text": "a b"}, {"text": " c"}]}},
                         {"content": {"parts": [{"text": "d"}]}}]}
    path = "/v1beta/models/text-embedding-004:batchEmbedContents"
    assert wire_format(path) == "google-batch-embed"
    assert request_model("google-batch-embed", path, body) == "text-embedding-004"
    assert embedding_texts("google-batch-embed", body) == ["a b c", "d"]
    assert render_embedding("google-batch-embed", Vectors([[1.0], [2.0]]), body, None) == {
        "embeddings": [{"values": [1.0]}, {"values": [2.0]}]}


def test_malformed_bodies_read_as_nothing():
    for name, w in WIRES.items():
        for body in ({}, None, [], "text", {"messages": None, "contents": 3, "input": 5, "texts": 5}):
            assert embedding_texts(name, body) == []
            if isinstance(w, ChatWire):
                assert tool_call_requests(name, body) == [] and tool_results(name, body) == []
                assert last_user_text(name, body) == ""


def test_what_no_wire_speaks_is_read_and_answered_the_openai_way():
    body = {"model": "m", "tools": [{"type": "function", "function": {"name": "search"}}],
            "messages": [{"role": "user", "content": "hi"},
                         {"role": "assistant", "tool_calls": [
                             {"id": "c", "function": {"name": "search", "arguments": '{"q": 1}'}}]},
                         {"role": "tool", "tool_call_id": "c", "content": "found"}]}
    for name in ("unknown", "cohere-embed", "google-embed"):
        for step in (Answer("x"), ToolCalls([{"name": "search"}])):
            assert render(name, step, "m") == render("openai", step, "m")
        assert offered_tools(name, body) == ["search"]
        assert tool_results(name, body) == [{"id": "c", "name": "search", "content": "found"}]
        assert last_user_text(name, body) == "hi"
    assert request_model("unknown", "/x", body) == "m"
    for name in ("unknown", "anthropic"):
        assert embedding_texts(name, {"input": "x"}) == []
        assert render_embedding(name, Vectors([[1.0]]), {}, "e") == render_embedding(
            "openai-embeddings", Vectors([[1.0]]), {}, "e")
