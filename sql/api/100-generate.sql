-- GENERATE (Oracle DBMS_CLOUD_AI.GENERATE).  NULL profile_name means the session
-- profile, NULL action means runsql, attributes override the profile for this
-- call only, params carries per-call options such as conversation_id.
--
-- search_path (not in Oracle's signature) is the caller's schema search path:
-- NL2SQL describes the current schema when the profile has no object_list and
-- resolves unqualified table names with it.  The function itself runs with a
-- pinned search_path, so it cannot read the caller's; a default expression is
-- evaluated by the caller, before the function's SET clause applies.

create function dbms_cloud_ai.generate(prompt text, profile_name text default null,
                                       action text default null, attributes text default null,
                                       params text default null,
                                       search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.generate(plpy, prompt, profile_name, action, attributes, params, search_path)
$python$;
comment on function dbms_cloud_ai.generate(text, text, text, text, text, text[]) is
'Ask the profile''s model: runsql (default), showsql, explainsql, narrate, showprompt or chat';

create function dbms_cloud_ai.generate(prompt text, profile_name text, action text,
                                       attributes jsonb, params jsonb default null,
                                       search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.generate(prompt, profile_name, action, attributes::text, params::text,
                                  search_path);
end;
comment on function dbms_cloud_ai.generate(text, text, text, jsonb, jsonb, text[]) is
'generate() with jsonb attributes and params';

-- Who a committing procedure acts for, taken before its first commit and
-- required after each (model/detached.py): a commit ends a transaction-local
-- role or end user, and the rest of the call must not act for the session user.
create function dbms_cloud_ai._call_identity()
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.call_identity(plpy)
$python$;

create function dbms_cloud_ai._require_call_identity(expected text, procedure_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.require_call_identity(plpy, expected, procedure_name)
$python$;

-- generate() for long calls, as a procedure: it commits before each model
-- request and waits in a transaction that holds no snapshot and no transaction
-- id, so that VACUUM anywhere in the database is not held back while the model
-- answers (python/src/dbms_cloud_ai/model/detached.py; docs/scaling.md).  CALL it on
-- its own (autocommit): inside a transaction block it raises 2D000.  A
-- procedure that commits cannot have a SET clause: the package pins
-- search_path and lock_timeout in each of its transactions.
create procedure dbms_cloud_ai.generate_detached(prompt text, profile_name text default null,
                                                 action text default null,
                                                 attributes text default null,
                                                 params text default null,
                                                 search_path text[] default pg_catalog.current_schemas(false)::text[],
                                                 inout response text default null)
language plpython3u security invoker
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.generate_detached(plpy, prompt, profile_name, action, attributes, params, search_path)
$python$;
comment on procedure dbms_cloud_ai.generate_detached(text, text, text, text, text, text[], text) is
'generate() that holds no snapshot or transaction while the model answers: CALL it outside a transaction block';
