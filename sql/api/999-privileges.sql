-- Who may do what.  Nothing is granted to PUBLIC: a DBA grants
-- dbms_cloud_ai_user (Oracle: GRANT EXECUTE ON DBMS_CLOUD_AI) and, for the
-- DBA_ views and host ACLs, dbms_cloud_ai_admin.

revoke all on all functions in schema dbms_cloud, dbms_cloud_ai from public;
revoke all on all procedures in schema dbms_cloud_ai from public;
revoke all on all tables in schema dbms_cloud, dbms_cloud_ai from public;

grant usage on schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_user;
grant execute on all functions in schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_user;
grant execute on all procedures in schema dbms_cloud_ai to dbms_cloud_ai_user;

-- Ordinary roles read their own rows and write nothing directly (issue 14,
-- class 2): every write of an API call runs in dbms_cloud_ai._write as
-- dbms_cloud_ai_owner (python/src/dbms_cloud_ai/writer.py).  Without a write
-- privilege a role can neither forge rows nor LOCK a table in any mode that
-- blocks the extension, nor probe other roles' keys through unique-key errors.
-- The revoke also takes back what 0.2.0 granted.
-- HNSW index DDL (sql/api/130-vector-indexes.sql): for the package's maintenance
-- procedures only, through the writer; for drop_role_data, administrators only.
-- No user can run it inside a transaction of its own (issue 30, class 3).
revoke execute on function dbms_cloud_ai._vector_ann_step(uuid, name),
                           dbms_cloud_ai._vector_ann_drop_gone(uuid[]),
                           dbms_cloud_ai._vector_ann_lock_nowait(boolean)
    from dbms_cloud_ai_user;
grant execute on function dbms_cloud_ai._vector_ann_step(uuid, name) to dbms_cloud_ai_owner;
grant execute on function dbms_cloud_ai._vector_ann_drop_gone(uuid[]) to dbms_cloud_ai_admin;

revoke insert, update, delete, truncate, references, trigger
    on all tables in schema dbms_cloud, dbms_cloud_ai from dbms_cloud_ai_user;
grant select on dbms_cloud._credential, dbms_cloud_ai._profile, dbms_cloud_ai._host_ace,
                dbms_cloud_ai._conversation, dbms_cloud_ai._conversation_prompt,
                dbms_cloud_ai._memory, dbms_cloud_ai._memory_job
   to dbms_cloud_ai_user;
-- Administrators' own functions work across roles with the administrators'
-- privileges, within their policies: erasure (erase_memories), purging every
-- role's expired conversations, drop_role_data and the memory job runner's
-- claims.  These are the rights every user held before 0.3.0, kept for
-- administrators only (a role the DBA trusts with everyone's data).
grant select, insert, update, delete on dbms_cloud._credential, dbms_cloud_ai._profile,
                dbms_cloud_ai._conversation, dbms_cloud_ai._feedback, dbms_cloud_ai._example,
                dbms_cloud_ai._conversation_summary, dbms_cloud_ai._memory,
                dbms_cloud_ai._memory_job
   to dbms_cloud_ai_admin;
grant select, insert, delete on dbms_cloud_ai._conversation_prompt, dbms_cloud_ai._sql_statement
   to dbms_cloud_ai_admin;
grant update (profile_name, prompt_action, prompt, prompt_response, modified, client_identifier, client_ip,
              sid, serial_no, provider, model, prompt_version, input_tokens, output_tokens,
              tokens_estimated, latency_ms, rating, rating_comment, rated, request_id)
   on dbms_cloud_ai._conversation_prompt to dbms_cloud_ai_admin;
grant insert, update, delete on dbms_cloud_ai._host_ace to dbms_cloud_ai_admin;
-- What dbms_cloud_ai_owner evaluates when it writes for a caller (column
-- defaults, the policies that apply to every role).
grant execute on function dbms_cloud_ai._caller(), dbms_cloud_ai._organization(),
                          dbms_cloud_ai._administers(text), dbms_cloud_ai._role_is_stale(name),
                          dbms_cloud_ai._role_is_live(name)
   to dbms_cloud_ai_owner;
grant select on dbms_cloud_ai._model_call, dbms_cloud_ai._message_source to dbms_cloud_ai_user;
-- An administrator corrects a record's counts.
grant update (input_tokens, output_tokens, tokens_estimated) on dbms_cloud_ai._model_call
   to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._model_call, dbms_cloud_ai._message_source to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._token_budget to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._token_budget to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._admin_setting to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._annotation to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._profile_grant to dbms_cloud_ai_user, dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._profile_grant to dbms_cloud_ai_admin;
grant select, insert, update, delete on dbms_cloud_ai._admin_setting to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._data_access to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._data_access to dbms_cloud_ai_admin;

grant select on dbms_cloud_ai._memory_role, dbms_cloud_ai._memory_organization to dbms_cloud_ai_user;
grant insert, update, delete on dbms_cloud_ai._memory_role, dbms_cloud_ai._memory_organization
   to dbms_cloud_ai_admin;
grant select, insert on dbms_cloud_ai._memory_erasure to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._conversation_prompt, dbms_cloud_ai._sql_statement to dbms_cloud_ai_admin;
grant update on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_admin;
-- Role bindings (097-role-binding.sql): a role binds itself on its first write;
-- administrators re-bind after a restore and remove a dropped role's rows,
-- accounting included (drop_role_data; the policies allow nothing else).
grant select on dbms_cloud_ai._role_binding to dbms_cloud_ai_user;
grant insert, update (role_oid), delete on dbms_cloud_ai._role_binding to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._model_call, dbms_cloud_ai._message_source to dbms_cloud_ai_admin;

grant select on dbms_cloud.user_credentials, dbms_cloud_ai.user_cloud_ai_profiles,
                dbms_cloud_ai.user_cloud_ai_profile_attributes, dbms_cloud_ai.profile_attribute_names,
                dbms_cloud_ai.user_host_aces, dbms_cloud_ai.user_cloud_ai_conversations,
                dbms_cloud_ai.user_cloud_ai_conversation_prompts,
                dbms_cloud_ai.session_cloud_ai_conversation_prompts,
                dbms_cloud_ai.user_cloud_ai_calls, dbms_cloud_ai.user_cloud_ai_message_sources,
                dbms_cloud_ai.user_cloud_ai_token_budgets, dbms_cloud_ai.user_cloud_ai_memories,
                dbms_cloud_ai.user_cloud_ai_memory_jobs, dbms_cloud_ai.user_cloud_ai_annotations,
                dbms_cloud_ai.all_cloud_ai_profiles, dbms_cloud_ai.all_cloud_ai_profile_attributes,
                dbms_cloud_ai.user_cloud_ai_profile_grants
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_vector_indexes, dbms_cloud_ai.dba_cloud_vector_index_attributes
   to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_profiles, dbms_cloud_ai.dba_cloud_ai_profile_attributes,
                dbms_cloud_ai.dba_cloud_ai_profile_grants,
                dbms_cloud_ai.dba_host_aces, dbms_cloud_ai.dba_cloud_ai_conversations,
                dbms_cloud_ai.dba_cloud_ai_conversation_prompts, dbms_cloud_ai.dba_cloud_ai_calls,
                dbms_cloud_ai.user_cloud_ai_token_budgets, dbms_cloud_ai.dba_cloud_ai_memories,
                dbms_cloud_ai.dba_cloud_ai_memory_jobs, dbms_cloud_ai.dba_cloud_ai_memory_erasures,
                dbms_cloud_ai.dba_cloud_ai_memory_settings, dbms_cloud_ai.dba_cloud_ai_memory_roles
   to dbms_cloud_ai_admin;

-- Vector indexes (089-vector-indexes.sql): read by their owner and grantees;
-- written only through the writer.
grant select on dbms_cloud_ai._vector_index, dbms_cloud_ai._vector_chunk,
                dbms_cloud_ai._vector_index_grant, dbms_cloud_ai._vector_index_content
   to dbms_cloud_ai_user;
grant select, delete on dbms_cloud_ai._vector_index, dbms_cloud_ai._vector_chunk,
                        dbms_cloud_ai._vector_index_grant, dbms_cloud_ai._vector_index_content
   to dbms_cloud_ai_admin;   -- drop_role_data
grant select on dbms_cloud_ai.user_cloud_vector_indexes,
                dbms_cloud_ai.user_cloud_vector_index_attributes,
                dbms_cloud_ai.all_cloud_vector_indexes,
                dbms_cloud_ai.all_cloud_vector_index_attributes,
                dbms_cloud_ai.user_cloud_vector_index_grants
   to dbms_cloud_ai_user;
