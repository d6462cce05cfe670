-- Host ACEs (Oracle DBMS_NETWORK_ACL_ADMIN.APPEND_HOST_ACE / REMOVE_HOST_ACE), admin only.

create function dbms_cloud_ai.append_host_ace(host text, principal_name text default 'PUBLIC',
                                              lower_port integer default null,
                                              upper_port integer default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.append_host_ace(plpy, host, principal_name, lower_port, upper_port)
$python$;
comment on function dbms_cloud_ai.append_host_ace(text, text, integer, integer) is
'Allow a role (or PUBLIC) to reach a host: name, IP address or *.domain, optionally a port range';

create function dbms_cloud_ai.remove_host_ace(host text, principal_name text default 'PUBLIC',
                                              lower_port integer default null,
                                              upper_port integer default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.remove_host_ace(plpy, host, principal_name, lower_port, upper_port)
$python$;
comment on function dbms_cloud_ai.remove_host_ace(text, text, integer, integer) is
'Remove a host ACE added with append_host_ace';
