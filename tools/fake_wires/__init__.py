"""The wire formats tools/fake_llm.py speaks, one object per wire, organised as
python/src/dbms_cloud_ai/providers/ is: base.py (Wire, ChatWire, EmbeddingWire
and the replies they render), one module per provider, and the registry below.

A wire is one endpoint's format: which request paths it serves, how it renders
a reply (a ChatWire: Answer and ToolCalls; an EmbeddingWire: Vectors), and what
it reads out of a request body (the model; for chat the tools offered, the tool
calls replayed, the tool results and the last user text; for embeddings the
texts).  What no wire serves, and a chat reply scripted for an embedding request
(or the reverse), is read and answered the OpenAI way (``chat_wire``,
``embedding_wire``).
"""

from __future__ import annotations

from .anthropic import AnthropicWire
from .base import Answer, ChatWire, EmbeddingWire, ToolCalls, Vectors, Wire
from .cohere import CohereEmbedWire, CohereWire
from .google import GoogleBatchEmbedWire, GoogleEmbedWire, GoogleWire
from .openai import OpenAIEmbeddingsWire, OpenAIWire

# By wire name.  A request's wire is the first here that serves its path: Google's
# chat wire takes any path containing ":generateContent", so it comes last.
WIRES: dict[str, Wire] = {w.name: w for w in (
    OpenAIWire(), OpenAIEmbeddingsWire(),
    AnthropicWire(),
    CohereWire(), CohereEmbedWire(),
    GoogleEmbedWire(), GoogleBatchEmbedWire(), GoogleWire(),
)}
UNKNOWN = "unknown"     # the wire of a path none serves


def wire_format(path: str) -> str:
    """The name of the wire that serves ``path``, or "unknown"."""
    return next((name for name, w in WIRES.items() if w.serves(path)), UNKNOWN)


def wire_named(name: str) -> Wire:
    """The wire of that name, else OpenAI's chat wire."""
    return WIRES.get(name) or WIRES["openai"]


def chat_wire(name: str) -> ChatWire:
    """The chat wire of that name, else OpenAI's."""
    w = WIRES.get(name)
    return w if isinstance(w, ChatWire) else WIRES["openai"]


def embedding_wire(name: str) -> EmbeddingWire:
    """The embedding wire of that name, else OpenAI's."""
    w = WIRES.get(name)
    return w if isinstance(w, EmbeddingWire) else WIRES["openai-embeddings"]


EMBEDDING_WIRES = tuple(name for name, w in WIRES.items() if isinstance(w, EmbeddingWire))

__all__ = [
    "EMBEDDING_WIRES",
    "UNKNOWN",
    "WIRES",
    "Answer",
    "AnthropicWire",
    "ChatWire",
    "CohereEmbedWire",
    "CohereWire",
    "EmbeddingWire",
    "GoogleBatchEmbedWire",
    "GoogleEmbedWire",
    "GoogleWire",
    "OpenAIEmbeddingsWire",
    "OpenAIWire",
    "ToolCalls",
    "Vectors",
    "Wire",
    "chat_wire",
    "embedding_wire",
    "wire_format",
    "wire_named",
]
