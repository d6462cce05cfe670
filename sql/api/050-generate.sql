-- GENERATE (Oracle DBMS_CLOUD_AI.GENERATE).  NULL profile_name means the session
-- profile, NULL action means runsql, attributes override the profile for this
-- call only, params carries per-call options such as conversation_id.

create function dbms_cloud_ai.generate(prompt text, profile_name text default null,
                                       action text default null, attributes text default null,
                                       params text default null)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.generate(plpy, prompt, profile_name, action, attributes, params)
$python$;
comment on function dbms_cloud_ai.generate(text, text, text, text, text) is
'Ask the profile''s model: action chat (and, in later versions, runsql, showsql, ...)';

create function dbms_cloud_ai.generate(prompt text, profile_name text, action text,
                                       attributes jsonb, params jsonb default null)
returns text language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.generate(prompt, profile_name, action, attributes::text, params::text);
end;
comment on function dbms_cloud_ai.generate(text, text, text, jsonb, jsonb) is
'generate() with jsonb attributes and params';
