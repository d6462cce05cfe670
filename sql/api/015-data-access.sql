-- Oracle's data-access switch (python/src/dbms_cloud_ai/data_access.py).
create function dbms_cloud_ai.enable_data_access()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_data_access(plpy, True)
$python$;
comment on function dbms_cloud_ai.enable_data_access() is
'Admin: let narrate send query results to the model again (database-wide; the default)';

create function dbms_cloud_ai.disable_data_access()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_data_access(plpy, False)
$python$;
comment on function dbms_cloud_ai.disable_data_access() is
'Admin: no row value of a query result goes to any model (database-wide): narrate fails with LL006; runsql, showsql, explainsql, chat and showprompt still work';

create function dbms_cloud_ai.data_access_enabled()
returns boolean language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
return coalesce((select d.enabled from dbms_cloud_ai._data_access d), true);
comment on function dbms_cloud_ai.data_access_enabled() is
'Whether row values may be sent to a model (dbms_cloud_ai.enable_data_access / disable_data_access)';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._data_access to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._data_access to dbms_cloud_ai_admin;
