"""The tables GENERATE_SYNTHETIC_DATA fills, read from the catalog as the caller.

Names follow the object_list rules of NL2SQL (nl2sql/schema_context.py): a
double-quoted name is taken as written; an unquoted one as written when such a
relation exists, else folded to lower case, as PostgreSQL folds it.  A table in
a schema without USAGE is reported as missing, so an error never reveals what
lies beyond the caller's privileges.

Columns the database fills itself (identity, generated, a serial's nextval
default) are never written.  A foreign key's columns are filled from key
values that exist in the parent table, chosen here and never sent to the
model; the other columns are the model's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from .. import db
from ..errors import InsufficientPrivilege, InvalidParameter, UndefinedObject
from .params import FN, Target

MAX_PARENT_KEYS = 1000          # parent keys read per child table
MAX_SAMPLE_CHARS = 200          # a sample value or statistic longer than this is cut

_RESOLVE = """
    select c.oid, n.nspname::text as schema, c.relname::text as name, c.relkind::text as kind,
           pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname)
               as qualified,
           pg_catalog.obj_description(c.oid, 'pg_class') as comment
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname = any ($1) and c.relname = any ($2)
       and pg_catalog.has_schema_privilege(n.oid, 'USAGE')"""

_COLUMNS = """
    select a.attname::text as name, pg_catalog.quote_ident(a.attname) as quoted,
           pg_catalog.format_type(a.atttypid, a.atttypmod) as type,
           pg_catalog.format_type(a.atttypid, null) as param_type, a.attnotnull as not_null,
           a.attidentity <> '' or a.attgenerated <> ''
               or coalesce(pg_catalog.pg_get_expr(d.adbin, d.adrelid) ~ '^nextval\\(', false)
               as auto,
           pg_catalog.col_description(a.attrelid, a.attnum) as comment,
           pg_catalog.has_column_privilege(a.attrelid, a.attnum, 'INSERT')
               and coalesce(a.attidentity <> '' or pg_catalog.has_sequence_privilege(
                       pg_catalog.pg_get_serial_sequence(a.attrelid::pg_catalog.regclass::pg_catalog.text,
                                                         a.attname), 'USAGE'), true) as can_insert
      from pg_catalog.pg_attribute a
      left join pg_catalog.pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
     where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped
     order by a.attnum"""

_CONSTRAINTS = """
    select k.contype::text as kind, pg_catalog.pg_get_constraintdef(k.oid) as def,
           (select pg_catalog.array_agg(a.attname::text order by u.ord)
              from pg_catalog.unnest(k.conkey) with ordinality u(n, ord)
              join pg_catalog.pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n) as cols,
           k.confrelid as ref_oid,
           (select pg_catalog.array_agg(pg_catalog.quote_ident(a.attname) order by u.ord)
              from pg_catalog.unnest(k.confkey) with ordinality u(n, ord)
              join pg_catalog.pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n)
               as ref_cols,
           pg_catalog.quote_ident(fn.nspname) || '.' || pg_catalog.quote_ident(fc.relname)
               as ref_qualified,
           pg_catalog.has_table_privilege(k.confrelid, 'SELECT') as ref_readable
      from pg_catalog.pg_constraint k
      left join pg_catalog.pg_class fc on fc.oid = k.confrelid
      left join pg_catalog.pg_namespace fn on fn.oid = fc.relnamespace
     where k.conrelid = $1 and k.contype in ('c', 'u', 'p', 'f')
     order by k.contype, k.conname"""

_STATS = """
    select s.attname::text as name, s.null_frac, s.n_distinct,
           (s.most_common_vals::text::text[])[1:5] as common,
           (s.histogram_bounds::text::text[])[1] as lo,
           (s.histogram_bounds::text::text[])[
               pg_catalog.array_length(s.histogram_bounds::text::text[], 1)] as hi
      from pg_catalog.pg_stats s
     where s.schemaname = $1 and s.tablename = $2"""


@dataclass(frozen=True)
class Column:
    name: str
    quoted: str
    type: str                  # as declared, with its modifier
    param_type: str            # without modifier: the INSERT's parameter type
    not_null: bool
    auto: bool                 # identity, generated or serial: the database fills it
    comment: str | None
    can_insert: bool


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]   # names in this table
    ref_oid: int
    ref_qualified: str
    ref_columns: tuple[str, ...]   # quoted names in the parent


@dataclass
class Table:
    target: Target
    oid: int
    schema: str
    name: str
    qualified: str
    comment: str | None
    columns: list[Column]
    checks: list[str] = field(default_factory=list)     # CHECK (...) texts
    keys: list[str] = field(default_factory=list)       # PRIMARY KEY (...), UNIQUE (...)
    foreign_keys: list[ForeignKey] = field(default_factory=list)

    @property
    def fk_columns(self) -> set[str]:
        return {c for fk in self.foreign_keys for c in fk.columns}

    @property
    def model_columns(self) -> list[Column]:
        """The columns the model invents values for."""
        return [c for c in self.columns if not c.auto and c.name not in self.fk_columns]

    @property
    def written(self) -> list[Column]:
        """The columns the INSERT names: the model's, then the foreign keys'."""
        fks = self.fk_columns
        return self.model_columns + [c for c in self.columns if c.name in fks and not c.auto]


def _variants(raw: str) -> list[str]:
    name = raw.strip()
    if len(name) >= 2 and name[0] == name[-1] == '"':
        return [name[1:-1]]
    return [name] if name == name.lower() else [name, name.lower()]


def resolve(plpy, target: Target, search_path: list[str]) -> Table:
    """The relation ``target`` names, with its definition; 42704 when the caller
    cannot see it, 22023 when it is not a table, 42501 without INSERT."""
    if target.owner is None and not search_path:
        raise InvalidParameter("owner_name is NULL and the session has no current schema",
                               hint=f"Pass owner_name (the schema) to {FN}.")
    owners = _variants(target.owner) if target.owner is not None else [search_path[0]]
    names = _variants(target.name)
    rows = {(r["schema"], r["name"]): r
            for r in db.query(plpy, _RESOLVE, ("text[]", "text[]"), (owners, names))}
    found = next((rows[(o, n)] for o in owners for n in names if (o, n) in rows), None)
    shown = f"{target.owner or search_path[0]}.{target.name}"
    if found is None:
        raise UndefinedObject(f"table {shown} does not exist",
                              detail="Or its schema is not usable by the current role.",
                              hint=f"Pass owner_name (the schema) and object_name to {FN} as "
                                   "they are written in PostgreSQL's catalog, or unquoted.")
    if found["kind"] not in ("r", "p"):
        raise InvalidParameter(f"{found['qualified']} is not a table",
                               hint=f"{FN} inserts into ordinary or partitioned tables.")
    cols = [Column(r["name"], r["quoted"], r["type"], r["param_type"], r["not_null"], r["auto"],
                   r["comment"], r["can_insert"])
            for r in db.query(plpy, _COLUMNS, ("oid",), (found["oid"],))]
    table = Table(target, found["oid"], found["schema"], found["name"], found["qualified"],
                  found["comment"], cols)
    _constraints(plpy, table)
    # A serial's nextval needs USAGE on its sequence (identity columns do not).
    denied = [c.quoted for c in table.columns
              if not c.can_insert and (c in table.written or c.auto)]
    if denied:
        raise InsufficientPrivilege(
            f"permission denied to insert into {table.qualified} ({', '.join(denied)})",
            detail="Checked before any request to the model.",
            hint=f"Ask the table's owner: GRANT INSERT ON {table.qualified} TO <role>; then call "
                 f"{FN} again.")
    return table


def _one_line(text: str) -> str:
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029]+", " ", text).strip()


def _constraints(plpy, table: Table):
    for r in db.query(plpy, _CONSTRAINTS, ("oid",), (table.oid,)):
        if r["kind"] == "c":
            table.checks.append(_one_line(r["def"]))
        elif r["kind"] in ("p", "u"):
            table.keys.append(_one_line(r["def"]))
        elif r["cols"] and r["ref_cols"]:
            if not r["ref_readable"]:
                raise InsufficientPrivilege(
                    f"permission denied to read {r['ref_qualified']}, the parent of "
                    f"{table.qualified}",
                    detail="Foreign key columns are filled with keys that exist in the parent.",
                    hint=f"Ask the parent's owner: GRANT SELECT ON {r['ref_qualified']} TO <role>.")
            table.foreign_keys.append(ForeignKey(tuple(r["cols"]), r["ref_oid"],
                                                 r["ref_qualified"], tuple(r["ref_cols"])))


def in_dependency_order(tables: list[Table]) -> list[Table]:
    """Parents before children among ``tables`` (the given order otherwise; a
    cycle keeps it)."""
    left, out = list(tables), []
    while left:
        oids = {t.oid for t in left}
        ready = next((t for t in left
                      if not any(fk.ref_oid in oids and fk.ref_oid != t.oid
                                 for fk in t.foreign_keys)), left[0])
        left.remove(ready)
        out.append(ready)
    return out


def parent_keys(plpy, fk: ForeignKey) -> list[tuple]:
    """Up to MAX_PARENT_KEYS existing key values of ``fk``'s parent, as text,
    read as the caller (its privileges and row-level security)."""
    cols = ", ".join(f"{c}::pg_catalog.text" for c in fk.ref_columns)
    not_null = " and ".join(f"{c} is not null" for c in fk.ref_columns)
    rows = plpy.execute(plpy.prepare(
        f"select {cols} from {fk.ref_qualified} where {not_null} "
        f"order by pg_catalog.random() limit {MAX_PARENT_KEYS}"))
    return [tuple(r.values()) for r in rows]


def _cut(value):
    if isinstance(value, str) and len(value) > MAX_SAMPLE_CHARS:
        return value[:MAX_SAMPLE_CHARS] + "..."
    return value


def sample_rows(plpy, table: Table, n: int) -> list[dict]:
    """``n`` rows of the table's model columns, as the caller reads them."""
    cols = table.model_columns
    if n <= 0 or not cols:
        return []
    rows = plpy.execute(plpy.prepare(
        "select pg_catalog.row_to_json(t)::pg_catalog.text as r from (select "
        + ", ".join(c.quoted for c in cols) + f" from {table.qualified} limit $1) t", ["int4"]),
        [n])
    return [{k: _cut(v) for k, v in json.loads(r["r"]).items()} for r in rows]


def statistics(plpy, table: Table) -> list[str]:
    """One line per model column that pg_stats describes (after ANALYZE)."""
    wanted = {c.name for c in table.model_columns}
    try:
        with plpy.subtransaction():
            rows = db.query(plpy, _STATS, ("text", "text"), (table.schema, table.name))
    except plpy.SPIError:     # a type whose values do not read back as text[]
        return []
    lines = []
    for r in rows:
        if r["name"] not in wanted:
            continue
        parts = [f"null fraction {r['null_frac']:.2f}"]
        if r["n_distinct"] is not None:
            n = r["n_distinct"]
            parts.append(f"distinct values {int(n)}" if n >= 0 else
                         f"distinct values {-n:.2f} of the rows")
        if r["lo"] is not None:
            parts.append(f"range {_cut(r['lo'])} to {_cut(r['hi'])}")
        if r["common"]:
            parts.append("most common values " + json.dumps([_cut(v) for v in r["common"]]))
        lines.append(f"{json.dumps(r['name'])}: " + ", ".join(parts))
    return lines
