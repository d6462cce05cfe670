-- The role an API call acts for.  Ordinary roles write the extension's tables
-- only through dbms_cloud_ai._write (python/src/dbms_cloud_ai/writer.py), which
-- runs as dbms_cloud_ai_owner; the package's call of it sets dbms_cloud_ai.caller
-- to the calling role's name first.  Anywhere else this is current_user: a role
-- that sets the setting itself changes nothing, as no code of its own runs as
-- the owner.
-- Column defaults and the owner role's policies (099-writer.sql) use it where
-- they would use current_user.
create function dbms_cloud_ai._caller()
returns name language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $$
    select case when current_user operator(pg_catalog.=) 'dbms_cloud_ai_owner'::pg_catalog.name
                then nullif(pg_catalog.current_setting('dbms_cloud_ai.caller', true), '')::pg_catalog.name
                else current_user end
$$;
comment on function dbms_cloud_ai._caller() is
'the role an API call acts for: current_user, or the caller of dbms_cloud_ai._write inside it';
