"""Role bindings: a role's rows belong to that role, not to its name (issue 14, class 3).

Each role name that holds rows is bound to the OID of the role that stored
them (dbms_cloud_ai._role_binding, sql/schema/012-role-binding.sql).  Row-level
security hides a name's rows from a later role of the same name; this module
gives such a role the documented error instead of "does not exist", and
hands the credential code the binding id that is part of a secret's
associated data.  The happy path costs nothing here: for_call reads the binding
id in its one statement, and staleness is looked up only when a call fails.
"""

from __future__ import annotations

from . import db, writer
from .errors import NotInPrerequisiteState

_STATE = """
    select current_user::text as who,
           (select r.oid from pg_catalog.pg_roles r where r.rolname = current_user) as mine,
           b.role_oid as bound, b.binding_id::text as binding_id
      from (select) x
      left join dbms_cloud_ai._role_binding b on b.role_name = current_user"""

def check(plpy) -> None:
    """Raise the documented error when the caller's name is bound to another role."""
    row = db.one(plpy, _STATE)
    if row["bound"] is not None and row["bound"] != row["mine"]:
        raise writer.stale_error(row["who"])


def binding(plpy) -> str:
    """The caller's binding id, binding the caller first if its name is unbound."""
    row = db.one(plpy, _STATE)
    if row["bound"] is None:
        writer.bind(plpy)
        row = db.one(plpy, _STATE)
    if row["bound"] != row["mine"]:
        raise writer.stale_error(row["who"])
    return row["binding_id"]


_NAMED = """
    select r.oid as now_oid, b.role_oid as bound
      from pg_catalog.pg_roles r
      left join dbms_cloud_ai._role_binding b on b.role_name = r.rolname
     where r.rolname = $1"""


def bind_principal(plpy, role_name: str) -> None:
    """An administrator grants something to ``role_name`` (ACE, budget, memory role):
    bind the name to the role that has it now, so the grant goes with that role.
    A name still bound to a dropped role is refused until its rows are removed."""
    if role_name == "PUBLIC":
        return
    row = db.one(plpy, _NAMED, ("text",), (role_name,))
    if row is None:
        return
    if row["bound"] is None:
        db.query(plpy, writer.BIND, ("name", "oid"), (role_name, row["now_oid"]))
    elif row["bound"] != row["now_oid"]:
        raise NotInPrerequisiteState(
            f"role {role_name} is not the role that stored the dbms_cloud_ai rows of that name",
            detail="A role of this name was dropped; its rows and grants are kept apart from this role.",
            hint=f"Remove the dropped role's rows first with dbms_cloud_ai.drop_role_data('{role_name}').")
