#!/usr/bin/env bash
# The lint step of `make test`: ruff over the Python code (rules in ruff.toml),
# then pgspot over the SQL scripts (scripts/lint-sql.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
echo "lint: ruff check"
"${RUFF:-.venv/bin/ruff}" check --quiet .
echo "lint: pgspot"
scripts/lint-sql.sh
