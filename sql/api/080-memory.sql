-- Long-term memory (not in Oracle): identity, the organization's switch, the
-- promotion job runner, deletion and erasure.  See memory/recall.py,
-- memory/jobs.py and memory/identity.py.

create function dbms_cloud_ai.set_end_user(subject text, is_local boolean default false)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_end_user(plpy, subject, is_local)
$python$;
comment on function dbms_cloud_ai.set_end_user(text, boolean) is
'Trusted gateway roles only: the end user this session (or transaction) speaks for; NULL: anonymous';

create function dbms_cloud_ai.memory_identity()
returns table (organization text, subject text, identity text, memory_enabled boolean)
language plpython3u stable parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.memory_identity(plpy)
$python$;
comment on function dbms_cloud_ai.memory_identity() is
'The organization and end user (subject) long-term memory uses in this session';

create function dbms_cloud_ai.enable_memory(organization text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.enable_memory(plpy, organization)
$python$;
comment on function dbms_cloud_ai.enable_memory(text) is
'Administrators: remember identified users across conversations in this organization (default: yours)';

create function dbms_cloud_ai.disable_memory(organization text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.disable_memory(plpy, organization)
$python$;
comment on function dbms_cloud_ai.disable_memory(text) is
'Administrators: stop extraction and recall in this organization; stored memories are kept';

create function dbms_cloud_ai.set_memory_attribute(attribute_name text, attribute_value text,
                                                   organization text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_memory_attribute(plpy, attribute_name, attribute_value, organization)
$python$;
comment on function dbms_cloud_ai.set_memory_attribute(text, text, text) is
'Administrators: enabled, max_memories (200), idle_minutes (15), recall_tokens (400) or max_pending_jobs (1000) of an organization';

create function dbms_cloud_ai.set_memory_role(role_name text, organization text default null,
                                              identity text default 'role')
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_memory_role(plpy, role_name, organization, identity)
$python$;
comment on function dbms_cloud_ai.set_memory_role(text, text, text) is
'Administrators: a role''s organization and identity (role, asserted: a trusted gateway, or anonymous)';

create function dbms_cloud_ai.delete_memory(memory_id text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.delete_memory(plpy, memory_id)
$python$;
comment on function dbms_cloud_ai.delete_memory(text) is
'Forget one of your memories: it is never recalled or searched again';

create function dbms_cloud_ai.erase_memories(subject text, organization text default null,
                                             memory_id text default null)
returns integer language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.erase_memories(plpy, subject, organization, memory_id)
$python$;
comment on function dbms_cloud_ai.erase_memories(text, text, text) is
'Administrators: erase one memory or all of a subject''s, with the prompts they came from or were used in; audited';

create function dbms_cloud_ai._claim_memory_jobs(batch_size integer, run_token text)
returns text[] language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.claim_memory_jobs(plpy, batch_size, run_token)
$python$;

-- One claimed job in the caller's transaction.  run_memory_jobs no longer calls
-- it (it calls _run_memory_job_detached below); kept because databases still at
-- an earlier 0.3.0 build call it, and the package serves them too.
create function dbms_cloud_ai._run_memory_job(conversation_id text, run_token text)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.run_memory_job(plpy, conversation_id, run_token)
$python$;

-- One claimed job, as its owner, committing before each extraction request so
-- that no snapshot is held while the model answers (memory/jobs.py's run_detached,
-- model/detached.py); a failure is recorded as the runner.  Called by run_memory_jobs
-- outside any exception block (a subtransaction could not commit).
create procedure dbms_cloud_ai._run_memory_job_detached(conversation_id text, run_token text,
                                                        job_owner text)
language plpython3u security invoker
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.run_memory_job_detached(plpy, conversation_id, run_token, job_owner)
$python$;

create function dbms_cloud_ai._fail_memory_job(conversation_id text, run_token text, sqlstate text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.fail_memory_job(plpy, conversation_id, run_token, sqlstate)
$python$;

create procedure dbms_cloud_ai.run_memory_jobs(batch_size integer default 100,
                                               max_batches integer default null,
                                               inout processed bigint default null)
language plpgsql security invoker
-- No SET search_path clause: PostgreSQL forbids COMMIT in a procedure that has
-- one.  Each transaction pins it with set_config(..., true) instead, and every
-- name and operator below is schema-qualified.
as $procedure$
declare
    _batches integer := 0;
    _token text;
    _ids text[];
    _id text;
    _owner text;
    -- Who the run acts for: required after every commit (a transaction-local role
    -- ends with the first one; model/detached.py).
    _me text := dbms_cloud_ai._call_identity();
begin
    if batch_size is null or batch_size operator(pg_catalog.<) 1
       or batch_size operator(pg_catalog.>) 10000 then
        raise exception using errcode = 'invalid_parameter_value',
            message = 'batch_size must be between 1 and 10000', hint = 'Pass batch_size => 100.';
    end if;
    processed := 0;
    loop
        exit when max_batches is not null and _batches operator(pg_catalog.>=) max_batches;
        perform pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
        _token := pg_catalog.gen_random_uuid()::text;
        _ids := dbms_cloud_ai._claim_memory_jobs(batch_size, _token);
        _batches := _batches operator(pg_catalog.+) 1;
        commit;
        perform dbms_cloud_ai._require_call_identity(_me, 'dbms_cloud_ai.run_memory_jobs');
        exit when pg_catalog.cardinality(_ids) operator(pg_catalog.=) 0;
        foreach _id in array _ids loop
            perform pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
            select j.owner::text into _owner from dbms_cloud_ai._memory_job j
             where j.conversation_id operator(pg_catalog.=) _id::uuid
               and j.run_token operator(pg_catalog.=) _token::uuid;
            if _owner is not null then
                -- As the role that owns it (its row-level security, credential, host
                -- ACEs and token budget apply), planned for its values (one CALL may
                -- work through a backlog that began on empty tables), committing
                -- before each model request; a failure is recorded, the run goes on.
                call dbms_cloud_ai._run_memory_job_detached(_id, _token, _owner);
            end if;
            commit;
            perform dbms_cloud_ai._require_call_identity(_me, 'dbms_cloud_ai.run_memory_jobs');
            processed := processed operator(pg_catalog.+) 1;
        end loop;
        -- (A batch takes at most 10 jobs of one owner: a shorter batch does not
        -- mean no job is due.  The loop ends on a claim that finds none.)
    end loop;
end
$procedure$;
comment on procedure dbms_cloud_ai.run_memory_jobs(integer, integer, bigint) is
'Run due memory promotion jobs, each as its owner in its own transaction; safe to run from several schedulers at once';

create function dbms_cloud_ai.schedule_memory_jobs(schedule text default '* * * * *',
                                                   batch_size integer default 100)
returns bigint language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.schedule_memory_jobs(plpy, schedule, batch_size)
$python$;
comment on function dbms_cloud_ai.schedule_memory_jobs(text, integer) is
'Run run_memory_jobs() on a pg_cron schedule, as the calling administrator; returns the job id';

create function dbms_cloud_ai.unschedule_memory_jobs()
returns boolean language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.unschedule_memory_jobs(plpy)
$python$;

-- Views.  A subject's memories: the session's (organization, subject) only.
create view dbms_cloud_ai.user_cloud_ai_memories with (security_invoker = true) as
select pg_catalog.upper(m.memory_id::text) as memory_id, m.fact,
       pg_catalog.upper(m.source_conversation_id::text) as conversation_id,
       pg_catalog.upper(m.source_prompt_id::text) as conversation_prompt_id, m.created
  from dbms_cloud_ai._memory m, dbms_cloud_ai.memory_identity() i
 where m.organization operator(pg_catalog.=) i.organization
   and m.subject operator(pg_catalog.=) i.subject
   and m.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_memories is
'What long-term memory remembers about you (the session''s end user)';

create view dbms_cloud_ai.dba_cloud_ai_memories with (security_invoker = true) as
select m.organization, m.subject, m.owner::text as owner, pg_catalog.upper(m.memory_id::text) as memory_id,
       m.fact, pg_catalog.upper(m.source_conversation_id::text) as conversation_id,
       pg_catalog.upper(m.source_prompt_id::text) as conversation_prompt_id, m.created
  from dbms_cloud_ai._memory m;
comment on view dbms_cloud_ai.dba_cloud_ai_memories is
'Memories of the organizations you administer (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.user_cloud_ai_memory_jobs with (security_invoker = true) as
select pg_catalog.upper(j.conversation_id::text) as conversation_id, j.subject, j.status, j.reason,
       j.due_at, j.attempts, j.facts_proposed, j.facts_stored, j.facts_rejected,
       j.facts_duplicate, j.facts_evicted, j.finished
  from dbms_cloud_ai._memory_job j
 where j.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_memory_jobs is
'Memory promotion of your conversations: when it is due, how it ended and why';

create view dbms_cloud_ai.dba_cloud_ai_memory_jobs with (security_invoker = true) as
select j.organization, j.subject, j.owner::text as owner,
       pg_catalog.upper(j.conversation_id::text) as conversation_id, j.status, j.reason,
       j.due_at, j.attempts, j.facts_proposed, j.facts_stored, j.facts_rejected,
       j.facts_duplicate, j.facts_evicted, j.finished
  from dbms_cloud_ai._memory_job j;
comment on view dbms_cloud_ai.dba_cloud_ai_memory_jobs is
'Memory promotion jobs of the organizations you administer (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.dba_cloud_ai_memory_erasures with (security_invoker = true) as
select e.erasure_id, e.organization, e.subject_digest, e.scope, e.actor::text as actor,
       e.memories, e.prompts, e.jobs, e.erased
  from dbms_cloud_ai._memory_erasure e;
comment on view dbms_cloud_ai.dba_cloud_ai_memory_erasures is
'Erasures: when, by whom, how much; the subject only as sha256(organization || NUL || subject)';

create view dbms_cloud_ai.dba_cloud_ai_memory_settings with (security_invoker = true) as
select o.organization, o.enabled, o.max_memories, o.idle_minutes, o.recall_tokens, o.modified,
       o.modified_by::text as modified_by, o.max_pending_jobs
  from dbms_cloud_ai._memory_organization o;
comment on view dbms_cloud_ai.dba_cloud_ai_memory_settings is
'Long-term memory switch and limits per organization (no row: off, defaults)';

create view dbms_cloud_ai.dba_cloud_ai_memory_roles with (security_invoker = true) as
select r.role_name::text as role_name, r.organization, r.identity, r.modified,
       r.modified_by::text as modified_by
  from dbms_cloud_ai._memory_role r;
comment on view dbms_cloud_ai.dba_cloud_ai_memory_roles is
'Roles assigned to an organization, and where their end-user identity comes from';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._memory to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._memory_job to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._memory to dbms_cloud_ai_admin;
grant select, insert, update, delete on dbms_cloud_ai._memory_job to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._memory_role to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._memory_organization to dbms_cloud_ai_user;
grant insert, update, delete on dbms_cloud_ai._memory_role to dbms_cloud_ai_admin;
grant insert, update, delete on dbms_cloud_ai._memory_organization to dbms_cloud_ai_admin;
grant select, insert on dbms_cloud_ai._memory_erasure to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.user_cloud_ai_memories to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_memory_jobs to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_memories to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_memory_jobs to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_memory_erasures to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_memory_settings to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_memory_roles to dbms_cloud_ai_admin;
