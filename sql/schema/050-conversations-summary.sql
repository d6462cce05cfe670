-- (OR REPLACE: the 0.2.0 -> 0.3.0 update replaces the 0.2.0 function with this.)
-- Deleting prompts, by any path (delete_conversation_prompt, a direct DELETE,
-- the retention purge), erases a summary made from any of them, so deleted text
-- is never sent again, and bumps the generation of the conversation's row
-- whatever was deleted, so a turn that read the prompts before the delete
-- cannot store a summary made from them (its write expects the old generation).
-- The upsert is what makes that safe against a concurrent turn: at READ
-- COMMITTED it waits for the turn's row and re-reads it; at REPEATABLE READ a
-- row it cannot see fails with 40001 instead of being missed.
-- Only the deleting role's own conversations (the caller's, when the writer
-- deletes: python/src/dbms_cloud_ai/writer.py): the purge run by an administrator
-- leaves other roles' rows to the cascade when their conversation goes.
create or replace function dbms_cloud_ai._forget_summaries() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
begin
    if exists (select from gone g join dbms_cloud_ai._conversation c
                 on c.conversation_id operator(pg_catalog.=) g.conversation_id
                where c.owner operator(pg_catalog.=) dbms_cloud_ai._caller()) then
        insert into dbms_cloud_ai._conversation_summary as s (conversation_id)
        select distinct g.conversation_id
          from gone g join dbms_cloud_ai._conversation c
            on c.conversation_id operator(pg_catalog.=) g.conversation_id
         where c.owner operator(pg_catalog.=) dbms_cloud_ai._caller()
        on conflict (conversation_id) do update
           set generation = s.generation operator(pg_catalog.+) 1,
               modified = pg_catalog.now(),
               (summary, first_seq, covers_seq, prompts, call_id) =
                   (select case when x.hit then null else s.summary end,
                           case when x.hit then null else s.first_seq end,
                           case when x.hit then null else s.covers_seq end,
                           case when x.hit then 0 else s.prompts end,
                           case when x.hit then null else s.call_id end
                      from (select exists (select from gone d
                                            where d.conversation_id operator(pg_catalog.=) s.conversation_id
                                              and d.seq operator(pg_catalog.>=) s.first_seq
                                              and d.seq operator(pg_catalog.<=) s.covers_seq) as hit) x);
    end if;
    return null;
end
$function$;
comment on function dbms_cloud_ai._forget_summaries() is
'trigger: deleted prompts erase the summaries made from them';

-- Condensed history: a named conversation longer than its window keeps a
-- running summary, written by the model, of the prompts that fell out of it.
-- Off unless the profile or the conversation turns it on (summarize_history).

-- The conversation's own settings are columns of _conversation (050-conversations.sql).

-- One row per conversation that has (or had) a summary.  What the model
-- receives is the summary, then the prompts after covers_seq (at most
-- conversation_length of them), then the question.
create table dbms_cloud_ai._conversation_summary
( conversation_id uuid primary key references dbms_cloud_ai._conversation on delete cascade
, owner           name not null default dbms_cloud_ai._caller()
, summary         text            -- NULL: none (erased because a prompt it was made from was deleted)
, first_seq       bigint          -- the oldest prompt it was made from
, covers_seq      bigint          -- the newest prompt it covers; the window starts after it
, prompts         integer not null default 0  -- prompts folded into it, over all its updates
, generation      bigint not null default 1   -- +1 on every change; a writer expects the one it read
, call_id         uuid            -- the model call that wrote it (user_cloud_ai_calls)
, created         timestamptz not null default pg_catalog.now()
, modified        timestamptz not null default pg_catalog.now()
, check ((summary is null) = (covers_seq is null) and (summary is null) = (first_seq is null))
);
comment on table dbms_cloud_ai._conversation_summary is
'running summary of the prompts that fell out of a conversation''s window';

alter table dbms_cloud_ai._conversation_summary enable row level security;
alter table dbms_cloud_ai._conversation_summary force row level security;
-- Like prompts: only into one of the writer's own conversations.
create policy conversation_summary_owner on dbms_cloud_ai._conversation_summary
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id
                               and c.owner operator(pg_catalog.=) current_user));
create policy conversation_summary_admin_read on dbms_cloud_ai._conversation_summary for select
    to dbms_cloud_ai_admin using (true);

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._conversation_summary', '');

-- Deleted prompts erase the summaries made from them (_forget_summaries, above).
create trigger forget_summaries after delete on dbms_cloud_ai._conversation_prompt
    referencing old table as gone for each statement
    execute function dbms_cloud_ai._forget_summaries();

-- Role binding and the writer's policies (what they are: 012-role-binding.sql).
create trigger bind_role before insert on dbms_cloud_ai._conversation_summary
    for each statement execute function dbms_cloud_ai._bind_role();
create policy conversation_summary_role_bound on dbms_cloud_ai._conversation_summary as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy conversation_summary_admin_drop_role on dbms_cloud_ai._conversation_summary for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy conversation_summary_writer on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id
                               and c.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())));
