-- Who may do what.  Nothing is granted to PUBLIC: a DBA grants
-- dbms_cloud_ai_user (Oracle: GRANT EXECUTE ON DBMS_CLOUD_AI) and, for the
-- DBA_ views and host ACLs, dbms_cloud_ai_admin.

revoke all on all functions in schema dbms_cloud, dbms_cloud_ai from public;
revoke all on all procedures in schema dbms_cloud_ai from public;
revoke all on all tables in schema dbms_cloud, dbms_cloud_ai from public;

grant usage on schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_user;
grant execute on all functions in schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_user;
grant execute on all procedures in schema dbms_cloud_ai to dbms_cloud_ai_user;

grant select, insert, update, delete on dbms_cloud._credential to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._profile to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._host_ace to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._conversation, dbms_cloud_ai._conversation_prompt
   to dbms_cloud_ai_user;
grant insert, update, delete on dbms_cloud_ai._host_ace to dbms_cloud_ai_admin;
grant select, insert on dbms_cloud_ai._model_call, dbms_cloud_ai._message_source to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._model_call, dbms_cloud_ai._message_source to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._token_budget to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._token_budget to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._admin_setting to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._admin_setting to dbms_cloud_ai_admin;

grant select on dbms_cloud_ai._memory_role, dbms_cloud_ai._memory_organization to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._memory, dbms_cloud_ai._memory_job
   to dbms_cloud_ai_user;
grant insert, update, delete on dbms_cloud_ai._memory_role, dbms_cloud_ai._memory_organization
   to dbms_cloud_ai_admin;
grant select, insert on dbms_cloud_ai._memory_erasure to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._conversation_prompt, dbms_cloud_ai._sql_statement to dbms_cloud_ai_admin;
grant update on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_admin;

grant select on dbms_cloud.user_credentials, dbms_cloud_ai.user_cloud_ai_profiles,
                dbms_cloud_ai.user_cloud_ai_profile_attributes, dbms_cloud_ai.profile_attribute_names,
                dbms_cloud_ai.user_host_aces, dbms_cloud_ai.user_cloud_ai_conversations,
                dbms_cloud_ai.user_cloud_ai_conversation_prompts,
                dbms_cloud_ai.session_cloud_ai_conversation_prompts,
                dbms_cloud_ai.user_cloud_ai_calls, dbms_cloud_ai.user_cloud_ai_message_sources,
                dbms_cloud_ai.user_cloud_ai_token_budgets, dbms_cloud_ai.user_cloud_ai_memories,
                dbms_cloud_ai.user_cloud_ai_memory_jobs
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_profiles, dbms_cloud_ai.dba_cloud_ai_profile_attributes,
                dbms_cloud_ai.dba_host_aces, dbms_cloud_ai.dba_cloud_ai_conversations,
                dbms_cloud_ai.dba_cloud_ai_conversation_prompts, dbms_cloud_ai.dba_cloud_ai_calls,
                dbms_cloud_ai.user_cloud_ai_token_budgets, dbms_cloud_ai.dba_cloud_ai_memories,
                dbms_cloud_ai.dba_cloud_ai_memory_jobs, dbms_cloud_ai.dba_cloud_ai_memory_erasures,
                dbms_cloud_ai.dba_cloud_ai_memory_settings, dbms_cloud_ai.dba_cloud_ai_memory_roles
   to dbms_cloud_ai_admin;
