#!/usr/bin/env python3
"""Build extension/dbms_cloud_ai--<version>.sql from the concern files in sql/.

Order: head.sql, then schema/NNN-*.sql (tables, policies), then api/NNN-*.sql
(functions, views, grants).  A prefix NNN is one concern, with the same name in
both folders (check_layout); under it, NNN-<concern>.sql comes first, then
its parts NNN-<concern>-<part>.sql.  Each ``#BOOTSTRAP`` line in a PL/Python body is
replaced by the once-per-backend loader of the Python package.  The version
comes from the control file only.

An update script <from>--<version> is updates/<from>--<version>.sql (the
hand-written migration of tables and anything the api part cannot replace in
place) followed by the whole api part with CREATE OR REPLACE, so every
function body, view and grant ends exactly as in a fresh install.  Released
scripts are frozen in sql/released/ (docs/releasing.md).

    python3 sql/build.py --pylibdir /usr/local/lib/dbms_cloud_ai --out extension/dbms_cloud_ai--0.2.0.sql
    python3 sql/build.py --pylibdir /usr/local/lib/dbms_cloud_ai --update 0.1.0 --out extension/dbms_cloud_ai--0.1.0--0.2.0.sql
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SQL = ROOT / "sql"
CONTROL = ROOT / "extension" / "dbms_cloud_ai.control"
NAME = re.compile(r"\d{3}-[a-z0-9-]+\.sql\Z")

# The loader: import the package from <libdir>/<version>/pythonX.Y once per
# backend, without the system's site-packages, and refuse to mix versions.
# The library directory can only be changed through the server's environment,
# never through a setting an SQL user could change (that would let them load
# their own Python code into a superuser-equivalent interpreter).
BOOTSTRAP = '''\
if GD.get("dbms_cloud_ai.version") != "{version}":
    import os, sys
    if GD.get("dbms_cloud_ai.version") is not None:
        plpy.error("dbms_cloud_ai was updated while this session was open",
                   detail="This session loaded version %s; the database now has {version}." % GD["dbms_cloud_ai.version"],
                   hint="Reconnect to use the new version.", sqlstate="55000")
    _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "{pylibdir}",
                            "{version}", "python%d.%d" % sys.version_info[:2])
    if not os.path.isdir(_dca_dir):
        plpy.error("dbms_cloud_ai Python library is not installed",
                   detail="Directory %s does not exist." % _dca_dir,
                   hint="Run 'make install' as root on the database server.", sqlstate="58000")
    sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
    import dbms_cloud_ai, dbms_cloud_ai.sqlapi
    if dbms_cloud_ai.__version__ != "{version}":
        plpy.error("dbms_cloud_ai Python library version %s does not match the extension {version}"
                   % dbms_cloud_ai.__version__,
                   hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
    GD["dbms_cloud_ai"] = dbms_cloud_ai
    GD["dbms_cloud_ai.version"] = "{version}"'''


def control_version() -> str:
    m = re.search(r"^default_version\s*=\s*'([^']+)'", CONTROL.read_text(), re.M)
    if not m:
        sys.exit(f"{CONTROL}: no default_version")
    return m.group(1)


def concern(name: str) -> tuple[str, str]:
    """("030", "profiles-sharing") for "030-profiles-sharing.sql"."""
    return name[:3], name[4:-len(".sql")]


def topics(names) -> dict[str, str]:
    """{prefix: concern}: a prefix's concern is the shortest name under it
    (030-profiles.sql and 030-profiles-sharing.sql: "profiles")."""
    out: dict[str, str] = {}
    for name in names:
        prefix, rest = concern(name)
        out[prefix] = min(out.get(prefix, rest), rest, key=len)
    return out


def check_layout(names: dict[str, list[str]]) -> list[str]:
    """Problems with the concern layout of {part: [file names]}, none when it is right.

    A prefix is one concern, in sql/schema and sql/api alike.  The concern is
    the shortest name under the prefix (030-profiles.sql: "profiles"); every
    other file under it is NNN-<concern>-<part>.sql (030-profiles-sharing.sql).
    So two concerns under one prefix, and a prefix named differently in the
    two folders, are refused.
    """
    problems = [f"{part}/{name}: file names must look like 010-concern.sql"
                for part, files in names.items() for name in files if not NAME.match(name)]
    named = [(part, name) for part, files in names.items() for name in files if NAME.match(name)]
    topic = topics(name for _, name in named)
    for part, name in sorted(named, key=lambda x: (x[1], x[0])):
        prefix, rest = concern(name)
        if rest != topic[prefix] and not rest.startswith(topic[prefix] + "-"):
            problems.append(f"{part}/{name}: prefix {prefix} is the concern {topic[prefix]!r} "
                            f"(one concern per prefix, the same name in schema/ and api/)")
    return problems


def ordered(files: list[pathlib.Path]) -> list[pathlib.Path]:
    """By prefix; under a prefix the concern's own file first, then its parts by name
    (030-profiles.sql before 030-profiles-sharing.sql, which "-" < "." would invert)."""
    topic = topics(p.name for p in files)
    return sorted(files, key=lambda p: (p.name[:3], concern(p.name)[1] != topic[p.name[:3]], p.name))


def sources(parts=("schema", "api")) -> list[pathlib.Path]:
    files = [SQL / "head.sql"] if "schema" in parts else []
    found = {part: [p for p in (SQL / part).iterdir() if p.suffix == ".sql"] for part in ("schema", "api")}
    problems = check_layout({part: [p.name for p in ps] for part, ps in found.items()})
    if problems:
        sys.exit("\n".join(f"sql/{x}" for x in problems))
    for part in parts:
        files += ordered(found[part])
    return files


def inject(text: str, version: str, pylibdir: str, where: str) -> str:
    boot = BOOTSTRAP.format(version=version, pylibdir=pylibdir)

    def repl(m):
        indent = m.group(1)
        return "\n".join(indent + line if line else line for line in boot.splitlines())

    out = re.sub(r"^([ \t]*)#BOOTSTRAP[ \t]*$", repl, text, flags=re.M)
    bodies = len(re.findall(r"language plpython3u", text))
    markers = len(re.findall(r"^[ \t]*#BOOTSTRAP", text, flags=re.M))
    if bodies != markers:
        sys.exit(f"{where}: {bodies} PL/Python functions but {markers} #BOOTSTRAP markers")
    if "@extschema" in text:
        sys.exit(f"{where}: do not use @extschema@; qualify with dbms_cloud_ai. instead")
    return out


# A public PL/Python function becomes two: the PL/Python body under a "_py_"
# name, and a PL/pgSQL function with the public name that calls it and
# re-raises any error with the same SQLSTATE, message, detail and hint.  The
# client then sees a clean error instead of PL/Python's "<type>: <message>"
# and its traceback in CONTEXT.  The wrapper also bounds every lock wait of the
# call (lock_timeout): a role that locks a shared table (LOCK TABLE, a long
# transaction) makes other calls fail fast with 55P03 instead of hanging.
PYFUNC = re.compile(
    r"create function (?P<schema>\w+)\.(?P<name>[a-z]\w*)\((?P<args>[^;]*?)\)\s*\n"
    r"returns (?P<returns>\w+) language plpython3u (?P<attrs>.*?)\n"
    r"(?P<setpath>set search_path to pg_catalog, pg_temp)\n"
    r"as \$python\$\n(?P<body>.*?)\$python\$;",
    re.S)

WRAPPER = """create function {schema}.{name}({args})
returns {returns} language plpgsql {attrs}
{setpath}
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    {call}
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\\.\\w+|plpy\\.\\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;"""


def split_args(args: str) -> list[str]:
    return [a.strip() for a in re.split(r",(?![^()]*\))", args) if a.strip()]


def wrap(m: re.Match) -> str:
    g = m.groupdict()
    args = split_args(g["args"])
    names = [a.split()[0] for a in args]
    bare = ", ".join(re.split(r"\s+default\s+", a, flags=re.I)[0] for a in args)
    inner = f"{g['schema']}._py_{g['name']}"
    call_args = ", ".join(names)
    call = (f"perform {inner}({call_args});" if g["returns"] == "void"
            else f"return {inner}({call_args});")
    internal = (f"create function {inner}({bare})\nreturns {g['returns']} language plpython3u "
                f"{g['attrs']}\n{g['setpath']}\nas $python$\n{g['body']}$python$;")
    public = WRAPPER.format(call=call, **{k: g[k] for k in ("schema", "name", "args", "returns", "attrs", "setpath")})
    return internal + "\n\n" + public


def build_parts(paths: list[pathlib.Path], version: str, pylibdir: str) -> list[str]:
    parts = []
    for path in paths:
        rel = path.relative_to(ROOT)
        text = inject(path.read_text(), version, pylibdir, str(rel))
        parts.append(f"-- ===== {rel} =====\n" + PYFUNC.sub(wrap, text))
    return parts


def build(pylibdir: str) -> str:
    return "\n".join(build_parts(sources(), control_version(), pylibdir))


UPDATE_HEAD = """\
-- dbms_cloud_ai update script {old} -> {new}: built by sql/build.py from
-- sql/updates/{old}--{new}.sql and the api part of sql/.  Do not edit by hand.
\\echo Use "ALTER EXTENSION dbms_cloud_ai UPDATE TO '{new}'" to load this file. \\quit

-- ALTER EXTENSION runs this with search_path = <the extension's schema>, pg_temp,
-- that is public: pin it before the migration binds any name.  The schemas
-- already belong to the extension (nobody else may create in them), so CREATE OR
-- REPLACE below can only meet the extension's own objects.
set local search_path to pg_catalog, pg_temp;
"""
REPLACEABLE = re.compile(r"^create (function|procedure|view) ", re.M)
# A migration line "-- include schema/NNN-topic.sql" is replaced by that file, for
# objects an update creates exactly as a fresh install does (the built update
# script is frozen at release, so later edits of the file do not reach it).
INCLUDE = re.compile(r"^-- include (schema/\d{3}-[a-z0-9-]+\.sql)[ \t]*$", re.M)


def update_sources(new: str) -> list[str]:
    """The versions with a migration file to `new`: sql/updates/<old>--<new>.sql."""
    return sorted(p.name.split("--")[0] for p in (SQL / "updates").glob(f"*--{new}.sql"))


def build_update(old: str, pylibdir: str) -> str:
    new = control_version()
    migration = SQL / "updates" / f"{old}--{new}.sql"
    if not migration.is_file():
        sys.exit(f"{migration}: no migration from {old} to {new}")
    api = [REPLACEABLE.sub(r"create or replace \1 ", part)
           for part in build_parts(sources(("api",)), new, pylibdir)]
    text = INCLUDE.sub(lambda m: f"-- ===== sql/{m.group(1)} =====\n" + (SQL / m.group(1)).read_text(),
                       migration.read_text())
    mig = f"-- ===== {migration.relative_to(ROOT)} =====\n" + text
    return "\n".join([UPDATE_HEAD.format(old=old, new=new), mig] + api)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pylibdir", default="/usr/local/lib/dbms_cloud_ai")
    ap.add_argument("--out", help="output file (default: print to stdout)")
    ap.add_argument("--update", metavar="FROM", help="build the update script FROM--<version>")
    ap.add_argument("--print-version", action="store_true")
    ap.add_argument("--print-updates", action="store_true",
                    help="print the versions that have a migration to this version")
    args = ap.parse_args()
    if args.print_version:
        print(control_version())
        return
    if args.print_updates:
        print("\n".join(update_sources(control_version())))
        return
    text = build_update(args.update, args.pylibdir) if args.update else build(args.pylibdir)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
