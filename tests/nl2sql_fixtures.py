"""Fixture SQL for the NL2SQL tests: Oracle's SDK tables and the demo's sales schema.

PEOPLE_GYMNAST is Oracle's select-ai SDK fixture (python tests/create_schema.py,
Java IntegrationTestFixture) with Oracle types mapped to PostgreSQL ones
(NUMBER -> numeric, VARCHAR2 -> varchar) and the same rows.
"""

from __future__ import annotations

import pytest
from paths import ROOT

PEOPLE_GYMNAST = """
create table {schema}.people (
    id numeric primary key,
    name varchar(50),
    age numeric,
    height numeric,
    hometown varchar(100));
insert into {schema}.people (id, name, age, height, hometown) values
    (1, 'John Smith', 22, 170, 'New York'),
    (2, 'Emma Johnson', 20, 165, 'Los Angeles'),
    (3, 'Michael Brown', 24, 180, 'Chicago'),
    (4, 'Sophia Lee', 19, 160, 'Houston'),
    (5, 'William Kim', 21, 175, 'San Francisco');
create table {schema}.gymnast (
    id numeric primary key,
    floor_ex_points numeric,
    rings_points numeric,
    parallel_bars_points numeric,
    horizontal_bar_points numeric,
    total_points numeric,
    foreign key (id) references {schema}.people (id));
insert into {schema}.gymnast (id, floor_ex_points, rings_points, parallel_bars_points,
                              horizontal_bar_points, total_points) values
    (1, 9.5, 8.8, 9.2, 9.0, 36.5),
    (2, 8.7, 9.0, 8.5, 8.9, 35.1),
    (3, 9.0, 9.2, 9.1, 9.3, 36.6),
    (4, 8.5, 8.0, 8.7, 8.3, 33.5),
    (5, 9.2, 8.5, 8.9, 9.1, 35.7);
"""

# The demo's sample schema creates schema sh and grants nothing: readers need
# USAGE on the schema and SELECT on its tables.
SALES_SCHEMA = (ROOT / "demo" / "sample_schema.sql").read_text()
SALES_GRANTS = """
grant usage on schema sh to {role};
grant select on all tables in schema sh to {role};
"""


# --- fixtures shared by the NL2SQL and feedback tests (import them by name) ----------------------

@pytest.fixture
def people(alice):
    """alice with Oracle's SDK fixture tables in her schema, allowed to run generated SQL."""
    alice.execute(PEOPLE_GYMNAST.format(schema="alice"))
    alice.execute("set statement_timeout = '20s'")
    return alice
