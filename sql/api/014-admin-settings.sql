-- Limits an administrator sets for every role (python/src/dbms_cloud_ai/model/llm.py).

create function dbms_cloud_ai.set_max_wait(seconds float8)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_max_wait(plpy, seconds)
$python$;
comment on function dbms_cloud_ai.set_max_wait(float8) is
'Admin: the longest any call may wait on the network, in seconds (whatever dbms_cloud_ai.http_timeout and statement_timeout say); NULL restores the default of 300';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._admin_setting to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._admin_setting to dbms_cloud_ai_admin;
