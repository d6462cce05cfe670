-- The session's current profile (Oracle SET_PROFILE / GET_PROFILE / CLEAR_PROFILE).
-- Kept in the setting dbms_cloud_ai.profile_name; every read re-checks that the
-- profile exists for the current role, so setting it by hand grants nothing.

create function dbms_cloud_ai.set_profile(profile_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_profile(plpy, profile_name)
$python$;
comment on function dbms_cloud_ai.set_profile(text) is 'Make a profile the session''s current profile';

create function dbms_cloud_ai.get_profile()
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.get_profile(plpy)
$python$;
comment on function dbms_cloud_ai.get_profile() is 'The session''s current profile name, or NULL';

create function dbms_cloud_ai.clear_profile()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.clear_profile(plpy)
$python$;
comment on function dbms_cloud_ai.clear_profile() is 'Forget the session''s current profile';
