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
-- Foreign-key checks and cascades run as the table owner.
grant usage on schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_owner;
