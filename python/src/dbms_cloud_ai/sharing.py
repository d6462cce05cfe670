"""Profile sharing: Oracle's GRANT_PROFILE_ACCESS / REVOKE_PROFILE_ACCESS.

A shared profile is named ``"OWNER"."NAME"`` (or ``owner.name``).  The owner
part is a PostgreSQL role: quoted it is taken as written, unquoted it is
folded to lower case as PostgreSQL folds identifiers; when no owner of that
exact name shares the profile, the one whose name matches ignoring case is
taken (so Oracle's ``"ALICE"."SALES"`` finds role ``alice``).  The name part
follows Oracle's rules (names.normalize).

What a grantee's call uses and records (docs/reference/profile-sharing.md):
the owner's attributes and, inside the package only, the owner's credential;
the grantee's own conversations, memories, accounting, budget and host ACEs.
Its rows name the profile ``"owner"."NAME"``, so an administrator sees whose
profile paid for what, and the owner sees who holds access, never what the
grantee asked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import attributes, db, names, writer
from .errors import InsufficientPrivilege, InvalidParameter, NullValue, UndefinedObject

PUBLIC = "PUBLIC"
ROLE_NAME_BYTES = 63   # PostgreSQL's NAMEDATALEN - 1: no role has a longer name
_HINT_GRANT = ("Share it with dbms_cloud_ai.grant_profile_access(profile_name, "
               "user_or_role_name).")
_SIMPLE_ROLE = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")
# One part of a dotted name: "quoted" (no quote inside) or unquoted up to the dot.
_PART = re.compile(r'\s*("[^"]*"|[^".]+)\s*')


@dataclass(frozen=True)
class Ref:
    """A profile as named in a call: ``owner`` None is the caller's own."""

    owner: str | None
    name: str


def display(owner: str, name: str) -> str:
    """How a shared profile is named in the grantee's rows and get_profile()."""
    return f'"{owner}"."{name}"'


def parse(raw: str | None, kind: str = "profile") -> Ref:
    """A profile (or ``kind``: vector index) name, optionally qualified by its owner."""
    if raw is None:
        return Ref(None, names.normalize(raw, kind))
    parts, pos = [], 0
    while True:
        m = _PART.match(raw, pos)
        if m is None:
            break
        parts.append(m.group(1))
        pos = m.end()
        if pos < len(raw) and raw[pos] == "." and len(parts) < 3:
            pos += 1
            continue
        break
    if pos != len(raw) or len(parts) > 2 or (len(parts) == 2 and parts[0] == '""'):
        if len(parts) <= 1:   # not dotted: the name rules say what is wrong with it
            return Ref(None, names.normalize(raw, kind))
        raise InvalidParameter(
            f"invalid {kind} name {raw!r}",
            detail='A shared profile is named "OWNER"."NAME" (owner: the role that created it).',
            hint="List the profiles you may use in dbms_cloud_ai.all_cloud_ai_profiles.")
    if len(parts) == 1:
        return Ref(None, names.normalize(raw, kind))
    owner_text, name_text = parts
    name = names.normalize(name_text, kind)
    if len(owner_text.encode()) > ROLE_NAME_BYTES + 2:
        raise InvalidParameter(f"{kind} owner is longer than a role name ({ROLE_NAME_BYTES} bytes)",
                               hint='Name a shared profile as "OWNER"."NAME".')
    if owner_text.startswith('"'):
        return Ref(owner_text[1:-1], name)
    if not _SIMPLE_ROLE.match(owner_text):
        raise InvalidParameter(f"invalid {kind} owner {owner_text!r}",
                               hint='Quote the owner: "owner"."NAME".')
    return Ref(owner_text.lower(), name)


def stored_ref(stored: str) -> str:
    """A profile name as a row stores it, as a name generate() accepts again:
    the shared form as it is, an own name quoted (it is stored as resolved)."""
    return stored if stored.startswith('"') else '"' + stored + '"'


# The caller may use profile p: its own, or shared with it by an owner that is
# still the live role that made it (_role_is_live: dropped, or dropped and
# created again, its profiles are no one's to use).  Said in each query, not
# left to row-level security, which also lets administrators read every profile.
USABLE = """(p.owner = current_user
        or (exists (select from dbms_cloud_ai._profile_grant g
                     where g.profile_id = p.profile_id
                       and (g.grantee_oid = 0
                            or (pg_catalog.pg_get_userbyid(g.grantee_oid) = g.grantee
                                and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))
            and dbms_cloud_ai._role_is_live(p.owner)))"""

_OWNER = f"""
    select p.owner::text as owner, p.owner = current_user as mine from dbms_cloud_ai._profile p
     where p.profile_name = $1 and {USABLE}
       and pg_catalog.lower(p.owner::text) = pg_catalog.lower($2)
     order by (p.owner = $2) desc, p.owner limit 2"""


def resolve_owner(plpy, ref: Ref) -> str | None:
    """The exact owner of the profile ``ref`` names, among the profiles the caller
    may read (its own and those shared with it); None when it is the caller's
    own; 42704 when there is none; 22023 when two owners match ignoring case."""
    if ref.owner is None:
        return None
    rows = db.query(plpy, _OWNER, ("text", "text"), (ref.name, ref.owner))
    if rows.nrows() == 0:
        raise UndefinedObject(
            f"profile {display(ref.owner, ref.name)} does not exist or is not shared with you",
            hint="List the profiles you may use in dbms_cloud_ai.all_cloud_ai_profiles; "
                 "its owner shares one with dbms_cloud_ai.grant_profile_access().")
    if rows.nrows() > 1 and rows[0]["owner"] != ref.owner:
        raise InvalidParameter(
            f"profile owner {ref.owner} is ambiguous",
            detail=f"Roles {rows[0]['owner']} and {rows[1]['owner']} both share a profile {ref.name}.",
            hint='Quote the owner as written: "owner"."NAME".')
    return None if rows[0]["mine"] else rows[0]["owner"]


def own_name(plpy, profile_name, what: str) -> str:
    """The name of the caller's own profile; one shared with it: 42501 (only
    its owner may ``what``)."""
    ref = parse(profile_name)
    if resolve_owner(plpy, ref) is not None:
        raise owner_only(ref, what)
    return ref.name


# What a grantee may not change per call (generate's attributes): where the
# owner's key goes and what its requests cost.
OWNER_ONLY_ATTRIBUTES = frozenset((
    "provider", "credential_name", "provider_endpoint", "azure_resource_name",
    "azure_deployment_name", "azure_embedding_deployment_name", "region", "model",
    "embedding_model", "memory_model", "max_tokens", "context_window", "summary_max_tokens",
    "repair_rounds", "sql_samples"))


def check_overrides(profile_name: str, owner: str | None, overrides: dict) -> None:
    """42501 when a grantee's per-call attributes change what only the owner may."""
    fixed = sorted(OWNER_ONLY_ATTRIBUTES.intersection(overrides)) if owner else []
    if fixed:
        raise InsufficientPrivilege(
            f"attribute {fixed[0]} of shared profile {profile_name} can be set only by its owner",
            detail="A grantee may not change the provider, endpoint, credential, models, "
                   "token limits or request counts of a shared profile: "
                   + ", ".join(sorted(OWNER_ONLY_ATTRIBUTES)) + ".",
            hint="Remove it from attributes, or create a profile of your own with "
                 "dbms_cloud_ai.create_profile().")


# What a grantee's call may send at most (issue 30, class 5): no more history
# and no more objects than the owner's profile sends, and a summary request
# only when the owner's profile makes them.
CAPPED_ATTRIBUTES = ("conversation_length", "summarize_history", "object_list")


def grantee_caps(owner_attrs: dict) -> dict:
    """The caps of a grantee's call: the owner's profile's values, or their
    defaults (conversation_length 10, summarize_history false, an object_list of
    one entry: the current schema, summary_max_tokens 500)."""
    objects = owner_attrs.get("object_list")
    return {"conversation_length": owner_attrs.get("conversation_length")
            or attributes.SPEC["conversation_length"][1],
            "summarize_history": bool(owner_attrs.get("summarize_history",
                                                      attributes.SPEC["summarize_history"][1])),
            "object_list": len(objects) if objects else 1,
            "summary_max_tokens": owner_attrs.get("summary_max_tokens")
            or attributes.SPEC["summary_max_tokens"][1]}


def check_caps(profile_name: str, owner: str | None, owner_attrs: dict,
               overrides: dict) -> dict | None:
    """For a grantee (``owner`` set): 42501 when its per-call attributes ask
    for more than the owner's profile allows; else the caps (which
    conversations.for_call applies to the conversation's own attributes)."""
    if not owner:
        return None
    caps = grantee_caps(owner_attrs)
    over = None
    length = overrides.get("conversation_length")
    if length is not None and length > caps["conversation_length"]:
        over = ("conversation_length", length, caps["conversation_length"])
    elif overrides.get("summarize_history") and not caps["summarize_history"]:
        over = ("summarize_history", "true", "false")
    elif overrides.get("object_list") and len(overrides["object_list"]) > caps["object_list"]:
        over = ("object_list", f"{len(overrides['object_list'])} entries",
                f"{caps['object_list']} entries")
    if over is not None:
        name, given, cap = over
        raise InsufficientPrivilege(
            f"attribute {name} of shared profile {profile_name} is capped by its owner's profile",
            detail=f"Given {given}; the owner's profile allows at most {cap}. A grantee's "
                   "conversation_length, summarize_history and object_list may not exceed "
                   "the owner's (the owner's key pays for every request).",
            hint=f"Lower {name} to at most {cap}, or create a profile of your own with "
                 "dbms_cloud_ai.create_profile().")
    return caps


def owner_only(ref: Ref, what: str) -> InsufficientPrivilege:
    return InsufficientPrivilege(
        f"only the owner of profile {display(ref.owner, ref.name)} can {what}",
        hint="Create a profile of your own with dbms_cloud_ai.create_profile(), "
             "or ask the owner.")


# --- grant and revoke ---------------------------------------------------------------------

def grantee(plpy, raw, granting: str | None = None) -> tuple[str, int]:
    """A role as Oracle scripts name users and roles: PUBLIC, a quoted name as
    written, an unquoted one as written if such a role exists, else folded to
    lower case; with its OID (0 for PUBLIC).  ``granting`` (the object being
    shared): the caller itself is refused, it needs no grant."""
    hint = "Pass an existing role name as user_or_role_name (or 'PUBLIC')."
    if raw is None:
        raise NullValue("user_or_role_name must not be NULL", hint=hint)
    text = raw.strip()
    if text.upper() == PUBLIC:
        return PUBLIC, 0
    if len(text.encode()) > ROLE_NAME_BYTES + 2:
        raise InvalidParameter(f"role name is longer than {ROLE_NAME_BYTES} bytes", hint=hint)
    if len(text) >= 2 and text[0] == text[-1] == '"':
        candidates = [text[1:-1]]
    elif _SIMPLE_ROLE.match(text):
        candidates = [text, text.lower()]
    else:
        raise InvalidParameter(f"invalid role name {raw!r}", hint=hint)
    row = db.one(plpy, """
        select r.rolname::text as name, r.oid::int8 as oid, r.rolname = current_user as me
          from pg_catalog.pg_roles r
         where r.rolname = any ($1::text[]) order by r.rolname = $2 desc limit 1""",
                 ("text[]", "text"), (candidates, candidates[0]))
    if row is None or not text:
        raise UndefinedObject(f"role {text or raw!r} does not exist", hint=hint)
    if granting and row["me"]:
        raise InvalidParameter(f"{granting} is yours: you need no grant to use it",
                               hint="Pass another role as user_or_role_name.")
    return row["name"], row["oid"]


def _own_profile(plpy, profile_name) -> tuple[int, str]:
    name = own_name(plpy, profile_name, "share it")
    row = db.one(plpy, "select profile_id from dbms_cloud_ai._profile "
                       "where owner = current_user and profile_name = $1", ("text",), (name,))
    if row is None:
        raise UndefinedObject(f'profile "{name}" does not exist',
                              hint="Create it with dbms_cloud_ai.create_profile(profile_name, "
                                   "attributes).")
    return row["profile_id"], name


def grant(plpy, profile_name, user_or_role_name) -> None:
    """GRANT_PROFILE_ACCESS: idempotent; the owner itself needs no grant."""
    profile_id, name = _own_profile(plpy, profile_name)
    role, oid = grantee(plpy, user_or_role_name, granting=f"profile {name}")
    writer.query(plpy, """
        insert into dbms_cloud_ai._profile_grant (profile_id, grantee, grantee_oid)
        values ($1, $2, $3) on conflict (profile_id, grantee_oid) do nothing""",
                 ("int8", "text", "oid"), (profile_id, role, oid))


def revoke(plpy, profile_name, user_or_role_name) -> None:
    """REVOKE_PROFILE_ACCESS: 42704 when the profile was not shared with that role."""
    profile_id, name = _own_profile(plpy, profile_name)
    role, oid = grantee(plpy, user_or_role_name)
    if writer.one(plpy, """
            delete from dbms_cloud_ai._profile_grant
             where profile_id = $1 and grantee_oid = $2 and owner = dbms_cloud_ai._caller()
            returning 1 as x""", ("int8", "oid"), (profile_id, oid)) is None:
        raise UndefinedObject(f"profile {name} is not shared with {role}",
                              hint="List its grants in dbms_cloud_ai.user_cloud_ai_profile_grants.")


def set_grant_budget(plpy, profile_name, user_or_role_name, daily_tokens) -> None:
    """The daily tokens each role holding this grant may spend through the
    profile (NULL: none); 42704 when the profile is not shared with that role."""
    profile_id, name = _own_profile(plpy, profile_name)
    role, oid = grantee(plpy, user_or_role_name)
    if daily_tokens is not None and daily_tokens < 0:
        raise InvalidParameter(f"daily_tokens must be 0 or more, not {daily_tokens}",
                               hint="Pass NULL to remove the budget.")
    if writer.one(plpy, """
            update dbms_cloud_ai._profile_grant set daily_tokens = $3
             where profile_id = $1 and grantee_oid = $2 and owner = dbms_cloud_ai._caller()
            returning 1 as x""", ("int8", "oid", "int8"), (profile_id, oid, daily_tokens)) is None:
        raise UndefinedObject(f"profile {name} is not shared with {role}",
                              hint="Share it first with dbms_cloud_ai.grant_profile_access().")


# --- the credential of a shared profile ---------------------------------------------------

# Read as dbms_cloud_ai_owner through the writer's gate: the policies
# credential_shared_read and profile_shared_read (sql/schema/030-profiles-sharing.sql)
# show it only while the profile is shared with the caller (_caller()).
_CREDENTIAL = """
    select c.credential_name as name, c.owner::text as owner, c.secret, c.key_id, c.enabled,
           c.kind, (select b.binding_id::text from dbms_cloud_ai._role_binding b
                     where b.role_name = c.owner) as binding
      from dbms_cloud_ai._profile p
      join dbms_cloud._credential c
        on c.owner = p.owner and c.credential_name = p.credential_name
     where p.profile_id = $1"""


def shared_credential(plpy, profile_id: int) -> dict | None:
    """The owner's credential row of a profile shared with the caller (None: the
    profile has no credential, or the owner has none of that name)."""
    row = writer.one(plpy, _CREDENTIAL, ("int8",), (profile_id,))
    return dict(row) if row is not None else None
