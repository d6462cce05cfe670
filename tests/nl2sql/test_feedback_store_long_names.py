"""Oracle's feedback store for a profile whose name makes <PROFILE>_FEEDBACK_VECINDEX$VECTAB
longer than PostgreSQL's 63 bytes (Oracle's SDK test profiles do): the view is made under the
name cut as PostgreSQL cuts it in a query, so the SDK's statement reads it, and it goes with
the profile."""

from __future__ import annotations

from helpers import make_profile
from nl2sql.test_feedback import Q_COUNT, feedback, showsql
from nl2sql_fixtures import people  # noqa: F401 - fixture

LONG = "PYSAI_1200_" + "0123456789ABCDEF" * 2  # 43 characters, as in Oracle's suite


def test_long_profile_name_gets_the_cut_view_name(people, llm):
    make_profile(people, llm, LONG)
    showsql(people, llm, Q_COUNT, profile=LONG)
    feedback(people, LONG, sql_text=f"select ai showsql {Q_COUNT}", feedback_type="positive")
    full = f"{LONG}_FEEDBACK_VECINDEX$VECTAB"
    assert len(full) > 63
    (relname,) = people.execute(
        "select c.relname from pg_class c where c.relnamespace = 'alice'::regnamespace"
        " and c.relkind = 'v' and c.relname like 'pysai_1200_%'").fetchone()
    assert relname == full.lower()[:63]
    # the SDK's query names the view in full: PostgreSQL cuts it to the same name
    [(content,)] = people.execute(f"select content from {full}").fetchall()
    assert content == Q_COUNT
    people.execute("select dbms_cloud_ai.drop_profile(%s)", (LONG,))
    assert people.execute("select to_regclass(%s)", (full.lower()[:63],)).fetchone()[0] is None
