-- Oracle's dictionary views.  security_invoker: the caller's row-level security
-- applies, so a view can never show more than its base table would.

create view dbms_cloud.user_credentials with (security_invoker = true) as
select credential_name, username, enabled, created, modified
  from dbms_cloud._credential
 where owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud.user_credentials is 'Your credentials (never the secret)';

create view dbms_cloud_ai.user_cloud_ai_profiles with (security_invoker = true) as
select profile_id, profile_name, status, description, created, last_modified
  from dbms_cloud_ai._profile
 where owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profiles is 'Your AI profiles';

create view dbms_cloud_ai.dba_cloud_ai_profiles with (security_invoker = true) as
select profile_id, profile_name, owner::text as owner, status, description, created, last_modified
  from dbms_cloud_ai._profile;
comment on view dbms_cloud_ai.dba_cloud_ai_profiles is 'All AI profiles (dbms_cloud_ai_admin only)';

-- Attribute values as Oracle shows them: strings, booleans as true/false, JSON compact.
create view dbms_cloud_ai.user_cloud_ai_profile_attributes with (security_invoker = true) as
select p.profile_id, p.profile_name, a.key as attribute_name,
       case pg_catalog.jsonb_typeof(a.value) when 'string' then a.value operator(pg_catalog.#>>) '{}'
            else a.value::text end as attribute_value
  from dbms_cloud_ai._profile p
 cross join lateral pg_catalog.jsonb_each(p.attributes) a
 where p.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profile_attributes is 'Attributes of your AI profiles';

create view dbms_cloud_ai.dba_cloud_ai_profile_attributes with (security_invoker = true) as
select p.profile_id, p.profile_name, p.owner::text as owner, a.key as attribute_name,
       case pg_catalog.jsonb_typeof(a.value) when 'string' then a.value operator(pg_catalog.#>>) '{}'
            else a.value::text end as attribute_value
  from dbms_cloud_ai._profile p
 cross join lateral pg_catalog.jsonb_each(p.attributes) a;
comment on view dbms_cloud_ai.dba_cloud_ai_profile_attributes is
'Attributes of all AI profiles (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.profile_attribute_names with (security_invoker = true) as
select attribute_name, default_value, description from dbms_cloud_ai._profile_attribute_names();
comment on view dbms_cloud_ai.profile_attribute_names is 'Every profile attribute, its default and meaning';

create view dbms_cloud_ai.user_host_aces with (security_invoker = true) as
select host, lower_port, upper_port, principal_name, privilege, created
  from dbms_cloud_ai._host_ace;
comment on view dbms_cloud_ai.user_host_aces is
'Host ACEs that apply to you (all of them for dbms_cloud_ai_admin)';

create view dbms_cloud_ai.dba_host_aces with (security_invoker = true) as
select ace_id, host, lower_port, upper_port, principal_name, privilege, created, created_by
  from dbms_cloud_ai._host_ace;
comment on view dbms_cloud_ai.dba_host_aces is 'All host ACEs (dbms_cloud_ai_admin only)';

-- Conversations: Oracle's columns; ids as upper-case GUIDs; expired ones are gone.
create view dbms_cloud_ai.user_cloud_ai_conversations with (security_invoker = true) as
select pg_catalog.upper(c.conversation_id::text) as conversation_id, c.title as conversation_title,
       c.description, c.created, c.modified, c.retention_days, c.conversation_length, c.tags
  from dbms_cloud_ai._conversation c
 where c.owner operator(pg_catalog.=) current_user
   and (c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now());
comment on view dbms_cloud_ai.user_cloud_ai_conversations is 'Your conversations';

create view dbms_cloud_ai.dba_cloud_ai_conversations with (security_invoker = true) as
select pg_catalog.upper(c.conversation_id::text) as conversation_id, c.owner::text as owner,
       c.title as conversation_title, c.description, c.created, c.modified, c.retention_days,
       c.conversation_length, c.tags
  from dbms_cloud_ai._conversation c
 where c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now();
comment on view dbms_cloud_ai.dba_cloud_ai_conversations is 'All conversations (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.user_cloud_ai_conversation_prompts with (security_invoker = true) as
select pg_catalog.upper(p.conversation_prompt_id::text) as conversation_prompt_id,
       pg_catalog.upper(p.conversation_id::text) as conversation_id, c.title as conversation_title,
       p.profile_name, p.prompt_action, p.prompt, p.prompt_response, p.created, p.modified,
       p.client_identifier, p.client_ip, p.sid, p.serial_no as "serial#"
  from dbms_cloud_ai._conversation_prompt p
  join dbms_cloud_ai._conversation c on c.conversation_id operator(pg_catalog.=) p.conversation_id
 where p.owner operator(pg_catalog.=) current_user
   and (c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now());
comment on view dbms_cloud_ai.user_cloud_ai_conversation_prompts is 'The prompts of your conversations';

create view dbms_cloud_ai.dba_cloud_ai_conversation_prompts with (security_invoker = true) as
select pg_catalog.upper(p.conversation_prompt_id::text) as conversation_prompt_id,
       pg_catalog.upper(p.conversation_id::text) as conversation_id, p.owner::text as owner,
       c.title as conversation_title, p.profile_name, p.prompt_action, p.prompt, p.prompt_response,
       p.created, p.modified, p.client_identifier, p.client_ip, p.sid, p.serial_no as "serial#"
  from dbms_cloud_ai._conversation_prompt p
  join dbms_cloud_ai._conversation c on c.conversation_id operator(pg_catalog.=) p.conversation_id
 where c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now();
comment on view dbms_cloud_ai.dba_cloud_ai_conversation_prompts is
'The prompts of all conversations (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.session_cloud_ai_conversation_prompts with (security_invoker = true) as
select prompt_number, profile_name, prompt_action, prompt, prompt_response, created
  from dbms_cloud_ai._session_conversation_prompts();
comment on view dbms_cloud_ai.session_cloud_ai_conversation_prompts is
'This session''s short-term conversation (profiles with "conversation": true); gone at session end';
