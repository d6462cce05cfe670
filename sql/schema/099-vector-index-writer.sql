-- After 098-table-owner.sql (the role dbms_cloud_ai_owner), 097-role-binding.sql
-- and 089-vector-indexes.sql.  The writer (writer.py) writes the caller's own
-- indexes, chunks and grants; the foreign keys on (index_id, owner) keep chunks
-- and grants with their index's owner.
create policy vector_index_writer on dbms_cloud_ai._vector_index to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy vector_chunk_writer on dbms_cloud_ai._vector_chunk to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy vector_index_grant_writer on dbms_cloud_ai._vector_index_grant to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
-- A later role of a dropped owner's name reads none of its rows (097); the
-- chunks follow their index (vector_chunk_read).
create policy vector_index_role_bound on dbms_cloud_ai._vector_index as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy vector_index_grant_role_bound on dbms_cloud_ai._vector_index_grant as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
-- drop_role_data: administrators delete a dropped role's indexes, chunks and grants.
do $drop_role$
declare
    t text;
begin
    foreach t in array array['vector_index', 'vector_chunk', 'vector_index_grant'] loop
        execute pg_catalog.format(
            'create policy %I on dbms_cloud_ai.%I for select to dbms_cloud_ai_admin '
            'using (dbms_cloud_ai._role_is_stale(owner))', t operator(pg_catalog.||) '_admin_drop_role_read',
            '_' operator(pg_catalog.||) t);
        execute pg_catalog.format(
            'create policy %I on dbms_cloud_ai.%I for delete to dbms_cloud_ai_admin '
            'using (dbms_cloud_ai._role_is_stale(owner))', t operator(pg_catalog.||) '_admin_drop_role',
            '_' operator(pg_catalog.||) t);
    end loop;
end
$drop_role$;
-- Retrieval (rag/retrieve.py) reads chunks as dbms_cloud_ai_owner, through the
-- writer's gate, after the package has read the index as the caller (its own,
-- or one granted to it: vector_index_read).  Under a policy that depends on the
-- caller, PostgreSQL evaluates the search's full-text match (@@, not leakproof)
-- only after the policy, on every chunk of the table, and never through the GIN
-- index; under this one it does (bench/README.md: 100,000 chunks in
-- milliseconds instead of a scan).  Only package statements run as this role.
create policy vector_chunk_search on dbms_cloud_ai._vector_chunk for select to dbms_cloud_ai_owner
    using (true);
