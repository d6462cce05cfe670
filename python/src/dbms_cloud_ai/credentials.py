"""dbms_cloud credentials: write-only secrets owned by the role that stored them.

Reads run as the caller (SECURITY INVOKER) and writes through writer.py;
row-level security on dbms_cloud._credential limits each role to its own rows,
so another role's credential looks exactly like a missing one.
"""

from __future__ import annotations

import re

from . import crypto, db, names, role_binding, writer
from .errors import DuplicateObject, InvalidParameter, NotInPrerequisiteState, NullValue, UndefinedObject

_HINT_CREATE = "Create it with dbms_cloud.create_credential(credential_name, username, password)."


def _missing(name):
    return UndefinedObject(f"credential {name} does not exist", hint=_HINT_CREATE)


def _check_secret(password):
    if password is None:
        raise NullValue("password must not be NULL", hint="Pass the API key as password.")
    if not password.strip():
        raise InvalidParameter("password must not be empty", hint="Pass the API key as password.")


def create(plpy, credential_name, username, password):
    name = names.normalize(credential_name, "credential")
    _check_secret(password)
    owner = db.current_user(plpy)
    blob, kid = crypto.encrypt(owner, name, password, role_binding.binding(plpy))
    row = writer.one(plpy, """
        insert into dbms_cloud._credential (owner, credential_name, username, secret, key_id)
        values (dbms_cloud_ai._caller(), $1, $2, $3, $4)
        on conflict (owner, credential_name) do nothing
        returning credential_id""", ("text", "text", "bytea", "text"), (name, username, blob, kid))
    if row is None:
        raise DuplicateObject(
            f"credential {name} already exists",
            hint="Drop it with dbms_cloud.drop_credential() or change it with "
                 "dbms_cloud.update_credential().")


def drop(plpy, credential_name):
    name = names.normalize(credential_name, "credential")
    if writer.one(plpy, "delete from dbms_cloud._credential where owner = dbms_cloud_ai._caller() "
                        "and credential_name = $1 returning 1 as x", ("text",), (name,)) is None:
        raise _missing(name)


def update(plpy, credential_name, attribute, value):
    name = names.normalize(credential_name, "credential")
    if attribute is None:
        raise NullValue("attribute must not be NULL", hint="Pass 'username' or 'password'.")
    attr = attribute.strip().lower()
    if attr == "password":
        _check_secret(value)
        owner = db.current_user(plpy)
        blob, kid = crypto.encrypt(owner, name, value, role_binding.binding(plpy))
        row = writer.one(plpy, """
            update dbms_cloud._credential set secret = $2, key_id = $3, modified = now()
             where owner = dbms_cloud_ai._caller() and credential_name = $1 returning 1 as x""",
                         ("text", "bytea", "text"), (name, blob, kid))
    elif attr == "username":
        row = writer.one(plpy, """
            update dbms_cloud._credential set username = $2, modified = now()
             where owner = dbms_cloud_ai._caller() and credential_name = $1 returning 1 as x""",
                         ("text", "text"), (name, value))
    else:
        raise InvalidParameter(f"unknown credential attribute {attribute!r}",
                               hint="dbms_cloud.update_credential accepts 'username' or 'password'.")
    if row is None:
        raise _missing(name)


def set_enabled(plpy, credential_name, enabled: bool):
    name = names.normalize(credential_name, "credential")
    if writer.one(plpy, """
            update dbms_cloud._credential set enabled = $2, modified = now()
             where owner = dbms_cloud_ai._caller() and credential_name = $1 returning 1 as x""",
                  ("text", "bool"), (name, enabled)) is None:
        raise _missing(name)


def exists(plpy, credential_name) -> bool:
    name = names.normalize(credential_name, "credential")
    return db.one(plpy, "select 1 as x from dbms_cloud._credential where owner = current_user "
                        "and credential_name = $1", ("text",), (name,)) is not None


def require(plpy, credential_name) -> None:
    if not exists(plpy, credential_name):
        raise _missing(names.normalize(credential_name, "credential"))


def api_key(plpy, credential_name, row: dict | None = None, shared_by: str | None = None) -> str:
    """Decrypt the caller's own credential for the provider's auth header only.

    ``row`` is the credential as already read by the caller's own query (see
    profiles.for_call); it is used only when it is the credential asked for.
    ``shared_by``: the owner of a shared profile, whose credential ``row`` is;
    never the caller's own credential of that name instead (the owner's
    endpoint would receive the caller's key)."""
    name = names.normalize(credential_name, "credential")
    if shared_by is not None and (row is None or row["name"] != name):
        raise UndefinedObject(f"credential {name} of the shared profile does not exist",
                              detail=f"The profile's owner, {shared_by}, dropped or renamed it.",
                              hint="Ask the owner to create it with dbms_cloud.create_credential().")
    if row is None or row["name"] != name:
        row = db.one(plpy, """
            select credential_name as name, owner::text as owner, secret, key_id, enabled,
                   (select b.binding_id::text from dbms_cloud_ai._role_binding b
                     where b.role_name = current_user) as binding
              from dbms_cloud._credential
             where owner = current_user and credential_name = $1""", ("text",), (name,))
    if row is None:
        role_binding.check(plpy)
        raise _missing(name)
    if not row["enabled"]:
        raise NotInPrerequisiteState(f"credential {name} is disabled",
                                     hint="Enable it with dbms_cloud.enable_credential().")
    return crypto.decrypt(row["owner"], name, bytes(row["secret"]), row["key_id"], row["binding"])


def require_https(url: str, credential_name, what: str, hint: str) -> None:
    """A credential goes only over https (22023): the rule of every document fetch
    (text/documents.fetch_document), also checked where a URL is given, to refuse it first."""
    if credential_name is not None and not url.strip().lower().startswith("https://"):
        raise InvalidParameter(f"credential_name needs an https {what}",
                               detail="The credential would be sent in clear text over http.",
                               hint=hint)


_LOOPBACK = re.compile(r"(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?\Z", re.I)


def require_private_transport(url: str, credential_name) -> None:
    """A provider's key goes over https, or over plain http only to this machine
    (a local model server on a loopback address, where nothing crosses a network):
    22023 before the key is decrypted.  Names other than localhost are not taken
    for loopback, whatever they resolve to."""
    if credential_name is None:
        return
    text = url.strip()
    if text.lower().startswith("https://"):
        return
    host = text.split("://", 1)[-1].split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1]
    if _LOOPBACK.match(host):
        return
    raise InvalidParameter(
        f"provider endpoint {text[:80]} is not https: credential {credential_name} would be "
        "sent in clear text",
        detail="A credential goes over plain http only to a loopback address (localhost, "
               "127.0.0.0/8, [::1]).",
        hint="Use an https provider_endpoint with dbms_cloud_ai.set_attribute(), or a profile "
             "without credential_name for a server that needs no key.")
