"""One model call: pick the provider, check egress, decrypt the key, POST, parse."""

from __future__ import annotations

import re
import time

from . import accounting, acl, budget, credentials, db, http, providers
from .errors import DcaError, InvalidParameter, ProviderTimeout
from .providers import ChatRequest, Completion

DEFAULT_HTTP_TIMEOUT = 120.0  # seconds for one call, retries included
DEFAULT_MAX_ATTEMPTS = 3
MAX_HTTP_TIMEOUT = 3600.0
DEFAULT_MAX_WAIT = 300.0      # the administrator's cap on any call's wait (set_max_wait)
DEADLINE_MARGIN = 0.25        # leave time for the server to report the error itself

_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"\s*([0-9.]+)\s*([a-z]*)\s*\Z")


def _seconds(value, default_unit):
    if not value:
        return None
    m = _DURATION.match(value.lower())
    if not m:
        return None
    unit = _UNITS.get(m.group(2) or default_unit)
    try:
        return float(m.group(1)) * unit if unit else None
    except ValueError:  # "." or "1.2.3"
        return None


# The time-budget settings: read alone by _budget, or as part of the one query
# a generate() call starts with (profiles.for_call).
SETTINGS_COLUMNS = """
           extract(epoch from pg_catalog.clock_timestamp() - pg_catalog.statement_timestamp())
               ::float8 as elapsed,
           pg_catalog.current_setting('statement_timeout') as st,
           pg_catalog.current_setting('dbms_cloud_ai.http_timeout', true) as ht,
           pg_catalog.current_setting('dbms_cloud_ai.http_max_attempts', true) as ma,
           pg_catalog.current_setting('dbms_cloud_ai.schema_context_tokens', true) as sct,
           pg_catalog.current_setting('transaction_read_only') as ro,
           pg_catalog.pg_current_xact_id_if_assigned()::text as xid,
           (select s.value from dbms_cloud_ai._admin_setting s where s.setting = 'max_wait') as mw"""
_SETTINGS = "select" + SETTINGS_COLUMNS


def _budget(plpy, row: dict | None = None) -> tuple[float, int]:
    """(deadline as time.monotonic(), max attempts) for a call starting now.

    The deadline is the smallest of dbms_cloud_ai.http_timeout, what is left
    of statement_timeout (counted from the start of the statement) and the
    administrator's max_wait, which no setting of the user's can raise."""
    if row is None:
        row = db.one(plpy, _SETTINGS)
    budget = DEFAULT_HTTP_TIMEOUT
    if row["ht"]:
        budget = _seconds(row["ht"], "s")
        if budget is None or not 0 < budget <= MAX_HTTP_TIMEOUT:
            raise InvalidParameter(
                f"invalid dbms_cloud_ai.http_timeout {row['ht']!r}",
                detail=f"Use a duration between 1ms and {MAX_HTTP_TIMEOUT:g}s, e.g. '30s' or 30.",
                hint="SET dbms_cloud_ai.http_timeout = '30s';")
    budget = min(budget, row.get("mw") or DEFAULT_MAX_WAIT)
    st = _seconds(row["st"], "ms")
    if st:
        budget = min(budget, st - row["elapsed"] - DEADLINE_MARGIN)
    attempts = DEFAULT_MAX_ATTEMPTS
    if row["ma"]:
        try:
            attempts = int(row["ma"])
        except ValueError:
            attempts = 0
        if not 1 <= attempts <= 10:
            raise InvalidParameter(f"invalid dbms_cloud_ai.http_max_attempts {row['ma']!r}",
                                   detail="Use a whole number from 1 to 10.",
                                   hint="SET dbms_cloud_ai.http_max_attempts = 3;")
    return time.monotonic() + budget, attempts


def chat(plpy, attrs: dict, messages: list[dict], ctx=None, *, purpose: str = "answer",
         prompt_version: str = "chat", tools: list[dict] | None = None) -> Completion:
    """One chat completion, recorded by ``accounting`` whether it succeeds or
    not.  ``ctx`` (profiles.CallContext) saves the lookups that the profile
    query already made.  ``purpose`` and ``prompt_version`` say what the
    request was for (answer, repair, explanation, ...) and which template.
    ``tools``: functions the model may ask for (``Completion.tool_calls``)."""
    provider = providers.for_attributes(attrs)
    req = ChatRequest(messages=messages, model=provider.model(attrs),
                      temperature=attrs.get("temperature"),
                      max_tokens=attrs.get("max_tokens", 1024),
                      stop=attrs.get("stop_tokens"), seed=attrs.get("seed"), tools=tools)
    url = provider.url(attrs, req)
    acl.check_egress(plpy, url, ctx.aces if ctx else None)
    budget.check(plpy, ctx, messages)
    key = None
    if attrs.get("credential_name"):
        key = credentials.api_key(plpy, attrs["credential_name"], ctx.credential if ctx else None)
    deadline, attempts = _budget(plpy, ctx.settings if ctx else None)
    if deadline <= time.monotonic():
        raise ProviderTimeout(f"no time left to call provider {provider.name}",
                              detail="statement_timeout has (almost) expired",
                              hint="Raise statement_timeout.")
    call_id = accounting.new_call_id()
    headers = {**provider.headers(key, attrs), provider.request_id_header: call_id}
    started = time.monotonic()
    try:
        reply = http.post_json(url, headers, provider.body(req, attrs),
                               provider=provider.name, deadline=deadline, max_attempts=attempts,
                               plpy=plpy)
        completion = provider.parse(reply.data, req)
    except (DcaError, plpy.SPIError) as e:  # SPIError: a cancel PostgreSQL raised while we waited
        accounting.record(provider=provider.name, model=req.model, purpose=purpose,
                          prompt_version=prompt_version, error=e,
                          latency_ms=(time.monotonic() - started) * 1000,
                          attempts=getattr(e, "attempts", 1), call_id=call_id)
        raise
    completion.extra.update(attempts=reply.attempts, latency_ms=reply.elapsed_ms)
    completion.extra["call_id"] = accounting.record(
        provider=provider.name, model=req.model, purpose=purpose, prompt_version=prompt_version,
        completion=completion, latency_ms=reply.elapsed_ms, attempts=reply.attempts,
        call_id=call_id)
    return completion


def set_max_wait(plpy, seconds) -> None:
    """Admin: the longest any call may wait on the network; NULL: the default."""
    acl.require_admin(plpy, "set_max_wait")
    if seconds is None:
        db.query(plpy, "delete from dbms_cloud_ai._admin_setting where setting = 'max_wait'")
        return
    if not 0 < seconds <= MAX_HTTP_TIMEOUT:
        raise InvalidParameter(f"invalid max_wait {seconds!r}",
                               detail=f"Use seconds above 0 and at most {MAX_HTTP_TIMEOUT:g}.",
                               hint="SELECT dbms_cloud_ai.set_max_wait(300);")
    db.query(plpy, """
        insert into dbms_cloud_ai._admin_setting (setting, value) values ('max_wait', $1)
        on conflict (setting) do update set value = excluded.value, modified = pg_catalog.now()""",
             ("float8",), (seconds,))
