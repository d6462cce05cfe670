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

create view dbms_cloud_ai.user_cloud_ai_profiles with (security_invoker = true) as
select profile_id, profile_name, status, description, created, last_modified
  from dbms_cloud_ai._profile
 where owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profiles is 'Your AI profiles';

create view dbms_cloud_ai.dba_cloud_ai_profiles with (security_invoker = true) as
select profile_id, profile_name, owner::text as owner, status, description, created, last_modified
  from dbms_cloud_ai._profile;
comment on view dbms_cloud_ai.dba_cloud_ai_profiles is 'All AI profiles (dbms_cloud_ai_admin only)';

-- Attribute values as Oracle shows them: the text the user gave (create_profile,
-- set_attribute(s)); for values set before 0.6.0, strings as such, other values as JSON.
create view dbms_cloud_ai.user_cloud_ai_profile_attributes with (security_invoker = true) as
select p.profile_id, p.profile_name, a.key as attribute_name,
       coalesce(p.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._profile p
 cross join lateral pg_catalog.jsonb_each(p.attributes) a
 where p.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profile_attributes is 'Attributes of your AI profiles';

create view dbms_cloud_ai.dba_cloud_ai_profile_attributes with (security_invoker = true) as
select p.profile_id, p.profile_name, p.owner::text as owner, a.key as attribute_name,
       coalesce(p.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._profile p
 cross join lateral pg_catalog.jsonb_each(p.attributes) a;
comment on view dbms_cloud_ai.dba_cloud_ai_profile_attributes is
'Attributes of all AI profiles (dbms_cloud_ai_admin only)';

-- Profile sharing: the profiles the caller owns or may use (granted to it, to a
-- role whose privileges it inherits, or to PUBLIC), and the owner's list of grants.
create view dbms_cloud_ai.all_cloud_ai_profiles with (security_invoker = true) as
select p.owner::text as owner, p.profile_id, p.profile_name, p.status, p.description,
       p.created, p.last_modified
  from dbms_cloud_ai._profile p
 where p.owner operator(pg_catalog.=) current_user
    or (exists (select from dbms_cloud_ai._profile_grant g
                 where g.profile_id operator(pg_catalog.=) p.profile_id
                   and (g.grantee_oid operator(pg_catalog.=) 0
                        or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                            and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))
        and dbms_cloud_ai._role_is_live(p.owner));
comment on view dbms_cloud_ai.all_cloud_ai_profiles is
'AI profiles you own or that were shared with you (use them as "OWNER"."NAME")';

create view dbms_cloud_ai.all_cloud_ai_profile_attributes with (security_invoker = true) as
select a.owner, a.profile_id, a.profile_name, b.key as attribute_name,
       coalesce(p.attribute_text operator(pg_catalog.->>) b.key,
                case pg_catalog.jsonb_typeof(b.value)
                     when 'string' then b.value operator(pg_catalog.#>>) '{}'
                     else b.value::text end) as attribute_value
  from dbms_cloud_ai.all_cloud_ai_profiles a
  join dbms_cloud_ai._profile p on p.profile_id operator(pg_catalog.=) a.profile_id
 cross join lateral pg_catalog.jsonb_each(p.attributes) b;
comment on view dbms_cloud_ai.all_cloud_ai_profile_attributes is
'Attributes of the AI profiles you own or that were shared with you';

create view dbms_cloud_ai.user_cloud_ai_profile_grants with (security_invoker = true) as
select p.profile_name, g.grantee::text as grantee, g.granted, g.daily_tokens
  from dbms_cloud_ai._profile_grant g
  join dbms_cloud_ai._profile p on p.profile_id operator(pg_catalog.=) g.profile_id
 where g.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profile_grants is
'Whom your AI profiles are shared with (dbms_cloud_ai.grant_profile_access)';

create view dbms_cloud_ai.dba_cloud_ai_profile_grants with (security_invoker = true) as
select g.owner::text as owner, p.profile_name, g.grantee::text as grantee, g.granted,
       g.daily_tokens
  from dbms_cloud_ai._profile_grant g
  join dbms_cloud_ai._profile p on p.profile_id operator(pg_catalog.=) g.profile_id;
comment on view dbms_cloud_ai.dba_cloud_ai_profile_grants is
'Every shared AI profile and its grantees (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.profile_attribute_names with (security_invoker = true) as
select attribute_name, default_value, description from dbms_cloud_ai._profile_attribute_names();
comment on view dbms_cloud_ai.profile_attribute_names is 'Every profile attribute, its default and meaning';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._profile to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._profile to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._profile_grant to dbms_cloud_ai_user, dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._profile_grant to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.user_cloud_ai_profiles to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_profile_attributes to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.profile_attribute_names to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.all_cloud_ai_profiles to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.all_cloud_ai_profile_attributes to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_profile_grants to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_profiles to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_profile_attributes to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_profile_grants to dbms_cloud_ai_admin;
