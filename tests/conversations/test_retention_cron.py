"""Retention both ways: the purge called by any scheduler, and the pg_cron schedule.

Without pg_cron, an external scheduler (cron, a systemd timer) runs
`psql -c 'call dbms_cloud_ai.purge_expired_conversations()'` as an admin role.
With pg_cron, schedule_conversation_purge() makes the job; pg_cron runs jobs
only in the database named by cron.database_name, which scripts/pg-cluster.sh
sets to dca_cron where pg_cron is installed: that test uses that fixed
database rather than the per-test clone, and skips when the server has no pg_cron.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time

import memory_helpers as mh
import psycopg
import pytest
from helpers import hint_of, make_profile, raises

CRON_DB = "dca_cron"
USAGE_JOB = "dbms_cloud_ai_summarize_usage"
PURGE_JOB = "dbms_cloud_ai_purge_conversations"
MEMORY_JOB = "dbms_cloud_ai_memory_jobs"


# --- seeding ---------------------------------------------------------------------------------

def seed(admin, conn, role, *, expired, prompts=3, retention_days=7):
    """A conversation made through the API as `role`, with `prompts` prompts.

    expired=True moves its creation and expiry into the past, as time would.
    Prompts are written directly by the superuser: how they got there does not
    matter to the purge, and no model is needed."""
    cid = conn.execute("select dbms_cloud_ai.create_conversation(%s)",
                       (json.dumps({"title": f"{role} {'old' if expired else 'live'}",
                                    "retention_days": retention_days}),)).fetchone()[0]
    for i in range(prompts):
        admin.execute("""insert into dbms_cloud_ai._conversation_prompt
                             (conversation_prompt_id, conversation_id, owner, profile_name,
                              prompt_action, prompt, prompt_response)
                         values (gen_random_uuid(), %s::uuid, %s, 'P', 'chat', %s, %s)""",
                      (cid, role, f"q{i}", f"a{i}"))
    if expired:
        admin.execute("""update dbms_cloud_ai._conversation
                            set created = now() - interval '8 days',
                                expires_at = now() - interval '1 day'
                          where conversation_id = %s::uuid""", (cid,))
    return cid.upper()


def rows(admin):
    """{conversation id: number of prompts}, every role's, read as superuser."""
    return {str(r[0]).upper(): r[1] for r in admin.execute(
        """select c.conversation_id, count(p.conversation_prompt_id)
             from dbms_cloud_ai._conversation c
             left join dbms_cloud_ai._conversation_prompt p using (conversation_id)
            group by 1""").fetchall()}


def seed_roles(admin, conns):
    """For each role: two expired conversations, one live, one kept forever."""
    expired, live = {}, {}
    for role, conn in conns.items():
        for _ in range(2):
            expired[seed(admin, conn, role, expired=True)] = 3
        live[seed(admin, conn, role, expired=False)] = 3
        live[seed(admin, conn, role, expired=False, retention_days=0, prompts=2)] = 2
    return expired, live


# --- without pg_cron: any scheduler calls the purge --------------------------------------------

def psql_purge(info, role):
    """What a crontab line or a systemd timer runs (docs/reference/conversations.md, Retention)."""
    psql = shutil.which("psql")
    sql = "call dbms_cloud_ai.purge_expired_conversations()"
    if psql is None:  # no client on PATH: the same call through the driver
        with psycopg.connect(host=info.host, port=info.port, user=role, dbname=info.dbname,
                             autocommit=True) as c:
            return c.execute(sql).fetchone()[0]
    out = subprocess.run([psql, "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-h", info.host,
                          "-p", str(info.port), "-U", role, "-d", info.dbname, "-c", sql],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.strip())


def test_external_scheduler_purges_every_roles_expired_rows(db, alice, bob):
    expired, live = seed_roles(db.admin, {"alice": alice, "bob": bob})
    assert rows(db.admin) == {**expired, **live}

    n = psql_purge(db.info, "ai_admin")

    # 4 expired conversations of 3 prompts each: 12 prompts and 4 conversations.
    assert n == 16
    assert rows(db.admin) == live, "the purge removed every expired row and nothing live"
    assert psql_purge(db.info, "ai_admin") == 0, "a second run finds nothing"
    # The live ones still work for their owners.
    for cid in live:
        owner = db.admin.execute("select owner from dbms_cloud_ai._conversation "
                                 "where conversation_id = %s::uuid", (cid,)).fetchone()[0]
        conn = alice if owner == "alice" else bob
        conn.execute("select dbms_cloud_ai.set_conversation_id(%s)", (cid,))


def test_purge_by_a_plain_role_removes_only_its_own(db, alice, bob):
    expired, live = seed_roles(db.admin, {"alice": alice, "bob": bob})
    bobs = {c for c in expired
            if db.admin.execute("select owner from dbms_cloud_ai._conversation "
                                "where conversation_id = %s::uuid", (c,)).fetchone()[0] == "bob"}

    assert psql_purge(db.info, "alice") == 8  # her 2 expired conversations, 6 prompts

    assert rows(db.admin) == {**live, **{c: 3 for c in bobs}}


def test_purge_in_batches_finishes(db, alice, bob):
    expired, live = seed_roles(db.admin, {"alice": alice, "bob": bob})
    admin = db.connect("ai_admin")
    # One batch of 5 prompts per call: three calls take the 12 prompts, and the
    # conversations go with the call that finds their prompts gone.
    total = 0
    for _ in range(10):
        n = admin.execute("call dbms_cloud_ai.purge_expired_conversations(5, 1)").fetchone()[0]
        total += n
        if n == 0:
            break
    assert total == 16
    assert rows(db.admin) == live


# --- schedule_conversation_purge where it cannot work --------------------------------------------

def test_schedule_without_pg_cron_in_the_database(db):
    # The per-test database never has pg_cron (only cron.database_name may).
    assert db.admin.execute("select count(*) from pg_extension where extname = 'pg_cron'"
                            ).fetchone()[0] == 0
    admin = db.connect("ai_admin")
    for sql, elsewhere in (
            ("select dbms_cloud_ai.schedule_conversation_purge()", "purge_expired_conversations"),
            ("select dbms_cloud_ai.schedule_conversation_purge('*/5 * * * *', 500)",
             "purge_expired_conversations"),
            ("select dbms_cloud_ai.unschedule_conversation_purge()", "purge_expired_conversations"),
            ("select dbms_cloud_ai.schedule_usage_summary()", "summarize_usage"),
            ("select dbms_cloud_ai.unschedule_usage_summary()", "summarize_usage"),
            ("select dbms_cloud_ai.schedule_memory_jobs()", "run_memory_jobs"),
            ("select dbms_cloud_ai.unschedule_memory_jobs()", "run_memory_jobs")):
        with raises("55000") as e:
            admin.execute(sql)
        assert "pg_cron" in str(e["error"])
        assert elsewhere in hint_of(e), hint_of(e)


def test_schedule_requires_admin(db, alice):
    for sql in ("select dbms_cloud_ai.schedule_conversation_purge()",
                "select dbms_cloud_ai.unschedule_conversation_purge()",
                "select dbms_cloud_ai.schedule_usage_summary()",
                "select dbms_cloud_ai.unschedule_usage_summary()",
                "select dbms_cloud_ai.schedule_memory_jobs()",
                "select dbms_cloud_ai.unschedule_memory_jobs()"):
        with raises("42501") as e:
            alice.execute(sql)
        assert "dbms_cloud_ai_admin" in hint_of(e), hint_of(e)


# --- with pg_cron --------------------------------------------------------------------------------

def _pg_cron_state(admin):
    """(version, reason to skip or None) for pg_cron on this server."""
    avail = admin.execute("select default_version from pg_available_extensions "
                          "where name = 'pg_cron'").fetchone()
    if avail is None:
        return None, ("pg_cron is not installed on this server (make deps installs "
                      "postgresql-NN-cron where the distribution has it)")
    preload = [s.strip() for s in admin.execute(
        "select current_setting('shared_preload_libraries')").fetchone()[0].split(",")]
    if "pg_cron" not in preload:
        return None, "pg_cron is installed but not in shared_preload_libraries (scripts/pg-cluster.sh sets it)"
    dbname = admin.execute("select current_setting('cron.database_name', true)").fetchone()[0]
    if dbname != CRON_DB:
        return None, f"cron.database_name is {dbname!r}, this test needs {CRON_DB!r} (scripts/pg-cluster.sh)"
    return avail[0], None


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.replace("-", ".").split(".") if x.isdigit())


def _connect(info, role, dbname=CRON_DB):
    return psycopg.connect(host=info.host, port=info.port, user=role, dbname=dbname,
                           autocommit=True)


def _clean(su):
    """Leave dca_cron re-runnable: no purge job, no conversations."""
    if su.execute("select count(*) from pg_extension where extname = 'pg_cron'").fetchone()[0]:
        su.execute("select cron.unschedule(jobid) from cron.job where jobname = any(%s)",
                   ([PURGE_JOB, USAGE_JOB, MEMORY_JOB],))
    if su.execute("select count(*) from pg_extension where extname = 'dbms_cloud_ai'").fetchone()[0]:
        su.execute("delete from dbms_cloud_ai._conversation")


@pytest.fixture
def cron_db(db):
    """The pg_cron database, with pg_cron and a fresh dbms_cloud_ai, as the superuser.

    Depends on `db` so the cluster's roles exist (fix_db makes them)."""
    version, skip = _pg_cron_state(db.admin)
    if skip:
        pytest.skip(skip)
    if not db.admin.execute("select 1 from pg_database where datname = %s", (CRON_DB,)).fetchone():
        db.admin.execute(f"create database {CRON_DB}")
    su = _connect(db.info, "postgres")
    # Recreated every run: a long-lived dev cluster must not keep an old build.
    _clean(su)
    su.execute("drop extension if exists dbms_cloud_ai cascade")
    su.execute("create extension dbms_cloud_ai cascade")
    su.execute("create extension if not exists pg_cron")
    version = su.execute("select extversion from pg_extension where extname = 'pg_cron'").fetchone()[0]
    # Its launcher starts once the database exists, and stops for good if the
    # database is dropped under it (a server restart brings it back).
    _wait("the pg_cron launcher is not running in the server (restart it)",
          lambda: su.execute("select count(*) from pg_stat_activity "
                             "where backend_type = 'pg_cron launcher'").fetchone()[0], 10)
    # The grant of docs/reference/conversations.md (Retention): administrators may schedule their own jobs.
    su.execute("grant usage on schema cron to dbms_cloud_ai_admin")
    conns = [su]
    try:
        yield su, version, conns
    finally:
        try:
            _clean(su)
        finally:
            for c in conns:
                c.close()


def _wait(what, check, timeout):
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {timeout:.0f} s")
        time.sleep(0.5)


def test_pg_cron_runs_the_scheduled_purge(db, cron_db):
    su, version, conns = cron_db
    info = db.info
    alice, bob, admin = (_connect(info, r) for r in ("alice", "bob", "ai_admin"))
    conns += [alice, bob, admin]
    expired, live = seed_roles(su, {"alice": alice, "bob": bob})
    assert rows(su) == {**expired, **live}

    with raises("42501"):
        alice.execute("select dbms_cloud_ai.schedule_conversation_purge()")

    # pg_cron 1.5 added schedules in seconds; before it the finest is a minute.
    if _version(version) >= (1, 5):
        schedule, timeout = "1 seconds", 20
    else:
        schedule, timeout = "* * * * *", 75
    job = admin.execute("select dbms_cloud_ai.schedule_conversation_purge(%s)", (schedule,)).fetchone()[0]
    again = admin.execute("select dbms_cloud_ai.schedule_conversation_purge(%s)", (schedule,)).fetchone()[0]
    assert again == job, "scheduling again replaces the job"
    assert su.execute("select schedule, command, database, username, active from cron.job "
                      "where jobname = %s", (PURGE_JOB,)).fetchall() == [
        (schedule, "call dbms_cloud_ai.purge_expired_conversations(10000)", CRON_DB, "ai_admin", True)]

    def purged():
        return not set(expired) & set(rows(su))

    def runs():
        failed = su.execute("select status, return_message from cron.job_run_details "
                            "where jobid = %s and status = 'failed'", (job,)).fetchall()
        assert not failed, f"pg_cron runs failed: {failed}"
        return su.execute("select count(*) from cron.job_run_details "
                          "where jobid = %s and status = 'succeeded'", (job,)).fetchone()[0]

    _wait(f"pg_cron ({version}, schedule {schedule!r}) did not purge the expired rows", purged, timeout)
    _wait("cron.job_run_details shows no succeeded run", runs, 10)
    assert rows(su) == live, "live conversations and those kept forever remain"

    assert admin.execute("select dbms_cloud_ai.unschedule_conversation_purge()").fetchone()[0] is True
    assert su.execute("select count(*) from cron.job where jobname = %s", (PURGE_JOB,)).fetchone()[0] == 0
    assert admin.execute("select dbms_cloud_ai.unschedule_conversation_purge()").fetchone()[0] is False
    su.execute("delete from cron.job_run_details where jobid = %s", (job,))


def test_schedule_usage_summary(db, cron_db):
    """One hourly job runs summarize_usage() as the administrator; scheduling again replaces
    it; unscheduling removes it (and says whether there was one)."""
    su, version, conns = cron_db
    admin = _connect(db.info, "ai_admin")
    conns.append(admin)
    job = admin.execute("select dbms_cloud_ai.schedule_usage_summary()").fetchone()[0]
    again = admin.execute("select dbms_cloud_ai.schedule_usage_summary('*/30 * * * *')").fetchone()[0]
    rows = su.execute("select jobid, schedule, command, username from cron.job where jobname = %s",
                      (USAGE_JOB,)).fetchall()
    assert rows == [(again, "*/30 * * * *", "select dbms_cloud_ai.summarize_usage()", "ai_admin")]
    assert job == again  # pg_cron updates a job scheduled again under the same name
    with raises("22023"):
        admin.execute("select dbms_cloud_ai.schedule_usage_summary('')")
    assert admin.execute("select dbms_cloud_ai.unschedule_usage_summary()").fetchone()[0] is True
    assert admin.execute("select dbms_cloud_ai.unschedule_usage_summary()").fetchone()[0] is False
    assert su.execute("select count(*) from cron.job where jobname = %s",
                      (USAGE_JOB,)).fetchone()[0] == 0


def test_pg_cron_runs_memory_promotion_as_each_owner(db, cron_db, fake_llm):
    """The superuser schedules the runner (it switches to each job's owner, so it
    must be a member of their roles); pg_cron runs it; alice's fact is stored
    under her, with her credential."""
    su, version, conns = cron_db
    fake_llm.reset()
    fake_llm.responder = mh.remember_phrases()
    alice = _connect(db.info, "alice")
    conns.append(alice)
    su.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    su.execute("select dbms_cloud_ai.enable_memory()")
    su.execute("select dbms_cloud_ai.set_memory_attribute('idle_minutes', '0')")
    make_profile(alice, fake_llm, key="sk-alice-cron", long_term_memory=True)
    cid = mh.conversation(alice)
    mh.say(alice, "remember: I take the night train", cid)
    schedule, timeout = ("1 seconds", 20) if _version(version) >= (1, 5) else ("* * * * *", 75)
    job = su.execute("select dbms_cloud_ai.schedule_memory_jobs(%s, 10)", (schedule,)).fetchone()[0]
    try:
        assert su.execute("select command, username from cron.job where jobid = %s",
                          (job,)).fetchone() == ("call dbms_cloud_ai.run_memory_jobs(10)", "postgres")
        _wait("pg_cron did not promote the conversation",
              lambda: mh.memories(alice) == ["I take the night train"], timeout)
        extraction = [r for r in fake_llm.requests if mh.is_extraction(r.json)]
        assert [r.headers["authorization"] for r in extraction] == ["Bearer sk-alice-cron"]
        assert mh.jobs(alice)[0]["status"] == "done"
    finally:
        assert su.execute("select dbms_cloud_ai.unschedule_memory_jobs()").fetchone()[0] is True
        su.execute("delete from cron.job_run_details where jobid = %s", (job,))
        fake_llm.reset()
