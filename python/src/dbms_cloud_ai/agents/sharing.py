"""Team sharing: Oracle's GRANT_TEAM_ACCESS / REVOKE_TEAM_ACCESS.

A team is shared as profiles are (../sharing.py): the grantee (a role, its
members through inheritance, or PUBLIC) names it "OWNER"."TEAM", reads the
team's row (describe_team, the ALL_ view) and runs it; the grant covers the team
as a unit.  Its agents, tasks and tools stay the owner's: the package reads
them for the grantee as dbms_cloud_ai_owner through the writer's gate
(``open_team``), under the policy agent_object_shared_read
(sql/schema/130-agents.sql), and never shows them to the grantee as rows.
"""

from __future__ import annotations

from .. import db, sharing, writer
from ..errors import InvalidParameter, UndefinedObject
from . import objects

# The caller may use team t: its own, or shared with it by an owner that is
# still the live role that made it.
USABLE = """(t.owner = current_user
        or (exists (select from dbms_cloud_ai._agent_team_grant g
                     where g.object_id = t.object_id
                       and (g.grantee_oid = 0
                            or (pg_catalog.pg_get_userbyid(g.grantee_oid) = g.grantee
                                and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))
            and dbms_cloud_ai._role_is_live(t.owner)))"""

_OWNER = f"""
    select t.owner::text as owner, t.owner = current_user as mine
      from dbms_cloud_ai._agent_object t
     where t.object_type = 'TEAM' and t.object_name = $1 and {USABLE}
       and pg_catalog.lower(t.owner::text) = pg_catalog.lower($2)
     order by (t.owner = $2) desc, t.owner limit 2"""

_PARTS = """
    select object_id, owner::text as owner, object_type, object_name, status, description,
           attributes::text as attributes, attribute_text::text as texts
      from dbms_cloud_ai._agent_object
     where owner = $3 and object_type = $1 and object_name = $2"""


def parse(raw) -> sharing.Ref:
    return sharing.parse(raw, "team")


def resolve_owner(plpy, ref: sharing.Ref) -> str | None:
    """The owner of the team ``ref`` names among those the caller may use
    (None: the caller's own); 42704 when none; 22023 when ambiguous."""
    if ref.owner is None:
        return None
    rows = db.query(plpy, _OWNER, ("text", "text"), (ref.name, ref.owner))
    if rows.nrows() == 0:
        raise UndefinedObject(
            f"team {sharing.display(ref.owner, ref.name)} does not exist or is not shared with you",
            hint="List the teams you may use in dbms_cloud_ai_agent.all_ai_agent_teams; its "
                 "owner shares one with dbms_cloud_ai_agent.grant_team_access().")
    if rows.nrows() > 1 and rows[0]["owner"] != ref.owner:
        raise InvalidParameter(f"team owner {ref.owner} is ambiguous",
                               hint='Quote the owner as written: "owner"."TEAM".')
    return None if rows[0]["mine"] else rows[0]["owner"]


def open_team(plpy, team_name):
    """The team ``team_name`` names (the caller's own or "OWNER"."TEAM" shared
    with it) as catalog.load's dict, and a reader of its owner's parts:
    ``read(kind, name) -> dict`` (42704 when the part is missing)."""
    ref = parse(team_name)
    owner = resolve_owner(plpy, ref)
    team = objects.load(plpy, "TEAM", ref.name, owner)
    if owner is None:
        return team, lambda kind, name: objects.load(plpy, kind, name)

    def read(kind, name):
        row = writer.one(plpy, _PARTS, ("text", "text", "text"), (kind, name, owner))
        if row is None:
            raise objects.missing(kind, name, owner)
        return objects.row_dict(row)
    return team, read


def _own_team(plpy, team_name) -> tuple[int, str]:
    ref = parse(team_name)
    if resolve_owner(plpy, ref) is not None:
        raise sharing.owner_only(ref, "share it")
    row = db.one(plpy, "select object_id from dbms_cloud_ai._agent_object where owner = current_user "
                       "and object_type = 'TEAM' and object_name = $1", ("text",), (ref.name,))
    if row is None:
        raise UndefinedObject(f"team {ref.name} does not exist",
                              hint="Create it with dbms_cloud_ai_agent.create_team(team_name, "
                                   "attributes).")
    return row["object_id"], ref.name


def grant(plpy, team_name, user_or_role_name) -> None:
    """GRANT_TEAM_ACCESS: idempotent; the owner itself needs no grant."""
    object_id, name = _own_team(plpy, team_name)
    role, oid = sharing.grantee(plpy, user_or_role_name, granting=f"team {name}")
    writer.query(plpy, """
        insert into dbms_cloud_ai._agent_team_grant (object_id, grantee, grantee_oid)
        values ($1, $2, $3) on conflict (object_id, grantee_oid) do nothing""",
                 ("int8", "text", "oid"), (object_id, role, oid))


def revoke(plpy, team_name, user_or_role_name) -> None:
    """REVOKE_TEAM_ACCESS: 42704 when the team was not shared with that role."""
    object_id, name = _own_team(plpy, team_name)
    role, oid = sharing.grantee(plpy, user_or_role_name)
    if writer.one(plpy, """
            delete from dbms_cloud_ai._agent_team_grant
             where object_id = $1 and grantee_oid = $2 and owner = dbms_cloud_ai._caller()
            returning 1 as x""", ("int8", "oid"), (object_id, oid)) is None:
        raise UndefinedObject(f"team {name} is not shared with {role}",
                              hint="List its grants in dbms_cloud_ai_agent.user_ai_agent_team_grants.")
