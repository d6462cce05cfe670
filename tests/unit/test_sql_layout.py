"""sql/ is laid out by concern, and each table is declared in its concern's files.

sql/build.py refuses a layout that mixes concerns under one prefix; a table's
declaration (create table, policies, triggers, grants, views) stays in its
concern's schema and api files, so few files name it.  (drop_role_data finds
the tables whose rows a role binding guards in the catalog, so it names none of
them: tests/security/test_dropped_role_rows.py checks that no row is left.)
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import statistics

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SQL = ROOT / "sql"
spec = importlib.util.spec_from_file_location("sql_build", SQL / "build.py")
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)

CREATE_TABLE = re.compile(r"^create table (dbms_cloud(?:_ai)?\.\w+)", re.M)
COMMENT = re.compile(r"--[^\n]*")


def _code(path: pathlib.Path) -> str:
    """The file's SQL without its comments (a comment mentioning a table declares nothing)."""
    return COMMENT.sub("", path.read_text())


def files_per_table(sql: pathlib.Path) -> dict[str, int]:
    """For each table of the extension, how many files of sql/schema and sql/api name it."""
    files = {p: _code(p) for part in ("schema", "api") for p in sorted((sql / part).glob("*.sql"))}
    tables = {t for text in files.values() for t in CREATE_TABLE.findall(text)}
    # the qualified name, not followed by more of a name (_conversation is not _conversation_prompt)
    return {t: sum(1 for text in files.values() if re.search(re.escape(t) + r"(?!\w)", text))
            for t in sorted(tables)}


@pytest.mark.parametrize("names, problem", [
    ({"schema": ["030-profiles.sql"], "api": ["030-profiles.sql", "030-profiles-session.sql"]}, None),
    ({"schema": ["030-profiles.sql", "030-profiles-sharing.sql"], "api": []}, None),
    ({"schema": ["130-vector-indexes.sql"], "api": ["130-synthetic-data.sql"]}, "130-"),
    ({"schema": ["130-vector-indexes.sql", "130-synthetic-data.sql"], "api": []}, "130-"),
    ({"schema": ["040-host-acl.sql"], "api": ["040-acl.sql"]}, "040-host-acl"),
    ({"schema": ["050-conversations.sql", "050-conversation-summary.sql"], "api": []}, "050-conversation-summary"),
    ({"schema": ["50-x.sql"], "api": []}, "50-x.sql"),
])
def test_build_refuses_two_concerns_under_one_prefix(names, problem):
    problems = build.check_layout(names)
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problem in problems[0]


def test_the_tree_has_one_concern_per_prefix():
    names = {part: [p.name for p in (SQL / part).glob("*.sql")] for part in ("schema", "api")}
    assert build.check_layout(names) == []


def test_a_concern_file_comes_before_its_parts():
    files = [SQL / "schema" / n for n in ("030-profiles-sharing.sql", "030-profiles.sql", "020-credentials.sql")]
    assert [p.name for p in build.ordered(files)] == [
        "020-credentials.sql", "030-profiles.sql", "030-profiles-sharing.sql"]


def test_a_table_is_named_in_few_files():
    counts = files_per_table(SQL)
    assert len(counts) >= 25, counts
    median = statistics.median(counts.values())
    print(f"\nfiles of sql/schema + sql/api naming a table, median over {len(counts)} tables: {median}")
    assert median <= 2, counts


def _concern_rows() -> list[list[str]]:
    """The rows of docs/development.md's table of concerns."""
    text = (ROOT / "docs" / "development.md").read_text()
    table = text.split("| Concern | `sql/` prefix |", 1)[1].split("\n\n", 1)[0]
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in table.splitlines()[2:] if line.startswith("|")]


def test_every_concern_has_one_name_across_the_tree():
    rows = _concern_rows()
    assert len(rows) >= 15, rows
    topic = build.topics(p.name for part in ("schema", "api") for p in (SQL / part).glob("*.sql"))
    assert sorted(r[1] for r in rows) == sorted(topic), "a prefix of sql/ missing from the table"
    for concern, prefix, docs, python, tests in rows:
        assert topic[prefix] == concern, (prefix, concern)
        for page in filter(None, (s.strip() for s in docs.split(","))):
            assert (ROOT / "docs" / "reference" / page).is_file(), page
        for path in filter(None, (s.strip() for s in python.split(","))):
            assert (ROOT / "python" / "src" / "dbms_cloud_ai" / path).exists(), path
        assert (ROOT / "tests" / tests).is_dir(), tests
