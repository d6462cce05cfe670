-- Migration 0.2.0 -> 0.3.0: table changes only ("-- include schema/…" splices a
-- schema file in whole); build.py appends the whole api part (functions, views,
-- grants) with CREATE OR REPLACE.  New columns go at the end of their table here
-- and in sql/schema, so a fresh install and an updated one end with identical
-- catalogs (tests/test_upgrade.py).  Anything that creates a table goes above
-- the include of 098-table-owner.sql, which stays last.

-- include schema/091-admin-settings.sql

-- include schema/098-table-owner.sql
