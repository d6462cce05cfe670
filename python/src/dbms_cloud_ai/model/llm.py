"""One model call: pick the provider, check egress, decrypt the key, POST, parse."""

from __future__ import annotations

import time

from .. import acl, credentials, providers
from ..errors import DcaError
from ..providers import ChatRequest, Completion
from ..providers.base import with_written_tool_calls
from . import accounting, budget, http, oci_route, timing


def chat(plpy, attrs: dict, messages: list[dict], ctx=None, *, purpose: str = "answer",
         prompt_version: str = "chat", tools: list[dict] | None = None) -> Completion:
    """One chat completion, recorded by ``accounting`` whether it succeeds or
    not.  ``ctx`` (profiles.CallContext) saves the lookups that the profile
    query already made.  ``purpose`` and ``prompt_version`` say what the
    request was for (answer, repair, explanation, ...) and which template.
    ``tools``: functions the model may ask for (``Completion.tool_calls``)."""
    attrs = oci_route.routed(plpy, attrs, ctx.profile.name if ctx else None)
    provider = providers.for_attributes(attrs)
    provider.check_chat(attrs)
    req = ChatRequest(messages=messages, model=provider.model(attrs),
                      temperature=attrs.get("temperature"),
                      max_tokens=attrs.get("max_tokens", 1024),
                      stop=attrs.get("stop_tokens"), seed=attrs.get("seed"), tools=tools)
    completion, _ = send(plpy, ctx, attrs, provider, url=provider.url(attrs, req),
                         headers=lambda key: provider.headers(key, attrs),
                         body=provider.body(req, attrs), sent=messages, model=req.model,
                         purpose=purpose, prompt_version=prompt_version,
                         parse=lambda data: with_written_tool_calls(provider.parse(data, req), req),
                         accounted=lambda c: c)
    return completion


def send(plpy, ctx, attrs: dict, provider, *, url: str, headers, body: dict, sent: list[dict],
         model: str | None, purpose: str, prompt_version: str, parse, accounted):
    """One request to a model provider (a chat completion, an embedding), set up
    and accounted alike: the host ACL before anything is sent, the daily token
    budget (``sent``: the messages it counts), the API key, what is left of the
    time budget (timing.deadline), a call id header; then the call is recorded
    (``accounted(result)``: its Completion) whether it succeeds or not.
    Returns (parse(reply), the recorded Completion)."""
    acl.check_egress(plpy, url, ctx.aces if ctx else None)
    budget.check(plpy, ctx, sent)
    key = None
    if attrs.get("credential_name"):
        credentials.require_private_transport(url, attrs["credential_name"])
        key = credentials.api_key(plpy, attrs["credential_name"], ctx.credential if ctx else None,
                                  ctx.owner if ctx else None, oci_key_ok=provider.name == "oci")
    deadline, attempts = timing.deadline(plpy, ctx.settings if ctx else None, provider.name)
    call_id = accounting.new_call_id()
    started = time.monotonic()
    try:
        reply = http.post_json(url, {**headers(key), provider.request_id_header: call_id}, body,
                               provider=provider.name, deadline=deadline, max_attempts=attempts,
                               plpy=plpy)
        result = parse(reply.data)
    except (DcaError, plpy.SPIError) as e:  # SPIError: a cancel PostgreSQL raised while we waited
        accounting.record(provider=provider.name, model=model, purpose=purpose,
                          prompt_version=prompt_version, error=e,
                          latency_ms=(time.monotonic() - started) * 1000,
                          attempts=getattr(e, "attempts", 1), call_id=call_id)
        raise
    completion = accounted(result)
    completion.extra.update(attempts=reply.attempts, latency_ms=reply.elapsed_ms)
    completion.extra["call_id"] = accounting.record(
        provider=provider.name, model=model, purpose=purpose, prompt_version=prompt_version,
        completion=completion, latency_ms=reply.elapsed_ms, attempts=reply.attempts,
        call_id=call_id)
    return result, completion
