"""Where a vector index's documents come from, and how they are chunked.

``location`` is one source or a JSON array of them:

- ``table:schema.table(id_column, text_column)``: each row of a table or view
  the owner may read is a document named by its id; identifiers follow SQL
  (unquoted are folded to lower case, "quoted" are taken as written); the
  schema is required (a pg_cron refresh has another search_path);
- ``query:select id, body from schema.table where ...``: each row of a query
  is a document, column 1 its id, column 2 its text.  The query is a role's
  text run at refresh time (also by pg_cron), so it is treated as hostile as
  model-generated SQL: checked by nl2sql/sqlguard.py when it is set and at
  each refresh (one read-only SELECT, no locking clause, allowed functions, no
  catalog or extension relation; relations schema-qualified, as a pg_cron
  refresh has another search_path) and run as runsql runs generated SQL
  (nl2sql/sqlrun.py: what PostgreSQL resolved it to is verified by OID, as the
  caller, read-only, under its statement_timeout and dbms_cloud_ai.max_rows /
  max_result_bytes, in a subtransaction always rolled back);
- ``https://...`` or ``http://...``: one document, fetched as summarize's
  location_uri is (text/documents.fetch_document: the host ACL, one deadline,
  8 MB at most, text types only), with the index's credential_name for Basic
  authentication;
- an OCI Object Storage location (``https://objectstorage.<region>.oraclecloud.com/n/<ns>/b/<bucket>/o/...``,
  its dedicated and Swift hosts, or ``oci://...``), Oracle's usual source: accepted and stored as
  given, so that an index made for Oracle can be created and read back, and refused (0A000) when
  the index is refreshed: the extension cannot list or read a bucket.

Chunks are cut by text/chunks.split (paragraphs, then sentences, then spaces)
at chunk_size characters; each chunk after the first repeats the last
chunk_overlap characters of the one before it.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import db
from ..errors import FeatureNotSupported, InsufficientPrivilege, InvalidParameter, UndefinedObject
from ..lazy import LazyModule

if TYPE_CHECKING:   # the same modules, for tools that read imports (lazy.py)
    from ..nl2sql import sqlguard, sqlrun
    from ..text import chunks as text_chunks
    from ..text import documents as text_documents
else:
    text_chunks = LazyModule("text.chunks")        # a refresh needs them, a narrate
    text_documents = LazyModule("text.documents")  # over the index does not
    sqlguard = LazyModule("nl2sql.sqlguard")       # pglast and sqlglot: only for query sources
    sqlrun = LazyModule("nl2sql.sqlrun")
HINT = ("See the attributes of dbms_cloud_ai.create_vector_index() in "
        "docs/reference/vector-indexes.md.")

MAX_ROWS = 1_000_000       # rows read from a table source in one refresh
_IDENT = r'(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)'
_TABLE = re.compile(rf'table:\s*({_IDENT}\s*\.\s*{_IDENT})\s*\(\s*({_IDENT})\s*,\s*({_IDENT})\s*\)\s*\Z',
                    re.I)
_URL = re.compile(r"https?://\S+\Z", re.I)
_QUERY = re.compile(r"query:\s*(.*?)[\s;]*\Z", re.I | re.S)
_OBJECT_STORAGE = re.compile(
    r"(oci://\S+|https://([a-z0-9-]+\.)?(swift)?objectstorage\.[a-z0-9-]+\."
    r"(oraclecloud\.com|oci\.customer-oci\.com)/\S*)\Z", re.I)


@dataclass(frozen=True)
class Source:
    text: str                  # as stored (the location's canonical text)
    kind: str                  # "table", "query", "url" or "object_storage"
    relation: str | None = None
    id_column: str | None = None
    text_column: str | None = None
    sql: str | None = None     # a query source's SELECT


def _column(ident: str) -> str:
    return ident[1:-1].replace('""', '"') if ident.startswith('"') else ident.lower()


def parse(text: str, fn: str = "create_vector_index") -> Source:
    m = _TABLE.match(text)
    if m:
        rel, idc, txt = m.groups()
        rel = re.sub(r"\s*\.\s*", ".", rel)
        return Source(f"table:{rel}({idc}, {txt})", "table", rel, _column(idc), _column(txt))
    m = _QUERY.match(text)
    if m:
        check_query(m.group(1), fn)
        return Source(f"query:{m.group(1)}", "query", sql=m.group(1))
    if _OBJECT_STORAGE.match(text):
        return Source(text, "object_storage")
    if _URL.match(text):
        return Source(text, "url")
    raise InvalidParameter(
        f"vector index attribute location is not a source: {text!r}",
        detail="A source is 'table:schema.table(id_column, text_column)' (schema required), "
               "'query:select id, text from schema.table ...', an http(s) URL or an OCI Object "
               "Storage location (stored, not read); "
               "location may also be a JSON array of sources.",
        hint=f"Correct it in dbms_cloud_ai.{fn}(); {HINT}")


def check_query(sql: str, fn: str = "create_vector_index"):
    """A query source's SELECT, accepted by the validator of generated SQL
    (its SQLSTATE: 22023 not a query, 42501 not allowed), every relation
    schema-qualified; a sqlguard.Checked."""
    hint = f"Correct it in dbms_cloud_ai.{fn}(); {HINT}"
    try:
        checked = sqlguard.check(sql)
    except InsufficientPrivilege as e:
        raise InsufficientPrivilege(f"vector index attribute location: query source {e.message}",
                                    detail=e.detail, hint=hint) from None
    except InvalidParameter as e:
        raise InvalidParameter(f"vector index attribute location: query source {e.message}",
                               detail=e.detail, hint=hint) from None
    bare = sorted(name for schema, name in checked.objects if schema is None)
    if bare:
        raise InvalidParameter(
            "vector index attribute location: query source names relation "
            f"{bare[0]} without its schema",
            detail="A refresh by pg_cron runs with another search_path.",
            hint=f"Write schema.{bare[0]}; {hint}")
    return checked


def all_of(attrs: dict) -> list[Source]:
    loc = attrs["location"]
    return [parse(x) for x in (loc if isinstance(loc, list) else [loc])]


def unreadable(index_name: str, attrs: dict) -> FeatureNotSupported | None:
    """The error a refresh raises for an index whose location is in OCI Object
    Storage (0A000), or None."""
    stored = [s.text for s in all_of(attrs) if s.kind == "object_storage"]
    if not stored:
        return None
    return FeatureNotSupported(
        f"vector index {index_name} cannot be refreshed: location {stored[0]} is in OCI Object "
        "Storage, which dbms_cloud_ai cannot read",
        detail="The location is kept as given; no document was read and no chunk changed.",
        hint="Point location at a table:, query: or https:// source with "
             "dbms_cloud_ai.update_vector_index(), or load the documents into a table.")


def _table_sql(plpy, src: Source) -> str:
    """The query reading a table source, after checking the caller may read it."""
    row = db.one(plpy, """
        select r.oid::pg_catalog.regclass::text as rel,
               (select a.attnum from pg_catalog.pg_attribute a
                 where a.attrelid = r.oid and a.attname = $2 and a.attnum > 0
                   and not a.attisdropped) as id_col,
               (select a.attnum from pg_catalog.pg_attribute a
                 where a.attrelid = r.oid and a.attname = $3 and a.attnum > 0
                   and not a.attisdropped) as text_col
          from pg_catalog.to_regclass($1) as r(oid) where r.oid is not null""",
                 ("text", "text", "text"), (src.relation, src.id_column, src.text_column))
    hint = "Correct the location with dbms_cloud_ai.update_vector_index()."
    if row is None:
        raise UndefinedObject(f"relation {src.relation} of vector index source does not exist",
                              hint=hint)
    for col, num in ((src.id_column, row["id_col"]), (src.text_column, row["text_col"])):
        if num is None:
            raise UndefinedObject(f"column {col} of relation {row['rel']} does not exist", hint=hint)
    ok = db.one(plpy, "select pg_catalog.has_column_privilege($1::pg_catalog.regclass, $2, 'SELECT') "
                      "and pg_catalog.has_column_privilege($1::pg_catalog.regclass, $3, 'SELECT') as ok",
                ("text", "text", "text"), (row["rel"], src.id_column, src.text_column))["ok"]
    if not ok:
        raise InsufficientPrivilege(f"permission denied for relation {row['rel']}",
                                    hint="The index's owner must be able to read its source.")
    q = plpy.quote_ident
    return (f"select ({q(src.id_column)})::text as id, ({q(src.text_column)})::text as body "
            f"from {row['rel']} where {q(src.text_column)} is not null limit {MAX_ROWS}")


def _value(raw: str | None) -> str | None:
    """A column's value as text, from the JSON text sqlrun returns."""
    v = json.loads(raw) if raw is not None else None
    return v if v is None or isinstance(v, str) else raw


def _query_rows(plpy, src: Source) -> list[tuple[str, str]]:
    """Rows of a query source, run as runsql runs generated SQL (sqlrun.run:
    read-only, as the caller, under the session's statement_timeout and
    row/byte limits); relations are qualified, so no search_path is given."""
    limits = sqlrun.limits(plpy)
    result = sqlrun.run(plpy, check_query(src.sql, "update_vector_index"), [], limits)
    out = []
    for text in result.rows:
        pairs = json.loads(text)
        if len(pairs) != 2:
            raise InvalidParameter(
                f"vector index attribute location: query source returns {len(pairs)} columns, "
                "not 2 (id, text)",
                hint="Correct it with dbms_cloud_ai.update_vector_index(); " + HINT)
        ident, body = _value(pairs[0][1]), _value(pairs[1][1])
        if body is not None:
            out.append((f"query:{ident}", body))
    return out


def documents(plpy, ctx, src: Source, credential_name) -> list[tuple[str, str]]:
    """(source id, text) of each document of one source."""
    if src.kind == "table":
        rows = db.query(plpy, _table_sql(plpy, src))
        return [(f"{src.relation}:{r['id']}", r["body"]) for r in rows]
    if src.kind == "query":
        return _query_rows(plpy, src)
    return [(src.text, text_documents.fetch_document(plpy, ctx, src.text, credential_name))]


@dataclass(frozen=True)
class Chunk:
    source: str
    no: int
    content: str

    def hash(self, model: str) -> str:
        return hashlib.md5(f"{model}\n{self.content}".encode()).hexdigest()


def chunks(source: str, text: str, size: int, overlap: int) -> list[Chunk]:
    text = text.strip()
    if not text:
        return []
    # split's pieces are at most max_chunk(target) long: with the overlap in
    # front, a chunk stays within chunk_size
    target = max(8, int((size - overlap) * text_chunks.CHUNK_FILL))
    parts = [c.text for c in text_chunks.split(text, target)]
    out = []
    for i, part in enumerate(parts):
        lead = parts[i - 1][-overlap:] if i and overlap else ""
        out.append(Chunk(source, i, (lead + part)[:size]))
    return out
