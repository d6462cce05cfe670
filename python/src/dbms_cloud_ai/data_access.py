"""Oracle's ENABLE_DATA_ACCESS / DISABLE_DATA_ACCESS: may row values reach a model?

One database-wide switch (sql/schema/015-data-access.sql), set by administrators.
Every call reads it with its first query (model/timing.SETTINGS_COLUMNS, part of
profiles.for_call), so a switch made by another session applies to the next
call of every session: nothing is cached across statements.

While it is off, nothing the extension reads from user tables goes to a
provider:

- narrate (it sends the query's rows) fails with LL006 before any model call;
- generate_synthetic_data fails with LL006 before any model call, as in Oracle,
  whether or not its params ask for sample rows or statistics;
- runsql's generated query is planned before it runs, and an error raised while
  it runs (which may quote a row value: 22P02 'invalid input syntax ... "<value>"')
  is not sent back to the model for repair: it is raised as it is;
- conversation history and long-term memory extraction: the answers of earlier
  narrate turns (they restate rows) are replaced by WITHHELD in what is sent
  (the window, the prompts folded into a history summary, an extraction request).
  A history summary made while data access was on is sent as it is.

runsql, showsql, explainsql, chat and showprompt keep working, as in Oracle:
their requests carry the schema, the question and the SQL, never rows, and
NL2SQL's value hints (nl2sql/values.py: the values of text columns) are left out.
"""

from __future__ import annotations

from . import acl, db
from .errors import DataAccessDisabled

# What a narrate turn's answer becomes in the history sent while data access is off.
WITHHELD = "(answer from query results withheld: data access is disabled)"


_READ = "select coalesce((select d.enabled from dbms_cloud_ai._data_access d), true) as on"


def enabled(ctx, plpy=None) -> bool:
    """The switch as the call's first query read it (ctx: profiles.CallContext).
    Without a context it is read now (``plpy``), or taken as off: a caller that
    has neither must not send rows."""
    found = ctx.settings.get("data_access") if ctx is not None else None
    if found is None:
        found = db.one(plpy, _READ)["on"] if plpy is not None else False
    return bool(found)


def withheld(rows) -> list:
    """Conversation rows (prompt_action, prompt_response) as sent while data
    access is off: the answers of narrate turns replaced by WITHHELD."""
    return [{**r, "prompt_response": WITHHELD} if r["prompt_action"] == "NARRATE" else r
            for r in rows]


def require(ctx, action: str, why: str = "sends query results to the model") -> None:
    if not enabled(ctx):
        raise DataAccessDisabled(
            f"data access is disabled for SELECT AI: {action} {why}",
            detail="An administrator ran dbms_cloud_ai.disable_data_access().",
            hint="A member of dbms_cloud_ai_admin can run dbms_cloud_ai.enable_data_access(); "
                 "runsql and showsql still work.")


def set_enabled(plpy, on: bool) -> None:
    """Admin: the database-wide switch (a row, kept by pg_dump)."""
    acl.require_admin(plpy, "enable_data_access" if on else "disable_data_access")
    db.query(plpy, """
        insert into dbms_cloud_ai._data_access (only_row, enabled) values (true, $1)
        on conflict (only_row) do update
           set enabled = excluded.enabled, modified = pg_catalog.now(),
               modified_by = excluded.modified_by""", ("bool",), (on,))
