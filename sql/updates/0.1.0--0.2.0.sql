-- Migration 0.1.0 -> 0.2.0: table changes only; build.py appends the whole api
-- part (functions, views, grants) with CREATE OR REPLACE.  New columns go at
-- the end of their table here and in sql/schema, so a fresh install and an
-- updated one end with identical catalogs (tests/test_upgrade.py).

-- Erasure also gives a summary-less conversation an empty summary row (generation 1):
-- a turn in flight that read no row would otherwise insert a summary made from
-- the erased prompts after the erasure.
create policy conversation_summary_admin_erase_insert on dbms_cloud_ai._conversation_summary for insert
    to dbms_cloud_ai_admin
    with check (summary is null
                and owner operator(pg_catalog.=) (select c.owner from dbms_cloud_ai._conversation c
                                                   where c.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id)
                and exists (select from dbms_cloud_ai._conversation_prompt p
                             where p.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id
                               and p.subject is not null and dbms_cloud_ai._administers(p.organization)));

-- Memory jobs only for the writer's own conversations; an administrator's update
-- keeps a job the job of its conversation's owner (tests/test_rls_matrix.py).
alter policy memory_job_owner on dbms_cloud_ai._memory_job
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _memory_job.conversation_id
                               and c.owner operator(pg_catalog.=) current_user));
alter policy memory_job_admin_update on dbms_cloud_ai._memory_job
    using (dbms_cloud_ai._administers(organization))
    with check (dbms_cloud_ai._administers(organization)
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _memory_job.conversation_id
                               and c.owner operator(pg_catalog.=) _memory_job.owner));

-- A row never changes owner.  Row-level security stops a role from writing
-- rows for another role, but the administrators' erasure policies let them
-- UPDATE other roles' conversations, summaries and memory jobs (blanking titles
-- and summaries, claiming jobs), and a WITH CHECK cannot compare the new row
-- with the old one: without this, an administrator could hand alice's
-- conversation or memory job to bob (tests/test_rls_matrix.py).  No code path
-- changes an owner; the trigger fires only when one would.
create function dbms_cloud_ai._owner_is_fixed() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
begin
    raise exception using
        errcode = 'insufficient_privilege',
        message = pg_catalog.format('rows of %s cannot change owner', tg_table_name),
        hint = 'Rows belong to the role that created them.';
end
$function$;
comment on function dbms_cloud_ai._owner_is_fixed() is
'trigger: the owner column of a row never changes';

create trigger owner_is_fixed before update of owner on dbms_cloud._credential
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._profile
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._conversation
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._conversation_prompt
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._conversation_summary
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._model_call
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._message_source
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._sql_statement
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._feedback
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._example
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._usage_daily
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._memory
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();
create trigger owner_is_fixed before update of owner on dbms_cloud_ai._memory_job
    for each row when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed();

-- Client request ids: one stored turn per (owner, request_id) (sql/schema/095-request-id.sql).
alter table dbms_cloud_ai._conversation_prompt
    add column request_id text check (pg_catalog.length(request_id) between 1 and 200);
create unique index _conversation_prompt_request_id on dbms_cloud_ai._conversation_prompt
    (owner, request_id) where request_id is not null;

-- (keep last: tables created above must get the owner too)
-- The tables belong to a NOLOGIN role that is no superuser, cannot bypass row-level
-- security and has no members, not to the superuser who ran CREATE EXTENSION:
-- nobody acts as the owner (who could switch row-level security off or drop
-- policies), and FORCE ROW LEVEL SECURITY binds the owner too (security.md 8.D3,
-- tests/test_rls_matrix.py).  Like the other roles it is cluster-wide and made
-- only when missing; one that exists must already be that harmless.
do $owner$
begin
    if not exists (select from pg_catalog.pg_roles where rolname operator(pg_catalog.=) 'dbms_cloud_ai_owner') then
        create role dbms_cloud_ai_owner nologin;
    end if;
    if exists (select from pg_catalog.pg_roles r
                where r.rolname operator(pg_catalog.=) 'dbms_cloud_ai_owner'
                  and (r.rolcanlogin or r.rolsuper or r.rolbypassrls))
       or exists (select from pg_catalog.pg_auth_members m
                    join pg_catalog.pg_roles r on r.oid operator(pg_catalog.=) m.roleid
                   where r.rolname operator(pg_catalog.=) 'dbms_cloud_ai_owner') then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = 'role dbms_cloud_ai_owner must be NOLOGIN, NOSUPERUSER and NOBYPASSRLS, without members',
            hint = 'Drop or alter the existing role, then run CREATE EXTENSION again.';
    end if;
end
$owner$;

do $tables$
declare
    t pg_catalog.regclass;
begin
    for t in select c.oid from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) c.relnamespace
              where n.nspname operator(pg_catalog.=) any (array['dbms_cloud', 'dbms_cloud_ai'])
                and c.relkind operator(pg_catalog.=) any (array['r', 'p']::"char"[])
              order by c.oid loop
        execute pg_catalog.format('alter table %s owner to dbms_cloud_ai_owner', t);
    end loop;
end
$tables$;
-- Foreign-key checks and cascades run as the table owner.  (The users' grant is
-- taken back and given again by the api part's grants below, so the schemas'
-- ACLs list the roles in a fresh install's order.)
revoke usage on schema dbms_cloud, dbms_cloud_ai from dbms_cloud_ai_user;
grant usage on schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_owner;
