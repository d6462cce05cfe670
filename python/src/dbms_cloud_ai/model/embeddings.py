"""Embeddings, for finding feedback examples and long-term memories by meaning.

A profile with ``embedding_model`` embeds each example's question when the
example is stored (feedback, rating) and the new question when examples are
looked up; likewise each memory's fact when promotion stores it
(memory/jobs.py) and the question or tool query that recalls memories
(memory/recall.py).  One request per text, through the provider's embedding API
(OpenAI, Azure and OpenAI-compatible ``/v1/embeddings``, Cohere ``/v2/embed``,
Google ``:embedContent``); providers without one refuse with 0A000.

Every request is recorded by ``accounting`` (purpose ``embedding``) like a
chat call, and counts against token budgets.  Vectors are normalised to unit
length before they are stored, so cosine similarity is a dot product.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import providers
from ..errors import DcaError
from ..providers import Completion
from ..providers.base import estimate_tokens
from . import llm, oci_route

PROMPT_VERSION = "embedding"
# Two questions are alike from this cosine similarity on (an example's question
# and the new one).
MIN_COSINE = 0.6
# A question and a statement of the user's are further apart than two questions
# even when one answers the other.  Measured with all-MiniLM-L6-v2 (the local
# embedding server): "What pet do I have?" / "my dog is called Pixel" 0.54,
# "where do I live" / "I live in Lisbon" 0.49, a question and an unrelated fact
# of the same user at most 0.34 (docs/reference/memory.md).
MIN_FACT_COSINE = 0.4


def cosine_sql(stored: str, query: str) -> str:
    """SQL for the cosine similarity of two unit vectors (float4[] expressions):
    their dot product, NULL when their lengths differ (another model's).  The
    products are float8: all-MiniLM-L6-v2 puts components near 1e-33 at fixed
    places, whose float4 product underflows, and PostgreSQL raises 22003 for that."""
    return (f"case when pg_catalog.cardinality({stored}) = pg_catalog.cardinality({query}) "
            f"then (select pg_catalog.sum(a::float8 * b::float8) from rows from (pg_catalog.unnest({stored}), "
            f"pg_catalog.unnest({query})) t(a, b)) end::float8")


@dataclass
class Vector:
    values: list[float]   # unit length
    model: str            # the profile's embedding_model (what stored vectors are keyed by)


def model_of(attrs: dict) -> str | None:
    """The profile's embedding model (oci: Oracle's default), or None: examples
    are then found by full text."""
    provider = providers.PROVIDERS.get(attrs.get("provider"))
    return attrs.get("embedding_model") or (provider and provider.default_embedding_model) or None


def supported(attrs: dict) -> bool:
    """Whether the profile's provider has an embedding API (oci: its routed
    endpoint's, which model/oci_route.py finds or refuses at the call)."""
    if attrs.get("provider") == "oci":
        return True
    provider = providers.for_attributes(attrs)
    try:
        provider.embedding_url(attrs, model_of(attrs) or "x")
    except DcaError:
        return False
    return True


def embed(plpy, attrs: dict, text: str, ctx=None) -> Vector:
    """The unit-length embedding of ``text`` with the profile's embedding_model."""
    model = model_of(attrs)
    attrs = oci_route.routed(plpy, attrs, ctx.profile.name if ctx else None)
    provider = providers.for_attributes(attrs)
    url = provider.embedding_url(attrs, model)       # 0A000 for providers without one

    def accounted(emb) -> Completion:
        tokens = emb.input_tokens
        return Completion(text="", model=emb.model or model,
                          input_tokens=tokens if tokens is not None else estimate_tokens(text),
                          output_tokens=0, tokens_estimated=tokens is None)
    emb, _ = llm.send(plpy, ctx, attrs, provider, url=url,
                      headers=lambda key: provider.embedding_headers(key, attrs),
                      body=provider.embedding_body(text, model, attrs), sent=[{"content": text}],
                      model=model, purpose="embedding", prompt_version=PROMPT_VERSION,
                      parse=lambda data: provider.parse_embedding(data, model),
                      accounted=accounted)
    norm = math.sqrt(sum(x * x for x in emb.vector))
    if norm == 0:
        raise provider.bad_embedding("the embedding is all zeros")
    return Vector([x / norm for x in emb.vector], model)
