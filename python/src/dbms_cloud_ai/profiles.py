"""AI profiles: named sets of attributes owned by the role that created them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from . import acl, attributes, credentials, db, names, role_binding, sharing, writer
from .conversations import store as conversations
from .errors import DuplicateObject, InvalidParameter, NotInPrerequisiteState, NullValue, UndefinedObject
from .model import timing

SESSION_GUC = "dbms_cloud_ai.profile_name"
OWNER_GUC = "dbms_cloud_ai.profile_owner"   # set_profile of a shared profile: its owner
_HINT_CREATE = "Create it with dbms_cloud_ai.create_profile(profile_name, attributes)."


@dataclass
class Profile:
    profile_id: int
    name: str
    status: str
    attrs: dict
    texts: dict = field(default_factory=dict)   # attribute -> the text the user gave (views)
    stored: str | None = None   # a shared profile's own name (``name`` is "owner"."NAME")

    @property
    def stored_name(self) -> str:
        return self.stored or self.name


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
    """Check a profile's attributes; return its normalized credential name."""
    attributes.check_profile(attrs)
    if "credential_name" in changed and attrs.get("credential_name"):
        credentials.require(plpy, attrs["credential_name"])
    cred = attrs.get("credential_name")
    return names.normalize(cred, "credential") if cred else None


def _texts(kept: dict, parsed: dict, given: dict, attrs: dict) -> dict:
    """The texts the views show: ``kept`` for attributes not changed now, the
    text given now for those set; none for a removed one, or one set from a
    parsed value (the views then show the typed value)."""
    texts = {k: v for k, v in kept.items() if k not in parsed}
    texts.update((k, given[k]) for k in parsed if k in given and k in attrs)
    return {k: v for k, v in texts.items() if k in attrs}


def create(plpy, profile_name, attributes_json, status, description):
    name = names.normalize(profile_name, "profile")
    parsed = attributes.parse_all(attributes.parse_json_object(attributes_json, "attributes"))
    attrs = attributes.merge({}, parsed)
    cred = _validate(plpy, attrs, attrs)
    texts = _texts({}, parsed, attributes.given_texts(attributes_json), attrs)
    row = writer.one(plpy, """
        insert into dbms_cloud_ai._profile
               (owner, profile_name, status, description, attributes, credential_name,
                attribute_text)
        values (dbms_cloud_ai._caller(), $1, $2, $3, $4::jsonb, $5, $6::jsonb)
        on conflict (owner, profile_name) do nothing returning profile_id""",
                 ("text", "text", "text", "text", "text", "text"),
                 (name, _status(status), description, json.dumps(attrs), cred,
                  json.dumps(texts)))
    if row is None:
        raise DuplicateObject(f"profile {name} already exists",
                              hint="Drop it with dbms_cloud_ai.drop_profile() or change it with "
                                   "dbms_cloud_ai.set_attributes().")


def load(plpy, profile_name, what: str = "change it") -> Profile:
    name = sharing.own_name(plpy, profile_name, what)
    row = db.one(plpy, """
        select profile_id, status, attributes::text as attributes,
               attribute_text::text as texts from dbms_cloud_ai._profile
         where owner = current_user and profile_name = $1""", ("text",), (name,))
    if row is None:
        raise _missing(name)
    return Profile(row["profile_id"], name, row["status"], json.loads(row["attributes"]),
                   json.loads(row["texts"]))


def drop(plpy, profile_name, force):
    name = sharing.own_name(plpy, profile_name, "drop it")
    gone = writer.one(plpy, "delete from dbms_cloud_ai._profile where owner = dbms_cloud_ai._caller() "
                        "and profile_name = $1 returning 1 as x", ("text",), (name,))
    if gone is None and not force:
        raise _missing(name)
    view = names.feedback_store_view(name)
    if gone is not None and view is not None:     # its feedback store view (nl2sql/feedback.py)
        db.query(plpy, "select dbms_cloud_ai._feedback_vectab_drop($1, $2)", ("text", "text"),
                 (view, name))
    if _session_name(plpy) == name and not _session_owner(plpy):
        clear_session(plpy)


def _session_owner(plpy):
    row = db.one(plpy, "select pg_catalog.current_setting($1, true) as v", ("text",), (OWNER_GUC,))
    return row["v"] or None


def set_status(plpy, profile_name, status):
    p = load(plpy, profile_name)
    if p.status == status:
        raise NotInPrerequisiteState(
            f"profile {p.name} is already {status.lower()}",
            hint=f"Call dbms_cloud_ai.{'disable' if status == 'ENABLED' else 'enable'}_profile() "
                 "to change it.")
    writer.query(plpy, "update dbms_cloud_ai._profile set status = $2, last_modified = now() "
                   "where profile_id = $1", ("bigint", "text"), (p.profile_id, status))


def set_attributes(plpy, profile_name, changes: dict, given: dict | None = None):
    """Merge ``changes``; ``given``: their texts as the user wrote them, by attribute."""
    p = load(plpy, profile_name)
    parsed = attributes.parse_all(changes)
    merged = attributes.merge(p.attrs, parsed)
    cred = _validate(plpy, merged, parsed)
    texts = _texts(p.texts, parsed, given or {}, merged)
    writer.query(plpy, "update dbms_cloud_ai._profile set attributes = $2::jsonb, credential_name = $3, "
                   "attribute_text = $4::jsonb, last_modified = now() where profile_id = $1",
             ("bigint", "text", "text", "text"),
             (p.profile_id, json.dumps(merged), cred, json.dumps(texts)))


def set_attribute(plpy, profile_name, attribute_name, attribute_value):
    if attribute_name is None:
        raise NullValue("attribute_name must not be NULL", hint=attributes.HINT)
    given = {attribute_name.strip().lower(): attributes.given_text(attribute_value)}
    set_attributes(plpy, profile_name, {attribute_name: attribute_value}, given)


# --- the session's current profile -------------------------------------------

def _session_name(plpy):
    row = db.one(plpy, "select pg_catalog.current_setting($1, true) as v", ("text",), (SESSION_GUC,))
    return row["v"] or None


def _set_session(plpy, name: str, owner: str):
    db.query(plpy, "select pg_catalog.set_config($1, $2, false), pg_catalog.set_config($3, $4, false)",
             ("text", "text", "text", "text"), (SESSION_GUC, name, OWNER_GUC, owner))


def set_session(plpy, profile_name):
    """The session's profile: the caller's own, or one shared with it (OWNER_GUC)."""
    ctx = for_call(plpy, profile_name, enabled_only=False)
    _set_session(plpy, ctx.profile.stored_name, ctx.owner or "")


def get_session(plpy):
    """The session profile's name (a shared one as "owner"."NAME"), if the
    current role may still use it."""
    row = db.one(plpy, f"""
        select p.profile_name, p.owner::text as owner, p.owner = current_user as mine
          from dbms_cloud_ai._profile p
         where p.owner = coalesce(nullif(pg_catalog.current_setting($2, true), ''), current_user)
           and p.profile_name = nullif(pg_catalog.current_setting($1, true), '')
           and {sharing.USABLE}""",
                 ("text", "text"), (SESSION_GUC, OWNER_GUC))
    if row is None:
        return None
    return row["profile_name"] if row["mine"] else sharing.display(row["owner"], row["profile_name"])


def clear_session(plpy):
    _set_session(plpy, "", "")


@dataclass
class CallContext:
    """What a model call needs from the database, read in one statement."""

    profile: Profile
    credential: dict | None   # the caller's row for the profile's own credential_name
    aces: list                # host ACEs visible to the caller: [host, lower_port, upper_port]
    settings: dict            # timing.stamped: the time settings, read_at, ro, xid, sct
    session_conversation: str | None = None  # the setting dbms_cloud_ai.conversation_id
    who: str | None = None                   # current_user
    budgets: dict | None = None              # token budgets that apply: {role or PUBLIC: tokens}
    owner: str | None = None                 # a shared profile's owner (None: the caller's own)
    grant_budget: int | None = None          # a grantee's daily tokens through it (its grants' least)


_CALL = f"""
    select p.profile_id, p.profile_name, p.status, p.attributes::text as attributes,
           p.owner::text as owner, p.credential_name as profile_cred,
           c.credential_name as cred_name, c.owner::text as cred_owner, c.secret, c.key_id,
           c.enabled as cred_enabled, c.kind as cred_kind,
           (select b.binding_id::text from dbms_cloud_ai._role_binding b
             where b.role_name = current_user) as binding,
           (select pg_catalog.json_agg(pg_catalog.json_build_array(a.host, a.lower_port, a.upper_port))
              from dbms_cloud_ai._host_ace a where a.{acl.EGRESS_SQL})::text as aces,
           pg_catalog.current_setting('{conversations.SESSION_GUC}', true) as conv,
           current_user::text as who,
           (select pg_catalog.json_object_agg(b.principal, b.daily_tokens)
              from dbms_cloud_ai._token_budget b)::text as budgets,
           (select pg_catalog.min(g.daily_tokens) from dbms_cloud_ai._profile_grant g
             where g.profile_id = p.profile_id and p.owner <> current_user
               and (g.grantee_oid = 0
                    or (pg_catalog.pg_get_userbyid(g.grantee_oid) = g.grantee
                        and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))
               as grant_budget,{timing.SETTINGS_COLUMNS}
      from dbms_cloud_ai._profile p
      left join dbms_cloud._credential c
        on c.owner = current_user and c.credential_name = p.credential_name
     where p.profile_name = coalesce($1, nullif(pg_catalog.current_setting($2, true), ''))
       and p.owner = case when $1 is null
                          then coalesce(nullif(pg_catalog.current_setting($4, true), ''), current_user)
                          else coalesce($3, current_user) end
       and {sharing.USABLE}"""


def for_call(plpy, profile_name, enabled_only: bool = True) -> CallContext:
    """The profile a generate() call uses (the named one, else the session's; the
    caller's own or one shared with it), with its credential, the caller's host
    ACEs and the time budget settings."""
    name = owner = None
    if profile_name is not None and profile_name.strip():
        ref = sharing.parse(profile_name)
        name = ref.name
        if ref.owner is not None:
            owner = sharing.resolve_owner(plpy, ref)
    row = db.one(plpy, _CALL, ("text", "text", "text", "text"), (name, SESSION_GUC, owner, OWNER_GUC))
    if row is None:
        role_binding.check(plpy)   # a later role of a dropped role's name: say so, not "does not exist"
        if name is None and _session_name(plpy) is None:
            raise NotInPrerequisiteState(
                "no AI profile is set for this session",
                hint="Pass profile_name, or call dbms_cloud_ai.set_profile(profile_name) first.")
        raise _missing(name or _session_name(plpy))
    shared = row["owner"] if row["owner"] != row["who"] else None
    profile = Profile(row["profile_id"], row["profile_name"], row["status"], json.loads(row["attributes"]))
    if shared:
        profile.stored, profile.name = profile.name, sharing.display(shared, profile.name)
    if enabled_only and profile.status != "ENABLED":
        raise NotInPrerequisiteState(
            f"profile {profile.name} is disabled",
            hint="Enable it with dbms_cloud_ai.enable_profile()." if not shared
            else "Its owner enables it with dbms_cloud_ai.enable_profile().")
    credential = None
    if shared and row["profile_cred"] is not None:
        credential = sharing.shared_credential(plpy, row["profile_id"])
    elif row["cred_name"] is not None:
        credential = {"name": row["cred_name"], "owner": row["cred_owner"], "secret": row["secret"],
                      "key_id": row["key_id"], "enabled": row["cred_enabled"],
                      "binding": row["binding"], "kind": row["cred_kind"]}
    return CallContext(profile, credential, json.loads(row["aces"] or "[]"),
                       timing.stamped(row),
                       (row["conv"] or "").lower() or None, row["who"],
                       json.loads(row["budgets"]) if row["budgets"] else {}, shared,
                       row["grant_budget"] if shared else None)
