"""Anthropic Messages API."""

from __future__ import annotations

from .base import (ChatRequest, Completion, Provider, as_dict, as_text, join_api_path,
                   usage_or_estimate)

API_VERSION = "2023-06-01"


class Anthropic(Provider):
    name = "anthropic"
    default_base = "https://api.anthropic.com"
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
            if turns and turns[-1]["role"] == m["role"]:  # the API wants alternating turns
                turns[-1]["content"] += "\n\n" + m["content"]
            else:
                turns.append({"role": m["role"], "content": m["content"]})
        body = {"model": req.model, "max_tokens": req.max_tokens, "messages": turns}
        if system:
            body["system"] = system
        if req.temperature is not None:
            body["temperature"] = min(req.temperature, 1.0)
        if req.stop:
            body["stop_sequences"] = req.stop
        return body

    def parse(self, data, req):
        try:
            blocks = data["content"]
            text = "".join(b["text"] for b in blocks if b.get("type") == "text")
        except (KeyError, TypeError, AttributeError):
            raise self.bad("no content blocks") from None
        if not blocks:
            raise self.bad("empty content")
        usage = as_dict(data.get("usage"))
        inp, out, est = usage_or_estimate(
            req, text, usage.get("input_tokens"), usage.get("output_tokens"))
        return Completion(text=text, model=as_text(data.get("model")) or req.model,
                          input_tokens=inp, output_tokens=out, tokens_estimated=est,
                          finish_reason=as_text(data.get("stop_reason")))
