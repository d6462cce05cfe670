-- AI profiles (Oracle DBMS_CLOUD_AI.CREATE_PROFILE and friends).  Oracle
-- procedures are functions returning void so they work in SELECT.
-- attributes accepts JSON text (Oracle's CLOB) or jsonb: two overloads.

create function dbms_cloud_ai.create_profile(profile_name text, attributes text default null,
                                             status text default null, description text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.create_profile(plpy, profile_name, attributes, status, description)
$python$;
comment on function dbms_cloud_ai.create_profile(text, text, text, text) is
'Create an AI profile: attributes is a JSON object (provider, credential_name, model, ...)';

create function dbms_cloud_ai.create_profile(profile_name text, attributes jsonb,
                                             status text default null, description text default null)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.create_profile(profile_name, attributes::text, status, description);
end;
comment on function dbms_cloud_ai.create_profile(text, jsonb, text, text) is
'Create an AI profile from jsonb attributes';

create function dbms_cloud_ai.drop_profile(profile_name text, force boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_profile(plpy, profile_name, force)
$python$;
comment on function dbms_cloud_ai.drop_profile(text, boolean) is
'Drop an AI profile; force => true ignores a missing profile';

create function dbms_cloud_ai.enable_profile(profile_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.enable_profile(plpy, profile_name)
$python$;
comment on function dbms_cloud_ai.enable_profile(text) is 'Enable an AI profile';

create function dbms_cloud_ai.disable_profile(profile_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.disable_profile(plpy, profile_name)
$python$;
comment on function dbms_cloud_ai.disable_profile(text) is 'Disable an AI profile: generate() refuses it';

create function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_attribute(plpy, profile_name, attribute_name, attribute_value)
$python$;
comment on function dbms_cloud_ai.set_attribute(text, text, text) is
'Set one profile attribute; the value is a string (''true'', ''1024'', JSON text); NULL removes it';

-- Oracle's SDKs pass booleans and numbers too.
create function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value boolean)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, boolean) is 'Set a boolean profile attribute';

create function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value numeric)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, numeric) is 'Set a numeric profile attribute';

create function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, jsonb) is 'Set a JSON profile attribute';

create function dbms_cloud_ai.set_attributes(profile_name text, attributes text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_attributes(plpy, profile_name, attributes)
$python$;
comment on function dbms_cloud_ai.set_attributes(text, text) is
'Merge a JSON object of attributes into a profile; a null value removes that attribute';

create function dbms_cloud_ai.set_attributes(profile_name text, attributes jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attributes(profile_name, attributes::text);
end;
comment on function dbms_cloud_ai.set_attributes(text, jsonb) is 'Merge jsonb attributes into a profile';

create function dbms_cloud_ai._profile_attribute_names()
returns table (attribute_name text, default_value text, description text)
language plpython3u stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.profile_attribute_names(plpy)
$python$;

-- Profile sharing (python/src/dbms_cloud_ai/sharing.py): the owner lets a role
-- (its members through inheritance, or PUBLIC) use the profile as
-- "OWNER"."NAME"; the grantee never reads the credential.
create function dbms_cloud_ai.grant_profile_access(profile_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.grant_profile_access(plpy, profile_name, user_or_role_name)
$python$;
comment on function dbms_cloud_ai.grant_profile_access(text, text) is
'Share your profile with a role (or PUBLIC): it may generate with it as "OWNER"."NAME" and see its attributes';

create function dbms_cloud_ai.revoke_profile_access(profile_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.revoke_profile_access(plpy, profile_name, user_or_role_name)
$python$;
comment on function dbms_cloud_ai.revoke_profile_access(text, text) is
'Stop sharing your profile with a role; its next call with the profile fails';

-- Not in Oracle (issue 30, class 5): what the roles using a shared profile may
-- spend of the owner's key.  Each role that calls through the grant may spend
-- daily_tokens per UTC day through this profile (NULL: no budget), counted
-- like set_token_budget's budgets (model/budget.py): no rollback undoes it.
create function dbms_cloud_ai.set_profile_grant_budget(profile_name text, user_or_role_name text,
                                                       daily_tokens bigint)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_profile_grant_budget(plpy, profile_name, user_or_role_name, daily_tokens)
$python$;
comment on function dbms_cloud_ai.set_profile_grant_budget(text, text, bigint) is
'Owners: the daily tokens each role holding this grant may spend through your shared profile (NULL: no budget)';
