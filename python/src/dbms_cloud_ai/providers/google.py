"""Google Gemini generateContent.  The key goes in a header, never in the URL,
so it cannot leak through an error message that quotes the URL."""

from __future__ import annotations

from urllib.parse import quote

from .. import jsontext
from .base import (
    ChatRequest,
    Completion,
    Embedding,
    Provider,
    as_dict,
    as_text,
    float_vector,
    is_tool_turn,
    tool_declaration,
    usage_or_estimate,
)


class Google(Provider):
    name = "google"
    default_base = "https://generativelanguage.googleapis.com"
    api_hosts = ("generativelanguage.googleapis.com",)
    context_windows = {
        "gemini-": 1_048_576,
        "gemini-1.0": 32_760,
        "gemini-pro": 32_760,
        "gemini-1.5-pro": 2_097_152,
    }
    default_model = "gemini-2.5-flash"

    def url(self, attrs, req):
        base = self.base_url(attrs)
        prefix = "" if base.rstrip("/").endswith(("/v1beta", "/v1")) else "/v1beta"
        return f"{base}{prefix}/models/{quote(req.model, safe='')}:generateContent"

    def headers(self, api_key, attrs):
        return {"x-goog-api-key": api_key} if api_key else {}

    def body(self, req: ChatRequest, attrs):
        system = "\n\n".join(m["content"] for m in req.messages if m["role"] == "system")
        contents: list[dict] = []
        for m in req.messages:
            if m["role"] == "system":
                continue
            if m["role"] == "tool":
                part = {"functionResponse": {"name": m["name"],
                                             "response": {"result": _json_or_text(m["content"])}}}
                if contents and contents[-1]["parts"] and "functionResponse" in contents[-1]["parts"][-1]:
                    contents[-1]["parts"].append(part)  # one turn answers all the calls
                else:
                    contents.append({"role": "user", "parts": [part]})
            elif is_tool_turn(m):
                parts = [{"text": m["content"]}] if m.get("content") else []
                parts += [_function_call_part(c) for c in m["tool_calls"]]
                contents.append({"role": "model", "parts": parts})
            else:
                contents.append({"role": "model" if m["role"] == "assistant" else "user",
                                 "parts": [{"text": m["content"]}]})
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
        if req.tools:
            body["tools"] = [{"functionDeclarations": [
                {"name": name, "description": description, "parameters": gemini_schema(params)}
                for name, description, params in map(tool_declaration, req.tools)]}]
        return body

    def parse(self, data, req):
        try:
            cand = data["candidates"][0]
            parts = cand["content"]["parts"]
            text = "".join(p.get("text", "") for p in parts)
            asked = [p for p in parts if "functionCall" in p]
            calls = [_tool_call(p, i) for i, p in enumerate(asked)]
        except (KeyError, IndexError, TypeError, AttributeError):
            reason = as_text(as_dict(as_dict(data).get("promptFeedback")).get("blockReason"))
            raise self.bad(f"no candidates (blockReason {reason})" if reason else "no candidates") from None
        usage = as_dict(data.get("usageMetadata"))
        inp, out, est = usage_or_estimate(
            req, text, usage.get("promptTokenCount"), usage.get("candidatesTokenCount"), calls)
        return Completion(text=text, model=as_text(data.get("modelVersion")) or req.model,
                          input_tokens=inp, output_tokens=out, tokens_estimated=est,
                          finish_reason=as_text(cand.get("finishReason")), tool_calls=calls)

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


def _tool_call(part: dict, index: int) -> dict:
    """A functionCall part as a neutral tool call.  Gemini gives no id: call_<n>,
    n counting the calls of this reply.  A thinking model's thoughtSignature is
    kept (thought_signature) and sent back with the call, as the API asks."""
    fc = as_dict(part["functionCall"])
    call = {"id": as_text(fc.get("id")) or f"call_{index}", "name": as_text(fc.get("name")) or "",
            "arguments": as_dict(fc.get("args"))}
    if as_text(part.get("thoughtSignature")):
        call["thought_signature"] = part["thoughtSignature"]
    return call


def _function_call_part(call: dict) -> dict:
    part = {"functionCall": {"name": call["name"], "args": call.get("arguments") or {}}}
    if call.get("thought_signature"):
        part["thoughtSignature"] = call["thought_signature"]
    return part


def _json_or_text(content):
    """A tool result for functionResponse.response.result: the parsed JSON, else the text."""
    if isinstance(content, str):
        try:
            return jsontext.loads(content)
        except ValueError:
            return content
    return content


# The keys of Gemini's Schema (a subset of OpenAPI 3.0): any other JSON-schema
# key (additionalProperties, $schema, title...) makes the API answer 400.
_SCHEMA_KEYS = {"type", "format", "description", "nullable", "enum", "items", "properties",
                "required", "minItems", "maxItems", "minLength", "maxLength", "pattern",
                "minimum", "maximum", "minProperties", "maxProperties", "anyOf",
                "propertyOrdering", "default", "example"}


def gemini_schema(schema):
    """A JSON schema cut down to what functionDeclarations.parameters accepts.
    ``"type": [T, "null"]`` becomes ``"type": T, "nullable": true``."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key not in _SCHEMA_KEYS:
            continue
        if key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            value = types[0] if len(types) == 1 else value
            if "null" in schema["type"] and len(types) == 1:
                out["nullable"] = True
        elif key == "properties" and isinstance(value, dict):
            value = {k: gemini_schema(v) for k, v in value.items()}
        elif key == "items":
            value = gemini_schema(value)
        elif key == "anyOf" and isinstance(value, list):
            value = [gemini_schema(v) for v in value]
        out[key] = value
    return out
