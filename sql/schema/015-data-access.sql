-- Oracle's ENABLE_DATA_ACCESS / DISABLE_DATA_ACCESS (python/src/dbms_cloud_ai/data_access.py):
-- one database-wide switch.  No row means enabled (the default).  Readable by
-- all (every call reads it with its first query), written only by
-- dbms_cloud_ai_admin through dbms_cloud_ai.enable_data_access / disable_data_access.
create table dbms_cloud_ai._data_access
( only_row    boolean primary key default true check (only_row)
, enabled     boolean not null
, modified    timestamptz not null default pg_catalog.now()
, modified_by name not null default current_user
);
comment on table dbms_cloud_ai._data_access is
'whether row values may be sent to a model provider (narrate); no row: enabled';
alter table dbms_cloud_ai._data_access enable row level security;
alter table dbms_cloud_ai._data_access force row level security;
create policy data_access_read on dbms_cloud_ai._data_access for select using (true);
create policy data_access_admin on dbms_cloud_ai._data_access
    to dbms_cloud_ai_admin using (true) with check (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._data_access', '');
