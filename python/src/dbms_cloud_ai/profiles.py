"""AI profiles: named sets of attributes owned by the role that created them."""

from __future__ import annotations

import json
from dataclasses import dataclass

from . import attributes, credentials, db, names
from .errors import (DuplicateObject, InvalidParameter, NotInPrerequisiteState, NullValue,
                     UndefinedObject)

SESSION_GUC = "dbms_cloud_ai.profile_name"
_HINT_CREATE = "Create it with dbms_cloud_ai.create_profile(profile_name, attributes)."


@dataclass
class Profile:
    profile_id: int
    name: str
    status: str
    attrs: dict


def _missing(name):
    return UndefinedObject(f'profile "{name}" does not exist', hint=_HINT_CREATE)


def _status(status):
    if status is None:
        return "ENABLED"
    s = status.strip().upper()
    if s not in ("ENABLED", "DISABLED"):
        raise InvalidParameter(f"invalid profile status {status!r}",
                               hint="Pass status => 'enabled' or 'disabled'.")
    return s


def _validate(plpy, attrs, changed):
    attributes.check_profile(attrs)
    if "credential_name" in changed and attrs.get("credential_name"):
        credentials.require(plpy, attrs["credential_name"])


def create(plpy, profile_name, attributes_json, status, description):
    name = names.normalize(profile_name, "profile")
    attrs = attributes.merge({}, attributes.parse_all(
        attributes.parse_json_object(attributes_json, "attributes")))
    _validate(plpy, attrs, attrs)
    row = db.one(plpy, """
        insert into dbms_cloud_ai._profile (owner, profile_name, status, description, attributes)
        values (current_user, $1, $2, $3, $4::jsonb)
        on conflict (owner, profile_name) do nothing returning profile_id""",
                 ("text", "text", "text", "text"), (name, _status(status), description, json.dumps(attrs)))
    if row is None:
        raise DuplicateObject(f"profile {name} already exists",
                              hint="Drop it with dbms_cloud_ai.drop_profile() or change it with "
                                   "dbms_cloud_ai.set_attributes().")


def load(plpy, profile_name) -> Profile:
    name = names.normalize(profile_name, "profile")
    row = db.one(plpy, """
        select profile_id, status, attributes::text as attributes from dbms_cloud_ai._profile
         where owner = current_user and profile_name = $1""", ("text",), (name,))
    if row is None:
        raise _missing(name)
    return Profile(row["profile_id"], name, row["status"], json.loads(row["attributes"]))


def drop(plpy, profile_name, force):
    name = names.normalize(profile_name, "profile")
    gone = db.one(plpy, "delete from dbms_cloud_ai._profile where owner = current_user "
                        "and profile_name = $1 returning 1 as x", ("text",), (name,))
    if gone is None and not force:
        raise _missing(name)
    if _session_name(plpy) == name:
        clear_session(plpy)


def set_status(plpy, profile_name, status):
    p = load(plpy, profile_name)
    if p.status == status:
        raise NotInPrerequisiteState(
            f"profile {p.name} is already {status.lower()}",
            hint=f"Call dbms_cloud_ai.{'disable' if status == 'ENABLED' else 'enable'}_profile() "
                 "to change it.")
    db.query(plpy, "update dbms_cloud_ai._profile set status = $2, last_modified = now() "
                   "where profile_id = $1", ("bigint", "text"), (p.profile_id, status))


def set_attributes(plpy, profile_name, changes: dict):
    p = load(plpy, profile_name)
    parsed = attributes.parse_all(changes)
    merged = attributes.merge(p.attrs, parsed)
    _validate(plpy, merged, parsed)
    db.query(plpy, "update dbms_cloud_ai._profile set attributes = $2::jsonb, "
                   "last_modified = now() where profile_id = $1",
             ("bigint", "text"), (p.profile_id, json.dumps(merged)))


def set_attribute(plpy, profile_name, attribute_name, attribute_value):
    if attribute_name is None:
        raise NullValue("attribute_name must not be NULL", hint=attributes.HINT)
    set_attributes(plpy, profile_name, {attribute_name: attribute_value})


# --- the session's current profile -------------------------------------------

def _session_name(plpy):
    row = db.one(plpy, "select pg_catalog.current_setting($1, true) as v", ("text",), (SESSION_GUC,))
    return row["v"] or None


def set_session(plpy, profile_name):
    p = load(plpy, profile_name)
    db.query(plpy, "select pg_catalog.set_config($1, $2, false)", ("text", "text"), (SESSION_GUC, p.name))


def get_session(plpy):
    """The session profile's name, if it still exists for the current role."""
    name = _session_name(plpy)
    if name is None:
        return None
    row = db.one(plpy, "select 1 as x from dbms_cloud_ai._profile where owner = current_user "
                       "and profile_name = $1", ("text",), (name,))
    return name if row else None


def clear_session(plpy):
    db.query(plpy, "select pg_catalog.set_config($1, '', false)", ("text",), (SESSION_GUC,))


def for_call(plpy, profile_name) -> Profile:
    """The profile a generate() call uses: the named one, else the session's."""
    if profile_name is None or not profile_name.strip():
        name = _session_name(plpy)
        if name is None:
            raise NotInPrerequisiteState(
                "no AI profile is set for this session",
                hint="Pass profile_name, or call dbms_cloud_ai.set_profile(profile_name) first.")
        profile_name = f'"{name}"'
    p = load(plpy, profile_name)
    if p.status != "ENABLED":
        raise NotInPrerequisiteState(f"profile {p.name} is disabled",
                                     hint="Enable it with dbms_cloud_ai.enable_profile().")
    return p
