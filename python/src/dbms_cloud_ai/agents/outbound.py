"""Tools that send something out of the database: an HTTP tool (a POST of the
model's arguments to its endpoint) and a Slack notification tool (a message
posted with Slack's chat.postMessage).

Every request goes through model/http.py (one deadline, bounded reply, no
redirects, a cancel ends the wait) and only to a host the caller's host ACEs
allow (acl.check_egress, 42501 otherwise, before the credential is decrypted).
A credential's secret travels only as the Authorization bearer, over https or
to a loopback address (credentials.require_private_transport); it is masked in
errors and in the reply text the model gets, and never written to history (the
history keeps the model's arguments and the reply).  A request is sent once,
never retried: it may have acted before it failed.
"""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

from .. import acl, credentials, db, providers
from ..errors import DcaError, InvalidParameter
from ..model import http, timing

SLACK_SETTING = "slack_api_endpoint"
SLACK_DEFAULT = "https://slack.com/api"
MAX_REPLY = 64 * 1024         # the reply text the model gets at most
_STOPS = ("57014", "42501", "53400", "LL006")   # cancel, privilege, budget: end the run


class Failed(Exception):
    """The request did not succeed: the message goes back to the model."""


def endpoint(raw, what: str) -> str:
    """An HTTP tool's endpoint: an http(s) URL without user name, password or fragment."""
    url = str(raw or "").strip()
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname \
            or parts.username or parts.password or parts.fragment:
        raise InvalidParameter(f"{what}: tool_params.endpoint must be an http or https URL "
                               "without user name, password or fragment",
                               hint="Set it with dbms_cloud_ai_agent.set_attribute().")
    return url


def _deadline(plpy, limit: float) -> float:
    """The tool's deadline: agent_tool_timeout, within the statement's own
    (statement_timeout, http_timeout, the administrator's max_wait)."""
    end, _ = timing.deadline(plpy, None, "tool")
    return min(end, time.monotonic() + limit)


def _bearer(plpy, credential_name, url: str) -> tuple[dict, list[str]]:
    if not credential_name:
        return {}, []
    credentials.require_private_transport(url, credential_name)
    secret = credentials.api_key(plpy, credential_name)
    return {"authorization": f"Bearer {secret}"}, [secret]


def _post(plpy, url: str, credential_name, payload: bytes, content_type: str, what: str,
          limit: float) -> str:
    """POST ``payload`` to ``url`` as the caller allows; the reply text, secrets masked."""
    acl.check_egress(plpy, url)
    headers, secrets = _bearer(plpy, credential_name, url)
    try:
        doc = http.send(url, headers, payload, content_type=content_type,
                        deadline=_deadline(plpy, limit), what=what, plpy=plpy)
    except DcaError as e:
        if e.sqlstate in _STOPS:
            raise
        raise Failed(e.message + (f" ({e.detail})" if e.detail else "")) from None
    text = doc.content.decode("utf-8", errors="replace")
    for secret in secrets:
        text = text.replace(secret, http.REDACTED)
    return text


def http_tool(plpy, tool, args: dict, limit: float) -> str:
    """POST the model's arguments, a JSON object, to the tool's endpoint; the
    reply's text goes back to the model."""
    params = tool.attrs.get("tool_params") or {}
    what = f"tool {tool.name}"
    url = endpoint(params.get("endpoint"), what)
    body = json.dumps(args, ensure_ascii=False).encode()
    return _post(plpy, url, params.get("credential_name"), body, "application/json", what,
                 limit)[:MAX_REPLY]


def slack_base(plpy) -> str:
    row = db.one(plpy, "select url from dbms_cloud_ai._admin_endpoint where setting = $1",
                 ("text",), (SLACK_SETTING,))
    return row["url"] if row is not None else SLACK_DEFAULT


def set_slack_endpoint(plpy, url) -> None:
    """Admin: the base URL of Slack's Web API for every role's Slack tools (a proxy,
    a test server); NULL restores https://slack.com/api."""
    acl.require_admin(plpy, "set_slack_api_endpoint")
    if url is None:
        db.query(plpy, "delete from dbms_cloud_ai._admin_endpoint where setting = $1",
                 ("text",), (SLACK_SETTING,))
        return
    db.query(plpy, """
        insert into dbms_cloud_ai._admin_endpoint (setting, url) values ($1, $2)
        on conflict (setting) do update set url = excluded.url, modified = pg_catalog.now()""",
             ("text", "text"), (SLACK_SETTING, providers.endpoint_url(url)))


def message(args: dict) -> str:
    text = args.get("message")
    if not isinstance(text, str):
        text = next((v for v in args.values() if isinstance(v, str) and v.strip()), None)
    if not text or not text.strip():
        raise Failed("missing argument: message (the text to send)")
    return text


def slack_tool(plpy, tool, args: dict, limit: float) -> str:
    """Post the model's message to the tool's channel with chat.postMessage
    (its credential's password is the bot token)."""
    params = tool.attrs.get("tool_params") or {}
    what = f"tool {tool.name}"
    channel = params.get("channel")
    if not channel:
        raise InvalidParameter(f"{what}: a Slack notification tool needs tool_params.channel",
                               hint="Set it with dbms_cloud_ai_agent.set_attribute().")
    url = slack_base(plpy).rstrip("/") + "/chat.postMessage"
    body = json.dumps({"channel": channel, "text": message(args)}, ensure_ascii=False).encode()
    text = _post(plpy, url, params.get("credential_name"), body,
                 "application/json; charset=utf-8", what, limit)
    try:
        reply = json.loads(text)
    except ValueError:
        reply = None
    if not isinstance(reply, dict) or reply.get("ok") is not True:
        why = reply.get("error") if isinstance(reply, dict) else text[:200]
        raise Failed(f"Slack did not post the message: {str(why)[:200]}")
    return f"message sent to Slack channel {channel}"
