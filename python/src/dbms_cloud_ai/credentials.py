"""dbms_cloud credentials: write-only secrets owned by the role that stored them.

Reads run as the caller (SECURITY INVOKER) and writes through writer.py;
row-level security on dbms_cloud._credential limits each role to its own rows,
so another role's credential looks exactly like a missing one.

Two kinds, as Oracle's DBMS_CLOUD.CREATE_CREDENTIAL: a username and password
(the password an API key), and an OCI API signing key (user_ocid, tenancy_ocid,
private_key, fingerprint).  The OCI key's user_ocid is kept in username, which
user_credentials shows as Oracle does; the other three are encrypted together
as one JSON secret.  Nothing here signs OCI requests: an OCI key is accepted,
stored and kept, and an ``oci`` profile's calls go to an OpenAI-compatible
endpoint without it (providers/oci.py).
"""

from __future__ import annotations

import json
import re

from . import crypto, db, names, role_binding, writer
from .errors import DuplicateObject, InvalidParameter, NotInPrerequisiteState, NullValue, UndefinedObject

_HINT_CREATE = "Create it with dbms_cloud.create_credential(credential_name, username, password)."
PASSWORD, OCI_KEY = "password", "oci_api_key"
# The parts of an OCI signing key that are encrypted (user_ocid is shown, as by Oracle).
OCI_SECRET = ("tenancy_ocid", "private_key", "fingerprint")
OCI_ATTRIBUTES = ("user_ocid", *OCI_SECRET)
_HINT_KINDS = ("Pass either username and password, or user_ocid, tenancy_ocid, private_key and "
               "fingerprint (an OCI API signing key).")


def _missing(name):
    return UndefinedObject(f"credential {name} does not exist", hint=_HINT_CREATE)


def _check_secret(password):
    if password is None:
        raise NullValue("password must not be NULL", hint="Pass the API key as password.")
    if not password.strip():
        raise InvalidParameter("password must not be empty", hint="Pass the API key as password.")


def _kind(username, password, oci: dict) -> str:
    """Which of Oracle's two forms a create_credential call is (22023 for a mix)."""
    given = [k for k, v in oci.items() if v is not None]
    if not given:
        return PASSWORD
    if username is not None or password is not None:
        both = [k for k, v in (("username", username), ("password", password)) if v is not None]
        raise InvalidParameter(
            "a credential is either a username and password or an OCI API signing key, not both",
            detail=f"Given: {', '.join(both + given)}.", hint=_HINT_KINDS)
    missing = [k for k in OCI_ATTRIBUTES if oci[k] is None]
    if missing:
        raise NullValue(f"an OCI API-key credential needs {', '.join(missing)}", hint=_HINT_KINDS)
    for k in OCI_ATTRIBUTES:
        if not oci[k].strip():
            raise InvalidParameter(f"{k} must not be empty", hint=_HINT_KINDS)
    return OCI_KEY


def create(plpy, credential_name, username, password, user_ocid=None, tenancy_ocid=None,
           private_key=None, fingerprint=None):
    name = names.normalize(credential_name, "credential")
    oci = {"user_ocid": user_ocid, "tenancy_ocid": tenancy_ocid, "private_key": private_key,
           "fingerprint": fingerprint}
    kind = _kind(username, password, oci)
    if kind == OCI_KEY:
        username, secret = user_ocid, json.dumps({k: oci[k] for k in OCI_SECRET})
    else:
        _check_secret(password)
        secret = password
    owner = db.current_user(plpy)
    blob, kid = crypto.encrypt(owner, name, secret, role_binding.binding(plpy))
    row = writer.one(plpy, """
        insert into dbms_cloud._credential (owner, credential_name, username, secret, key_id, kind)
        values (dbms_cloud_ai._caller(), $1, $2, $3, $4, $5)
        on conflict (owner, credential_name) do nothing
        returning credential_id""", ("text", "text", "bytea", "text", "text"),
                     (name, username, blob, kid, kind))
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


def _own_row(plpy, name: str) -> dict:
    row = db.one(plpy, """
        select owner::text as owner, secret, key_id, kind,
               (select b.binding_id::text from dbms_cloud_ai._role_binding b
                 where b.role_name = current_user) as binding
          from dbms_cloud._credential where owner = current_user and credential_name = $1""",
                 ("text",), (name,))
    if row is None:
        role_binding.check(plpy)
        raise _missing(name)
    return row


def _set_secret(plpy, name: str, secret: str):
    blob, kid = crypto.encrypt(db.current_user(plpy), name, secret, role_binding.binding(plpy))
    return writer.one(plpy, """
        update dbms_cloud._credential set secret = $2, key_id = $3, modified = now()
         where owner = dbms_cloud_ai._caller() and credential_name = $1 returning 1 as x""",
                      ("text", "bytea", "text"), (name, blob, kid))


def _wrong_kind(name: str, attr: str, kind: str) -> InvalidParameter:
    has = ("an OCI API signing key (user_ocid, tenancy_ocid, private_key, fingerprint)"
           if kind == OCI_KEY else "a username and password")
    return InvalidParameter(f"credential {name} holds {has}: it has no attribute {attr}",
                            hint="Drop it and create it again in the other form to change its kind.")


def update(plpy, credential_name, attribute, value):
    name = names.normalize(credential_name, "credential")
    if attribute is None:
        raise NullValue("attribute must not be NULL", hint="Pass 'username' or 'password'.")
    attr = attribute.strip().lower()
    if attr not in ("username", "password", *OCI_ATTRIBUTES):
        raise InvalidParameter(f"unknown credential attribute {attribute!r}",
                               hint="dbms_cloud.update_credential accepts 'username' or 'password', "
                                    "or user_ocid, tenancy_ocid, private_key or fingerprint of an "
                                    "OCI API-key credential.")
    if attr in OCI_ATTRIBUTES:
        if value is None:
            raise NullValue(f"{attr} must not be NULL", hint=_HINT_KINDS)
        if not value.strip():
            raise InvalidParameter(f"{attr} must not be empty", hint=_HINT_KINDS)
    kind = _own_row(plpy, name)["kind"] if attr != "username" else None
    if kind is not None and (kind == OCI_KEY) != (attr in OCI_ATTRIBUTES):
        raise _wrong_kind(name, attr, kind)
    if attr == "password":
        _check_secret(value)
        row = _set_secret(plpy, name, value)
    elif attr in OCI_SECRET:
        cur = _own_row(plpy, name)
        parts = json.loads(crypto.decrypt(cur["owner"], name, bytes(cur["secret"]), cur["key_id"],
                                          cur["binding"]))
        row = _set_secret(plpy, name, json.dumps({**parts, attr: value}))
    else:   # username, or user_ocid (the same column, as Oracle shows it)
        row = writer.one(plpy, """
            update dbms_cloud._credential set username = $2, modified = now()
             where owner = dbms_cloud_ai._caller() and credential_name = $1 returning 1 as x""",
                         ("text", "text"), (name, value))
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


def api_key(plpy, credential_name, row: dict | None = None, shared_by: str | None = None,
            oci_key_ok: bool = False) -> str | None:
    """Decrypt the caller's own credential for the provider's auth header only.

    ``row`` is the credential as already read by the caller's own query (see
    profiles.for_call); it is used only when it is the credential asked for.
    ``shared_by``: the owner of a shared profile, whose credential ``row`` is;
    never the caller's own credential of that name instead (the owner's
    endpoint would receive the caller's key).
    ``oci_key_ok``: an OCI API signing key is acceptable and gives None (no
    key is sent: nothing here signs OCI requests); otherwise it is 22023."""
    name = names.normalize(credential_name, "credential")
    if shared_by is not None and (row is None or row["name"] != name):
        raise UndefinedObject(f"credential {name} of the shared profile does not exist",
                              detail=f"The profile's owner, {shared_by}, dropped or renamed it.",
                              hint="Ask the owner to create it with dbms_cloud.create_credential().")
    if row is None or row["name"] != name:
        row = db.one(plpy, """
            select credential_name as name, owner::text as owner, secret, key_id, enabled, kind,
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
    if row.get("kind", PASSWORD) == OCI_KEY:
        if oci_key_ok:
            return None
        raise InvalidParameter(
            f"credential {name} is an OCI API signing key, not an API key",
            detail="Only provider oci accepts an OCI API-key credential.",
            hint="Create a credential with username and password (the API key) with "
                 "dbms_cloud.create_credential(), and name it in credential_name.")
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
