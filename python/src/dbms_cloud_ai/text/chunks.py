"""Cutting content of any length into chunks that fit a model's context window.

The content is cut into ``n = ceil(L / T)`` chunks, L its length in characters
and T the target chunk size.  T comes from a token budget B (what is left of
the model's context window, or for a translation what its answer may hold) as
``T = floor(0.8 * 3 * B)``: three characters a token (safer than the usual
four for languages other than English) and 80 % so that each cut can move to a
natural boundary while no chunk exceeds ``3 * B``.  Cut i is looked for around
``i * L / n``: a blank line (paragraph) nearest to it, else a sentence end,
else a space, else it falls exactly there.

The text actions (actions.py) and the documents of vector indexes
(vector_indexes/sources.py) are cut here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .. import providers

# --- the model's limits ---------------------------------------------------------------------

CHARS_PER_TOKEN = 3        # conservative: English averages about 4
CHUNK_FILL = 0.8           # target chunk size / largest chunk size
PROMPT_RESERVE = 400       # tokens for the instructions around a chunk
MIN_CHUNK_TOKENS = 256     # a smaller budget is refused (22023)
DEFAULT_WINDOW = 8192      # a model not in the table
LOCAL_WINDOW = 4096        # an OpenAI-compatible server without provider (Ollama, vLLM, ...)


def context_window(attrs: dict) -> tuple[int, str]:
    """(tokens, where the figure comes from) for the profile's model."""
    if attrs.get("context_window"):
        return attrs["context_window"], "the context_window attribute"
    provider = providers.for_attributes(attrs)
    if attrs.get("provider") is None:
        return LOCAL_WINDOW, "the default for a server without provider (set context_window)"
    model = provider.model(attrs) or attrs.get("azure_deployment_name") or ""
    found = providers.context_window(model)
    if found is None:
        return DEFAULT_WINDOW, f"the default for an unknown model {model!r} (set context_window)"
    return found[0], f"the table entry for {found[1]}*"


# --- chunks ---------------------------------------------------------------------------------

_PARAGRAPH = re.compile(r"[ \t]*\n(?:[ \t]*\n)+[ \t]*")
_SENTENCE = re.compile(r"[.!?\u2026][\"'\u201d\u2019\u00bb)\]]*(\s+)"          # . ! ? then space
                       r"|[\u3002\uff01\uff1f][\u300d\u300f\u201d\u2019\uff09)]*(\s*)")  # CJK
_SPACE = re.compile(r"\s+")


@dataclass
class Chunk:
    text: str
    sep: str = ""        # the original text between this chunk and the next


def chunk_count(length: int, target: int) -> int:
    return max(1, math.ceil(length / target))


def _cuts(pattern, text, lo, hi, sentence=False):
    """(start, end) of each separator that lies within [lo, hi]."""
    for m in pattern.finditer(text, lo, hi):
        if sentence:
            g = 1 if m.group(1) is not None else 2
            yield m.start(g), m.end(g)
        else:
            yield m.start(), m.end()


def split(text: str, target: int) -> list[Chunk]:
    """Exactly ``chunk_count(len(text), target)`` chunks, none longer than
    ``max_chunk(target)``, cut at paragraphs, else sentences, else spaces.

    Cut i is looked for within ``slack`` of its ideal place i * L / n; the
    windows never overlap, and a chunk spans at most L / n + 2 * slack."""
    length = len(text)
    n = chunk_count(length, target)
    if n == 1:
        return [Chunk(text)]
    limit = max_chunk(target)
    per = length / n
    slack = max(0, int(min((limit - per) / 2, per / 2 - 1)) - 1)
    chunks, start = [], 0
    for i in range(1, n):
        ideal = round(i * per)
        lo, hi = max(start + 1, ideal - slack), min(length - 1, ideal + slack)
        cut = None
        for pattern, sentence in ((_PARAGRAPH, False), (_SENTENCE, True), (_SPACE, False)):
            found = [c for c in _cuts(pattern, text, lo, hi, sentence) if c[0] > start]
            if found:
                cut = min(found, key=lambda c: (abs(c[0] - ideal), c[0]))
                break
        if cut is None:
            cut = (ideal, ideal)
        chunks.append(Chunk(text[start:cut[0]], text[cut[0]:cut[1]]))
        start = cut[1]
    chunks.append(Chunk(text[start:]))
    return chunks


def max_chunk(target: int) -> int:
    return int(target / CHUNK_FILL)


def target_chars(budget_tokens: int) -> int:
    return int(budget_tokens * CHARS_PER_TOKEN * CHUNK_FILL)
