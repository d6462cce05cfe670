"""What every wire of the fake LLM provides: the paths it serves, its replies, and
what it reads out of a request body.  Also the replies a wire renders (Answer,
ToolCalls, Vectors), as providers/base.py holds ChatRequest and Completion."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class Answer:
    """A successful completion in the wire format the request used."""
    text: str
    input_tokens: int | None = 11
    output_tokens: int | None = 7
    delay: float = 0.0


@dataclass
class ToolCalls:
    """A reply asking for tool calls, in the wire format the request used.

    ``calls``: ``{"name", "arguments": {...}, "id": optional}``; the id defaults
    to ``call_<n>`` (``toolu_<n>`` for Anthropic) and Gemini replies carry none.
    ``text`` goes with the calls: OpenAI content (else null), an Anthropic text
    block, a Gemini text part, the Cohere tool_plan."""
    calls: list[dict]
    text: str = ""
    input_tokens: int | None = 11
    output_tokens: int | None = 7
    delay: float = 0.0


@dataclass
class Vectors:
    """An embedding answer in the request's wire format; ``vectors`` None:
    ``embed_text`` of each input text."""
    vectors: list | None = None
    input_tokens: int | None = 5
    delay: float = 0.0


# What reading a body that is not in the wire's format raises: the readers then
# return what they found before it.
MALFORMED = (KeyError, TypeError, AttributeError)


class Wire:
    """One request format: the requests to the paths it serves are recorded
    under its ``name`` (``Recorded.wire``)."""

    name = "?"

    def serves(self, path: str) -> bool:
        """Whether a request to ``path`` (with its query string) is in this format."""
        raise NotImplementedError

    def model(self, path: str, body) -> str | None:
        """The model a request names (in its body unless the wire says otherwise)."""
        return body.get("model") if isinstance(body, dict) else None


class ChatWire(Wire):
    """A chat endpoint: renders Answer and ToolCalls, reads tools, tool calls,
    tool results and user turns.  A subclass implements the methods that raise
    NotImplementedError; the readers' tolerance of malformed bodies is here."""

    tool_call_id_prefix = "call"    # ids given to scripted calls without one: call_<n>

    # --- replies ---------------------------------------------------------------
    def render_answer(self, step: Answer, model: str | None) -> dict:
        """The body a real provider would send for ``step``."""
        raise NotImplementedError

    def render_tool_calls(self, step: ToolCalls, model: str | None) -> dict:
        """The body a real provider sends when its model asks for tool calls."""
        raise NotImplementedError

    def calls(self, step: ToolCalls) -> list[tuple[str, str, dict]]:
        """The scripted calls as (id, name, arguments), ids filled in."""
        return [(c.get("id") or f"{self.tool_call_id_prefix}_{n}", c["name"], c.get("arguments") or {})
                for n, c in enumerate(step.calls)]

    # --- reading a request -----------------------------------------------------
    def offered_tools(self, body) -> list[str]:
        """The names of the tools the request offers (``body_tools``)."""
        raise NotImplementedError

    def tool_call_requests(self, body) -> list[dict]:
        """The model's earlier tool calls the request replays, in order:
        ``{"id", "name", "arguments"}``."""
        return collect(self.tool_call_turns(body))

    def tool_results(self, body) -> list[dict]:
        """Every tool result the request carries, in order: ``{"id", "name", "content"}``,
        content as text."""
        return collect(self.tool_result_turns(body))

    def last_user_text(self, body) -> str:
        """The text of the last user turn that has text (tool results, which some
        formats send as user turns, are passed over)."""
        try:
            for content in reversed(self.user_turns(body)):
                if isinstance(content, str):
                    return content
                texts = [b["text"] for b in content if isinstance(b, dict)
                         and isinstance(b.get("text"), str) and b.get("type", "text") == "text"]
                if texts:
                    return texts[0]
        except (*MALFORMED, IndexError):
            pass
        return ""

    # What a subclass reads; each may raise one of MALFORMED on a body in another format.
    def tool_call_turns(self, body) -> Iterable[list[dict]]:
        """The tool calls of each turn that has any, turn by turn."""
        raise NotImplementedError

    def tool_result_turns(self, body) -> Iterable[list[dict]]:
        """The tool results, a turn (or a result) at a time."""
        raise NotImplementedError

    def user_turns(self, body) -> list:
        """The content of every user turn: a string or a list of blocks/parts."""
        raise NotImplementedError


class EmbeddingWire(Wire):
    """An embedding endpoint: reads the texts, renders the vectors."""

    def texts(self, body) -> list[str]:
        """The texts the request asks embeddings for ([] when malformed)."""
        try:
            return self.input_texts(body)
        except MALFORMED:
            return []

    def input_texts(self, body) -> list[str]:
        raise NotImplementedError

    def render_vectors(self, vectors: list, texts: list[str], tokens: int | None,
                       model: str | None) -> dict:
        """The body a real provider sends with ``vectors`` for ``texts``."""
        raise NotImplementedError


def collect(turns: Iterable[list[dict]]) -> list[dict]:
    """Everything the turns hold, up to the first malformed one."""
    out: list[dict] = []
    try:
        for items in turns:
            out += items
    except MALFORMED:
        pass
    return out


def body_tools(body) -> list:
    """The request's ``tools`` list, or [] when it has none."""
    tools = body.get("tools") if isinstance(body, dict) else None
    return tools if isinstance(tools, list) else []


def content_text(content) -> str:
    """A tool result's content as text: a string, or text blocks and documents."""
    if isinstance(content, str):
        return content
    texts = []
    for b in content if isinstance(content, list) else []:
        if not isinstance(b, dict):
            continue
        if isinstance(b.get("text"), str):
            texts.append(b["text"])
        elif isinstance(b.get("document"), dict):
            data = b["document"].get("data")
            texts.append(data if isinstance(data, str) else json.dumps(data))
    return "".join(texts)
