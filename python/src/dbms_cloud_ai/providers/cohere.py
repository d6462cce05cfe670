"""Cohere Chat API v2."""

from __future__ import annotations

from .base import (
    ChatRequest,
    Completion,
    Embedding,
    Provider,
    as_dict,
    as_text,
    float_vector,
    is_tool_turn,
    usage_or_estimate,
)
from .openai import openai_tool_call, openai_tools, parse_openai_tool_calls


class Cohere(Provider):
    name = "cohere"
    default_base = "https://api.cohere.com"
    api_hosts = ("api.cohere.com", "api.cohere.ai")
    context_windows = {
        "command": 4_096,
        "command-r": 128_000,
        "command-a": 256_000,
    }
    default_model = "command-a-03-2025"

    def url(self, attrs, req):
        base = self.base_url(attrs)
        if base.endswith("/v2/chat"):
            return base
        return base + "/chat" if base.endswith("/v2") else base + "/v2/chat"

    def headers(self, api_key, attrs):
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    def body(self, req: ChatRequest, attrs):
        messages = req.messages
        if any(is_tool_turn(m) for m in messages):
            messages = [_message(m) for m in messages]
        body = {"model": req.model, "messages": messages, "max_tokens": req.max_tokens}
        if req.temperature is not None:
            body["temperature"] = min(req.temperature, 1.0)
        if req.stop:
            body["stop_sequences"] = req.stop
        if req.seed is not None:
            body["seed"] = req.seed
        if req.tools:
            body["tools"] = openai_tools(req.tools)
        return body

    def parse(self, data, req):
        try:
            message = data["message"]
            calls = parse_openai_tool_calls(message.get("tool_calls"))
            parts = message["content"] if not calls else message.get("content") or []
            text = "".join(p["text"] for p in parts if p.get("type") == "text")
        except (KeyError, TypeError, AttributeError):
            raise self.bad("no message.content") from None
        if calls:  # the model's plan goes with its calls, as text
            text = text or as_text(message.get("tool_plan")) or ""
        elif not parts:
            raise self.bad("empty message.content")
        usage = as_dict(data.get("usage"))
        tokens = as_dict(usage.get("tokens")) or as_dict(usage.get("billed_units"))
        inp, out, est = usage_or_estimate(
            req, text, _int(tokens.get("input_tokens")), _int(tokens.get("output_tokens")), calls)
        return Completion(text=text, model=req.model, input_tokens=inp, output_tokens=out,
                          tokens_estimated=est, finish_reason=as_text(data.get("finish_reason")),
                          tool_calls=calls)


    # POST /v2/embed {"model", "texts", "input_type", "embedding_types"}
    #   -> {"embeddings": {"float": [[...]]}, "meta": {"billed_units": {"input_tokens"}}}
    # Questions are compared with questions: both sides are "search_query".
    def embedding_url(self, attrs, model):
        base = self.base_url(attrs)
        if base.endswith("/v2/embed"):
            return base
        return base + "/embed" if base.endswith("/v2") else base + "/v2/embed"

    def embedding_body(self, text, model, attrs):
        return {"model": model, "texts": [text], "input_type": "search_query",
                "embedding_types": ["float"]}

    def parse_embedding(self, data, model):
        try:
            vector = float_vector(data["embeddings"]["float"][0])
        except (KeyError, IndexError, TypeError):
            raise self.bad_embedding("no embeddings.float[0]") from None
        if vector is None:
            raise self.bad_embedding("embeddings.float[0] is not an array of numbers")
        billed = as_dict(as_dict(data.get("meta")).get("billed_units"))
        return Embedding(vector, model, _int(billed.get("input_tokens")))


def _message(m: dict) -> dict:
    """A neutral message in Chat v2's format: the assistant's text with tool calls
    is its tool_plan; a tool result is one document."""
    if m.get("role") == "tool":
        return {"role": "tool", "tool_call_id": m["tool_call_id"],
                "content": [{"type": "document", "document": {"data": m["content"]}}]}
    if is_tool_turn(m):
        out = {"role": "assistant"}
        if m.get("content"):
            out["tool_plan"] = m["content"]
        out["tool_calls"] = [openai_tool_call(c) for c in m["tool_calls"]]
        return out
    return m


def _int(v):
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
