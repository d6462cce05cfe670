"""What generated SQL resolves to, decided by PostgreSQL (issue 14, class 4).

sqlguard allow-lists functions and operators by *name*.  PostgreSQL binds a
name to an object by argument types along the search_path, and runs code that
no name in the query shows: a domain's CHECK (``'x'::dom``, or a literal coerced
to a column's domain array), a user-defined cast, an operator or function in a
schema on the path whose signature matches better than pg_catalog's
(``public.=(varchar, varchar)``, ``public.lower(varchar)``), attribute notation
(``t.fn``), the policies of a table and the body of a view.

``checked_view`` lets PostgreSQL analyse the accepted query once, as
``CREATE VIEW pg_temp.<random>`` inside a subtransaction the caller always
rolls back, and reads what the analysed query uses from ``pg_depend`` (every
object that is not pinned, i.e. everything not created by initdb) and from the
rule's node tree (``pg_rewrite.ev_action``: the function and operator OIDs,
pinned ones included).  It refuses (42501) unless

* every function is in pg_catalog and allow-listed by name, or is the code of
  a pg_catalog operator or cast (an operator's own function, an implicit cast);
* every operator is in pg_catalog;
* every type is harmless: built in, a base type (only a superuser can create
  one, so its C I/O functions are trusted), an enum, or a composite, array,
  range or multirange of harmless types, or a domain whose constraints call
  only what this list allows;
* every relation read is a table, view or materialized view whose policies
  (and, for a view, whose definition) use only what this list allows;
* nothing else (a text search configuration, a sequence named by regclass,
  ...) that initdb did not create.

The query then runs *through that view* (``sqlrun``), so what runs is the tree
that was checked, bound by OID: an object created by another session between
the check and the run cannot be picked up.

A literal is converted by its type's input function while PostgreSQL analyses
the query, before anything can be checked; for a domain that means its CHECK
runs.  So, before the analysis, when some domain in the database has a
constraint this module would refuse, ``_before_analysis`` refuses a query that
could reach it: a written type name, a column of a relation read, or an
argument of a function or operator outside pg_catalog on the path whose type
contains such a domain (of a name the query calls, or an operator the grammar
looks up for IN, LIKE, BETWEEN and the like).

The analysis needs a temporary object: a read-only transaction or a hot
standby cannot create one, and generated SQL is then refused (25006) rather
than run unchecked; so is a role without TEMP on the database (42501).
"""

from __future__ import annotations

import re
import secrets

from .. import db
from ..errors import InsufficientPrivilege, ReadOnlyTransaction
from . import sqlguard

_HINT = ("Only built-in side-effect-free functions and operators of pg_catalog, and types, "
         "domains, views and policies that use nothing else, may be used by generated SQL. "
         "Ask the owner of the object named to remove it from the schemas on your "
         "search_path, or leave that schema out of your search_path.")

# Node tree fields that name a function or an operator (outfuncs' spelling).
_FUNC_FIELD = re.compile(r"(?<!\\) :(?:funcid|aggfnoid|winfnoid) (\d+)")
_OPER_FIELD = re.compile(r"(?<!\\) :(?:opno|sortop|eqop) (\d+)")
_OPER_LIST = re.compile(r"(?<!\\) :opnos \(o((?: \d+)*)\)")


def oids_in_tree(tree: str | None) -> tuple[set[int], set[int]]:
    """Function and operator OIDs in a pg_node_tree text.  Names in the tree
    (aliases) escape blanks with a backslash, so they cannot forge a field; a
    forged one could only add an OID to check, never hide one."""
    tree = tree or ""
    funcs = {int(x) for x in _FUNC_FIELD.findall(tree)}
    ops = {int(x) for x in _OPER_FIELD.findall(tree)}
    for group in _OPER_LIST.findall(tree):
        ops.update(int(x) for x in group.split())
    return funcs, ops


def view_body(sql: str) -> str:
    """The checked query as one text column, each row a JSON array of [column
    name, value as JSON text] pairs (order and repeated names kept)."""
    return ("select coalesce((select pg_catalog.json_agg(pg_catalog.json_build_array("
            "e.key, e.value::pg_catalog.text)) from pg_catalog.json_each(pg_catalog.row_to_json(q))"
            " e)::pg_catalog.text, '[]') as r from (" + sql + ") q")


_STATE = """
    select pg_catalog.current_setting('transaction_read_only') = 'on' as ro,
           pg_catalog.has_database_privilege(pg_catalog.current_database(), 'TEMP') as temp"""
# The same, then the search_path set for the analysis, and whether any domain
# (outside information_schema's own) has a CHECK: if none, no literal can run
# code while the query is analysed.
_PREPARE = """
    select pg_catalog.current_setting('transaction_read_only') = 'on' as ro,
           pg_catalog.has_database_privilege(pg_catalog.current_database(), 'TEMP') as temp,
           pg_catalog.set_config('search_path', $1, true) is not null as path,
           exists (select from pg_catalog.pg_constraint c
                    where c.contypid <> 0 and c.conbin is not null
                      and c.connamespace <> 'information_schema'::pg_catalog.regnamespace)
               as domains"""


def ready(plpy):
    """Refuse now, before any model call, when the check could not run later."""
    _require(db.one(plpy, _STATE))


def _require(state):
    if state["ro"]:
        raise ReadOnlyTransaction(
            "generated SQL is not run or shown in a read-only transaction",
            detail="dbms_cloud_ai checks what the query's names resolve to by letting "
                   "PostgreSQL analyse it as a temporary view, which a read-only transaction "
                   "(or a hot standby) cannot create.",
            hint="Call it outside a read-only transaction (on the primary).")
    if not state["temp"]:
        raise InsufficientPrivilege(
            "generated SQL is not run or shown without the TEMP privilege on the database",
            detail="dbms_cloud_ai checks what the query's names resolve to by letting "
                   "PostgreSQL analyse it as a temporary view (always rolled back).",
            hint="Ask your DBA: GRANT TEMP ON DATABASE <db> TO <role>;")


def checked_view(plpy, checked: sqlguard.Checked, path: str) -> str:
    """Create pg_temp.<random> over ``checked.sql`` with ``path`` as the
    search_path, verify everything it uses, return its qualified name.

    Must run inside a subtransaction the caller rolls back (it changes the
    search_path until then).  PostgreSQL's own errors (unknown column, type
    mismatch) pass through as SPIError."""
    state = db.one(plpy, _PREPARE, ("text",), (path,))
    _require(state)
    if state["domains"]:
        _before_analysis(plpy, checked)
    # DDL takes no parameters: the body is sqlguard's re-printed single SELECT (a
    # subquery that cannot close its parentheses), the name is ours.
    name = "pg_temp.dca_checked_" + secrets.token_hex(8)
    plpy.execute(f"create view {name} as {view_body(checked.sql)}")
    # The checks read the catalog by OID under the functions' own path: a cached
    # plan is re-planned when the search_path differs from the one it was made with.
    plpy.execute("select pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true)")
    _verify(plpy, name, checked)
    return name


# --- after the analysis ------------------------------------------------------------

# One level of what the analysed query uses: the rules of the views $1 (first
# the checked view itself), what they depend on (not pinned, not already seen:
# $2), and every relation met (from those rules and $3, relations a policy
# read) with its kind and, when row-level security is on, its policies' trees
# and dependencies.
_LEVEL = """
    with rules as (
        select r.oid, r.ev_action::pg_catalog.text as tree
          from pg_catalog.pg_rewrite r
         where r.ev_class = any ($1) or r.ev_class = $4::pg_catalog.regclass),
    uses as (
        select d.refclassid::pg_catalog.regclass::pg_catalog.text as cls, d.refobjid as oid
          from pg_catalog.pg_depend d
         where d.classid = 'pg_catalog.pg_rewrite'::pg_catalog.regclass
           and d.objid in (select oid from rules) and d.deptype = 'n'
           and d.refobjid <> all ($2)
           and d.refobjid is distinct from $4::pg_catalog.regclass::pg_catalog.oid),
    rels as (
        select oid from uses where cls = 'pg_class'
        union select pg_catalog.unnest($3::pg_catalog.oid[]))
    select 'rule' as kind, null::pg_catalog.oid as oid, null as what, r.tree,
           null::pg_catalog.text[] as uses
      from rules r
    union all
    select 'use', u.oid, u.cls, null, null from uses u where u.cls <> 'pg_class'
    union all
    select 'relation', c.oid, c.relkind::pg_catalog.text || ' '
               || pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(c.relname),
           (select pg_catalog.string_agg(pg_catalog.concat(p.polqual::pg_catalog.text, ' ',
                                                           p.polwithcheck::pg_catalog.text), ' ')
              from pg_catalog.pg_policy p where p.polrelid = c.oid and c.relrowsecurity),
           (select pg_catalog.array_agg(d.refclassid::pg_catalog.regclass::pg_catalog.text
                                        || ' ' || d.refobjid)
              from pg_catalog.pg_policy p
              join pg_catalog.pg_depend d
                on d.classid = 'pg_catalog.pg_policy'::pg_catalog.regclass and d.objid = p.oid
             where p.polrelid = c.oid and c.relrowsecurity and d.deptype = 'n'
               and d.refobjid <> c.oid)
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where c.oid in (select oid from rels) and c.oid <> all ($2)
       and c.oid is distinct from $4::pg_catalog.regclass::pg_catalog.oid"""


def _verify(plpy, view: str, checked: sqlguard.Checked):
    seen: set = set()
    views, extra = [], []            # views whose rules to read; relations a policy read
    first = True
    while first or views or extra:
        first = False
        funcs, ops, types, rels, other = set(), set(), set(), set(), []
        described = []
        for row in db.query(plpy, _LEVEL, ("oid[]", "oid[]", "oid[]", "text"),
                            (views, list(seen), extra, view)):
            if row["kind"] == "rule":
                _add_tree(row["tree"], funcs, ops)
            elif row["kind"] == "use":
                _collect([{"cls": row["what"], "oids": [row["oid"]]}],
                         funcs, ops, types, rels, other)
            else:
                described.append(row)
        views, extra = [], []
        view = None                  # the checked view's own rule is read once
        for row in described:
            seen.add(row["oid"])
            kind, what = row["what"].split(" ", 1)
            if kind not in ("r", "p", "v", "m", "f"):
                _refuse(f"relation {what} ({_KINDS.get(kind, kind)}) may not be used by "
                        "generated SQL", checked)
            if kind == "v":
                views.append(row["oid"])
            if row["tree"] is not None and row["tree"].strip():   # its policies
                _add_tree(row["tree"], funcs, ops)
                for use in row["uses"] or ():
                    cls, oid = use.split(" ")
                    _collect([{"cls": cls, "oids": [int(oid)]}], funcs, ops, types, rels, other)
        _refuse_other(other, checked)
        _check_objects(plpy, funcs, ops, types, checked)
        extra = list(rels - seen)


def _add_tree(tree, funcs, ops):
    f, o = oids_in_tree(tree)
    funcs |= f
    ops |= o


_KINDS = {"S": "a sequence", "i": "an index", "c": "a composite type", "t": "a TOAST table"}


def _collect(rows, funcs, ops, types, rels, other):
    for row in rows:
        oids = set(row["oids"] or ())
        cls = row["cls"]
        if cls == "pg_proc":
            funcs |= oids
        elif cls == "pg_operator":
            ops |= oids
        elif cls == "pg_type":
            types |= oids
        elif cls == "pg_class":
            rels |= oids
        elif cls in _DATA_CLASSES:
            pass
        else:
            oids = {o for o in oids if o >= 16384}   # initdb's own objects are trusted
            if oids:
                other.append((cls, oids))


# Objects a query may name that run no code of the role that made them:
# collations, text search configurations and dictionaries (their parsers and
# templates need a superuser), schemas named by regnamespace constants.
_DATA_CLASSES = frozenset({"pg_collation", "pg_ts_config", "pg_ts_dict", "pg_namespace"})


def _refuse_other(other, checked):
    if other:
        cls, oids = other[0]
        _refuse(f"the query uses an object of {cls} that is not built in", checked)


# Functions: pg_catalog, and allow-listed by name or the code of a pg_catalog
# operator or cast.  Operators: pg_catalog.  Types: see _unsafe_types.
_OBJECTS = """
    select 'function ' || p.oid::pg_catalog.regprocedure::pg_catalog.text as what
      from pg_catalog.pg_proc p
     where p.oid = any ($1)
       and not (p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace
                and (p.proname = any ($3)
                     or p.oid in (select o.oprcode from pg_catalog.pg_operator o
                                   where o.oprnamespace = 'pg_catalog'::pg_catalog.regnamespace)
                     or p.oid in (select c.castfunc from pg_catalog.pg_cast c)))
    union all
    select 'operator ' || o.oid::pg_catalog.regoperator::pg_catalog.text
      from pg_catalog.pg_operator o
     where o.oid = any ($2)
       and (o.oprnamespace <> 'pg_catalog'::pg_catalog.regnamespace
            or not exists (select from pg_catalog.pg_proc p
                            where p.oid = o.oprcode
                              and p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace))
    limit 1"""


# initdb's functions and operators (OIDs below FirstNormalObjectId) found
# allowed: they cannot change, so each backend asks about them once.
_TRUSTED_FUNCS: set[int] = set()
_TRUSTED_OPS: set[int] = set()


def _check_objects(plpy, funcs, ops, types, checked):
    funcs, ops = funcs - _TRUSTED_FUNCS, ops - _TRUSTED_OPS
    if funcs or ops:
        bad = db.one(plpy, _OBJECTS, ("oid[]", "oid[]", "text[]"),
                     (list(funcs), list(ops), _ALLOWED))
        if bad:
            _refuse(f"the query would run {bad['what']}, which is not an allowed built-in", checked)
        _TRUSTED_FUNCS.update(f for f in funcs if f < 16384)
        _TRUSTED_OPS.update(o for o in ops if o < 16384)
    if types:
        bad = _unsafe_types(plpy, types)
        if bad:
            _refuse(f"the query would use the type {bad}, which runs code that is not an "
                    "allowed built-in", checked)


_ALLOWED = sorted(sqlguard.ALLOWED_FUNCTIONS)

# Every type reachable from $1 (element, base, attribute, range subtype,
# multirange's range), with its kind; the domains among them are then checked.
_TYPE_CLOSURE = """
    with recursive t(oid) as (
        select pg_catalog.unnest($1::pg_catalog.oid[])
        union
        select x.oid from t, lateral (
            select ty.typelem as oid from pg_catalog.pg_type ty
             where ty.oid = t.oid and ty.typelem <> 0
            union all
            select ty.typbasetype from pg_catalog.pg_type ty
             where ty.oid = t.oid and ty.typtype = 'd'
            union all
            select a.atttypid from pg_catalog.pg_type ty
              join pg_catalog.pg_attribute a on a.attrelid = ty.typrelid
             where ty.oid = t.oid and ty.typrelid <> 0 and a.attnum > 0 and not a.attisdropped
            union all
            select r.rngsubtype from pg_catalog.pg_range r where r.rngtypid = t.oid
            union all
            select r.rngtypid from pg_catalog.pg_range r where r.rngmultitypid = t.oid) x)
    select ty.oid, ty.typtype::pg_catalog.text as kind,
           ty.oid::pg_catalog.regtype::pg_catalog.text as what,
           (select pg_catalog.array_agg(c.conbin::pg_catalog.text) from pg_catalog.pg_constraint c
             where c.contypid = ty.oid and c.conbin is not null) as checks,
           (select pg_catalog.array_agg(c.oid) from pg_catalog.pg_constraint c
             where c.contypid = ty.oid) as cons
      from t join pg_catalog.pg_type ty on ty.oid = t.oid"""
_CONSTRAINT_USES = """
    select d.refclassid::pg_catalog.regclass::pg_catalog.text as cls,
           pg_catalog.array_agg(distinct d.refobjid) as oids
      from pg_catalog.pg_depend d
     where d.classid = 'pg_catalog.pg_constraint'::pg_catalog.regclass
       and d.objid = any ($1) and d.deptype = 'n' and d.refobjid <> all ($2)
     group by 1"""


def _unsafe_types(plpy, types) -> str | None:
    """The first type among ``types`` (or what they contain) that may run code
    other than trusted I/O, or None."""
    rows = db.query(plpy, _TYPE_CLOSURE, ("oid[]",), (list(types),))
    domains = []
    for row in rows:
        if row["kind"] not in ("b", "c", "d", "e", "p", "r", "m"):
            return row["what"]
        if row["kind"] == "d" and row["cons"]:
            domains.append(row)
    if not domains:
        return None
    if not _domains_unsafe(plpy, domains, {r["oid"] for r in rows}):
        return None
    if len(domains) > 1:   # name the one that is refused
        for d in domains:
            if _domains_unsafe(plpy, [d], {r["oid"] for r in rows}):
                return d["what"]
    return domains[0]["what"]


def _domains_unsafe(plpy, domains, closure) -> bool:
    funcs, ops, inner, rels, other = set(), set(), set(), set(), []
    cons = []
    for d in domains:
        cons += d["cons"]
        for tree in d["checks"] or ():
            _add_tree(tree, funcs, ops)
    _collect(db.query(plpy, _CONSTRAINT_USES, ("oid[]", "oid[]"), (cons, list(closure))),
             funcs, ops, inner, rels, other)
    if other or rels:
        return True
    if (funcs or ops) and db.one(plpy, _OBJECTS, ("oid[]", "oid[]", "text[]"),
                                 (list(funcs), list(ops), _ALLOWED)):
        return True
    inner -= closure
    return bool(inner) and _unsafe_types(plpy, inner) is not None


# --- before the analysis -----------------------------------------------------------

# The types the analysis could convert a literal to: the type names written,
# the columns of the relations read, and the arguments of the functions and
# operators outside pg_catalog on the path that have a name the query may call.
_CANDIDATES = """
    select pg_catalog.array_agg(distinct s.t) as oids from (
        select pg_catalog.to_regtype(n)::pg_catalog.oid as t
          from pg_catalog.unnest($1::pg_catalog.text[]) n
        union all
        select a.atttypid from pg_catalog.unnest($2::pg_catalog.text[]) r
          join pg_catalog.pg_attribute a on a.attrelid = pg_catalog.to_regclass(r)
         where a.attnum > 0 and not a.attisdropped
        union all
        select pg_catalog.unnest(p.proargtypes::pg_catalog.oid[]) from pg_catalog.pg_proc p
         where p.proname = any ($3)
           and p.pronamespace = any (pg_catalog.current_schemas(false)::pg_catalog.regnamespace[])
           and p.pronamespace <> 'pg_catalog'::pg_catalog.regnamespace
        union all
        select x.t from pg_catalog.pg_operator o,
               lateral (values (o.oprleft), (o.oprright)) x(t)
         where o.oprname = any ($4)
           and o.oprnamespace = any (pg_catalog.current_schemas(false)::pg_catalog.regnamespace[])
           and o.oprnamespace <> 'pg_catalog'::pg_catalog.regnamespace) s
     where s.t >= 16384   -- FirstNormalObjectId: initdb's own types are trusted
"""


def _operator_names(checked: sqlguard.Checked) -> list[str]:
    """The operator names the query may make PostgreSQL look up.  The raw tree
    already names the operator of IN, LIKE, SIMILAR TO, IS DISTINCT FROM and
    NULLIF; BETWEEN stands for <, <=, >, >=; CASE x WHEN, JOIN ... USING,
    NATURAL JOIN and IN (subquery) use "="."""
    names = set(checked.operators) | {"="}
    if any("BETWEEN" in n for n in names):
        names |= {"<", "<=", ">", ">="}
    return sorted(names)


def _before_analysis(plpy, checked: sqlguard.Checked):
    """Refuse a query whose analysis could run a domain's CHECK (see the module
    docstring).  Called only when some domain has a CHECK."""
    relations = [".".join(_quote(p) for p in rel if p is not None) for rel in checked.objects]
    oids = db.one(plpy, _CANDIDATES, ("text[]", "text[]", "text[]", "text[]"),
                  (list(checked.types), relations, list(checked.functions),
                   _operator_names(checked)))["oids"]
    bad = _unsafe_types(plpy, oids) if oids else None
    if bad:
        _refuse(f"the query could reach {bad}, a domain whose constraint runs code that is not "
                "an allowed built-in, before it can be checked", checked)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _refuse(message: str, checked: sqlguard.Checked):
    raise InsufficientPrivilege(f"SQL refused: {message}", detail=sqlguard.shown(checked.sql),
                                hint=_HINT)
