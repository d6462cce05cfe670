-- The role an API call acts for.  Ordinary roles write the extension's tables
-- only through dbms_cloud_ai._write (python/src/dbms_cloud_ai/writer.py), which
-- runs as dbms_cloud_ai_owner; the package's call of it sets dbms_cloud_ai.caller
-- to the calling role's name first.  Anywhere else this is current_user: a role
-- that sets the setting itself changes nothing, as no code of its own runs as
-- the owner.
-- Column defaults and the owner role's policies (the *_writer policies of each table) use it where
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

-- A shared thing (profile, vector index) is usable only while its owner is the
-- live role that stored it (issue 30, class 2): the name exists and, if bound,
-- is bound to that role's OID (012-role-binding.sql).  Dropped, or dropped and
-- created again under the same name, and every grant of the owner's is inert at
-- once, before any drop_role_data.  The grant tables' read policies use it.
-- SECURITY DEFINER because a grantee may not read its owner's binding row
-- (role_binding_read); the answer is one boolean about a name.  PL/pgSQL: the
-- policies of tables created before _role_binding name it.
create function dbms_cloud_ai._role_is_live(role_name name)
returns boolean language plpgsql stable parallel safe security definer
set search_path to pg_catalog, pg_temp
as $$
begin
    return exists (select from pg_catalog.pg_roles r
                    where r.rolname operator(pg_catalog.=) _role_is_live.role_name
                      and not exists (select from dbms_cloud_ai._role_binding b
                                       where b.role_name operator(pg_catalog.=) _role_is_live.role_name
                                         and b.role_oid operator(pg_catalog.<>) r.oid));
end
$$;
comment on function dbms_cloud_ai._role_is_live(name) is
'true while the role that stored this name''s rows exists under it (a shared object''s owner)';
