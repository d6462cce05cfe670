-- Limits only an administrator may change (python/src/dbms_cloud_ai/model/llm.py).
-- A user can SET any custom setting (and ALTER ROLE itself), so a limit on
-- users cannot be a setting: it lives here, readable by all, written by
-- dbms_cloud_ai_admin through dbms_cloud_ai.set_max_wait.
create table dbms_cloud_ai._admin_setting
( setting  text primary key check (setting operator(pg_catalog.=) 'max_wait')
, value    float8 not null check (value operator(pg_catalog.>) 0)
, modified timestamptz not null default pg_catalog.now()
);
comment on table dbms_cloud_ai._admin_setting is
'limits set by administrators: max_wait, the longest any call may wait on the network (seconds)';
alter table dbms_cloud_ai._admin_setting enable row level security;
alter table dbms_cloud_ai._admin_setting force row level security;
create policy admin_setting_read on dbms_cloud_ai._admin_setting for select using (true);
create policy admin_setting_admin on dbms_cloud_ai._admin_setting
    to dbms_cloud_ai_admin using (true) with check (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._admin_setting', '');
