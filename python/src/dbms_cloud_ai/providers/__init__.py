"""Provider adapters by Oracle's provider name."""

from __future__ import annotations

import re

from .anthropic import Anthropic
from .base import ChatRequest, Completion, Embedding, Provider, endpoint_url
from .cohere import Cohere
from .google import Google
from .oci import OCI
from .openai import Azure, HuggingFace, OpenAI, OpenAICompatible

PROVIDERS: dict[str, Provider] = {
    p.name: p for p in (OpenAI(), Azure(), Anthropic(), Cohere(), Google(), HuggingFace(), OCI())
}
COMPATIBLE = OpenAICompatible()

UNSUPPORTED = {
    "aws": "AWS Bedrock needs SigV4 request signing, which this version does not implement.",
    "database": "In-database ONNX models exist only in Oracle Database.",
}

_ALL = (*PROVIDERS.values(), COMPATIBLE)
# Hosts reachable over HTTPS without a host ACE: each provider's own (Provider.api_hosts).
WELL_KNOWN_HOSTS = tuple(sorted({h for p in _ALL for h in p.api_hosts}))
WELL_KNOWN_SUFFIXES = tuple(sorted({h for p in _ALL for h in p.api_host_suffixes}))
# Every provider's context windows by model name prefix.
CONTEXT_WINDOWS = {k: v for p in _ALL for k, v in p.context_windows.items()}
# Oracle's model names may carry the vendor ("meta.llama-3.3-70b-instruct").
_VENDOR = re.compile(r"(meta|cohere|openai|google|xai|mistral|mistralai|anthropic)\.")


def context_window(model: str) -> tuple[int, str] | None:
    """(tokens, the matching prefix) for a model name; the longest prefix wins."""
    key = model.strip().lower().rsplit("/", 1)[-1]
    key = _VENDOR.sub("", key, count=1) if _VENDOR.match(key) else key
    best = max((p for p in CONTEXT_WINDOWS if key.startswith(p)), key=len, default=None)
    return (CONTEXT_WINDOWS[best], best) if best is not None else None


def for_attributes(attrs: dict) -> Provider:
    name = attrs.get("provider")
    if name is None:
        return COMPATIBLE
    return PROVIDERS[name]


__all__ = [
    "COMPATIBLE",
    "CONTEXT_WINDOWS",
    "PROVIDERS",
    "UNSUPPORTED",
    "WELL_KNOWN_HOSTS",
    "WELL_KNOWN_SUFFIXES",
    "ChatRequest",
    "Completion",
    "Embedding",
    "Provider",
    "context_window",
    "endpoint_url",
    "for_attributes",
]
