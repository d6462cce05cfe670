-- Condensed history: the running summaries of named conversations, and who may use them.

-- One row per live conversation: its own summarising settings (NULL: the
-- profile's), and its summary if it has one.
create view dbms_cloud_ai.user_cloud_ai_conversation_summaries with (security_invoker = true) as
select pg_catalog.upper(c.conversation_id::text) as conversation_id,
       coalesce(c.title, 'New Conversation') as conversation_title,
       c.summarize_history, c.summary_max_tokens, s.summary, s.prompts as summarized_prompts,
       (select pg_catalog.upper(p.conversation_prompt_id::text)
          from dbms_cloud_ai._conversation_prompt p
         where p.conversation_id operator(pg_catalog.=) s.conversation_id
           and p.seq operator(pg_catalog.=) s.covers_seq) as last_summarized_prompt_id,
       pg_catalog.upper(s.call_id::text) as summary_call_id, s.modified as summary_modified
  from dbms_cloud_ai._conversation c
  left join dbms_cloud_ai._conversation_summary s
    on s.conversation_id operator(pg_catalog.=) c.conversation_id and s.summary is not null
 where c.owner operator(pg_catalog.=) current_user
   and (c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now());
comment on view dbms_cloud_ai.user_cloud_ai_conversation_summaries is
'Your conversations'' summarising settings and running summaries (condensed history)';

create view dbms_cloud_ai.dba_cloud_ai_conversation_summaries with (security_invoker = true) as
select pg_catalog.upper(c.conversation_id::text) as conversation_id, c.owner::text as owner,
       coalesce(c.title, 'New Conversation') as conversation_title,
       c.summarize_history, c.summary_max_tokens, s.summary,
       s.prompts as summarized_prompts,
       (select pg_catalog.upper(p.conversation_prompt_id::text)
          from dbms_cloud_ai._conversation_prompt p
         where p.conversation_id operator(pg_catalog.=) s.conversation_id
           and p.seq operator(pg_catalog.=) s.covers_seq) as last_summarized_prompt_id,
       pg_catalog.upper(s.call_id::text) as summary_call_id, s.modified as summary_modified
  from dbms_cloud_ai._conversation c
  left join dbms_cloud_ai._conversation_summary s
    on s.conversation_id operator(pg_catalog.=) c.conversation_id and s.summary is not null
 where c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now();
comment on view dbms_cloud_ai.dba_cloud_ai_conversation_summaries is
'Every role''s conversation summaries (dbms_cloud_ai_admin only)';

-- 999-privileges.sql revokes everything from PUBLIC; these grants are to the roles only.
grant select on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.user_cloud_ai_conversation_summaries to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_conversation_summaries to dbms_cloud_ai_admin;
grant select, insert, update, delete on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_admin;
grant update on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_admin;
