-- Migration 0.2.0 -> 0.3.0: table changes only ("-- include schema/…" splices a
-- schema file in whole); build.py appends the whole api part (functions, views,
-- grants) with CREATE OR REPLACE.  New columns go at the end of their table here
-- and in sql/schema, so a fresh install and an updated one end with identical
-- catalogs (tests/test_upgrade.py).  Anything that creates a table goes above
-- the include of 098-table-owner.sql, which stays last.

-- Rows a user could forge before 0.3.0 (direct INSERT): counts below zero become 0.
update dbms_cloud_ai._model_call set input_tokens = 0 where input_tokens operator(pg_catalog.<) 0;
update dbms_cloud_ai._model_call set output_tokens = 0 where output_tokens operator(pg_catalog.<) 0;
update dbms_cloud_ai._model_call set latency_ms = 0 where latency_ms operator(pg_catalog.<) 0;
update dbms_cloud_ai._model_call set attempts = 1 where attempts operator(pg_catalog.<) 1;
-- include schema/062-accounting-writer.sql
-- include schema/091-admin-settings.sql

-- include schema/098-table-owner.sql
