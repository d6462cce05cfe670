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

-- Attribute values as Oracle shows them: the text the user gave (create_profile,
-- set_attribute(s)); for values set before 0.6.0, strings as such, other values as JSON.
create view dbms_cloud_ai.user_cloud_ai_profile_attributes with (security_invoker = true) as
select p.profile_id, p.profile_name, a.key as attribute_name,
       coalesce(p.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._profile p
 cross join lateral pg_catalog.jsonb_each(p.attributes) a
 where p.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profile_attributes is 'Attributes of your AI profiles';

create view dbms_cloud_ai.dba_cloud_ai_profile_attributes with (security_invoker = true) as
select p.profile_id, p.profile_name, p.owner::text as owner, a.key as attribute_name,
       coalesce(p.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._profile p
 cross join lateral pg_catalog.jsonb_each(p.attributes) a;
comment on view dbms_cloud_ai.dba_cloud_ai_profile_attributes is
'Attributes of all AI profiles (dbms_cloud_ai_admin only)';

-- Profile sharing: the profiles the caller owns or may use (granted to it, to a
-- role whose privileges it inherits, or to PUBLIC), and the owner's list of grants.
create view dbms_cloud_ai.all_cloud_ai_profiles with (security_invoker = true) as
select p.owner::text as owner, p.profile_id, p.profile_name, p.status, p.description,
       p.created, p.last_modified
  from dbms_cloud_ai._profile p
 where p.owner operator(pg_catalog.=) current_user
    or (exists (select from dbms_cloud_ai._profile_grant g
                 where g.profile_id operator(pg_catalog.=) p.profile_id
                   and (g.grantee_oid operator(pg_catalog.=) 0
                        or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                            and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))
        and dbms_cloud_ai._role_is_live(p.owner));
comment on view dbms_cloud_ai.all_cloud_ai_profiles is
'AI profiles you own or that were shared with you (use them as "OWNER"."NAME")';

create view dbms_cloud_ai.all_cloud_ai_profile_attributes with (security_invoker = true) as
select a.owner, a.profile_id, a.profile_name, b.key as attribute_name,
       coalesce(p.attribute_text operator(pg_catalog.->>) b.key,
                case pg_catalog.jsonb_typeof(b.value)
                     when 'string' then b.value operator(pg_catalog.#>>) '{}'
                     else b.value::text end) as attribute_value
  from dbms_cloud_ai.all_cloud_ai_profiles a
  join dbms_cloud_ai._profile p on p.profile_id operator(pg_catalog.=) a.profile_id
 cross join lateral pg_catalog.jsonb_each(p.attributes) b;
comment on view dbms_cloud_ai.all_cloud_ai_profile_attributes is
'Attributes of the AI profiles you own or that were shared with you';

create view dbms_cloud_ai.user_cloud_ai_profile_grants with (security_invoker = true) as
select p.profile_name, g.grantee::text as grantee, g.granted, g.daily_tokens
  from dbms_cloud_ai._profile_grant g
  join dbms_cloud_ai._profile p on p.profile_id operator(pg_catalog.=) g.profile_id
 where g.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profile_grants is
'Whom your AI profiles are shared with (dbms_cloud_ai.grant_profile_access)';

create view dbms_cloud_ai.dba_cloud_ai_profile_grants with (security_invoker = true) as
select g.owner::text as owner, p.profile_name, g.grantee::text as grantee, g.granted,
       g.daily_tokens
  from dbms_cloud_ai._profile_grant g
  join dbms_cloud_ai._profile p on p.profile_id operator(pg_catalog.=) g.profile_id;
comment on view dbms_cloud_ai.dba_cloud_ai_profile_grants is
'Every shared AI profile and its grantees (dbms_cloud_ai_admin only)';

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
-- An untitled conversation shows Oracle's 'New Conversation' until its first turn names it.
create view dbms_cloud_ai.user_cloud_ai_conversations with (security_invoker = true) as
select pg_catalog.upper(c.conversation_id::text) as conversation_id,
       coalesce(c.title, 'New Conversation') as conversation_title,
       c.description, c.created, c.modified, c.retention_days, c.conversation_length, c.tags
  from dbms_cloud_ai._conversation c
 where c.owner operator(pg_catalog.=) current_user
   and (c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now());
comment on view dbms_cloud_ai.user_cloud_ai_conversations is 'Your conversations';

create view dbms_cloud_ai.dba_cloud_ai_conversations with (security_invoker = true) as
select pg_catalog.upper(c.conversation_id::text) as conversation_id, c.owner::text as owner,
       coalesce(c.title, 'New Conversation') as conversation_title,
       c.description, c.created, c.modified, c.retention_days,
       c.conversation_length, c.tags
  from dbms_cloud_ai._conversation c
 where c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now();
comment on view dbms_cloud_ai.dba_cloud_ai_conversations is 'All conversations (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.user_cloud_ai_conversation_prompts with (security_invoker = true) as
select pg_catalog.upper(p.conversation_prompt_id::text) as conversation_prompt_id,
       pg_catalog.upper(p.conversation_id::text) as conversation_id,
       coalesce(c.title, 'New Conversation') as conversation_title,
       p.profile_name, p.prompt_action, p.prompt, p.prompt_response, p.created, p.modified,
       p.client_identifier, p.client_ip, p.sid, p.serial_no as "serial#",
       p.provider, p.model, p.prompt_version, p.input_tokens, p.output_tokens,
       p.tokens_estimated, p.latency_ms, p.rating, p.rating_comment, p.rated, p.request_id
  from dbms_cloud_ai._conversation_prompt p
  join dbms_cloud_ai._conversation c on c.conversation_id operator(pg_catalog.=) p.conversation_id
 where p.owner operator(pg_catalog.=) current_user
   and (c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now());
comment on view dbms_cloud_ai.user_cloud_ai_conversation_prompts is 'The prompts of your conversations';

create view dbms_cloud_ai.dba_cloud_ai_conversation_prompts with (security_invoker = true) as
select pg_catalog.upper(p.conversation_prompt_id::text) as conversation_prompt_id,
       pg_catalog.upper(p.conversation_id::text) as conversation_id, p.owner::text as owner,
       coalesce(c.title, 'New Conversation') as conversation_title,
       p.profile_name, p.prompt_action, p.prompt, p.prompt_response,
       p.created, p.modified, p.client_identifier, p.client_ip, p.sid, p.serial_no as "serial#",
       p.provider, p.model, p.prompt_version, p.input_tokens, p.output_tokens,
       p.tokens_estimated, p.latency_ms, p.rating, p.rating_comment, p.rated, p.request_id
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

-- Model calls: every request the extension sent, with what it cost.  Yours
-- include this session's calls whose statement failed (still in memory, see
-- model/accounting.py) until a later call stores them.
create view dbms_cloud_ai.user_cloud_ai_calls with (security_invoker = true) as
select pg_catalog.upper(m.call_id::text) as call_id, m.created, m.profile_name, m.action,
       m.purpose, m.provider, m.model, m.prompt_version, m.input_tokens, m.output_tokens,
       m.tokens_estimated, m.latency_ms, m.attempts, m.status, m.error_sqlstate, m.http_status,
       pg_catalog.upper(m.conversation_id::text) as conversation_id,
       pg_catalog.upper(m.conversation_prompt_id::text) as conversation_prompt_id
  from (select * from dbms_cloud_ai._model_call where owner operator(pg_catalog.=) current_user
        union all
        select * from dbms_cloud_ai._pending_calls() p
         where not exists (select from dbms_cloud_ai._model_call c
                            where c.call_id operator(pg_catalog.=) p.call_id)) m;
comment on view dbms_cloud_ai.user_cloud_ai_calls is
'Every model request you made: purpose, provider, model, prompt version, tokens, latency, status';

create view dbms_cloud_ai.dba_cloud_ai_calls with (security_invoker = true) as
select pg_catalog.upper(m.call_id::text) as call_id, m.owner::text as owner, m.created,
       m.profile_name, m.action, m.purpose, m.provider, m.model, m.prompt_version,
       m.input_tokens, m.output_tokens, m.tokens_estimated, m.latency_ms, m.attempts, m.status,
       m.error_sqlstate, m.http_status, pg_catalog.upper(m.conversation_id::text) as conversation_id,
       pg_catalog.upper(m.conversation_prompt_id::text) as conversation_prompt_id
  from dbms_cloud_ai._model_call m;
comment on view dbms_cloud_ai.dba_cloud_ai_calls is 'Every model request of every role (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.user_cloud_ai_message_sources with (security_invoker = true) as
select pg_catalog.upper(s.call_id::text) as call_id,
       pg_catalog.upper(s.conversation_prompt_id::text) as conversation_prompt_id,
       s.source_kind, s.source_id, s.similarity
  from dbms_cloud_ai._message_source s
 where s.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_message_sources is
'The retrieved context (feedback examples, memories) each answer used, with its similarity';

create view dbms_cloud_ai.user_cloud_ai_token_budgets with (security_invoker = true) as
select b.principal::text as principal, b.daily_tokens, b.modified
  from dbms_cloud_ai._token_budget b;
comment on view dbms_cloud_ai.user_cloud_ai_token_budgets is
'The daily token budgets that apply to you (yours and PUBLIC''s); administrators see all';
