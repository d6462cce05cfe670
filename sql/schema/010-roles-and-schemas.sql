-- Roles are cluster-wide and outlive the extension; they are created only when
-- missing.  dbms_cloud_ai_user is Oracle's "GRANT EXECUTE ON DBMS_CLOUD_AI";
-- dbms_cloud_ai_admin is Oracle's ADMIN for the DBA_ views and host ACLs.
do $roles$
begin
    if not exists (select from pg_catalog.pg_roles where rolname = 'dbms_cloud_ai_user') then
        create role dbms_cloud_ai_user nologin;
    end if;
    if not exists (select from pg_catalog.pg_roles where rolname = 'dbms_cloud_ai_admin') then
        create role dbms_cloud_ai_admin nologin;
    end if;
    if exists (select from pg_catalog.pg_roles
                where rolname in ('dbms_cloud_ai_user', 'dbms_cloud_ai_admin')
                  and (rolcanlogin or rolsuper or rolbypassrls)) then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = 'roles dbms_cloud_ai_user and dbms_cloud_ai_admin must be NOLOGIN, NOSUPERUSER and NOBYPASSRLS',
            hint = 'Drop or alter the existing roles, then run CREATE EXTENSION again.';
    end if;
end
$roles$;

grant dbms_cloud_ai_user to dbms_cloud_ai_admin;

-- No IF NOT EXISTS: if someone planted these schemas, installation fails.
create schema dbms_cloud;
create schema dbms_cloud_ai;
comment on schema dbms_cloud is 'Oracle DBMS_CLOUD credentials for dbms_cloud_ai';
comment on schema dbms_cloud_ai is 'Oracle Select AI (DBMS_CLOUD_AI) for PostgreSQL';

-- The tables belong to a NOLOGIN role that is no superuser, cannot bypass row-level
-- security and has no members, not to the superuser who ran CREATE EXTENSION:
-- nobody acts as the owner (who could switch row-level security off or drop
-- policies), and FORCE ROW LEVEL SECURITY binds the owner too (security.md 8.D3,
-- tests/security/test_rls_matrix.py).  Like the other roles it is cluster-wide and made
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

-- Foreign-key checks and cascades run as the table owner.
grant usage on schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_owner;
