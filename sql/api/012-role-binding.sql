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
    tab  pg_catalog.regclass;
    col  name;
    cols bigint;
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
    -- The rows that name the dropped role as a grantee of someone's profile.
    delete from dbms_cloud_ai._profile_grant t where t.grantee operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    -- ... and of someone's Select AI Agent team.
    delete from dbms_cloud_ai._agent_team_grant t where t.grantee operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    -- Its vector indexes, whose HNSW indexes go after their rows (below).
    select pg_catalog.array_agg(t.index_id) into ann
      from dbms_cloud_ai._vector_index t where t.owner operator(pg_catalog.=) who;
    -- Every table whose rows a role binding guards, from the catalog: a table
    -- with a *_role_bound or *_admin_drop_role policy, by the one column of its
    -- own that those policies read (owner, principal, ...).  A new table is
    -- covered by declaring its policies.  Children before parents (the longest
    -- chain of foreign keys among these tables first), so that every deleted row
    -- is counted and none waits for a cascade.  The policies limit every DELETE
    -- to stale names.  Identifiers come from the catalog (%s of a regclass, %I);
    -- the role name is a parameter.
    for tab, col, cols in
        with recursive bound as (
            select pol.polrelid as rel, pg_catalog.min(a.attname) as col,
                   pg_catalog.count(distinct a.attname) as cols
              from pg_catalog.pg_policy pol
              join pg_catalog.pg_depend d
                on d.classid operator(pg_catalog.=) 'pg_catalog.pg_policy'::pg_catalog.regclass
               and d.objid operator(pg_catalog.=) pol.oid
               and d.refclassid operator(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
               and d.refobjid operator(pg_catalog.=) pol.polrelid
               and d.refobjsubid operator(pg_catalog.>) 0
              join pg_catalog.pg_attribute a
                on a.attrelid operator(pg_catalog.=) pol.polrelid
               and a.attnum operator(pg_catalog.=) d.refobjsubid
              join pg_catalog.pg_class c on c.oid operator(pg_catalog.=) pol.polrelid
             where c.relnamespace operator(pg_catalog.=) any (array['dbms_cloud_ai'::pg_catalog.regnamespace,
                                                                 'dbms_cloud'::pg_catalog.regnamespace])
               and (pol.polname operator(pg_catalog.~) '_role_bound$'
                    or pol.polname operator(pg_catalog.~) '_admin_drop_role$')
             group by pol.polrelid),
        fk as (
            select distinct k.conrelid as child, k.confrelid as parent
              from pg_catalog.pg_constraint k
             where k.contype operator(pg_catalog.=) 'f'
               and k.conrelid operator(pg_catalog.<>) k.confrelid
               and k.conrelid operator(pg_catalog.=) any (select b.rel from bound b)
               and k.confrelid operator(pg_catalog.=) any (select b.rel from bound b)),
        chain (rel, depth) as (
            select b.rel, 0 from bound b
            union all
            select fk.child, chain.depth operator(pg_catalog.+) 1
              from chain join fk on fk.parent operator(pg_catalog.=) chain.rel
             where chain.depth operator(pg_catalog.<) 32)
        select b.rel::pg_catalog.regclass, b.col, b.cols
          from bound b join chain using (rel)
         group by b.rel, b.col, b.cols
         order by pg_catalog.max(chain.depth) desc, b.rel::pg_catalog.regclass::pg_catalog.text
    loop
        if cols operator(pg_catalog.<>) 1 then   -- a policy of a new table reads two of its columns
            raise exception using
                errcode = 'internal_error',
                message = pg_catalog.format('the role policies of %s read %s of its columns, not one', tab, cols),
                hint = 'Its *_role_bound and *_admin_drop_role policies must name only the role column.';
        end if;
        execute pg_catalog.format('delete from %s t where t.%I operator(pg_catalog.=) $1', tab, col) using who;
        get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    end loop;
    -- Their HNSW indexes (vector_indexes/ann.py), which no one may use any more.  The DROP
    -- holds the chunks table's ACCESS EXCLUSIVE lock until this transaction ends:
    -- run drop_role_data on its own.  When the table is busy they are left to
    -- the next maintenance (maintain_vector_indexes drops what is gone).
    if ann is not null and dbms_cloud_ai._vector_ann_drop_gone(ann) is null then
        raise notice 'the HNSW indexes of %''s vector indexes are left to the next maintenance', who
            using hint = 'The chunks table was busy: CALL dbms_cloud_ai.maintain_vector_indexes() later.';
    end if;
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
