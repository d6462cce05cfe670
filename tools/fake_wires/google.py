"""Google Gemini generateContent, embedContent and batchEmbedContents.  The model
is named in the path (``.../models/<model>:<method>``), tool calls carry no id."""

from __future__ import annotations

import json

from .base import Answer, ChatWire, EmbeddingWire, ToolCalls, body_tools


def model_in_path(path: str) -> str:
    return path.split("/models/")[-1].split(":")[0]


class GoogleWire(ChatWire):
    name = "google"

    def serves(self, path):
        return ":generateContent" in path

    def model(self, path, body):
        return model_in_path(path)

    def render_answer(self, step: Answer, model):
        return self._reply(step, [{"text": step.text}], model)

    def render_tool_calls(self, step: ToolCalls, model):
        calls = self.calls(step)
        parts = [{"text": step.text}] if step.text else []
        parts += [{"functionCall": {"name": name, "args": args}} for _, name, args in calls]
        return self._reply(step, parts, model)

    @staticmethod
    def _reply(step, parts: list[dict], model) -> dict:
        # A reply with calls finishes with STOP too.
        body = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
                "modelVersion": model}
        i, o = step.input_tokens, step.output_tokens
        if i is not None:
            body["usageMetadata"] = {"promptTokenCount": i, "candidatesTokenCount": o,
                                     "totalTokenCount": i + o}
        return body

    def offered_tools(self, body):
        return [d.get("name") for t in body_tools(body) for d in t.get("functionDeclarations") or []]

    def tool_call_turns(self, body):
        """Gemini sends no ids: ``call_<n>``, n counting the calls of their turn."""
        for c in body["contents"]:
            calls = [p["functionCall"] for p in c["parts"] if "functionCall" in p]
            yield [{"id": fc.get("id") or f"call_{n}", "name": fc["name"], "arguments": fc.get("args", {})}
                   for n, fc in enumerate(calls)]

    def tool_result_turns(self, body):
        """Content: the JSON of functionResponse.response.result; the id ``call_<n>``
        counts the results of their turn, matching the calls."""
        for c in body["contents"]:
            responses = [p["functionResponse"] for p in c["parts"] if "functionResponse" in p]
            for n, fr in enumerate(responses):
                resp = fr.get("response")
                result = resp.get("result", resp) if isinstance(resp, dict) else resp
                yield [{"id": fr.get("id") or f"call_{n}", "name": fr.get("name"),
                        "content": result if isinstance(result, str) else json.dumps(result)}]

    def user_turns(self, body):
        return [c["parts"] for c in body["contents"] if c.get("role", "user") == "user"]


class GoogleEmbedWire(EmbeddingWire):
    name = "google-embed"

    def serves(self, path):
        return path.endswith(":embedContent")

    def model(self, path, body):
        return model_in_path(path)

    def input_texts(self, body):
        return [_text(body["content"])]

    def render_vectors(self, vectors, texts, tokens, model):
        return {"embedding": {"values": vectors[0] if vectors else []}}


class GoogleBatchEmbedWire(GoogleEmbedWire):
    name = "google-batch-embed"

    def serves(self, path):
        return path.endswith(":batchEmbedContents")

    def input_texts(self, body):
        return [_text(r["content"]) for r in body["requests"]]

    def render_vectors(self, vectors, texts, tokens, model):
        return {"embeddings": [{"values": v} for v in vectors]}


def _text(content: dict) -> str:
    return "".join(p.get("text", "") for p in content["parts"])
