"""Reading one tool, task, agent or team (catalog.load), and the error for a missing one."""

from __future__ import annotations

import json

from .. import db
from ..errors import UndefinedObject
from . import attributes

A = "dbms_cloud_ai_agent"


def _create_hint(kind: str) -> str:
    k = kind.lower()
    return f"Create it with {A}.create_{k}({k}_name, attributes)."


def missing(kind: str, name: str, owner: str | None = None) -> UndefinedObject:
    shown = f'"{owner}"."{name}"' if owner else name
    return UndefinedObject(f"{kind.lower()} {shown} does not exist",
                           hint=_create_hint(kind) if owner is None else
                           f"List the teams shared with you in {A}.all_ai_agent_teams.")


_LOAD = """
    select object_id, owner::text as owner, object_type, object_name, status, description,
           attributes::text as attributes, attribute_text::text as texts
      from dbms_cloud_ai._agent_object
     where owner = coalesce($3, current_user) and object_type = $1 and object_name = $2"""


def row_dict(row) -> dict:
    return {"object_id": row["object_id"], "owner": row["owner"],
            "object_type": row["object_type"], "name": row["object_name"],
            "status": row["status"], "description": row["description"],
            "attributes": json.loads(row["attributes"]), "texts": json.loads(row["texts"])}


def load(plpy, object_type: str, name: str, owner: str | None = None) -> dict:
    """One object (catalog.py says what it holds); ``name`` by Oracle's rules."""
    kind = attributes.kind_of(object_type)
    stored = attributes.object_name(name, kind)
    row = db.one(plpy, _LOAD, ("text", "text", "text"), (kind, stored, owner))
    if row is None:
        raise missing(kind, stored, owner)
    return row_dict(row)
