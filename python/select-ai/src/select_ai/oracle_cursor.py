"""Oracle-flavoured connection and cursor wrappers over psycopg.

Scripts written for Oracle's SDK call ``select_ai.cursor()`` and send Oracle SQL: named binds
as keyword arguments, ``FROM DUAL``, PL/SQL blocks, CREATE USER.  ``oracle_sql.translate``
turns each statement into PostgreSQL steps; this module runs them with Oracle's transaction
rules (DDL and PL/SQL blocks that call the packages commit, DML waits for commit) and
Oracle's value shapes (character values also answer ``read()`` as LOBs do).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import psycopg

from . import oracle_sql
from .errors import from_postgres


class Text(str):
    """A character value that also reads like an oracledb LOB (CLOB columns)."""

    def read(self, offset: int = 1, amount: int | None = None) -> str:
        start = max(offset - 1, 0)
        return str(self)[start:] if amount is None else str(self)[start:start + amount]

    def size(self) -> int:
        return len(self)

    def getvalue(self) -> str:
        return str(self)


def _value(v: Any) -> Any:
    return Text(v) if type(v) is str else v


def _row(row):
    return None if row is None else tuple(_value(v) for v in row)


class Var:
    """cursor.var(): a bind variable holding one value."""

    def __init__(self, typ=None, size: int = 0, value=None):
        self.type, self.size, self.value = typ, size, value

    def getvalue(self, pos: int = 0):
        return self.value

    def setvalue(self, pos: int, value) -> None:
        self.value = value


def _binds(parameters, keyword_parameters) -> Any:
    if keyword_parameters:
        merged = dict(parameters or {}) if isinstance(parameters, Mapping) else {}
        merged.update(keyword_parameters)
        parameters = merged
    if isinstance(parameters, Mapping):
        return {k: (v.getvalue() if isinstance(v, Var) else v) for k, v in parameters.items()}
    if parameters is None:
        return None
    return [v.getvalue() if isinstance(v, Var) else v for v in parameters]


class _CursorBase:
    arraysize = 100

    def __init__(self, connection):
        self.connection = connection
        self._rows: list = []
        self.description = None
        self.rowcount = -1
        self.closed = False

    def var(self, typ=None, size: int = 0, arraysize: int = 1, inconverter=None,
            outconverter=None, typename=None, encoding_errors=None, bypass_decode=False,
            convert_nulls=False) -> Var:
        return Var(typ, size)

    def setinputsizes(self, *args, **kwargs):
        return None

    def _take(self, cur) -> None:
        if cur.description is not None:
            self.description = [(d.name.upper(), d.type_code, d.display_size, d.internal_size,
                                 d.precision, d.scale, True) for d in cur.description]
            self._rows = [_row(r) for r in cur.fetchall()]
        self.rowcount = cur.rowcount

    def fetchone(self):
        return self._rows.pop(0) if self._rows else None

    def fetchmany(self, size: int | None = None):
        n = size or self.arraysize
        rows, self._rows = self._rows[:n], self._rows[n:]
        return rows

    def fetchall(self):
        rows, self._rows = self._rows, []
        return rows

    def __iter__(self):
        while self._rows:
            yield self._rows.pop(0)

    def close(self) -> None:
        self.closed = True
        self._rows = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Cursor(_CursorBase):
    def execute(self, statement: str, parameters=None, **keyword_parameters):
        steps = oracle_sql.translate(statement, _binds(parameters, keyword_parameters))
        pg: psycopg.Connection = self.connection.pg
        self.description, self._rows, self.rowcount = None, [], -1
        for step in steps:
            if step.commit_before:
                pg.commit()
            try:
                with pg.cursor() as cur:
                    if step.swallow:
                        with pg.transaction():
                            cur.execute(step.sql, step.params)
                    else:
                        cur.execute(step.sql, step.params)
                    self._take(cur)
            except psycopg.Error as exc:
                if "*" in step.swallow or exc.sqlstate in step.swallow:
                    continue
                if step.commit_after:
                    pg.rollback()
                raise from_postgres(exc, "cursor") from None
            if step.commit_after:
                pg.commit()
        return self if self.description is not None else None

    def executemany(self, statement: str, parameters, **kwargs):
        for params in parameters:
            self.execute(statement, params)

    def callproc(self, name: str, parameters=None, keyword_parameters=None):
        self.execute(*oracle_sql.call(name, parameters, keyword_parameters))
        return list(parameters or [])

    def callfunc(self, name: str, return_type=None, parameters=None, keyword_parameters=None):
        self.execute(*oracle_sql.call(name, parameters, keyword_parameters))
        row = self.fetchone()
        return None if row is None else row[0]


class AsyncCursor(_CursorBase):
    async def execute(self, statement: str, parameters=None, **keyword_parameters):
        steps = oracle_sql.translate(statement, _binds(parameters, keyword_parameters))
        pg: psycopg.AsyncConnection = self.connection.pg
        self.description, self._rows, self.rowcount = None, [], -1
        for step in steps:
            if step.commit_before:
                await pg.commit()
            try:
                async with pg.cursor() as cur:
                    if step.swallow:
                        async with pg.transaction():
                            await cur.execute(step.sql, step.params)
                    else:
                        await cur.execute(step.sql, step.params)
                    if cur.description is not None:
                        self.description = [(d.name.upper(), d.type_code, d.display_size,
                                             d.internal_size, d.precision, d.scale, True)
                                            for d in cur.description]
                        self._rows = [_row(r) for r in await cur.fetchall()]
                    self.rowcount = cur.rowcount
            except psycopg.Error as exc:
                if "*" in step.swallow or exc.sqlstate in step.swallow:
                    continue
                if step.commit_after:
                    await pg.rollback()
                raise from_postgres(exc, "cursor") from None
            if step.commit_after:
                await pg.commit()
        return self if self.description is not None else None

    async def executemany(self, statement: str, parameters, **kwargs):
        for params in parameters:
            await self.execute(statement, params)

    async def callproc(self, name: str, parameters=None, keyword_parameters=None):
        await self.execute(*oracle_sql.call(name, parameters, keyword_parameters))
        return list(parameters or [])

    async def callfunc(self, name: str, return_type=None, parameters=None,
                       keyword_parameters=None):
        await self.execute(*oracle_sql.call(name, parameters, keyword_parameters))
        row = self.fetchone()
        return None if row is None else row[0]

    async def fetchone(self):
        return _CursorBase.fetchone(self)

    async def fetchmany(self, size: int | None = None):
        return _CursorBase.fetchmany(self, size)

    async def fetchall(self):
        return _CursorBase.fetchall(self)


class Connection:
    """oracledb.Connection's surface over a psycopg connection (``.pg``)."""

    def __init__(self, pg: psycopg.Connection):
        self.pg = pg

    def cursor(self) -> Cursor:
        return Cursor(self)

    def commit(self) -> None:
        self.pg.commit()

    def rollback(self) -> None:
        self.pg.rollback()

    def ping(self) -> None:
        try:
            self.pg.execute("select 1")
        except psycopg.Error as exc:
            raise from_postgres(exc, "connect") from None

    def close(self) -> None:
        self.pg.close()

    def is_healthy(self) -> bool:
        return not self.pg.closed and not self.pg.broken

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class AsyncConnection:
    def __init__(self, pg: psycopg.AsyncConnection):
        self.pg = pg

    def cursor(self) -> AsyncCursor:
        return AsyncCursor(self)

    async def commit(self) -> None:
        await self.pg.commit()

    async def rollback(self) -> None:
        await self.pg.rollback()

    async def ping(self) -> None:
        try:
            await self.pg.execute("select 1")
        except psycopg.Error as exc:
            raise from_postgres(exc, "connect") from None

    async def close(self) -> None:
        await self.pg.close()

    def is_healthy(self) -> bool:
        return not self.pg.closed and not self.pg.broken
