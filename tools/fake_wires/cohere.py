"""Cohere Chat API v2 and Embed API v2.  A chat request reads like OpenAI's
(messages, function tools, tool_calls, role "tool"); the replies are Cohere's."""

from __future__ import annotations

from .base import Answer, EmbeddingWire, ToolCalls
from .openai import OpenAIWire, openai_tool_call


class CohereWire(OpenAIWire):
    name = "cohere"

    def serves(self, path):
        return path.endswith("/v2/chat")

    def render_answer(self, step: Answer, model):
        return self._usage(step, {
            "id": "fake", "finish_reason": "COMPLETE",
            "message": {"role": "assistant", "content": [{"type": "text", "text": step.text}]}})

    def render_tool_calls(self, step: ToolCalls, model):
        calls = self.calls(step)
        message = {"role": "assistant"}
        if step.text:
            message["tool_plan"] = step.text
        message["tool_calls"] = [openai_tool_call(*c) for c in calls]
        return self._usage(step, {"id": "fake", "finish_reason": "TOOL_CALL", "message": message})

    @staticmethod
    def _usage(step, body: dict) -> dict:
        i, o = step.input_tokens, step.output_tokens
        if i is not None:
            body["usage"] = {"billed_units": {"input_tokens": i, "output_tokens": o},
                             "tokens": {"input_tokens": i, "output_tokens": o}}
        return body


class CohereEmbedWire(EmbeddingWire):
    name = "cohere-embed"

    def serves(self, path):
        return path.endswith("/v2/embed")

    def input_texts(self, body):
        return list(body["texts"])

    def render_vectors(self, vectors, texts, tokens, model):
        out = {"id": "fake-embed", "embeddings": {"float": vectors}, "texts": texts}
        if tokens is not None:
            out["meta"] = {"billed_units": {"input_tokens": tokens}}
        return out
