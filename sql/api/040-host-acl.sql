-- Host ACEs (Oracle DBMS_NETWORK_ACL_ADMIN.APPEND_HOST_ACE / REMOVE_HOST_ACE), admin only.

create function dbms_cloud_ai.append_host_ace(host text, principal_name text default 'PUBLIC',
                                              lower_port integer default null,
                                              upper_port integer default null,
                                              privilege text default 'http')
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.append_host_ace(plpy, host, principal_name, lower_port, upper_port,
                                                   privilege)
$python$;
comment on function dbms_cloud_ai.append_host_ace(text, text, integer, integer, text) is
'Allow a role (or PUBLIC) to reach a host: name, IP address or *.domain, optionally a port range; privilege is Oracle''s (http or connect let requests through)';

create function dbms_cloud_ai.remove_host_ace(host text, principal_name text default 'PUBLIC',
                                              lower_port integer default null,
                                              upper_port integer default null,
                                              privilege text default 'http')
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.remove_host_ace(plpy, host, principal_name, lower_port, upper_port,
                                                   privilege)
$python$;
comment on function dbms_cloud_ai.remove_host_ace(text, text, integer, integer, text) is
'Remove a host ACE added with append_host_ace';

create view dbms_cloud_ai.user_host_aces with (security_invoker = true) as
select host, lower_port, upper_port, principal_name, privilege, created
  from dbms_cloud_ai._host_ace;
comment on view dbms_cloud_ai.user_host_aces is
'Host ACEs that apply to you (all of them for dbms_cloud_ai_admin)';

create view dbms_cloud_ai.dba_host_aces with (security_invoker = true) as
select ace_id, host, lower_port, upper_port, principal_name, privilege, created, created_by
  from dbms_cloud_ai._host_ace;
comment on view dbms_cloud_ai.dba_host_aces is 'All host ACEs (dbms_cloud_ai_admin only)';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._host_ace to dbms_cloud_ai_user;
grant insert, update, delete on dbms_cloud_ai._host_ace to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.user_host_aces to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_host_aces to dbms_cloud_ai_admin;
