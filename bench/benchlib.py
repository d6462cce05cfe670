"""What the benchmarks share: their world (Bench), connecting, checking, percentiles."""

from __future__ import annotations

import json
import os
import statistics

import psycopg
from fake_llm import FakeLLM
from psycopg import sql


def connect(user: str, dbname: str) -> psycopg.Connection:
    return psycopg.connect(host=os.environ["DCA_PGHOST"], port=os.environ["DCA_PGPORT"],
                           user=user, dbname=dbname, autocommit=True)


def durability() -> str:
    """The server's commit durability, for a benchmark's header: a figure taken
    with fsync or synchronous_commit off hides the WAL flush every accounted call
    pays on a real server, and must say so."""
    with connect("postgres", "postgres") as c:
        fsync, sc = c.execute("select current_setting('fsync'), "
                              "current_setting('synchronous_commit')").fetchone()
    if fsync == "on" and sc == "on":
        return "durability: PostgreSQL's defaults (fsync on, synchronous_commit on)"
    return (f"durability: fsync {fsync}, synchronous_commit {sc} -- NOT the defaults: "
            "hides the commit flush of every call that writes")


def check(ok: bool, why: str) -> None:
    if not ok:
        raise SystemExit(f"bench: {why}")


def pct(sorted_xs: list[float], p: float) -> float:
    """Percentile with linear interpolation between closest ranks."""
    if len(sorted_xs) == 1:
        return sorted_xs[0]
    k = (len(sorted_xs) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (k - lo)


def summary(xs: list[float]) -> dict:
    s = sorted(xs)
    return {"n": len(s), "p50": pct(s, 50), "p95": pct(s, 95), "p99": pct(s, 99),
            "mean": statistics.fmean(s), "max": s[-1]}


def fresh_databases(dbnames, role: str) -> bool:
    """Drop and create each of ``dbnames``, and the login ``role`` if it is
    missing; True if it was created here (the caller drops it at the end)."""
    with connect("postgres", "postgres") as c:
        for db in dbnames:
            c.execute(f"drop database if exists {db} with (force)")
            c.execute(f"create database {db}")
        created = c.execute("select not exists (select from pg_roles where rolname = %s)",
                            (role,)).fetchone()[0]
        if created:
            c.execute(sql.SQL("create role {} login").format(sql.Identifier(role)))
    return created


def fresh_database(dbname: str, roles) -> list[str]:
    """Drop and create ``dbname`` with the extension, create the login ``roles``
    that are missing, and let every role reach the fake LLM (a host ACE for
    PUBLIC).  Returns the roles created here (drop_database drops them)."""
    created = []
    with connect("postgres", "postgres") as c:
        c.execute(f"drop database if exists {dbname} with (force)")
        c.execute(f"create database {dbname}")
        for role in roles:
            if c.execute("select not exists (select from pg_roles where rolname = %s)",
                         (role,)).fetchone()[0]:
                c.execute(sql.SQL("create role {} login").format(sql.Identifier(role)))
                created.append(role)
    with connect("postgres", dbname) as c:
        c.execute("create extension dbms_cloud_ai cascade")
        c.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    return created


def drop_database(dbname: str, created: list[str]) -> None:
    with connect("postgres", "postgres") as c:
        c.execute(f"drop database if exists {dbname} with (force)")
        for role in created:
            c.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


def create_profile(role: str, dbname: str, profile: str, credential: str, api_key: str | None,
                   **attrs) -> None:
    """As ``role``: an OpenAI profile over ``credential``, made first unless api_key is None."""
    with connect(role, dbname) as c:
        if api_key is not None:
            c.execute("select dbms_cloud.create_credential(%s, 'user', %s)", (credential, api_key))
        c.execute("select dbms_cloud_ai.create_profile(%s, %s)", (profile, json.dumps(
            {"provider": "openai", "credential_name": credential, **attrs})))


class Bench:
    """A benchmark's world, gone at the end: the fake LLM in this process, a fresh
    database with the extension (a PUBLIC host ACE reaches the fake), the login
    roles it needs (users get dbms_cloud_ai_user, admins dbms_cloud_ai_admin)
    and, given a profile name, that profile over the fake for each user.
    ``with Bench(...) as b:`` then b.fake, b.profile(...); keep=True leaves the
    database and roles for a look afterwards."""

    def __init__(self, dbname: str, users=(), admins=(), responder=None, profile: str | None = None,
                 credential: str = "BENCH_CRED", api_key: str = "sk-bench-0123456789abcdef",
                 keep: bool = False):
        self.dbname, self.users, self.admins, self.keep = dbname, tuple(users), tuple(admins), keep
        self.credential, self.api_key = credential, api_key
        self.fake = FakeLLM(responder)
        self.created: list[str] = []
        self._profile = profile
        self._credentialed: set[str] = set()

    def __enter__(self) -> Bench:
        self.fake.start()
        try:
            self.created = fresh_database(self.dbname, self.users + self.admins)
            with connect("postgres", self.dbname) as c:
                for role, granted in [(r, "dbms_cloud_ai_user") for r in self.users] + \
                                     [(r, "dbms_cloud_ai_admin") for r in self.admins]:
                    c.execute(sql.SQL("grant {} to {}").format(sql.Identifier(granted),
                                                               sql.Identifier(role)))
            if self._profile:
                for role in self.users:
                    self.profile(role, self._profile)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def profile(self, role: str, name: str, **attrs) -> None:
        """An OpenAI profile of ``role``'s over the fake LLM."""
        key = None if role in self._credentialed else self.api_key
        self._credentialed.add(role)
        create_profile(role, self.dbname, name, self.credential, key,
                       provider_endpoint=self.fake.url, **attrs)

    def __exit__(self, *exc) -> None:
        self.fake.stop()
        if not self.keep:
            drop_database(self.dbname, self.created)
