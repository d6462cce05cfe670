-- Conversations (Oracle DBMS_CLOUD_AI.CREATE_CONVERSATION and friends).

create function dbms_cloud_ai.create_conversation(attributes text default null)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.create_conversation(plpy, attributes)
$python$;
comment on function dbms_cloud_ai.create_conversation(text) is
'Create a conversation (title, description, retention_days, conversation_length); returns its id';

create function dbms_cloud_ai.create_conversation(attributes jsonb)
returns text language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.create_conversation(attributes::text);
end;
comment on function dbms_cloud_ai.create_conversation(jsonb) is 'create_conversation() with jsonb attributes';

-- Oracle's procedure form also makes the new conversation the session's current
-- one.  PostgreSQL cannot have a procedure with the function's signature, so
-- the procedure has the id as an INOUT argument: CALL ...(attributes => '{}', conversation_id => NULL).
create procedure dbms_cloud_ai.create_conversation(attributes text, inout conversation_id text)
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $procedure$
begin
    conversation_id := dbms_cloud_ai.create_conversation(attributes);
    perform dbms_cloud_ai.set_conversation_id(conversation_id);
end
$procedure$;
comment on procedure dbms_cloud_ai.create_conversation(text, text) is
'Create a conversation and make it the session''s current one; returns its id';

create function dbms_cloud_ai.update_conversation(conversation_id text, attributes text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.update_conversation(plpy, conversation_id, attributes)
$python$;
comment on function dbms_cloud_ai.update_conversation(text, text) is
'Change some attributes of a conversation; the others keep their values';

create function dbms_cloud_ai.update_conversation(conversation_id text, attributes jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.update_conversation(conversation_id, attributes::text);
end;
comment on function dbms_cloud_ai.update_conversation(text, jsonb) is 'update_conversation() with jsonb attributes';

create function dbms_cloud_ai.drop_conversation(conversation_id text, force boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_conversation(plpy, conversation_id, force)
$python$;
comment on function dbms_cloud_ai.drop_conversation(text, boolean) is
'Drop a conversation and its prompts; force => true ignores a missing one';

create function dbms_cloud_ai.delete_conversation_prompt(conversation_prompt_id text, force boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.delete_conversation_prompt(plpy, conversation_prompt_id, force)
$python$;
comment on function dbms_cloud_ai.delete_conversation_prompt(text, boolean) is
'Delete one prompt (and its response) from a conversation; force => true ignores a missing one';

create function dbms_cloud_ai.set_conversation_id(conversation_id text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_conversation_id(plpy, conversation_id)
$python$;
comment on function dbms_cloud_ai.set_conversation_id(text) is
'Make a conversation the session''s current one: generate() then continues it';

create function dbms_cloud_ai.get_conversation_id()
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.get_conversation_id(plpy)
$python$;
comment on function dbms_cloud_ai.get_conversation_id() is 'The session''s current conversation id, or NULL';

create function dbms_cloud_ai.clear_conversation_id()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.clear_conversation_id(plpy)
$python$;
comment on function dbms_cloud_ai.clear_conversation_id() is 'Stop continuing a conversation in this session';

create function dbms_cloud_ai.add_conversation_tag(conversation_id text, tag_key text, tag_value text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.add_conversation_tag(plpy, conversation_id, tag_key, tag_value)
$python$;
comment on function dbms_cloud_ai.add_conversation_tag(text, text, text) is
'Set a tag (key and value) on a conversation';

create function dbms_cloud_ai.remove_conversation_tag(conversation_id text, tag_key text, force boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.remove_conversation_tag(plpy, conversation_id, tag_key, force)
$python$;
comment on function dbms_cloud_ai.remove_conversation_tag(text, text, boolean) is
'Remove a tag from a conversation; force => true ignores a missing tag or conversation';

-- Retention purge: a procedure, so that it commits after every batch and never
-- holds locks for long.  Call it at top level (CALL, pg_cron, psql -c), not
-- inside an explicit transaction block.
create function dbms_cloud_ai._purge_conversations_batch(batch_size integer)
returns bigint language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.purge_conversations_batch(plpy, batch_size)
$python$;

create procedure dbms_cloud_ai.purge_expired_conversations(batch_size integer default 10000,
                                                           max_batches integer default null,
                                                           inout deleted bigint default null)
language plpgsql security invoker
-- No SET search_path clause: PostgreSQL forbids COMMIT in a procedure that has
-- one.  Each transaction pins it with set_config(..., true) instead, and every
-- name and operator below is schema-qualified.
as $procedure$
declare
    _batches integer := 0;
    _n bigint;
    _me text := dbms_cloud_ai._call_identity();   -- required after every commit
begin
    if batch_size is null or batch_size operator(pg_catalog.<) 1 then
        raise exception using errcode = 'invalid_parameter_value',
            message = 'batch_size must be at least 1', hint = 'Pass batch_size => 10000.';
    end if;
    deleted := 0;
    loop
        exit when max_batches is not null and _batches operator(pg_catalog.>=) max_batches;
        perform pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        _n := dbms_cloud_ai._purge_conversations_batch(batch_size);
        _batches := _batches operator(pg_catalog.+) 1;
        deleted := deleted operator(pg_catalog.+) _n;
        commit;
        perform dbms_cloud_ai._require_call_identity(_me, 'dbms_cloud_ai.purge_expired_conversations');
        exit when _n operator(pg_catalog.<) batch_size;
    end loop;
end
$procedure$;
comment on procedure dbms_cloud_ai.purge_expired_conversations(integer, integer, bigint) is
'Delete conversations past their retention, batch_size prompts per transaction; returns rows deleted. '
'By dbms_cloud_ai_admin: every role''s; by any other role: its own';

create function dbms_cloud_ai._session_conversation_prompts()
returns table (prompt_number bigint, profile_name text, prompt_action text, prompt text,
               prompt_response text, created timestamptz)
language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.session_conversation_prompts(plpy)
$python$;

create function dbms_cloud_ai.schedule_conversation_purge(schedule text default '*/10 * * * *',
                                                          batch_size integer default 10000)
returns bigint language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.schedule_conversation_purge(plpy, schedule, batch_size)
$python$;
comment on function dbms_cloud_ai.schedule_conversation_purge(text, integer) is
'Run purge_expired_conversations() on a pg_cron schedule, as the calling administrator; returns the job id';

create function dbms_cloud_ai.unschedule_conversation_purge()
returns boolean language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.unschedule_conversation_purge(plpy)
$python$;
comment on function dbms_cloud_ai.unschedule_conversation_purge() is
'Remove the pg_cron job made by schedule_conversation_purge(); false if there was none';

-- The session (short-term) conversation lives in a temporary table of this
-- backend.  It is created here, as dbms_cloud_ai_owner, so that no user role
-- owns it: in a backend that several roles share (SET ROLE, SET SESSION
-- AUTHORIZATION, a pooler), an owner could disable its row-level security,
-- change its policy or add a trigger and read the next role's prompts.  The
-- package uses the table only when dbms_cloud_ai_owner owns it, so one that a
-- role planted under the same name first is refused, never trusted.
create function dbms_cloud_ai._session_table()
returns void language plpgsql volatile parallel unsafe security definer
set search_path to pg_catalog, pg_temp
as $fn$
begin
    if pg_catalog.to_regclass('pg_temp.dca_session_prompt') is not null then
        return;
    end if;
    create temporary table dca_session_prompt
    ( seq             bigint generated always as identity primary key
    , owner           name not null default current_user
    , profile_name    text not null
    , prompt_action   text not null
    , prompt          text not null
    , prompt_response text not null
    , created         timestamptz not null default pg_catalog.clock_timestamp());
    -- Every role of this backend may use it, each seeing and writing only its own rows.
    grant select, insert, delete on pg_temp.dca_session_prompt to public;
    alter table pg_temp.dca_session_prompt enable row level security;
    alter table pg_temp.dca_session_prompt force row level security;
    create policy own_rows on pg_temp.dca_session_prompt
        using (owner operator(pg_catalog.=) current_user)
        with check (owner operator(pg_catalog.=) current_user);
end
$fn$;
alter function dbms_cloud_ai._session_table() owner to dbms_cloud_ai_owner;
comment on function dbms_cloud_ai._session_table() is
'Internal: creates this backend''s session-conversation table, owned by dbms_cloud_ai_owner';

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

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._conversation to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._conversation_prompt to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._conversation to dbms_cloud_ai_admin;
grant select, insert, delete on dbms_cloud_ai._conversation_prompt to dbms_cloud_ai_admin;
grant update (profile_name, prompt_action, prompt, prompt_response, modified, client_identifier, client_ip,
              sid, serial_no, provider, model, prompt_version, input_tokens, output_tokens,
              tokens_estimated, latency_ms, rating, rating_comment, rated, request_id) on dbms_cloud_ai._conversation_prompt to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._conversation_prompt to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.user_cloud_ai_conversations to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_conversation_prompts to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.session_cloud_ai_conversation_prompts to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_conversations to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_conversation_prompts to dbms_cloud_ai_admin;
