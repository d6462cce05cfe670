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

-- Issue 30, class 2: a shared profile or vector index is usable only while its
-- owner is the live role that made it (011-caller.sql, 089, 094, 099).
create function dbms_cloud_ai._role_is_live(role_name name)
returns boolean language plpgsql stable parallel safe security definer
set search_path to pg_catalog, pg_temp
as $$
begin
    return exists (select from pg_catalog.pg_roles r
                    where r.rolname operator(pg_catalog.=) _role_is_live.role_name
                      and not exists (select from dbms_cloud_ai._role_binding b
                                       where b.role_name operator(pg_catalog.=) _role_is_live.role_name
                                         and b.role_oid operator(pg_catalog.<>) r.oid));
end
$$;
comment on function dbms_cloud_ai._role_is_live(name) is
'true while the role that stored this name''s rows exists under it (a shared object''s owner)';
alter policy profile_grant_read on dbms_cloud_ai._profile_grant
    using (owner operator(pg_catalog.=) current_user
           or ((grantee_oid operator(pg_catalog.=) 0
                or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                    and pg_catalog.pg_has_role(current_user, grantee_oid, 'USAGE')))
               and dbms_cloud_ai._role_is_live(owner)));
alter policy profile_grant_shared_read on dbms_cloud_ai._profile_grant
    using ((grantee_oid operator(pg_catalog.=) 0
            or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                and pg_catalog.pg_has_role((select dbms_cloud_ai._caller()), grantee_oid, 'USAGE')))
           and dbms_cloud_ai._role_is_live(owner));
alter policy vector_index_grant_read on dbms_cloud_ai._vector_index_grant
    using (owner operator(pg_catalog.=) current_user
           or ((grantee_oid operator(pg_catalog.=) 0
                or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                    and pg_catalog.pg_has_role(current_user, grantee_oid, 'USAGE')))
               and dbms_cloud_ai._role_is_live(owner)));

-- issue 30, class 5: one tenant cannot starve or overspend another.
-- Memory jobs: a cap on each role's pending jobs (per organization), and each
-- job's timeouts, from which its owner's back-off is computed (memory/jobs.py).
alter table dbms_cloud_ai._memory_organization
    add column max_pending_jobs integer not null default 1000
        check (max_pending_jobs between 1 and 100000);
alter table dbms_cloud_ai._memory_job
    add column timeouts integer not null default 0,
    add column timed_out_at timestamptz;
create index on dbms_cloud_ai._memory_job (owner, due_at) where status operator(pg_catalog.=) 'pending';
create index on dbms_cloud_ai._memory_job (owner) where timeouts operator(pg_catalog.>) 0;
-- The owner's daily token budget for what each grantee spends through a shared
-- profile (set_profile_grant_budget; model/budget.py).
alter table dbms_cloud_ai._profile_grant
    add column daily_tokens bigint check (daily_tokens operator(pg_catalog.>=) 0);

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
