#!/usr/bin/env bash
# Lint the extension's SQL scripts with pgspot (search_path and CREATE OR REPLACE
# hazards in extension scripts).  Builds this version's install script and every
# update script with sql/build.py into a temporary directory, so it lints exactly
# what `make install` would install, and exits non-zero on any finding.
#
#   scripts/lint-sql.sh
#
# pgspot pins its own pglast (7.x) while the project needs pglast 8, so it lives
# in its own virtualenv, .lintvenv, created on first use.
#
# How pgspot is run, and why:
# - --ignore-lang plpython3u: pgspot cannot read Python.  Every PL/Python body is
#   the loader plus one call into the package (tests/packaging/test_packaging.py checks that),
#   every function pins search_path (pgspot checks that for all languages, and so
#   does the catalog lint in tests/security/test_install_hygiene.py), and the SQL the package
#   runs is covered at run time by the hijack test in tests/security/test_install_hygiene.py.
# - No --ignore of any code: findings are fixed in sql/, not silenced.
# - pgspot 0.9.4 crashes ("list index out of range", counted as a fatal) on a
#   function with an SQL-standard body (LANGUAGE sql BEGIN ATOMIC ... END): it looks
#   for the AS string that such a function does not have.  The driver below gives
#   it an empty AS string for the check of the function's own options (SET
#   search_path, OR REPLACE); the body itself is then walked by pgspot's generic
#   traversal with the script's state, which is right: a BEGIN ATOMIC body is bound
#   when the function is created, under the script's search_path, not the one the
#   function's SET clause gives at run time.
# - pgspot 0.9.4 also crashes (ParseError) on PL/pgSQL `RETURN NEXT <expression>`:
#   it hands the bare expression to the SQL parser without the `SELECT ` it adds for
#   RETURN and the other expression statements.  The driver adds it.
# - --proc-without-search-path for the two procedures that COMMIT: a procedure with
#   a SET clause cannot COMMIT, so they pin search_path in their first statement
#   (set_config(..., true)); the catalog lint in tests/security/test_install_hygiene.py checks
#   that exact statement, and that no other function lacks the SET clause.
# - Update scripts run in schemas the extension already owns: they are checked with
#   the install script's schemas known as created by the extension (so CREATE OR
#   REPLACE there is not flagged), but with a fresh, insecure search_path (ALTER
#   EXTENSION ... UPDATE sets search_path to the extension's schema, public, again).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="$ROOT/.lintvenv"
PYTHON="${PYTHON:-python3}"
PINS="pgspot==0.9.4 pglast==7.21"

if [ "$(cat "$VENV/.pins" 2>/dev/null)" != "$PINS" ]; then
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    # shellcheck disable=SC2086
    "$VENV/bin/pip" install -q --disable-pip-version-check $PINS
    echo "$PINS" > "$VENV/.pins"
fi

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
VERSION="$("$PYTHON" "$ROOT/sql/build.py" --print-version)"
"$PYTHON" "$ROOT/sql/build.py" --out "$OUT/dbms_cloud_ai--$VERSION.sql"
updates=()
for old in $("$PYTHON" "$ROOT/sql/build.py" --print-updates 2>/dev/null || true); do
    "$PYTHON" "$ROOT/sql/build.py" --update "$old" --out "$OUT/dbms_cloud_ai--$old--$VERSION.sql"
    updates+=("$OUT/dbms_cloud_ai--$old--$VERSION.sql")
done

"$VENV/bin/python" - "$OUT/dbms_cloud_ai--$VERSION.sql" "${updates[@]}" <<'EOF'
import argparse
import sys

from pglast import ast
from pgspot import visitors
from pgspot.state import Counter, State

_check_function = visitors.SQLVisitor.visit_CreateFunctionStmt


def check_function(self, ancestors, node):
    if node.sql_body is None or any(o.defname == "as" for o in node.options):
        return _check_function(self, ancestors, node)
    options = node.options
    node.options = options + (ast.DefElem(defname="as", arg=(ast.String(sval=""),)),)
    try:
        return _check_function(self, ancestors, node)
    finally:
        node.options = options


visitors.SQLVisitor.visit_CreateFunctionStmt = check_function

_visit_plpgsql_node = visitors.PLPGSQLVisitor.visit


def visit_plpgsql_node(self, node):
    if isinstance(node, dict) and "PLpgSQL_stmt_return_next" in node:
        value = node["PLpgSQL_stmt_return_next"]
        if "expr" in value:
            visitors.visit_sql(self.state, "SELECT " + value["expr"]["PLpgSQL_expr"]["query"])
        return None
    return _visit_plpgsql_node(self, node)


visitors.PLPGSQLVisitor.visit = visit_plpgsql_node

# A procedure with a SET clause cannot COMMIT: these pin search_path in their body.
COMMITTING = ["dbms_cloud_ai.purge_expired_conversations(batch_size integer,max_batches integer,"
              "INOUT deleted bigint)",
              "dbms_cloud_ai.run_memory_jobs(batch_size integer,max_batches integer,INOUT processed bigint)",
              # PL/Python: python/src/dbms_cloud_ai/model/detached.py pins it in each transaction
              "dbms_cloud_ai.generate_detached(prompt text,profile_name text,action text,"
              "attributes text,params text,search_path text[],INOUT response text)",
              "dbms_cloud_ai._run_memory_job_detached(conversation_id text,run_token text,job_owner text)",
              "dbms_cloud_ai.refresh_vector_index_job(index_name text,INOUT embedded integer)",
              "dbms_cloud_ai.maintain_vector_indexes(index_name text)"]

args = argparse.Namespace(append=False, proc_without_search_path=COMMITTING, summary_only=False,
                          plpgsql=True, explain=None, ignore=[], ignore_lang=["plpython3u"],
                          sql_fn=[])
install, *updates = sys.argv[1:]
total = Counter(args)
schemas = []
for path in [install, *updates]:
    counter = Counter(args)
    state = State(counter)
    state.created_schemas = list(schemas)
    print(f"pgspot: {path.rsplit('/', 1)[-1]}")
    try:
        visitors.visit_sql(state, open(path, encoding="utf8").read(), toplevel=True)
    except Exception as err:  # pgspot's own crash: a finding too, never a pass
        print(f"  fatal: {type(err).__name__}: {err}")
        counter.fatals += 1
    print(f"  {counter}")
    if path == install:
        schemas = state.created_schemas
    total.add(counter)
sys.exit(0 if total.is_clean() else 1)
EOF
