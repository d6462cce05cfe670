-- A role's rows belong to that role, not to its name (issue 14, class 3).
-- Rows name their role (owner, principal_name, principal, role_name), and a
-- name outlives its role: DROP ROLE does not see these rows, and a role created
-- later with the same name would inherit them.  Each name that holds rows is
-- bound here to the OID of the role that stored them; the policies below hide
-- a name's rows from a role whose OID is not the bound one, and writes by such
-- a role fail with 42501 naming the administrator's way out.  binding_id is
-- part of the credentials' associated data (crypto.py): it stays with the
-- binding when an administrator re-binds after a restore into another cluster
-- (rebind_role), and a new binding (after drop_role_data) never has it.
-- Unbound names are usable by the role of that name (first use binds them).
create table dbms_cloud_ai._role_binding
( role_name  name primary key
, role_oid   oid not null          -- 0: rows of a role that was gone when 0.3.0 was installed
, binding_id uuid not null default pg_catalog.gen_random_uuid()
, created    timestamptz not null default pg_catalog.now()
);
comment on table dbms_cloud_ai._role_binding is
'the role (OID) each role name that holds rows belongs to';

-- A name whose rows no existing role may use: no role has the name, or the
-- role that has it now is not the one the name is bound to.
create function dbms_cloud_ai._role_is_stale(role_name name)
returns boolean language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $$
    select case when r.oid is null then true
                else exists (select from dbms_cloud_ai._role_binding b
                              where b.role_name operator(pg_catalog.=) $1
                                and b.role_oid operator(pg_catalog.<>) r.oid) end
      from (select (select a.oid from pg_catalog.pg_roles a
                     where a.rolname operator(pg_catalog.=) $1) as oid) r
$$;
comment on function dbms_cloud_ai._role_is_stale(name) is
'true when no existing role may use the rows of this role name (dropped, or dropped and created again)';

alter table dbms_cloud_ai._role_binding enable row level security;
alter table dbms_cloud_ai._role_binding force row level security;
-- A role reads the bindings of the roles it is a member of (its own, and its
-- groups': a group's binding decides whether the group's ACEs apply to it);
-- administrators read all (drop_role_data, rebind_role).
create policy role_binding_read on dbms_cloud_ai._role_binding for select
    using (role_name operator(pg_catalog.=) current_user
           or coalesce(pg_catalog.pg_has_role(current_user,
                                              pg_catalog.to_regrole(pg_catalog.quote_ident(role_name))::oid,
                                              'member'), false));
create policy role_binding_admin_read on dbms_cloud_ai._role_binding for select
    to dbms_cloud_ai_admin using (true);
-- Anyone may bind an existing role's name to that role's own OID, nothing else
-- (the first store of a role binds it, an administrator's ACE binds its grantee).
create policy role_binding_insert on dbms_cloud_ai._role_binding for insert
    with check (role_oid operator(pg_catalog.=) (select r.oid from pg_catalog.pg_roles r
                                                  where r.rolname operator(pg_catalog.=) role_name));
-- rebind_role: only to the OID the name has now, keeping binding_id.
create policy role_binding_admin_rebind on dbms_cloud_ai._role_binding for update
    to dbms_cloud_ai_admin using (true)
    with check (role_oid operator(pg_catalog.=) (select r.oid from pg_catalog.pg_roles r
                                                  where r.rolname operator(pg_catalog.=) role_name));
create policy role_binding_admin_drop on dbms_cloud_ai._role_binding for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(role_name));

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._role_binding', '');

-- What each table with user rows carries, next to its create table in its
-- concern's schema file (docs/architecture.md, "A table with user rows"):
-- * a bind_role trigger (below; a column naming a role granted something gets a
--   bind_principal trigger instead).  Not on the accounting tables (_model_call,
--   _message_source): only the writer inserts there (administrators may read
--   and delete, not insert), and the writer binds and checks on every write; one
--   trigger call per model call was a tenth of the accounting write.
-- * a restrictive *_role_bound policy: the rows of a name are its role's only
--   while the name is bound to the caller's OID (or unbound).  Restrictive: added
--   to every other policy.  Rows of other names pass (administrators' reads); the
--   binding probe is uncorrelated, so it runs once per statement (an initplan)
--   and the owner indexes still apply.  The caller's OID comes from the role
--   cache (to_regrole), not from a query.
-- * *_admin_drop_role policies: drop_role_data (api/012-role-binding.sql) lets
--   administrators delete the rows of names no existing role may use, and only
--   those (a live role's rows stay its own).  A DELETE with a WHERE clause also
--   needs the rows to be readable: tables the administrators do not read whole
--   get a *_admin_drop_role_read policy for the same rows.
-- * a *_writer policy to dbms_cloud_ai_owner, the role the writer
--   (api/005-writer.sql, writer.py) acts as for the caller: the same rules as the
--   users' own policies, for dbms_cloud_ai._caller() instead of current_user.

-- Statement trigger on every table with an owner column: bind the writing role
-- on its first write, refuse a role whose name is bound to another role.  One
-- index probe per statement.  Superusers are skipped: row-level security does
-- not apply to them, and pg_restore (a superuser) loads the tables' rows with
-- COPY before the dumped bindings, which a binding made here would collide with.
create function dbms_cloud_ai._bind_role() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
declare
    mine  oid;
    bound oid;
begin
    -- dbms_cloud_ai_owner: the writer (_write) binds the role it writes for itself
    -- (writer.py).
    if pg_catalog.current_setting('is_superuser') operator(pg_catalog.=) 'on'
       or current_user operator(pg_catalog.=) 'dbms_cloud_ai_owner' then
        return null;
    end if;
    mine := pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid;
    select b.role_oid into bound from dbms_cloud_ai._role_binding b
     where b.role_name operator(pg_catalog.=) current_user;
    if bound is null then
        insert into dbms_cloud_ai._role_binding (role_name, role_oid) values (current_user, mine)
        on conflict (role_name) do nothing;
    elsif bound operator(pg_catalog.<>) mine then
        raise exception using
            errcode = 'insufficient_privilege',
            message = pg_catalog.format('role %s is not the role that stored the dbms_cloud_ai rows of that name',
                                        current_user),
            detail = 'A role of this name was dropped; its rows are kept apart from this role.',
            hint = pg_catalog.format('An administrator removes them with dbms_cloud_ai.drop_role_data(%L) '
                                     '(or, after a restore into another cluster, re-binds them with '
                                     'dbms_cloud_ai.rebind_role(%L)).', current_user, current_user);
    end if;
    return null;
end
$function$;
comment on function dbms_cloud_ai._bind_role() is
'trigger: bind the writing role''s name to its OID, refuse a role whose name is bound to another';

-- Row trigger on the administrators' tables that name a role: the grantee is
-- bound when granted, so the grant goes with the role, not with its name.  The
-- API functions that grant (append_host_ace, set_token_budget, set_memory_role)
-- bind it themselves (role_binding.py), for superusers too; this trigger does it for
-- any other writer and skips superusers for the same reason as _bind_role.
create function dbms_cloud_ai._bind_principal() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
declare
    who     name := pg_catalog.to_jsonb(new) operator(pg_catalog.->>) tg_argv[0];
    now_oid oid;
    bound   oid;
begin
    if pg_catalog.current_setting('is_superuser') operator(pg_catalog.=) 'on' then
        return new;
    end if;
    select r.oid, b.role_oid into now_oid, bound
      from pg_catalog.pg_roles r
      left join dbms_cloud_ai._role_binding b on b.role_name operator(pg_catalog.=) r.rolname
     where r.rolname operator(pg_catalog.=) who;
    if now_oid is null then   -- PUBLIC, or no role of that name
        return new;
    elsif bound is null then
        insert into dbms_cloud_ai._role_binding (role_name, role_oid) values (who, now_oid)
        on conflict (role_name) do nothing;
    elsif bound operator(pg_catalog.<>) now_oid then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = pg_catalog.format('role %s is not the role that stored the dbms_cloud_ai rows of that name',
                                        who),
            hint = pg_catalog.format('Remove the dropped role''s rows first with dbms_cloud_ai.drop_role_data(%L).',
                                     who);
    end if;
    return new;
end
$function$;
comment on function dbms_cloud_ai._bind_principal() is
'trigger: bind the role a row is granted to (column named by the trigger argument)';
-- The writer binds the caller's name to its role (the insert policy every role
-- has) and reads the binding back.
create policy role_binding_writer_read on dbms_cloud_ai._role_binding for select to dbms_cloud_ai_owner
    using (true);
