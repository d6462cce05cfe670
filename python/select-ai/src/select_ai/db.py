"""Connections: one standalone connection per thread, or a pool, as in Oracle's SDK.

``dsn`` is a libpq connection string or URI (``host=db port=5432 dbname=app``); ``user`` and
``password`` are the PostgreSQL role's.  Other keyword arguments go to psycopg.connect.

What ``get_connection`` and ``cursor`` hand out are ``oracle_cursor.Connection`` /
``Cursor`` wrappers: their cursors speak the part of Oracle's SQL dialect that scripts written
for the SDK send (see oracle_sql.py), and raise ``oracledb.DatabaseError``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any

import psycopg
import psycopg_pool

from .errors import DatabaseNotConnectedError, from_postgres
from .oracle_cursor import AsyncConnection, Connection

__all__ = [
    "async_connect",
    "async_cursor",
    "async_disconnect",
    "async_get_connection",
    "async_is_connected",
    "connect",
    "create_pool",
    "create_pool_async",
    "cursor",
    "disconnect",
    "get_connection",
    "is_connected",
]

APPLICATION_NAME = "python-select-ai"

_state = threading.local()      # .conn, .async_conn: standalone connections of this thread
_pools: dict[int, Any] = {}     # pid -> psycopg_pool.ConnectionPool
_async_params: dict[int, dict] = {}  # pid -> connect params of create_pool_async


def _params(user, password, dsn, kwargs) -> dict:
    for oracle_only in ("wallet_location", "wallet_password", "config_dir",
                        "connection_id_prefix", "getmode", "wait_timeout"):
        kwargs.pop(oracle_only, None)
    params = {"conninfo": dsn or "", "user": role_name(user), "password": password,
              "application_name": APPLICATION_NAME, **kwargs}
    return {k: v for k, v in params.items() if v is not None}


def role_name(user: str | None) -> str | None:
    """Oracle user names are case-insensitive unless quoted; PostgreSQL folds them to lower case."""
    if user is None:
        return None
    return user[1:-1] if user.startswith('"') and user.endswith('"') else user.lower()


def _open(params: dict) -> psycopg.Connection:
    try:
        return psycopg.connect(**params)
    except psycopg.Error as exc:
        raise from_postgres(exc, "connect") from exc


def connect(user: str, password: str, dsn: str, *args, **kwargs) -> None:
    """Open this thread's standalone connection (closing one it had)."""
    disconnect()
    _state.conn = Connection(_open(_params(user, password, dsn, kwargs)))


def create_pool(user: str, password: str, dsn: str, min_size: int | None = 1,
                max_size: int | None = 2, increment: int | None = 1, getmode=None,
                wait_timeout: int | None = None, *args, **kwargs) -> None:
    """A pool for this process; connections are checked by opening the first one now."""
    params = _params(user, password, dsn, kwargs)
    _open(params).close()  # wrong password or host: fail here, as oracledb.create_pool does
    conninfo = params.pop("conninfo")
    old = _pools.pop(os.getpid(), None)
    if old is not None:
        old.close()
    pool = psycopg_pool.ConnectionPool(
        conninfo, kwargs=params, min_size=min_size or 1,
        max_size=max(max_size or 1, min_size or 1),
        timeout=wait_timeout / 1000 if wait_timeout else 30, open=True)
    _pools[os.getpid()] = pool


def create_pool_async(user: str, password: str, dsn: str, min_size: int | None = 1,
                      max_size: int | None = 2, increment: int | None = 1, getmode=None,
                      wait_timeout: int | None = None, *args, **kwargs) -> None:
    """Remember how to connect; each async use opens a connection on the running loop.

    An asyncio pool belongs to the event loop that opened it, and callers (test runners,
    web frameworks) may use several loops in one process: one connection per use keeps each
    on its own loop."""
    _async_params[os.getpid()] = _params(user, password, dsn, kwargs)


async def async_connect(user: str, password: str, dsn: str, *args, **kwargs) -> None:
    await async_disconnect()
    params = _params(user, password, dsn, kwargs)
    try:
        pg = await psycopg.AsyncConnection.connect(**params)
    except psycopg.Error as exc:
        raise from_postgres(exc, "connect") from exc
    _state.async_conn = AsyncConnection(pg)


def _standalone() -> Connection | None:
    conn = getattr(_state, "conn", None)
    return None if conn is None or conn.pg.closed else conn


@contextlib.contextmanager
def get_connection():
    conn = _standalone()
    if conn is not None:
        yield conn
        return
    pool = _pools.get(os.getpid())
    if pool is None or pool.closed:
        raise DatabaseNotConnectedError()
    with pool.connection() as pg:
        yield Connection(pg)


@contextlib.asynccontextmanager
async def async_get_connection():
    conn = getattr(_state, "async_conn", None)
    if conn is not None and not conn.pg.closed:
        yield conn
        return
    params = _async_params.get(os.getpid())
    if params is None:
        raise DatabaseNotConnectedError()
    try:
        pg = await psycopg.AsyncConnection.connect(**params)
    except psycopg.Error as exc:
        raise DatabaseNotConnectedError() from exc
    try:
        yield AsyncConnection(pg)
    finally:
        await pg.close()


@contextlib.contextmanager
def cursor():
    with get_connection() as conn:
        cur = conn.cursor()
        try:
            yield cur
        finally:
            cur.close()


@contextlib.asynccontextmanager
async def async_cursor():
    async with async_get_connection() as conn:
        cur = conn.cursor()
        try:
            yield cur
        finally:
            cur.close()


def is_connected() -> bool:
    try:
        with get_connection() as conn:
            conn.pg.execute("select 1")
        return True
    except (DatabaseNotConnectedError, psycopg.Error, psycopg_pool.PoolTimeout):
        return False


async def async_is_connected() -> bool:
    try:
        async with async_get_connection() as conn:
            await conn.pg.execute("select 1")
        return True
    except (DatabaseNotConnectedError, psycopg.Error):
        return False


def disconnect() -> None:
    conn = getattr(_state, "conn", None)
    _state.conn = None
    if conn is not None:
        conn.pg.close()
    pool = _pools.pop(os.getpid(), None)
    if pool is not None:
        pool.close()


async def async_disconnect() -> None:
    conn = getattr(_state, "async_conn", None)
    _state.async_conn = None
    if conn is not None:
        await conn.pg.close()
    _async_params.pop(os.getpid(), None)
