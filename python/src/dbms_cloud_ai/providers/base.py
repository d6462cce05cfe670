"""What every provider adapter provides: URL, headers, request body, reply parsing."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, replace
from urllib.parse import urlsplit

from .. import jsontext
from ..errors import FeatureNotSupported, InvalidParameter, ProviderBadResponse


@dataclass
class ChatRequest:
    """A provider-neutral chat call; messages use roles system, user and assistant.

    With tool calling, ``tools`` lists ``{"name", "description", "parameters"}``
    (parameters: a JSON schema object), and messages may also be

    * an assistant turn that asked for tools:
      ``{"role": "assistant", "content": str | None, "tool_calls": [{"id", "name", "arguments"}]}``
    * a tool result: ``{"role": "tool", "tool_call_id", "name", "content": <JSON text>}``

    which each adapter translates into its provider's own format."""

    messages: list[dict]
    model: str | None = None
    temperature: float | None = None
    max_tokens: int = 1024
    stop: list[str] | None = None
    seed: int | None = None
    tools: list[dict] | None = None


@dataclass
class Embedding:
    """One text's embedding as the provider returned it (not normalised)."""

    vector: list[float]
    model: str | None
    input_tokens: int | None = None     # None: the provider did not say


@dataclass
class Completion:
    """A reply.  ``tool_calls``: ``{"id", "name", "arguments": dict}`` the model
    asked for (``text`` is then often "")."""

    text: str
    model: str
    input_tokens: int
    output_tokens: int
    tokens_estimated: bool = False
    finish_reason: str | None = None
    extra: dict = field(default_factory=dict)
    tool_calls: list[dict] = field(default_factory=list)


class Provider:
    name = "?"
    default_base = ""           # scheme://host[/prefix]
    default_model: str | None = None
    default_embedding_model: str | None = None   # sent when the profile names none (oci)
    needs_key = True
    # The deployment, not a model attribute, names the model (Azure OpenAI): a
    # profile without "model" still has one.
    model_from_deployment = False
    # Sent with every attempt of one logical call, its value the call_id that
    # user_cloud_ai_calls shows, so a provider's logs can be matched to our
    # rows.  OpenAI documents X-Client-Request-Id; providers that document
    # none get the same header (unknown headers are ignored).
    request_id_header = "x-client-request-id"
    # Its API hosts: reachable over HTTPS without a host ACE (acl.py).  Oracle
    # requires an ACE for every non-OCI host; we pre-approve the providers' own.
    api_hosts: tuple[str, ...] = ()
    api_host_suffixes: tuple[str, ...] = ()
    context_windows: dict[str, int] = {}

    def check(self, attrs: dict) -> None:
        """Cross-attribute checks made when a profile is created or changed."""

    def check_chat(self, attrs: dict) -> None:
        """Checks made before a chat request (a profile may be made to embed only)."""

    def model(self, attrs: dict) -> str | None:
        return attrs.get("model") or self.default_model

    def base_url(self, attrs: dict) -> str:
        endpoint = attrs.get("provider_endpoint")
        return endpoint_url(endpoint) if endpoint else self.default_base

    def url(self, attrs: dict, req: ChatRequest) -> str:
        raise NotImplementedError

    def headers(self, api_key: str | None, attrs: dict) -> dict:
        raise NotImplementedError

    def body(self, req: ChatRequest, attrs: dict) -> dict:
        raise NotImplementedError

    def parse(self, data, req: ChatRequest) -> Completion:
        raise NotImplementedError

    # --- embeddings (feedback examples) ---------------------------------------
    # A provider with an embedding API overrides embedding_url, embedding_body
    # and parse_embedding; the others refuse with 0A000.

    def embedding_url(self, attrs: dict, model: str) -> str:
        raise FeatureNotSupported(
            f"provider {self.name} has no embedding API",
            detail="Embeddings are available with openai, azure, cohere, google and "
                   "OpenAI-compatible endpoints (provider_endpoint without provider).",
            hint="Remove embedding_model from the profile with "
                 "dbms_cloud_ai.set_attribute(profile_name, 'embedding_model', NULL): "
                 "examples are then found by full-text search.")

    def embedding_headers(self, api_key: str | None, attrs: dict) -> dict:
        return self.headers(api_key, attrs)

    def embedding_body(self, text: str, model: str, attrs: dict) -> dict:
        raise NotImplementedError

    def parse_embedding(self, data, model: str) -> Embedding:
        raise NotImplementedError

    def bad_embedding(self, why: str) -> ProviderBadResponse:
        return ProviderBadResponse(
            f"provider {self.name} returned an unexpected embedding response: {why}", status=200,
            detail="HTTP 200 with a body that does not match the provider's embedding format",
            hint="Check that embedding_model names an embedding model of this provider.")

    def bad(self, why: str) -> ProviderBadResponse:
        return ProviderBadResponse(
            f"provider {self.name} returned an unexpected response: {why}", status=200,
            detail="HTTP 200 with a body that does not match the provider's chat format",
            hint="Check that provider and provider_endpoint point at the same kind of API.")


def endpoint_url(endpoint: str) -> str:
    """Oracle gives provider_endpoint as a bare host ('api.fireworks.ai/inference');
    a full URL is accepted too.  Returns scheme://host[:port][/path] without a
    trailing slash."""
    e = endpoint.strip()
    if "://" not in e:
        e = "https://" + e
    parts = urlsplit(e)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InvalidParameter(
            f"provider_endpoint {endpoint!r} is not a host name or http(s) URL",
            hint="Use a host such as 'api.example.com' or a URL such as 'http://127.0.0.1:11434'.")
    if parts.query or parts.fragment or parts.username or parts.password:
        raise InvalidParameter(
            f"provider_endpoint {endpoint!r} must not contain credentials, a query or a fragment",
            hint="Store API keys with dbms_cloud.create_credential and name them in credential_name.")
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def join_api_path(base: str, version_prefix: str, tail: str) -> str:
    """Append ``version_prefix + tail`` unless the base already ends with it."""
    path = urlsplit(base).path
    if path.endswith(tail):
        return base
    last = path.rsplit("/", 1)[-1]
    if (last.startswith("v") and last[1:2].isdigit()) or last == "openai":
        return base + tail
    return base + version_prefix + tail


def as_dict(value) -> dict:
    """A reply's sub-object, or {} when the provider sent something else there."""
    return value if isinstance(value, dict) else {}


def as_text(value) -> str | None:
    return value if isinstance(value, str) else None


def float_vector(value) -> list[float] | None:
    """A JSON array of numbers as floats, or None when it is anything else."""
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
               for x in value):
        return None
    return [float(x) for x in value]


def is_tool_turn(m: dict) -> bool:
    """A message only tool calling produces: a tool result, or an assistant
    turn that asked for tools."""
    return m.get("role") == "tool" or (m.get("role") == "assistant" and bool(m.get("tool_calls")))


def tool_declaration(tool: dict) -> tuple[str, str, dict]:
    """A neutral tool's name, description and JSON-schema parameters."""
    params = tool.get("parameters")
    return (tool["name"], tool.get("description") or "",
            params if isinstance(params, dict) else {"type": "object", "properties": {}})


def tool_arguments(raw) -> dict:
    """A tool call's arguments as an object.  A JSON text is parsed; anything
    that is not (or does not parse into) an object is {}: the caller validates."""
    if isinstance(raw, str):
        try:
            raw = jsontext.loads(raw)
        except ValueError:
            return {}
    return raw if isinstance(raw, dict) else {}


def estimate_tokens(text: str) -> int:
    """About four characters a token, the usual rule of thumb for English text."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


def _message_text(m: dict) -> str:
    """A message's text for estimates: its content, or the JSON of anything else."""
    content = m.get("content")
    text = content if isinstance(content, str) else "" if content is None else _json(content)
    if m.get("tool_calls"):
        text += _json(m["tool_calls"])
    return text


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def usage_or_estimate(req: ChatRequest, text: str, inp, out, tool_calls=None):
    if isinstance(inp, int) and isinstance(out, int):
        return inp, out, False
    prompt_chars = "".join(_message_text(m) for m in req.messages)
    if req.tools:
        prompt_chars += _json(req.tools)
    if tool_calls:
        text = (text or "") + _json(tool_calls)
    return estimate_tokens(prompt_chars), estimate_tokens(text or ""), True


_TOOL_CALL_TAG = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_FENCED = re.compile(r"```(?:json)?\s*(\{.*\})\s*```", re.S)


def tool_calls_in_text(text: str, tools: list[dict]) -> list[dict]:
    """Tool calls an open model wrote as its whole answer's text instead of in
    ``tool_calls`` (Qwen and Hermes templates: ``<tool_call>{"name": ...,
    "arguments": {...}}</tool_call>``, or that JSON object alone, or in a ```json
    fence as Qwen2.5-Coder writes it, or in doubled braces), as llama.cpp's servers return them without a
    tool-call parser, and as a gateway passes them on in any wire (Anthropic's text
    block, Gemini's text part).  Only when the text is nothing else and every call
    names an offered tool; otherwise it is text."""
    body = text.strip()
    fenced = _FENCED.fullmatch(body)
    if fenced:
        body = fenced.group(1)
    blocks = _TOOL_CALL_TAG.findall(body)
    if blocks:
        if _TOOL_CALL_TAG.sub("", body).strip():
            return []
    elif body.startswith("{") and body.endswith("}"):
        blocks = [body]
    else:
        return []
    offered = {tool_declaration(t)[0] for t in tools}
    calls = []
    for i, block in enumerate(blocks):
        try:
            call = jsontext.loads(block)
        except ValueError:
            # A small model that saw its template's doubled braces writes {{"name": ...}}.
            if not (block.startswith("{{") and block.endswith("}}")):
                return []
            try:
                call = jsontext.loads(block[1:-1])
            except ValueError:
                return []
        if not isinstance(call, dict) or set(call) - {"name", "arguments"} \
                or call.get("name") not in offered:
            return []
        calls.append({"id": f"call_{i}", "name": call["name"],
                      "arguments": tool_arguments(call.get("arguments"))})
    return calls


def with_written_tool_calls(completion: Completion, req: ChatRequest) -> Completion:
    """``completion`` with the tool calls its text holds (tool_calls_in_text), for
    every wire: the adapters parse only their format's own tool-call fields."""
    if req.tools and not completion.tool_calls and completion.text:
        calls = tool_calls_in_text(completion.text, req.tools)
        if calls:
            return replace(completion, text="", tool_calls=calls)
    return completion
