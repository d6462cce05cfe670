-- Select AI Agent's catalog (Oracle's DBMS_CLOUD_AI_AGENT): tools, tasks, agents
-- and teams (python/src/dbms_cloud_ai/agents/).  Procedures are functions
-- returning void, as dbms_cloud_ai.create_profile is.  search_path (not in
-- Oracle's signatures) is the caller's, for resolving a custom tool's function
-- as PostgreSQL would (agents/references.py): the functions pin their own.

create function dbms_cloud_ai_agent.create_tool(tool_name text, attributes text, status text default null, description text default null, search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.create_agent_object(plpy, 'TOOL', tool_name, attributes, status, description, search_path)
$python$;
comment on function dbms_cloud_ai_agent.create_tool is 'Create a tool (Oracle DBMS_CLOUD_AI_AGENT.CREATE_TOOL)';

create function dbms_cloud_ai_agent.drop_tool(tool_name text, force boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_agent_object(plpy, 'TOOL', tool_name, force)
$python$;
comment on function dbms_cloud_ai_agent.drop_tool is 'Drop a tool; force => true ignores a missing one';

create function dbms_cloud_ai_agent.enable_tool(tool_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_object_status(plpy, 'TOOL', tool_name, 'ENABLED')
$python$;
comment on function dbms_cloud_ai_agent.enable_tool is 'Enable a tool';

create function dbms_cloud_ai_agent.disable_tool(tool_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_object_status(plpy, 'TOOL', tool_name, 'DISABLED')
$python$;
comment on function dbms_cloud_ai_agent.disable_tool is 'Disable a tool';

create function dbms_cloud_ai_agent.create_task(task_name text, attributes text, status text default null, description text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.create_agent_object(plpy, 'TASK', task_name, attributes, status, description, None)
$python$;
comment on function dbms_cloud_ai_agent.create_task is 'Create a task (Oracle DBMS_CLOUD_AI_AGENT.CREATE_TASK)';

create function dbms_cloud_ai_agent.drop_task(task_name text, force boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_agent_object(plpy, 'TASK', task_name, force)
$python$;
comment on function dbms_cloud_ai_agent.drop_task is 'Drop a task; force => true ignores a missing one';

create function dbms_cloud_ai_agent.enable_task(task_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_object_status(plpy, 'TASK', task_name, 'ENABLED')
$python$;
comment on function dbms_cloud_ai_agent.enable_task is 'Enable a task';

create function dbms_cloud_ai_agent.disable_task(task_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_object_status(plpy, 'TASK', task_name, 'DISABLED')
$python$;
comment on function dbms_cloud_ai_agent.disable_task is 'Disable a task';

create function dbms_cloud_ai_agent.create_agent(agent_name text, attributes text, status text default null, description text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.create_agent_object(plpy, 'AGENT', agent_name, attributes, status, description, None)
$python$;
comment on function dbms_cloud_ai_agent.create_agent is 'Create an agent (Oracle DBMS_CLOUD_AI_AGENT.CREATE_AGENT)';

create function dbms_cloud_ai_agent.drop_agent(agent_name text, force boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_agent_object(plpy, 'AGENT', agent_name, force)
$python$;
comment on function dbms_cloud_ai_agent.drop_agent is 'Drop an agent; force => true ignores a missing one';

create function dbms_cloud_ai_agent.enable_agent(agent_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_object_status(plpy, 'AGENT', agent_name, 'ENABLED')
$python$;
comment on function dbms_cloud_ai_agent.enable_agent is 'Enable an agent';

create function dbms_cloud_ai_agent.disable_agent(agent_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_object_status(plpy, 'AGENT', agent_name, 'DISABLED')
$python$;
comment on function dbms_cloud_ai_agent.disable_agent is 'Disable an agent';

create function dbms_cloud_ai_agent.create_team(team_name text, attributes text, status text default null, description text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.create_agent_object(plpy, 'TEAM', team_name, attributes, status, description, None)
$python$;
comment on function dbms_cloud_ai_agent.create_team is 'Create a team (Oracle DBMS_CLOUD_AI_AGENT.CREATE_TEAM)';

create function dbms_cloud_ai_agent.drop_team(team_name text, force boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_agent_object(plpy, 'TEAM', team_name, force)
$python$;
comment on function dbms_cloud_ai_agent.drop_team is 'Drop a team; force => true ignores a missing one';

create function dbms_cloud_ai_agent.enable_team(team_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_object_status(plpy, 'TEAM', team_name, 'ENABLED')
$python$;
comment on function dbms_cloud_ai_agent.enable_team is 'Enable a team';

create function dbms_cloud_ai_agent.disable_team(team_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_object_status(plpy, 'TEAM', team_name, 'DISABLED')
$python$;
comment on function dbms_cloud_ai_agent.disable_team is 'Disable a team';

create function dbms_cloud_ai_agent.set_attribute(object_name text, object_type text, attribute_name text, attribute_value text, search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_attribute(plpy, object_name, object_type, attribute_name, attribute_value, search_path)
$python$;
comment on function dbms_cloud_ai_agent.set_attribute(text, text, text, text, text[]) is
'Set one attribute of a tool, task, agent or team (object_type ''tool'', ''task'', ''agent'', ''team''); NULL removes an optional one';

-- Oracle's SDKs pass booleans and numbers too.
create function dbms_cloud_ai_agent.set_attribute(object_name text, object_type text, attribute_name text,
        attribute_value boolean, search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai_agent.set_attribute(object_name, object_type, attribute_name,
                                             attribute_value::text, search_path);
end;
comment on function dbms_cloud_ai_agent.set_attribute(text, text, text, boolean, text[]) is
'Set a boolean attribute of a tool, task, agent or team';

create function dbms_cloud_ai_agent.set_attribute(object_name text, object_type text, attribute_name text,
        attribute_value numeric, search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai_agent.set_attribute(object_name, object_type, attribute_name,
                                             attribute_value::text, search_path);
end;
comment on function dbms_cloud_ai_agent.set_attribute(text, text, text, numeric, text[]) is
'Set a numeric attribute of a tool, task, agent or team';

create function dbms_cloud_ai_agent.set_attribute(object_name text, object_type text, attribute_name text,
        attribute_value jsonb, search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai_agent.set_attribute(object_name, object_type, attribute_name,
                                             attribute_value::text, search_path);
end;
comment on function dbms_cloud_ai_agent.set_attribute(text, text, text, jsonb, text[]) is
'Set a jsonb attribute of a tool, task, agent or team';

create function dbms_cloud_ai_agent.set_attributes(object_name text, object_type text, attributes text, search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_agent_attributes(plpy, object_name, object_type, attributes, search_path)
$python$;
comment on function dbms_cloud_ai_agent.set_attributes(text, text, text, text[]) is
'Merge a JSON object of attributes into a tool, task, agent or team; a null value removes that attribute';

create view dbms_cloud_ai_agent.user_ai_agents with (security_invoker = true) as
select o.object_name as agent_name, o.status, o.description, o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'AGENT' and o.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agents is 'Your Select AI Agent agents';
create view dbms_cloud_ai_agent.user_ai_agent_attributes with (security_invoker = true) as
select o.object_name as agent_name, a.key as attribute_name,
       coalesce(o.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._agent_object o
 cross join lateral pg_catalog.jsonb_each(o.attributes) a
 where o.object_type operator(pg_catalog.=) 'AGENT' and o.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_attributes is 'Attributes of your Select AI Agent agents, as given';

create view dbms_cloud_ai_agent.dba_ai_agents with (security_invoker = true) as
select o.owner::text as owner, o.object_name as agent_name, o.status, o.description, o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'AGENT';
comment on view dbms_cloud_ai_agent.dba_ai_agents is 'All Select AI Agent agents (dbms_cloud_ai_admin only)';
create view dbms_cloud_ai_agent.dba_ai_agent_attributes with (security_invoker = true) as
select o.owner::text as owner, o.object_name as agent_name, a.key as attribute_name,
       coalesce(o.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._agent_object o
 cross join lateral pg_catalog.jsonb_each(o.attributes) a
 where o.object_type operator(pg_catalog.=) 'AGENT';
comment on view dbms_cloud_ai_agent.dba_ai_agent_attributes is 'Attributes of all Select AI Agent agents, as given (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai_agent.user_ai_agent_tasks with (security_invoker = true) as
select o.object_name as task_name, o.status, o.description, o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'TASK' and o.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_tasks is 'Your Select AI Agent tasks';
create view dbms_cloud_ai_agent.user_ai_agent_task_attributes with (security_invoker = true) as
select o.object_name as task_name, a.key as attribute_name,
       coalesce(o.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._agent_object o
 cross join lateral pg_catalog.jsonb_each(o.attributes) a
 where o.object_type operator(pg_catalog.=) 'TASK' and o.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_task_attributes is 'Attributes of your Select AI Agent tasks, as given';

create view dbms_cloud_ai_agent.dba_ai_agent_tasks with (security_invoker = true) as
select o.owner::text as owner, o.object_name as task_name, o.status, o.description, o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'TASK';
comment on view dbms_cloud_ai_agent.dba_ai_agent_tasks is 'All Select AI Agent tasks (dbms_cloud_ai_admin only)';
create view dbms_cloud_ai_agent.dba_ai_agent_task_attributes with (security_invoker = true) as
select o.owner::text as owner, o.object_name as task_name, a.key as attribute_name,
       coalesce(o.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._agent_object o
 cross join lateral pg_catalog.jsonb_each(o.attributes) a
 where o.object_type operator(pg_catalog.=) 'TASK';
comment on view dbms_cloud_ai_agent.dba_ai_agent_task_attributes is 'Attributes of all Select AI Agent tasks, as given (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai_agent.user_ai_agent_tools with (security_invoker = true) as
select o.object_name as tool_name, o.status, o.description, o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'TOOL' and o.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_tools is 'Your Select AI Agent tools';
create view dbms_cloud_ai_agent.user_ai_agent_tool_attributes with (security_invoker = true) as
select o.object_name as tool_name, a.key as attribute_name,
       coalesce(o.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._agent_object o
 cross join lateral pg_catalog.jsonb_each(o.attributes) a
 where o.object_type operator(pg_catalog.=) 'TOOL' and o.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_tool_attributes is 'Attributes of your Select AI Agent tools, as given';

create view dbms_cloud_ai_agent.dba_ai_agent_tools with (security_invoker = true) as
select o.owner::text as owner, o.object_name as tool_name, o.status, o.description, o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'TOOL';
comment on view dbms_cloud_ai_agent.dba_ai_agent_tools is 'All Select AI Agent tools (dbms_cloud_ai_admin only)';
create view dbms_cloud_ai_agent.dba_ai_agent_tool_attributes with (security_invoker = true) as
select o.owner::text as owner, o.object_name as tool_name, a.key as attribute_name,
       coalesce(o.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._agent_object o
 cross join lateral pg_catalog.jsonb_each(o.attributes) a
 where o.object_type operator(pg_catalog.=) 'TOOL';
comment on view dbms_cloud_ai_agent.dba_ai_agent_tool_attributes is 'Attributes of all Select AI Agent tools, as given (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai_agent.user_ai_agent_teams with (security_invoker = true) as
select o.object_name as agent_team_name, o.status, o.description, o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'TEAM' and o.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_teams is 'Your Select AI Agent teams';
create view dbms_cloud_ai_agent.user_ai_agent_team_attributes with (security_invoker = true) as
select o.object_name as agent_team_name, a.key as attribute_name,
       coalesce(o.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._agent_object o
 cross join lateral pg_catalog.jsonb_each(o.attributes) a
 where o.object_type operator(pg_catalog.=) 'TEAM' and o.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_team_attributes is 'Attributes of your Select AI Agent teams, as given';

create view dbms_cloud_ai_agent.dba_ai_agent_teams with (security_invoker = true) as
select o.owner::text as owner, o.object_name as agent_team_name, o.status, o.description, o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'TEAM';
comment on view dbms_cloud_ai_agent.dba_ai_agent_teams is 'All Select AI Agent teams (dbms_cloud_ai_admin only)';
create view dbms_cloud_ai_agent.dba_ai_agent_team_attributes with (security_invoker = true) as
select o.owner::text as owner, o.object_name as agent_team_name, a.key as attribute_name,
       coalesce(o.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._agent_object o
 cross join lateral pg_catalog.jsonb_each(o.attributes) a
 where o.object_type operator(pg_catalog.=) 'TEAM';
comment on view dbms_cloud_ai_agent.dba_ai_agent_team_attributes is 'Attributes of all Select AI Agent teams, as given (dbms_cloud_ai_admin only)';
-- Team sharing (agents/sharing.py): the owner lets a role (its members through
-- inheritance, or PUBLIC) use the team as "OWNER"."TEAM"; the grant covers the
-- team as a unit, its parts stay the owner's.
create function dbms_cloud_ai_agent.grant_team_access(team_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.grant_team_access(plpy, team_name, user_or_role_name)
$python$;
comment on function dbms_cloud_ai_agent.grant_team_access(text, text) is
'Share your team with a role (or PUBLIC): it may run it as "OWNER"."TEAM"';

create function dbms_cloud_ai_agent.revoke_team_access(team_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.revoke_team_access(plpy, team_name, user_or_role_name)
$python$;
comment on function dbms_cloud_ai_agent.revoke_team_access(text, text) is
'Stop sharing your team with a role';

create view dbms_cloud_ai_agent.all_ai_agent_teams with (security_invoker = true) as
select o.owner::text as owner, o.object_name as agent_team_name, o.status, o.description,
       o.created, o.last_modified
  from dbms_cloud_ai._agent_object o
 where o.object_type operator(pg_catalog.=) 'TEAM'
   and (o.owner operator(pg_catalog.=) current_user
        or (exists (select from dbms_cloud_ai._agent_team_grant g
                     where g.object_id operator(pg_catalog.=) o.object_id
                       and (g.grantee_oid operator(pg_catalog.=) 0
                            or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))
            and dbms_cloud_ai._role_is_live(o.owner)));
comment on view dbms_cloud_ai_agent.all_ai_agent_teams is
'Teams you own or that were shared with you (run them as "OWNER"."TEAM")';

create view dbms_cloud_ai_agent.user_ai_agent_team_grants with (security_invoker = true) as
select o.object_name as agent_team_name, g.grantee::text as grantee, g.granted
  from dbms_cloud_ai._agent_team_grant g
  join dbms_cloud_ai._agent_object o on o.object_id operator(pg_catalog.=) g.object_id
 where g.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_team_grants is
'Whom your teams are shared with (dbms_cloud_ai_agent.grant_team_access)';

create view dbms_cloud_ai_agent.dba_ai_agent_team_grants with (security_invoker = true) as
select g.owner::text as owner, o.object_name as agent_team_name, g.grantee::text as grantee, g.granted
  from dbms_cloud_ai._agent_team_grant g
  join dbms_cloud_ai._agent_object o on o.object_id operator(pg_catalog.=) g.object_id;
comment on view dbms_cloud_ai_agent.dba_ai_agent_team_grants is
'Every shared team and its grantees (dbms_cloud_ai_admin only)';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._agent_object to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._agent_team_grant to dbms_cloud_ai_user;
grant select, delete on dbms_cloud_ai._agent_object to dbms_cloud_ai_admin;
grant select, delete on dbms_cloud_ai._agent_team_grant to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai_agent.user_ai_agents, dbms_cloud_ai_agent.user_ai_agent_attributes,
                dbms_cloud_ai_agent.user_ai_agent_tasks, dbms_cloud_ai_agent.user_ai_agent_task_attributes,
                dbms_cloud_ai_agent.user_ai_agent_tools, dbms_cloud_ai_agent.user_ai_agent_tool_attributes,
                dbms_cloud_ai_agent.user_ai_agent_teams, dbms_cloud_ai_agent.user_ai_agent_team_attributes,
                dbms_cloud_ai_agent.all_ai_agent_teams, dbms_cloud_ai_agent.user_ai_agent_team_grants
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai_agent.dba_ai_agents, dbms_cloud_ai_agent.dba_ai_agent_attributes,
                dbms_cloud_ai_agent.dba_ai_agent_tasks, dbms_cloud_ai_agent.dba_ai_agent_task_attributes,
                dbms_cloud_ai_agent.dba_ai_agent_tools, dbms_cloud_ai_agent.dba_ai_agent_tool_attributes,
                dbms_cloud_ai_agent.dba_ai_agent_teams, dbms_cloud_ai_agent.dba_ai_agent_team_attributes,
                dbms_cloud_ai_agent.dba_ai_agent_team_grants
   to dbms_cloud_ai_admin;

-- What the catalog says about its objects (agents/definitions.py).
create function dbms_cloud_ai_agent.describe_tool(tool_name text,
        search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.describe_tool(plpy, tool_name, search_path)
$python$;
comment on function dbms_cloud_ai_agent.describe_tool(text, text[]) is
'A tool as JSON: its attributes, description and the arguments of its function';

create function dbms_cloud_ai_agent.get_definition(object_type text, object_name text)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.get_agent_definition(plpy, object_type, object_name)
$python$;
comment on function dbms_cloud_ai_agent.get_definition(text, text) is
'A SQL script that recreates a tool, task, agent or team with dbms_cloud_ai_agent.create_<kind>()';

create function dbms_cloud_ai_agent.describe_team(team_name text)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.describe_team(plpy, team_name)
$python$;
comment on function dbms_cloud_ai_agent.describe_team(text) is
'A team as JSON: its agents, their tasks, and its skills (the tools); "OWNER"."TEAM" for a shared one';

create function dbms_cloud_ai_agent.list_tools(team_name text)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.list_team_tools(plpy, team_name)
$python$;
comment on function dbms_cloud_ai_agent.list_tools(text) is 'The tools a team uses, as a JSON array';

create function dbms_cloud_ai_agent.export_team(team_name text, params text default null)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.export_team(plpy, team_name, params)
$python$;
comment on function dbms_cloud_ai_agent.export_team(text, text) is
'Your team, its agents, tasks and tools as a portable JSON specification (no owner, profile or credential)';

create function dbms_cloud_ai_agent.import_team(profile_name text, team_name text, specification text,
        force boolean default false, params text default null,
        search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.import_team(plpy, profile_name, team_name, specification, force, params, search_path)
$python$;
comment on function dbms_cloud_ai_agent.import_team(text, text, text, boolean, text, text[]) is
'Recreate an exported team as yours, its agents on profile_name; force replaces objects of the same names';
