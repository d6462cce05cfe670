-- Migration 0.1.0 -> 0.2.0: table changes only ("-- include schema/…" splices a
-- schema file in whole); build.py appends the whole api
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

-- Rows never change owner: a trigger on every table with an owner column.
-- include schema/096-fixed-row-owner.sql

-- Client request ids: one stored turn per (owner, request_id).
-- include schema/095-request-id.sql

-- (keep last: tables created above must get the owner too.)  The users' schema
-- grant is taken back here and given again by the api part, so the schemas'
-- ACLs list the roles in a fresh install's order (owner first).
revoke usage on schema dbms_cloud, dbms_cloud_ai from dbms_cloud_ai_user;
-- include schema/098-table-owner.sql
