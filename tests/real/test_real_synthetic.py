"""GENERATE_SYNTHETIC_DATA against a real model (issue 18): a few rows that satisfy
the table's types and constraints.  What any competent model gets right at
temperature 0: a JSON array of rows with the keys asked for.  The fixtures:
tests/real/real_fixtures.py."""

from __future__ import annotations

import pytest
from real.real_fixtures import local_model, real  # noqa: F401 - fixtures

pytestmark = pytest.mark.real


def test_rows_that_fit_the_table(real):
    real.execute("""create table alice.people (
                        id int primary key, name text not null,
                        age int not null check (age between 18 and 99),
                        email text unique)""")
    report = real.execute("""select dbms_cloud_ai.generate_synthetic_data(
                                 profile_name => 'P', object_name => 'people', owner_name => 'alice',
                                 record_count => 3, user_prompt => 'employees of a bakery')"""
                          ).fetchone()[0]
    assert report[0]["inserted"] == 3, report
    rows = real.execute("select id, name, age, email from alice.people").fetchall()
    assert len(rows) == 3 and all(r[1].strip() and 18 <= r[2] <= 99 for r in rows), rows
