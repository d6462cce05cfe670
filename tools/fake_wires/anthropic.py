"""Anthropic Messages API."""

from __future__ import annotations

from .base import Answer, ChatWire, ToolCalls, body_tools, content_text


class AnthropicWire(ChatWire):
    name = "anthropic"
    tool_call_id_prefix = "toolu"

    def serves(self, path):
        return path.endswith("/messages")

    def render_answer(self, step: Answer, model):
        return self._usage(step, {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": step.text}], "stop_reason": "end_turn"})

    def render_tool_calls(self, step: ToolCalls, model):
        calls = self.calls(step)
        blocks = [{"type": "text", "text": step.text}] if step.text else []
        blocks += [{"type": "tool_use", "id": cid, "name": name, "input": args}
                   for cid, name, args in calls]
        return self._usage(step, {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": "tool_use", "stop_sequence": None})

    @staticmethod
    def _usage(step, body: dict) -> dict:
        if step.input_tokens is not None:
            body["usage"] = {"input_tokens": step.input_tokens, "output_tokens": step.output_tokens}
        return body

    def offered_tools(self, body):
        return [t.get("name") for t in body_tools(body)]

    def tool_call_turns(self, body):
        for m in body["messages"]:
            if m["role"] == "assistant" and isinstance(m["content"], list):
                yield [{"id": b["id"], "name": b["name"], "arguments": b.get("input")}
                       for b in m["content"] if b.get("type") == "tool_use"]

    def tool_result_turns(self, body):
        names = {c["id"]: c["name"] for c in self.tool_call_requests(body)}
        for m in body["messages"]:
            if m["role"] == "user" and isinstance(m["content"], list):
                yield [{"id": b["tool_use_id"], "name": names.get(b["tool_use_id"]),
                        "content": content_text(b.get("content"))}
                       for b in m["content"] if b.get("type") == "tool_result"]

    def user_turns(self, body):
        return [m["content"] for m in body["messages"] if m["role"] == "user"]
