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
