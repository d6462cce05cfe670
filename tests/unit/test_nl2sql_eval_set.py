"""The NL2SQL evaluation sets and their scoring rule.

The sets: bench/nl2sql_eval.json (issue 17, over the demo schema sh) and
bench/nl2sql_eval_unfamiliar.json (issue 29, over the schemas of
bench/nl2sql_eval_schemas.sql), each checked the same way: enough questions, unique ids
and questions, the fields eval_nl2sql.py reads, and every gold query one SELECT that
reads only the tables of its own schema (parsed from the set's SQL file).  The rule
(bench/eval_nl2sql.py, same_result): what counts as the same result, and what does not.
The harness's pure parts: how a set is loaded, ordered and given its profiles.  Gold
queries are run against the data by `bench/eval_nl2sql.py --oracle`, not here (no server
in tests/unit).
"""

from __future__ import annotations

import datetime
import decimal
import functools
import json
import pathlib

import pytest
from paths import ROOT, bench_module
from pglast import ast, parse_sql
from pglast.enums import ConstrType

DEMO = "bench/nl2sql_eval.json"
UNFAMILIAR = "bench/nl2sql_eval_unfamiliar.json"
SETS = {name: json.loads((ROOT / name).read_text()) for name in (DEMO, UNFAMILIAR)}
QUESTIONS = SETS[DEMO]["questions"]
# What each set must have: its size, and the difficulties it must span.
MIN_QUESTIONS = {DEMO: 40, UNFAMILIAR: 48}
MIN_PER_SCHEMA = 10
REQUIRED_TAGS = {
    DEMO: {"single-table", "aggregate", "join-2", "join-3", "group-by", "having", "top-n",
           "date", "null", "distinct", "subquery"},
    UNFAMILIAR: {"single-table", "count", "filter", "case", "join-2", "join-3", "link-table",
                 "self-join", "group-by", "having", "top-1", "superlative", "anti-join",
                 "intersect", "average", "distinct", "subquery", "null", "date", "order-by"},
}
ALL = [(name, q) for name, doc in SETS.items() for q in doc["questions"]]
ALL_IDS = [f"{pathlib.Path(name).stem}-{q['id']}" for name, q in ALL]


@functools.cache
def _load_eval():
    return bench_module("eval_nl2sql")


def walk(node, visit):
    visit(node)
    if isinstance(node, tuple):
        for n in node:
            walk(n, visit)
    elif isinstance(node, ast.Node):
        for slot in node.__slots__:
            walk(getattr(node, slot), visit)


def schema_files(name: str) -> dict[str, pathlib.Path]:
    """Schema -> the SQL file that creates it: the set's "schemas", or the demo's."""
    doc = SETS[name]
    if "schemas" not in doc:
        return {"sh": ROOT / "demo" / "sample_schema.sql"}
    return {s["name"]: ROOT / s["sql"] for s in doc["schemas"]}


def created(path: pathlib.Path) -> tuple[set[str], dict[tuple[str, str], ast.CreateStmt], list]:
    """The schemas, the tables and every statement of one SQL file."""
    stmts = [s.stmt for s in parse_sql(path.read_text())]
    schemas = {s.schemaname for s in stmts if isinstance(s, ast.CreateSchemaStmt)}
    tables = {(s.relation.schemaname, s.relation.relname): s for s in stmts if isinstance(s, ast.CreateStmt)}
    return schemas, tables, stmts


# --- the sets ----------------------------------------------------------------------

@pytest.mark.parametrize("name", SETS)
def test_enough_questions_with_unique_ids_and_questions(name):
    questions = SETS[name]["questions"]
    assert len(questions) >= MIN_QUESTIONS[name]
    ids = [q["id"] for q in questions]
    assert len(set(ids)) == len(ids)
    texts = [q["question"].strip().lower() for q in questions]
    assert len(set(texts)) == len(texts)


@pytest.mark.parametrize(("name", "q"), ALL, ids=ALL_IDS)
def test_question_fields(name, q):
    fields = {"id", "question", "gold_sql", "ordered", "tags"}
    if "schemas" in SETS[name]:
        fields.add("schema")
    assert set(q) == fields
    assert isinstance(q["ordered"], bool)
    assert q["question"].strip() and isinstance(q["tags"], list) and q["tags"]


@pytest.mark.parametrize(("name", "q"), ALL, ids=ALL_IDS)
def test_gold_sql_is_one_select_over_its_own_schema(name, q):
    schema = q.get("schema", "sh")   # the demo set's questions are all over sh
    _, tables, _ = created(schema_files(name)[schema])
    stmts = parse_sql(q["gold_sql"])
    assert len(stmts) == 1
    assert isinstance(stmts[0].stmt, ast.SelectStmt)
    read = set()
    walk(stmts[0].stmt, lambda n: read.add((n.schemaname, n.relname)) if isinstance(n, ast.RangeVar) else None)
    assert read and all(s == schema and (s, t) in tables for s, t in read), read


@pytest.mark.parametrize("name", SETS)
def test_ordered_only_where_the_query_orders(name):
    for q in SETS[name]["questions"]:
        if q["ordered"]:
            assert parse_sql(q["gold_sql"])[0].stmt.sortClause, q["id"]


@pytest.mark.parametrize("name", SETS)
def test_the_set_spans_the_difficulties(name):
    tags = {t for q in SETS[name]["questions"] for t in q["tags"]}
    assert REQUIRED_TAGS[name] <= tags


def test_each_schema_of_the_unfamiliar_set_is_created_and_asked_about():
    doc = SETS[UNFAMILIAR]
    names = [s["name"] for s in doc["schemas"]]
    assert len(names) == len(set(names)) and 3 <= len(names)
    for schema, path in schema_files(UNFAMILIAR).items():
        assert schema in created(path)[0], f"{path.name} creates no schema {schema}"
    asked = [q["schema"] for q in doc["questions"]]
    assert set(asked) <= set(names)
    for schema in names:
        assert asked.count(schema) >= MIN_PER_SCHEMA, schema


def test_the_unfamiliar_schemas_look_like_the_hidden_ones():
    """Small schemas with declared keys, 5 to 40 rows a table, and no comments (the hidden
    evaluation's profiles likely leave comments off, so a comment here would describe
    what they do not see)."""
    paths = set(schema_files(UNFAMILIAR).values())
    for path in paths:
        schemas, tables, stmts = created(path)
        assert not [s for s in stmts if isinstance(s, ast.CommentStmt)], path.name
        rows = {name: 0 for name in tables}
        for s in stmts:
            if isinstance(s, ast.InsertStmt):
                rows[(s.relation.schemaname, s.relation.relname)] += len(s.selectStmt.valuesLists)
        assert all(5 <= n <= 40 for n in rows.values()), rows
        for schema in schemas:
            mine = [t for (s, _), t in tables.items() if s == schema]
            assert 3 <= len(mine) <= 8, schema
            for t in mine:
                keys = []
                walk(t, lambda n, keys=keys: keys.append(n.contype)
                     if isinstance(n, ast.Constraint) else None)
                assert ConstrType.CONSTR_PRIMARY in keys, t.relation.relname


def test_case_questions_do_not_quote_the_value_in_double_quotes():
    # The extension matches a value in double quotes exactly (case-sensitive): a "case"
    # question writes the value in another case, so it must not quote it that way.
    for q in SETS[UNFAMILIAR]["questions"]:
        if "case" in q["tags"]:
            assert '"' not in q["question"], q["id"]


# --- the harness -------------------------------------------------------------------

def test_the_demo_set_keeps_its_profile():
    ev = _load_eval()
    s = ev.load_set(ROOT / DEMO)
    assert s.profiles == {"sh": "EVAL"} and list(s.schemas) == ["sh"]
    assert {q["schema"] for q in s.questions} == {"sh"}
    assert [q["id"] for q in ev.run_order(s, None, None)] == [q["id"] for q in QUESTIONS]
    attrs = ev.profile_attributes("sh", s.attrs, "http://x", "m", {})
    assert attrs == {"provider": "openai", "credential_name": "EVAL_CRED", "provider_endpoint": "http://x",
                     "object_list": [{"owner": "sh"}], "comments": True, "constraints": True,
                     "temperature": 0, "raise_on_invalid_sql": True, "model": "m"}


def test_the_unfamiliar_set_has_a_profile_per_schema_naming_it_alone():
    ev = _load_eval()
    s = ev.load_set(ROOT / UNFAMILIAR)
    assert set(s.profiles) == {q["schema"] for q in s.questions}
    assert len(set(s.profiles.values())) == len(s.profiles)
    attrs = ev.profile_attributes("vet", s.attrs, "http://x", None, {"some_new_attribute": 2})
    assert attrs["object_list"] == [{"owner": "vet"}] and attrs["temperature"] == 0
    assert "comments" not in attrs and "constraints" not in attrs
    assert attrs["some_new_attribute"] == 2      # --attributes passes anything through
    assert ev.profile_attributes("vet", s.attrs, "http://x", None, {"temperature": 0.5})["temperature"] == 0.5


def test_run_order_keeps_a_schema_together():
    ev = _load_eval()
    s = ev.load_set(ROOT / UNFAMILIAR)
    mixed = s.questions[::-1]
    s.questions = mixed
    order = [q["schema"] for q in ev.run_order(s, None, None)]
    assert order == sorted(order, key=list(s.schemas).index)   # grouped, in the set's order
    firsts = ev.run_order(s, 3, None)
    assert {q["id"] for q in firsts} == {q["id"] for q in mixed[:3]}
    only = ev.run_order(s, None, [mixed[0]["id"], mixed[-1]["id"]])
    assert [q["id"] for q in only] == [mixed[-1]["id"], mixed[0]["id"]]


def test_the_oracle_answers_the_longest_question_found():
    ev = _load_eval()
    qs = [{"question": "How many pets?", "gold_sql": "SELECT 1"},
          {"question": "How many pets? Per species.", "gold_sql": "SELECT 2"},
          {"question": "Other", "gold_sql": "SELECT 3"}]
    respond = ev.oracle(qs)
    body = {"messages": [{"role": "user", "content": "rules\n\nQuestion: How many pets? Per species."}]}
    assert respond("openai", body).text == "SELECT 2"
    body = {"messages": [{"role": "user", "content": "rules\n\nQuestion: How many pets?"}]}
    assert respond("openai", body).text == "SELECT 1"


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
