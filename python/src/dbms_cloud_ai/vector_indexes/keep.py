"""drop_vector_index(include_data => false): the index's data kept as a table.

Oracle keeps an index's vector store table when the index is dropped without
its data; here the chunks live in the extension's tables, so they are copied
into a new table the caller owns: ``vector_table_name`` (folded to lower case,
as an unquoted SQL name) or ``<index_name lower-cased>$vectab``, in the
caller's current schema (``schema_name``, evaluated in the caller's context by
the SQL function's default).  The table is created and filled with the
caller's own privileges (this module never goes through writer.py), so a role
without CREATE on the schema gets PostgreSQL's refusal, never the extension's
rights.  Everything is checked before anything is dropped.
"""

from __future__ import annotations

from .. import db
from ..errors import DuplicateTable, InsufficientPrivilege, InvalidParameter, InvalidSchemaName

_HINT = ("Or drop the index with its data: dbms_cloud_ai.drop_vector_index(index_name, "
         "include_data => true).")
_STATE = """
    select n.oid is not null as schema_exists,
           n.oid is not null and pg_catalog.has_schema_privilege(n.oid, 'CREATE') as can_create,
           n.oid is not null and exists (select from pg_catalog.pg_class c
                                          where c.relnamespace = n.oid and c.relname = $2) as taken
      from (select $1::text as nspname) s
      left join pg_catalog.pg_namespace n on n.nspname = s.nspname"""
# Identifiers only through format('%I'); values as parameters.
# Oracle's vector table: CONTENT, ATTRIBUTES (the chunk's metadata, JSON), EMBEDDING.
_DDL = """select pg_catalog.format(
    'create table %I.%I (content text, attributes jsonb, embedding real[])',
    $1::text, $2::text) as sql"""
_FILL = """select pg_catalog.format(
    'insert into %I.%I (content, attributes, embedding) '
    'select c.content, pg_catalog.jsonb_build_object(''source'', c.source, '
    '''chunk_no'', c.chunk_no, ''embedding_model'', c.embedding_model), c.embedding '
    'from dbms_cloud_ai._vector_chunk c where c.index_id = $1::uuid '
    'order by c.source, c.chunk_no',
    $1::text, $2::text) as sql"""


def table_name(row: dict) -> str:
    name = row["attrs"].get("vector_table_name")
    return (name or f"{row['index_name']}$vectab").lower()


def check(plpy, row: dict, schema_name) -> tuple[str, str]:
    """(schema, table) the data will go to, or the reason it cannot."""
    table = table_name(row)
    if len(table.encode()) > 63:
        raise InvalidParameter(
            f"vector table name {table!r} is longer than 63 bytes",
            hint="Set a shorter vector_table_name with dbms_cloud_ai.update_vector_index(); "
                 + _HINT)
    if schema_name is None:
        raise InvalidSchemaName(
            "no schema has been selected to keep the vector index's data in",
            hint="Set search_path to a schema you may create tables in, or pass schema_name; "
                 + _HINT)
    state = db.one(plpy, _STATE, ("text", "text"), (schema_name, table))
    if not state["schema_exists"]:
        raise InvalidSchemaName(f'schema "{schema_name}" does not exist', hint=_HINT)
    if not state["can_create"]:
        raise InsufficientPrivilege(
            f"permission denied to create the vector table in schema {schema_name}",
            hint="Pass a schema_name you may create tables in; " + _HINT)
    if state["taken"]:
        raise DuplicateTable(
            f'relation "{table}" already exists in schema {schema_name}',
            hint="Drop or rename it, or set another vector_table_name with "
                 "dbms_cloud_ai.update_vector_index(); " + _HINT)
    return schema_name, table


def keep(plpy, row: dict, schema: str, table: str) -> None:
    """Create the table as the caller and copy the index's chunks into it."""
    ddl = db.one(plpy, _DDL, ("text", "text"), (schema, table))["sql"]
    plpy.execute(ddl)
    fill = db.one(plpy, _FILL, ("text", "text"), (schema, table))["sql"]
    plpy.execute(plpy.prepare(fill, ["text"]), [row["index_id"]])
