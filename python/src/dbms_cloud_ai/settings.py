"""The one table of the extension's settings, and how their values are read.

A user or a DBA changes these with ``SET`` (or ``ALTER ROLE ... SET``); the
extension reads them with ``current_setting(name, true)`` in the query a call
already makes, and parses the text here: one place for the type, the range,
the default and the hint of each, like ``errors.SQLSTATES`` for errors.
docs/reference/settings.md lists the same rows (a test compares them).

Durations take PostgreSQL's units (us, ms, s, min, h, d); a bare number is in
the setting's own unit, as for PostgreSQL's own settings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import InvalidParameter


@dataclass(frozen=True)
class Setting:
    name: str
    kind: str                       # "integer", "duration" (seconds once read) or "text"
    default: object                 # what an unset or empty setting means
    low: float | None = None        # the range, both ends included
    high: float | None = None
    unit: str = ""                  # a duration's unit when the value has none
    example: str = ""               # the value shown in the hint
    what: str = ""

    @property
    def default_text(self) -> str:
        if self.default is None:
            return "unset"
        return _duration(self.default) if self.kind == "duration" else str(self.default)

    @property
    def range(self) -> str:
        if self.kind == "text":
            return ""
        if self.kind == "duration":
            high = "no limit" if self.high is None else _duration(self.high)
            return f"{_duration(self.low)} to {high}"
        return f"{self.low} to {self.high}"


_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"\s*([0-9.]+)\s*([a-z]*)\s*\Z")


def _duration(seconds: float) -> str:
    for unit in ("d", "h", "min", "s", "ms"):
        if seconds >= _UNITS[unit] and (seconds / _UNITS[unit]).is_integer():
            return f"{seconds / _UNITS[unit]:g}{unit}"
    return f"{seconds:g}s"


SETTINGS = {s.name: s for s in (
    Setting("dbms_cloud_ai.http_timeout", "duration", 120.0, 0.001, 3600.0, "s", "'30s'",
            "the longest one model call may take, retries included"),
    Setting("dbms_cloud_ai.memory_job_timeout", "duration", 20.0, 0.001, 3600.0, "s", "'20s'",
            "the longest one model call of a memory job may take (the runner's session)"),
    Setting("dbms_cloud_ai.http_max_attempts", "integer", 3, 1, 10, example="3",
            what="attempts of one model call (timeouts, 429 and 5xx are retried)"),
    Setting("dbms_cloud_ai.schema_context_tokens", "integer", 12_000, 100, 1_000_000,
            example="12000", what="how much of the schema NL2SQL describes to the model"),
    Setting("dbms_cloud_ai.max_text_calls", "integer", 50, 1, 100_000, example="50",
            what="model calls one summarize or translate may make (long texts)"),
    Setting("dbms_cloud_ai.max_rows", "integer", 1000, 1, 1_000_000, example="1000",
            what="rows runsql and narrate return from generated SQL"),
    Setting("dbms_cloud_ai.max_result_bytes", "integer", 1 << 20, 1, 256 << 20,
            example="1048576", what="bytes of rows runsql and narrate return"),
    Setting("dbms_cloud_ai.max_statement_timeout", "duration", 300.0, 0.001, None, "ms",
            "'5min'", "the highest statement_timeout under which generated SQL runs"),
    Setting("dbms_cloud_ai.profile_name", "text", None,
            what="the session's AI profile (set by dbms_cloud_ai.set_profile)"),
    Setting("dbms_cloud_ai.profile_owner", "text", None,
            what="the owner of the session's AI profile when it is shared (set by set_profile)"),
    Setting("dbms_cloud_ai.conversation_id", "text", None,
            what="the session's conversation (set by dbms_cloud_ai.set_conversation_id)"),
    Setting("dbms_cloud_ai.end_user", "text", None,
            what="the end user a trusted gateway vouches for (set by dbms_cloud_ai.set_end_user)"),
    Setting("dbms_cloud_ai.agent_team", "text", None,
            what="the session's Select AI Agent team (set by dbms_cloud_ai_agent.set_team)"),
    Setting("dbms_cloud_ai.agent_max_steps", "integer", 10, 1, 1000, example="10",
            what="model requests one task of a team run may make before it must answer"),
    Setting("dbms_cloud_ai.agent_max_tool_calls", "integer", 50, 1, 100_000, example="50",
            what="tool calls one team run may make"),
    Setting("dbms_cloud_ai.agent_max_tokens", "integer", 200_000, 1, 100_000_000,
            example="200000", what="tokens the model requests of one team run may use"),
    Setting("dbms_cloud_ai.agent_timeout", "duration", 600.0, 0.001, 86400.0, "s", "'10min'",
            "the longest one team run may take (checked before each model request and tool call)"),
    Setting("dbms_cloud_ai.agent_tool_timeout", "duration", 30.0, 0.001, 3600.0, "s", "'30s'",
            "the statement_timeout a function tool runs under"),
    Setting("dbms_cloud_ai.agent_condense_tokens", "integer", 8000, 100, 1_000_000,
            example="8000", what="tokens (estimated) of one task's tool calls and results in a team "
            "run past which the older ones are condensed"),
)}


def for_grantee(name: str, value, shared: bool):
    """A setting that multiplies what a call costs, for a grantee of a shared
    profile (``shared``): at most its default, whatever the grantee's session
    says (the owner's key pays; issue 30, class 5).  Clamped, not refused: the
    session's value stays right for the grantee's own profiles."""
    return min(value, SETTINGS[name].default) if shared else value


GRANTEE_CAPPED = ("dbms_cloud_ai.schema_context_tokens", "dbms_cloud_ai.max_text_calls")


def seconds(raw: str | None, default_unit: str) -> float | None:
    """A PostgreSQL duration ('30s', '5min', '1500' in ``default_unit``) in
    seconds; None when empty or not a duration."""
    if not raw:
        return None
    m = _DURATION.match(raw.lower())
    if not m:
        return None
    unit = _UNITS.get(m.group(2) or default_unit)
    try:
        return float(m.group(1)) * unit if unit else None
    except ValueError:  # "." or "1.2.3"
        return None


def value(name: str, raw: str | None):
    """The setting ``name`` whose current text is ``raw``: its default when
    unset or empty, else the parsed value; 22023 naming it when out of range."""
    s = SETTINGS[name]
    if raw is None or not raw.strip() or s.kind == "text":
        return s.default if raw is None or not raw.strip() else raw
    if s.kind == "duration":
        parsed = seconds(raw, s.unit)
        ok = parsed is not None and s.low <= parsed and (s.high is None or parsed <= s.high)
    else:
        try:
            parsed = int(raw.strip())
        except ValueError:
            parsed = None
        ok = parsed is not None and s.low <= parsed <= s.high
    if not ok:
        what = "a duration" if s.kind == "duration" else "a whole number"
        raise InvalidParameter(f"invalid {name} {raw!r}",
                               detail=f"Use {what} from {s.range}.",
                               hint=f"SET {name} = {s.example};")
    return parsed
