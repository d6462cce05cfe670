"""Credentials: Oracle's DBMS_CLOUD.CREATE_CREDENTIAL / DROP_CREDENTIAL over dbms_cloud.

How each Oracle notion maps onto the extension:
- A credential is ``dbms_cloud.create_credential`` in one of Oracle's two forms: ``username`` and
  ``password`` (an API key), or an OCI API signing key (``user_ocid``, ``tenancy_ocid``,
  ``private_key``, ``fingerprint``).  Only the keys given are passed, in named notation.
- ``comments``: Oracle keeps a comment with the credential; the extension has nowhere to keep it,
  so it is accepted and not stored.
- ``public_synonym``: Oracle creates a public synonym so that other schemas can name the
  credential.  Here a credential belongs to its role, and the grantees of a shared profile use the
  owner's credential through the profile (docs/reference/profile-sharing.md): there is no synonym
  to create or drop, and the flag changes nothing.
- ``grant_credential_access`` / ``revoke_credential_access``: Oracle's GRANT EXECUTE on the
  credential object.  The extension shares a credential only through a shared profile, so these
  check what Oracle checks (the credential exists, the grantee exists) and store nothing.

Oracle's own name checks and their texts (ORA-20010 missing or invalid name, ORA-20008 too long,
PLS-00306 for a set of keys that matches neither form) are made here, before the call, since the
suite asserts those texts; the extension then applies the same rules (names.normalize).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import oracledb
from psycopg import sql as pgsql

from . import db
from ._run import Sql, arun, run
from .errors import database_error

__all__ = [
    "async_create_credential", "async_delete_credential", "async_grant_credential_access",
    "async_revoke_credential_access", "create_credential", "delete_credential",
    "grant_credential_access", "revoke_credential_access",
]

# Oracle's ORA- numbers for DBMS_CLOUD's credential errors (errors.ORA_CODES maps the rest).
EXISTS, MISSING, BAD_ARGUMENT, TOO_LONG = 20022, 20004, 20010, 20008
MAX_NAME_LENGTH = 128
_SIMPLE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_$#]*\Z")

# Oracle's two overloads of CREATE_CREDENTIAL: (required keys, optional keys).
_FORMS = (
    ({"credential_name", "username"}, {"password", "comments"}),
    ({"credential_name", "user_ocid", "tenancy_ocid", "private_key", "fingerprint"}, {"comments"}),
)
_KEYS = set().union(*(required | optional for required, optional in _FORMS))
# The extension's parameters (comments has none: see the module docstring).
_PARAMETERS = ("credential_name", "username", "password", "user_ocid", "tenancy_ocid",
               "private_key", "fingerprint")


def _wrong_arguments(procedure: str) -> oracledb.DatabaseError:
    """What Oracle says when no overload of a PL/SQL procedure fits the named arguments."""
    return database_error(6550, f"line 1, column 7:\nPLS-00306: wrong number or types of "
                                f"arguments in call to '{procedure}'")


def _lower_keys(credential: Mapping) -> dict:
    """The credential with lower-case keys; ValueError for a key neither form has, raised
    before any connection is used, as by the SDK."""
    keys = {}
    for key, value in credential.items():
        if key.lower() not in _KEYS:
            raise ValueError(f"Invalid key {key} for credential object")
        keys[key.lower()] = value
    return keys


def stored_name(credential_name: str | None) -> str:
    """The name as the extension stores it, after Oracle's checks: unquoted names are
    upper-cased, a double-quoted one kept as written."""
    if credential_name is None or not str(credential_name).strip():
        raise database_error(BAD_ARGUMENT, "Missing credential name")
    name = str(credential_name).strip()
    quoted = len(name) >= 2 and name[0] == name[-1] == '"'
    bare = name[1:-1] if quoted else name
    if len(bare) > MAX_NAME_LENGTH:
        raise database_error(TOO_LONG, f"Credential name length ({len(bare)}) exceeds maximum "
                                       f"length ({MAX_NAME_LENGTH})")
    if not bare or (quoted and '"' in bare) or (not quoted and not _SIMPLE_NAME.match(bare)):
        raise database_error(BAD_ARGUMENT, "Invalid credential name")
    return bare if quoted else bare.upper()


def _create_sql(keys: dict) -> Sql:
    names = [p for p in _PARAMETERS if p in keys]
    call = pgsql.SQL("select dbms_cloud.create_credential({})").format(pgsql.SQL(", ").join(
        pgsql.SQL("{} => {}").format(pgsql.Identifier(p), pgsql.Placeholder(p)) for p in names))
    return Sql(call, {p: keys[p] for p in names}, topic="credential")


def _drop_sql(credential_name: str) -> Sql:
    return Sql("select dbms_cloud.drop_credential(credential_name => %(n)s)",
               {"n": credential_name}, topic="credential")


def _plan_create(keys: dict, replace: bool):
    given = set(keys)
    if not any(required <= given <= required | optional for required, optional in _FORMS):
        raise _wrong_arguments("CREATE_CREDENTIAL")
    stored_name(keys["credential_name"])
    try:
        yield _create_sql(keys)
    except oracledb.DatabaseError as e:
        if not (replace and e.args[0].code == EXISTS):
            raise
        yield _drop_sql(keys["credential_name"])
        yield _create_sql(keys)


def _plan_delete(credential_name: str | None, force: bool):
    stored_name(credential_name)
    try:
        yield _drop_sql(credential_name)
    except oracledb.DatabaseError as e:
        if not (force and e.args[0].code == MISSING):
            raise


def _grantee(user_or_role_name) -> str:
    """The SDK's check of a grantee name (TypeError, ValueError), then Oracle's name folding."""
    if not isinstance(user_or_role_name, str):
        raise TypeError("'user_or_role_name' must be a string")
    if not user_or_role_name.strip():
        raise ValueError("'user_or_role_name' cannot be empty")
    return db.role_name(user_or_role_name.strip())


def _plan_check_access(credential_name: str, user_or_role_name: str, role: str):
    name = stored_name(credential_name)
    if (yield Sql("select 1 from dbms_cloud.user_credentials where credential_name = %(n)s",
                  {"n": name}, fetch="value")) is None:
        raise database_error(942, "table or view does not exist")
    if (yield Sql("select 1 from pg_catalog.pg_roles where rolname = %(r)s",
                  {"r": role}, fetch="value")) is None:
        raise database_error(1917, f"user or role '{user_or_role_name.strip()}' does not exist")


def _access(credential_name, user_or_role_name):
    """The plan of grant/revoke_credential_access, the grantee's name checked first."""
    return _plan_check_access(credential_name, user_or_role_name, _grantee(user_or_role_name))


def create_credential(credential: Mapping, replace: bool = False, public_synonym: bool = False):
    """Create a credential; with replace, drop and re-create one of the same name."""
    return run(_plan_create(_lower_keys(credential), replace))


async def async_create_credential(credential: Mapping, replace: bool = False,
                                  public_synonym: bool = False):
    return await arun(_plan_create(_lower_keys(credential), replace))


def delete_credential(credential_name: str, force: bool = False, public_synonym: bool = False):
    """Drop a credential; with force, one that does not exist is no error."""
    return run(_plan_delete(credential_name, force))


async def async_delete_credential(credential_name: str, force: bool = False,
                                  public_synonym: bool = False):
    return await arun(_plan_delete(credential_name, force))


def grant_credential_access(credential_name: str, user_or_role_name: str) -> None:
    return run(_access(credential_name, user_or_role_name))


async def async_grant_credential_access(credential_name: str, user_or_role_name: str) -> None:
    return await arun(_access(credential_name, user_or_role_name))


def revoke_credential_access(credential_name: str, user_or_role_name: str) -> None:
    return run(_access(credential_name, user_or_role_name))


async def async_revoke_credential_access(credential_name: str, user_or_role_name: str) -> None:
    return await arun(_access(credential_name, user_or_role_name))
