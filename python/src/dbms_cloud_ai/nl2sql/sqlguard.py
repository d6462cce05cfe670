"""Validate SQL written by a language model before it is run.

``check(sql)`` accepts exactly one read-only query and returns it normalised;
anything else raises a DcaError with the offending SQL in ``detail``:

* ``InvalidParameter`` (22023): the text is not valid PostgreSQL (or is empty,
  too long, too deeply nested, or the second parser cannot read it);
* ``InsufficientPrivilege`` (42501): a valid statement that is not allowed:
  anything but a single SELECT / WITH / VALUES / set operation, a data-modifying
  CTE, ``SELECT INTO``, a locking clause, a function outside the allow-list, a
  relation of the extension's own schemas, a system catalog (unless
  ``allow_catalog``), or a relation outside ``allowed_objects``.

This is defence in depth, not the security boundary: the caller still runs the
query read-only, as the invoker, under a statement timeout and row limits
(``reference/security.md`` section 3.3).

How it decides
--------------
PostgreSQL's own grammar (pglast, i.e. libpg_query) is the authority.  The text
must parse to exactly one ``SelectStmt``; the whole raw parse tree is then
walked and every node type must be on an allow-list of expression and query
nodes (so a statement node anywhere -- a DML CTE -- is refused, as is any node
type a newer grammar adds until it is reviewed).  ``INTO`` and locking clauses
are refused wherever they appear.

Functions are allow-listed, not block-listed: every function call (including
the ones the grammar itself generates, e.g. ``EXTRACT`` or ``AT TIME ZONE``)
must name a built-in in ``ALLOWED_FUNCTIONS``, unqualified or qualified with
``pg_catalog``; any other schema (``dbms_cloud_ai``, ``dbms_cloud``, a user
schema) is refused.  Operators must have a pg_catalog operator's name
(``ALLOWED_OPERATORS``; ``OPERATOR(schema.op)`` only for pg_catalog), type names
in the extension's schemas are refused, and TABLESAMPLE takes only the built-in
``bernoulli`` and ``system`` methods.

sqlglot (``read="postgres"``) gives a second opinion on the normalised text
(what will run; on the text as given where sqlglot lacks a construct PostgreSQL
re-prints, e.g. ``JSON_ARRAY(... ABSENT ON NULL)``): it must read one query
(SELECT, set operation, VALUES) with no DML, DDL, command, ``INTO`` or lock node
and no anonymous function outside the allow-list.  Either parser saying no is a
refusal, and so is sqlglot being unable to read either spelling; sqlglot alone
never makes a query acceptable.  sqlglot's parser backtracks exponentially on
some nestings (``ARRAY[ARRAY[...]]`` doubles per level), so nested brackets are
capped at ``MAX_BRACKET_DEPTH`` and the parse runs under a
``SECOND_PARSER_BUDGET`` time limit; exceeding either is a refusal.

Any unexpected exception inside the checker is turned into a refusal
(``InvalidParameter``, "internal error"): it fails closed.

Bounded parsing
---------------
No text reaches a parser unbounded (pglast builds its Python tree by C
recursion without a depth check: a deep enough text would crash the backend).
An iterative pre-scan with PostgreSQL's scanner (``_nesting``) bounds the
tree's depth and refuses texts above ``MAX_NESTING``; every parse of a longer
text runs on one long-lived thread whose stack (``PARSER_STACK_BYTES``)
covers that bound several times over; Python's recursion ends in a refusal.
``without_trailing_prose`` and ``transpile`` (sqlglot's dialects) are bounded
the same way.  Figures: docs/security.md, "Hostile users", class 1.

What is returned
----------------
``Checked.sql`` is the statement re-printed from PostgreSQL's parse tree:
comments, ``U&""`` / dollar quoting and odd spacing are gone, every function
is qualified with ``pg_catalog`` (so a same-named function earlier on the
search_path cannot be picked up), unqualified relations are qualified with the
schema they were resolved to when ``allowed_objects`` is given, and string
literals holding a backslash are written as ``E''`` strings so the text means
the same whatever ``standard_conforming_strings`` is.  The re-printed text is
parsed again and must give the same tree; run ``Checked.sql``, never the input.
It is parsed with the PostgreSQL 18 grammar; an older server may reject syntax
it does not have (it fails, it does not change meaning).

Unqualified relations are left unqualified when ``allowed_objects`` is not
given: the executor must then run with a search_path that does not contain the
extension's schemas (the check refuses them only when they are written).

What names resolve to -- user-defined operators with a built-in name, casts,
domains and types (they run code of their own), attribute-notation calls
``t.f``, better-matching shadows of allowed functions, views and policies that
call anything -- is decided after this check by ``resolve``, by OID, on
PostgreSQL's analysis of ``Checked.sql``.  Resource use (``generate_series``
over a huge range) is left to the execution layer: a read-only transaction, the
invoker's privileges, ``statement_timeout`` and row/byte limits.
"""

from __future__ import annotations

import bisect
import ctypes
import importlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import ConfigurationError, InsufficientPrivilege, InvalidParameter

# pglast's modules, imported by _load_pglast() on first use (see there).
A = E = _pgparser = _pgstream = None

MAX_SQL_CHARS = 100_000
DETAIL_CHARS = 500
# Explanation a model's reply may carry after its SQL: a longer reply is not
# parsed by prose stripping at all (check then refuses it as too long).
MAX_PROSE_CHARS = 20_000
# Bound of the pre-scan (_nesting): counted tokens along the deepest chain of
# brackets.  pglast turns libpg_query's tree into Python objects by C
# recursion with no depth check; measured worst case about 420 bytes of stack
# per unit (nested subqueries), so 5000 units need about 2 MB.
MAX_NESTING = 5_000
# Stack of the parser thread, on which every parse (C and Python) runs: the
# bound above with a margin of several times, plus Python's own recursion
# (PY_RECURSION_LIMIT frames) -- docs/security.md, "Hostile users", class 1.
PARSER_STACK_BYTES = 16 << 20
PY_RECURSION_LIMIT = 1_000
# A text with at most this many characters that are not white space is checked
# on the calling thread: its tree is at most that deep, and the whole check of
# the worst such text needs under 200 KB of stack (measured), less than the
# 512 KB PostgreSQL keeps free below max_stack_depth.  Saves the handoff.
INLINE_CHARS = 500
# Parses of candidate prefixes when stripping trailing prose (plus the whole text).
STRIP_PARSES = 4
MAX_BRACKET_DEPTH = 8          # nested [ ]: sqlglot is exponential in it
# CPU seconds (this thread's) sqlglot may spend on one statement: CPU time, not
# wall time, so a busy server that preempts the backend does not refuse a plain query
SECOND_PARSER_BUDGET = 0.5

EXTENSION_SCHEMAS = frozenset({"dbms_cloud", "dbms_cloud_ai"})
CATALOG_SCHEMAS = frozenset({"pg_catalog", "information_schema", "pg_toast"})

# ---------------------------------------------------------------------------
# Function allow-list.  Names as PostgreSQL stores them (lower case); a call is
# allowed when its name is here and it is unqualified or qualified with
# pg_catalog.  Everything listed is a side-effect-free built-in of pg_catalog.
#
# Deliberately absent (refused), with the reason:
#   writes / state:   nextval setval currval lastval set_config setseed
#                     txid_current pg_current_xact_id (assign an XID),
#                     lo_* loread lowrite (large objects), pg_notify,
#                     pg_advisory_* pg_try_advisory_* (locks outlive the query),
#                     pg_stat_reset* pg_stat_statements_reset, brin_summarize_*,
#                     gin_clean_pending_list, pg_logical_emit_message,
#                     pg_create_*_slot, pg_switch_wal, pg_reload_conf ...
#   waiting:          pg_sleep pg_sleep_for pg_sleep_until
#   server files:     pg_read_file pg_read_binary_file pg_stat_file pg_ls_*
#                     pg_current_logfile lo_import lo_export
#   other sessions:   pg_terminate_backend pg_cancel_backend
#                     pg_log_backend_memory_contexts
#   run SQL text:     query_to_xml* cursor_to_xml* table_to_xml* schema_to_xml*
#                     database_to_xml* ts_stat ts_rewrite, dblink* (also network)
#   read settings / catalog state not needed for analytics:
#                     current_setting pg_settings_get_flags version
#                     pg_get_*def pg_relation_size pg_table_size ... has_*_privilege
#   any function outside pg_catalog: the extension's dbms_cloud_ai.* and
#                     dbms_cloud.*, extensions' functions, user functions.
# Allowed although volatile: random(), gen_random_uuid(), clock_timestamp() and
# friends (they read a clock or a PRNG, they change nothing anyone else sees).
# jsonb_set / jsonb_insert / array_append build new values; they write nothing.
# ---------------------------------------------------------------------------
_ALLOWED = """
# aggregates
count sum avg min max array_agg string_agg bool_and bool_or every bit_and bit_or
bit_xor stddev stddev_pop stddev_samp variance var_pop var_samp corr covar_pop
covar_samp regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx
regr_sxy regr_syy percentile_cont percentile_disc mode any_value range_agg
range_intersect_agg json_agg jsonb_agg json_object_agg jsonb_object_agg
json_agg_strict jsonb_agg_strict json_object_agg_strict jsonb_object_agg_strict
json_object_agg_unique jsonb_object_agg_unique json_object_agg_unique_strict
jsonb_object_agg_unique_strict xmlagg
# window functions
row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value
last_value nth_value
# math
abs cbrt ceil ceiling degrees div exp factorial floor gcd lcm ln log log10
min_scale mod pi power pow radians round scale sign sqrt trim_scale trunc
width_bucket random random_normal acos acosd asin asind atan atand atan2 atan2d
cos cosd cot cotd sin sind tan tand sinh cosh tanh asinh acosh atanh erf erfc
gamma lgamma
# strings
length char_length character_length octet_length bit_length lower upper initcap
casefold btrim ltrim rtrim substr substring left right lpad rpad repeat replace
reverse split_part strpos position concat concat_ws format regexp_match
regexp_matches regexp_replace regexp_split_to_array regexp_split_to_table
regexp_count regexp_instr regexp_like regexp_substr translate ascii chr md5
sha224 sha256 sha384 sha512 crc32 crc32c encode decode to_hex to_bin to_oct
quote_ident quote_literal quote_nullable starts_with string_to_array
string_to_table array_to_string normalize is_normalized unistr overlay
convert convert_from convert_to to_ascii like_escape similar_escape
similar_to_escape pg_collation_for get_byte get_bit bit_count
# formatting
to_char to_number to_date to_timestamp
# date and time
age clock_timestamp date_add date_bin date_part date_subtract date_trunc extract
isfinite justify_days justify_hours justify_interval make_date make_interval
make_time make_timestamp make_timestamptz now statement_timestamp timeofday
transaction_timestamp timezone overlaps
# conditional and comparison helpers
num_nulls num_nonnulls
# json / jsonb
to_json to_jsonb row_to_json array_to_json json_build_object jsonb_build_object
json_build_array jsonb_build_array json_object jsonb_object json_array_length
jsonb_array_length json_each jsonb_each json_each_text jsonb_each_text
json_extract_path jsonb_extract_path json_extract_path_text
jsonb_extract_path_text json_object_keys jsonb_object_keys json_populate_record
jsonb_populate_record jsonb_populate_record_valid json_populate_recordset
jsonb_populate_recordset json_array_elements jsonb_array_elements
json_array_elements_text jsonb_array_elements_text json_typeof jsonb_typeof
json_to_record jsonb_to_record json_to_recordset jsonb_to_recordset
json_strip_nulls jsonb_strip_nulls jsonb_set jsonb_set_lax jsonb_insert
jsonb_pretty jsonb_path_exists jsonb_path_match jsonb_path_query
jsonb_path_query_array jsonb_path_query_first jsonb_path_exists_tz
jsonb_path_match_tz jsonb_path_query_tz jsonb_path_query_array_tz
jsonb_path_query_first_tz
# xml values (no SQL text, no files)
xpath xpath_exists xml_is_well_formed xml_is_well_formed_document
xml_is_well_formed_content xmlcomment xmltext
# full text search (not ts_stat / ts_rewrite: they take SQL text)
to_tsvector to_tsquery plainto_tsquery phraseto_tsquery websearch_to_tsquery
ts_rank ts_rank_cd ts_headline setweight strip numnode querytree
tsvector_to_array array_to_tsvector ts_delete ts_filter get_current_ts_config
# arrays and set-returning helpers
array_append array_cat array_dims array_fill array_length array_lower
array_upper array_ndims array_position array_positions array_prepend
array_remove array_replace array_reverse array_sample array_shuffle array_sort
cardinality trim_array unnest generate_series generate_subscripts
# ranges
lower_inc upper_inc lower_inf upper_inf isempty range_merge multirange
int4range int8range numrange tsrange tstzrange daterange int4multirange
int8multirange nummultirange tsmultirange tstzmultirange datemultirange
# network values
host hostmask masklen netmask network family abbrev broadcast inet_same_family
inet_merge set_masklen text
# uuid
gen_random_uuid uuidv4 uuidv7 uuid_extract_timestamp uuid_extract_version
# function-style casts (a function named like the type)
date time timestamp timestamptz interval numeric int2 int4 int8 float4 float8
bool varchar bpchar json jsonb uuid inet cidr bytea
# type introspection of a value, session facts with no side effect
pg_typeof pg_column_size current_database current_schema system_user
"""

ALLOWED_FUNCTIONS = frozenset(
    word for line in _ALLOWED.splitlines() if not line.lstrip().startswith("#")
    for word in line.split())

# SQL-standard syntax that PostgreSQL parses into expression nodes (not function
# calls) but sqlglot may show as an anonymous function: tolerated in sqlglot's
# second opinion only.  PostgreSQL's tree is what decides about them.
_SYNTAX_NAMES = frozenset("""
row array xmlattributes xmlelement xmlforest xmlconcat xmlparse xmlpi xmlroot xmlserialize
xmlexists xmlnamespaces json json_array json_object json_arrayagg json_objectagg json_query
json_value json_exists json_scalar json_serialize json_table coalesce nullif greatest least
grouping collation any all some exists
""".split())

# Operator names of pg_catalog (plus the names the grammar gives BETWEEN).  An
# operator is chosen by name and argument types; a name outside this list can
# only be a user-defined operator, which runs a function of its own.
ALLOWED_OPERATORS = frozenset("""
!! !~ !~* !~~ !~~* # ## #- #> #>> % & && &< &<| &> * *< *<= *<> *= *> *>= + - -> ->> -|-
/ < <-> << <<= <<| <= <> <@ <^ = > >= >> >>= >^ ? ?# ?& ?- ?-| ?| ?|| @ @-@ @> @? @@ @@@
^ ^@ | |&> |/ |>> || ||/ ~ ~* ~<=~ ~<~ ~= ~>=~ ~>~ ~~ ~~*
""".split()) | {"BETWEEN", "NOT BETWEEN", "BETWEEN SYMMETRIC", "NOT BETWEEN SYMMETRIC"}

# TABLESAMPLE methods built into PostgreSQL.
ALLOWED_TABLESAMPLE = frozenset({"bernoulli", "system"})

# Raw parse tree nodes that may appear in an accepted query.  Anything else --
# every *Stmt but SelectStmt, IntoClause, LockingClause, ParamRef,
# MultiAssignRef, SetToDefault, and node types this list has not reviewed --
# is refused.
_ALLOWED_NODES = frozenset("""
RawStmt SelectStmt ResTarget ColumnRef A_Star A_Const A_Expr A_Indices A_Indirection
A_ArrayExpr BoolExpr BooleanTest NullTest CaseExpr CaseWhen CoalesceExpr MinMaxExpr
FuncCall NamedArgExpr WindowDef SortBy GroupingSet GroupingFunc TypeCast TypeName
CollateClause SubLink RowExpr SQLValueFunction RangeVar RangeSubselect RangeFunction
RangeTableSample RangeTableFunc RangeTableFuncCol JoinExpr Alias ColumnDef
WithClause CommonTableExpr CTESearchClause CTECycleClause XmlExpr XmlSerialize
String Integer Float Boolean BitString
JsonAggConstructor JsonArgument JsonArrayAgg JsonArrayConstructor
JsonArrayQueryConstructor JsonBehavior JsonFormat JsonFuncExpr JsonIsPredicate
JsonKeyValue JsonObjectAgg JsonObjectConstructor JsonOutput JsonParseExpr
JsonReturning JsonScalarExpr JsonSerializeExpr JsonTable JsonTableColumn
JsonTablePathSpec JsonValueExpr
""".split())

_STATEMENT_NAMES = {
    "InsertStmt": "INSERT", "UpdateStmt": "UPDATE", "DeleteStmt": "DELETE",
    "MergeStmt": "MERGE", "CopyStmt": "COPY", "DoStmt": "DO", "CallStmt": "CALL",
    "ExplainStmt": "EXPLAIN", "VariableSetStmt": "SET/RESET",
    "VariableShowStmt": "SHOW", "ListenStmt": "LISTEN", "UnlistenStmt": "UNLISTEN",
    "NotifyStmt": "NOTIFY", "LockStmt": "LOCK", "VacuumStmt": "VACUUM/ANALYZE",
    "PrepareStmt": "PREPARE", "ExecuteStmt": "EXECUTE", "DeallocateStmt": "DEALLOCATE",
    "TransactionStmt": "transaction control", "TruncateStmt": "TRUNCATE",
    "GrantStmt": "GRANT/REVOKE", "GrantRoleStmt": "GRANT/REVOKE role",
    "CreateTableAsStmt": "CREATE TABLE AS", "DeclareCursorStmt": "DECLARE CURSOR",
    "FetchStmt": "FETCH", "ClosePortalStmt": "CLOSE", "DiscardStmt": "DISCARD",
    "CheckPointStmt": "CHECKPOINT", "LoadStmt": "LOAD", "ClusterStmt": "CLUSTER",
    "ReindexStmt": "REINDEX", "RefreshMatViewStmt": "REFRESH MATERIALIZED VIEW",
    "CreateStmt": "CREATE TABLE", "ViewStmt": "CREATE VIEW", "IndexStmt": "CREATE INDEX",
    "RuleStmt": "CREATE RULE", "DefineStmt": "CREATE AGGREGATE/OPERATOR/TYPE",
    "SecLabelStmt": "SECURITY LABEL", "CreateTrigStmt": "CREATE TRIGGER",
}

_HINT = ("Only one read-only query (SELECT, WITH, VALUES or a set operation) that "
         "calls built-in side-effect-free functions is run.")
_HINT_OBJECTS = "The query may read only the objects in the profile's object_list."

# Slots that hold positions, not meaning: ignored when comparing trees.
_IGNORED_SLOTS = frozenset({"location", "stmt_len", "stmt_location", "funcformat",
                            "rexpr_list_start", "rexpr_list_end", "list_start",
                            "list_end"})


@dataclass(frozen=True)
class Checked:
    """An accepted query.

    ``sql``: the normalised statement to run (no trailing semicolon).
    ``objects``: the relations it reads, as (schema, name); schema is None for
    an unqualified name when no ``allowed_objects`` was given to resolve it.
    ``functions``: the (unqualified) names of the functions it calls.
    ``types``: the type names it writes (casts), as PostgreSQL would print them.
    ``operators``: the operator names it writes (without schema).
    """

    sql: str
    objects: frozenset
    functions: frozenset
    display: str = ""
    types: frozenset = frozenset()
    operators: frozenset = frozenset()

    def __post_init__(self):
        if not self.display:
            object.__setattr__(self, "display", self.sql)


def _load_pglast():
    """Import pglast so that it can run inside a PostgreSQL backend.

    pglast's extension module carries its own copy of PostgreSQL's parser
    (libpg_query).  Loaded the ordinary way into a backend, its calls to
    palloc, MemoryContext* and friends bind to the server's functions of the
    same names, and the first parse crashes the backend (signal 11, so the
    postmaster restarts every session).  RTLD_DEEPBIND makes the module use its
    own copies.  Where the process exports PostgreSQL's parser (i.e. inside a
    backend) pglast must therefore be loaded here first; if something else in
    this session imported it already, refuse instead of crashing.
    """
    global A, E, _pgparser, _pgstream
    if _pgparser is not None:
        return
    in_backend = _process_exports("raw_parser")
    if in_backend:
        loaded = sys.modules.get("pglast.parser")
        if loaded is not None and not getattr(loaded, "_dca_deepbind", False):
            raise ConfigurationError(
                "pglast was imported in this session before dbms_cloud_ai loaded it",
                detail="Loaded that way its parser would crash the server process.",
                hint="Reconnect, and do not import pglast in PL/Python code yourself.")
        deepbind = getattr(os, "RTLD_DEEPBIND", 0)
        if not deepbind:
            raise ConfigurationError("this platform cannot load pglast inside the server",
                                     detail="dlopen has no RTLD_DEEPBIND here.")
        flags = sys.getdlopenflags()
        sys.setdlopenflags(flags | deepbind)
        try:
            importlib.import_module("pglast.parser")._dca_deepbind = True
        finally:
            sys.setdlopenflags(flags)
    # importlib, not an import statement: pglast is loaded only here, under the
    # flags above, and only by the first call that checks SQL (cold start).
    A = importlib.import_module("pglast.ast")
    E = importlib.import_module("pglast.enums")
    _pgstream = importlib.import_module("pglast.stream")
    _pgparser = importlib.import_module("pglast.parser")


def _process_exports(symbol: str) -> bool:
    try:
        return hasattr(ctypes.CDLL(None), symbol)
    except OSError:
        return False


# --- bounded parsing -----------------------------------------------------------

# Tokens that never add a level to the tree by themselves: names, constants,
# list separators and qualification dots, comments.  Everything else (an
# operator, a keyword, a bracket) is counted.
_FREE_TOKENS = frozenset({"IDENT", "UIDENT", "ICONST", "FCONST", "SCONST", "USCONST",
                          "BCONST", "XCONST", "PARAM", "ASCII_44", "ASCII_46", "ASCII_59",
                          "SQL_COMMENT", "C_COMMENT"})
_OPENERS = frozenset({"ASCII_40", "ASCII_91"})    # ( [
_CLOSERS = frozenset({"ASCII_41", "ASCII_93"})    # ) ]

PARSES = 0   # parse_sql calls of this process (tests read it: prose stripping stays cheap)


def _nesting(text: str) -> int:
    """An upper bound (up to a constant factor) of the depth of ``text``'s parse
    tree, computed without recursion from PostgreSQL's own scanner (so quotes,
    dollar quotes, comments and E'' strings are read exactly as the parser
    reads them).

    A node of the tree spans contiguous tokens and a bracket pair belongs to
    one production, so a path from the root stays at one bracket level until
    it enters one bracket group, for good.  Each step down at a level needs
    one of its counted tokens (operators chain without brackets: ``a||a||a``),
    so the depth is at most the sum, along the deepest chain of nested
    brackets, of the counted tokens of each level.
    """
    levels = [[0, 0]]           # per open bracket: [counted tokens, deepest group inside]
    for tok in _pgparser.scan(text):
        name = tok.name
        if name in _OPENERS:
            levels[-1][0] += 1
            levels.append([0, 0])
        elif name in _CLOSERS:
            levels[-1][0] += 1
            if len(levels) > 1:
                count, inner = levels.pop()
                levels[-1][1] = max(levels[-1][1], count + inner)
        elif name not in _FREE_TOKENS:
            levels[-1][0] += 1
    while len(levels) > 1:      # unclosed brackets: the parser refuses, count them anyway
        count, inner = levels.pop()
        levels[-1][1] = max(levels[-1][1], count + inner)
    return levels[0][0] + levels[0][1]


_last_nesting: tuple[str, int] = ("", 0)


def _solid(text: str) -> int:
    """Characters of ``text`` that are not white space to PostgreSQL's scanner:
    every token holds at least one, so no tree is deeper than this."""
    return len(text) - sum(map(text.count, " \t\n\r\f\v"))


def _depth(text: str) -> int:
    """_nesting(text), without scanning when the text is too short to be deep.
    The last long text's count is kept (a reply is bounded by prose
    stripping, check and the transpiler in turn)."""
    global _last_nesting
    if _solid(text) <= MAX_NESTING:
        return 0
    last, depth = _last_nesting
    if text != last:
        depth = _nesting(text)
        _last_nesting = (text, depth)
    return depth


def _bounded(text: str, sql: str):
    """Refuse ``text`` (part of ``sql``) before a parser sees it when it is too
    long or nested more deeply than the parser thread's stack covers."""
    if len(text) > MAX_SQL_CHARS:
        _invalid(f"SQL is longer than {MAX_SQL_CHARS} characters", sql)
    try:
        depth = _depth(text)
    except _pgparser.ParseError as e:   # the scanner's error is the parser's too
        _invalid(f"SQL is not valid PostgreSQL: {e}", sql)
    if depth > MAX_NESTING:
        _invalid(f"SQL is nested too deeply ({depth} levels counted, at most "
                 f"{MAX_NESTING})", sql)


def _parse(text: str, sql: str):
    """pglast's parse of ``text``, bounded first (call on the parser thread)."""
    global PARSES
    _bounded(text, sql)
    PARSES += 1
    return _pgparser.parse_sql(text)


class _ParserThread:
    """A long-lived thread (one per process) with a stack of PARSER_STACK_BYTES
    on which the checks run: the backend's own stack (8 MB at most, shared with
    the server) is never used by a parser.  It runs with every signal blocked,
    so the server's signal handlers keep running on the main thread, and it
    never calls plpy.  Started on first use; a call is handed over with two
    locks (about 20 us; a new thread per call costs about 150 us).
    """

    def __init__(self):
        self.broken = False
        self._calls = threading.Lock()           # one caller at a time
        self._go, self._back = threading.Lock(), threading.Lock()
        self._go.acquire()
        self._back.acquire()
        self._job = self._result = None
        previous = threading.stack_size(PARSER_STACK_BYTES)
        try:
            mask = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
            try:   # the new thread inherits the mask: no signal reaches it
                self.thread = threading.Thread(target=self._serve, daemon=True,
                                               name="dbms_cloud_ai sql parser")
                self.thread.start()
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        finally:
            threading.stack_size(previous)

    def _serve(self):
        while True:
            self._go.acquire()
            fn, args = self._job
            try:
                self._result = (True, fn(*args))
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                self._result = (False, e)
            self._job = fn = args = None
            self._back.release()

    def run(self, fn, args):
        with self._calls:
            self._job = (fn, args)
            self._go.release()
            try:
                self._back.acquire()
            except BaseException:   # interrupted while waiting: never reuse this thread
                self.broken = True
                raise
            (ok, value), self._result = self._result, None
        if ok:
            return value
        raise value


_parser_thread: _ParserThread | None = None
_parser_thread_lock = threading.Lock()


def _bounded_call(text, fn, *args):
    """``fn(*args)``, which parses ``text``: on this thread when the text is
    short (INLINE_CHARS), else on the parser thread."""
    if isinstance(text, str) and _solid(text) <= INLINE_CHARS:
        return fn(*args)
    return _on_parser_thread(fn, *args)


def _on_parser_thread(fn, *args):
    """``fn(*args)`` on the parser thread; its exception is raised here."""
    global _parser_thread
    thread = _parser_thread
    if thread is not None and threading.current_thread() is thread.thread:
        return fn(*args)
    if thread is None or thread.broken or not thread.thread.is_alive():
        with _parser_thread_lock:
            thread = _parser_thread
            if thread is None or thread.broken or not thread.thread.is_alive():
                try:
                    thread = _parser_thread = _ParserThread()
                except (RuntimeError, OSError, MemoryError) as e:  # fail closed
                    raise InvalidParameter(
                        f"SQL could not be checked: no parser thread ({e})",
                        hint="The server is short of memory or threads; try again.") from None
    # The recursion limit is per process: the stack covers this many frames.
    limit = sys.getrecursionlimit()
    if limit > PY_RECURSION_LIMIT:
        sys.setrecursionlimit(PY_RECURSION_LIMIT)
    try:
        return thread.run(fn, args)
    finally:
        if limit > PY_RECURSION_LIMIT:
            sys.setrecursionlimit(limit)


def check(sql: str, *, allowed_objects: Iterable[tuple[str, str]] | None = None,
          search_path: list[str] | None = None, allow_catalog: bool = False,
          fold: Mapping[str, str] | None = None) -> Checked:
    """Return the normalised single read-only query in ``sql`` or raise.

    ``allowed_objects``: when given (Oracle's enforce_object_list), every
    relation read must be one of these (schema, name) pairs, names as the
    catalog stores them (unquoted identifiers folded to lower case).  An
    unqualified name means the one allowed pair of that name; when several
    have it, the first schema of ``search_path`` among them (schema names as
    stored; ``$user`` entries are skipped: expand them first), else it is
    refused as ambiguous, naming each.  The
    normalised SQL carries the resolved schema, so PostgreSQL reads what was
    checked (not a pg_temp or earlier search_path table of the same name).
    CTE names are not relations.

    ``allow_catalog``: allow pg_catalog / information_schema / pg_toast
    relations (and unqualified pg_* names).  The extension's own schemas are
    refused whatever the flags.

    ``fold``: catalog names by their lower-case form.  A model writing another
    dialect quotes upper-case names (Oracle's ``"SH"."CUSTOMERS"``); a relation,
    column, alias or CTE name that is not a catalog name but whose lower-case
    form maps to one is replaced by it before anything else is checked.
    """
    _load_pglast()
    return _bounded_call(sql, _guarded_check, sql, allowed_objects, search_path, allow_catalog,
                         fold)


def _guarded_check(sql, allowed_objects, search_path, allow_catalog, fold) -> Checked:
    try:
        return _check(sql, allowed_objects, search_path, allow_catalog, fold)
    except (InsufficientPrivilege, InvalidParameter):
        raise
    except RecursionError:
        _invalid("SQL is nested too deeply", sql)
    except Exception as e:  # fail closed: a bug here refuses, it never accepts
        _invalid(f"SQL could not be checked (internal error: {type(e).__name__})", sql)


def _check(sql, allowed_objects, search_path, allow_catalog, fold=None) -> Checked:
    if not isinstance(sql, str):
        raise InvalidParameter("SQL to check must be text", hint=_HINT)
    if "\x00" in sql:
        _invalid("SQL contains a NUL character", sql)
    if len(sql) > MAX_SQL_CHARS:
        _invalid(f"SQL is longer than {MAX_SQL_CHARS} characters", sql)

    # 1. PostgreSQL's grammar: exactly one SELECT statement.
    try:
        stmts = _parse(sql, sql)
    except _pgparser.ParseError as e:
        _invalid(f"SQL is not valid PostgreSQL: {e}", sql)
    except InvalidParameter:   # too long or nested too deeply: refused before parsing
        raise
    except RecursionError:
        _invalid("SQL is nested too deeply", sql)
    except Exception as e:  # a pglast failure we did not foresee: fail closed
        _invalid(f"SQL could not be parsed ({type(e).__name__})", sql)
    if not stmts:
        _invalid("SQL contains no statement", sql)
    if len(stmts) != 1:
        _refuse(f"SQL contains {len(stmts)} statements; exactly one is allowed", sql)
    stmt = stmts[0].stmt
    if not isinstance(stmt, A.SelectStmt):
        kind = _STATEMENT_NAMES.get(type(stmt).__name__) or _stmt_kind(stmt)
        _refuse(f"{kind} statements are not allowed", sql)

    if fold:
        _fold_names(stmts[0], fold)

    # 2. The whole tree: allowed nodes, functions, relations.
    objects = _Objects(allowed_objects, search_path, allow_catalog)
    walker = _Walker(sql, objects)
    walker.visit(stmts[0], frozenset())

    # 3. Re-print, re-parse, compare: the text to run means what was checked.
    normalised = _normalise(stmts[0], sql)

    # 4. sqlglot's opinion on that text: count, kind, forbidden nodes.
    _second_opinion(normalised, sql)
    return Checked(normalised, frozenset(objects.seen), frozenset(walker.functions),
                   _display(normalised), frozenset(walker.types), frozenset(walker.operators))


def _fold_names(root, fold: Mapping[str, str]):
    """Replace relation and column references that match a catalog name only
    case-insensitively (``"CUSTOMERS"`` for customers).  Names the query
    defines itself -- column and table aliases, CTE names -- are left as
    written, and so are references to them."""
    defined: set[str] = set()
    for node in _nodes(root):
        kind = type(node).__name__
        if kind == "ResTarget" and node.name:
            defined.add(node.name)
        elif kind == "Alias":
            defined.add(node.aliasname)
            defined.update(c.sval for c in node.colnames or () if isinstance(c, A.String))
        elif kind == "CommonTableExpr":
            defined.add(node.ctename)
            defined.update(c.sval for c in node.aliascolnames or () if isinstance(c, A.String))
    known = set(fold.values()) | defined

    def f(name):
        if name is None or name in known:
            return name
        return fold.get(name.lower(), name)

    for node in _nodes(root):
        kind = type(node).__name__
        if kind == "RangeVar":
            node.schemaname, node.relname = f(node.schemaname), f(node.relname)
        elif kind == "ColumnRef":
            for item in node.fields or ():
                if isinstance(item, A.String):
                    item.sval = f(item.sval)


def _nodes(root):
    """Every AST node under ``root`` (children are read after the caller saw
    the parent, so the caller may change a node's fields as it goes)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, tuple):
            stack.extend(node)
            continue
        if not isinstance(node, A.Node):
            continue
        yield node
        for slot in node.__slots__:
            value = getattr(node, slot)
            if isinstance(value, (A.Node, tuple)):
                stack.append(value)


_SQL_SYNTAX = 3    # CoercionForm.COERCE_SQL_SYNTAX: EXTRACT(x FROM y), POSITION(a IN b), ...


def _display(normalised: str) -> str:
    """The accepted query laid out for people: one clause per line, built-in
    functions without their pg_catalog prefix (the normalised text keeps it).

    The printer writes EXTRACT(x FROM y) and POSITION(a IN b) in their SQL
    syntax only for the qualified name; unqualified it writes extract('x', y),
    which PostgreSQL cannot parse.  So the layout must parse again: if it does
    not, those functions keep their prefix, and failing that the checked text
    is shown."""
    try:
        for keep_sql_syntax in (False, True):
            stmt = _parse(normalised, normalised)[0].stmt
            for node in _nodes(stmt):
                if isinstance(node, A.FuncCall) and len(node.funcname) == 2 \
                        and node.funcname[0].sval == "pg_catalog" \
                        and not (keep_sql_syntax and node.funcformat == _SQL_SYNTAX):
                    node.funcname = node.funcname[1:]
            shown = _e_strings(_pgstream.IndentedStream(comma_at_eoln=True)(stmt))
            try:
                _parse(shown, shown)
            except Exception:  # noqa: BLE001 - not valid SQL as laid out: try again
                continue
            return shown
    except Exception:  # noqa: BLE001 - layout is cosmetic: fall back to the checked text
        pass
    return normalised


def rewrite(sql: str, edit) -> str | None:
    """``sql``, a text ``check`` returned, parsed; ``edit(stmt)`` may change the
    tree and returns whether it did; the tree re-printed when it did, else None.
    The new text is not checked: give it to ``check`` (nl2sql/fixes.py)."""
    _load_pglast()

    def run():
        stmt = _parse(sql, sql)[0].stmt
        return _e_strings(_pgstream.RawStream()(stmt)) if edit(stmt) else None
    return _bounded_call(sql, run)


def without_trailing_prose(text: str) -> str:
    """``text`` without explanation after the SQL, when there is some.

    Text that parses is returned as it is, however many statements it holds
    (so that ``check`` refuses the extra ones).  Otherwise trailing lines are
    dropped, then trailing scanner-split statements, until what is left
    parses; if nothing does, ``text`` comes back unchanged and ``check`` will
    report the syntax error.

    The cost is bounded: text longer than MAX_SQL_CHARS + MAX_PROSE_CHARS
    comes back unchanged before anything parses it (``check`` refuses it as
    too long: a cut text could parse as a shorter query), so does text nested
    too deeply (``check`` refuses it), and at most 1 + 2 * STRIP_PARSES bounded parses
    run: each candidate is the longest prefix that ends before the position
    where the previous parse failed (a prefix that parses is a prefix of
    tokens the parser accepted, so no longer one is skipped).
    """
    if not isinstance(text, str):
        return text
    if len(text) > MAX_SQL_CHARS + MAX_PROSE_CHARS:
        return text
    _load_pglast()
    return _bounded_call(text, _strip_prose, text)


class _TooDeep(Exception):
    pass


def _failure(candidate: str) -> int | None:
    """None when ``candidate`` parses (to at least one statement), else the
    index where parsing failed (its length when the parser gives none)."""
    global PARSES
    if not candidate.strip():
        return 0
    try:
        if _depth(candidate) > MAX_NESTING:
            raise _TooDeep()
        PARSES += 1
        return None if _pgparser.parse_sql(candidate) else 0
    except _pgparser.ParseError as e:
        at = e.args[1] if len(e.args) > 1 and isinstance(e.args[1], int) else 0
        return at if 0 < at <= len(candidate) else len(candidate)
    except _TooDeep:
        raise
    except Exception:  # noqa: BLE001 - any failure means "not SQL"
        return len(candidate)


def _strip_prose(text: str) -> str:
    try:
        return _strip(text)
    except _TooDeep:   # check refuses the whole text
        return text


def _strip(text: str) -> str:
    failed = whole = _failure(text)
    if failed is None:
        return text
    # Trailing lines: the longest "\n".join(lines[:k]) that parses; never a
    # line at or after the failure position.
    lines = text.splitlines()
    starts = _starts(text.splitlines(keepends=True))
    k = len(lines)
    for _ in range(STRIP_PARSES):
        k = min(k - 1, bisect.bisect_right(starts, failed) - 1)
        if k < 1:
            break
        candidate = "\n".join(lines[:k])
        failed = _failure(candidate)
        if failed is None:
            return candidate
        starts = _starts([line + "\n" for line in lines[:k]])
    # Trailing statements (split by the scanner: prose may hold a semicolon).
    try:
        parts = _pgparser.split(text, with_parser=False, only_slices=True)
    except Exception:  # noqa: BLE001 - unbalanced quotes in prose
        return text
    failed, ends, k = whole, [p.stop for p in parts], len(parts)
    for _ in range(STRIP_PARSES):
        k = min(k - 1, bisect.bisect_right(ends, failed))
        if k < 1:
            break
        candidate = ";\n".join(text[p] for p in parts[:k])
        failed = _failure(candidate)
        if failed is None:
            return candidate
        failed = _original_position(parts, failed)
    return text


def _starts(lines_with_ends: list[str]) -> list[int]:
    out, at = [], 0
    for line in lines_with_ends:
        out.append(at)
        at += len(line)
    return out


def _original_position(parts, failed: int) -> int:
    """A position in the joined candidate mapped back to the text (parts are
    joined with two characters, ";\n")."""
    at = 0
    for p in parts:
        length = p.stop - p.start
        if failed <= at + length:
            return p.start + (failed - at)
        at += length + 2
    return parts[-1].stop if parts else 0


def transpile(sql: str, dialect: str) -> list[str]:
    """sqlglot's PostgreSQL spelling of ``sql`` read as ``dialect``: bounded like
    ``check`` (length, nesting, brackets, CPU budget), on the parser thread.
    Raises when sqlglot cannot read it or it is too big or too complex."""
    _load_pglast()
    return _bounded_call(sql, _transpile, sql, dialect)


def _transpile(sql: str, dialect: str) -> list[str]:
    _bounded(sql, sql)
    if _bracket_depth(sql) > MAX_BRACKET_DEPTH:
        _invalid("SQL is nested too deeply (ARRAY[...] or subscripts)", sql)
    sqlglot = _glot()[0]
    with _Deadline(time.thread_time() + SECOND_PARSER_BUDGET):
        return sqlglot.transpile(sql, read=dialect, write="postgres")


# --- errors -----------------------------------------------------------------

def shown(sql) -> str:
    """SQL as error details show it: at most DETAIL_CHARS characters."""
    return _shown(sql)


def _shown(sql) -> str:
    sql = sql if isinstance(sql, str) else repr(sql)
    return sql if len(sql) <= DETAIL_CHARS else sql[:DETAIL_CHARS] + "…"


def _invalid(message: str, sql: str):
    raise InvalidParameter(message, detail=_shown(sql), hint=_HINT)


class NotAllowed(InsufficientPrivilege):
    """A refusal that names what was refused: ``kind`` is "function" or
    "relation", ``schema`` may be None, ``name`` as written (folded)."""

    def __init__(self, message, *, kind, schema, name, **kw):
        super().__init__(message, **kw)
        self.kind, self.schema, self.name = kind, schema, name


def _refuse_name(kind: str, schema, name, message: str, sql: str, hint: str = _HINT):
    raise NotAllowed(f"SQL refused: {message}", kind=kind, schema=schema, name=name,
                     detail=_shown(sql), hint=hint)


def _refuse(message: str, sql: str, hint: str = _HINT):
    raise InsufficientPrivilege(f"SQL refused: {message}", detail=_shown(sql), hint=hint)


def _stmt_kind(stmt) -> str:
    name = type(stmt).__name__
    name = name[:-4] if name.endswith("Stmt") else name
    out = "".join(" " + c if c.isupper() and i else c for i, c in enumerate(name))
    return out.upper().replace("  ", " ")


# --- the tree walk ----------------------------------------------------------

def _names(items) -> list[str]:
    return [getattr(n, "sval", None) for n in items or ()]


class _Objects:
    """Relations read: classify, check, qualify."""

    def __init__(self, allowed, search_path, allow_catalog):
        self.allowed = None if allowed is None else {(str(s), str(n)) for s, n in allowed}
        self.search_path = [s for s in (search_path or ())
                            if s not in ("$user", '"$user"') and s not in EXTENSION_SCHEMAS]
        self.use_path = search_path is not None
        self.allow_catalog = allow_catalog
        self.seen: set[tuple[str | None, str]] = set()

    def relation(self, rv: A.RangeVar, sql: str):
        if rv.catalogname is not None:
            _refuse(f"cross-database reference {rv.catalogname}.{rv.schemaname}.{rv.relname}",
                    sql)
        schema, name = rv.schemaname, rv.relname
        if schema is not None:
            self._schema_ok(schema, name, sql)
            if self.allowed is not None and (schema, name) not in self.allowed:
                _refuse_name("relation", schema, name,
                             f"relation {_q(schema)}.{_q(name)} is not in the object list",
                             sql, _HINT_OBJECTS)
            self.seen.add((schema, name))
            return
        if self.allowed is None:
            if name.startswith("pg_") and not self.allow_catalog:
                _refuse(f"system catalog {_q(name)} is not allowed", sql)
            self.seen.add((None, name))
            return
        found = self._unqualified(name, sql)
        if found is None:
            _refuse_name("relation", None, name, f"relation {_q(name)} is not in the object list",
                         sql, _HINT_OBJECTS)
        self._schema_ok(found, name, sql)
        rv.schemaname = found  # what runs is what was checked
        self.seen.add((found, name))

    def _unqualified(self, name, sql):
        """The schema of the one allowed relation called ``name``.  The model
        knows only the object list's relations, so a name that matches one of
        them means it, wherever the caller's search_path points; the path only
        breaks a tie, and a tie it does not break is refused naming each."""
        matches = sorted(s for s, n in self.allowed if n == name)
        usable = [s for s in matches if s not in EXTENSION_SCHEMAS] or matches
        if len(usable) <= 1:
            return usable[0] if usable else None
        on_path = [s for s in self.search_path if s in usable] if self.use_path else []
        if on_path:
            return on_path[0]
        _refuse(f"relation {_q(name)} is ambiguous: it is "
                + " and ".join(f"{_q(s)}.{_q(name)}" for s in usable)
                + " in the object list; qualify it with its schema", sql, _HINT_OBJECTS)

    def _schema_ok(self, schema, name, sql):
        if schema in EXTENSION_SCHEMAS:
            _refuse(f"relation {_q(schema)}.{_q(name)} belongs to the extension", sql)
        if not self.allow_catalog and (schema in CATALOG_SCHEMAS
                                       or schema.startswith("pg_toast")):
            _refuse(f"system catalog {_q(schema)}.{_q(name)} is not allowed", sql)


def _q(name: str) -> str:
    return _pgstream.maybe_double_quote_name(name) if name is not None else "?"


class _Walker:
    def __init__(self, sql: str, objects: _Objects):
        self.sql = sql
        self.objects = objects
        self.functions: set[str] = set()
        self.types: set[str] = set()
        self.operators: set[str] = set()

    def visit(self, node, ctes: frozenset):
        if isinstance(node, tuple):
            for item in node:
                self.visit(item, ctes)
            return
        if not isinstance(node, A.Node):
            return
        kind = type(node).__name__
        if kind not in _ALLOWED_NODES:
            self._bad_node(node, kind)
        method = getattr(self, "_" + kind, None)
        if method is not None and method(node, ctes):
            return
        for slot in node.__slots__:
            value = getattr(node, slot)
            if isinstance(value, (A.Node, tuple)):
                self.visit(value, ctes)

    def _bad_node(self, node, kind):
        sql = self.sql
        if kind in _STATEMENT_NAMES or kind.endswith("Stmt"):
            what = _STATEMENT_NAMES.get(kind) or _stmt_kind(node)
            _refuse(f"{what} inside a query (a data-modifying WITH) is not allowed", sql)
        if kind == "IntoClause":
            _refuse("SELECT INTO is not allowed", sql)
        if kind == "LockingClause":
            _refuse("FOR UPDATE/SHARE is not allowed", sql)
        if kind == "ParamRef":
            _refuse("parameters ($1) are not allowed", sql)
        _refuse(f"the construct {kind} is not allowed", sql)

    # Returning True means "children already visited".

    def _SelectStmt(self, node: A.SelectStmt, ctes):
        if node.intoClause is not None:
            _refuse("SELECT INTO is not allowed", self.sql)
        if node.lockingClause:
            _refuse("FOR UPDATE/SHARE is not allowed", self.sql)
        with_ = node.withClause
        if with_ is None:
            return False
        names = [cte.ctename for cte in with_.ctes or ()]
        inner = ctes | frozenset(names)
        for i, cte in enumerate(with_.ctes or ()):
            if not isinstance(cte, A.CommonTableExpr):
                self._bad_node(cte, type(cte).__name__)
            # A non-recursive CTE sees the ones before it; a recursive list sees all.
            scope = inner if with_.recursive else ctes | frozenset(names[:i])
            self.visit(cte, scope)
        for slot in node.__slots__:
            if slot != "withClause":
                value = getattr(node, slot)
                if isinstance(value, (A.Node, tuple)):
                    self.visit(value, inner)
        return True

    def _RangeVar(self, node: A.RangeVar, ctes):
        if node.schemaname is None and node.catalogname is None and node.relname in ctes:
            return False
        self.objects.relation(node, self.sql)
        return False

    def _FuncCall(self, node: A.FuncCall, ctes):
        name = self._function(node.funcname)
        node.funcname = (A.String(sval="pg_catalog"), A.String(sval=name))
        return False

    def _function(self, funcname) -> str:
        parts = _names(funcname)
        shown = ".".join(_q(p) for p in parts)
        if (len(parts) == 2 and parts[0] != "pg_catalog") or len(parts) > 2:
            if parts[0] in EXTENSION_SCHEMAS:
                _refuse(f"function {shown} belongs to the extension", self.sql)
            _refuse(f"function {shown} is not a built-in function that may be called", self.sql)
        name = parts[-1]
        if name not in ALLOWED_FUNCTIONS:
            _refuse_name("function", None, name, f"function {shown} is not on the allow-list",
                         self.sql)
        self.functions.add(name)
        return name

    def _operator(self, names):
        parts = _names(names)
        if not parts:
            return
        if (len(parts) > 1 and parts[0] != "pg_catalog") or len(parts) > 2 \
                or parts[-1] not in ALLOWED_OPERATORS:
            shown = ".".join(_q(p) for p in parts[:-1]) + "." if len(parts) > 1 else ""
            _refuse(f"operator {shown}{parts[-1]} is not a built-in operator", self.sql)
        self.operators.add(parts[-1])

    def _A_Expr(self, node: A.A_Expr, ctes):
        self._operator(node.name)
        return False

    def _SortBy(self, node: A.SortBy, ctes):
        self._operator(node.useOp)
        return False

    def _SubLink(self, node: A.SubLink, ctes):
        self._operator(node.operName)
        return False

    def _TypeName(self, node: A.TypeName, ctes):
        parts = _names(node.names)
        if len(parts) > 1 and parts[0] in EXTENSION_SCHEMAS:
            _refuse(f"type {'.'.join(parts)} belongs to the extension", self.sql)
        self.types.add(_pgstream.RawStream()(node))   # resolve.py checks what they are
        return False

    def _RangeTableSample(self, node: A.RangeTableSample, ctes):
        parts = _names(node.method)
        if (len(parts) == 2 and parts[0] != "pg_catalog") or len(parts) > 2 \
                or parts[-1] not in ALLOWED_TABLESAMPLE:
            _refuse(f"TABLESAMPLE method {'.'.join(parts)} is not allowed", self.sql)
        return False

    def _ColumnDef(self, node: A.ColumnDef, ctes):
        if node.raw_default is not None or node.cooked_default is not None or node.constraints:
            _refuse("column definitions with defaults or constraints are not allowed", self.sql)
        return False


# --- sqlglot ----------------------------------------------------------------

_sqlglot = None


class _DropFallbackWarning(logging.Filter):
    def filter(self, record):  # sqlglot logs every Command fallback as a warning
        return "Falling back to parsing as a 'Command'" not in record.getMessage()


def _glot():
    global _sqlglot
    if _sqlglot is None:
        # Loaded by the first call that checks SQL, not by a session that only chats.
        sqlglot = importlib.import_module("sqlglot")
        exp = sqlglot.exp
        logging.getLogger("sqlglot").addFilter(_DropFallbackWarning())
        roots = tuple(getattr(exp, n) for n in ("Select", "SetOperation", "Values", "Subquery")
                      if hasattr(exp, n))
        bad = tuple(getattr(exp, n) for n in (
            "DML", "DDL", "Insert", "Update", "Delete", "Merge", "Copy", "Create", "Drop",
            "Alter", "Command", "Into", "Lock", "Set", "Transaction", "Commit", "Rollback",
            "TruncateTable", "Grant", "Revoke", "Pragma", "Use", "Execute", "Describe",
            "Show", "LoadData", "Analyze", "Cache", "Uncache", "Refresh", "Kill", "Declare")
            if isinstance(getattr(exp, n, None), type))
        _sqlglot = (sqlglot, exp, roots, bad)
    return _sqlglot


def _second_opinion(normalised: str, sql: str):
    """sqlglot must read the statement as one harmless query.

    It reads the normalised text (what will run); where its grammar lacks a
    construct PostgreSQL re-printed that way, it reads the text as given.
    When it can read neither, the query is refused.
    """
    sqlglot, exp, roots, bad = _glot()
    if _bracket_depth(normalised) > MAX_BRACKET_DEPTH:
        _invalid("SQL is nested too deeply (ARRAY[...] or subscripts)", sql)
    trees = None
    # Two tries: a full garbage collection in this thread counts as its CPU time
    # and once made a plain query look too complex; an exponential input is still
    # cut, after at most twice the budget.
    for attempt in (1, 2):
        deadline = time.thread_time() + SECOND_PARSER_BUDGET
        try:
            for text in (normalised, sql) if normalised != sql else (sql,):
                try:
                    with _Deadline(deadline):
                        trees = [t for t in sqlglot.parse(text, read="postgres")
                                 if t is not None and not isinstance(t, exp.Semicolon)]
                    break
                except RecursionError:
                    _invalid("SQL is nested too deeply", sql)
                except _OutOfTime:
                    raise
                except Exception as e:  # sqlglot ParseError, TokenError, or anything else
                    error = e
            break
        except _OutOfTime:
            if attempt == 2:
                _invalid("SQL is too complex to verify", sql)
    if trees is None:
        _invalid(f"SQL could not be verified by the second parser: {str(error)[:200]}", sql)
    if len(trees) != 1:
        _refuse(f"the parsers disagree: {len(trees)} statements", sql)
    root = trees[0]
    if isinstance(root, exp.Subquery):
        inner = root.unnest()
        root = inner if inner is not None else root
    if not isinstance(root, roots):
        _refuse(f"the parsers disagree on the statement kind ({type(root).__name__})", sql)
    for node in root.walk():
        if isinstance(node, bad):
            _refuse(f"the second parser found {type(node).__name__}", sql)
        if isinstance(node, exp.Anonymous):
            name = node.name.lower() if isinstance(node.name, str) else ""
            if name and name not in ALLOWED_FUNCTIONS and name not in _SYNTAX_NAMES:
                _refuse_name("function", None, name, f"function {name} is not on the allow-list",
                             sql)


def _bracket_depth(text: str) -> int:
    depth = top = 0
    for tok in _pgparser.scan(text):
        if tok.name == "ASCII_91":    # [
            depth += 1
            top = max(top, depth)
        elif tok.name == "ASCII_93":  # ]
            depth -= 1
    return top


class _OutOfTime(Exception):
    pass


class _Deadline:
    """Abort the Python code run inside when this thread's CPU clock
    (time.thread_time) passes ``deadline``.

    sqlglot's parser backtracks: some nestings cost time exponential in their
    depth (ARRAY[ARRAY[...]] doubles per level).  A profile hook (this thread
    only, restored afterwards) checks the clock every 256 calls and raises.
    """

    def __init__(self, deadline: float):
        self.deadline = deadline

    def __enter__(self):
        deadline, clock, calls = self.deadline, time.thread_time, [0]

        def hook(frame, event, arg):
            calls[0] += 1
            if not calls[0] & 255 and clock() > deadline:
                raise _OutOfTime()
        self.previous = sys.getprofile()
        sys.setprofile(hook)

    def __exit__(self, *exc):
        sys.setprofile(self.previous)
        return False


# --- normalisation ----------------------------------------------------------

def _e_strings(text: str) -> str:
    """Write '...' literals holding a backslash as E'...' (same value either way)."""
    if "\\" not in text:
        return text
    out, last = [], 0
    for tok in _pgparser.scan(text):
        if tok.name != "SCONST":
            continue
        raw = text[tok.start:tok.end + 1]
        if raw.startswith("'") and "\\" in raw:
            out.append(text[last:tok.start])
            out.append("E" + raw.replace("\\", "\\\\"))
            last = tok.end + 1
    out.append(text[last:])
    return "".join(out)


def _normalise(raw: A.RawStmt, sql: str) -> str:
    try:
        text = _e_strings(_pgstream.RawStream()(raw.stmt))
        again = _parse(text, sql)
    except InvalidParameter:     # the re-printed text is bounded like the input
        raise
    except RecursionError:
        _invalid("SQL is nested too deeply", sql)
    except Exception as e:
        _invalid(f"SQL could not be normalised ({type(e).__name__})", sql)
    if len(again) != 1 or not _same(raw.stmt, again[0].stmt):
        _invalid("SQL could not be normalised (the re-printed statement differs)", sql)
    return text


def _same(a, b) -> bool:
    if isinstance(a, A.Node):
        if type(a) is not type(b):
            return False
        return all(_same(getattr(a, s), getattr(b, s))
                   for s in a.__slots__ if s not in _IGNORED_SLOTS)
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(map(_same, a, b))
    return a == b


__all__ = [
    "ALLOWED_FUNCTIONS",
    "CATALOG_SCHEMAS",
    "EXTENSION_SCHEMAS",
    "Checked",
    "NotAllowed",
    "check",
    "rewrite",
    "shown",
    "transpile",
    "without_trailing_prose",
]
