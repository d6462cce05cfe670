-- Endpoints an administrator sets for every role (python/src/dbms_cloud_ai/model/oci_route.py):
-- oci_genai_endpoint, the OpenAI-compatible base URL that calls of "oci"
-- profiles without provider_endpoint go to, and slack_api_endpoint, the base
-- URL of Slack's Web API for agents' Slack tools (agents/outbound.py).
-- Readable by all, written by dbms_cloud_ai_admin through
-- dbms_cloud_ai.set_oci_genai_endpoint and set_slack_api_endpoint.
create table dbms_cloud_ai._admin_endpoint
( setting  text primary key check (setting operator(pg_catalog.=) any
                                   (array['oci_genai_endpoint', 'slack_api_endpoint']))
, url      text not null
, modified timestamptz not null default pg_catalog.now()
);
comment on table dbms_cloud_ai._admin_endpoint is
'endpoints set by administrators: oci_genai_endpoint, where calls of oci profiles go; slack_api_endpoint, where Slack tools post';
alter table dbms_cloud_ai._admin_endpoint enable row level security;
alter table dbms_cloud_ai._admin_endpoint force row level security;
create policy admin_endpoint_read on dbms_cloud_ai._admin_endpoint for select using (true);
create policy admin_endpoint_admin on dbms_cloud_ai._admin_endpoint
    to dbms_cloud_ai_admin using (true) with check (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._admin_endpoint', '');
