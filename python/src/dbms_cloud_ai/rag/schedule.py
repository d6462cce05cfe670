"""refresh_rate by pg_cron: one job per index, run as its owner.

pg_cron runs a job as the role that scheduled it, so the owner schedules its
own index's refresh; without pg_cron in this database, or without USAGE on
its schema, nothing is scheduled and refresh_vector_index() is called by any
other scheduler (docs/reference/vector-indexes.md).
"""

from __future__ import annotations

from .. import db


def _cron(plpy) -> bool:
    return db.one(plpy, """
        select exists (select from pg_catalog.pg_extension where extname = 'pg_cron')
               and pg_catalog.has_schema_privilege('cron', 'USAGE') as ok""")["ok"]


def job_name(plpy, name: str) -> str:
    who = db.current_user(plpy)
    return f"dbms_cloud_ai vector index {who}.{name}"


def cron_expression(minutes: int) -> str:
    """Every ``minutes`` (as near as cron says it: an hour or a day at least once)."""
    if minutes < 60:
        return f"*/{minutes} * * * *"
    if minutes < 1440:
        return f"0 */{max(1, minutes // 60)} * * *"
    return "0 0 * * *"


def set(plpy, name: str, minutes: int) -> None:
    if not _cron(plpy):
        return
    command = ("select dbms_cloud_ai.refresh_vector_index("
               + plpy.quote_literal('"' + name + '"') + ")")
    db.query(plpy, "select cron.schedule($1, $2, $3)", ("text", "text", "text"),
             (job_name(plpy, name), cron_expression(minutes), command))


def clear(plpy, name: str) -> None:
    if not _cron(plpy):
        return
    job = job_name(plpy, name)
    if db.one(plpy, "select exists (select from cron.job where jobname = $1) as x",
              ("text",), (job,))["x"]:
        db.query(plpy, "select cron.unschedule($1)", ("text",), (job,))
