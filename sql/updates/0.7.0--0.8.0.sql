-- Migration 0.7.0 -> 0.8.0: table changes only ("-- include schema/…" splices a
-- schema file in whole); build.py appends the whole api part (functions, views,
-- grants) with CREATE OR REPLACE.  New columns go at the end of their table here
-- and in sql/schema, so a fresh install and an updated one end with identical
-- catalogs (tests/test_upgrade.py).  Anything that creates a table goes above
-- an include of 098-table-owner.sql; only files that create no table (099) follow it.

-- drop_vector_index gains schema_name (where include_data => false keeps the
-- data) and Oracle's default include_data => false: a new signature.
drop function dbms_cloud_ai.drop_vector_index(text, boolean, boolean);
drop function dbms_cloud_ai._py_drop_vector_index(text, boolean, boolean);   -- its body (build.py)

-- The last refresh's outcome (089-vector-indexes.sql).
alter table dbms_cloud_ai._vector_index
    add column last_refresh_status text check (last_refresh_status in ('OK', 'FAILED')),
    add column last_refresh_error text,
    add column last_refresh_at timestamptz;
