"""Cohere Chat API v2."""

from __future__ import annotations

from .base import (ChatRequest, Completion, Embedding, Provider, as_dict, as_text, float_vector,
                   usage_or_estimate)


class Cohere(Provider):
    name = "cohere"
    default_base = "https://api.cohere.com"
    default_model = "command-a-03-2025"

    def url(self, attrs, req):
        base = self.base_url(attrs)
        if base.endswith("/v2/chat"):
            return base
        return base + "/chat" if base.endswith("/v2") else base + "/v2/chat"

    def headers(self, api_key, attrs):
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    def body(self, req: ChatRequest, attrs):
        body = {"model": req.model, "messages": req.messages, "max_tokens": req.max_tokens}
        if req.temperature is not None:
            body["temperature"] = min(req.temperature, 1.0)
        if req.stop:
            body["stop_sequences"] = req.stop
        if req.seed is not None:
            body["seed"] = req.seed
        return body

    def parse(self, data, req):
        try:
            parts = data["message"]["content"]
            text = "".join(p["text"] for p in parts if p.get("type") == "text")
        except (KeyError, TypeError, AttributeError):
            raise self.bad("no message.content") from None
        if not parts:
            raise self.bad("empty message.content")
        usage = as_dict(data.get("usage"))
        tokens = as_dict(usage.get("tokens")) or as_dict(usage.get("billed_units"))
        inp, out, est = usage_or_estimate(
            req, text, _int(tokens.get("input_tokens")), _int(tokens.get("output_tokens")))
        return Completion(text=text, model=req.model, input_tokens=inp, output_tokens=out,
                          tokens_estimated=est, finish_reason=as_text(data.get("finish_reason")))


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


def _int(v):
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
