"""tests/tables.py against the catalog, and the rules every table follows.

A new table of the extension fails here until it has its row in tests/tables.py;
the rules of sql/api/990-table-rules.sql (the owner dbms_cloud_ai_owner, owner_is_fixed,
the dump of identity sequences) are checked on every table, from the catalog, so
that they hold for tables nobody listed.
"""

from __future__ import annotations

import os

import pytest
from tables import TABLES

pytestmark = pytest.mark.skipif(not os.environ.get("DCA_PGHOST"), reason="no server: run `make test`")

_TABLES = """
    select c.oid::regclass::text, c.oid
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
     where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind in ('r', 'p')"""


def _tables(db) -> dict:
    return dict(db.admin.execute(_TABLES).fetchall())


def test_every_table_is_classified_once(db):
    assert set(_tables(db)) == set(TABLES)


def test_every_table_is_owned_by_the_owner_role_with_forced_row_level_security(db):
    rows = db.admin.execute("""
        select c.oid::regclass::text, pg_catalog.pg_get_userbyid(c.relowner), c.relrowsecurity,
               c.relforcerowsecurity
          from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind in ('r', 'p')""").fetchall()
    assert rows and all(r[1:] == ("dbms_cloud_ai_owner", True, True) for r in rows), rows


def test_every_table_with_an_owner_column_keeps_its_rows_owner(db):
    """The trigger owner_is_fixed is on exactly the tables with an owner column."""
    with_owner = {r[0] for r in db.admin.execute("""
        select a.attrelid::regclass::text from pg_catalog.pg_attribute a
          join pg_catalog.pg_class c on c.oid = a.attrelid
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind in ('r', 'p')
           and a.attname = 'owner' and not a.attisdropped""")}
    triggered = {r[0] for r in db.admin.execute("""
        select t.tgrelid::regclass::text from pg_catalog.pg_trigger t
         where t.tgname = 'owner_is_fixed' and t.tgenabled = 'O'
           and t.tgfoid = 'dbms_cloud_ai._owner_is_fixed()'::regprocedure""")}
    assert len(with_owner) >= 13 and triggered == with_owner
    assert {t.name for t in TABLES.values() if t.role_column == "owner"} == with_owner


def test_dumped_tables_and_their_sequences(db):
    config = {r[0] for r in db.admin.execute("""
        select x.oid::regclass::text from pg_catalog.pg_extension e, unnest(e.extconfig) x(oid)
         where e.extname = 'dbms_cloud_ai'""")}
    sequences = {r[0] for r in db.admin.execute("""
        select pg_catalog.pg_get_serial_sequence(c.oid::regclass::text, a.attname)
          from pg_catalog.pg_class c
          join pg_catalog.pg_namespace n on n.oid = c.relnamespace
          join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
         where n.nspname in ('dbms_cloud', 'dbms_cloud_ai') and c.relkind = 'r'
           and pg_catalog.pg_get_serial_sequence(c.oid::regclass::text, a.attname) is not null""")}
    dumped = {t.name for t in TABLES.values() if t.dumped}
    assert config - sequences == dumped
    assert sequences and sequences <= config, sequences - config
