"""What the model is told about the tables: read from the catalog, cached.

``load`` reads, as the caller, every relation of the profile's ``object_list``
(or of the caller's current schema) that the caller may read, with the columns
the caller may read, comments, keys and annotations (dbms_cloud_ai.add_annotation;
only those written by a role that still has the rights of the relation's owner).  Relations the caller cannot read are
left out without a word, so a prompt never reveals what exists beyond the
caller's privileges.

The result is cached per backend, keyed by role and scope, and checked on every
use against a fingerprint of the catalog rows it was built from (pg_class,
pg_attribute, pg_description, pg_constraint, pg_namespace, pg_auth_members and
the annotations the caller sees: row count and the sum of xmin).  Any DDL,
COMMENT, GRANT, role membership or annotation change touches one of those
rows and gives a new fingerprint, so the next call reads the catalog again;
nothing needs an event trigger.

``select`` decides which tables go into the prompt: all of them when they fit
the budget (``dbms_cloud_ai.schema_context_tokens``, about four characters per
token), otherwise -- and always for ``object_list_mode = automated`` -- the
tables that share the most words with the question (and the conversation's
recent questions), then the tables their foreign keys point to, while they fit.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from .. import db, settings
from ..errors import InvalidParameter, NothingInScope

CHARS_PER_TOKEN = 4
_CACHE_LIMIT = 64          # scopes kept per backend


def _literal(text: str) -> str:
    """A comment as a one-line SQL string literal: it stays data, whatever it says."""
    text = re.sub(r"[\x00-\x1f\x7f\u2028\u2029]+", " ", text).strip()
    return "'" + text.replace("'", "''") + "'"


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")
_QUOTED = re.compile(r'"(?:[^"]|"")*"')


def _one_line(quoted: str) -> str:
    """A quoted name as PostgreSQL reads it, on one line: control characters (a line
    break in a table name) are written as U&"..." escapes, so no name can start a new
    line of the DDL the model is shown."""
    def escape(m):
        body = m.group(0)[1:-1]
        if not _CONTROL.search(body):
            return m.group(0)
        body = _CONTROL.sub(lambda c: f"\\{ord(c.group(0)):04X}", body.replace("\\", "\\\\"))
        return 'U&"' + body + '"'
    return _QUOTED.sub(escape, quoted) if _CONTROL.search(quoted) else quoted


_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_STOP = frozenset("""a an and are as at be by do does for from have how i in is it many me much
my of on or show the their there this to was what which who with per each all list give tell
find get number total count top""".split())


def words(text: str | None) -> set[str]:
    """Lower-case words, singular-ish, without the commonest English ones."""
    out = set()
    for w in _WORD.findall(text or ""):
        w = w.lower()
        if len(w) < 2 or w in _STOP:
            continue
        if w.endswith("ies") and len(w) > 4:
            w = w[:-3] + "y"
        elif w.endswith("ses") or w.endswith("xes"):
            w = w[:-2]
        elif w.endswith("s") and not w.endswith("ss") and len(w) > 3:
            w = w[:-1]
        out.add(w)
    return out


@dataclass(frozen=True)
class Column:
    name: str
    quoted: str                   # as PostgreSQL needs it written (quote_ident)
    type: str
    not_null: bool
    comment: str | None
    annotations: tuple[tuple[str, str | None], ...] = ()   # (name, value), by name


@dataclass(frozen=True)
class Table:
    schema: str
    name: str
    qualified: str                # schema.name, each quoted only where PostgreSQL needs it
    kind: str                     # table, view, materialized view, foreign table
    comment: str | None
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...]  # quoted column names
    unique: tuple[tuple[str, ...], ...]
    # (quoted columns, referenced schema, referenced name, referenced qualified, quoted columns)
    foreign_keys: tuple[tuple[tuple[str, ...], str, str, str, tuple[str, ...]], ...]
    name_words: frozenset = field(default=frozenset(), compare=False)
    column_words: frozenset = field(default=frozenset(), compare=False)
    comment_words: frozenset = field(default=frozenset(), compare=False)
    annotations: tuple[tuple[str, str | None], ...] = ()
    annotation_words: frozenset = field(default=frozenset(), compare=False)

    def ddl(self, comments: bool, constraints: bool, annotations: bool = False,
            values: dict | None = None) -> str:
        """(``values``: column name -> its values, nl2sql/values.categories.)"""
        """The table as PostgreSQL DDL; comments become COMMENT ON statements,
        annotations and value hints comment lines, all with escaped literals, so
        that nothing in them can pass for an instruction."""
        kind = {"table": "TABLE", "view": "VIEW", "materialized view": "MATERIALIZED VIEW",
                "foreign table": "FOREIGN TABLE"}[self.kind]
        values = values or {}
        lines = [(f"  {c.quoted} {c.type}{' NOT NULL' if c.not_null else ''}",
                  _values_note(values.get(c.name))) for c in self.columns]
        if constraints:
            if self.primary_key:
                lines.append((f"  PRIMARY KEY ({', '.join(self.primary_key)})", ""))
            for cols in self.unique:
                lines.append((f"  UNIQUE ({', '.join(cols)})", ""))
            for cols, _, _, rqualified, rcols in self.foreign_keys:
                lines.append((f"  FOREIGN KEY ({', '.join(cols)}) REFERENCES "
                              f"{rqualified} ({', '.join(rcols)})", ""))
        body = "\n".join(line + ("," if i < len(lines) - 1 else "") + note
                         for i, (line, note) in enumerate(lines))
        text = f"CREATE {kind} {self.qualified} (\n{body}\n);"
        if comments:
            target = "TABLE" if kind in ("TABLE", "FOREIGN TABLE") else kind
            if self.comment:
                text += f"\nCOMMENT ON {target} {self.qualified} IS {_literal(self.comment)};"
            for c in self.columns:
                if c.comment:
                    text += (f"\nCOMMENT ON COLUMN {self.qualified}.{c.quoted} IS "
                             f"{_literal(c.comment)};")
        if annotations:
            if self.annotations:
                text += f"\n-- ANNOTATIONS ON TABLE {self.qualified}: {_pairs(self.annotations)}"
            for c in self.columns:
                if c.annotations:
                    text += (f"\n-- ANNOTATIONS ON COLUMN {self.qualified}.{c.quoted}: "
                             f"{_pairs(c.annotations)}")
        return text


def _values_note(values) -> str:
    """A column's value hint (nl2sql/values.py), as a comment of literals."""
    return "  -- values: " + ", ".join(_literal(v) for v in values) if values else ""


def literals(values) -> str:
    return ", ".join(_literal(v) for v in values)


def _pairs(annotations) -> str:
    """Name 'value', ...: names are identifiers (checked by add_annotation), values
    one-line literals."""
    return ", ".join(n if v is None else f"{n} {_literal(v)}" for n, v in annotations)


@dataclass
class Catalog:
    """The readable relations in a profile's scope."""

    tables: list[Table]
    scope: str                               # what was asked for, for messages
    unmatched: list[str]                     # object_list entries with nothing readable
    fingerprint: str = ""
    _texts: dict = field(default_factory=dict, repr=False)
    # nl2sql/values.py: (schema, name) -> TableValues, kept while the catalog is
    values_cache: dict = field(default_factory=dict, repr=False)

    def texts(self, comments: bool, constraints: bool, annotations: bool = False) -> dict:
        """Each table's DDL for these flags, rendered once per cached catalog."""
        key = (comments, constraints, annotations)
        if key not in self._texts:
            self._texts[key] = {(t.schema, t.name): t.ddl(comments, constraints, annotations)
                                for t in self.tables}
        return self._texts[key]

    def columns(self) -> dict:
        """Column names by (schema, table), and by (None, table) where the name is
        unique (a model's text need not qualify it); for nl2sql/fixes.py."""
        if "columns" not in self._texts:
            out = {(t.schema, t.name): frozenset(c.name for c in t.columns) for t in self.tables}
            names = [t.name for t in self.tables]
            out.update({(None, t.name): out[(t.schema, t.name)] for t in self.tables
                        if names.count(t.name) == 1})
            self._texts["columns"] = out
        return self._texts["columns"]

    def allowed(self) -> set[tuple[str, str]]:
        return {(t.schema, t.name) for t in self.tables}

    def fold(self) -> dict[str, str]:
        """Catalog names by lower-case form (names that collide are left out)."""
        seen: dict[str, set[str]] = {}
        for t in self.tables:
            for n in (t.schema, t.name, *(c.name for c in t.columns)):
                seen.setdefault(n.lower(), set()).add(n)
        return {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}


# --- reading the catalog ------------------------------------------------------

_SCOPE = """
    select c.oid, n.nspname, c.relname, c.relkind, c.relowner
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p', 'v', 'm', 'f') and not c.relispartition
       and (n.nspname = any ($1::text[])
            or (n.nspname, c.relname) in
                (select * from rows from (pg_catalog.unnest($2::text[]), pg_catalog.unnest($3::text[]))))"""

_READ = f"""
    with scope as ({_SCOPE}
       and pg_catalog.has_schema_privilege(n.oid, 'USAGE')
       and (pg_catalog.has_table_privilege(c.oid, 'SELECT')
            or pg_catalog.has_any_column_privilege(c.oid, 'SELECT')))
    select s.nspname, s.relname, s.relkind, td.description as comment,
           pg_catalog.quote_ident(s.nspname) || '.' || pg_catalog.quote_ident(s.relname)
               as qualified,
           (select pg_catalog.json_agg(pg_catalog.json_build_array(
                       a.attname, pg_catalog.quote_ident(a.attname),
                       pg_catalog.format_type(a.atttypid, a.atttypmod),
                       a.attnotnull, cd.description) order by a.attnum)
              from pg_catalog.pg_attribute a
              left join pg_catalog.pg_description cd
                on cd.objoid = a.attrelid and cd.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass
               and cd.objsubid = a.attnum
             where a.attrelid = s.oid and a.attnum > 0 and not a.attisdropped
               and pg_catalog.has_column_privilege(s.oid, a.attnum, 'SELECT'))::text as columns,
           (select pg_catalog.json_agg(pg_catalog.json_build_array(
                       k.contype,
                       (select pg_catalog.array_agg(a.attname order by u.ord)
                          from pg_catalog.unnest(k.conkey) with ordinality u(attnum, ord)
                          join pg_catalog.pg_attribute a on a.attrelid = k.conrelid
                                                         and a.attnum = u.attnum),
                       fn.nspname, fc.relname,
                       pg_catalog.quote_ident(fn.nspname) || '.' || pg_catalog.quote_ident(fc.relname),
                       (select pg_catalog.array_agg(pg_catalog.quote_ident(a.attname) order by u.ord)
                          from pg_catalog.unnest(k.confkey) with ordinality u(attnum, ord)
                          join pg_catalog.pg_attribute a on a.attrelid = k.confrelid
                                                         and a.attnum = u.attnum))
                   order by k.contype, k.conname)
              from pg_catalog.pg_constraint k
              left join pg_catalog.pg_class fc on fc.oid = k.confrelid
              left join pg_catalog.pg_namespace fn on fn.oid = fc.relnamespace
             where k.conrelid = s.oid and k.contype in ('p', 'u', 'f')
               and (k.contype <> 'f' or pg_catalog.has_table_privilege(k.confrelid, 'SELECT')
                    or pg_catalog.has_any_column_privilege(k.confrelid, 'SELECT'))
           )::text as constraints,
           (select pg_catalog.json_agg(pg_catalog.json_build_array(
                       an.column_name, an.annotation_name, an.annotation_value)
                   order by an.column_name, an.annotation_name, an.owner)
              from dbms_cloud_ai._annotation an
              join pg_catalog.pg_roles w on w.rolname = an.owner
             where an.table_id = s.oid
               and pg_catalog.pg_has_role(w.oid, s.relowner, 'USAGE'))::text as annotations
      from scope s
      left join pg_catalog.pg_description td
        on td.objoid = s.oid and td.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass
       and td.objsubid = 0
     order by s.nspname, s.relname"""

# Row count and xmin sum of every catalog row the description depends on
# (including the tables foreign keys point to: their privileges decide
# whether a key is shown).
_FINGERPRINT = f"""
    with scope as ({_SCOPE}), ids as (select pg_catalog.array_agg(oid) as a from scope)
    select pg_catalog.concat_ws('/',
        (select pg_catalog.count(*) || ':' || pg_catalog.sum(c.xmin::text::int8)
           from pg_catalog.pg_class c where c.oid = any ((select a from ids)::oid[])),
        (select pg_catalog.count(*) || ':' || pg_catalog.sum(a.xmin::text::int8)
           from pg_catalog.pg_attribute a where a.attrelid = any ((select a from ids)::oid[])
            and a.attnum > 0),
        (select pg_catalog.count(*) || ':' || pg_catalog.sum(d.xmin::text::int8)
           from pg_catalog.pg_description d where d.objoid = any ((select a from ids)::oid[])
            and d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass),
        (select pg_catalog.count(*) || ':' || pg_catalog.sum(k.xmin::text::int8)
           from pg_catalog.pg_constraint k where k.conrelid = any ((select a from ids)::oid[])),
        (select pg_catalog.count(*) || ':' || pg_catalog.sum(n.xmin::text::int8)
           from pg_catalog.pg_namespace n),
        (select pg_catalog.count(*) || ':' || pg_catalog.sum(r.xmin::text::int8)
           from pg_catalog.pg_class r where r.oid in
                (select k.confrelid from pg_catalog.pg_constraint k
                  where k.conrelid = any ((select a from ids)::oid[]) and k.contype = 'f')),
        (select pg_catalog.count(*) || ':' || pg_catalog.sum(m.xmin::text::int8)
           from pg_catalog.pg_auth_members m),
        (select pg_catalog.count(*) || ':' || pg_catalog.sum(an.xmin::text::int8)
           from dbms_cloud_ai._annotation an
          where an.table_id::oid = any ((select a from ids)::oid[]))) as fp, current_user::text as who"""

_KINDS = {"r": "table", "p": "table", "v": "view", "m": "materialized view", "f": "foreign table"}

_cache: dict[tuple, Catalog] = {}


def _variants(text: str) -> list[str]:
    return [text] if text == text.lower() else [text, text.lower()]


def scope_of(object_list, search_path) -> list[dict]:
    """The object_list, or the caller's current schema when there is none."""
    if object_list:
        return object_list
    if not search_path:
        raise InvalidParameter(
            "the profile has no object_list and the session has no current schema",
            hint="Set the profile's object_list with dbms_cloud_ai.set_attribute(), "
                 "or SET search_path to the schema holding your tables.")
    return [{"owner": search_path[0]}]


def _arguments(entries):
    schemas, pair_s, pair_n = [], [], []
    for e in entries:
        owners = _variants(e["owner"])
        if "name" not in e:
            schemas += owners
            continue
        for o in owners:
            for n in _variants(e["name"]):
                pair_s.append(o)
                pair_n.append(n)
    return schemas, pair_s, pair_n


def load(plpy, entries: list[dict]) -> Catalog:
    """The catalog for ``entries`` (object_list form), from cache when unchanged."""
    args = _arguments(entries)
    row = db.one(plpy, _FINGERPRINT, ("text[]", "text[]", "text[]"), args)
    fp = row["fp"]
    key = (row["who"], json.dumps(entries, sort_keys=True))
    hit = _cache.get(key)
    if hit is not None and hit.fingerprint == fp:
        return hit
    rows = db.query(plpy, _READ, ("text[]", "text[]", "text[]"), args)
    catalog = _build(rows, entries)
    catalog.fingerprint = fp
    if len(_cache) >= _CACHE_LIMIT:
        _cache.pop(next(iter(_cache)))
    _cache[key] = catalog
    return catalog


def _build(rows, entries) -> Catalog:
    found = {(r["nspname"], r["relname"]): r for r in rows}
    schemas = {r["nspname"] for r in rows}
    chosen: dict[tuple[str, str], Table] = {}
    unmatched = []
    for e in entries:
        owner = e["owner"] if e["owner"] in schemas else e["owner"].lower()
        if "name" not in e:
            keys = [k for k in found if k[0] == owner]
        else:
            name = e["name"] if (owner, e["name"]) in found else e["name"].lower()
            keys = [(owner, name)] if (owner, name) in found else []
        if not keys:
            unmatched.append(e["owner"] + ("." + e["name"] if "name" in e else ".*"))
        for k in keys:
            if k not in chosen:
                chosen[k] = _table(found[k])
    tables = sorted(chosen.values(), key=lambda t: (t.schema, t.name))
    scope = ", ".join(e["owner"] + ("." + e["name"] if "name" in e else "") for e in entries)
    return Catalog(tables, scope, unmatched)


def _table(r) -> Table:
    notes: dict[str | None, list] = {}
    for column, name, value in json.loads(r.get("annotations") or "[]"):
        notes.setdefault(column, []).append((name, value))
    cols = tuple(Column(n, _one_line(q), t, bool(nn), c, tuple(notes.get(n, ())))
                 for n, q, t, nn, c in json.loads(r["columns"] or "[]"))
    quoted = {c.name: c.quoted for c in cols}
    keep = lambda names: all(n in quoted for n in names)  # noqa: E731 - keys on hidden columns go
    pk, unique, fks = (), [], []
    for contype, conkey, fschema, fname, fqualified, fkey in json.loads(r["constraints"] or "[]"):
        if conkey is None or None in conkey or not keep(conkey):
            continue
        key = tuple(quoted[n] for n in conkey)
        if contype == "p":
            pk = key
        elif contype == "u":
            unique.append(key)
        elif contype == "f" and fname is not None and fkey:
            fks.append((key, fschema, fname, _one_line(fqualified), tuple(_one_line(k) for k in fkey)))
    return Table(r["nspname"], r["relname"], _one_line(r["qualified"]), _KINDS[r["relkind"]], r["comment"],
                 cols, pk, tuple(unique), tuple(fks),
                 frozenset(words(r["relname"])),
                 frozenset(w for c in cols for w in words(c.name)),
                 frozenset(words(r["comment"]) | {w for c in cols for w in words(c.comment)}),
                 tuple(notes.get(None, ())),
                 frozenset(w for _, value in (*notes.get(None, ()), *(a for c in cols for a in c.annotations))
                           for w in words(value)))


# --- choosing what goes into the prompt -----------------------------------------

@dataclass
class Selection:
    tables: list[Table]          # described, in catalog order
    omitted: list[Table]         # readable and in scope, but left out
    reason: str | None           # why some were left out
    texts: list[str]             # the DDL of each described table


def budget_tokens(raw: str | None, shared: bool = False) -> int:
    """The setting; for a grantee of a shared profile (``shared``) at most its default."""
    name = "dbms_cloud_ai.schema_context_tokens"
    return settings.for_grantee(name, settings.value(name, raw), shared)


def select(catalog: Catalog, question: str, history: list[str], attrs: dict,
           budget: int) -> Selection:
    if not catalog.tables:
        raise NothingInScope(
            f"no table you can read is in the profile's scope ({catalog.scope})",
            hint="Check the profile's object_list (dbms_cloud_ai.set_attribute) and that you "
                 "have SELECT on its tables.")
    comments, constraints = bool(attrs.get("comments")), bool(attrs.get("constraints"))
    annotations = bool(attrs.get("annotations"))
    texts = catalog.texts(comments, constraints, annotations)
    limit = budget * CHARS_PER_TOKEN
    total = sum(len(x) + 2 for x in texts.values())
    automated = attrs.get("object_list_mode") == "automated"
    if total <= limit and not automated:
        return Selection(list(catalog.tables), [], None, list(texts.values()))

    ranked = _rank(catalog.tables, question, history, annotations)
    if automated:
        relevant = [t for s, t in ranked if s > 0]
        ranked = [(1, t) for t in relevant] or ranked
    by_key = {(t.schema, t.name): t for t in catalog.tables}
    chosen, used = {}, 0

    def take(t):
        nonlocal used
        k = (t.schema, t.name)
        cost = len(texts[k]) + 2
        if k in chosen or used + cost > limit:
            return False
        chosen[k] = t
        used += cost
        return True

    for _, t in ranked:
        take(t)
        for _, rs, rn, _, _ in t.foreign_keys:   # join partners next to the table
            if (rs, rn) in by_key:
                take(by_key[(rs, rn)])
    described = [t for t in catalog.tables if (t.schema, t.name) in chosen]
    omitted = [t for t in catalog.tables if (t.schema, t.name) not in chosen]
    if not described:
        raise InvalidParameter(
            "the description of even the most relevant table does not fit "
            f"dbms_cloud_ai.schema_context_tokens ({budget})",
            hint="Raise it: SET dbms_cloud_ai.schema_context_tokens = 50000;")
    if automated and not omitted:
        reason = None
    elif automated:
        reason = "object_list_mode is automated: only the tables most relevant to the question"
    else:
        reason = (f"the description of all {len(catalog.tables)} tables needs about "
                  f"{total // CHARS_PER_TOKEN} tokens, more than "
                  f"dbms_cloud_ai.schema_context_tokens ({budget}): the tables most relevant "
                  "to the question were chosen")
    return Selection(described, omitted, reason, [texts[(t.schema, t.name)] for t in described])


def with_values(selection: Selection, attrs: dict, notes: dict) -> Selection:
    """``selection`` with value hints in its tables' DDL (``notes``: (schema,
    name) -> {column: values}, nl2sql/values.categories).  They are not
    counted against the budget: the tables were chosen first, and a hint is a
    few short literals per column."""
    flags = (bool(attrs.get("comments")), bool(attrs.get("constraints")),
             bool(attrs.get("annotations")))
    texts = [t.ddl(*flags, values=notes[(t.schema, t.name)])
             if notes.get((t.schema, t.name)) else text
             for t, text in zip(selection.tables, selection.texts)]
    return replace(selection, texts=texts)


def _rank(tables, question, history, annotations=False):
    """Tables by how many words of the question (and, less, of the conversation's
    earlier questions) their name, columns and comments (and annotation values,
    when shown) share; ties by name."""
    asked = words(question)
    before = set().union(*(words(h) for h in history)) - asked if history else set()
    scored = []
    for t in tables:
        score = 0
        for ws, weight in ((asked, 3), (before, 1)):
            score += weight * (4 * len(ws & t.name_words) + 2 * len(ws & t.column_words)
                               + len(ws & (t.comment_words | t.annotation_words
                                           if annotations else t.comment_words)))
        scored.append((score, t))
    scored.sort(key=lambda st: (-st[0], st[1].schema, st[1].name))
    return scored
