-- The DBA's side of role bindings (sql/schema/012-role-binding.sql): a dropped
-- role's rows stay apart from any later role of its name until an
-- administrator removes them (drop_role_data) or, after a restore into another
-- cluster where the same people have new role OIDs, re-binds them (rebind_role).

create function dbms_cloud_ai.drop_role_data(role_name text)
returns bigint language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $function$
declare
    who name := role_name;
    n   bigint := 0;
    k   bigint;
    ann uuid[];
begin
    if not pg_catalog.pg_has_role(current_user, 'dbms_cloud_ai_admin', 'member') then
        raise exception using
            errcode = 'insufficient_privilege',
            message = 'dbms_cloud_ai.drop_role_data requires the dbms_cloud_ai_admin role',
            hint = 'Run it as a member of dbms_cloud_ai_admin.';
    end if;
    if who is null then
        raise exception using
            errcode = 'null_value_not_allowed', message = 'role_name must not be NULL',
            hint = 'Pass the name of the dropped role.';
    end if;
    if not dbms_cloud_ai._role_is_stale(who) then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = pg_catalog.format('role %s exists and its dbms_cloud_ai rows are its own', who),
            hint = 'drop_role_data removes only the rows of a dropped role: drop the role first '
                   '(REASSIGN OWNED / DROP OWNED, DROP ROLE).';
    end if;
    -- Children before parents; the policies limit every DELETE to stale names.
    delete from dbms_cloud_ai._example t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._feedback t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._sql_statement t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._message_source t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._model_call t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._memory_job t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._conversation_summary t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._conversation_prompt t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._conversation t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._memory t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._usage_daily t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._profile_grant t where t.grantee operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    select pg_catalog.array_agg(t.index_id) into ann
      from dbms_cloud_ai._vector_index t where t.owner operator(pg_catalog.=) who;
    delete from dbms_cloud_ai._vector_chunk t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._vector_index_content t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._vector_index_grant t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._vector_index t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    -- Their HNSW indexes (rag/ann.py), which no one may use any more.  The DROP
    -- holds the chunks table's ACCESS EXCLUSIVE lock until this transaction ends:
    -- run drop_role_data on its own.  When the table is busy they are left to
    -- the next maintenance (maintain_vector_indexes drops what is gone).
    if ann is not null and dbms_cloud_ai._vector_ann_drop_gone(ann) is null then
        raise notice 'the HNSW indexes of %''s vector indexes are left to the next maintenance', who
            using hint = 'The chunks table was busy: CALL dbms_cloud_ai.maintain_vector_indexes() later.';
    end if;
    delete from dbms_cloud_ai._profile t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud._credential t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._host_ace t where t.principal_name operator(pg_catalog.=) who::text;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._token_budget t where t.principal operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._memory_role t where t.role_name operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    -- Last: a new role of this name binds itself on its first write.
    delete from dbms_cloud_ai._role_binding b where b.role_name operator(pg_catalog.=) who;
    return n;
end
$function$;
comment on function dbms_cloud_ai.drop_role_data(text) is
'Administrators: remove every row of a dropped role (its name may then be used by a new role); returns the rows removed';

create function dbms_cloud_ai.rebind_role(role_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $function$
declare
    who name := role_name;
    now_oid oid;
begin
    if not pg_catalog.pg_has_role(current_user, 'dbms_cloud_ai_admin', 'member') then
        raise exception using
            errcode = 'insufficient_privilege',
            message = 'dbms_cloud_ai.rebind_role requires the dbms_cloud_ai_admin role',
            hint = 'Run it as a member of dbms_cloud_ai_admin.';
    end if;
    select r.oid into now_oid from pg_catalog.pg_roles r where r.rolname operator(pg_catalog.=) who;
    if now_oid is null then
        raise exception using
            errcode = 'undefined_object', message = pg_catalog.format('role %s does not exist', who),
            hint = 'Create the role first, or remove its rows with dbms_cloud_ai.drop_role_data().';
    end if;
    update dbms_cloud_ai._role_binding b set role_oid = now_oid
     where b.role_name operator(pg_catalog.=) who and b.role_oid operator(pg_catalog.<>) now_oid;
    if not found then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = pg_catalog.format('role %s already owns the dbms_cloud_ai rows of its name', who),
            hint = 'rebind_role is only for a database restored into another cluster.';
    end if;
end
$function$;
comment on function dbms_cloud_ai.rebind_role(text) is
'Administrators, after a restore into another cluster: give a role name''s rows to the role that has the name now';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._role_binding to dbms_cloud_ai_user;
grant insert, update (role_oid), delete on dbms_cloud_ai._role_binding to dbms_cloud_ai_admin;
