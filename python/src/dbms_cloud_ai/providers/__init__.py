"""Provider adapters by Oracle's provider name."""

from __future__ import annotations

from .anthropic import Anthropic
from .base import ChatRequest, Completion, Embedding, Provider, endpoint_url
from .cohere import Cohere
from .google import Google
from .openai import Azure, HuggingFace, OpenAI, OpenAICompatible

PROVIDERS: dict[str, Provider] = {
    p.name: p for p in (OpenAI(), Azure(), Anthropic(), Cohere(), Google(), HuggingFace())
}
COMPATIBLE = OpenAICompatible()

UNSUPPORTED = {
    "oci": "OCI Generative AI needs OCI request signing and resource principals, "
           "which exist only inside Oracle Cloud.",
    "aws": "AWS Bedrock needs SigV4 request signing, which this version does not implement.",
    "database": "In-database ONNX models exist only in Oracle Database.",
}

# Hosts reachable over HTTPS without a host ACE (Oracle requires an ACE for
# every non-OCI host; we pre-approve the providers' own API hosts).
WELL_KNOWN_HOSTS = ("api.openai.com", "api.anthropic.com", "api.cohere.com", "api.cohere.ai",
                    "generativelanguage.googleapis.com", "router.huggingface.co",
                    "api-inference.huggingface.co")
WELL_KNOWN_SUFFIXES = (".openai.azure.com",)


def for_attributes(attrs: dict) -> Provider:
    name = attrs.get("provider")
    if name is None:
        return COMPATIBLE
    return PROVIDERS[name]


__all__ = [
    "COMPATIBLE",
    "PROVIDERS",
    "UNSUPPORTED",
    "WELL_KNOWN_HOSTS",
    "WELL_KNOWN_SUFFIXES",
    "ChatRequest",
    "Completion",
    "Embedding",
    "Provider",
    "endpoint_url",
    "for_attributes",
]
