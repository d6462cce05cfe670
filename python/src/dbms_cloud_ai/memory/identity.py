"""Who a long-term memory belongs to: an (organization, subject) pair.

The organization is the tenant an administrator assigned the role to (by
default the current database).  The subject is the end user: the role itself,
or, for a trusted gateway role, the visitor it vouched for with
``set_end_user``.  That assertion lives in the setting dbms_cloud_ai.end_user,
so it follows PostgreSQL's own rules (SET LOCAL, RESET, DISCARD ALL, rollback),
but any role can write a setting: the value carries an HMAC made with a key
that exists only in this backend's memory, bound to the role that asserted it.
A copied, edited or replayed value (another backend, another role) is ignored.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from .. import acl, db, role_binding
from ..conversations import store as conversations
from ..errors import InsufficientPrivilege, InvalidParameter, NullValue

END_USER_GUC = "dbms_cloud_ai.end_user"
IDENTITIES = ("role", "asserted", "anonymous")
MAX_SUBJECT = 256
_KEY = secrets.token_bytes(32)          # per backend: assertions never leave it
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

ORG_DEFAULTS = {"enabled": False, "max_memories": 200, "idle_minutes": 15, "recall_tokens": 400,
                "max_pending_jobs": 1000}
ORG_LIMITS = {"max_memories": (1, 100_000), "idle_minutes": (0, 10_080),
              "recall_tokens": (0, 100_000), "max_pending_jobs": (1, 100_000)}


@dataclass
class Identity:
    who: str                 # current_user
    organization: str
    source: str              # role, asserted or anonymous
    subject: str | None      # None: anonymous
    enabled: bool            # the organization's switch
    max_memories: int
    idle_minutes: int
    recall_tokens: int
    max_pending_jobs: int    # pending promotion jobs one role may have (memory/jobs.py)


_CURRENT = """
    select current_user::text as who,
           coalesce(r.organization, pg_catalog.current_database()::text) as organization,
           coalesce(r.identity, 'role') as source,
           pg_catalog.current_setting('dbms_cloud_ai.end_user', true) as asserted,
           o.enabled, o.max_memories, o.idle_minutes, o.recall_tokens, o.max_pending_jobs
      from (select) d
      left join dbms_cloud_ai._memory_role r on r.role_name = current_user
      left join dbms_cloud_ai._memory_organization o
        on o.organization = coalesce(r.organization, pg_catalog.current_database()::text)"""


def _sign(who: str, subject: str) -> str:
    return hmac.new(_KEY, f"{who}\x00{subject}".encode(), hashlib.sha256).hexdigest()


def _asserted_subject(who: str, value: str | None) -> str | None:
    if not value or ":" not in value:
        return None
    mac, subject = value.split(":", 1)
    return subject if hmac.compare_digest(mac, _sign(who, subject)) else None


def current(plpy) -> Identity:
    """The caller's organization, subject and the organization's settings (one query)."""
    row = db.one(plpy, _CURRENT)
    source = row["source"]
    if source == "role":
        subject = row["who"]
    elif source == "asserted":
        subject = _asserted_subject(row["who"], row["asserted"])
    else:
        subject = None
    settings = {k: (row[k] if row[k] is not None else v) for k, v in ORG_DEFAULTS.items()}
    return Identity(row["who"], row["organization"], source, subject, **settings)


def set_end_user(plpy, subject, is_local) -> None:
    ident = current(plpy)
    if ident.source != "asserted":
        raise InsufficientPrivilege(
            f"role {ident.who} may not assert an end-user identity",
            detail="Only roles an administrator made trusted gateways may vouch for end users.",
            hint=f"An administrator runs dbms_cloud_ai.set_memory_role('{ident.who}', "
                 "identity => 'asserted').")
    value = ""
    if subject is not None:
        value = f"{_sign(ident.who, check_subject(subject))}:{subject}"
    if subject != ident.subject:
        # Another end user on this connection (a pooled gateway session): the
        # session's short-term conversation was the previous one's.
        conversations.clear_session_prompts(plpy)
    db.query(plpy, "select pg_catalog.set_config($1, $2, $3)", ("text", "text", "bool"),
             (END_USER_GUC, value, bool(is_local)))


def check_subject(subject) -> str:
    if subject is None:
        raise NullValue("subject must not be NULL", hint="Pass the end user's identifier.")
    if not subject.strip() or len(subject) > MAX_SUBJECT or _CONTROL.search(subject):
        raise InvalidParameter(
            f"invalid subject {subject[:40]!r}",
            detail=f"A subject is 1 to {MAX_SUBJECT} characters without control characters.",
            hint="Pass the identifier your identity provider gives the end user.")
    return subject


def row(plpy):
    """memory_identity(): what the calling session is for long-term memory."""
    i = current(plpy)
    return [{"organization": i.organization, "subject": i.subject, "identity": i.source,
             "memory_enabled": i.enabled}]


# --- administration -----------------------------------------------------------

def administered(plpy, organization) -> str:
    """The organization an administrator names (default: their own), if they
    administer it."""
    if organization is not None:
        organization = organization.strip()
        if not 1 <= len(organization) <= 128:
            raise InvalidParameter("organization must be 1 to 128 characters",
                                   hint="Pass NULL for your own organization.")
    row = db.one(plpy, """
        select coalesce($1, dbms_cloud_ai._organization()) as org,
               dbms_cloud_ai._administers(coalesce($1, dbms_cloud_ai._organization())) as ok""",
                 ("text",), (organization,))
    if not row["ok"]:
        raise InsufficientPrivilege(
            f"you do not administer organization {row['org']}",
            detail="An administrator assigned to an organization manages that organization only.",
            hint="Ask an administrator of the database (one without set_memory_role) to do it.")
    return row["org"]


def set_org(plpy, function, organization, **changes) -> None:
    acl.require_admin(plpy, f"dbms_cloud_ai.{function}")
    org = administered(plpy, organization)
    cols = {**ORG_DEFAULTS, **changes}
    db.query(plpy, """
        insert into dbms_cloud_ai._memory_organization
               (organization, enabled, max_memories, idle_minutes, recall_tokens, max_pending_jobs)
        values ($1, $2, $3, $4, $5, $6)
        on conflict (organization) do update
           set enabled = case when $7 then excluded.enabled
                              else dbms_cloud_ai._memory_organization.enabled end,
               max_memories = case when $8 then excluded.max_memories
                                   else dbms_cloud_ai._memory_organization.max_memories end,
               idle_minutes = case when $9 then excluded.idle_minutes
                                   else dbms_cloud_ai._memory_organization.idle_minutes end,
               recall_tokens = case when $10 then excluded.recall_tokens
                                    else dbms_cloud_ai._memory_organization.recall_tokens end,
               max_pending_jobs = case when $11 then excluded.max_pending_jobs
                                       else dbms_cloud_ai._memory_organization.max_pending_jobs end,
               modified = pg_catalog.now(), modified_by = current_user""",
             ("text", "bool", "int4", "int4", "int4", "int4", "bool", "bool", "bool", "bool",
              "bool"),
             (org, cols["enabled"], cols["max_memories"], cols["idle_minutes"],
              cols["recall_tokens"], cols["max_pending_jobs"])
             + tuple(k in changes for k in ORG_DEFAULTS))


def set_attribute(plpy, attribute_name, attribute_value, organization) -> None:
    name = (attribute_name or "").strip().lower()
    if name == "enabled":
        value = (attribute_value or "").strip().lower()
        if value not in ("true", "false"):
            raise InvalidParameter(f"enabled must be true or false, not {attribute_value!r}",
                                   hint="Or call dbms_cloud_ai.enable_memory() / disable_memory().")
        return set_org(plpy, "set_memory_attribute", organization, enabled=value == "true")
    if name not in ORG_LIMITS:
        raise InvalidParameter(f"unknown memory attribute {attribute_name!r}",
                               detail="Memory attributes: enabled, " + ", ".join(ORG_LIMITS) + ".",
                               hint="For example set_memory_attribute('max_memories', '200').")
    lo, hi = ORG_LIMITS[name]
    try:
        value = int(str(attribute_value).strip())
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        raise InvalidParameter(f"{name} must be a whole number from {lo} to {hi}, "
                               f"not {attribute_value!r}",
                               hint=f"Defaults: {name} {ORG_DEFAULTS[name]}.")
    set_org(plpy, "set_memory_attribute", organization, **{name: value})


def set_role(plpy, role_name, organization, identity) -> None:
    acl.require_admin(plpy, "dbms_cloud_ai.set_memory_role")
    who = acl.principal(plpy, role_name)
    if who == "PUBLIC":
        raise InvalidParameter("set_memory_role needs a role, not PUBLIC",
                               hint="Roles without a setting belong to this database's "
                                    "organization with identity 'role'.")
    kind = (identity or "").strip().lower()
    if kind not in IDENTITIES:
        raise InvalidParameter(f"unknown identity {identity!r}",
                               detail="role: the role is the end user; asserted: a trusted "
                                      "gateway that vouches for end users with set_end_user(); "
                                      "anonymous: never remembered.",
                               hint="Pass identity => 'role', 'asserted' or 'anonymous'.")
    role_binding.bind_principal(plpy, who)
    org = administered(plpy, organization)
    # The role's current organization must be the caller's to give away too: a
    # tenant's administrator cannot take roles from another organization.
    administered(plpy, db.one(plpy, """
        select coalesce((select r.organization from dbms_cloud_ai._memory_role r
                          where r.role_name = $1),
                        pg_catalog.current_database()::text) as org""",
                              ("text",), (who,))["org"])
    db.query(plpy, """
        insert into dbms_cloud_ai._memory_role (role_name, organization, identity)
        values ($1, $2, $3)
        on conflict (role_name) do update
           set organization = excluded.organization, identity = excluded.identity,
               modified = pg_catalog.now(), modified_by = current_user""",
             ("text", "text", "text"), (who, org, kind))
