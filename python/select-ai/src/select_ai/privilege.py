"""Privileges and network access: Oracle's grants on the DBMS_CLOUD packages and its host ACLs.

How each Oracle notion maps onto PostgreSQL and the extension:
- A database user is a PostgreSQL role; an unquoted Oracle name is the role's name folded to
  lower case, a double-quoted one is kept as written (``db.role_name``).
- ``grant_privileges`` / ``revoke_privileges``: Oracle grants EXECUTE on DBMS_CLOUD,
  DBMS_CLOUD_AI, DBMS_CLOUD_AI_AGENT and DBMS_CLOUD_PIPELINE; here that is membership in the
  extension's ``dbms_cloud_ai_user`` role, which holds EXECUTE on all its functions.
- ``grant_http_access`` / ``revoke_http_access``: DBMS_NETWORK_ACL_ADMIN.APPEND_HOST_ACE /
  REMOVE_HOST_ACE with the ``http`` privilege, i.e. ``dbms_cloud_ai.append_host_ace`` /
  ``remove_host_ace``.  As in Oracle, removing an ACE the user does not hold is ORA-01927.
- ``grant_network_access`` / ``revoke_network_access``: the same with Oracle's privilege names
  (``http``, ``connect``, ``resolve``, ``smtp``, ...), one ACE per privilege, and a port range.

The extension's errors become Oracle's numbers through errors.ORA_CODES (topics ``privilege``,
``acl``, ``acl.revoke``); the ACL ones are then given Oracle's texts, which the suite asserts.
"""

from __future__ import annotations

import oracledb
from psycopg import sql as pgsql

from . import db
from ._run import Sql, arun, run
from .errors import database_error

__all__ = [
    "async_grant_http_access", "async_grant_network_access", "async_grant_privileges",
    "async_revoke_http_access", "async_revoke_network_access", "async_revoke_privileges",
    "grant_http_access", "grant_network_access", "grant_privileges", "revoke_http_access",
    "revoke_network_access", "revoke_privileges",
]

USER_ROLE = "dbms_cloud_ai_user"

# Oracle's texts for the ORA- numbers errors.ORA_CODES gives the ACL calls' errors.
NOT_GRANTED, NO_PRINCIPAL, BAD_ARGUMENT, BAD_HOST, NO_USER = 1927, 46238, 29261, 24244, 1917
_ORACLE_TEXT = {
    NOT_GRANTED: "cannot REVOKE privileges you did not grant",
    BAD_ARGUMENT: "bad argument",
    BAD_HOST: "invalid host or port for access control list (ACL) assignment",
}


def _users(users) -> list:
    """A name or a list of names; anything else is a TypeError, as in the SDK."""
    if isinstance(users, str):
        return [users]
    if not isinstance(users, (list, tuple)):
        raise TypeError(f"'users' must be a string or a list of strings, not {type(users).__name__}")
    return list(users)


def _nonempty(value, name: str) -> list:
    value = [value] if isinstance(value, str) else value
    if not value:
        raise ValueError(f"'{name}' cannot be empty")
    return list(value)


def _oracle_error(e: oracledb.DatabaseError, user: str) -> oracledb.DatabaseError:
    code = e.args[0].code
    if code == NO_PRINCIPAL:
        return database_error(code, f"Database user or role '{user}' does not exist")
    if code in _ORACLE_TEXT:
        return database_error(code, _ORACLE_TEXT[code])
    return e


def _ace_count():
    return Sql("select count(*) from dbms_cloud_ai.user_host_aces", fetch="value")


def _plan_aces(users: list, host, privileges: list, lower_port, upper_port, grant: bool):
    """One ACE per user and privilege; grant trims the user's name, revoke takes it as given
    (Oracle's REMOVE_HOST_ACE matches the principal exactly: ORA-01927 for '  NAME  ')."""
    function = "append_host_ace" if grant else "remove_host_ace"
    call = pgsql.SQL("select dbms_cloud_ai.{}(host => %(host)s, principal_name => %(role)s, "
                     "lower_port => %(lo)s, upper_port => %(hi)s{})")
    for user in users:
        name = user.strip() if grant else user
        role = db.role_name(name)
        for privilege in privileges:
            named = pgsql.SQL(", privilege => %(p)s") if privilege is not None else pgsql.SQL("")
            params = {"host": host, "role": role, "lo": lower_port, "hi": upper_port,
                      "p": privilege}
            try:
                before = None if grant else (yield _ace_count())
                yield Sql(call.format(pgsql.Identifier(function), named), params,
                          topic="acl" if grant else "acl.revoke")
                if not grant and (yield _ace_count()) == before:
                    raise database_error(NOT_GRANTED, _ORACLE_TEXT[NOT_GRANTED])
            except oracledb.DatabaseError as e:
                raise _oracle_error(e, name) from None


def _plan_privileges(users: list, grant: bool):
    statement = (pgsql.SQL("grant {} to {}") if grant else pgsql.SQL("revoke {} from {}"))
    for user in users:
        role = db.role_name(user.strip())
        try:
            yield Sql(statement.format(pgsql.Identifier(USER_ROLE), pgsql.Identifier(role)),
                      topic="privilege")
        except oracledb.DatabaseError as e:
            if e.args[0].code == NO_USER:
                raise database_error(NO_USER, f"user or role '{user.strip()}' does not exist") \
                    from None
            raise


def _http(users, provider_endpoint, grant):
    return _plan_aces(_users(users), provider_endpoint, [None], None, None, grant)


def _network(users, host, privileges, lower_port, upper_port, grant):
    privileges = [p.strip().lower() for p in _nonempty(privileges, "privileges")]
    return _plan_aces(_nonempty(users, "users"), host, privileges, lower_port, upper_port, grant)


def grant_privileges(users):
    """Let the users call the extension (Oracle: EXECUTE on the DBMS_CLOUD* packages)."""
    return run(_plan_privileges(_users(users), True))


async def async_grant_privileges(users):
    return await arun(_plan_privileges(_users(users), True))


def revoke_privileges(users):
    return run(_plan_privileges(_users(users), False))


async def async_revoke_privileges(users):
    return await arun(_plan_privileges(_users(users), False))


def grant_http_access(users, provider_endpoint: str):
    """Let the users send HTTPS requests to provider_endpoint (a host name or '*.domain')."""
    return run(_http(users, provider_endpoint, True))


async def async_grant_http_access(users, provider_endpoint: str):
    return await arun(_http(users, provider_endpoint, True))


def revoke_http_access(users, provider_endpoint: str):
    return run(_http(users, provider_endpoint, False))


async def async_revoke_http_access(users, provider_endpoint: str):
    return await arun(_http(users, provider_endpoint, False))


def grant_network_access(users, host: str, privileges, lower_port: int | None = None,
                         upper_port: int | None = None):
    """Add a host ACE per user and privilege (Oracle's names: http, connect, resolve, smtp)."""
    return run(_network(users, host, privileges, lower_port, upper_port, True))


async def async_grant_network_access(users, host: str, privileges, lower_port: int | None = None,
                                     upper_port: int | None = None):
    return await arun(_network(users, host, privileges, lower_port, upper_port, True))


def revoke_network_access(users, host: str, privileges, lower_port: int | None = None,
                          upper_port: int | None = None):
    return run(_network(users, host, privileges, lower_port, upper_port, False))


async def async_revoke_network_access(users, host: str, privileges, lower_port: int | None = None,
                                      upper_port: int | None = None):
    return await arun(_network(users, host, privileges, lower_port, upper_port, False))
