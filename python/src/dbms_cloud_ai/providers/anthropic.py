"""Anthropic Messages API."""

from __future__ import annotations

from .base import (
    ChatRequest,
    Completion,
    Provider,
    as_dict,
    as_text,
    is_tool_turn,
    join_api_path,
    tool_declaration,
    usage_or_estimate,
)

API_VERSION = "2023-06-01"


class Anthropic(Provider):
    name = "anthropic"
    default_base = "https://api.anthropic.com"
    api_hosts = ("api.anthropic.com",)
    context_windows = {
        "claude-": 200_000,
        "claude-2": 100_000,
        "claude-instant": 100_000,
    }
    default_model = "claude-haiku-4-5"

    def url(self, attrs, req):
        return join_api_path(self.base_url(attrs), "/v1", "/messages")

    def headers(self, api_key, attrs):
        headers = {"anthropic-version": API_VERSION}
        if api_key:  # none with a key-injecting proxy as provider_endpoint
            headers["x-api-key"] = api_key
        return headers

    def body(self, req: ChatRequest, attrs):
        system = "\n\n".join(m["content"] for m in req.messages if m["role"] == "system")
        turns: list[dict] = []
        for m in req.messages:
            if m["role"] == "system":
                continue
            role, content = _turn(m)
            if turns and turns[-1]["role"] == role:  # the API wants alternating turns
                prev = turns[-1]["content"]
                if isinstance(prev, str) and isinstance(content, str):
                    turns[-1]["content"] = prev + "\n\n" + content
                else:  # tool results first, then any text (the API's order)
                    turns[-1]["content"] = _blocks(prev) + _blocks(content)
            else:
                turns.append({"role": role, "content": content})
        body = {"model": req.model, "max_tokens": req.max_tokens, "messages": turns}
        if system:
            body["system"] = system
        if req.temperature is not None:
            body["temperature"] = min(req.temperature, 1.0)
        if req.stop:
            body["stop_sequences"] = req.stop
        if req.tools:
            body["tools"] = [dict(zip(("name", "description", "input_schema"), tool_declaration(t)))
                             for t in req.tools]
        return body

    def parse(self, data, req):
        try:
            blocks = data["content"]
            text = "".join(b["text"] for b in blocks if b.get("type") == "text")
            uses = [b for b in blocks if b.get("type") == "tool_use"]
            calls = [{"id": as_text(b.get("id")) or f"call_{i}", "name": as_text(b.get("name")) or "",
                      "arguments": as_dict(b.get("input"))} for i, b in enumerate(uses)]
        except (KeyError, TypeError, AttributeError):
            raise self.bad("no content blocks") from None
        if not blocks:
            raise self.bad("empty content")
        usage = as_dict(data.get("usage"))
        inp, out, est = usage_or_estimate(
            req, text, usage.get("input_tokens"), usage.get("output_tokens"), calls)
        return Completion(text=text, model=as_text(data.get("model")) or req.model,
                          input_tokens=inp, output_tokens=out, tokens_estimated=est,
                          finish_reason=as_text(data.get("stop_reason")), tool_calls=calls)


def _turn(m: dict) -> tuple[str, str | list]:
    """A neutral message as a Messages API turn: (role, content)."""
    if m["role"] == "tool":
        return "user", [{"type": "tool_result", "tool_use_id": m["tool_call_id"],
                         "content": m["content"]}]
    if is_tool_turn(m):
        return "assistant", _blocks(m.get("content")) + [
            {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c.get("arguments") or {}}
            for c in m["tool_calls"]]
    return m["role"], m["content"]


def _blocks(content) -> list[dict]:
    """Content as a list of blocks; empty text makes none (the API refuses empty text blocks)."""
    if isinstance(content, list):
        return list(content)
    return [{"type": "text", "text": content}] if content else []
