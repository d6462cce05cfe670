"""Google Gemini generateContent.  The key goes in a header, never in the URL,
so it cannot leak through an error message that quotes the URL."""

from __future__ import annotations

from urllib.parse import quote

from .base import (ChatRequest, Completion, Embedding, Provider, as_dict, as_text, float_vector,
                   usage_or_estimate)


class Google(Provider):
    name = "google"
    default_base = "https://generativelanguage.googleapis.com"
    default_model = "gemini-2.5-flash"

    def url(self, attrs, req):
        base = self.base_url(attrs)
        prefix = "" if base.rstrip("/").endswith(("/v1beta", "/v1")) else "/v1beta"
        return f"{base}{prefix}/models/{quote(req.model, safe='')}:generateContent"

    def headers(self, api_key, attrs):
        return {"x-goog-api-key": api_key} if api_key else {}

    def body(self, req: ChatRequest, attrs):
        system = "\n\n".join(m["content"] for m in req.messages if m["role"] == "system")
        contents = [{"role": "model" if m["role"] == "assistant" else "user",
                     "parts": [{"text": m["content"]}]}
                    for m in req.messages if m["role"] != "system"]
        config = {"maxOutputTokens": req.max_tokens}
        if req.temperature is not None:
            config["temperature"] = req.temperature
        if req.stop:
            config["stopSequences"] = req.stop
        if req.seed is not None:
            config["seed"] = req.seed
        body = {"contents": contents, "generationConfig": config}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        return body

    def parse(self, data, req):
        try:
            cand = data["candidates"][0]
            text = "".join(p.get("text", "") for p in cand["content"]["parts"])
        except (KeyError, IndexError, TypeError, AttributeError):
            reason = as_text(as_dict(as_dict(data).get("promptFeedback")).get("blockReason"))
            raise self.bad(f"no candidates (blockReason {reason})" if reason else "no candidates") from None
        usage = as_dict(data.get("usageMetadata"))
        inp, out, est = usage_or_estimate(
            req, text, usage.get("promptTokenCount"), usage.get("candidatesTokenCount"))
        return Completion(text=text, model=as_text(data.get("modelVersion")) or req.model,
                          input_tokens=inp, output_tokens=out, tokens_estimated=est,
                          finish_reason=as_text(cand.get("finishReason")))

    # POST /v1beta/models/<model>:embedContent {"content": {"parts": [{"text"}]}}
    #   -> {"embedding": {"values": [...]}}  (no token count in the reply)
    def embedding_url(self, attrs, model):
        base = self.base_url(attrs)
        prefix = "" if base.rstrip("/").endswith(("/v1beta", "/v1")) else "/v1beta"
        name = model.split("/", 1)[1] if model.startswith("models/") else model
        return f"{base}{prefix}/models/{quote(name, safe='')}:embedContent"

    def embedding_body(self, text, model, attrs):
        name = model if model.startswith("models/") else f"models/{model}"
        return {"model": name, "content": {"parts": [{"text": text}]},
                "taskType": "SEMANTIC_SIMILARITY"}

    def parse_embedding(self, data, model):
        try:
            vector = float_vector(data["embedding"]["values"])
        except (KeyError, TypeError):
            raise self.bad_embedding("no embedding.values") from None
        if vector is None:
            raise self.bad_embedding("embedding.values is not an array of numbers")
        return Embedding(vector, model, None)
