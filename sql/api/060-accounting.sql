-- Accounting of model calls, and daily token budgets (python/src/dbms_cloud_ai/model/accounting.py,
-- model/budget.py).

-- Calls of this session not yet in a committed row (their statement failed):
-- accounting keeps them in the backend's memory until a later call writes them.
create function dbms_cloud_ai._pending_calls()
returns setof dbms_cloud_ai._model_call language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.pending_calls(plpy)
$python$;

-- A database-wide budget (PUBLIC) needs
-- everyone's token total, which row-level security hides from each role.  It
-- returns that single number and nothing else; search_path is pinned.
create function dbms_cloud_ai._tokens_used_today()
returns bigint language sql stable parallel safe security definer
set search_path to pg_catalog, pg_temp
begin atomic
    select coalesce(pg_catalog.sum(coalesce(m.input_tokens, 0)
                                              operator(pg_catalog.+)
                                              coalesce(m.output_tokens, 0)), 0)::int8
      from dbms_cloud_ai._model_call m
     where m.created operator(pg_catalog.>=) pg_catalog.date_trunc('day', pg_catalog.now(), 'UTC');
end;
comment on function dbms_cloud_ai._tokens_used_today() is
'Tokens used by every role today (UTC), for the database-wide budget';

create function dbms_cloud_ai.set_token_budget(principal_name text, daily_tokens bigint)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_token_budget(plpy, principal_name, daily_tokens)
$python$;
comment on function dbms_cloud_ai.set_token_budget(text, bigint) is
'Admin: daily token budget (UTC day) for a role''s own calls, or PUBLIC for the whole database; NULL removes it';

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

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._model_call to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._message_source to dbms_cloud_ai_user;
grant update (input_tokens, output_tokens, tokens_estimated) on dbms_cloud_ai._model_call to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._model_call to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._message_source to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._token_budget to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._token_budget to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._model_call to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._message_source to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.user_cloud_ai_calls to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_message_sources to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_token_budgets to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_calls to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.user_cloud_ai_token_budgets to dbms_cloud_ai_admin;
