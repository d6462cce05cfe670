"""Oracle's feedback store, <PROFILE>_FEEDBACK_VECINDEX$VECTAB, as Oracle's SDK
reads it: a view in the caller's current schema made at its first feedback for
the profile, read-only, showing only the reader's own rows, dropped with the
profile."""

from __future__ import annotations

import json

from helpers import make_profile, raises
from nl2sql.test_feedback import CORRECT_SQL, COUNT_SHOWN, Q_COUNT, feedback, showsql
from nl2sql_fixtures import people  # noqa: F401 - fixture

VIEW = "p1_feedback_vecindex$vectab"


def store(conn, where="true", params=()):
    return conn.execute(f"select content, attributes, embedding from {VIEW} where {where}",
                        params).fetchall()


def test_first_feedback_creates_the_store_view(people, llm):
    make_profile(people, llm, "P1", embedding_model="text-embedding-3-small")
    assert people.execute("select to_regclass(%s)", (VIEW,)).fetchone()[0] is None
    showsql(people, llm, Q_COUNT, profile="P1")
    feedback(people, "P1", sql_text=f"select ai showsql {Q_COUNT}", feedback_type="negative",
             response=CORRECT_SQL, feedback_content="count ids")
    # as Oracle's SDK names it, unquoted: PostgreSQL folds it to the view's name
    assert people.execute("select count(*) from P1_FEEDBACK_VECINDEX$VECTAB").fetchone()[0] == 1
    [(content, attributes, embedding)] = store(
        people, "attributes->>'sql_text' = %s", (f"select ai showsql {Q_COUNT}",))
    assert content == Q_COUNT
    assert attributes["feedback_content"] == "count ids"
    assert attributes["feedback_type"] == "negative"
    assert attributes["response"] == CORRECT_SQL and attributes["generated_sql"] == COUNT_SHOWN
    assert embedding is not None and len(embedding) > 0
    # Further feedback reuses it; the positive one has no correction to embed but a row.
    llm.script()
    showsql(people, llm, "how many gymnasts", profile="P1")
    feedback(people, "P1", sql_text="select ai showsql how many gymnasts", feedback_type="positive")
    assert len(store(people)) == 2


def test_store_view_is_read_only_and_private(db, people, llm, bob):
    make_profile(people, llm, "P1")
    showsql(people, llm, Q_COUNT, profile="P1")
    feedback(people, "P1", sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    for sql in (f"insert into {VIEW} (content) values ('x')", f"delete from {VIEW}",
                f"update {VIEW} set content = 'x'"):
        with raises("55000"):
            people.execute(sql)
    people.execute(f"grant select on alice.{VIEW} to bob")
    people.execute("grant usage on schema alice to bob")
    assert bob.execute(f"select count(*) from alice.{VIEW}").fetchone()[0] == 0
    # bob's own profile of the same name: his rows only, in his own view
    make_profile(bob, llm, "P1", credential="BOBCRED")
    assert bob.execute(f"select count(*) from alice.{VIEW}").fetchone()[0] == 0
    assert len(store(people)) == 1


def test_drop_profile_drops_the_store_view(people, llm):
    make_profile(people, llm, "P1")
    showsql(people, llm, Q_COUNT, profile="P1")
    feedback(people, "P1", sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    people.execute("create view keep_me as select 1 as x")
    people.execute("select dbms_cloud_ai.drop_profile('P1')")
    assert people.execute("select to_regclass(%s)", (VIEW,)).fetchone()[0] is None
    assert people.execute("select to_regclass('keep_me')").fetchone()[0] is not None


def test_a_relation_of_that_name_is_left_alone(people, llm):
    people.execute(f'create table "{VIEW}" (note text)')
    make_profile(people, llm, "P1")
    showsql(people, llm, Q_COUNT, profile="P1")
    feedback(people, "P1", sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    people.execute("select dbms_cloud_ai.drop_profile('P1')")
    assert json.dumps(people.execute(f'select count(*) from "{VIEW}"').fetchone()[0]) == "0"
