-- Migration 0.2.0 -> 0.3.0: table changes only ("-- include schema/…" splices a
-- schema file in whole); build.py appends the whole api part (functions, views,
-- grants) with CREATE OR REPLACE.  New columns go at the end of their table here
-- and in sql/schema, so a fresh install and an updated one end with identical
-- catalogs (tests/test_upgrade.py).  Anything that creates a table goes above
-- the include of 098-table-owner.sql; only files that create no table (099) follow it.

-- Rows a user could forge before 0.3.0 (direct INSERT): counts below zero become 0.
update dbms_cloud_ai._model_call set input_tokens = 0 where input_tokens operator(pg_catalog.<) 0;
update dbms_cloud_ai._model_call set output_tokens = 0 where output_tokens operator(pg_catalog.<) 0;
update dbms_cloud_ai._model_call set latency_ms = 0 where latency_ms operator(pg_catalog.<) 0;
update dbms_cloud_ai._model_call set attempts = 1 where attempts operator(pg_catalog.<) 1;
-- Owner columns default to the role an API call acts for (writes run as
-- dbms_cloud_ai_owner for the caller: 011-caller.sql, 099-writer.sql).
-- include schema/011-caller.sql
alter table dbms_cloud._credential alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._profile alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._host_ace alter column created_by set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._conversation alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._conversation_prompt alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._model_call alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._message_source alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._sql_statement alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._feedback alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._example alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._conversation_summary alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._memory_role alter column modified_by set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._memory_organization alter column modified_by set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._memory alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._memory_job alter column owner set default dbms_cloud_ai._caller();
alter table dbms_cloud_ai._memory_erasure alter column actor set default dbms_cloud_ai._caller();
-- A call dated in the future (forgeable before 0.3.0) counts from now on.
update dbms_cloud_ai._model_call set created = pg_catalog.now()
 where created operator(pg_catalog.>) pg_catalog.now();
-- include schema/074-forget-summaries.sql
-- include schema/091-admin-settings.sql
-- include schema/097-role-binding.sql

-- Bind every role name that already holds rows to the role that has the name
-- now; a name whose role is gone is bound to no role (OID 0), so a role created
-- later with that name does not inherit its rows (drop_role_data removes them).
insert into dbms_cloud_ai._role_binding (role_name, role_oid)
select n.role_name, coalesce(r.oid, 0::oid)
  from (select owner from dbms_cloud._credential
        union select owner from dbms_cloud_ai._profile
        union select owner from dbms_cloud_ai._conversation
        union select owner from dbms_cloud_ai._conversation_prompt
        union select owner from dbms_cloud_ai._conversation_summary
        union select owner from dbms_cloud_ai._model_call
        union select owner from dbms_cloud_ai._message_source
        union select owner from dbms_cloud_ai._sql_statement
        union select owner from dbms_cloud_ai._feedback
        union select owner from dbms_cloud_ai._example
        union select owner from dbms_cloud_ai._usage_daily
        union select owner from dbms_cloud_ai._memory
        union select owner from dbms_cloud_ai._memory_job
        union select principal from dbms_cloud_ai._token_budget
        union select role_name from dbms_cloud_ai._memory_role
        union select principal_name::name from dbms_cloud_ai._host_ace) n (role_name)
  left join pg_catalog.pg_roles r on r.rolname operator(pg_catalog.=) n.role_name
 where n.role_name operator(pg_catalog.<>) 'PUBLIC'
on conflict (role_name) do nothing;

-- include schema/098-table-owner.sql
-- Policies for the accounting writer, who is dbms_cloud_ai_owner (made by 098).
-- include schema/099-accounting-writer.sql
-- The write path for every other table (issue 14, class 2).
-- include schema/099-writer.sql
