-- Select AI Agent run history (RUN_TEAM, RUN_TOOL): one row per team run, per task
-- of a run, per tool invocation (python/src/dbms_cloud_ai/agents/history.py).  A run
-- belongs to the role that ran it (owner), whoever owns the team (team_owner).
-- A run that waits for a human keeps what it needs to resume in pending (the
-- messages of the task that asked, the question's tool call): the next RUN_TEAM of
-- the same conversation continues it.
create table dbms_cloud_ai._agent_team_run
( team_exec_id    uuid primary key
, owner           name not null default dbms_cloud_ai._caller()
, team_owner      name not null
, team_name       text not null
, state           text not null check (state in ('RUNNING', 'WAITING_FOR_HUMAN', 'RESUMING',
                                                 'SUCCEEDED', 'FAILED'))
, start_date      timestamptz not null default pg_catalog.now()
, end_date        timestamptz
, conversation_id uuid
, params          text
, user_prompt     text
, pending         jsonb
, error           text
, backend_pid     integer not null default pg_catalog.pg_backend_pid()
-- the conversation prompts the run recorded as its turns (one per RUN_TEAM call:
-- a run that waited for a human has two); erasure finds the run's copies by them
, conversation_prompt_ids uuid[] not null default '{}'
, unique (team_exec_id, owner)
);
create index agent_team_run_owner on dbms_cloud_ai._agent_team_run (owner, conversation_id, start_date);
comment on table dbms_cloud_ai._agent_team_run is 'Select AI Agent team runs (RUN_TEAM)';

create table dbms_cloud_ai._agent_task_run
( team_exec_id        uuid not null
, task_order          integer not null
, owner               name not null default dbms_cloud_ai._caller()
, agent_name          text
, task_name           text
, conversation_params text
, input               text
, result              text
, state               text not null check (state in ('RUNNING', 'WAITING_FOR_HUMAN', 'RESUMING',
                                                     'SUCCEEDED', 'FAILED'))
, start_date          timestamptz not null default pg_catalog.now()
, end_date            timestamptz
, primary key (team_exec_id, task_order)
, foreign key (team_exec_id, owner) references dbms_cloud_ai._agent_team_run (team_exec_id, owner)
      on delete cascade
);
comment on table dbms_cloud_ai._agent_task_run is 'The tasks of Select AI Agent team runs';

-- team_exec_id is null for RUN_TOOL, which runs a tool outside any team.
create table dbms_cloud_ai._agent_tool_run
( invocation_id uuid primary key
, owner         name not null default dbms_cloud_ai._caller()
, team_exec_id  uuid
, task_order    integer
, tool_name     text not null
, agent_name    text
, task_name     text
, start_date    timestamptz not null default pg_catalog.now()
, end_date      timestamptz
, input         text
, output        text
, tool_output   text
, foreign key (team_exec_id, owner) references dbms_cloud_ai._agent_team_run (team_exec_id, owner)
      on delete cascade
);
create index agent_tool_run_exec on dbms_cloud_ai._agent_tool_run (team_exec_id);
comment on table dbms_cloud_ai._agent_tool_run is 'Tool invocations of Select AI Agent runs (and RUN_TOOL)';

alter table dbms_cloud_ai._agent_team_run enable row level security;
alter table dbms_cloud_ai._agent_team_run force row level security;
create policy agent_team_run_owner on dbms_cloud_ai._agent_team_run
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
create policy agent_team_run_admin_read on dbms_cloud_ai._agent_team_run for select
    to dbms_cloud_ai_admin using (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._agent_team_run', '');
create trigger bind_role before insert on dbms_cloud_ai._agent_team_run
    for each statement execute function dbms_cloud_ai._bind_role();
create policy agent_team_run_role_bound on dbms_cloud_ai._agent_team_run as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy agent_team_run_admin_drop_role on dbms_cloud_ai._agent_team_run for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy agent_team_run_writer on dbms_cloud_ai._agent_team_run to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
-- Memory erasure (memory/recall.py) deletes the runs that copied an erased turn
-- (their tasks and tools go by cascade) and the runs of its conversations that
-- still wait for a human (their pending messages hold earlier turns): only runs
-- tied to a prompt said by a subject of an organization the administrator
-- administers, as for the prompts themselves (sql/schema/080-memory.sql).
create policy agent_team_run_admin_erase on dbms_cloud_ai._agent_team_run for delete
    to dbms_cloud_ai_admin
    using (exists (select from dbms_cloud_ai._conversation_prompt p
                    where (p.conversation_prompt_id operator(pg_catalog.=) any (_agent_team_run.conversation_prompt_ids)
                           or (_agent_team_run.state operator(pg_catalog.=) 'WAITING_FOR_HUMAN'
                               and p.conversation_id operator(pg_catalog.=) _agent_team_run.conversation_id))
                      and p.subject is not null and dbms_cloud_ai._administers(p.organization)));

alter table dbms_cloud_ai._agent_task_run enable row level security;
alter table dbms_cloud_ai._agent_task_run force row level security;
create policy agent_task_run_owner on dbms_cloud_ai._agent_task_run
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
create policy agent_task_run_admin_read on dbms_cloud_ai._agent_task_run for select
    to dbms_cloud_ai_admin using (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._agent_task_run', '');
create trigger bind_role before insert on dbms_cloud_ai._agent_task_run
    for each statement execute function dbms_cloud_ai._bind_role();
create policy agent_task_run_role_bound on dbms_cloud_ai._agent_task_run as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy agent_task_run_admin_drop_role on dbms_cloud_ai._agent_task_run for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy agent_task_run_writer on dbms_cloud_ai._agent_task_run to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));

alter table dbms_cloud_ai._agent_tool_run enable row level security;
alter table dbms_cloud_ai._agent_tool_run force row level security;
create policy agent_tool_run_owner on dbms_cloud_ai._agent_tool_run
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
create policy agent_tool_run_admin_read on dbms_cloud_ai._agent_tool_run for select
    to dbms_cloud_ai_admin using (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._agent_tool_run', '');
create trigger bind_role before insert on dbms_cloud_ai._agent_tool_run
    for each statement execute function dbms_cloud_ai._bind_role();
create policy agent_tool_run_role_bound on dbms_cloud_ai._agent_tool_run as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy agent_tool_run_admin_drop_role on dbms_cloud_ai._agent_tool_run for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy agent_tool_run_writer on dbms_cloud_ai._agent_tool_run to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
