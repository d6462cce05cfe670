"""pg_cron jobs the extension offers to schedule (conversation purge, usage summary).

Jobs are created as the calling administrator (pg_cron runs a job as the role
that scheduled it), under a fixed job name, so scheduling again replaces the
job instead of adding a second one.
"""

from __future__ import annotations

from . import db
from .acl import require_admin
from .errors import InvalidParameter, NotInPrerequisiteState


def _require_pg_cron(plpy, alternative: str):
    if db.one(plpy, "select 1 as x from pg_catalog.pg_extension where extname = 'pg_cron'") is None:
        raise NotInPrerequisiteState(
            "pg_cron is not installed in this database",
            detail="pg_cron runs jobs only in the database named by cron.database_name.",
            hint=f"CREATE EXTENSION pg_cron there, or call {alternative} from another "
                 "scheduler (docs/reference/conversations.md, Retention).")


def check(plpy, function: str, alternative: str) -> None:
    """The caller is an administrator and pg_cron is in this database."""
    require_admin(plpy, function)
    _require_pg_cron(plpy, alternative)


def schedule(plpy, function: str, job: str, when: str | None, command: str,
             alternative: str) -> int:
    """Schedule ``command`` as ``job``; returns pg_cron's job id."""
    check(plpy, function, alternative)
    if when is None or not when.strip():
        raise InvalidParameter("schedule must not be empty",
                               hint="Pass a cron schedule such as '*/10 * * * *' "
                                    "('30 seconds' needs pg_cron 1.5 or later).")
    return db.one(plpy, "select cron.schedule($1, $2, $3) as job",
                  ("text", "text", "text"), (job, when, command))["job"]


def unschedule(plpy, function: str, job: str, alternative: str) -> bool:
    """Remove ``job``; False when there was none."""
    check(plpy, function, alternative)
    if db.one(plpy, "select 1 as x from cron.job where jobname = $1", ("text",), (job,)) is None:
        return False
    db.query(plpy, "select cron.unschedule($1)", ("text",), (job,))
    return True
