"""The NL2SQL evaluation set (bench/nl2sql_eval.json, issue 17) and its scoring rule.

The set: enough questions, unique ids, the fields eval_nl2sql.py reads, and every gold
query one SELECT that reads only the demo schema sh.  The rule (bench/eval_nl2sql.py,
same_result): what counts as the same result, and what does not.  Gold queries are run
against the demo data by `bench/eval_nl2sql.py --oracle`, not here (no server in tests/unit).
"""

from __future__ import annotations

import datetime
import decimal
import importlib.util
import json
import pathlib
import sys

import pytest
from pglast import ast, parse_sql

ROOT = pathlib.Path(__file__).resolve().parents[2]
SET = json.loads((ROOT / "bench" / "nl2sql_eval.json").read_text())
QUESTIONS = SET["questions"]
SH_TABLES = {"countries", "customers", "products", "sales"}


def _load_eval():
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location("eval_nl2sql", ROOT / "bench" / "eval_nl2sql.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_enough_questions_with_unique_ids_and_questions():
    assert len(QUESTIONS) >= 40
    ids = [q["id"] for q in QUESTIONS]
    assert len(set(ids)) == len(ids)
    texts = [q["question"].strip().lower() for q in QUESTIONS]
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize("q", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_question_fields(q):
    assert set(q) == {"id", "question", "gold_sql", "ordered", "tags"}
    assert isinstance(q["ordered"], bool)
    assert q["question"].strip() and isinstance(q["tags"], list) and q["tags"]


@pytest.mark.parametrize("q", QUESTIONS, ids=[q["id"] for q in QUESTIONS])
def test_gold_sql_is_one_select_over_sh(q):
    stmts = parse_sql(q["gold_sql"])
    assert len(stmts) == 1
    assert isinstance(stmts[0].stmt, ast.SelectStmt)
    tables = set()

    def walk(node):
        if isinstance(node, ast.RangeVar):
            tables.add((node.schemaname, node.relname))
        if isinstance(node, tuple):
            for n in node:
                walk(n)
        elif isinstance(node, ast.Node):
            for slot in node.__slots__:
                walk(getattr(node, slot))

    walk(stmts[0].stmt)
    assert tables and all(s == "sh" and t in SH_TABLES for s, t in tables), tables


def test_ordered_only_where_the_query_orders():
    for q in QUESTIONS:
        if q["ordered"]:
            assert parse_sql(q["gold_sql"])[0].stmt.sortClause, q["id"]


def test_the_set_spans_the_difficulties():
    tags = {t for q in QUESTIONS for t in q["tags"]}
    assert {"single-table", "aggregate", "join-2", "join-3", "group-by", "having", "top-n",
            "date", "null", "distinct", "subquery"} <= tags


# --- the scoring rule -----------------------------------------------------------------

def test_same_result_rules():
    same = _load_eval().same_result
    D = decimal.Decimal
    gold = [("Germany", D("358.99")), ("France", D("0"))]
    # rows in any order, numbers to 2 decimals, column order ignored
    assert same([(0, "France"), (358.9899, "Germany")], 2, gold, 2, False) == (True, True)
    # ... but not when the question asks for an order
    assert same([("France", 0), ("Germany", D("358.99"))], 2, gold, 2, True) == (False, False)
    assert same([("Germany", D("358.99")), ("France", 0)], 2, gold, 2, True) == (True, True)
    # a different value, a missing row, a duplicated row
    assert same([("Germany", D("358.98")), ("France", 0)], 2, gold, 2, False) == (False, False)
    assert same([("Germany", D("358.99"))], 2, gold, 2, False) == (False, False)
    assert same(gold + [("France", 0)], 2, gold, 2, False) == (False, False)
    # an extra column: wrong, but right with extra columns allowed
    extra = [("Germany", 3, D("358.99")), ("France", 1, 0)]
    assert same(extra, 3, gold, 2, False) == (False, True)
    # a missing column is wrong either way
    assert same([("Germany",), ("France",)], 1, gold, 2, False) == (False, False)
    # NULL is not 0, and text is not a number
    assert same([("France", None), ("Germany", D("358.99"))], 2, gold, 2, False) == (False, False)
    assert same([("France", "0"), ("Germany", "358.99")], 2, gold, 2, False) == (False, False)


def test_same_result_dates_and_strings():
    same = _load_eval().same_result
    day = datetime.date(2024, 12, 22)
    assert same([(datetime.datetime(2024, 12, 22),)], 1, [(day,)], 1, False) == (True, True)
    assert same([(datetime.datetime(2024, 12, 22, 1),)], 1, [(day,)], 1, False) == (False, False)
    assert same([("US  ",)], 1, [("US",)], 1, False) == (True, True)       # char(n) padding
    assert same([("us",)], 1, [("US",)], 1, False) == (False, False)       # case matters
