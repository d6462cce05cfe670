-- Limits an administrator sets for every role (python/src/dbms_cloud_ai/model/llm.py).

create function dbms_cloud_ai.set_max_wait(seconds float8)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_max_wait(plpy, seconds)
$python$;
comment on function dbms_cloud_ai.set_max_wait(float8) is
'Admin: the longest any call may wait on the network, in seconds (whatever dbms_cloud_ai.http_timeout and statement_timeout say); NULL restores the default of 300';

create function dbms_cloud_ai.set_oci_genai_endpoint(url text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_oci_genai_endpoint(plpy, url)
$python$;
comment on function dbms_cloud_ai.set_oci_genai_endpoint(text) is
'Admin: the OpenAI-compatible base URL (the setting oci_genai_endpoint) that calls of profiles with provider oci and no provider_endpoint go to; its host needs a host ACE as any provider''s. NULL removes it: such calls are then refused (0A000)';

create function dbms_cloud_ai.set_slack_api_endpoint(url text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_slack_api_endpoint(plpy, url)
$python$;
comment on function dbms_cloud_ai.set_slack_api_endpoint(text) is
'Admin: the base URL of Slack''s Web API (the setting slack_api_endpoint) that Slack notification tools of agents post to (its /chat.postMessage); its host needs a host ACE as any other. NULL restores the default, https://slack.com/api';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._admin_setting to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._admin_setting to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._admin_endpoint to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._admin_endpoint to dbms_cloud_ai_admin;
