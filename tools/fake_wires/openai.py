"""OpenAI chat completions and embeddings (Azure OpenAI and OpenAI-compatible
servers too).  The fake also answers in this format what no wire serves."""

from __future__ import annotations

import json

from .base import Answer, ChatWire, EmbeddingWire, ToolCalls, body_tools, content_text


class OpenAIWire(ChatWire):
    name = "openai"

    def serves(self, path):
        return path.split("?")[0].endswith("/chat/completions")

    def render_answer(self, step: Answer, model):
        return self._usage(step, {
            "id": "chatcmpl-fake", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": step.text},
                         "finish_reason": "stop"}]})

    def render_tool_calls(self, step: ToolCalls, model):
        message = {"role": "assistant", "content": step.text or None,
                   "tool_calls": [openai_tool_call(*c) for c in self.calls(step)]}
        return self._usage(step, {
            "id": "chatcmpl-fake", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]})

    @staticmethod
    def _usage(step, body: dict) -> dict:
        i, o = step.input_tokens, step.output_tokens
        if i is not None:
            body["usage"] = {"prompt_tokens": i, "completion_tokens": o, "total_tokens": i + o}
        return body

    def offered_tools(self, body):
        return [(t.get("function") or {}).get("name") for t in body_tools(body)]

    def tool_call_turns(self, body):
        for m in body["messages"]:
            if m["role"] == "assistant":
                yield [{"id": tc["id"], "name": tc["function"]["name"],
                        "arguments": json_arguments(tc["function"].get("arguments"))}
                       for tc in m.get("tool_calls") or []]

    def tool_result_turns(self, body):
        names = {c["id"]: c["name"] for c in self.tool_call_requests(body)}
        for m in body["messages"]:
            if m["role"] == "tool":
                yield [{"id": m.get("tool_call_id"), "name": names.get(m.get("tool_call_id")),
                        "content": content_text(m.get("content"))}]

    def user_turns(self, body):
        return [m["content"] for m in body["messages"] if m["role"] == "user"]


class OpenAIEmbeddingsWire(EmbeddingWire):
    name = "openai-embeddings"

    def serves(self, path):
        return path.split("?")[0].endswith("/embeddings")

    def input_texts(self, body):
        inp = body["input"]
        return [inp] if isinstance(inp, str) else list(inp)

    def render_vectors(self, vectors, texts, tokens, model):
        out = {"object": "list", "model": model or "fake-embedding",
               "data": [{"object": "embedding", "index": i, "embedding": v}
                        for i, v in enumerate(vectors)]}
        if tokens is not None:
            out["usage"] = {"prompt_tokens": tokens, "total_tokens": tokens}
        return out


def openai_tool_call(cid: str, name: str, args: dict) -> dict:
    """A tool call as OpenAI (and Cohere v2) sends it: arguments as JSON text."""
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def json_arguments(raw):
    """Arguments sent as JSON text, parsed (kept as they are when they do not parse)."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw
