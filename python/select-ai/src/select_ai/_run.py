"""Plans: how every API call talks to the database, written once for sync and async.

A plan is a generator that yields ``Sql`` steps and receives each step's result; its return
value is the call's result.  ``run`` drives it on a sync connection, ``arun`` on an async one,
so ``Profile.delete`` and ``AsyncProfile.delete`` share one plan and differ in one line.

A plan runs in one transaction on one connection, committed when it returns, as Oracle's
DBMS_CLOUD_AI procedures commit.  A failing step is rolled back to a savepoint taken just
before it and thrown into the plan as ``oracledb.DatabaseError`` (mapped through
``errors.ORA_CODES`` with the step's topic), so a plan may catch it and go on; uncaught, it
rolls the whole plan back and reaches the caller.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import sql as pgsql

from . import db
from .errors import from_postgres

Plan = Generator["Sql", Any, Any]


@dataclass
class Sql:
    text: str | pgsql.Composable
    params: dict | tuple | None = None
    fetch: str = "none"  # none | one | all | value | rows_dicts
    topic: str | None = None


def _result(cur, fetch: str):
    if fetch == "none":
        return None
    if fetch == "one":
        return cur.fetchone()
    if fetch == "value":
        row = cur.fetchone()
        return None if row is None else row[0]
    rows = cur.fetchall()
    if fetch == "rows_dicts":
        names = [d.name for d in cur.description]
        return [dict(zip(names, row)) for row in rows]
    return rows


def run(plan: Plan):
    with db.get_connection() as conn:
        return drive(plan, conn.pg)


def drive(plan: Plan, pg: psycopg.Connection):
    """Run a plan on a psycopg connection (one transaction, committed at the end)."""
    with pg.transaction():
        value, error = None, None
        while True:
            try:
                step = plan.throw(error) if error is not None else plan.send(value)
            except StopIteration as done:
                result = done.value
                break
            value, error = None, None
            try:
                with pg.transaction(), pg.cursor() as cur:
                    cur.execute(step.text, step.params)
                    value = _result(cur, step.fetch)
            except psycopg.Error as exc:
                if isinstance(exc, psycopg.OperationalError) and pg.closed:
                    raise
                error = from_postgres(exc, step.topic)
    if not pg.autocommit:
        pg.commit()
    return result


async def arun(plan: Plan):
    async with db.async_get_connection() as conn:
        return await adrive(plan, conn.pg)


async def adrive(plan: Plan, pg: psycopg.AsyncConnection):
    async with pg.transaction():
        value, error = None, None
        while True:
            try:
                step = plan.throw(error) if error is not None else plan.send(value)
            except StopIteration as done:
                result = done.value
                break
            value, error = None, None
            try:
                async with pg.transaction(), pg.cursor() as cur:
                    await cur.execute(step.text, step.params)
                    value = await _aresult(cur, step.fetch)
            except psycopg.Error as exc:
                if isinstance(exc, psycopg.OperationalError) and pg.closed:
                    raise
                error = from_postgres(exc, step.topic)
    if not pg.autocommit:
        await pg.commit()
    return result


async def _aresult(cur, fetch: str):
    if fetch == "none":
        return None
    if fetch == "one":
        return await cur.fetchone()
    if fetch == "value":
        row = await cur.fetchone()
        return None if row is None else row[0]
    rows = await cur.fetchall()
    if fetch == "rows_dicts":
        names = [d.name for d in cur.description]
        return [dict(zip(names, row)) for row in rows]
    return rows
