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
- users and grants (``_user_steps``): a user is a login role with a schema of its name;
  an unquoted name is the role's in lower case, a quoted one as written:
  ``CREATE USER u IDENTIFIED BY "pw"`` -> ``CREATE ROLE u LOGIN PASSWORD`` and
  ``CREATE SCHEMA u AUTHORIZATION u``; ``DROP USER u [CASCADE]`` -> ends u's sessions,
  ``DROP OWNED BY u CASCADE``, ``DROP ROLE u`` and the extension's ``drop_role_data('u')``;
  ``GRANT <system privilege>, ... TO u`` (CREATE SESSION, CREATE TABLE, UNLIMITED TABLESPACE,
  CREATE PUBLIC SYNONYM, ...) -> nothing, the role has what they give; ``GRANT|REVOKE EXECUTE ON
  DBMS_CLOUD[_AI|_AI_AGENT|_PIPELINE] TO|FROM u`` -> membership in ``dbms_cloud_ai_user``;
  ``GRANT|REVOKE <role> TO|FROM u`` -> the same for that role; ``u`` may be a bind (``:user``);
- data dictionary (``_DICTIONARY``): ``DBA_USERS``/``ALL_USERS`` over the login roles,
  ``USER_CREDENTIALS``/``ALL_CREDENTIALS`` over the extension's credentials (and those usable
  through a shared profile), ``DBA_HOST_ACES`` over its host ACEs, ``USER_CLOUD_AI_PROFILES``
  and ``USER_CLOUD_AI_PROFILE_ATTRIBUTES`` over the extension's views; user names shown as Oracle
  shows them (upper case for a role named in lower case);
- ``SYS_CONTEXT('USERENV', ...)``: CURRENT_SCHEMA, CURRENT_USER, SESSION_USER, DB_NAME,
  SERVICE_NAME (the database), INSTANCE_NAME (cluster_name, else the database), SID, ... from
  the session (``_USERENV``);
- ``SELECT AI [action] prompt`` becomes ``dbms_cloud_ai.select_ai``: see ``_select_ai_steps``;
- ``CREATE [OR REPLACE] FUNCTION f(arg [IN] type, ...) RETURN type IS [declarations] BEGIN ...
  END [f];`` (the functions of custom agent tools) becomes a PL/pgSQL function: Oracle's scalar
  types become PostgreSQL's, the body is rewritten as above, ``MONTHS_BETWEEN`` is computed
  with ``age``;
- Select AI Agent: the owner prefix ``C##CLOUD$SERVICE.`` goes away (``DBMS_CLOUD_AI_AGENT.X`` is
  the extension's ``dbms_cloud_ai_agent.x``), the views ``USER_AI_AGENT*`` and ``DBA_AI_AGENT*``
  are ``dbms_cloud_ai_agent``'s, ``REGEXP_LIKE(x, p[, 'i'])`` becomes ``x ~ p`` (``~*``); a
  failing call of the package carries its kind (agent, task, tool, team) as the errors' topic.
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
    topic: str = "cursor"    # the errors table's topic for this step's failure


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
    users = _user_steps(text, binds)
    if users is not None:
        return users
    select_ai = _SELECT_AI.match(text)
    if select_ai:
        return _select_ai_steps(select_ai["rest"])
    function = _plsql_function(text)
    if function is not None:
        return [Step(function, None, commit_before=True, commit_after=True)]
    sql, params = _bind(_rewrite(text), binds)
    ddl = bool(_DDL.match(text))
    return [Step(sql, params, commit_before=ddl, commit_after=ddl, topic=_agent_topic(text, binds))]


def call(name: str, parameters=None, keyword_parameters=None) -> tuple[str, dict]:
    """cursor.callproc/callfunc: a SELECT of the function with named and positional binds."""
    binds, args = {}, []
    for i, value in enumerate(parameters or []):
        binds[f"p{i}"] = value
        args.append(f":p{i}")
    for key, value in (keyword_parameters or {}).items():
        binds[f"k_{key}"] = value
        args.append(f"{key} => :k_{key}")
    name = _ORACLE_OWNER.sub("", name)
    if not re.fullmatch(r"[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)*", name):
        raise database_error(6550, f"invalid procedure name {name!r}")
    return f"SELECT {name}({', '.join(args)})", binds


# --- SELECT AI ------------------------------------------------------------------------------

# Oracle's SELECT AI [action] prompt statement: the extension's select_ai() takes what
# follows SELECT AI and logs it as Oracle's statement text (so its SQL_ID is Oracle's).
# Oracle's V$MAPPED_SQL shows a statement to every session at once, whatever the
# transaction; here the log is a table, so the step commits for FEEDBACK by SQL_ID from
# another connection to find it.
_SELECT_AI = re.compile(r"^select\s+ai\s+(?P<rest>\S.*)$", re.I | re.S)

# runsql and narrate run the generated query, which the extension refuses without a finite
# statement_timeout; Oracle has no such rule, so the transaction gets one when it has none.
_ENSURE_STATEMENT_TIMEOUT = (
    "SELECT pg_catalog.set_config('statement_timeout', '300s', true)"
    " WHERE pg_catalog.current_setting('statement_timeout') = '0'")


def _select_ai_steps(rest: str) -> list[Step]:
    return [Step(_ENSURE_STATEMENT_TIMEOUT),
            Step("SELECT dbms_cloud_ai.select_ai(%(statement)s)", {"statement": rest},
                 commit_after=True)]


# --- rewrites -------------------------------------------------------------------------------

# A role's name as Oracle shows a user's: upper case when the role's is all lower case (what
# an unquoted name folds to), else as it is (a quoted name).  {0}: a text expression.
_ORACLE_NAME_SQL = ("CASE WHEN {0} = pg_catalog.lower({0}) THEN pg_catalog.upper({0}) "
                    "ELSE {0} END")
_CONNECT_BY = re.compile(
    r"^select\s+(?P<cols>.+?)\s+from\s+dual\s+connect\s+by\s+level\s*<=\s*(?P<n>:\w+|\d+)\s*$",
    re.I | re.S)
_SIMPLE = [
    (re.compile(r"\bc##cloud\$service\.", re.I), ""),
    # Select AI Agent's views are dbms_cloud_ai_agent's (Oracle's public synonyms)
    (re.compile(r"(?<![.\w$])((?:user|dba)_ai_agent\w*)\b", re.I), r"dbms_cloud_ai_agent.\1"),
    (re.compile(r"\s+from\s+dual\b", re.I), ""),
    (re.compile(r"\bnvl\s*\(", re.I), "COALESCE("),
    (re.compile(r"\bsysdate\b", re.I), "LOCALTIMESTAMP(0)"),
    (re.compile(r"\bsystimestamp\b", re.I), "CURRENT_TIMESTAMP"),
    (re.compile(r"\bvarchar2\s*\(\s*(\d+)\s*(?:byte|char)?\s*\)", re.I), r"varchar(\1)"),
    (re.compile(r"\bnumber\b", re.I), "numeric"),
    (re.compile(r"\bclob\b", re.I), "text"),
    (re.compile(r"\s+purge\s*$", re.I), ""),
    (re.compile(r"\bcascade\s+constraints\b", re.I), "CASCADE"),
    # Oracle's public synonyms of the extension's views in another schema than dbms_cloud_ai
    (re.compile(r"(?<![.\w])user_cloud_pipelines\b", re.I), "dbms_cloud.user_cloud_pipelines"),
    # Oracle's dictionary views of the user's own tables: the current schema's, names in
    # upper case as Oracle keeps unquoted names (the suite reads a dropped index's $VECTAB).
    (re.compile(r"\bfrom\s+user_tables\b", re.I),
     "FROM (SELECT upper(tablename) AS table_name FROM pg_catalog.pg_tables "
     "WHERE schemaname = current_schema()) user_tables"),
    (re.compile(r"\bfrom\s+user_tab_columns\b", re.I),
     "FROM (SELECT upper(table_name) AS table_name, upper(column_name) AS column_name, "
     "ordinal_position AS column_id, upper(data_type) AS data_type "
     "FROM information_schema.columns WHERE table_schema = current_schema()) user_tab_columns"),
]


def _rewrite(text: str) -> str:
    m = _CONNECT_BY.match(text)
    if m:
        return f"SELECT {m['cols']} FROM generate_series(1, {m['n']}) AS connect_by(level)"
    text = _regexp_like(_sys_context(_json_value(text)))
    out = []
    for chunk, quoted in _split_quoted(text):
        if not quoted:
            for pattern, repl in _SIMPLE:
                chunk = pattern.sub(repl, chunk)
            chunk = _DICTIONARY_NAME.sub(_dictionary_view, chunk)
        out.append(chunk)
    return "".join(out)


# Oracle's data dictionary views that scripts for the SDK read, over PostgreSQL's catalog and
# the extension's views.  A user is a login role (see _user_steps), named as _ORACLE_NAME_SQL.
_DICTIONARY = {
    # DBA_USERS / ALL_USERS: the login roles.
    "dba_users": "SELECT " + _ORACLE_NAME_SQL.format("r.rolname::text") + " AS username, "
                 "r.oid::bigint AS user_id, 'OPEN'::text AS account_status, "
                 "r.rolvaliduntil AS expiry_date, NULL::timestamptz AS created "
                 "FROM pg_catalog.pg_roles r WHERE r.rolcanlogin",
    "all_users": "SELECT " + _ORACLE_NAME_SQL.format("r.rolname::text") + " AS username, "
                 "r.oid::bigint AS user_id, NULL::timestamptz AS created "
                 "FROM pg_catalog.pg_roles r WHERE r.rolcanlogin",
    # USER_CREDENTIALS: the caller's credentials, ENABLED as Oracle's 'TRUE' / 'FALSE'.
    "user_credentials": "SELECT c.credential_name, c.username, NULL::text AS windows_domain, "
                        "NULL::text AS comments, CASE WHEN c.enabled THEN 'TRUE' ELSE 'FALSE' END "
                        "AS enabled FROM dbms_cloud.user_credentials c",
    # ALL_CREDENTIALS: the caller's credentials, and those the caller can use through a profile
    # shared with it (the extension's only way to use another role's credential); of those the
    # owner and name show, never more (docs/reference/profile-sharing.md).
    "all_credentials": "SELECT " + _ORACLE_NAME_SQL.format("current_user::text") + " AS owner, "
                       "c.credential_name, c.username, NULL::text AS windows_domain, "
                       "NULL::text AS comments, CASE WHEN c.enabled THEN 'TRUE' ELSE 'FALSE' END "
                       "AS enabled FROM dbms_cloud.user_credentials c UNION "
                       "SELECT " + _ORACLE_NAME_SQL.format("a.owner") + ", "
                       "CASE WHEN pg_catalog.btrim(a.attribute_value) ~ '^\".+\"$' "
                       "THEN pg_catalog.btrim(pg_catalog.btrim(a.attribute_value), '\"') "
                       "ELSE pg_catalog.upper(pg_catalog.btrim(a.attribute_value)) END, "
                       "NULL, NULL, NULL, NULL "
                       "FROM dbms_cloud_ai.all_cloud_ai_profile_attributes a "
                       "WHERE a.attribute_name = 'credential_name' AND a.owner <> current_user",
    # USER_CLOUD_AI_PROFILES and their attributes: the extension's views of the same names
    # (Oracle's public synonyms; status already ENABLED / DISABLED).
    "user_cloud_ai_profiles": "SELECT p.profile_id, p.profile_name, p.status, p.description, "
                              "p.created, p.last_modified FROM dbms_cloud_ai.user_cloud_ai_profiles p",
    "user_cloud_ai_profile_attributes": "SELECT a.profile_id, a.profile_name, a.attribute_name, "
                                        "a.attribute_value "
                                        "FROM dbms_cloud_ai.user_cloud_ai_profile_attributes a",
    # DBA_HOST_ACES: the extension's host ACEs, privileges in Oracle's upper case.
    "dba_host_aces": "SELECT a.host, a.lower_port, a.upper_port, "
                     + _ORACLE_NAME_SQL.format("a.principal_name") + " AS principal, "
                     "'DATABASE'::text AS principal_type, 'GRANT'::text AS grant_type, "
                     "'NO'::text AS inverted_principal, pg_catalog.upper(a.privilege) AS privilege, "
                     "a.created AS start_date, NULL::timestamptz AS end_date "
                     "FROM dbms_cloud_ai.dba_host_aces a",
}
# Only where a query reads them (after FROM or JOIN): a table of the user's own may share a name.
_DICTIONARY_NAME = re.compile(r"\b(from|join)(\s+)(?:sys\.)?(" + "|".join(_DICTIONARY)
                              + r")\b(?![.$])", re.I)


def _dictionary_view(m: re.Match) -> str:
    name = m.group(3).lower()
    return f"{m.group(1)}{m.group(2)}({_DICTIONARY[name]}) AS {name}"


# SYS_CONTEXT('USERENV', ...): the parameters scripts ask for, from PostgreSQL's session.
_USERENV = {
    "current_schema": _ORACLE_NAME_SQL.format("pg_catalog.current_schema()::text"),
    "current_user": _ORACLE_NAME_SQL.format("current_user::text"),
    "session_user": _ORACLE_NAME_SQL.format("session_user::text"),
    "current_schemaid": "(SELECT oid::bigint FROM pg_catalog.pg_namespace "
                        "WHERE nspname = pg_catalog.current_schema())",
    "db_name": "pg_catalog.current_database()::text",
    "service_name": "pg_catalog.current_database()::text",
    "instance_name": "COALESCE(NULLIF(pg_catalog.current_setting('cluster_name'), ''), "
                     "pg_catalog.current_database())::text",
    "server_host": "pg_catalog.inet_server_addr()::text",
    "ip_address": "pg_catalog.inet_client_addr()::text",
    "sid": "pg_catalog.pg_backend_pid()",
    "sessionid": "pg_catalog.pg_backend_pid()",
    "language": "pg_catalog.current_setting('lc_messages')",
}
_SYS_CONTEXT = re.compile(r"\bsys_context\s*\(\s*'userenv'\s*,\s*'(\w+)'\s*\)", re.I)


def _sys_context(text: str) -> str:
    def value(m: re.Match) -> str:
        expr = _USERENV.get(m.group(1).lower())
        return m.group(0) if expr is None else f"({expr})"
    return _SYS_CONTEXT.sub(value, text)


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


# REGEXP_LIKE(source, pattern[, 'flags']) of plain operands (a column, a bind, a literal):
# PostgreSQL's ~ (~* with the flag i); Oracle's and PostgreSQL's regular expressions agree on
# what names are matched against.
_REGEXP_LIKE = re.compile(r"\bregexp_like\s*\(\s*([\w.:$#]+|'(?:[^']|'')*')\s*,"
                          r"\s*([\w.:$#]+|'(?:[^']|'')*')\s*(?:,\s*'(\w*)'\s*)?\)", re.I)


def _regexp_like(text: str) -> str:
    def operator(m: re.Match) -> str:
        op = "~*" if "i" in (m.group(3) or "").lower() else "~"
        return f"({m.group(1)} {op} {m.group(2)})"
    return _REGEXP_LIKE.sub(operator, text)


_ORACLE_OWNER = re.compile(r"^c##cloud\$service\.", re.I)
_AGENT_CALL = re.compile(r"^\s*(?:select|begin)\s+(?:c##cloud\$service\.)?dbms_cloud_ai_agent\.(\w+)",
                         re.I)
_AGENT_KINDS = ("agent", "task", "tool", "team")
_AGENT_FUNCTION_KIND = {"list_tools": "team"}


def _agent_topic(text: str, binds=None) -> str:
    """The kind a DBMS_CLOUD_AI_AGENT call is about (its errors' ORA number), else "cursor"."""
    m = _AGENT_CALL.match(text)
    if not m:
        return "cursor"
    function = m.group(1).lower()
    kind = _AGENT_FUNCTION_KIND.get(function, function.rpartition("_")[2])
    if kind in _AGENT_KINDS:
        return kind
    # SET_ATTRIBUTE(S), GET_DEFINITION: the object_type argument says
    for key, value in (binds.items() if isinstance(binds, dict) else ()):
        if key.lower().endswith("object_type") and str(value).lower() in _AGENT_KINDS:
            return str(value).lower()
    return "cursor"


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


# --- PL/SQL functions -------------------------------------------------------------------------

# CREATE [OR REPLACE] FUNCTION name [(arg [IN] type, ...)] RETURN type IS|AS [declarations]
# BEGIN body END [name]: the functions scripts write for custom agent tools, as PL/pgSQL.
_FUNCTION = re.compile(
    r"^create\s+(?P<replace>or\s+replace\s+)?function\s+(?P<name>[\w$#.]+)\s*"
    r"(?:\((?P<args>[^()]*(?:\([^()]*\)[^()]*)*)\))?\s*return\s+(?P<returns>\w+(?:\s*\(\s*\d+\s*\))?)"
    r"\s+(?:is|as)\b(?P<declarations>.*?)\bbegin\b(?P<body>.*)\bend\b(?:\s+\w+)?\s*$", re.I | re.S)
_ARGUMENT = re.compile(r"^\s*(?P<name>\w+)\s+(?:in\s+)?(?P<type>\w+(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?)"
                       r"\s*$", re.I)
# Oracle's scalar types as PostgreSQL's; DATE keeps its time of day, as Oracle's does.
_PLSQL_TYPES = {"varchar2": "text", "varchar": "text", "nvarchar2": "text", "char": "text",
                "clob": "text", "number": "numeric", "integer": "integer", "pls_integer": "integer",
                "binary_integer": "integer", "date": "timestamp(0)", "timestamp": "timestamp",
                "boolean": "boolean", "float": "double precision"}


def _plsql_type(text: str) -> str:
    base = text.split("(")[0].strip().lower()
    if base not in _PLSQL_TYPES:
        raise database_error(6550, f"PL/SQL type not supported by select_ai's Oracle dialect: {text}")
    return _PLSQL_TYPES[base]


def _plsql_function(text: str) -> str | None:
    m = _FUNCTION.match(text)
    if not m:
        return None
    args = []
    for arg in filter(str.strip, (m["args"] or "").split(",")):
        a = _ARGUMENT.match(arg)
        if not a:
            raise database_error(6550, f"PL/SQL argument not supported: {arg.strip()[:60]}")
        args.append(f"{a['name']} {_plsql_type(a['type'])}")
    declarations = _months_between(_rewrite(m["declarations"].strip()))
    body = _months_between(_rewrite(m["body"].strip()))
    if "$oracle$" in body or "$oracle$" in declarations:
        raise database_error(6550, "PL/SQL body not supported: it holds $oracle$")
    return (f"CREATE {'OR REPLACE ' if m['replace'] else ''}FUNCTION {m['name']}({', '.join(args)}) "
            f"RETURNS {_plsql_type(m['returns'])} LANGUAGE plpgsql AS $oracle$\n"
            + (f"DECLARE\n{declarations}\n" if declarations else "")
            + f"BEGIN\n{body}\nEND\n$oracle$")


def _months_between(text: str) -> str:
    """MONTHS_BETWEEN(a, b): months from b to a, with the days as a fraction of 31 (Oracle's)."""
    def months(a: str, b: str) -> str:
        age = f"pg_catalog.age(({a})::timestamp, ({b})::timestamp)"
        return (f"(EXTRACT(YEAR FROM {age}) * 12 + EXTRACT(MONTH FROM {age}) "
                f"+ EXTRACT(DAY FROM {age}) / 31.0)")
    return _replace_calls(text, "months_between", months)


def _replace_calls(text: str, name: str, build) -> str:
    """Each name(a, b, ...) of the text, outside quotes, as build(a, b, ...)."""
    pattern = re.compile(r"\b" + name + r"\s*\(", re.I)
    while True:
        m = pattern.search(text)
        if not m:
            return text
        depth, i, start, args = 1, m.end(), m.end(), []
        while i < len(text) and depth:
            c = text[i]
            if c == "'":
                i = text.index("'", i + 1)
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif c == "," and depth == 1:
                args.append(text[start:i].strip())
                start = i + 1
            i += 1
        args.append(text[start:i - 1].strip())
        text = text[:m.start()] + build(*args) + text[i:]


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
            name, topic = _package(name.strip())
            sql, params = _bind(f"SELECT {name}({args.rstrip()[:-1] if args else ''})",
                                _used_binds(stmt, binds))
            inner = [Step(sql, params, commit_after=True, topic=topic)]
        else:
            raise database_error(6550, f"PL/SQL statement not supported: {stmt[:60]}")
        for step in inner:
            step.swallow = swallow
        steps.extend(inner)
    return steps


# Oracle packages whose procedures live in another schema here: (schema, errors topic).
# DBMS_CLOUD_PIPELINE's START_PIPELINE and STOP_PIPELINE (a vector index's pipeline) are
# dbms_cloud's functions of those names.
_PACKAGES = {"dbms_cloud_pipeline": ("dbms_cloud", "pipeline")}


def _package(name: str) -> tuple[str, str]:
    """The function a PL/SQL procedure call runs, and the topic of its errors."""
    name = _ORACLE_OWNER.sub("", name)
    package, dot, proc = name.rpartition(".")
    if dot and package.lower() == "dbms_cloud_ai_agent":
        return name, _agent_topic(f"select {name}")
    if dot and package.lower() in _PACKAGES:
        schema, topic = _PACKAGES[package.lower()]
        return f"{schema}.{proc}", topic
    return name, "cursor"


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


# GRANT / REVOKE of the extension's packages, or of a role, to a user named or bound (:user).
# Oracle's EXECUTE on DBMS_CLOUD, DBMS_CLOUD_AI, DBMS_CLOUD_AI_AGENT or DBMS_CLOUD_PIPELINE is
# membership in dbms_cloud_ai_user here, the role holding EXECUTE on the extension's functions.
_PACKAGE = r"(?:(?:sys|c##cloud\$service)\.)?dbms_cloud(?:_ai|_ai_agent|_pipeline)?"
_GRANT_ROLE = re.compile(
    r"^(?P<verb>grant|revoke)\s+(?:execute\s+on\s+(?P<package>" + _PACKAGE + r")|(?P<role>[a-z_]\w*))"
    r"\s+(?:to|from)\s+(?P<name>\"[^\"]+\"|:?\w+)\s*$", re.I)
USER_ROLE = "dbms_cloud_ai_user"


def _grantee(name: str, binds) -> str:
    if not name.startswith(":"):
        return _role(name)
    key = {k.lower(): k for k in binds}.get(name[1:].lower()) if isinstance(binds, dict) else None
    if key is None:
        raise database_error(1008, f"not all variables bound: {name}")
    value = str(binds[key]).strip()
    return value[1:-1] if value.startswith('"') and value.endswith('"') else value.lower()


def _role_grant(text: str, binds) -> list[Step] | None:
    m = _GRANT_ROLE.match(text)
    if m is None or (m["role"] and m["role"].lower() in ("execute", "select", "create", "drop")):
        return None
    role = USER_ROLE if m["package"] else _role(m["role"])
    grant = m["verb"].lower() == "grant"
    statement = pgsql.SQL("GRANT {} TO {}" if grant else "REVOKE {} FROM {}")
    return [Step(statement.format(pgsql.Identifier(role),
                                  pgsql.Identifier(_grantee(m["name"], binds))),
                 commit_before=True, commit_after=True)]


def _user_steps(text: str, binds=None) -> list[Step] | None:
    """CREATE USER / DROP USER / GRANT as PostgreSQL roles (the list: the module docstring).

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
                Step(pgsql.SQL("DROP ROLE {}").format(ident)),
                # the extension's rows of the dropped role (credentials, profiles, ACEs ...)
                # would keep its name from a later user (docs/reference/installing.md)
                Step("SELECT dbms_cloud_ai.drop_role_data(%s)", [role], commit_after=True)]
    m = _GRANT_SYSTEM.match(text)
    if m:
        privs = {" ".join(p.lower().split()) for p in m["privs"].split(",")}
        if privs <= _SYSTEM_PRIVILEGES:
            return []
    return _role_grant(text, binds)
