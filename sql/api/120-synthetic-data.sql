-- GENERATE_SYNTHETIC_DATA (python/src/dbms_cloud_ai/synthetic_data/): the profile's
-- model invents rows that are inserted into the caller's tables, as the caller.
--
-- Oracle's procedure has two forms; here two overloads of one function, called
-- with SELECT (or PERFORM in PL/pgSQL), positionally or with named notation:
--   (profile_name, object_name, owner_name, record_count, user_prompt, params)
--   (profile_name, object_list, params)
-- Each returns a JSON array with one object per table (requested, inserted and
-- skipped rows, model calls) and raises a NOTICE per table.  search_path (not in
-- Oracle's signature) is the caller's: a NULL owner_name means its first schema.
-- Only the first form has it, so that no call can match both (in object_list,
-- owner is required, as in Oracle).

create function dbms_cloud_ai.generate_synthetic_data(
        profile_name text, object_name text, owner_name text, record_count integer,
        user_prompt text default null, params text default null,
        search_path text[] default pg_catalog.current_schemas(false)::text[])
returns jsonb language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.generate_synthetic_data(plpy, profile_name, object_name, owner_name, record_count, user_prompt, params, search_path)
$python$;
comment on function dbms_cloud_ai.generate_synthetic_data(text, text, text, integer, text, text, text[]) is
'Insert record_count rows invented by the profile''s model into owner_name.object_name; params: sample_rows, table_statistics, priority, comments';

create function dbms_cloud_ai.generate_synthetic_data(
        profile_name text, object_list text, params text default null)
returns jsonb language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.generate_synthetic_data_list(plpy, profile_name, object_list, params)
$python$;
comment on function dbms_cloud_ai.generate_synthetic_data(text, text, text) is
'Insert rows invented by the profile''s model into each table of object_list ([{"owner", "name", "record_count", "user_prompt"}]), parents first';
