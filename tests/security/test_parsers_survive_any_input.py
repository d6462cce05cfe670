"""Hostile users, class 1 (issue 14): the server survives any input.

Every entry point that hands SQL text to a parser (feedback's response,
select_ai's feedback form, showsql, runsql, explainsql, narrate, the repair
round) gets texts nested in every shape -- operator chains, which nest
without brackets, parentheses, CASE, subqueries, JSON operators, unary
chains, arrays, function calls -- at depths near sqlguard's bound, just over
it, and as deep as the length limit allows.  Each call must end with an
answer or an expected SQLSTATE, and a witness session of another role, opened
before the attack, must still answer afterwards (a backend killed by a signal
makes the postmaster end every session).

Texts are built from the count sqlguard's pre-scan makes (``_nesting``), so
"near" and "just over" follow the bound if it changes; the length-limit texts
do not depend on it.
"""

from __future__ import annotations

import functools
import time

import pytest
from dbms_cloud_ai.nl2sql import actions as nl2sql
from dbms_cloud_ai.nl2sql import sqlguard
from fake_llm import Answer
from helpers import case, generate, make_profile
from nl2sql_fixtures import PEOPLE_GYMNAST, people  # noqa: F401 - fixture

GOOD = 'SELECT count(*) AS "People Count" FROM alice.people p'
REFUSED = {"22023", "LL005", "54001"}   # invalid / too complex, or the model never got it right

# One level of each shape: (prefix, innermost, suffix); a level is prefix ... suffix.
SHAPES = {
    "concat": ("", "1", " || 1"),
    "plus": ("", "1", "+1"),
    "and": ("", "true", " AND true"),
    "or": ("", "true", " OR true"),
    "parentheses": ("(", "1", ")"),
    "case": ("CASE WHEN true THEN ", "1", " END"),
    "subquery": ("(SELECT ", "1", ")"),
    "json": ("", "'{}'::jsonb", "->'a'"),
    "json_text": ("", "'{}'::jsonb", "->>'a'"),
    "minus": ("- ", "p.age", ""),
    "not": ("NOT ", "true", ""),
    "array": ("ARRAY[", "1", "]"),
    "function": ("abs(", "1", ")"),
}

# More shapes for the long tier.
MORE_SHAPES = {
    "times": ("", "2", "*2"),
    "equals_chain": ("", "1", " = 1 IS TRUE"),
    "cast": ("", "1", "::int"),
    "is_null": ("", "1", " IS NULL"),
    "collate": ("", "'a'", ' COLLATE "C"'),
    "at_time_zone": ("", "now()", " AT TIME ZONE 'UTC'"),
    "union": ("", "1", " UNION SELECT 1"),
    "exists": ("EXISTS(SELECT ", "1", ")"),
    "array_subquery": ("ARRAY(SELECT ", "1", ")"),
    "row": ("ROW(", "1", ")"),
    "coalesce": ("coalesce(", "1", ")"),
    "subscript": ("", "ARRAY[1]", "[1]"),
    "json_object": ("json_build_object('a', ", "1", ")"),
    "jsonb_path": ("", "'{}'::jsonb", "#>'{a}'"),
    "bitnot": ("~ ", "1", ""),
    "plus_unary": ("+ ", "1", ""),
    "in_list": ("1 IN (", "1", ")"),
    "between": ("(1 BETWEEN 0 AND ", "1", ")"),
    "string_tricks": ("", "$q$'(($q$", " || E'\\'((' || '--' || /* ( */ 'x'"),
}
ALL_SHAPES = {**SHAPES, **MORE_SHAPES}


def nested(shape: str, levels: int) -> str:
    prefix, inner, suffix = ALL_SHAPES[shape]
    return f"SELECT {prefix * levels}{inner}{suffix * levels} AS x FROM alice.people p"


def levels_for(shape: str, count: int) -> int:
    """The most levels whose text the pre-scan counts as at most ``count``
    (every level adds the same number of counted tokens)."""
    base = sqlguard._nesting(nested(shape, 0))
    step = sqlguard._nesting(nested(shape, 1)) - base
    levels = (count - base) // step
    assert sqlguard._nesting(nested(shape, levels)) <= count < \
        sqlguard._nesting(nested(shape, levels + 1)), shape
    return levels


def longest(shape: str) -> int:
    """The deepest text of this shape within the length limit."""
    prefix, inner, suffix = ALL_SHAPES[shape]
    fixed = len(nested(shape, 0))
    return (sqlguard.MAX_SQL_CHARS - fixed) // (len(prefix) + len(suffix))


@functools.cache
def depths(shape: str) -> dict[str, int]:
    sqlguard._load_pglast()
    bound = sqlguard.MAX_NESTING
    return {"near": levels_for(shape, bound - 50), "over": levels_for(shape, bound) + 1,
            "length limit": longest(shape)}


# Near the bound a text is parsed (about a second of pglast's time at 5000
# levels): the fast tier takes three shapes there, the long tier all of them.
NEAR_FAST = ("concat", "subquery", "json")


def texts(shapes=SHAPES, near=NEAR_FAST):
    for shape in shapes:
        for where, n in depths(shape).items():
            if where == "near" and shape not in near:
                continue
            text = nested(shape, n)
            assert len(text) <= sqlguard.MAX_SQL_CHARS, (shape, where)
            yield shape, where, text


@pytest.fixture
def witness(db, people, llm):
    """bob's session, opened before alice attacks; asserts it survived."""
    bob = db.connect("bob")
    start = bob.execute("select pg_postmaster_start_time(), pg_backend_pid()").fetchone()
    make_profile(people, llm)
    yield bob

    # After a crash the postmaster ends every session: bob's query would fail.
    assert bob.execute("select 1").fetchone() == (1,)
    assert bob.execute("select pg_postmaster_start_time(), pg_backend_pid()").fetchone() == start
    assert people.execute("select 1").fetchone() == (1,)


def outcome(fn) -> str:
    """'answer' or the SQLSTATE the call ended with."""
    import psycopg
    try:
        fn()
        return "answer"
    except psycopg.Error as e:
        assert e.sqlstate, f"no SQLSTATE (the session died?): {e}"
        return e.sqlstate


def repaired(llm) -> bool:
    return any("PostgreSQL could not use that query" in (r.json["messages"][-1]["content"] or "")
               for r in llm.chat_requests if r.json.get("messages"))


def _feedback_response(conn, llm, text):
    conn.execute("select dbms_cloud_ai.feedback('P', sql_text => 'select ai showsql deep', "
                 "feedback_type => 'negative', response => %s)", (text,))


def _model_action(action):
    def call(conn, llm, text):
        llm.script(Answer(text), Answer(GOOD))
        generate(conn, "how many people", "P", action)
    return call


def _repair_round(conn, llm, text):
    llm.script(Answer("SELEC count(*) FROM alice.people"), Answer(text))
    # the typed error, not Oracle's "Sorry, ..." text: the refusal is what is checked
    generate(conn, "how many people", "P", "showsql",
             attributes='{"raise_on_invalid_sql": true}')


def _select_ai_feedback(conn, llm, text):
    llm.script(Answer(GOOD))
    generate(conn, "how many people", "P", "showsql")
    llm.script(Answer('{"feedback_type": "negative"}'), Answer(text))
    out = conn.execute("select dbms_cloud_ai.select_ai('feedback wrong: count the ids')")
    assert out.fetchone()[0].startswith("Negative feedback recorded")


ENTRY_POINTS = {
    "feedback response": _feedback_response,
    "select_ai feedback": _select_ai_feedback,
    "showsql": _model_action("showsql"),
    "runsql": _model_action("runsql"),
    "explainsql": _model_action("explainsql"),
    "narrate": _model_action("narrate"),
    "repair round": _repair_round,
}


def attack(conn, llm, entry: str, shapes=SHAPES, near=NEAR_FAST):
    conn.execute("select dbms_cloud_ai.set_profile('P')")
    seen = {}
    for shape, where, text in texts(shapes, near):
        llm.reset()
        with case(f"{entry}, {shape}, {where} ({len(text)} chars)"):
            got = outcome(lambda text=text: ENTRY_POINTS[entry](conn, llm, text))
            seen[(shape, where)] = got
            if entry == "feedback response":
                # the text is refused (or, near the bound, possibly accepted)
                assert got in REFUSED or (got == "answer" and where == "near"), got
            elif entry == "repair round":
                # its only SQL is the deep one; near the bound it may be valid
                # (an AND chain is one flat BoolExpr)
                assert got in REFUSED or (got == "answer" and where == "near"), got
            elif entry == "select_ai feedback":
                assert got == "answer", got            # stored without a correction
            else:
                assert got == "answer", got            # the repair's query answered
                if where != "near":
                    assert repaired(llm), "the deep SQL was not refused"
    return seen


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_every_entry_point_survives_deep_sql(people, llm, witness, entry):
    seen = attack(people, llm, entry)
    assert len(seen) == 2 * len(SHAPES) + len(NEAR_FAST)


def test_a_maximal_reply_is_stripped_with_a_few_parses():
    """Prose stripping of the biggest reply nl2sql keeps: a few parses, fast."""
    sqlguard._load_pglast()
    # The longest SQL (many columns: wide, not deep) and the most prose kept.
    sql = "SELECT " + ", ".join(["p.age"] * 13_000) + " FROM alice.people p"
    prose = "\n".join(f"Line {i}: this explains the query; it's fine (really)."
                      for i in range(sqlguard.MAX_PROSE_CHARS // 50))
    room = sqlguard.MAX_SQL_CHARS + sqlguard.MAX_PROSE_CHARS - len(sql) - 2
    deep = "SELECT 1\n" + "||1" * 30_000
    for reply, expected in ((sql + "\n" + prose[:room], sql),
                            (sql + ";\n" + prose[:room], sql),
                            ("x" * (room + len(sql) + 3), None),
                            (deep, deep)):
        before, t = sqlguard.PARSES, time.perf_counter()
        out = nl2sql.extract(reply)
        parses, took = sqlguard.PARSES - before, time.perf_counter() - t
        assert parses <= 1 + 2 * sqlguard.STRIP_PARSES, parses
        assert took < 5, took
        assert out == (expected or reply)
    assert nl2sql.extract(sql + "\n" + prose[:5000]) == sql
    # A reply past the cap is not cut (a prefix could parse as a shorter
    # query): check refuses it as too long before parsing anything.
    long_reply = "SELECT 1 AS a" + " " * (sqlguard.MAX_SQL_CHARS - 20) + "\nDELETE FROM t"
    long_reply += "\nprose" * (sqlguard.MAX_PROSE_CHARS // 5)
    before = sqlguard.PARSES
    with pytest.raises(sqlguard.InvalidParameter, match="longer"):
        sqlguard.check(nl2sql.extract(long_reply))
    assert sqlguard.PARSES == before


def test_the_parser_thread_has_its_own_big_stack():
    """Parsing runs on one long-lived thread whose stack covers the bound."""
    import threading
    wide = "SELECT " + ", ".join(["p.age"] * 200) + " FROM alice.people p"
    assert sqlguard._solid(wide) > sqlguard.INLINE_CHARS   # short texts stay on this thread
    sqlguard.check(wide)
    thread = sqlguard._parser_thread.thread
    assert thread is not threading.current_thread() and thread.is_alive()
    sqlguard.check(wide + " WHERE p.age > 1")
    assert sqlguard._parser_thread.thread is thread
    # A chain far past the bound, which needs more than a backend's 8 MB of
    # stack to turn into Python objects: refused before any parser sees it.
    with pytest.raises(sqlguard.InvalidParameter, match="nested too deeply"):
        sqlguard.check("SELECT " + "1||" * 30_000 + "1")


# --- long tier -------------------------------------------------------------------------------



@pytest.mark.long
@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
def test_every_entry_point_survives_more_shapes(people, llm, witness, entry):
    seen = attack(people, llm, entry, ALL_SHAPES, near=ALL_SHAPES)
    assert len(seen) == 3 * len(ALL_SHAPES)


@pytest.mark.long
def test_an_8_mb_reply(people, llm, witness):
    """The biggest reply the HTTP layer takes, deep and long: refused quickly."""
    people.execute("select dbms_cloud_ai.set_profile('P')")
    for reply in ("SELECT " + "1||" * 2_700_000 + "1",
                  "Here it is:\n```sql\nSELECT " + "(" * 4_000_000 + "\n```",
                  "SELECT 1\n" + "This is prose. " * 500_000):
        llm.reset()
        llm.script(Answer(reply), Answer(reply))
        t = time.monotonic()
        got = outcome(lambda: generate(people, "how many people", "P", "showsql"))
        assert got in REFUSED or got == "answer", got
        assert time.monotonic() - t < 30
