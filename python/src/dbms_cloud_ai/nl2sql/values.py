"""Value hints: the values a described table's text columns hold (issue 29).

A small model writes ``pet_type = 'Dog'`` where the data says ``'dog'``, or
looks for a city in the wrong column.  Shown the values, it writes them as
stored and picks the column that holds them.  Two kinds, as in AlloyDB's value
index and CodeS's value retrieval:

* a column with at most ``MAX_VALUES`` distinct values (a category) is shown
  with all of them, in its table's DDL: ``-- values: 'cat', 'dog'``;
* of a column with more, the values the question mentions (whole words,
  case-insensitively) are listed after the tables, before the question:
  ``sh.customers.cust_city = 'Munich'`` (there, the prompt's text up to them
  stays the same from one question to the next, which a server's prompt cache
  relies on).

A column whose values are all known (at most ``MAX_SCAN``) also lets
``fixes.polish`` repair a literal the model spelt in another case.

The rules:

* none while data access is disabled (``data_access``), and none when the
  profile's ``value_hints`` is false;
* only values the caller may read: the columns the catalog lists are those the
  caller may select, and the values are read as the caller.  A table whose
  row-level security applies to the caller is left out: its policies would run
  code of the table's owner in the caller's call, and what they let through can
  depend on settings that change between calls;
* no user code runs: only plain tables and materialized views are read (a view
  runs its definition, a foreign table its wrapper), only columns of the
  built-in text types and enums (their equality is built in);
* bounded: a table of at most ``SMALL_TABLE_BYTES`` (TOAST included: a few
  rows of huge values are not small) is read directly (one
  statement per table, at most ``MAX_SCAN`` + 1 distinct values per column); a
  larger one only through ``pg_stats`` (ANALYZE's most common values, which
  PostgreSQL shows only for columns the caller may read and tables whose row
  security does not apply), never scanned.  Values longer than
  ``MAX_VALUE_CHARS`` or not printable on one line are never shown;
* cached with the schema context, per role and catalog fingerprint, and read
  again when a table's tuple counters (inserts, updates, deletes; another
  session's within about a second, as its statistics are flushed) or ANALYZE
  counts move.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import db

MAX_VALUES = 12            # at most this many distinct values: a category, all shown
MAX_SCAN = 200             # distinct values read per column (matched against questions)
MAX_MATCHES = 3            # values of one column a question may bring into its prompt
MIN_MATCH_CHARS = 3        # shorter values ('m', 'no') match too many questions
MAX_VALUE_CHARS = 40       # longer values are never shown (nor used for repairs)
SMALL_TABLE_BYTES = 1 << 20

# The tables of the selection that may be read for values, with what decides
# whether cached values still hold.  $1: the tables as "schema.name" texts.
_TABLES = """
    select c.oid::pg_catalog.int8 as oid, n.nspname, c.relname,
           pg_catalog.pg_table_size(c.oid) <= $2 as small,
           pg_catalog.concat_ws(':', c.relfilenode,
                                pg_catalog.pg_stat_get_tuples_inserted(c.oid),
                                pg_catalog.pg_stat_get_tuples_updated(c.oid),
                                pg_catalog.pg_stat_get_tuples_deleted(c.oid),
                                pg_catalog.pg_stat_get_xact_tuples_inserted(c.oid),
                                pg_catalog.pg_stat_get_xact_tuples_updated(c.oid),
                                pg_catalog.pg_stat_get_xact_tuples_deleted(c.oid),
                                pg_catalog.pg_stat_get_analyze_count(c.oid),
                                pg_catalog.pg_stat_get_autoanalyze_count(c.oid)) as version,
           (select pg_catalog.array_agg(a.attname order by a.attnum)
              from pg_catalog.pg_attribute a
              join pg_catalog.pg_type t on t.oid = a.atttypid
             where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
               and (a.atttypid in ('pg_catalog.text'::pg_catalog.regtype,
                                   'pg_catalog.varchar'::pg_catalog.regtype,
                                   'pg_catalog.bpchar'::pg_catalog.regtype)
                    or t.typtype = 'e')
               and pg_catalog.has_column_privilege(c.oid, a.attnum, 'SELECT')) as columns
      from pg_catalog.unnest($1::text[]) q(name)
      join pg_catalog.pg_class c on c.oid = pg_catalog.to_regclass(q.name)
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p', 'm')
       and not pg_catalog.row_security_active(c.oid)"""

# One statement reading every text column of a small table: for each, at most
# MAX_SCAN + 1 distinct values (one more tells "not all of them").  Identifiers only
# through format('%I'); the statement runs as the caller.
_SAMPLE_SQL = """
    select pg_catalog.format('select %s',
               pg_catalog.string_agg(pg_catalog.format(
                   'array(select v::text from (select distinct %1$I as v from %2$I.%3$I '
                   'where %1$I is not null limit %4$s) s) as %5$I', col, $1::text, $2::text,
                   $4::int + 1, 'c' || i), ', ' order by i)) as sql
      from pg_catalog.unnest($3::text[]) with ordinality u(col, i)"""

# ANALYZE's statistics of a larger table: its most common values, all of them
# when every distinct value is among them.
_STATS = """
    select s.attname::text as col, s.most_common_vals::text::text[] as vals,
           s.n_distinct > 0 and pg_catalog.cardinality(s.most_common_vals::text::text[])
                                = s.n_distinct as complete
      from pg_catalog.pg_stats s
     where s.schemaname = $1 and s.tablename = $2 and s.attname = any ($3::text[])
       and s.most_common_vals is not null"""


@dataclass(frozen=True)
class Column:
    values: tuple            # showable distinct values, sorted
    complete: bool           # every distinct value of the column is in values
    # (value case-folded, value) of those a question can mention: folded once, when read
    matchable: tuple = ()


@dataclass(frozen=True)
class TableValues:
    version: str
    columns: dict            # column name -> Column


def for_tables(plpy, catalog, tables) -> dict:
    """{(schema, name): {column: Column}} for ``tables`` (schema_context.Table),
    read or from the catalog's cache."""
    cache = catalog.values_cache
    names = [f"{_quote(t.schema)}.{_quote(t.name)}" for t in tables]
    out = {}
    for row in db.query(plpy, _TABLES, ("text[]", "int8"), (names, SMALL_TABLE_BYTES)):
        key = (row["nspname"], row["relname"])
        hit = cache.get(key)
        if hit is None or hit.version != row["version"]:
            hit = TableValues(row["version"], _read(plpy, row) if row["columns"] else {})
            cache[key] = hit
        if hit.columns:
            out[key] = hit.columns
    return out


def _read(plpy, row) -> dict:
    schema, table, cols = row["nspname"], row["relname"], list(row["columns"])
    try:
        with plpy.subtransaction():   # a lock timeout or a cancel-free error: no hints
            if row["small"]:
                sql = db.one(plpy, _SAMPLE_SQL, ("text", "text", "text[]", "int4"),
                             (schema, table, cols, MAX_SCAN))["sql"]
                found = plpy.execute(sql)[0]
                read = [(col, found[f"c{i}"], len(found[f"c{i}"]) <= MAX_SCAN)
                        for i, col in enumerate(cols, 1)]
            else:
                read = [(r["col"], r["vals"], r["complete"]) for r in
                        db.query(plpy, _STATS, ("text", "text", "text[]"), (schema, table, cols))]
    except plpy.SPIError as e:
        if (getattr(e, "sqlstate", None) or "").startswith("57"):
            raise                     # a cancel or shutdown is the caller's, not ours to swallow
        return {}
    out = {}
    for col, vals, complete in read:
        vals = {v.rstrip() for v in vals[:MAX_SCAN]}     # char(n) pads
        shown = tuple(sorted(v for v in vals if _showable(v)))
        if shown:
            out[col] = Column(shown, bool(complete) and len(shown) == len(vals),
                              tuple((v.casefold(), v) for v in shown if len(v) >= MIN_MATCH_CHARS))
    return out


def categories(hints: dict) -> dict:
    """{(schema, table): {column: values}} of the columns to show with all their
    values (at most MAX_VALUES): the same for every question, so they go into
    the tables' DDL, whose text a server's prompt cache keeps."""
    return {key: {c: col.values for c, col in cols.items()
                  if col.complete and len(col.values) <= MAX_VALUES}
            for key, cols in hints.items()}


def mentioned(hints: dict, question: str) -> list[tuple[tuple, str, tuple]]:
    """[((schema, table), column, values)]: the values of the other columns that
    ``question`` mentions as whole words, case-insensitively (at most
    MAX_MATCHES per column).  They change with the question, so they go after
    the tables, next to it."""
    asked = question.casefold()
    out = []
    for key, cols in hints.items():
        for c, col in cols.items():
            if col.complete and len(col.values) <= MAX_VALUES:
                continue
            found = [v for folded, v in col.matchable
                     if folded in asked and _mentions(asked, folded)]
            if found:
                out.append((key, c, tuple(found[:MAX_MATCHES])))
    return out


def known(hints: dict) -> dict:
    """{(schema, table): {column: values}} of the columns whose values are all known."""
    return {key: {c: col.values for c, col in cols.items() if col.complete}
            for key, cols in hints.items()}


def _mentions(text: str, value: str) -> bool:
    """``value`` occurs in ``text`` as whole words."""
    start = text.find(value)
    while start >= 0:
        end = start + len(value)
        if (start == 0 or not text[start - 1].isalnum()) and \
                (end == len(text) or not text[end].isalnum()):
            return True
        start = text.find(value, start + 1)
    return False


def _showable(value: str) -> bool:
    """Short and on one line: what the model is shown is exactly what is stored."""
    return 0 < len(value) <= MAX_VALUE_CHARS and value.isprintable()


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
