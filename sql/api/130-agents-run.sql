-- Running Select AI Agent teams and tools (python/src/dbms_cloud_ai/agents/run.py,
-- tools.py, history.py): RUN_TEAM, RUN_TOOL, the session's team, the run history.

grant usage on schema dbms_cloud_ai_agent to dbms_cloud_ai_user, dbms_cloud_ai_admin;

-- RUN_TEAM: run the team's tasks in order, or resume the run of the conversation
-- that waits for a human (user_prompt is then the human's answer).  search_path
-- (not in Oracle's signature) is the caller's: function tools resolve under it,
-- SQL tools describe its current schema, as generate() does.
create function dbms_cloud_ai_agent.run_team(team_name text, user_prompt text default null,
                                             params text default null,
                                             search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_run_team(plpy, team_name, user_prompt, params, search_path)
$python$;
comment on function dbms_cloud_ai_agent.run_team(text, text, text, text[]) is
'Run a Select AI Agent team on a prompt (or resume the run that waits for a human)';

-- RUN_TEAM as a procedure that commits before each model request, so that no
-- snapshot is held while the model thinks (model/detached.py); CALL it outside a
-- transaction block.
create procedure dbms_cloud_ai_agent.run_team_detached(team_name text, user_prompt text default null,
                                                       params text default null,
                                                       search_path text[] default pg_catalog.current_schemas(false)::text[],
                                                       inout response text default null)
language plpython3u security invoker
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_run_team_detached(plpy, team_name, user_prompt, params, search_path)
$python$;
comment on procedure dbms_cloud_ai_agent.run_team_detached(text, text, text, text[], text) is
'run_team() that holds no snapshot while the model answers: CALL it outside a transaction block';

create function dbms_cloud_ai_agent.run_tool(tool_name text, input text,
                                             search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_run_tool(plpy, tool_name, input, search_path)
$python$;
comment on function dbms_cloud_ai_agent.run_tool(text, text, text[]) is
'Run one tool directly, input being its JSON arguments';

create function dbms_cloud_ai_agent.set_team(team_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_set_team(plpy, team_name)
$python$;
comment on function dbms_cloud_ai_agent.set_team(text) is
'The session''s team, which select_ai(''agent ...'') and generate(action => ''agent'') run';

create function dbms_cloud_ai_agent.get_team()
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_get_team(plpy)
$python$;
comment on function dbms_cloud_ai_agent.get_team() is 'The session''s team, if it is still usable';

create function dbms_cloud_ai_agent.clear_team()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_clear_team(plpy)
$python$;
comment on function dbms_cloud_ai_agent.clear_team() is 'Forget the session''s team';

-- A run that failed (its statement rolled back) is kept in the backend's memory
-- until a later agent call of this session writes it: the views show it meanwhile,
-- in place of what the table holds of it (a detached run commits as it goes).
create function dbms_cloud_ai._agent_unsaved_team_runs()
returns setof dbms_cloud_ai._agent_team_run language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_unsaved(plpy, "team")
$python$;

create function dbms_cloud_ai._agent_unsaved_task_runs()
returns setof dbms_cloud_ai._agent_task_run language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_unsaved(plpy, "task")
$python$;

create function dbms_cloud_ai._agent_unsaved_tool_runs()
returns setof dbms_cloud_ai._agent_tool_run language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.agent_unsaved(plpy, "tool")
$python$;

-- A run whose backend is gone (terminated, crashed) while RUNNING or RESUMING
-- is shown as FAILED.
create function dbms_cloud_ai._agent_run_state(state text, backend_pid integer)
returns text language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select case when state operator(pg_catalog.=) any (array['RUNNING', 'RESUMING'])
                 and not exists (select from pg_catalog.pg_stat_get_activity(backend_pid) a
                                  where a.pid operator(pg_catalog.=) backend_pid)
                then 'FAILED' else state end;
end;

create view dbms_cloud_ai._agent_team_runs with (security_invoker = true) as
with u as materialized (select * from dbms_cloud_ai._agent_unsaved_team_runs())
select r.* from dbms_cloud_ai._agent_team_run r
 where not exists (select from u where u.team_exec_id operator(pg_catalog.=) r.team_exec_id)
union all
select u.* from u;

create view dbms_cloud_ai._agent_task_runs with (security_invoker = true) as
with u as materialized (select * from dbms_cloud_ai._agent_unsaved_task_runs())
select t.* from dbms_cloud_ai._agent_task_run t
 where not exists (select from u where u.team_exec_id operator(pg_catalog.=) t.team_exec_id
                                   and u.task_order operator(pg_catalog.=) t.task_order)
union all
select u.* from u;

create view dbms_cloud_ai._agent_tool_runs with (security_invoker = true) as
with u as materialized (select * from dbms_cloud_ai._agent_unsaved_tool_runs())
select t.* from dbms_cloud_ai._agent_tool_run t
 where not exists (select from u where u.invocation_id operator(pg_catalog.=) t.invocation_id)
union all
select u.* from u;

create view dbms_cloud_ai_agent.user_ai_agent_team_history with (security_invoker = true) as
select pg_catalog.upper(r.team_exec_id::text) as team_exec_id, r.team_name,
       dbms_cloud_ai._agent_run_state(r.state, r.backend_pid) as state, r.start_date, r.end_date,
       pg_catalog.upper(r.conversation_id::text) as conversation_id, r.params
  from dbms_cloud_ai._agent_team_runs r
 where r.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_team_history is 'Your team runs';

create view dbms_cloud_ai_agent.user_ai_agent_task_history with (security_invoker = true) as
select pg_catalog.upper(t.team_exec_id::text) as team_exec_id, r.team_name, t.task_order,
       t.agent_name, t.task_name, t.conversation_params, t.input, t.result,
       case when t.state operator(pg_catalog.=) any (array['RUNNING', 'RESUMING'])
            then dbms_cloud_ai._agent_run_state(r.state, r.backend_pid) else t.state end as state,
       t.start_date, t.end_date
  from dbms_cloud_ai._agent_task_runs t
  join dbms_cloud_ai._agent_team_runs r on r.team_exec_id operator(pg_catalog.=) t.team_exec_id
 where t.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_task_history is 'The tasks of your team runs';

create view dbms_cloud_ai_agent.user_ai_agent_tool_history with (security_invoker = true) as
select pg_catalog.upper(t.invocation_id::text) as invocation_id,
       pg_catalog.upper(t.team_exec_id::text) as team_exec_id, t.task_order, t.tool_name,
       t.agent_name, t.task_name, t.start_date, t.end_date, t.input, t.output, t.tool_output
  from dbms_cloud_ai._agent_tool_runs t
 where t.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai_agent.user_ai_agent_tool_history is 'The tool invocations of your runs';

create view dbms_cloud_ai_agent.dba_ai_agent_team_history with (security_invoker = true) as
select pg_catalog.upper(r.team_exec_id::text) as team_exec_id, r.team_owner::text as team_owner,
       r.owner::text as owner, r.team_name, r.backend_pid as team_instance_id,
       dbms_cloud_ai._agent_run_state(r.state, r.backend_pid) as state, r.start_date, r.end_date,
       pg_catalog.upper(r.conversation_id::text) as conversation_id, r.params
  from dbms_cloud_ai._agent_team_run r;
comment on view dbms_cloud_ai_agent.dba_ai_agent_team_history is 'Every role''s team runs';

create view dbms_cloud_ai_agent.dba_ai_agent_task_history with (security_invoker = true) as
select pg_catalog.upper(t.team_exec_id::text) as team_exec_id, r.team_owner::text as team_owner,
       t.owner::text as owner, r.team_name, t.task_order, t.agent_name, t.task_name,
       t.conversation_params, t.input, t.result,
       case when t.state operator(pg_catalog.=) any (array['RUNNING', 'RESUMING'])
            then dbms_cloud_ai._agent_run_state(r.state, r.backend_pid) else t.state end as state,
       t.start_date, t.end_date
  from dbms_cloud_ai._agent_task_run t
  join dbms_cloud_ai._agent_team_run r on r.team_exec_id operator(pg_catalog.=) t.team_exec_id;
comment on view dbms_cloud_ai_agent.dba_ai_agent_task_history is 'The tasks of every role''s team runs';

create view dbms_cloud_ai_agent.dba_ai_agent_tool_history with (security_invoker = true) as
select pg_catalog.upper(t.invocation_id::text) as invocation_id,
       pg_catalog.upper(t.team_exec_id::text) as team_exec_id, r.team_owner::text as team_owner,
       t.owner::text as owner, t.task_order, t.tool_name, t.agent_name, t.task_name,
       t.start_date, t.end_date, t.input, t.output, t.tool_output
  from dbms_cloud_ai._agent_tool_run t
  left join dbms_cloud_ai._agent_team_run r on r.team_exec_id operator(pg_catalog.=) t.team_exec_id;
comment on view dbms_cloud_ai_agent.dba_ai_agent_tool_history is 'The tool invocations of every role''s runs';

-- A run reads the caller's objects as the caller (the catalog's api file grants
-- the same; granting twice is harmless).
grant select on dbms_cloud_ai._agent_object, dbms_cloud_ai._agent_team_grant
    to dbms_cloud_ai_user, dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._agent_team_run, dbms_cloud_ai._agent_task_run,
                dbms_cloud_ai._agent_tool_run to dbms_cloud_ai_user;
-- Administrators read every run (the DBA_ views) and delete a dropped role's
-- (drop_role_data).
grant select, delete on dbms_cloud_ai._agent_team_run, dbms_cloud_ai._agent_task_run,
                        dbms_cloud_ai._agent_tool_run to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._agent_team_runs, dbms_cloud_ai._agent_task_runs,
                dbms_cloud_ai._agent_tool_runs to dbms_cloud_ai_user;
grant select on dbms_cloud_ai_agent.user_ai_agent_team_history,
                dbms_cloud_ai_agent.user_ai_agent_task_history,
                dbms_cloud_ai_agent.user_ai_agent_tool_history to dbms_cloud_ai_user;
grant select on dbms_cloud_ai_agent.dba_ai_agent_team_history,
                dbms_cloud_ai_agent.dba_ai_agent_task_history,
                dbms_cloud_ai_agent.dba_ai_agent_tool_history to dbms_cloud_ai_admin;

-- Nothing to PUBLIC (PostgreSQL grants EXECUTE on a new function to PUBLIC).
revoke all on all functions in schema dbms_cloud_ai_agent from public;
revoke all on all procedures in schema dbms_cloud_ai_agent from public;
-- The package's functions (and the _py_ bodies their wrappers call) are the
-- users', as dbms_cloud_ai's are (999-privileges.sql).
grant execute on all functions in schema dbms_cloud_ai_agent to dbms_cloud_ai_user;
grant execute on all procedures in schema dbms_cloud_ai_agent to dbms_cloud_ai_user;
