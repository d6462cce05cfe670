-- FEEDBACK (Oracle DBMS_CLOUD_AI.FEEDBACK), ratings of conversation prompts, the
-- NL2SQL statement log, and the export of negative feedback
-- (python/src/dbms_cloud_ai/feedback.py).

-- search_path (not in Oracle's signature): the caller's schema search path, for
-- checking a correction the model writes (as generate() has it).
create function dbms_cloud_ai.feedback(profile_name text, sql_id text default null,
                                       sql_text text default null,
                                       feedback_type text default null,
                                       response text default null,
                                       feedback_content text default null,
                                       operation text default 'add',
                                       search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.feedback(plpy, profile_name, sql_id, sql_text, feedback_type, response, feedback_content, operation, search_path)
$python$;
comment on function dbms_cloud_ai.feedback(text, text, text, text, text, text, text, text[]) is
'Oracle''s FEEDBACK: positive or negative feedback on an NL2SQL statement (by sql_id or sql_text); operation add or delete';

create function dbms_cloud_ai.rate_prompt(conversation_prompt_id text, rating integer,
                                          rating_comment text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.rate_prompt(plpy, conversation_prompt_id, rating, rating_comment)
$python$;
comment on function dbms_cloud_ai.rate_prompt(text, integer, text) is
'Rate one of your conversation prompts: 1 (useful) or -1 (not useful), with an optional comment; NULL clears';

create function dbms_cloud_ai.export_negative_feedback(profile_name text default null,
                                                       all_users boolean default false)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.export_negative_feedback(plpy, profile_name, all_users)
$python$;
comment on function dbms_cloud_ai.export_negative_feedback(text, boolean) is
'Negatively rated prompts and negative feedback as JSON lines (one object per line); all_users for administrators';

create function dbms_cloud_ai.sql_id(sql_text text)
returns text language plpython3u immutable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.sql_id(plpy, sql_text)
$python$;
comment on function dbms_cloud_ai.sql_id(text) is
'The SQL_ID of a SELECT AI statement text, computed as Oracle computes it';

-- Views --------------------------------------------------------------------------

create view dbms_cloud_ai.user_cloud_ai_sql_statements with (security_invoker = true) as
select s.sql_id, s.sql_text, s.profile_name, s.action, s.prompt, s.sql, s.created,
       pg_catalog.upper(s.conversation_prompt_id::text) as conversation_prompt_id
  from dbms_cloud_ai._sql_statement s
 where s.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_sql_statements is
'Your NL2SQL statements (runsql, showsql, explainsql, narrate) with their SQL_ID, for FEEDBACK';

create view dbms_cloud_ai.user_cloud_ai_feedback with (security_invoker = true) as
select pg_catalog.upper(f.feedback_id::text) as feedback_id, f.profile_name, f.sql_id, f.sql_text,
       f.action, f.question, f.feedback_type, f.generated_sql, f.response, f.corrected_by,
       f.feedback_content, f.created, f.modified
  from dbms_cloud_ai._feedback f
 where f.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_feedback is 'Your FEEDBACK records';

create view dbms_cloud_ai.dba_cloud_ai_feedback with (security_invoker = true) as
select pg_catalog.upper(f.feedback_id::text) as feedback_id, f.owner::text as owner, f.profile_name,
       f.sql_id, f.sql_text, f.action, f.question, f.feedback_type, f.generated_sql, f.response,
       f.corrected_by, f.feedback_content, f.created, f.modified
  from dbms_cloud_ai._feedback f;
comment on view dbms_cloud_ai.dba_cloud_ai_feedback is 'Every role''s FEEDBACK records (dbms_cloud_ai_admin only)';

-- Negative ratings and negative feedback, each with the question, the answer
-- given, the correction (feedback only) and the comment: material for a test suite.
create view dbms_cloud_ai.user_cloud_ai_negative_feedback with (security_invoker = true) as
select 'rating'::text as source, pg_catalog.upper(p.conversation_prompt_id::text) as source_id,
       p.rated as created, p.profile_name, p.prompt_action as action, null::text as sql_id,
       p.prompt as question, p.prompt_response as answer, null::text as correction,
       p.rating_comment as comment
  from dbms_cloud_ai._conversation_prompt p
  join dbms_cloud_ai._conversation c on c.conversation_id operator(pg_catalog.=) p.conversation_id
 where p.owner operator(pg_catalog.=) current_user
   and p.rating operator(pg_catalog.=) -1
   and (c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now())
union all
select 'feedback', pg_catalog.upper(f.feedback_id::text), f.modified, f.profile_name, f.action,
       f.sql_id, f.question, f.generated_sql, f.response, f.feedback_content
  from dbms_cloud_ai._feedback f
 where f.owner operator(pg_catalog.=) current_user
   and f.feedback_type operator(pg_catalog.=) 'negative';
comment on view dbms_cloud_ai.user_cloud_ai_negative_feedback is
'Your negatively rated prompts and negative feedback: question, answer given, correction, comment';

create view dbms_cloud_ai.dba_cloud_ai_negative_feedback with (security_invoker = true) as
select p.owner::text as owner, 'rating'::text as source,
       pg_catalog.upper(p.conversation_prompt_id::text) as source_id,
       p.rated as created, p.profile_name, p.prompt_action as action, null::text as sql_id,
       p.prompt as question, p.prompt_response as answer, null::text as correction,
       p.rating_comment as comment
  from dbms_cloud_ai._conversation_prompt p
  join dbms_cloud_ai._conversation c on c.conversation_id operator(pg_catalog.=) p.conversation_id
 where p.rating operator(pg_catalog.=) -1
   and (c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now())
union all
select f.owner::text, 'feedback', pg_catalog.upper(f.feedback_id::text), f.modified,
       f.profile_name, f.action, f.sql_id, f.question, f.generated_sql, f.response,
       f.feedback_content
  from dbms_cloud_ai._feedback f
 where f.feedback_type operator(pg_catalog.=) 'negative';
comment on view dbms_cloud_ai.dba_cloud_ai_negative_feedback is
'Every role''s negatively rated prompts and negative feedback (dbms_cloud_ai_admin only)';

-- Oracle's feedback store, <PROFILE>_FEEDBACK_VECINDEX$VECTAB, which Oracle's
-- SDK reads directly: a view the caller owns in its current schema, made at
-- its first feedback for the profile (nl2sql/feedback.py) and dropped with the
-- profile.  Read-only (a join: not updatable; and roles cannot write the
-- tables), security_invoker and limited to current_user, so whoever reads it
-- sees only their own rows.  The comment marks it as the extension's: only a
-- view so marked, of the caller's, is ever dropped.
create function dbms_cloud_ai._feedback_vectab_create(p_schema text, p_view text, p_profile text)
returns boolean language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $fn$
begin
    if not exists (select from pg_catalog.pg_namespace n where n.nspname operator(pg_catalog.=) p_schema)
       or not pg_catalog.has_schema_privilege(p_schema, 'CREATE')
       or exists (select from pg_catalog.pg_class c
                    join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) c.relnamespace
                   where n.nspname operator(pg_catalog.=) p_schema
                     and c.relname operator(pg_catalog.=) p_view) then
        return false;
    end if;
    execute pg_catalog.format($view$
        create view %I.%I with (security_invoker = true) as
        select f.question as content,
               pg_catalog.jsonb_build_object(
                   'sql_id', f.sql_id, 'sql_text', f.sql_text, 'action', f.action,
                   'feedback_type', f.feedback_type, 'feedback_content', f.feedback_content,
                   'response', f.response, 'generated_sql', f.generated_sql,
                   'corrected_by', f.corrected_by, 'profile_name', f.profile_name,
                   'created', f.created, 'modified', f.modified) as attributes,
               e.embedding
          from dbms_cloud_ai._feedback f
          left join dbms_cloud_ai._example e on e.feedback_id operator(pg_catalog.=) f.feedback_id
         where f.owner operator(pg_catalog.=) current_user
           and f.profile_name operator(pg_catalog.=) %L$view$, p_schema, p_view, p_profile);
    execute pg_catalog.format('comment on view %I.%I is %L', p_schema, p_view,
                              'dbms_cloud_ai: the feedback of profile ' operator(pg_catalog.||) p_profile);
    return true;
end
$fn$;
comment on function dbms_cloud_ai._feedback_vectab_create(text, text, text) is
'Internal: make the caller''s <PROFILE>_FEEDBACK_VECINDEX$VECTAB view over its feedback (Oracle''s feedback store)';

create function dbms_cloud_ai._feedback_vectab_drop(p_view text, p_profile text)
returns integer language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $fn$
declare
    r record;
    n integer := 0;
begin
    for r in select n.nspname, c.relname
               from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) c.relnamespace
              where c.relname operator(pg_catalog.=) p_view and c.relkind operator(pg_catalog.=) 'v'
                and c.relowner operator(pg_catalog.=) (select a.oid from pg_catalog.pg_roles a
                                                        where a.rolname operator(pg_catalog.=) current_user)
                and pg_catalog.obj_description(c.oid, 'pg_class') operator(pg_catalog.=)
                    ('dbms_cloud_ai: the feedback of profile ' operator(pg_catalog.||) p_profile)
    loop
        execute pg_catalog.format('drop view %I.%I', r.nspname, r.relname);
        n := n operator(pg_catalog.+) 1;
    end loop;
    return n;
end
$fn$;
comment on function dbms_cloud_ai._feedback_vectab_drop(text, text) is
'Internal: drop_profile drops the caller''s feedback store views of the profile';

-- Privileges for the tables and views above (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._sql_statement, dbms_cloud_ai._feedback, dbms_cloud_ai._example
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_sql_statements, dbms_cloud_ai.user_cloud_ai_feedback,
                dbms_cloud_ai.user_cloud_ai_negative_feedback
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_feedback, dbms_cloud_ai.dba_cloud_ai_negative_feedback
   to dbms_cloud_ai_admin;
grant select, insert, update, delete on dbms_cloud_ai._feedback to dbms_cloud_ai_admin;
grant select, insert, update, delete on dbms_cloud_ai._example to dbms_cloud_ai_admin;
grant select, insert, delete on dbms_cloud_ai._sql_statement to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._sql_statement to dbms_cloud_ai_admin;
