"""add_annotation and drop_annotation (issue 18): Oracle's table and column
annotations, kept in dbms_cloud_ai._annotation (sql/schema/075-annotations.sql).

Only a role with the rights of the relation's owner annotates it (42501 for
anyone else, here and again in the writer's policy).  Names are identifiers
and values at most 1000 characters: the schema context shows them as quoted
data (schema_context.py), never as instructions.
"""

from __future__ import annotations

import re

from .. import db, writer
from ..errors import InsufficientPrivilege, InvalidParameter, NullValue, UndefinedObject

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$#]{0,127}\Z")
VALUE_LIMIT = 1000

# The relation (by the regclass text the call resolved), whether the caller has
# its owner's rights, and the column's own name when one was given.
_TARGET = """
    select c.oid, c.relkind, pg_catalog.pg_has_role(c.relowner, 'USAGE') as mine,
           (select a.attname from pg_catalog.pg_attribute a
             where a.attrelid = c.oid and a.attname = $2 and a.attnum > 0
               and not a.attisdropped)::text as column_name
      from pg_catalog.pg_class c where c.oid = $1::pg_catalog.regclass"""

_ADD = """
    insert into dbms_cloud_ai._annotation (owner, table_id, column_name, annotation_name, annotation_value)
    values (dbms_cloud_ai._caller(), $1::pg_catalog.oid::pg_catalog.regclass, $2, $3, $4)
    on conflict (owner, table_id, (coalesce(column_name, ''::name)), annotation_name)
    do update set annotation_value = excluded.annotation_value, modified = pg_catalog.now()"""

_DROP = """
    delete from dbms_cloud_ai._annotation
     where owner = dbms_cloud_ai._caller() and table_id = $1::pg_catalog.oid::pg_catalog.regclass
       and coalesce(column_name, ''::name) = coalesce($2, '')::name and annotation_name = $3
    returning 1"""


_HINT_CALL = ("Call dbms_cloud_ai.add_annotation(table_name, annotation_name, annotation_value, "
              "column_name).")
_HINT_LIST = "List annotations in dbms_cloud_ai.user_cloud_ai_annotations."


def _required(table_name, annotation_name) -> None:
    if table_name is None or annotation_name is None:
        raise NullValue("table_name and annotation_name must not be NULL", hint=_HINT_CALL)


def _target(plpy, table_name, annotation_name, column_name):
    _required(table_name, annotation_name)
    if not NAME.match(annotation_name):
        raise InvalidParameter(
            "annotation_name must be an identifier of at most 128 characters",
            hint="Use letters, digits, _, $ and #, starting with a letter or _ (e.g. Aliases).")
    row = db.one(plpy, _TARGET, ("text", "text"), (table_name, column_name))
    if row is None:
        raise UndefinedObject(f"relation {table_name} does not exist", hint=_HINT_CALL)
    if row["relkind"] not in ("r", "p", "v", "m", "f"):
        raise InvalidParameter(f"{table_name} is not a table, view or materialized view",
                               hint="Annotate a table, view, materialized view or foreign table "
                                    "with dbms_cloud_ai.add_annotation().")
    if not row["mine"]:
        raise InsufficientPrivilege(
            f"only the owner of {table_name} may annotate it",
            hint="Ask the table's owner (or a member of its owning role) to add the annotation.")
    if column_name is not None and row["column_name"] is None:
        raise UndefinedObject(f"column {column_name} of {table_name} does not exist",
                              hint="Pass column_name => NULL to annotate the table itself "
                                   "(dbms_cloud_ai.add_annotation).")
    return row["oid"]


def add(plpy, table_name, annotation_name, annotation_value, column_name) -> None:
    """Add the annotation, or replace the value of the caller's one of that name."""
    oid = _target(plpy, table_name, annotation_name, column_name)
    if annotation_value is not None and len(annotation_value) > VALUE_LIMIT:
        raise InvalidParameter(f"annotation_value is longer than {VALUE_LIMIT} characters",
                               hint="Shorten it, or split it over several annotations "
                                    "(dbms_cloud_ai.add_annotation).")
    writer.query(plpy, _ADD, ("oid", "name", "text", "text"),
                 (oid, column_name, annotation_name, annotation_value))


def drop(plpy, table_name, annotation_name, column_name) -> None:
    """Remove the caller's annotation of that name (42704 when there is none)."""
    _required(table_name, annotation_name)
    row = db.one(plpy, "select $1::pg_catalog.regclass::pg_catalog.oid as oid", ("text",),
                 (table_name,))
    if not writer.query(plpy, _DROP, ("oid", "text", "text"),
                        (row["oid"], column_name, annotation_name)).nrows():
        raise UndefinedObject(
            f"annotation {annotation_name} does not exist on "
            f"{table_name if column_name is None else table_name + '.' + column_name}",
            hint=_HINT_LIST)
