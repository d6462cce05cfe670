-- After 098-table-owner.sql (the role dbms_cloud_ai_owner).
-- The write path (issue 14, class 2): ordinary roles hold no INSERT, UPDATE or
-- DELETE on these tables.  An API call's writes run in dbms_cloud_ai._write as
-- dbms_cloud_ai_owner (python/src/dbms_cloud_ai/writer.py), for the role that
-- called, which dbms_cloud_ai._caller() names there.  Row-level security is
-- forced on the owner too, so the owner role gets these policies: the same rules
-- as the users' own policies, for the caller instead of current_user.  A write
-- statement that forgot its owner condition still reaches only the caller's rows.
-- Tables whose rows need nothing but their owner:
do $writer$
declare
    t pg_catalog.regclass;
begin
    foreach t in array array['dbms_cloud._credential', 'dbms_cloud_ai._profile',
                             'dbms_cloud_ai._conversation', 'dbms_cloud_ai._sql_statement',
                             'dbms_cloud_ai._feedback']::pg_catalog.regclass[] loop
        execute pg_catalog.format(
            'create policy %I on %s to dbms_cloud_ai_owner '
            'using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())) '
            'with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))',
            pg_catalog.ltrim((select c.relname from pg_catalog.pg_class c
                               where c.oid operator(pg_catalog.=) t), '_') operator(pg_catalog.||) '_writer',
            t);
    end loop;
end
$writer$;
-- The others, like the users' policies, also check what a row points at.
create policy conversation_prompt_writer on dbms_cloud_ai._conversation_prompt to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _conversation_prompt.conversation_id
                               and c.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())));
create policy conversation_summary_writer on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id
                               and c.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())));
create policy example_writer on dbms_cloud_ai._example to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and (feedback_id is null
                     or exists (select from dbms_cloud_ai._feedback f
                                 where f.feedback_id operator(pg_catalog.=) _example.feedback_id
                                   and f.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())))
                and (conversation_prompt_id is null
                     or exists (select from dbms_cloud_ai._conversation_prompt p
                                 where p.conversation_prompt_id operator(pg_catalog.=) _example.conversation_prompt_id
                                   and p.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))));
-- A memory only in the caller's own organization (its memory role's, else the database's).
create policy memory_writer on dbms_cloud_ai._memory to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and organization operator(pg_catalog.=) (
                    select coalesce((select r.organization from dbms_cloud_ai._memory_role r
                                      where r.role_name operator(pg_catalog.=) (select dbms_cloud_ai._caller())),
                                    pg_catalog.current_database()::text)));
create policy memory_job_writer on dbms_cloud_ai._memory_job to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _memory_job.conversation_id
                               and c.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())));
-- What the write statements and the policies above read besides the caller's rows.
create policy memory_role_writer_read on dbms_cloud_ai._memory_role for select to dbms_cloud_ai_owner
    using (role_name operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy memory_organization_writer_read on dbms_cloud_ai._memory_organization for select
    to dbms_cloud_ai_owner using (true);
-- The writer binds the caller's name to its role (the insert policy every role
-- has) and reads the binding back.
create policy role_binding_writer_read on dbms_cloud_ai._role_binding for select to dbms_cloud_ai_owner
    using (true);
-- No future dates: the package stamps a call when it happens; a row dated
-- later would count against today's budgets until that day.
alter table dbms_cloud_ai._model_call add constraint model_call_not_in_future
    check (created operator(pg_catalog.<=) (pg_catalog.statement_timestamp() operator(pg_catalog.+) interval '5 minutes'));
