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

-- The last refresh's outcome (089-vector-indexes.sql; its error is in
-- _vector_index_content, below: issue 30, class 4).
alter table dbms_cloud_ai._vector_index
    add column last_refresh_status text check (last_refresh_status in ('OK', 'FAILED')),
    add column last_refresh_at timestamptz;

-- pg_cron jobs of vector indexes (rag/schedule.py) scheduled by 0.7.0 call
-- refresh_vector_index; 0.8.0's call refresh_vector_index_job, which records a
-- failed refresh.  Only pg_cron's own cron.job (a member of that extension): a
-- table a role planted as cron.job is never written by this superuser script.
do $cron_jobs$
begin
    if exists (select from pg_catalog.pg_depend d
                 join pg_catalog.pg_extension e on e.oid operator(pg_catalog.=) d.refobjid
                where d.classid operator(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                  and d.objid operator(pg_catalog.=) pg_catalog.to_regclass('cron.job')
                  and d.deptype operator(pg_catalog.=) 'e'
                  and e.extname operator(pg_catalog.=) 'pg_cron') then
        update cron.job
           set command = pg_catalog.replace(command, 'select dbms_cloud_ai.refresh_vector_index(',
                                            'select dbms_cloud_ai.refresh_vector_index_job(')
         where jobname operator(pg_catalog.~~) 'dbms_cloud_ai vector index %'
           and command operator(pg_catalog.~~) 'select dbms_cloud_ai.refresh_vector_index(%';
    end if;
end
$cron_jobs$;

-- Administrators read every vector index (dba_cloud_vector_indexes), not its
-- chunks: the chunk policy says own or granted itself (089-vector-indexes.sql).
alter policy vector_chunk_read on dbms_cloud_ai._vector_chunk
    using (exists (select from dbms_cloud_ai._vector_index i
                    where i.index_id operator(pg_catalog.=) _vector_chunk.index_id)
           and (owner operator(pg_catalog.=) current_user
                or exists (select from dbms_cloud_ai._vector_index_grant g
                            where g.index_id operator(pg_catalog.=) _vector_chunk.index_id
                              and (g.grantee_oid operator(pg_catalog.=) 0
                                   or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                       and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))));
create policy vector_index_admin_read on dbms_cloud_ai._vector_index for select
    to dbms_cloud_ai_admin using (true);

-- issue 30, classes 3 and 4.
-- Class 4: what a vector index's row derives from its documents (common_words,
-- and the last refresh's error, above) moves to a table that administrators
-- read only for indexes shared with them, as the chunks (090-vector-index-content.sql).
-- include schema/090-vector-index-content.sql
insert into dbms_cloud_ai._vector_index_content (index_id, owner, common_words)
select i.index_id, i.owner, i.common_words from dbms_cloud_ai._vector_index i
 where i.common_words is not null;
alter table dbms_cloud_ai._vector_index drop column common_words;
-- include schema/098-table-owner.sql
-- include schema/099-vector-index-content-writer.sql
-- Class 3: the HNSW indexes are built and dropped by procedures, each DDL in a
-- transaction of its own; pg_cron's job is the procedure refresh_vector_index_job
-- (what 0.7.0's jobs were pointed at above): CALL it.  pg_cron's own cron.job only.
do $cron_jobs_call$
begin
    if exists (select from pg_catalog.pg_depend d
                 join pg_catalog.pg_extension e on e.oid operator(pg_catalog.=) d.refobjid
                where d.classid operator(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                  and d.objid operator(pg_catalog.=) pg_catalog.to_regclass('cron.job')
                  and d.deptype operator(pg_catalog.=) 'e'
                  and e.extname operator(pg_catalog.=) 'pg_cron') then
        update cron.job
           set command = pg_catalog.replace(command, 'select dbms_cloud_ai.refresh_vector_index_job(',
                                            'call dbms_cloud_ai.refresh_vector_index_job(')
         where jobname operator(pg_catalog.~~) 'dbms_cloud_ai vector index %'
           and command operator(pg_catalog.~~) 'select dbms_cloud_ai.refresh_vector_index_job(%';
    end if;
end
$cron_jobs_call$;
