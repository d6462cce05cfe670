"""How long the next model call may wait: one function, computed before every call.

A call's wait is bounded by dbms_cloud_ai.http_timeout, by the administrator's
max_wait (set_max_wait: no setting of the user's raises it), and by what is
left of statement_timeout, which PostgreSQL counts from the start of the
statement.  The settings are read once per statement (in the query a call
starts with: profiles.for_call) and stamped with the moment they were read, so
the statement's share is recomputed from the clock before every later request
of the same statement (a repair, a tool round, a summary, a narration): no
request gets the whole statement_timeout again, and none overruns it, which
would lose the answer to PostgreSQL's cancel (57014) instead of a clean
ProviderTimeout (LL001) while there is still time to report it.

A background call (a memory job's extraction and embeddings: ``background``
set in the stamped settings by memory/jobs.py) is further bounded by
dbms_cloud_ai.memory_job_timeout, which the runner's session sets (default
20 s, far below an interactive call's 2 min): one tenant's slow model cannot
hold the runner, and every other tenant's promotion, for long.
"""

from __future__ import annotations

import time

from .. import acl, db, settings
from ..errors import InvalidParameter, ProviderTimeout

DEFAULT_MAX_WAIT = 300.0      # the administrator's cap on any call's wait (set_max_wait)
MAX_WAIT_LIMIT = 3600.0
DEADLINE_MARGIN = 0.25        # leave time for the server to report the error itself

# The settings a call reads with its first query (profiles.for_call) or alone (read).
SETTINGS_COLUMNS = """
           extract(epoch from pg_catalog.clock_timestamp() - pg_catalog.statement_timestamp())
               ::float8 as elapsed,
           pg_catalog.current_setting('statement_timeout') as st,
           pg_catalog.current_setting('dbms_cloud_ai.http_timeout', true) as ht,
           pg_catalog.current_setting('dbms_cloud_ai.http_max_attempts', true) as ma,
           pg_catalog.current_setting('dbms_cloud_ai.schema_context_tokens', true) as sct,
           pg_catalog.current_setting('dbms_cloud_ai.memory_job_timeout', true) as bt,
           pg_catalog.current_setting('transaction_read_only') as ro,
           pg_catalog.pg_current_xact_id_if_assigned()::text as xid,
           (select s.value from dbms_cloud_ai._admin_setting s where s.setting = 'max_wait') as mw,
           coalesce((select d.enabled from dbms_cloud_ai._data_access d), true) as data_access"""
KEYS = ("elapsed", "st", "ht", "ma", "sct", "bt", "ro", "xid", "mw", "data_access")
_READ = "select" + SETTINGS_COLUMNS


def stamped(row) -> dict:
    """The settings of ``row`` (a query's result with SETTINGS_COLUMNS), with the
    moment they were read."""
    out = {k: row[k] for k in KEYS}
    out["read_at"] = time.monotonic()
    return out


def read(plpy) -> dict:
    return stamped(db.one(plpy, _READ))


def deadline(plpy, row: dict | None, provider: str) -> tuple[float, int]:
    """(deadline as time.monotonic(), max attempts) for a request starting now,
    from the statement's settings (``row``: read, or stamped; None reads them).
    ProviderTimeout when statement_timeout leaves no time for it."""
    if row is None:
        row = read(plpy)
    now = time.monotonic()
    wait = min(settings.value("dbms_cloud_ai.http_timeout", row["ht"]),
               row.get("mw") or DEFAULT_MAX_WAIT)
    if row.get("background"):
        wait = min(wait, settings.value("dbms_cloud_ai.memory_job_timeout", row.get("bt")))
    attempts = settings.value("dbms_cloud_ai.http_max_attempts", row["ma"])
    end = now + wait
    st = settings.seconds(row["st"], "ms")
    if st:
        elapsed = row["elapsed"] + (now - row["read_at"])
        end = min(end, now + st - elapsed - DEADLINE_MARGIN)
    if end <= now:
        raise ProviderTimeout(f"no time left to call provider {provider}",
                              detail="statement_timeout has (almost) expired",
                              hint="Raise statement_timeout.")
    return end, attempts


def set_max_wait(plpy, seconds) -> None:
    """Admin: the longest any call may wait on the network; NULL: the default."""
    acl.require_admin(plpy, "set_max_wait")
    if seconds is None:
        db.query(plpy, "delete from dbms_cloud_ai._admin_setting where setting = 'max_wait'")
        return
    if not 0 < seconds <= MAX_WAIT_LIMIT:
        raise InvalidParameter(f"invalid max_wait {seconds!r}",
                               detail=f"Use seconds above 0 and at most {MAX_WAIT_LIMIT:g}.",
                               hint="SELECT dbms_cloud_ai.set_max_wait(300);")
    db.query(plpy, """
        insert into dbms_cloud_ai._admin_setting (setting, value) values ('max_wait', $1)
        on conflict (setting) do update set value = excluded.value, modified = pg_catalog.now()""",
             ("float8",), (seconds,))
