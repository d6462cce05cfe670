"""Oracle SQL, as scripts written for the SDK send it through a cursor, in PostgreSQL steps.

Not a general translator: the statements the SDK's users and its test suite send.  Each
mapping is listed in docs/select-ai-client.md.
- binds: ``:name`` (keyword arguments or a dict, names case-insensitive) and ``:1`` (a
  sequence) become psycopg placeholders; quoted text, identifiers and ``::`` are left alone;
- ``FROM DUAL`` goes away; ``SELECT .. FROM DUAL CONNECT BY LEVEL <= n`` becomes a
  generate_series; ``NVL``, ``SYSDATE``, ``SYSTIMESTAMP``, ``JSON_VALUE(x, '$.a')``, and the
  types ``VARCHAR2``, ``NUMBER``, ``CLOB`` are rewritten; ``DROP TABLE .. PURGE`` and
  ``CASCADE CONSTRAINTS`` become PostgreSQL's;
- DDL commits before and after, as in Oracle;
- a PL/SQL block ``BEGIN ...; END;`` runs its statements one by one: a procedure call becomes a
  ``SELECT`` of the function of the same name and commits (the packages commit), ``EXECUTE
  IMMEDIATE '...'`` runs its text, ``NULL`` does nothing, and ``EXCEPTION WHEN OTHERS THEN
  NULL`` makes each statement's error ignored;
- users: see ``_user_steps``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from psycopg import sql as pgsql

from .errors import database_error

ANY_ERROR = frozenset({"*"})


@dataclass
class Step:
    sql: str | pgsql.Composable
    params: dict | list | None = None
    commit_before: bool = False
    commit_after: bool = False
    swallow: frozenset = frozenset()


_DDL = re.compile(r"^\s*(create|drop|alter|truncate|grant|revoke|comment|rename)\b", re.I)


def translate(statement: str, binds=None) -> list[Step]:
    text = statement.strip()
    head = text.split(None, 1)[0].lower() if text else ""
    if head in ("begin", "declare"):
        return _plsql(text, binds)
    text = text.rstrip().rstrip(";").rstrip()
    if head in ("commit", "rollback") and text.lower() in ("commit", "rollback", "commit work",
                                                          "rollback work"):
        return [Step(head.upper())]
    users = _user_steps(text)
    if users is not None:
        return users
    sql, params = _bind(_rewrite(text), binds)
    ddl = bool(_DDL.match(text))
    return [Step(sql, params, commit_before=ddl, commit_after=ddl)]


def call(name: str, parameters=None, keyword_parameters=None) -> tuple[str, dict]:
    """cursor.callproc/callfunc: a SELECT of the function with named and positional binds."""
    binds, args = {}, []
    for i, value in enumerate(parameters or []):
        binds[f"p{i}"] = value
        args.append(f":p{i}")
    for key, value in (keyword_parameters or {}).items():
        binds[f"k_{key}"] = value
        args.append(f"{key} => :k_{key}")
    if not re.fullmatch(r"[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)*", name):
        raise database_error(6550, f"invalid procedure name {name!r}")
    return f"SELECT {name}({', '.join(args)})", binds


# --- rewrites -------------------------------------------------------------------------------

_CONNECT_BY = re.compile(
    r"^select\s+(?P<cols>.+?)\s+from\s+dual\s+connect\s+by\s+level\s*<=\s*(?P<n>:\w+|\d+)\s*$",
    re.I | re.S)
_SIMPLE = [
    (re.compile(r"\s+from\s+dual\b", re.I), ""),
    (re.compile(r"\bnvl\s*\(", re.I), "COALESCE("),
    (re.compile(r"\bsysdate\b", re.I), "LOCALTIMESTAMP(0)"),
    (re.compile(r"\bsystimestamp\b", re.I), "CURRENT_TIMESTAMP"),
    (re.compile(r"\bvarchar2\s*\(\s*(\d+)\s*(?:byte|char)?\s*\)", re.I), r"varchar(\1)"),
    (re.compile(r"\bnumber\b", re.I), "numeric"),
    (re.compile(r"\bclob\b", re.I), "text"),
    (re.compile(r"\s+purge\s*$", re.I), ""),
    (re.compile(r"\bcascade\s+constraints\b", re.I), "CASCADE"),
]


def _rewrite(text: str) -> str:
    m = _CONNECT_BY.match(text)
    if m:
        return f"SELECT {m['cols']} FROM generate_series(1, {m['n']}) AS connect_by(level)"
    text = _json_value(text)
    out = []
    for chunk, quoted in _split_quoted(text):
        if not quoted:
            for pattern, repl in _SIMPLE:
                chunk = pattern.sub(repl, chunk)
        out.append(chunk)
    return "".join(out)


def _json_value(text: str) -> str:
    """JSON_VALUE(expr, '$.path') -> jsonb_path_query_first(expr::jsonb, '$.path') #>> '{}'."""
    while True:
        m = re.search(r"\bjson_value\s*\(", text, re.I)
        if not m:
            return text
        start, depth, i = m.end(), 1, m.end()
        args, arg_start = [], start
        while i < len(text) and depth:
            c = text[i]
            if c == "'":
                i = text.index("'", i + 1)
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif c == "," and depth == 1:
                args.append(text[arg_start:i])
                arg_start = i + 1
            i += 1
        args.append(text[arg_start:i - 1])
        expr, path = args[0].strip(), args[1].strip() if len(args) > 1 else "'$'"
        text = (text[:m.start()] + f"(jsonb_path_query_first(({expr})::jsonb, {path}) #>> '{{}}')"
                + text[i:])


def _split_quoted(text: str):
    """Yield (chunk, is_quoted) pieces: '..' literals and ".." identifiers are quoted."""
    i, start = 0, 0
    while i < len(text):
        c = text[i]
        if c in "'\"":
            if i > start:
                yield text[start:i], False
            j = i + 1
            while j < len(text):
                if text[j] == c:
                    if j + 1 < len(text) and text[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            yield text[i:j + 1], True
            i = start = j + 1
            continue
        i += 1
    if start < len(text):
        yield text[start:], False


_BIND = re.compile(r"(?<![:\w]):(\w+)")


def _bind(text: str, binds):
    """Oracle binds to psycopg placeholders (and % doubled when there are binds)."""
    if binds is None:
        if _BIND.search("".join(c for c, q in _split_quoted(text) if not q)):
            raise database_error(1008, "not all variables bound")
        return text, None
    positional = not isinstance(binds, dict)
    lower = {} if positional else {k.lower(): k for k in binds}
    out, used = [], []

    def placeholder(m):
        name = m.group(1)
        if positional:
            used.append(name)
            return "%s"
        key = lower.get(name.lower())
        if key is None:
            raise database_error(1008, f"not all variables bound: :{name}")
        return f"%({key})s"

    for chunk, quoted in _split_quoted(text):
        out.append(chunk if quoted else _BIND.sub(placeholder, chunk.replace("%", "%%")))
    if positional and len(used) != len(binds):
        raise database_error(1008, "not all variables bound")
    return "".join(out), (list(binds) if positional else dict(binds))


# --- PL/SQL blocks ---------------------------------------------------------------------------

_BLOCK = re.compile(r"^(?:declare\b.*?)?begin\b(?P<body>.*?)"
                    r"(?:\bexception\b(?P<handler>.*?))?\bend\s*;?\s*/?\s*$", re.I | re.S)


def _statements(body: str) -> list[str]:
    parts, current = [], []
    depth = 0
    for chunk, quoted in _split_quoted(body):
        if quoted:
            current.append(chunk)
            continue
        for c in chunk:
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            if c == ";" and depth == 0:
                parts.append("".join(current).strip())
                current = []
            else:
                current.append(c)
    tail = "".join(current).strip()
    if tail:
        parts.append(tail)
    return [p for p in parts if p]


def _plsql(text: str, binds) -> list[Step]:
    m = _BLOCK.match(text.strip())
    if not m:
        raise database_error(6550, "PL/SQL block not supported by select_ai's Oracle dialect")
    swallow = ANY_ERROR if m["handler"] and re.search(r"when\s+others\s+then", m["handler"],
                                                      re.I) else frozenset()
    steps: list[Step] = []
    for stmt in _statements(m["body"]):
        immediate = re.match(r"^execute\s+immediate\s+'(?P<s>(?:[^']|'')*)'$", stmt, re.I | re.S)
        if immediate:
            inner = translate(immediate["s"].replace("''", "'"), None)
        elif stmt.lower() == "null":
            continue
        elif re.match(r"^[A-Za-z_][\w$.]*\s*(\(.*\))?$", stmt, re.S):
            name, _, args = stmt.partition("(")
            sql, params = _bind(f"SELECT {name.strip()}({args.rstrip()[:-1] if args else ''})",
                                _used_binds(stmt, binds))
            inner = [Step(sql, params, commit_after=True)]
        else:
            raise database_error(6550, f"PL/SQL statement not supported: {stmt[:60]}")
        for step in inner:
            step.swallow = swallow
        steps.extend(inner)
    return steps


def _used_binds(stmt: str, binds):
    if binds is None or not isinstance(binds, dict):
        return binds
    names = {n.lower() for n in _BIND.findall(stmt)}
    return {k: v for k, v in binds.items() if k.lower() in names}


# --- users -----------------------------------------------------------------------------------

_CREATE_USER = re.compile(r'^create\s+user\s+(?P<name>"[^"]+"|\w+)\s+identified\s+by\s+'
                          r'(?P<pw>"(?:[^"]|"")*"|\S+)', re.I)
_DROP_USER = re.compile(r'^drop\s+user\s+(?P<name>"[^"]+"|\w+)(?P<cascade>\s+cascade)?\s*$', re.I)
_GRANT_SYSTEM = re.compile(
    r"^grant\s+(?P<privs>(?:create|drop|unlimited|alter|select|execute)\s+[\w\s,]+?)\s+to\s+"
    r"(?P<name>\"[^\"]+\"|\w+)\s*$", re.I)
_SYSTEM_PRIVILEGES = {"create session", "create table", "create procedure", "create view",
                      "unlimited tablespace", "create public synonym", "drop public synonym",
                      "create sequence", "create synonym", "create type", "create trigger",
                      "create any table", "create job"}


def _role(name: str) -> str:
    """Oracle folds unquoted names to upper case, PostgreSQL to lower case."""
    return name[1:-1] if name.startswith('"') else name.lower()


def _user_steps(text: str) -> list[Step] | None:
    """CREATE USER / DROP USER / GRANT <system privilege> as PostgreSQL roles.

    A user is a login role with a schema of its own name (PostgreSQL's default search_path
    starts with "$user", so its tables land there, as in Oracle).  Oracle's system privileges
    for a schema user (CREATE SESSION, CREATE TABLE, ...) are what such a role already has:
    granting them does nothing."""
    m = _CREATE_USER.match(text)
    if m:
        role, pw = _role(m["name"]), m["pw"]
        if pw.startswith('"'):
            pw = pw[1:-1].replace('""', '"')
        ident = pgsql.Identifier(role)
        return [Step(pgsql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(ident, pgsql.Literal(pw)),
                     commit_before=True),
                Step(pgsql.SQL("CREATE SCHEMA {} AUTHORIZATION {}").format(ident, ident),
                     commit_after=True)]
    m = _DROP_USER.match(text)
    if m:
        role = _role(m["name"])
        ident = pgsql.Identifier(role)
        return [Step("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                     [role], commit_before=True),
                Step(pgsql.SQL("DROP OWNED BY {} CASCADE").format(ident)),
                Step(pgsql.SQL("DROP ROLE {}").format(ident), commit_after=True)]
    m = _GRANT_SYSTEM.match(text)
    if m:
        privs = {" ".join(p.lower().split()) for p in m["privs"].split(",")}
        if privs <= _SYSTEM_PRIVILEGES:
            return []
    return None
