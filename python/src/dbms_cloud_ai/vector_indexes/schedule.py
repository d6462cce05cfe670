"""refresh_rate by pg_cron: one job per index, run as its owner.

pg_cron runs a job as the role that scheduled it, so the owner schedules its
own index's refresh; without pg_cron in this database, or without USAGE on
its schema, nothing is scheduled and refresh_vector_index() is called by any
other scheduler (docs/reference/vector-indexes.md).

Each refresh's outcome is recorded on the index (last_refresh_status,
last_refresh_at; last_refresh_error in _vector_index_content, which
administrators do not read for indexes not shared with them: the message may
quote a document).  The job runs the procedure refresh_vector_index_job: the
refresh in a subtransaction; a failure rolls that back, is recorded as FAILED
and reported by a WARNING (pg_cron's job log), and the job ends normally so
that the record commits; then it commits and maintains the index's HNSW index
in transactions of its own (ann.maintain).  An interactive refresh raises as
before (its caller sees the error; its transaction, record included, rolls
back), and builds no HNSW index.
"""

from __future__ import annotations

from .. import db, writer
from ..errors import DcaError, UndefinedObject
from ..model import accounting, detached
from . import ann, options, refresh

MAX_ERROR = 500            # characters of last_refresh_error
_RECORD = """
    update dbms_cloud_ai._vector_index
       set last_refresh_status = $2, last_refresh_at = pg_catalog.now()
     where owner = dbms_cloud_ai._caller() and index_name = $1
    returning index_id"""
_RECORD_ERROR = """
    insert into dbms_cloud_ai._vector_index_content as x (index_id, last_refresh_error)
    values ($1::uuid, $2)
    on conflict (index_id) do update set last_refresh_error = excluded.last_refresh_error"""


def _record(plpy, name: str, status: str, error: str | None) -> None:
    row = writer.one(plpy, _RECORD, ("text", "text"), (name, status))
    if row is not None:
        writer.query(plpy, _RECORD_ERROR, ("text", "text"), (str(row["index_id"]), error))


def _error(plpy, e: Exception) -> str:
    """SQLSTATE: message, short.  An unexpected exception is named by its type
    only (its text could carry request data), as boundary.sql_entry does."""
    if isinstance(e, DcaError):
        state, message = e.sqlstate, e.message
    elif isinstance(e, plpy.SPIError) and getattr(e, "sqlstate", None):
        state, message = e.sqlstate, str(e.args[0] if e.args else e).splitlines()[0]
    else:
        state, message = "XX000", f"internal error ({type(e).__name__})"
    text = f"{state}: {message}"
    return text if len(text) <= MAX_ERROR else text[:MAX_ERROR - 1] + "…"


def record_failed(plpy, index_name, e: Exception) -> None:
    """A refresh that could not run (create_vector_index over an Object Storage
    location), recorded FAILED as a job records it, not raised."""
    _record(plpy, options.own_name(index_name, plpy), "FAILED", _error(plpy, e))


def refresh_now(plpy, index_name) -> int:
    """refresh_vector_index(): the refresh, recorded OK; an error is raised."""
    n = refresh.run(plpy, index_name)
    _record(plpy, options.own_name(index_name, plpy), "OK", None)
    return n


def refresh_job(plpy, index_name) -> int | None:
    """refresh_vector_index_job(): the chunks embedded, or NULL after a failure
    (recorded, with a WARNING) that is not raised."""
    name = options.own_name(index_name, plpy)     # not the owner's: raised, nothing to record
    try:
        with plpy.subtransaction():
            n = refresh.run(plpy, name)
    except Exception as e:  # noqa: BLE001 - recorded and reported, not raised
        error = _error(plpy, e)
        _record(plpy, name, "FAILED", error)
        plpy.warning(f"refresh of vector index {name} failed: {error}",
                     hint="See last_refresh_error in dbms_cloud_ai.user_cloud_vector_indexes; "
                          "call dbms_cloud_ai.refresh_vector_index() to see the whole error.")
        # the failed requests' records, which accounting.py kept in memory: a
        # job's session ends soon; if they cannot be written now, a later call does
        try:
            with plpy.subtransaction():
                accounting.flush(plpy, db.current_user(plpy))
        except plpy.SPIError:
            pass
        return None
    _record(plpy, name, "OK", None)
    return n


_JOB_DETAIL = ("It commits the refresh, then builds or drops the index's HNSW index in "
               "transactions of their own, so that no lock on the shared chunks table is held "
               "by the caller's transaction.")
_OWN_ID = """select index_id::text as index_id from dbms_cloud_ai._vector_index
              where owner = current_user and index_name = $1"""


def job(plpy, index_name) -> tuple[int | None]:
    """The procedure refresh_vector_index_job: refresh_job, committed, then the
    maintenance of the index's HNSW index (and of those of dropped indexes)."""
    detached.start(plpy, "dbms_cloud_ai.refresh_vector_index_job", detail=_JOB_DETAIL,
                   hint="CALL it on its own (autocommit, not after BEGIN, not from a function), "
                        "or use dbms_cloud_ai.refresh_vector_index() inside the transaction.")
    n = refresh_job(plpy, index_name)
    detached.recommit(plpy)
    row = db.one(plpy, _OWN_ID, ("text",), (options.own_name(index_name, plpy),))
    ann.maintain(plpy, [row["index_id"]] if row else [])
    return (n,)


def maintain(plpy, index_name) -> None:
    """The procedure maintain_vector_indexes: the caller's indexes (or the one
    named), and those of dropped indexes."""
    detached.start(plpy, "dbms_cloud_ai.maintain_vector_indexes", detail=_JOB_DETAIL,
                   hint="CALL it on its own (autocommit, not after BEGIN, not from a function).")
    if index_name is None:
        ids = [r["index_id"] for r in db.query(plpy, """
            select index_id::text as index_id from dbms_cloud_ai._vector_index
             where owner = current_user order by created, index_id""")]
    else:
        name = options.own_name(index_name, plpy)
        row = db.one(plpy, _OWN_ID, ("text",), (name,))
        if row is None:
            raise UndefinedObject(f'vector index "{name}" does not exist',
                                  hint="Create it with dbms_cloud_ai.create_vector_index().")
        ids = [row["index_id"]]
    ann.maintain(plpy, ids)


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
    command = ("call dbms_cloud_ai.refresh_vector_index_job("
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
