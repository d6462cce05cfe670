-- Migration 0.5.0 -> 0.6.0: table changes only ("-- include schema/…" splices a
-- schema file in whole); build.py appends the whole api part (functions, views,
-- grants) with CREATE OR REPLACE.  New columns go at the end of their table here
-- and in sql/schema, so a fresh install and an updated one end with identical
-- catalogs (tests/test_upgrade.py).  Anything that creates a table goes above
-- an include of 098-table-owner.sql; only files that create no table (099) follow it.

-- Memories found by meaning (issue 17): the fact's embedding when the job's
-- profile has an embedding_model.
alter table dbms_cloud_ai._memory add column embedding float4[];
alter table dbms_cloud_ai._memory add column embedding_model text;

-- Profile attributes shown as the user gave them (issue 18): their text beside the
-- typed values; rows of earlier versions have none and are shown from the typed values.
alter table dbms_cloud_ai._profile add column attribute_text jsonb not null default '{}';

-- The data-access switch (issue 18: enable_data_access / disable_data_access) and
-- annotations on tables and columns (issue 18): the tables, their owner, then the
-- annotation writer's policy (it needs the owner role of 098).
-- include schema/092-data-access.sql
-- include schema/093-annotations.sql
-- include schema/098-table-owner.sql
-- include schema/099-annotation-writer.sql
