"""Install and function hygiene (docs/security.md, 8.A).

A1: a hostile non-superuser plants shadows of every name the install and update
    scripts use unqualified (and of every function the extension creates) in
    public, and the installing session has pg_temp shadows; CREATE EXTENSION and
    ALTER EXTENSION ... UPDATE along every path neither run nor bind any of them.
A2: the catalog lint: search_path pinned everywhere, SECURITY DEFINER only on an
    allow-list, the control file, no @extschema@, no CREATE OR REPLACE / IF NOT
    EXISTS outside the extension's schemas.
A3: every function a user or admin role can execute, called with search_path =
    evil, public and shadows of every name the calls reference, returns what it
    returns in a clean session, and no shadow runs.

Every shadow runs `ALTER ROLE hacker SUPERUSER` (it would succeed if a superuser ran
it), records itself in a canary table and raises a WARNING (seen even when the
statement that ran it rolls back).
"""

from __future__ import annotations

import contextlib
import copy
import json
import pathlib
import re

import psycopg
import pytest
from helpers import API_KEY
from paths import ROOT
from pglast import ast, parse_plpgsql, parse_sql
from pglast.stream import RawStream
from pglast.visitors import Visitor
from psycopg import sql

EXT = "dbms_cloud_ai"
SCHEMAS = ("dbms_cloud", "dbms_cloud_ai", "dbms_cloud_ai_agent")
HACKER = "hacker"
MARK = "dca-shadow"

# Types the "better match" shadows are declared for: a shadow whose argument types
# equal the operands' exactly beats a pg_catalog candidate that needs a coercion.
# Completed at run time with every column type of the extension's tables and every
# argument type of its functions.
BASE_TYPES = ("text", "character varying", "name", "integer", "bigint", "smallint", "numeric",
              "boolean", "jsonb", "json", "timestamp with time zone", "date", "interval", "uuid",
              "bytea", "oid", "regrole", "text[]", "tsvector", "double precision", "unknown")


# --------------------------------------------------------------------------- names

class Names:
    """Names a script or a set of statements uses without a schema."""

    def __init__(self, qualified_too: bool = False):
        self.functions: set[str] = set()
        self.operators: set[str] = set()
        self.relations: set[str] = set()
        self.types: set[str] = set()
        self.ctes: set[str] = set()
        # the same kinds of names, qualified uses included (schema dropped)
        self.any = self if qualified_too else Names(qualified_too=True)

    def merge(self, other: Names):
        for k in ("functions", "operators", "relations", "types", "ctes"):
            getattr(self, k).update(getattr(other, k))
        if self.any is not self:
            self.any.merge(other.any)

    def __repr__(self):
        return (f"Names(functions={len(self.functions)}, operators={sorted(self.operators)}, "
                f"relations={sorted(self.relations - self.ctes)}, types={sorted(self.types)})")


# A_Expr kinds whose operator is implied rather than written.
IMPLIED = {"BETWEEN": (">=", "<="), "NOT BETWEEN": ("<", ">"), "BETWEEN SYMMETRIC": (">=", "<="),
           "NOT BETWEEN SYMMETRIC": ("<", ">"), "~~": ("~~",), "!~~": ("!~~",)}


class _Collector(Visitor):
    def __init__(self, names: Names):
        super().__init__()
        self.names = names

    def _add(self, kind, name, qualified):
        getattr(self.names.any, kind).add(name)
        if not qualified:
            getattr(self.names, kind).add(name)

    def visit_FuncCall(self, ancestors, node):
        self._add("functions", node.funcname[-1].sval, len(node.funcname) > 1)

    def visit_A_Expr(self, ancestors, node):
        if node.name:
            op = node.name[-1].sval
            for o in IMPLIED.get(op, (op,)):
                self._add("operators", o, len(node.name) > 1)

    def visit_NullIfExpr(self, ancestors, node):
        self._add("operators", "=", False)

    def visit_CaseExpr(self, ancestors, node):
        if node.arg is not None:  # CASE x WHEN v: an implied, unqualifiable "="
            self._add("operators", "=", False)

    def visit_RangeVar(self, ancestors, node):
        self._add("relations", node.relname, bool(node.schemaname))

    def visit_CommonTableExpr(self, ancestors, node):
        self._add("ctes", node.ctename, False)

    def visit_TypeName(self, ancestors, node):
        if node.names:
            self._add("types", node.names[-1].sval, len(node.names) > 1)

    def visit_CreateFunctionStmt(self, ancestors, node):
        opts = {o.defname: o.arg for o in node.options or ()}
        lang = opts["language"].sval if "language" in opts else "sql"
        body = opts.get("as")
        if body is None:
            return  # BEGIN ATOMIC: the generic walk visits node.sql_body
        if lang == "sql":
            self.names.merge(names_in_sql(body[0].sval))
        elif lang == "plpgsql":
            self.names.merge(names_in_plpgsql(RawStream()(node)))

    def visit_DoStmt(self, ancestors, node):
        lang = [a.arg.sval for a in node.args if a.defname == "language"]
        if not lang or lang[0] == "plpgsql":
            self.names.merge(names_in_plpgsql(RawStream()(node)))


def names_in_sql(text: str) -> Names:
    names = Names()
    text = re.sub(r"^\\", "-- \\\\", text, flags=re.M)  # psql meta commands (\echo ... \quit)
    collector = _Collector(names)
    for stmt in parse_sql(text):
        collector(stmt)
    return names


def _expressions(tree):
    if isinstance(tree, dict):
        for key, value in tree.items():
            if key == "PLpgSQL_expr":
                yield value["query"]
            else:
                yield from _expressions(value)
    elif isinstance(tree, list):
        for item in tree:
            yield from _expressions(item)


def names_in_plpgsql(create_stmt: str) -> Names:
    names = Names()
    for query in _expressions(parse_plpgsql(create_stmt)):
        tail = query.split(":=", 1)[1] if ":=" in query else query
        for candidate in (query, "SELECT " + query, "SELECT " + tail):
            try:
                names.merge(names_in_sql(candidate))
                break
            except Exception:  # not this form of the expression
                continue
        else:
            raise AssertionError(f"cannot parse PL/pgSQL expression {query!r}")
    return names


# --------------------------------------------------------------------------- databases

def connect(info, dbname, user="postgres") -> psycopg.Connection:
    return psycopg.connect(host=info.host, port=info.port, user=user, dbname=dbname, autocommit=True)


@contextlib.contextmanager
def scratch_database(admin: psycopg.Connection, name: str, template: str = "template0"):
    admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))
    admin.execute(sql.SQL("create database {} template {}").format(sql.Identifier(name),
                                                                 sql.Identifier(template)))
    try:
        yield name
    finally:
        admin.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture
def hacker(db):
    """A login role with no privileges but the ones a test grants it."""
    db.admin.execute(f"drop role if exists {HACKER}")
    db.admin.execute(f"create role {HACKER} login nosuperuser")
    yield HACKER
    db.admin.execute(f"alter role {HACKER} nosuperuser")
    db.admin.execute(f"drop owned by {HACKER}")
    db.admin.execute(f"drop role {HACKER}")


def hacker_is_superuser(conn) -> bool:
    return conn.execute("select rolsuper from pg_roles where rolname = %s", (HACKER,)).fetchone()[0]


class Warnings:
    """Collects the shadows' WARNINGs on a connection (they survive a rollback)."""

    def __init__(self, *conns):
        self.seen: list[str] = []
        for c in conns:
            c.add_notice_handler(self._on)

    def _on(self, diag):
        if MARK in (diag.message_primary or ""):
            self.seen.append(diag.message_primary)


# --------------------------------------------------------------------------- shadows

ATTACK = f"""
create table public.dca_canary (who text, shadow text, at timestamptz default now());
grant insert, select on public.dca_canary to public;
create function public.dca_attack(label text) returns void language plpgsql as $a$
begin
    insert into public.dca_canary (who, shadow) values (current_user, label);
    raise warning '{MARK} % ran as %', label, current_user;
    begin
        execute 'alter role {HACKER} superuser';
    exception when insufficient_privilege then
        null;
    end;
end
$a$;
create function public.dca_attack_bool(label text) returns boolean language plpgsql as $a$
begin perform public.dca_attack(label); return true; end
$a$;
create function public.dca_attack_rows(label text) returns setof record language plpgsql as $a$
begin perform public.dca_attack(label); end
$a$;
"""

# Pseudo-types a PL/pgSQL shadow can take or return.
PLPGSQL_PSEUDO = {"anyelement", "anyarray", "anynonarray", "anyenum", "anyrange", "anymultirange",
                  "anycompatible", "anycompatiblearray", "anycompatiblenonarray",
                  "anycompatiblerange", "anycompatiblemultirange", "record", "void"}


def _usable_types(conn) -> dict[int, str]:
    """oid -> SQL name of every type a PL/pgSQL shadow can declare."""
    # Qualified: the pg_temp factory runs in a session whose search_path is already hostile.
    rows = conn.execute("select oid, pg_catalog.format_type(oid, null), typtype, typname "
                        "from pg_catalog.pg_type").fetchall()
    return {oid: name for oid, name, typtype, typname in rows
            if typtype != "p" or typname in PLPGSQL_PSEUDO}


class ShadowFactory:
    """Writes the DDL of shadows of the given names into one schema."""

    def __init__(self, conn, names: Names, schema: str, extra_types=()):
        self.conn = conn
        self.names = names
        self.schema = schema
        self.types = _usable_types(conn)
        self.variant_types = sorted(set(BASE_TYPES) | set(extra_types))
        self.ddl: list[str] = []
        self.planted = 0
        self._seen: set[tuple] = set()  # what exists in the schema already is kept
        for name, args in conn.execute(
                "select proname, array(select format_type(a, null) from unnest(proargtypes::oid[]) a)"
                " from pg_proc where pronamespace = to_regnamespace(%s)", (schema,)):
            self._seen.add(("f", name, tuple(args)))
        self._n = 0

    def _fname(self) -> str:
        self._n += 1
        return f"dca_op_{self._n}"

    def _function(self, name, argtypes, rettype, retset=False, variadic=False):
        key = ("f", name, tuple(argtypes))
        if key in self._seen:
            return None
        self._seen.add(key)
        args = ", ".join(argtypes)
        if variadic:
            args = ", ".join(argtypes[:-1] + ["variadic " + argtypes[-1]])
        label = f"{self.schema}.{name}({args})".replace("'", "''")
        if retset:
            ret, body = f"setof {rettype}", f"perform public.dca_attack('{label}'); return;"
        elif rettype == "void":
            ret, body = "void", f"perform public.dca_attack('{label}');"
        else:
            ret, body = rettype, f"perform public.dca_attack('{label}'); return null;"
        poly_ret = rettype in PLPGSQL_PSEUDO - {"record", "void"}
        if poly_ret and not any(a in PLPGSQL_PSEUDO for a in argtypes):
            return None
        self.ddl.append(f"create function {self.schema}.{sql.Identifier(name).as_string(self.conn)}"
                        f"({args}) returns {ret} language plpgsql as $s$ begin {body} end $s$;")
        self.planted += 1
        return key

    def _operator(self, op, left, right, rettype):
        key = ("o", op, left, right)
        if key in self._seen:
            return
        fn = self._fname()
        argtypes = [t for t in (left, right) if t]
        if not self._function(fn, argtypes, rettype):
            return
        self._seen.add(key)
        sides = ", ".join(f"{k} = {t}" for k, t in (("leftarg", left), ("rightarg", right)) if t)
        self.ddl.append(f"create operator {self.schema}.{op} (function = {self.schema}.{fn}, {sides});")

    def build(self, functions=True, operators=True, relations=True, types=True) -> str:
        c = self.conn
        if functions:
            for name in sorted(self.names.functions):
                rows = c.execute("""
                    select p.proargtypes::oid[], p.prorettype, p.proretset, p.provariadic <> 0
                      from pg_proc p where p.proname = %s and p.prokind = 'f'
                       and p.pronamespace = 'pg_catalog'::regnamespace""", (name,)).fetchall()
                rets: dict[int, int] = {}
                for argtypes, rettype, retset, variadic in rows:
                    if all(a in self.types for a in argtypes) and rettype in self.types:
                        self._function(name, [self.types[a] for a in argtypes], self.types[rettype],
                                       retset, variadic)
                    if len(argtypes) in (1, 2) and rettype in self.types:
                        rets.setdefault(len(argtypes), rettype)
                for arity, rettype in rets.items():
                    for t in self.variant_types:
                        if t == "unknown":
                            continue
                        ret = self.types[rettype]
                        ret = t if ret in PLPGSQL_PSEUDO - {"record", "void"} else ret
                        self._function(name, [t] * arity, ret)
                if not rows:  # not a catalog function: any arity 0..2 taking text wins
                    for arity in (0, 1, 2):
                        self._function(name, ["text"] * arity, "text")
        if operators:
            for op in sorted(self.names.operators):
                rows = c.execute("""
                    select oprleft, oprright, oprresult from pg_operator
                     where oprname = %s and oprnamespace = 'pg_catalog'::regnamespace""", (op,)).fetchall()
                results = {}
                for left, right, result in rows:
                    if all(t == 0 or t in self.types for t in (left, right, result)):
                        self._operator(op, self.types.get(left), self.types.get(right),
                                       self.types[result])
                        results.setdefault(left, self.types[result])
                default = max(set(results.values()), key=list(results.values()).count) if results else "boolean"
                for t in self.variant_types:
                    if t == "unknown":
                        continue
                    oid = next((o for o, n in self.types.items() if n == t), None)
                    ret = results.get(oid, default)
                    ret = t if ret in PLPGSQL_PSEUDO else ret
                    self._operator(op, t, t, ret)
        if relations:
            for rel in sorted(self.names.relations - self.names.ctes):
                ident = sql.Identifier(rel).as_string(c)
                label = f"{self.schema}.{rel}".replace("'", "''")
                self.ddl.append(f"create view {self.schema}.{ident} as select x from "
                                f"public.dca_attack_rows('{label}') as r(x text);")
                self.planted += 1
        if types:
            pseudo = {n for (n,) in c.execute("select typname from pg_type where typtype = 'p'")}
            # a relation's shadow view already has a row type of that name
            views = self.names.relations - self.names.ctes if relations else set()
            for t in sorted(self.names.types - pseudo - views):
                ident = sql.Identifier(t).as_string(c)
                label = f"{self.schema}.{t}".replace("'", "''")
                self.ddl.append(f"create domain {self.schema}.{ident} as text "
                                f"check (public.dca_attack_bool('{label}'));")
                self.planted += 1
        return "\n".join(self.ddl)

    def plant(self, conn=None, **kinds) -> int:
        text = self.build(**kinds)
        (conn or self.conn).execute(text)
        return self.planted


def extension_functions_ddl(template_conn, schema: str) -> tuple[str, int]:
    """A shadow with the name and signature of every function the extension creates."""
    rows = template_conn.execute(f"""
        select p.proname, pg_get_function_identity_arguments(p.oid), pg_get_function_result(p.oid),
               p.prokind
          from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname in {SCHEMAS} order by 1, 2""").fetchall()
    ddl = []
    for name, args, result, kind in rows:
        label = f"{schema}.{name}({args})".replace("'", "''")
        ident = sql.Identifier(name).as_string(template_conn)
        if kind == "p":
            ddl.append(f"create procedure {schema}.{ident}({args}) language plpgsql as $s$ "
                       f"begin perform public.dca_attack('{label}'); end $s$;")
            continue
        if result == "trigger":
            body = f"perform public.dca_attack('{label}'); return null;"
        elif result.startswith(("SETOF", "TABLE")):
            body = f"perform public.dca_attack('{label}'); return;"
        elif result == "void":
            body = f"perform public.dca_attack('{label}');"
        else:
            body = f"perform public.dca_attack('{label}'); return null;"
        # Table types of the extension do not exist yet at planting time.
        result = re.sub(r"\bdbms_cloud_ai\._\w+", "record", result)
        ddl.append(f"create function {schema}.{ident}({args}) returns {result} language plpgsql "
                   f"as $s$ begin {body} end $s$;")
    return "\n".join(ddl), len(ddl)


# --------------------------------------------------------------------------- scripts

def sharedir(conn) -> pathlib.Path:
    d = conn.execute("select setting from pg_config where name = 'SHAREDIR'").fetchone()[0]
    return pathlib.Path(d, "extension")


def installed_scripts(conn) -> tuple[str, dict[str, pathlib.Path], list[tuple[str, str]]]:
    """(default version, {version: install script}, [(from, to) with an update script])."""
    default = conn.execute("select default_version from pg_available_extensions where name = %s",
                           (EXT,)).fetchone()[0]
    versions = [v for (v,) in conn.execute(
        "select version from pg_available_extension_versions where name = %s", (EXT,))]
    share = sharedir(conn)
    installs = {v: share / f"{EXT}--{v}.sql" for v in versions if (share / f"{EXT}--{v}.sql").is_file()}
    updates = [(s, t) for s, t, path in conn.execute(
        "select source, target, path from pg_extension_update_paths(%s) where path is not null",
        (EXT,)) if path == f"{s}--{t}"]
    return default, installs, updates


def script_names(conn) -> Names:
    _, installs, updates = installed_scripts(conn)
    share = sharedir(conn)
    names = Names()
    for path in [*installs.values(), *(share / f"{EXT}--{s}--{t}.sql" for s, t in updates)]:
        names.merge(names_in_sql(path.read_text()))
    return names


def test_name_extraction_sees_unqualified_uses():
    """The extractor the shadows depend on: top level, CHECK, BEGIN ATOMIC, SQL and PL/pgSQL bodies."""
    names = names_in_sql("""
        create table s.t (a text check (a in ('x')), b int check (b between 1 and 2));
        create function s.f(x text) returns text language sql begin atomic select lower(x) || 'y'; end;
        create function s.g(x text) returns text language sql as $$ select upper(x)::date $$;
        create function s.h(x int) returns int language plpgsql as $$
            declare y int := abs(x); begin return case x when 1 then mod(y, 2) end; end $$;
        do $$ begin perform pg_sleep(0) from pg_roles r where r.rolname ~ 'a'; end $$;
        with c as (select 1) select * from c;""")
    assert {"lower", "upper", "abs", "mod", "pg_sleep"} <= names.functions
    assert {"=", ">=", "<=", "||", "~"} <= names.operators
    assert "date" in names.types and "pg_roles" in names.relations and "c" in names.ctes


# --------------------------------------------------------------------------- A1

def _plant_hostile(info, dbname, template_conn, names: Names, extra_types) -> int:
    """As hacker: canary, shadows of the extension's functions and of every unqualified name."""
    with connect(info, dbname) as su:
        su.execute(f"grant create, usage on schema public to {HACKER}")
        su.execute("create extension plpython3u")  # a prerequisite, not ours to shadow
    with connect(info, dbname, HACKER) as h:
        h.execute(ATTACK)
        ddl, n_ext = extension_functions_ddl(template_conn, "public")
        h.execute(ddl)
        factory = ShadowFactory(h, names, "public", extra_types)
        return n_ext + factory.plant()


def _plant_temp(conn, names: Names, extra_types) -> int:
    """pg_temp shadows in the installing session: functions, operators, relations."""
    factory = ShadowFactory(conn, names, "pg_temp", extra_types)
    return factory.plant(types=False)


def _bindings_to_planted(conn, temp_schema=0) -> list:
    """Dependencies of anything not planted on something planted (hacker's, or in the
    installing session's temp schema)."""
    return conn.execute(f"""
        with planted(classid, objid) as (
            select 'pg_proc'::regclass, oid from pg_proc
             where proowner = '{HACKER}'::regrole or pronamespace = %(temp)s::oid
            union all select 'pg_operator'::regclass, oid from pg_operator
             where oprowner = '{HACKER}'::regrole or oprnamespace = %(temp)s::oid
            union all select 'pg_type'::regclass, oid from pg_type
             where typowner = '{HACKER}'::regrole or typnamespace = %(temp)s::oid
            union all select 'pg_class'::regclass, oid from pg_class
             where relowner = '{HACKER}'::regrole or relnamespace = %(temp)s::oid
            union all select 'pg_constraint'::regclass, c.oid from pg_constraint c
              join pg_type t on t.oid = c.contypid where t.typowner = '{HACKER}'::regrole
            union all select 'pg_attrdef'::regclass, a.oid from pg_attrdef a
              join pg_class k on k.oid = a.adrelid
             where k.relowner = '{HACKER}'::regrole or k.relnamespace = %(temp)s::oid
            union all select 'pg_rewrite'::regclass, r.oid from pg_rewrite r
              join pg_class k on k.oid = r.ev_class
             where k.relowner = '{HACKER}'::regrole or k.relnamespace = %(temp)s::oid)
        select pg_describe_object(d.classid, d.objid, d.objsubid),
               pg_describe_object(d.refclassid, d.refobjid, d.refobjsubid)
          from pg_depend d
         where (d.refclassid, d.refobjid) in (select * from planted)
           and (d.classid, d.objid) not in (select * from planted)""", {"temp": temp_schema}).fetchall()


def _check_clean(info, dbname, warnings: Warnings, what: str, temp_schema=0):
    """From a session of its own: the installing one has pg_temp shadows of catalog names."""
    with connect(info, dbname) as c:
        assert not hacker_is_superuser(c), what
        assert c.execute("select * from public.dca_canary").fetchall() == [], what
        assert warnings.seen == [], what
        assert _bindings_to_planted(c, temp_schema) == [], what


def _extra_types(template_conn) -> set[str]:
    rows = template_conn.execute(f"""
        select distinct format_type(a.atttypid, null) from pg_attribute a
          join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
         where n.nspname in {SCHEMAS} and a.attnum > 0 and not a.attisdropped
           and c.relkind in ('r', 'v')
        union
        select distinct format_type(t, null) from pg_proc p join pg_namespace n on n.oid = p.pronamespace,
               unnest(p.proargtypes::oid[]) t
         where n.nspname in {SCHEMAS}""").fetchall()
    return {t for (t,) in rows if not t.startswith(("dbms_cloud", "\"char\"", "trigger"))}


def _hostile_install(db, hacker, postgresql_noproc, dbname, install_version, update_to=None):
    template = postgresql_noproc.template_dbname
    with connect(db.info, template) as tmpl:
        # Shadows of every name the scripts use, qualified uses too (a lost
        # qualifier would then meet one), not only the unqualified ones.
        names = script_names(tmpl).any
        extra = _extra_types(tmpl)
        with scratch_database(db.admin, dbname):
            planted = _plant_hostile(db.info, dbname, tmpl, names, extra)
            with connect(db.info, dbname) as su:
                warnings = Warnings(su)
                planted += _plant_temp(su, names, extra)
                temp = su.execute("select pg_catalog.pg_my_temp_schema()").fetchone()[0]
                su.execute(sql.SQL("create extension {} version {}").format(
                    sql.Identifier(EXT), sql.Literal(install_version)))
                _check_clean(db.info, dbname, warnings, f"CREATE EXTENSION {install_version}", temp)
                if update_to:
                    su.execute(sql.SQL("alter extension {} update to {}").format(
                        sql.Identifier(EXT), sql.Literal(update_to)))
                    _check_clean(db.info, dbname, warnings,
                                 f"ALTER EXTENSION UPDATE {install_version} -> {update_to}", temp)
                version = su.execute("select e.extversion from pg_catalog.pg_extension e "
                                     "where e.extname operator(pg_catalog.=) %s", (EXT,)).fetchone()[0]
                assert version == (update_to or install_version)
                if version == installed_scripts(tmpl)[0]:  # only this version's library is installed
                    # The installed extension works, and still calls no shadow.
                    assert su.execute("select dbms_cloud_ai.sql_id('select 1')").fetchone()[0]
                    _check_clean(db.info, dbname, warnings, "first call", temp)
    return planted, names


def test_hostile_install_uses_no_shadow(db, hacker, postgresql_noproc):
    """A1, fresh install of the default version with every shadow in public and pg_temp."""
    with connect(db.info, postgresql_noproc.template_dbname) as tmpl:
        default = installed_scripts(tmpl)[0]
    planted, names = _hostile_install(db, hacker, postgresql_noproc, f"{db.info.dbname}_a1", default)
    assert planted > 2000, planted
    assert len(names.functions) >= 50 and len(names.operators) >= 10 and len(names.types) >= 10, names


def test_hostile_install_with_planted_schema_fails_on_the_collision(db, hacker, postgresql_noproc):
    """A1, the other outcome: hacker may create schemas and plants dbms_cloud_ai with
    every function of the extension in it; CREATE EXTENSION fails (42P06), nothing runs."""
    with connect(db.info, postgresql_noproc.template_dbname) as tmpl, \
            scratch_database(db.admin, f"{db.info.dbname}_a1s") as dbname:
        with connect(db.info, dbname) as su:
            su.execute(f"grant create on database {dbname} to {HACKER}")
            su.execute(f"grant create, usage on schema public to {HACKER}")
            su.execute("create extension plpython3u")
        with connect(db.info, dbname, HACKER) as h:
            h.execute(ATTACK)
            h.execute("create schema dbms_cloud_ai; grant usage on schema dbms_cloud_ai to public")
            h.execute(extension_functions_ddl(tmpl, "dbms_cloud_ai")[0])
        with connect(db.info, dbname) as su:
            warnings = Warnings(su)
            with pytest.raises(psycopg.errors.DuplicateSchema):
                su.execute(f"create extension {EXT}")
            _check_clean(db.info, dbname, warnings, "failed install")
            assert su.execute("select count(*) from pg_extension where extname = %s",
                              (EXT,)).fetchone()[0] == 0


@pytest.mark.long
def test_hostile_install_of_every_version_and_update_path(db, hacker, postgresql_noproc):
    """A1 on every install script and every update path (pg_extension_update_paths)."""
    with connect(db.info, postgresql_noproc.template_dbname) as tmpl:
        default, installs, updates = installed_scripts(tmpl)
    assert default in installs
    cases = [(v, None) for v in installs if v != default] + list(updates)
    for i, (source, target) in enumerate(cases):
        _hostile_install(db, hacker, postgresql_noproc, f"{db.info.dbname}_a1u{i}", source, target)


def test_update_paths_are_hostile_tested_in_the_fast_tier(db, hacker, postgresql_noproc):
    """The newest update path (the one a release ships) runs in every CI run."""
    with connect(db.info, postgresql_noproc.template_dbname) as tmpl:
        default, _, updates = installed_scripts(tmpl)
    to_default = [(s, t) for s, t in updates if t == default]
    if not to_default:
        pytest.skip("no update script to the default version")
    source, target = max(to_default, key=lambda st: [int(x) for x in st[0].split(".")])
    _hostile_install(db, hacker, postgresql_noproc, f"{db.info.dbname}_a1p", source, target)


# --------------------------------------------------------------------------- A2

# The SECURITY DEFINER functions, none executable by PUBLIC, each without
# arguments: the database-wide (PUBLIC) token budget needs every role's token
# total, which row-level security hides from each caller (one number back); the
# session conversation's temporary table is created as dbms_cloud_ai_owner so no
# user role owns it (nothing back).
# The writer (every write of an API call) takes the package's one-time token and
# refuses without it.  The HNSW index DDL of a vector index (CREATE on the
# extension's schema) is executable by dbms_cloud_ai_owner only, so only through
# the writer (from the maintenance procedures, which commit each DDL); dropping
# the HNSW indexes of vector indexes that are gone, by administrators only
# (drop_role_data).  Whether a shared object's owner is still the live role that
# stored it reads the owner's role binding, which the grantee may not (one
# boolean about a role name back).
DEFINERS = {"dbms_cloud_ai._tokens_used_today()", "dbms_cloud_ai._session_table()",
            "dbms_cloud_ai._write(text,name,oid,oid)",
            "dbms_cloud_ai._vector_ann_step(uuid,name)",
            "dbms_cloud_ai._vector_ann_drop_gone(uuid[])",
            "dbms_cloud_ai._role_is_live(name)"}
# A procedure that COMMITs cannot have a SET clause: these pin search_path with
# set_config(..., true) in every transaction of their body instead.
COMMITS = {"dbms_cloud_ai.purge_expired_conversations(integer,integer,bigint)",
           "dbms_cloud_ai.run_memory_jobs(integer,integer,bigint)"}
# A PL/Python procedure that commits: the package pins it (detached._PIN) in
# each of its transactions, before its first statement and after each commit.
COMMITS_IN_PACKAGE = {"dbms_cloud_ai.generate_detached(text,text,text,text,text,text[],text)":
                      "model/detached.py",
                      "dbms_cloud_ai._run_memory_job_detached(text,text,text)": "model/detached.py",
                      "dbms_cloud_ai.refresh_vector_index_job(text,integer)": "model/detached.py",
                      "dbms_cloud_ai.maintain_vector_indexes(text)": "model/detached.py",
                      "dbms_cloud_ai_agent.run_team_detached(text,text,text,text[],text)":
                      "model/detached.py"}
PINNED = ({"search_path=pg_catalog, pg_temp"}, {'search_path=""'})


def test_catalog_lint_search_path_and_security_definer(db):
    """A2: every function pins search_path exactly; SECURITY DEFINER is the allow-list,
    not executable by PUBLIC."""
    rows = db.admin.execute(f"""
        select p.oid::regprocedure::text, p.prosecdef, coalesce(p.proconfig, '{{}}'), p.prosrc,
               has_function_privilege('public', p.oid, 'execute')
          from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname in {SCHEMAS}""").fetchall()
    assert len(rows) >= 100
    violations = []
    for name, secdef, config, src, public in rows:
        if secdef and (name not in DEFINERS or public):
            violations.append((name, "security definer"))
        paths = {c for c in config if c.startswith("search_path=")}
        if name in COMMITS_IN_PACKAGE:
            module = (ROOT / "python" / "src" / "dbms_cloud_ai" / COMMITS_IN_PACKAGE[name]).read_text()
            if paths or "pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true)" not in module:
                violations.append((name, "committing procedure must pin search_path in its package"))
        elif name in COMMITS:
            # (scripts/lint-sql.sh checks with pgspot that each transaction pins it
            # before any unqualified name; A3 calls them under a hostile search_path)
            if paths or "pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true)" not in src:
                violations.append((name, "committing procedure must pin search_path in its body"))
        elif paths not in PINNED:
            violations.append((name, config))
    assert violations == []
    assert {name for name, secdef, *_ in rows if secdef} == DEFINERS


def test_catalog_lint_control_file():
    """A2: not trusted (a non-superuser cannot install it), superuser-only."""
    text = (ROOT / "extension" / f"{EXT}.control").read_text()
    settings = dict(re.findall(r"^\s*(\w+)\s*=\s*'?([^'\n]*?)'?\s*$", text, re.M))
    assert settings.get("trusted", "false").lower() in ("false", "off", "no", "0")
    assert settings.get("superuser", "true").lower() in ("true", "on", "yes", "1")
    assert settings.get("relocatable", "false").lower() in ("false", "off", "no", "0")


def all_scripts(conn) -> list[pathlib.Path]:
    """Every script of the extension: installed, built in extension/, frozen in sql/released/."""
    files = sorted(sharedir(conn).glob(f"{EXT}--*.sql"))
    files += sorted((ROOT / "extension").glob(f"{EXT}--*.sql"))
    files += sorted((ROOT / "sql" / "released").glob(f"{EXT}--*.sql"))
    assert files
    return files


def test_catalog_lint_no_extschema_in_quotes(db):
    """A2: @extschema@ inside a string literal or dollar quote is substituted unquoted
    (a schema name with a quote would inject SQL); the scripts use none at all."""
    for path in all_scripts(db.admin):
        assert "@extschema" not in path.read_text(), path


# Where the object a CREATE ... OR REPLACE / IF NOT EXISTS statement makes would live.
def _target_schema(node):
    match node:
        case ast.CreateFunctionStmt():
            return node.funcname[0].sval if len(node.funcname) == 2 else None
        case ast.ViewStmt():
            return node.view.schemaname
        case ast.CreateStmt() | ast.IndexStmt() | ast.CreateTrigStmt() | ast.RuleStmt():
            return node.relation.schemaname
        case ast.CreateSeqStmt():
            return node.sequence.schemaname
        case ast.CreateTableAsStmt():
            return node.into.rel.schemaname
        case ast.DefineStmt():
            return node.defnames[0].sval if len(node.defnames) == 2 else None
    return None  # a schema, extension, server, role ...: never ours to "replace"


class _ReplaceFinder(Visitor):
    def __init__(self):
        super().__init__()
        self.found: list[str] = []

    def visit(self, ancestors, node):
        replace = getattr(node, "replace", False) is True
        if_not_exists = getattr(node, "if_not_exists", False) is True
        if (replace or if_not_exists) and _target_schema(node) not in SCHEMAS:
            self.found.append(RawStream()(node)[:120])


def test_catalog_lint_no_replace_outside_own_schemas(db):
    """A2: no CREATE OR REPLACE / IF NOT EXISTS of an object outside dbms_cloud and
    dbms_cloud_ai (a planted object of that name would be kept or taken over)."""
    for path in all_scripts(db.admin):
        finder = _ReplaceFinder()
        for stmt in parse_sql(re.sub(r"^\\", "-- \\\\", path.read_text(), flags=re.M)):
            finder(stmt)
        assert finder.found == [], path


def test_catalog_lint_finds_what_it_must():
    """The lint's own parser flags replacements outside the schemas and passes ours."""
    finder = _ReplaceFinder()
    for stmt in parse_sql("""create or replace function public.f() returns int language sql as 'select 1';
                             create table if not exists t (a int); create schema if not exists dbms_cloud_ai;
                             create or replace view dbms_cloud_ai.v as select 1;
                             create index if not exists i on dbms_cloud_ai.t (a);"""):
        finder(stmt)
    assert len(finder.found) == 3, finder.found


# --------------------------------------------------------------------------- A3

USER, ADMIN = "alice", "ai_admin"
PROFILE = {"provider": "openai", "credential_name": "CRED"}


class Step:
    """One sample call: the functions it covers, who calls it, the statement, and
    the name under which its first value is kept for later steps (%(name)s)."""

    def __init__(self, covers, sql_text, role=USER, save=None):
        self.covers = (covers,) if isinstance(covers, str) else tuple(covers)
        self.sql, self.role, self.save = sql_text, role, save


D, C, G = "dbms_cloud_ai", "dbms_cloud", "dbms_cloud_ai_agent"
STEPS = [
    # the first write binds alice's name to her role (issue 14, class 3)
    Step((f"{C}.create_credential(text,text,text,text,text,text,text)", f"{D}._bind_role()"),
         f"select {C}.create_credential('CRED', 'user', '{API_KEY}')"),
    Step(f"{C}.create_credential(text,text,text,text,text,text,text)",
         f"select {C}.create_credential('CRED2', 'user', '{API_KEY}')"),
    Step(f"{C}.create_credential(text,text,text,text,text,text,text)",
         f"select {C}.create_credential('OCI', user_ocid => 'ocid1.user', "
         "tenancy_ocid => 'ocid1.tenancy', private_key => 'key', fingerprint => 'fp')"),
    Step(f"{C}.update_credential(text,text,text)",
         f"select {C}.update_credential('OCI', 'private_key', 'key2')"),
    Step(f"{C}.update_credential(text,text,text)",
         f"select {C}.update_credential('CRED2', 'password', '{API_KEY}')"),
    Step(f"{C}.disable_credential(text)", f"select {C}.disable_credential('CRED2')"),
    Step(f"{C}.enable_credential(text)", f"select {C}.enable_credential('CRED2')"),
    Step(f"{C}.drop_credential(text)", f"select {C}.drop_credential('CRED2')"),
    Step(f"{D}.create_profile(text,text,text,text)",
         f"select {D}.create_profile('P', %(profile)s)"),
    Step(f"{D}.create_profile(text,jsonb,text,text)",
         f"select {D}.create_profile('P2', %(profile)s::jsonb, 'ENABLED', 'second')"),
    Step(f"{D}.set_attribute(text,text,text)", f"select {D}.set_attribute('P2', 'model', 'gpt-x')"),
    Step(f"{D}.set_attribute(text,text,numeric)",
         f"select {D}.set_attribute('P2', 'temperature', 0.5::numeric)"),
    Step(f"{D}.set_attribute(text,text,boolean)", f"select {D}.set_attribute('P2', 'comments', true)"),
    Step(f"{D}.set_attribute(text,text,jsonb)",
         f"""select {D}.set_attribute('P2', 'object_list', '[{{"owner": "alice"}}]'::jsonb)"""),
    Step(f"{D}.set_attributes(text,text)",
         f"""select {D}.set_attributes('P2', '{{"max_tokens": 100}}')"""),
    Step(f"{D}.set_attributes(text,jsonb)",
         f"""select {D}.set_attributes('P2', '{{"max_tokens": 200}}'::jsonb)"""),
    Step(f"{D}.disable_profile(text)", f"select {D}.disable_profile('P2')"),
    # the owner trigger: a row never changes owner (42501 in both runs)
    Step(f"{D}._owner_is_fixed()", f"update {D}._profile set owner = 'bob' where profile_name = 'P2'"),
    Step(f"{D}.enable_profile(text)", f"select {D}.enable_profile('P2')"),
    Step(f"{D}.set_profile(text)", f"select {D}.set_profile('P')"),
    Step(f"{D}.get_profile()", f"select {D}.get_profile()"),
    Step(f"{D}.clear_profile()", f"select {D}.clear_profile()"),
    Step(f"{D}._profile_attribute_names()",
         f"select * from {D}._profile_attribute_names() order by 1"),
    Step((f"{D}.drop_profile(text,boolean)", f"{D}._feedback_vectab_drop(text,text)"),
         f"select {D}.drop_profile('P2', true)"),
    Step(f"{D}.create_conversation(jsonb)",
         f"""select {D}.create_conversation('{{"title": "one"}}'::jsonb)""", save="cid"),
    Step(f"{D}.create_conversation(text)", f"select {D}.create_conversation()", save="cid2"),
    Step(f"{D}.create_conversation(text,text)",
         f"""call {D}.create_conversation('{{"title": "three"}}', null)""", save="cid3"),
    Step(f"{D}.update_conversation(text,text)",
         f"""select {D}.update_conversation(%(cid2)s, '{{"description": "d"}}')"""),
    Step(f"{D}.update_conversation(text,jsonb)",
         f"""select {D}.update_conversation(%(cid2)s, '{{"title": "two"}}'::jsonb)"""),
    Step(f"{D}.add_conversation_tag(text,text,text)",
         f"select {D}.add_conversation_tag(%(cid2)s, 'k', 'v')"),
    Step(f"{D}.remove_conversation_tag(text,text,boolean)",
         f"select {D}.remove_conversation_tag(%(cid2)s, 'k')"),
    Step(f"{D}.drop_conversation(text,boolean)", f"select {D}.drop_conversation(%(cid3)s)"),
    Step(f"{D}.set_conversation_id(text)", f"select {D}.set_conversation_id(%(cid)s)"),
    Step(f"{D}.get_conversation_id()", f"select {D}.get_conversation_id() = %(cid)s"),
    Step(f"{D}.generate(text,text,text,text,text,text[])",
         f"select {D}.generate('What is 4 + 4?', 'P', 'chat')"),
    Step(f"{D}.generate(text,text,text,jsonb,jsonb,text[])",
         f"select {D}.generate('And 5 + 5?', 'P', 'chat', '{{}}'::jsonb, null::jsonb)"),
    Step(f"{D}.generate_detached(text,text,text,text,text,text[],text)",
         f"call {D}.generate_detached('And 6 + 6?', 'P', 'chat')"),
    # what a committing procedure requires after each commit (issue 30, class 1)
    Step(f"{D}._call_identity()", f"select {D}._call_identity() is not null"),
    Step(f"{D}._require_call_identity(text,text)",
         f"select {D}._require_call_identity({D}._call_identity(), 'x')"),
    Step(f"{D}._session_conversation_prompts()",
         f"select prompt, prompt_response from {D}._session_conversation_prompts() order by 1"),
    Step(f"{D}.clear_conversation_id()", f"select {D}.clear_conversation_id()"),
    Step(f"{D}.select_ai(text,text[])", f"select {D}.set_profile('P'), {D}.select_ai('chat hello')"),
    Step(f"{D}.sql_id(text)", f"select {D}.sql_id('select 1')"),
    Step((f"{D}.feedback(text,text,text,text,text,text,text,text[])",
          f"{D}._feedback_vectab_create(text,text,text)"),
         f"select {D}.feedback('P', sql_text => 'select ai showsql how many rows', "
         "feedback_type => 'negative', response => 'select 1', feedback_content => 'wrong')"),
    Step(f"{D}.export_negative_feedback(text,boolean)",
         f"select {D}.export_negative_feedback('P') is not null"),
    Step((), f"select conversation_prompt_id from {D}.user_cloud_ai_conversation_prompts "
             "order by created, prompt limit 1", save="pid"),
    Step((), "create table if not exists alice.annotated (a int)"),
    Step(f"{D}.add_annotation(regclass,text,text,text)",
         f"select {D}.add_annotation('alice.annotated', 'Aliases', 'x', 'a')"),
    Step(f"{D}.drop_annotation(regclass,text,text)",
         f"select {D}.drop_annotation('alice.annotated', 'Aliases', 'a')"),
    Step(f"{D}.grant_profile_access(text,text)", f"select {D}.grant_profile_access('P', 'bob')"),
    Step(f"{D}.set_profile_grant_budget(text,text,bigint)",
         f"select {D}.set_profile_grant_budget('P', 'bob', 1000)"),
    Step(f"{D}.revoke_profile_access(text,text)", f"select {D}.revoke_profile_access('P', 'bob')"),
    # vector indexes (issue 19) over a table of alice's, embedded by a profile of hers
    Step((), "create table if not exists alice.handbook (id int, body text)"),
    Step((), "insert into alice.handbook values (1, 'The cafeteria opens at eight.')"),
    Step(f"{D}.create_profile(text,text,text,text)", f"select {D}.create_profile('EMB', %(profile)s)"),
    Step(f"{D}.set_attribute(text,text,text)", f"select {D}.set_attribute('EMB', 'embedding_model', 'm')"),
    Step(f"{D}.create_vector_index(text,text,text,boolean)",
         f"""select {D}.create_vector_index('V', '{{"location": "table:alice.handbook(id, body)", '"""
         """'"profile_name": "EMB"}', 'handbook')"""),
    Step(f"{D}.create_vector_index(text,jsonb,text,boolean)",
         f"""select {D}.create_vector_index('V2', '{{"location": "table:alice.handbook(id, body)", '"""
         """'"profile_name": "EMB"}'::jsonb, null, false)"""),
    Step(f"{D}.update_vector_index(text,text,text)",
         f"select {D}.update_vector_index('V', 'match_limit', '3')"),
    Step(f"{D}.update_vector_index(text,text)",
         f"""select {D}.update_vector_index('V', '{{"chunk_size": 512}}')"""),
    Step(f"{D}.update_vector_index(text,jsonb)",
         f"""select {D}.update_vector_index('V', '{{"chunk_overlap": 64}}'::jsonb)"""),
    Step(f"{D}.refresh_vector_index(text)", f"select {D}.refresh_vector_index('V')"),
    Step(f"{D}.refresh_vector_index_job(text,integer)", f"call {D}.refresh_vector_index_job('V')"),
    Step(f"{D}.maintain_vector_indexes(text)", f"call {D}.maintain_vector_indexes('V')"),
    Step(f"{D}.disable_vector_index(text)", f"select {D}.disable_vector_index('V')"),
    Step(f"{D}.enable_vector_index(text)", f"select {D}.enable_vector_index('V')"),
    Step(f"{C}.stop_pipeline(text,boolean)", f"select {C}.stop_pipeline('V$VECPIPELINE')"),
    Step(f"{C}.start_pipeline(text,timestamp with time zone)",
         f"select {C}.start_pipeline('V$VECPIPELINE')"),
    Step(f"{D}.grant_vector_index_access(text,text)", f"select {D}.grant_vector_index_access('V', 'bob')"),
    Step(f"{D}.revoke_vector_index_access(text,text)",
         f"select {D}.revoke_vector_index_access('V', 'bob')"),
    Step(f"{D}.drop_vector_index(text,boolean,boolean,text)",
         f"select {D}.drop_vector_index('V2', schema_name => 'alice')"),
    Step(f"{D}.rate_prompt(text,integer,text)", f"select {D}.rate_prompt(%(pid)s, 1, 'good')"),
    Step((f"{D}.delete_conversation_prompt(text,boolean)", f"{D}._forget_summaries()"),
         f"select {D}.delete_conversation_prompt(%(pid)s, true)"),
    Step(f"{D}.summarize(text,text,text,text,text,text,text,text)",
         f"select {D}.summarize(content => 'A long text. ' || repeat('Words here. ', 20), "
         "profile_name => 'P')"),
    Step(f"{D}.translate(text,text,text,text)", f"select {D}.translate('P', 'hola', 'es', 'en')"),
    Step((), "create table if not exists alice.synthetic (a int)"),
    Step(f"{D}.generate_synthetic_data(text,text,text,integer,text,text,text[])",
         f"select {D}.generate_synthetic_data('P', 'synthetic', 'alice', 0)"),
    Step(f"{D}.generate_synthetic_data(text,text,text)",
         f"""select {D}.generate_synthetic_data('P', '[{{"owner": "alice", "name": "synthetic",
                                                         "record_count": 0}}]')"""),
    Step(f"{D}._pending_calls()", f"select count(*) from {D}._pending_calls()"),
    Step(f"{D}._tokens_used_today()", f"select {D}._tokens_used_today() > 0"),
    Step(f"{D}._caller()", f"select {D}._caller() = current_user"),
    Step(f"{D}._vector_index_usable(uuid,name)",
         f"select {D}._vector_index_usable(gen_random_uuid(), current_user)"),
    Step(f"{D}._session_table()", f"select {D}._session_table() is null"),
    Step(f"{D}._write(text,name,oid,oid)", f"select {D}._write('no token', current_user, null, null)"),
    Step(f"{D}._usage_live_from()", f"select {D}._usage_live_from() is not null"),
    Step(f"{D}._run_readonly(text,text,bigint,bigint)",
         f"select * from {D}._run_readonly('select 1 as a, ''x'' as b', 'public', 10, 10000)"),
    Step(f"{D}._release_advisory_locks(text[])",
         f"select {D}._release_advisory_locks('{{}}'::text[])"),
    Step(f"{D}._purge_conversations_batch(integer)", f"select {D}._purge_conversations_batch(100)"),
    Step(f"{D}.purge_expired_conversations(integer,integer,bigint)",
         f"call {D}.purge_expired_conversations(100, 1, null)"),
    # administration
    Step(f"{D}.summarize_usage(integer)", f"select {D}.summarize_usage(1) >= 0", ADMIN),
    Step(f"{D}.set_token_budget(text,bigint)", f"select {D}.set_token_budget('alice', 1000000)", ADMIN),
    Step(f"{D}.set_max_wait(double precision)", f"select {D}.set_max_wait(300)", ADMIN),
    Step(f"{D}.set_oci_genai_endpoint(text)",
         f"select {D}.set_oci_genai_endpoint('http://127.0.0.1:9/v1')", ADMIN),
    Step(f"{D}.set_slack_api_endpoint(text)",
         f"select {D}.set_slack_api_endpoint('http://127.0.0.1:9/api')", ADMIN),
    Step(f"{D}.disable_data_access()", f"select {D}.disable_data_access()", ADMIN),
    Step(f"{D}.data_access_enabled()", f"select not {D}.data_access_enabled()"),
    Step(f"{D}.enable_data_access()", f"select {D}.enable_data_access()", ADMIN),
    Step(f"{D}.set_model_price(text,text,numeric,numeric,text)",
         f"select {D}.set_model_price('openai', 'gpt-x', 1, 2)", ADMIN),
    Step((f"{D}.append_host_ace(text,text,integer,integer,text)", f"{D}._bind_principal()"),
         f"select {D}.append_host_ace('example.com', 'alice', 443, 443, 'connect')", ADMIN),
    # role bindings (issue 14, class 3): alice is bound and live
    Step(f"{D}._role_is_stale(name)", f"select {D}._role_is_stale('alice')"),
    Step(f"{D}._role_is_live(name)", f"select {D}._role_is_live('alice')"),
    Step(f"{D}.drop_role_data(text)", f"select {D}.drop_role_data('no_such_role')", ADMIN),
    Step(f"{D}._vector_ann_drop_gone(uuid[])",
         f"select {D}._vector_ann_drop_gone(array[gen_random_uuid()])", ADMIN),
    Step(f"{D}.rebind_role(text)", f"select {D}.rebind_role('alice')", ADMIN),
    Step(f"{D}.remove_host_ace(text,text,integer,integer,text)",
         f"select {D}.remove_host_ace('example.com', 'alice', 443, 443, 'connect')", ADMIN),
    Step(f"{D}.set_memory_role(text,text,text)",
         f"select {D}.set_memory_role('alice', 'org1', 'asserted')", ADMIN),
    Step(f"{D}.enable_memory(text)", f"select {D}.enable_memory('org1')", ADMIN),
    Step(f"{D}.set_memory_attribute(text,text,text)",
         f"select {D}.set_memory_attribute('idle_minutes', '0', 'org1')", ADMIN),
    Step(f"{D}._administers(text)", f"select {D}._administers('org1')", ADMIN),
    Step(f"{D}._organization()", f"select {D}._organization()"),
    Step(f"{D}.set_end_user(text,boolean)", f"select {D}.set_end_user('not-an-assertion')"),
    Step(f"{D}.memory_identity()", f"select * from {D}.memory_identity()"),
    Step(f"{D}.delete_memory(text)", f"select {D}.delete_memory('00000000-0000-0000-0000-000000000000')"),
    Step(f"{D}.erase_memories(text,text,text)", f"select {D}.erase_memories('someone', 'org1')", ADMIN),
    Step(f"{D}._claim_memory_jobs(integer,text)",
         f"select {D}._claim_memory_jobs(10, '00000000-0000-0000-0000-000000000001')", ADMIN),
    Step(f"{D}._fail_memory_job(text,text,text)",
         f"select {D}._fail_memory_job(%(cid)s, '00000000-0000-0000-0000-000000000001', '57014')", ADMIN),
    Step(f"{D}._run_memory_job(text,text)",
         f"select {D}._run_memory_job(%(cid)s, '00000000-0000-0000-0000-000000000001')", ADMIN),
    Step(f"{D}._run_memory_job_detached(text,text,text)",
         f"call {D}._run_memory_job_detached(%(cid)s, '00000000-0000-0000-0000-000000000001', 'alice')",
         ADMIN),
    Step(f"{D}.run_memory_jobs(integer,integer,bigint)", f"call {D}.run_memory_jobs(10, 1, null)", ADMIN),
    Step(f"{D}.disable_memory(text)", f"select {D}.disable_memory('org1')", ADMIN),
    Step(f"{D}.schedule_conversation_purge(text,integer)",
         f"select {D}.schedule_conversation_purge()", ADMIN),
    Step(f"{D}.unschedule_conversation_purge()", f"select {D}.unschedule_conversation_purge()", ADMIN),
    Step(f"{D}.schedule_usage_summary(text)", f"select {D}.schedule_usage_summary()", ADMIN),
    Step(f"{D}.unschedule_usage_summary()", f"select {D}.unschedule_usage_summary()", ADMIN),
    # Select AI Agent run history: failed runs held in memory, a gone run's state
    Step(f"{D}._agent_unsaved_team_runs()", f"select count(*) from {D}._agent_unsaved_team_runs()"),
    Step(f"{D}._agent_unsaved_task_runs()", f"select count(*) from {D}._agent_unsaved_task_runs()"),
    Step(f"{D}._agent_unsaved_tool_runs()", f"select count(*) from {D}._agent_unsaved_tool_runs()"),
    Step(f"{D}._agent_run_state(text,integer)", f"select {D}._agent_run_state('RUNNING', 0)"),
    Step(f"{D}.schedule_memory_jobs(text,integer)", f"select {D}.schedule_memory_jobs()", ADMIN),
    Step(f"{D}.unschedule_memory_jobs()", f"select {D}.unschedule_memory_jobs()", ADMIN),
    # Select AI Agent's catalog (dbms_cloud_ai_agent)
    Step(f"{G}.create_tool(text,text,text,text,text[])",
         f"""select {G}.create_tool('T', '{{"tool_type": "sql", "tool_params": {{"profile_name": "P"}}}}')"""),
    Step(f"{G}.create_task(text,text,text,text)",
         f"""select {G}.create_task('K', '{{"instruction": "answer {{query}}", "tools": ["T"]}}')"""),
    Step(f"{G}.create_agent(text,text,text,text)",
         f"""select {G}.create_agent('A', '{{"profile_name": "P", "role": "helper"}}')"""),
    Step(f"{G}.create_team(text,text,text,text)",
         f"""select {G}.create_team('TEAM', '{{"agents": [{{"name": "A", "task": "K"}}]}}')"""),
    Step(f"{G}.set_attribute(text,text,text,text,text[])",
         f"select {G}.set_attribute('A', 'agent', 'role', 'assistant')"),
    Step(f"{G}.set_attribute(text,text,text,boolean,text[])",
         f"select {G}.set_attribute('A', 'agent', 'enable_human_tool', false)"),
    Step(f"{G}.set_attribute(text,text,text,numeric,text[])",
         f"select {G}.set_attribute('A', 'agent', 'role', 7::numeric)"),
    Step(f"{G}.set_attribute(text,text,text,jsonb,text[])",
         f"""select {G}.set_attribute('K', 'task', 'tools', '["T"]'::jsonb)"""),
    Step(f"{G}.set_attributes(text,text,text,text[])",
         f"""select {G}.set_attributes('K', 'task', '{{"enable_human_tool": false}}')"""),
    Step(f"{G}.disable_tool(text)", f"select {G}.disable_tool('T')"),
    Step(f"{G}.enable_tool(text)", f"select {G}.enable_tool('T')"),
    Step(f"{G}.disable_task(text)", f"select {G}.disable_task('K')"),
    Step(f"{G}.enable_task(text)", f"select {G}.enable_task('K')"),
    Step(f"{G}.disable_agent(text)", f"select {G}.disable_agent('A')"),
    Step(f"{G}.enable_agent(text)", f"select {G}.enable_agent('A')"),
    Step(f"{G}.disable_team(text)", f"select {G}.disable_team('TEAM')"),
    Step(f"{G}.enable_team(text)", f"select {G}.enable_team('TEAM')"),
    Step(f"{G}.grant_team_access(text,text)", f"select {G}.grant_team_access('TEAM', 'bob')"),
    Step(f"{G}.revoke_team_access(text,text)", f"select {G}.revoke_team_access('TEAM', 'bob')"),
    Step(f"{G}.describe_tool(text,text[])", f"select {G}.describe_tool('T')"),
    Step(f"{G}.get_definition(text,text)", f"select {G}.get_definition('agent', 'A')"),
    Step(f"{G}.describe_team(text)", f"select {G}.describe_team('TEAM')"),
    Step(f"{G}.list_tools(text)", f"select {G}.list_tools('TEAM')"),
    Step(f"{G}.export_team(text,text)", f"select {G}.export_team('TEAM')", save="spec"),
    Step(f"{G}.import_team(text,text,text,boolean,text,text[])",
         f"select {G}.import_team('P', 'TEAM', %(spec)s, force => true)"),
    # running (agents/run.py): the session's team, a run, its procedure form, one tool
    Step(f"{G}.set_team(text)", f"select {G}.set_team('TEAM')"),
    Step(f"{G}.get_team()", f"select {G}.get_team()"),
    Step(f"{G}.run_team(text,text,text,text[])", f"select {G}.run_team('TEAM', 'What is 4 + 4?')"),
    Step(f"{G}.run_team_detached(text,text,text,text[],text)",
         f"call {G}.run_team_detached('TEAM', 'And 5 + 5?')"),
    Step(f"{G}.run_tool(text,text,text[])", f"select {G}.run_tool('T', 'how many?')"),
    Step(f"{G}.clear_team()", f"select {G}.clear_team()"),
    Step(f"{G}.drop_team(text,boolean)", f"select {G}.drop_team('TEAM')"),
    Step(f"{G}.drop_agent(text,boolean)", f"select {G}.drop_agent('A')"),
    Step(f"{G}.drop_task(text,boolean)", f"select {G}.drop_task('K', true)"),
    Step(f"{G}.drop_tool(text,boolean)", f"select {G}.drop_tool('T')"),
]


def api_functions(conn) -> set[str]:
    """Every function and procedure a user or an administrator can execute."""
    return {r for (r,) in conn.execute(f"""
        select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname in {SCHEMAS}
           and (has_function_privilege('dbms_cloud_ai_user', p.oid, 'execute')
                or has_function_privilege('dbms_cloud_ai_admin', p.oid, 'execute'))""")}


def covered(functions: set[str]) -> set[str]:
    """The functions STEPS call; a _py_ body is covered by the wrapper that calls it."""
    direct = {c for s in STEPS for c in s.covers}
    return direct | {f for f in functions if re.sub(r"\._py_", ".", f) in direct}


def test_every_api_function_has_a_sample_call(db):
    """A3 stays at 100%: a new executable function fails here until STEPS calls it."""
    functions = api_functions(db.admin)
    assert len(functions) >= 100
    assert functions - covered(functions) == set()
    assert {c for s in STEPS for c in s.covers} - functions == set()  # no stale entries


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d(:\d\d)?|Z)?")
VOLATILE = re.compile(r'"(latency_ms|created|id|request_id|call_id)": ?[^,}\]]+')


def normalise(value) -> str:
    text = json.dumps(value, default=str, sort_keys=True)
    text = VOLATILE.sub(r'"\1": "*"', UUID.sub("<uuid>", TIMESTAMP.sub("<ts>", text)))
    return text


def run_steps(info, dbname, llm, prepare=None) -> list:
    """Run STEPS in order, one session per role; each outcome is (rows) or (SQLSTATE)."""
    conns = {}
    context = {"profile": json.dumps({**PROFILE, "provider_endpoint": llm.url})}
    outcomes = []
    try:
        for role in (USER, ADMIN):
            conns[role] = connect(info, dbname, role)
            if prepare:
                prepare(conns[role])
        for i, step in enumerate(STEPS):
            conn = conns[step.role]
            try:
                rows = conn.execute(step.sql, context).fetchall()
                outcomes.append((i, step.covers, "ok", normalise(rows)))
                if step.save:
                    context[step.save] = rows[0][0] if rows and rows[0] else None
            except psycopg.Error as e:
                outcomes.append((i, step.covers, "error", e.sqlstate))
                if step.save:
                    context[step.save] = None
    finally:
        for c in conns.values():
            c.close()
    return outcomes


def statement_names(conn) -> Names:
    """Unqualified names in every statement the clean run executed, at any depth
    (pg_stat_statements with track = all sees the SQL of the PL/Python package too)."""
    names = Names()
    for (query,) in conn.execute("""
            select query from pg_stat_statements
             where dbid = (select oid from pg_database where datname = current_database())
               -- the test's own look-ups (a full table may record them before they ran)
               and query not like '%pg_stat_statements%'"""):
        try:
            names.merge(names_in_sql(query))
        except Exception:  # a statement pglast cannot parse names nothing
            continue
    return names


@pytest.fixture
def clean_and_hostile(db, hacker, llm, postgresql_noproc):
    """The test's database (clean) and a clone of the same template (hostile)."""
    with scratch_database(db.admin, f"{db.info.dbname}_a3", postgresql_noproc.template_dbname) as evil_db:
        with connect(db.info, evil_db) as su:
            su.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
            su.execute(f"grant create, usage on schema public to {HACKER}")
            su.execute(f"create schema evil authorization {HACKER}")
            su.execute("grant usage on schema evil to public")
        yield db.info.dbname, evil_db


def _hijack(info, evil_db, names: Names, extra_types, hostile_conns: list):
    with connect(info, evil_db, HACKER) as h:
        h.execute(ATTACK)
        planted = ShadowFactory(h, names, "evil", extra_types).plant()
        planted += ShadowFactory(h, names, "public", extra_types).plant(functions=True, operators=True,
                                                                        relations=True, types=True)
    temp_planted = []
    # The session conversation's own temporary table is not shadowed here: one of
    # that name that dbms_cloud_ai_owner does not own is refused (55000), which
    # tests/security/test_session_table_and_erasure_provenance.py covers; every other pg_temp name is.
    temp_names = copy.copy(names)
    temp_names.relations = names.relations - {"dca_session_prompt"}

    def prepare(conn):
        hostile_conns.append(Warnings(conn))
        conn.execute("set search_path = evil, public")
        temp_planted.append(ShadowFactory(conn, temp_names, "pg_temp", extra_types).plant(
            functions=False, operators=False, types=False))
    return planted, temp_planted, prepare


def test_api_under_a_hostile_search_path(db, clean_and_hostile, llm, postgresql_noproc):
    """A3: every API function returns the same under search_path = evil, public with
    shadows of every name the calls reference in evil, public and pg_temp; no shadow runs."""
    clean_db, evil_db = clean_and_hostile
    db.admin.execute(f"alter database {clean_db} set pg_stat_statements.track = 'all'")
    clean = run_steps(db.info, clean_db, llm)
    clean_requests = [normalise(json.loads(r.body or b"{}")) for r in llm.requests]
    assert len(clean_requests) >= 5
    assert sum(1 for o in clean if o[2] == "ok") >= len(STEPS) * 2 // 3, clean

    with connect(db.info, postgresql_noproc.template_dbname) as tmpl:
        names = script_names(tmpl)
        extra = _extra_types(tmpl)
    names.merge(statement_names(db.admin))
    # Every name is shadowed, qualified uses too: a call that lost its qualifier
    # (or an unqualified one inside pg_catalog's own SQL functions) would then hit one.
    names = names.any
    names.relations.add("pg_class")  # for the positive control below
    assert len(names.functions) >= 50 and len(names.relations - names.ctes) >= 20, names

    warnings: list[Warnings] = []
    planted, temp_planted, prepare = _hijack(db.info, evil_db, names, extra, warnings)
    llm.reset()
    hostile = run_steps(db.info, evil_db, llm, prepare)
    hostile_requests = [normalise(json.loads(r.body or b"{}")) for r in llm.requests]

    with connect(db.info, evil_db) as su:
        assert not hacker_is_superuser(su)
        assert su.execute("select * from public.dca_canary").fetchall() == []
    assert [w.seen for w in warnings] == [[], []]
    assert [o for o in hostile if o not in clean] == [], [o for o in clean if o not in hostile]
    assert hostile_requests == clean_requests
    assert planted > 2000 and min(temp_planted) >= 10, (planted, temp_planted)

    # Positive control: the same shadows catch an unqualified relation (pg_temp comes
    # first for relations) and a better-matching operator in a hostile session.
    with connect(db.info, evil_db, USER) as conn:
        seen = Warnings(conn)
        prepare(conn)
        conn.execute("select * from pg_class limit 1")
        conn.execute("select 'a'::varchar = 'b'::varchar")
        assert len(seen.seen) == 2, seen.seen
    with connect(db.info, evil_db) as su:
        assert su.execute("select count(*) from public.dca_canary").fetchone()[0] == 2
