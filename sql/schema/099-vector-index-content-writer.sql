-- After 098-table-owner.sql and 090-vector-index-content.sql: the writer
-- (writer.py) writes the caller's own rows (refreshes: rag/refresh.py,
-- rag/schedule.py); the foreign key keeps a row with its index's owner.
create policy vector_index_content_writer on dbms_cloud_ai._vector_index_content to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
-- Retrieval reads an index's common words as dbms_cloud_ai_owner, through the
-- writer's gate, after the caller's own read of the index row (its own, or one
-- granted to it), as it reads the chunks (vector_chunk_search).
create policy vector_index_content_search on dbms_cloud_ai._vector_index_content for select
    to dbms_cloud_ai_owner using (true);
-- drop_role_data: administrators delete a dropped role's rows (and no others).
create policy vector_index_content_admin_drop_role_read on dbms_cloud_ai._vector_index_content
    for select to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy vector_index_content_admin_drop_role on dbms_cloud_ai._vector_index_content
    for delete to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
