"""Deterministic repairs of a model's query, and what a repair request shows (issue 29).

A small model's query often fails for a reason the catalog settles exactly:

* ``qualifiers`` (42703, 42P01): a column qualified with the wrong alias --
  ``t2.name`` where ``name`` is a column of ``t1``'s table and of no other
  relation of that FROM clause --, with a table's name where the query gave
  the table an alias (``singer.name`` after ``FROM singer AS t1``), or with an
  alias the query never gave, where one relation of the FROM clause has it;
* ``bridge`` (42703): a column looked for in a table that does not have it,
  where exactly one other table has it and a single foreign key links the two
  (``t2.title`` of ``book_authors AS t2``, or ``performers AS t2 ON t1.id =
  t2.musician_id`` where only the link table ``lineups`` has ``musician_id``):
  that table is joined in beside it, on that key; failing that, through one
  table in between, when exactly one such path leads to the column;
* ``invented`` (a relation that exists nowhere): a lookup table the model
  made up for a column's values, joined on that column (``airlines AS t1 JOIN
  alliances AS t2 ON t1.alliance = t2.name WHERE t2.name = 'OneGlobe'``): the
  join is dropped and its columns are read from the table it was joined to
  (a column of the same name, unless it is the key or compared with a value:
  then the join's column);
* ``group_by`` (42803): a column of the select list, ORDER BY or HAVING left
  out of an existing GROUP BY;
* ``literal_case`` (no error, no rows): ``pet_type = 'Dog'`` where the column's
  values, all known from the value hints (``values``), hold ``'dog'`` and no
  ``'Dog'``; only while values compare case-insensitively (Oracle's
  ``case_sensitive_values`` false).

* ``output_case`` (no error): ``SELECT lower(name)``, a small model's habit
  (it learnt ``UPPER()`` for comparisons), unless the question speaks of case;
* ``relocated`` (no error, no rows): ``country_name = 'Munich'`` where the
  known values of the column do not hold it and those of exactly one other
  column do (``cust_city``): the condition moves there, that table joined in
  on the one path of keys when the query does not read it.

``misplaced`` does not repair: it notes a value compared with a column whose
known values do not hold it while other columns' do and no move is settled,
for the model's repair; the query stays usable if the model does no better.

Each works on the text sqlguard accepted (relations qualified, so each one is
found in the catalog) and returns a new text, which is checked again from the
start like any answer of the model: what runs is what was checked.  When the
catalog does not settle it (an opaque subquery in scope, two candidates), the
query is left as it is, for the model's repair; ``context`` then tells the
model the columns of each relation the query reads and where a column it
could not find lives.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from . import sqlguard

# Aggregates by name (pg_catalog's): a column inside one needs no GROUP BY.
AGGREGATES = frozenset("""count sum avg min max array_agg string_agg bool_and bool_or every
stddev stddev_pop stddev_samp variance var_pop var_samp json_agg jsonb_agg json_object_agg
jsonb_object_agg percentile_cont percentile_disc mode corr covar_pop covar_samp regr_avgx
regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy bit_and
bit_or bit_xor xmlagg range_agg range_intersect_agg any_value""".split())
MAX_CONTEXT_TABLES = 40      # tables named when the query read none the catalog knows


@dataclass(eq=False)
class Item:
    """A FROM item: how the query refers to it, and its columns when known;
    for a relation, ``put`` replaces its node in the tree (``bridge``)."""
    name: str
    relname: str | None = None
    schema: str | None = None
    aliased: bool = False
    columns: frozenset | None = None
    node: object = None
    put: object = None
    join: tuple | None = None   # (the JoinExpr it is a side of, that join's put, the other side)


@dataclass(eq=False)
class Level:
    """One SELECT's FROM items; ``parent`` is the query a subquery may refer to."""
    parent: Level | None
    items: list = field(default_factory=list)
    targets: set = field(default_factory=set)     # (qualifier, column) the select list names

    def chain(self):
        level = self
        while level is not None:
            yield level
            level = level.parent

    def find(self, name: str):
        for level in self.chain():
            for item in level.items:
                if item.name == name:
                    return item, level
        return None

    def opaque(self) -> bool:
        return any(item.columns is None for item in self.items)

    def having(self, column: str) -> list:
        return [item for item in self.items if item.columns is not None and column in item.columns]


@dataclass
class Analysis:
    refs: list = field(default_factory=list)          # (ColumnRef, Level)
    selects: list = field(default_factory=list)       # (SelectStmt, Level) with a FROM
    comparisons: list = field(default_factory=list)   # (A_Expr, Level)
    relations: list = field(default_factory=list)     # (schema, name) read, in order
    names: set = field(default_factory=set)           # every name a FROM item goes by
    outputs: set = field(default_factory=set)         # ids of ORDER BY names of output columns
    top: object = None                                # the statement, when a plain SELECT


# --- the repairs ----------------------------------------------------------------------

def repair(sql: str, catalog, sqlstate: str | None) -> str | None:
    """``sql`` repaired for PostgreSQL's error ``sqlstate``, or None."""
    if sqlstate in ("42703", "42P01"):
        tables = {t.name for t in catalog.tables}
        return _rewrite(sql, catalog, lambda a: _qualifiers(a, tables)) or \
            (_rewrite(sql, catalog, lambda a: _bridge(a, catalog)) if sqlstate == "42703" else None)
    if sqlstate == "42803":
        return _rewrite(sql, catalog, lambda a: _group_by(a))
    return None


def invented(sql: str, catalog) -> str | None:
    """``sql`` (the model's text, refused for a relation that exists nowhere)
    without the lookup table it made up, or None."""
    return _rewrite(sql, catalog, lambda a: _drop_invented(a, catalog.columns()))


def polish(sql: str, catalog, values: dict, question: str, *, case_sensitive: bool = False,
           doubt: bool = False) -> tuple[str | None, str | None]:
    """What is done to every accepted query, in one parse: ``output_case``,
    (unless ``case_sensitive``) ``literal_case`` and ``relocated`` applied, and
    with ``doubt`` the note of ``misplaced``.  (the new text or None, the note
    or None).
    ``values``: {(schema, table): {column: values}}, complete sets only."""
    notes: list[str] = []

    def edit(a: Analysis) -> bool:
        changed = not _asks_case(question) and _uncased(a)
        changed = _both(a, question) or changed
        if values and not case_sensitive:
            changed = _literals(a, values) or changed
        if values:
            changed = _relocated(a, values, catalog) or changed
        if values and doubt:
            for expr, level in a.comparisons:
                notes.extend(_misplaced(expr, level, values, catalog))
        return changed
    fixed = _rewrite(sql, catalog, edit)
    return fixed, "\n".join(dict.fromkeys(notes)) or None


def _sides(expr):
    """A comparison as (the column compared, what it is compared with: a tuple of the
    IN list's items or of the one other side), or (None, ())."""
    column, other = expr.lexpr, expr.rexpr
    if not isinstance(column, sqlguard.A.ColumnRef):
        column, other = other, column
    if not isinstance(column, sqlguard.A.ColumnRef):
        return None, ()
    return column, other if isinstance(other, tuple) else (other,)


def _is_text(const) -> bool:
    return isinstance(const, sqlguard.A.A_Const) and isinstance(const.val, sqlguard.A.String)


def _misplaced(expr, level, values, catalog):
    column, consts = _sides(expr)
    known = _values_of(column, level, values) if column is not None else None
    if not known:
        return
    names = {(t.schema, t.name): t for t in catalog.tables}
    folded = {v.casefold() for v in known}
    for const in consts:
        if not _is_text(const):
            continue
        value = const.val.sval
        if value.casefold() in folded:
            continue
        homes = [f"{names[key].qualified}.{c}" for key, cols in values.items() if key in names
                 for c, vals in cols.items() if value.casefold() in {v.casefold() for v in vals}]
        if homes:
            here = ".".join(_field_names(column))
            yield (f"{_quoted(value)} is not a value of {here}; it is a value of "
                   + " and of ".join(homes[:3]))


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


# Words of a question that ask for the case of what it returns.
_CASE_WORDS = frozenset("lower upper lowercase uppercase lower-case upper-case case capital "
                        "capitals capitalised capitalized".split())


def _asks_case(question: str) -> bool:
    return bool(_CASE_WORDS & set(question.casefold().replace("?", " ").replace(".", " ").split()))


def _uncased(a: Analysis) -> bool:
    A = sqlguard.A
    if a.top is None:
        return False
    changed = False
    for target in a.top.targetList or ():
        call = target.val
        if isinstance(call, A.FuncCall) and call.funcname[-1].sval in ("lower", "upper") \
                and len(call.args or ()) == 1 and isinstance(call.args[0], A.ColumnRef) \
                and not (call.agg_star or call.agg_distinct or call.over):
            target.val = call.args[0]
            target.name = target.name or _field_names(call.args[0])[-1]
            changed = True
    return changed


_BOTH = re.compile(r"\bboth\b", re.I)


def _both(a: Analysis, question: str) -> bool:
    """"Owners who have both a dog and a cat" answered with ``species IN ('dog',
    'cat')`` (either) or ``species = 'dog' AND species = 'cat'`` (never): what
    the question asks is the rows returned for each of the two values, so the
    query returns its (plain column) select list grouped, having both values.
    Only when the question says "both" and names both values, and the values
    are of another FROM item than the columns returned."""
    A, E = sqlguard.A, sqlguard.E
    stmt = a.top
    if stmt is None or not _BOTH.search(question) or stmt.whereClause is None \
            or stmt.groupClause or stmt.havingClause or any(stmt.distinctClause or ()) \
            or not stmt.targetList or not all(
                isinstance(t.val, A.ColumnRef) and all(isinstance(f, A.String)
                                                       for f in t.val.fields)
                for t in stmt.targetList):
        return False
    level = next((at for st, at in a.selects if st is stmt), None)
    if level is None:
        return False
    where = stmt.whereClause
    conjuncts = list(where.args) if isinstance(where, A.BoolExpr) \
        and where.boolop == E.BoolExprType.AND_EXPR else [where]
    asked = question.casefold()
    by_column: dict = {}
    for c in conjuncts:
        if not (isinstance(c, A.A_Expr) and c.name and getattr(c.name[-1], "sval", "") == "="
                and c.kind in (E.A_Expr_Kind.AEXPR_OP, E.A_Expr_Kind.AEXPR_IN)):
            continue
        column, consts = _sides(c)
        if column is not None and all(_is_text(k) for k in consts):
            entry = by_column.setdefault(_resolved(column, level), ([], [], column))
            entry[0].append(c)
            entry[1].extend(k.val.sval for k in consts)
    found = [(col, exprs, vals, ref) for col, (exprs, vals, ref) in by_column.items()
             if len(vals) == 2 and vals[0].casefold() != vals[1].casefold()
             and all(re.search(r"\b" + re.escape(v.casefold()) + r"\b", asked) for v in vals)]
    if len(found) != 1:
        return False
    (compared, _), exprs, vals, ref = found[0]
    # Of another FROM item than what it returns: a singer has one country, but an owner
    # many pets (with one table, "from both France and Spain" means either).
    returned = {_resolved(t.val, level)[0] for t in stmt.targetList}
    if compared is None or None in returned or compared in returned:
        return False
    col = _field_names(ref)
    either = A.A_Expr(kind=E.A_Expr_Kind.AEXPR_IN, name=(A.String(sval="="),),
                      lexpr=_column_ref(*col),
                      rexpr=tuple(A.A_Const(val=A.String(sval=v)) for v in vals))
    kept = [c for c in conjuncts if all(c is not x for x in exprs)] + [either]
    stmt.whereClause = kept[0] if len(kept) == 1 else \
        A.BoolExpr(boolop=E.BoolExprType.AND_EXPR, args=tuple(kept))
    stmt.distinctClause = None
    stmt.groupClause = tuple(_column_ref(*_field_names(t.val)) for t in stmt.targetList)
    count = A.FuncCall(funcname=(A.String(sval="count"),), args=(_column_ref(*col),),
                       agg_distinct=True, funcformat=E.CoercionForm.COERCE_EXPLICIT_CALL)
    stmt.havingClause = A.A_Expr(kind=E.A_Expr_Kind.AEXPR_OP, name=(A.String(sval="="),),
                                 lexpr=count, rexpr=A.A_Const(val=A.Integer(ival=2)))
    return True


def _rewrite(sql, catalog, edit) -> str | None:
    known = catalog.columns()
    try:
        return sqlguard.rewrite(sql, lambda stmt: edit(analyse(stmt, known)))
    except Exception:  # noqa: BLE001 - a repair is a bonus: when unsure, leave the query alone
        return None


def _qualifiers(a: Analysis, tables) -> bool:
    changed = False
    for ref, level in a.refs:
        names = _field_names(ref)
        if names is None or len(names) < 2:
            continue
        qualifier, column = names[-2], names[-1]
        target = _target(level, qualifier, column, names[0] if len(names) == 3 else None,
                         tables)
        # t1.name beside t2.name in the select list asks for two names: not a swap
        if target is not None and target != names[:-1] and \
                (target[0], column) not in level.targets:
            ref.fields = tuple(sqlguard.A.String(sval=n) for n in (*target, column))
            changed = True
    return changed


def _target(level: Level, qualifier: str, column: str, schema: str | None, tables):
    """What ``qualifier`` (of ``schema``) should be for ``column``, or None;
    ``tables``: the catalog's table names (a table the query did not join is
    left to the model: a join is missing, not a qualifier)."""
    found = level.find(qualifier) if schema is None else None
    if found is not None:
        item, at = found
        if item.columns is None or column in item.columns or at.opaque():
            return None
        owners = at.having(column)             # the alias swap: one relation has it
        return [owners[0].name] if len(owners) == 1 else None
    for at in level.chain():                   # the table's name where it has an alias
        named = [i for i in at.items if i.relname == qualifier
                 and (schema is None or i.schema == schema)]
        if named:
            if len(named) == 1 and (named[0].columns is None or column in named[0].columns):
                return [named[0].name]
            return None
    if schema is None and qualifier not in tables and not level.opaque():
        owners = level.having(column)          # an alias the query never gave (t2 of t1 alone)
        return [owners[0].name] if len(owners) == 1 else None
    return None


def _bridge(a: Analysis, catalog) -> bool:
    """Join in the one table that has a column the query looked for in a table
    without it, on the one foreign key between them, or through one table in
    between when no key links them directly and one path does; one column per
    pass."""
    links = _links(catalog)
    tables = {(t.schema, t.name): t for t in catalog.tables}
    for ref, level in a.refs:
        names = _field_names(ref)
        if names is None or len(names) > 3 or any(at.opaque() for at in level.chain()):
            continue
        column = names[-1]
        if len(names) == 3:        # schema.table.column of a table written without an alias
            names = [i.name for i in level.items if i.relname == names[1]
                     and i.schema == names[0] and not i.aliased][:1] + [column]
        if len(names) == 2:
            found = level.find(names[0])
            # (when another item here has it, the swap of _qualifiers came first)
            if found is None or found[0].columns is None or column in found[0].columns:
                continue
            items = [found[0]]
        elif any(at.having(column) for at in level.chain()):
            continue
        else:
            items = list(level.items)
        present = {(i.schema, i.relname) for i in level.items}
        items = [i for i in items if i.put is not None]
        for hops in (1, 2):        # the shortest paths first
            paths = [(item, path) for item in items
                     for path in _paths(links, tables, (item.schema, item.relname), column, hops)
                     if not present & {step[0] for step in path}]
            if paths:
                break
        if len(paths) != 1:
            continue
        item, path = paths[0]
        _claim(a, level, [key for key, _ in path], tables)
        node, name = item.node, item.name
        for key, (mine, theirs) in path:       # item <- first <- second
            alias = _fresh(key[1], a.names)
            node = _join(key, alias, theirs, node, name, mine)
            name = alias
        item.put(node)
        ref.fields = _column_ref(name, column).fields
        return True
    return False


def _claim(a: Analysis, level: Level, joined: list, tables: dict) -> None:
    """Before tables ``joined`` join ``level``: its unqualified column references that a
    column of theirs would make ambiguous get the name of the FROM item they read now
    (``name`` of musicians, once performers, which has a name too, is joined in)."""
    A = sqlguard.A
    for stmt, at in a.selects:       # * would return the joined tables' columns too
        if at is level and any(isinstance(t.val, A.ColumnRef) and len(t.val.fields) == 1
                               and isinstance(t.val.fields[0], A.A_Star)
                               for t in stmt.targetList or ()):
            stmt.targetList = tuple(
                x for t in stmt.targetList for x in (
                    [A.ResTarget(val=A.ColumnRef(fields=(A.String(sval=i.name), A.A_Star())))
                     for i in level.items]
                    if isinstance(t.val, A.ColumnRef) and len(t.val.fields) == 1
                    and isinstance(t.val.fields[0], A.A_Star) else [t]))
    added = {c.name for key in joined if key in tables for c in tables[key].columns}
    for ref, at in a.refs:
        names = _field_names(ref)
        if names is None or len(names) != 1 or names[0] not in added or id(ref) in a.outputs:
            continue       # (ORDER BY name of an output column sorts by that column)
        for scope in at.chain():
            if scope.opaque():
                break
            owners = scope.having(names[0])
            if owners:
                if scope is level and len(owners) == 1:
                    ref.fields = _column_ref(owners[0].name, names[0]).fields
                break


def _paths(links, tables, start, column, hops, end=None):
    """Paths of ``hops`` single-key links from table ``start`` to a table having
    ``column``, each step ((schema, table), (its column, the previous table's))."""
    def step(frm, seen):
        for (a, b), keys in links.items():
            if a == frm and b not in seen and len(keys) == 1:
                yield b, keys[0]
    def has(key):          # or, given ``end``, the path to that table
        if end is not None:
            return key == end
        return key in tables and any(c.name == column for c in tables[key].columns)
    out = []
    for first, k1 in step(start, {start}):
        if hops == 1:
            out += [[(first, k1)]] if has(first) else []
            continue
        out += [[(first, k1), (second, k2)] for second, k2 in step(first, {start, first})
                if has(second) and not has(first)]
    return out


def _join(key, alias, theirs, node, name, mine):
    """``(key AS alias JOIN node ON alias.theirs = name.mine)``."""
    A, E = sqlguard.A, sqlguard.E
    joined = A.RangeVar(schemaname=key[0], relname=key[1], inh=True, relpersistence="p",
                        alias=A.Alias(aliasname=alias))
    on = A.A_Expr(kind=E.A_Expr_Kind.AEXPR_OP, name=(A.String(sval="="),),
                  lexpr=_column_ref(alias, theirs), rexpr=_column_ref(name, mine))
    return A.JoinExpr(jointype=E.JoinType.JOIN_INNER, isNatural=False, larg=joined,
                      rarg=node, quals=on)


def _links(catalog) -> dict:
    """Single-column foreign keys both ways: {(table key, other key): [(column, other's column)]}."""
    out: dict = {}
    for t in catalog.tables:
        for cols, rschema, rname, _, rcols in t.foreign_keys:
            if len(cols) == 1 and len(rcols) == 1:
                mine, theirs = _unquote(cols[0]), _unquote(rcols[0])
                out.setdefault(((t.schema, t.name), (rschema, rname)), []).append((mine, theirs))
                out.setdefault(((rschema, rname), (t.schema, t.name)), []).append((theirs, mine))
    return out


def _column_ref(*names):
    return sqlguard.A.ColumnRef(fields=tuple(sqlguard.A.String(sval=n) for n in names))


def _fresh(name: str, taken: set) -> str:
    """A short alias for table ``name`` that no FROM item of the query uses."""
    base = "".join(w[0] for w in name.split("_") if w) or "j"
    alias, i = base, 1
    while alias in taken:
        i += 1
        alias = f"{base}{i}"
    taken.add(alias)
    return alias


def _unquote(name: str) -> str:
    return name[1:-1].replace('""', '"') if name.startswith('"') else name


def _drop_invented(a: Analysis, known: dict) -> bool:
    for _, level in a.selects:
        for item in level.items:
            if item.relname is None or item.columns is not None or item.join is None \
                    or (item.schema, item.relname) in known:
                continue
            join, put, other = item.join
            keys = _join_keys(join.quals, item, level)
            if keys is None:
                continue
            own, (partner, column) = keys
            # compared with a value, it is the looked-up value: the join's column
            valued = {id(e.lexpr) for e, _ in a.comparisons} | {id(e.rexpr) for e, _ in a.comparisons}
            for ref, at in a.refs:
                names = _field_names(ref)
                if names and len(names) == 2 and names[0] == item.name and \
                        level in at.chain():
                    x = names[1]
                    same = x != own and x in partner.columns and id(ref) not in valued
                    ref.fields = _column_ref(partner.name, x if same else column).fields
            put(other)
            return True
    return False


def _join_keys(quals, item, level):
    """(the invented item's column, (the known item, its column)) of a join
    condition ``a.x = b.y`` between ``item`` and a relation the catalog knows."""
    A = sqlguard.A
    if not (isinstance(quals, A.A_Expr) and _compares_equal(quals)
            and isinstance(quals.lexpr, A.ColumnRef) and isinstance(quals.rexpr, A.ColumnRef)):
        return None
    sides = [_field_names(quals.lexpr), _field_names(quals.rexpr)]
    if None in sides or any(len(n) != 2 for n in sides):
        return None
    mine = [n for n in sides if n[0] == item.name]
    theirs = [n for n in sides if n[0] != item.name]
    if len(mine) != 1 or len(theirs) != 1:
        return None
    found = level.find(theirs[0][0])
    if found is None or found[0].columns is None or theirs[0][1] not in found[0].columns:
        return None
    return mine[0][1], (found[0], theirs[0][1])


def _group_by(a: Analysis) -> bool:
    changed = False
    for select, level in a.selects:
        groups = select.groupClause or ()
        if not groups or not all(isinstance(g, sqlguard.A.ColumnRef) for g in groups):
            continue       # GROUP BY 1, an expression or GROUPING SETS: left to the model
        grouped = {_resolved(g, level) for g in groups}
        outputs = {t.name for t in select.targetList or () if t.name}
        missing = []
        for node in (select.targetList, select.havingClause,
                     tuple(s.node for s in select.sortClause or ())):
            for ref in _bare_refs(node):
                names = _field_names(ref)
                if names is None or (len(names) == 1 and names[0] in outputs):
                    continue
                key = _resolved(ref, level)
                if key not in grouped:
                    grouped.add(key)
                    missing.append(sqlguard.A.ColumnRef(
                        fields=tuple(sqlguard.A.String(sval=n) for n in names)))
        if missing:
            select.groupClause = tuple(groups) + tuple(missing)
            changed = True
    return changed


def _resolved(ref, level: Level):
    """A column reference as (item, column): t1.name and name are the same
    column when t1 is the one relation having it."""
    names = _field_names(ref) or ()
    if len(names) == 1:
        owners = [i for at in level.chain() for i in at.having(names[0])]
        return (owners[0].name if len(owners) == 1 else None, names[0])
    return (names[-2] if names else None, names[-1] if names else None)


def _bare_refs(node) -> list:
    """Column references of ``node`` outside aggregates, window functions and subqueries."""
    A = sqlguard.A
    out = []

    def visit(n) -> bool:
        if isinstance(n, A.ColumnRef):
            out.append(n)
        return not (isinstance(n, (A.SubLink, A.SelectStmt, A.ColumnRef))
                    or (isinstance(n, A.FuncCall) and _aggregate(n)))
    _walk(node, visit)
    return out


def _walk(root, visit):
    """``visit`` every node under ``root``, parents first; a node's children are
    visited only when ``visit`` returns true for it."""
    stack = [root]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif isinstance(n, sqlguard.A.Node) and visit(n):
            stack.extend(getattr(n, s) for s in n.__slots__)


def _aggregate(call) -> bool:
    name = call.funcname[-1].sval if call.funcname else ""
    return (name in AGGREGATES or call.agg_star or call.agg_distinct or bool(call.agg_order)
            or call.agg_filter is not None or call.over is not None)


def _literals(a: Analysis, values: dict) -> bool:
    A = sqlguard.A
    changed = False
    for expr, level in a.comparisons:
        column, consts = _sides(expr)
        known = _values_of(column, level, values) if column is not None else None
        if not known:
            continue
        for const in consts:
            if _is_text(const) and const.val.sval not in known:
                same = [v for v in known if v.casefold() == const.val.sval.casefold()]
                if len(same) == 1:
                    const.val = A.String(sval=same[0])
                    changed = True
    return changed


def _relocated(a: Analysis, values: dict, catalog) -> bool:
    """``country_name = 'Munich'`` where no country is called so and Munich is a
    value of one other column, ``cust_city``: the condition is moved to that
    column, of its table in the FROM clause, else joined in on the one path of
    foreign keys (one or two) from the compared column's table.  Only ``=`` and
    ``IN``: the query as written matches nothing there.  One move per pass."""
    A = sqlguard.A
    for expr, level in a.comparisons:
        column, consts = _sides(expr)
        if column is None or getattr(expr.name[-1], "sval", "") != "=" \
                or not all(_is_text(c) for c in consts):
            continue
        known, item = _values_and_item(column, level, values)
        wanted = {c.val.sval.casefold() for c in consts}
        if not known or wanted & {v.casefold() for v in known}:
            continue
        homes = [(key, col, vals) for key, cols in values.items() for col, vals in cols.items()
                 if wanted <= {v.casefold() for v in vals}]
        if len(homes) != 1:
            continue
        key, col, vals = homes[0]
        target = _reach(a, level, item, key, catalog)
        if target is None:
            continue
        column.fields = _column_ref(target, col).fields
        for c in consts:
            c.val = A.String(sval=next(v for v in vals if v.casefold() == c.val.sval.casefold()))
        return True
    return False


def _reach(a: Analysis, level: Level, item: Item, key, catalog) -> str | None:
    """The name by which table ``key`` can be read beside ``item``: its FROM
    item's, or an alias joined in on the one path of keys from ``item``."""
    present = [i for at in level.chain() for i in at.items if (i.schema, i.relname) == key]
    if present:
        return present[0].name if len(present) == 1 else None
    if item is None or item.put is None:
        return None
    links = _links(catalog)
    tables = {(t.schema, t.name): t for t in catalog.tables}
    here = {(i.schema, i.relname) for i in level.items}
    for hops in (1, 2):
        paths = [p for p in _paths(links, tables, (item.schema, item.relname), None, hops, key)
                 if not here & {step[0] for step in p}]
        if paths:
            break
    if len(paths) != 1:
        return None
    _claim(a, level, [step for step, _ in paths[0]], tables)
    node, name = item.node, item.name
    for step, (mine, theirs) in paths[0]:
        alias = _fresh(step[1], a.names)
        node = _join(step, alias, theirs, node, name, mine)
        name = alias
    item.put(node)
    return name


def _values_and_item(ref, level: Level, values: dict):
    """(the known values of the column ``ref`` names, the FROM item it reads), or (None, None)."""
    names = _field_names(ref)
    if names is None:
        return None, None
    column = names[-1]
    if len(names) == 1:
        owners = [i for at in level.chain() for i in at.having(column)]
        if len(owners) != 1 or any(at.opaque() for at in level.chain()):
            return None, None
        item = owners[0]
    else:
        found = level.find(names[-2])
        if found is None:
            return None, None
        item = found[0]
    if not item.relname:
        return None, None
    return values.get((item.schema, item.relname), {}).get(column), item


def _values_of(ref, level: Level, values: dict):
    return _values_and_item(ref, level, values)[0]


def _field_names(ref):
    names = [getattr(f, "sval", None) for f in ref.fields or ()]
    return None if not names or None in names else names


# --- what a repair request shows ------------------------------------------------------------

def context(sql: str, catalog) -> str:
    """For the model's repair: the columns of each relation ``sql`` reads, the
    relations it names that are not in the catalog, and where each column it
    could not find is (with the foreign key that joins it, when one does); or,
    when it cannot be parsed, the catalog's relations."""
    known = catalog.columns()
    by_key = {(t.schema, t.name): t for t in catalog.tables}
    read, missing = [], []
    try:
        def note(stmt):
            a = analyse(stmt, known)
            read.extend(dict.fromkeys(a.relations))
            missing.extend(_unfound(a))
            return False
        sqlguard.rewrite(sql, note)
    except Exception:  # noqa: BLE001 - not parseable: the catalog's names help most
        read = []
    out = []
    lines = [f"- {by_key[k].qualified}: " + ", ".join(c.quoted for c in by_key[k].columns)
             for k in read if k in by_key]
    if lines:
        out.append("Columns of the tables that query reads:\n" + "\n".join(lines))
    strangers = [".".join(p for p in k if p) for k in read if k not in by_key]
    if strangers or not lines:
        names = [t.qualified for t in catalog.tables[:MAX_CONTEXT_TABLES]]
        more = len(catalog.tables) - len(names)
        if strangers:
            out.append(f"There is no table {', '.join(strangers)} that you may use.")
        out.append("The tables you may use: " + ", ".join(names)
                   + (f" (and {more} more)" if more > 0 else ""))
    links = _links(catalog)
    for column in dict.fromkeys(missing):
        where = [t for t in catalog.tables if any(c.name == column for c in t.columns)]
        if not where:
            out.append(f"No table has a column {column}.")
            continue
        joins = [f"{t.qualified}.{mine} = {by_key[k].qualified}.{theirs}"
                 for t in where for k in dict.fromkeys(read) if k in by_key
                 for mine, theirs in links.get(((t.schema, t.name), k), ())]
        out.append(f"Column {column} is a column of: "
                   + ", ".join(t.qualified for t in where[:8])
                   + (f" (join on {' or '.join(joins[:4])})" if joins else ""))
    return "\n".join(out)


def _unfound(a: Analysis) -> list[str]:
    """Columns referred to that no FROM item in reach has."""
    out = []
    for ref, level in a.refs:
        names = _field_names(ref)
        if names is None:
            continue
        column = names[-1]
        if len(names) == 1:
            if not any(at.opaque() or at.having(column) for at in level.chain()):
                out.append(column)
        else:
            found = level.find(names[-2])
            if found and found[0].columns is not None and column not in found[0].columns:
                out.append(column)
    return out


# --- the analysis -----------------------------------------------------------------------------

def analyse(stmt, known: dict) -> Analysis:
    """Every column reference of ``stmt`` with the FROM items it may refer to."""
    a = Analysis()
    _select(stmt, None, {}, known, a)
    if stmt.larg is None and stmt.targetList:
        a.top = stmt
    return a


def _select(stmt, parent, ctes, known, a):
    ctes = dict(ctes)
    with_clause = getattr(stmt, "withClause", None)
    for cte in (with_clause.ctes if with_clause else ()) or ():
        _select(cte.ctequery, parent, ctes, known, a)
        named = _names_of(cte.aliascolnames)
        ctes[cte.ctename] = frozenset(named) if named else _outputs(cte.ctequery)
    if stmt.larg is not None or stmt.rarg is not None:
        for part in (stmt.larg, stmt.rarg):
            if part is not None:
                _select(part, parent, ctes, known, a)
        return
    level = Level(parent)
    quals = []
    for i, item in enumerate(stmt.fromClause or ()):
        _from_item(item, level, parent, ctes, known, a, quals,
                   functools.partial(_put_from, stmt, i))
    if stmt.fromClause:
        a.selects.append((stmt, level))
    level.targets = {tuple(n[-2:]) for t in stmt.targetList or ()
                     if isinstance(t.val, sqlguard.A.ColumnRef)
                     and (n := _field_names(t.val)) and len(n) >= 2}
    outputs = _outputs(stmt) or frozenset()
    a.outputs.update(id(sb.node) for sb in stmt.sortClause or ()
                     if isinstance(sb.node, sqlguard.A.ColumnRef)
                     and (n := _field_names(sb.node)) and len(n) == 1 and n[0] in outputs)
    for slot in ("targetList", "whereClause", "groupClause", "havingClause", "sortClause",
                 "distinctClause", "limitCount", "limitOffset", "valuesLists", "windowClause"):
        _expressions(getattr(stmt, slot, None), level, ctes, known, a)
    for q in quals:
        _expressions(q, level, ctes, known, a)


def _from_item(node, level, parent, ctes, known, a, quals, put=None, join=None):
    A = sqlguard.A
    alias = getattr(node, "alias", None)
    alias_name = alias.aliasname if alias is not None else None
    renamed = _names_of(alias.colnames) if alias is not None else []
    a.names.update(n for n in (alias_name, getattr(node, "relname", None)) if n)
    if isinstance(node, A.RangeVar):
        cte = node.schemaname is None and node.relname in ctes
        if cte:
            columns = ctes[node.relname]
        else:
            a.relations.append((node.schemaname, node.relname))
            columns = known.get((node.schemaname, node.relname))
        level.items.append(Item(alias_name or node.relname, node.relname, node.schemaname,
                                alias_name is not None, frozenset(renamed) if renamed else columns,
                                node, None if cte or renamed else put, None if cte else join))
    elif isinstance(node, A.JoinExpr):
        if alias_name is not None:     # a join with an alias hides the names inside it
            level.items.append(Item(alias_name, aliased=True))
            inner = Level(None)
            _from_item(node.larg, inner, parent, ctes, known, a, quals)
            _from_item(node.rarg, inner, parent, ctes, known, a, quals)
            return
        for side, other in (("larg", node.rarg), ("rarg", node.larg)):
            _from_item(getattr(node, side), level, parent, ctes, known, a, quals,
                       functools.partial(setattr, node, side),
                       (node, put, other) if put is not None else None)
        if node.quals is not None:
            quals.append(node.quals)
    elif isinstance(node, A.RangeSubselect):
        _select(node.subquery, level if node.lateral else parent, ctes, known, a)
        columns = frozenset(renamed) if renamed else _outputs(node.subquery)
        level.items.append(Item(alias_name or "?subquery?", aliased=True, columns=columns))
    else:                              # a function in FROM and the like: columns unknown
        _expressions(node, level, ctes, known, a)
        level.items.append(Item(alias_name or "?function?", aliased=alias_name is not None))


def _put_from(stmt, i, node):
    items = list(stmt.fromClause)
    items[i] = node
    stmt.fromClause = tuple(items)


def _expressions(node, level, ctes, known, a):
    A = sqlguard.A

    def visit(n) -> bool:
        if isinstance(n, A.SelectStmt):
            _select(n, level, ctes, known, a)
            return False
        if isinstance(n, A.ColumnRef):
            a.refs.append((n, level))
            return False
        if isinstance(n, A.A_Expr) and _compares_equal(n):
            a.comparisons.append((n, level))
        return True
    _walk(node, visit)


def _compares_equal(expr) -> bool:
    kinds = sqlguard.E.A_Expr_Kind
    op = getattr(expr.name[-1], "sval", "") if expr.name else ""
    return (expr.kind == kinds.AEXPR_OP and op in ("=", "<>", "!=")) or \
        (expr.kind == kinds.AEXPR_IN and op in ("=", "<>"))


def _outputs(stmt) -> frozenset | None:
    """The column names a subquery gives, when they can be told."""
    A = sqlguard.A
    while stmt.larg is not None:
        stmt = stmt.larg
    if stmt.valuesLists:
        return None
    names = []
    for target in stmt.targetList or ():
        val = target.val
        if target.name:
            names.append(target.name)
        elif isinstance(val, A.ColumnRef):
            last = val.fields[-1]
            if not isinstance(last, A.String):
                return None            # t.* or *: depends on the relation
            names.append(last.sval)
        elif isinstance(val, A.FuncCall):
            names.append(val.funcname[-1].sval)
        else:
            names.append("?column?")
    return frozenset(names)


def _names_of(items) -> list[str]:
    return [getattr(i, "sval", None) for i in items or () if getattr(i, "sval", None)]
