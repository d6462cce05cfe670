-- Who may do what.  Nothing is granted to PUBLIC: a DBA grants
-- dbms_cloud_ai_user (Oracle: GRANT EXECUTE ON DBMS_CLOUD_AI) and, for the
-- DBA_ views and host ACLs, dbms_cloud_ai_admin.

revoke all on all functions in schema dbms_cloud, dbms_cloud_ai, dbms_cloud_ai_agent from public;
revoke all on all procedures in schema dbms_cloud_ai, dbms_cloud_ai_agent from public;
revoke all on all tables in schema dbms_cloud, dbms_cloud_ai, dbms_cloud_ai_agent from public;

grant usage on schema dbms_cloud, dbms_cloud_ai, dbms_cloud_ai_agent to dbms_cloud_ai_user;
grant execute on all functions in schema dbms_cloud, dbms_cloud_ai, dbms_cloud_ai_agent to dbms_cloud_ai_user;
grant execute on all procedures in schema dbms_cloud_ai, dbms_cloud_ai_agent to dbms_cloud_ai_user;

-- The schema-wide statements, last, so that they cover every object above.
-- Each concern's api file grants its own tables and views (to the roles only).
-- Ordinary roles read their own rows and write nothing directly (issue 14,
-- class 2): every write of an API call runs in dbms_cloud_ai._write as
-- dbms_cloud_ai_owner (python/src/dbms_cloud_ai/writer.py).  Without a write
-- privilege a role can neither forge rows nor LOCK a table in any mode that
-- blocks the extension, nor probe other roles' keys through unique-key errors.
-- The revoke below also takes back what 0.2.0 granted, and any write a concern
-- file would grant users by mistake.  Administrators' own functions work across
-- roles with the write privileges their concern files grant them, within their
-- policies (erase_memories, the conversation purge, drop_role_data, the memory
-- job runner's claims, rebind_role, the correction of a call's counts).
-- HNSW index DDL (sql/api/090-vector-indexes.sql): for the package's maintenance
-- procedures only, through the writer; for drop_role_data, administrators only.
-- No user can run it inside a transaction of its own (issue 30, class 3).
revoke execute on function dbms_cloud_ai._vector_ann_step(uuid, name),
                           dbms_cloud_ai._vector_ann_drop_gone(uuid[]),
                           dbms_cloud_ai._vector_ann_lock_nowait(boolean)
    from dbms_cloud_ai_user;
grant execute on function dbms_cloud_ai._vector_ann_step(uuid, name) to dbms_cloud_ai_owner;
grant execute on function dbms_cloud_ai._vector_ann_drop_gone(uuid[]) to dbms_cloud_ai_admin;

revoke insert, update, delete, truncate, references, trigger
    on all tables in schema dbms_cloud, dbms_cloud_ai, dbms_cloud_ai_agent from dbms_cloud_ai_user;
-- What dbms_cloud_ai_owner evaluates when it writes for a caller (column
-- defaults, the policies that apply to every role).
grant execute on function dbms_cloud_ai._caller(), dbms_cloud_ai._organization(),
                          dbms_cloud_ai._administers(text), dbms_cloud_ai._role_is_stale(name),
                          dbms_cloud_ai._role_is_live(name)
   to dbms_cloud_ai_owner;
