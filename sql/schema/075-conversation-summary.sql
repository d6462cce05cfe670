-- Condensed history: a named conversation longer than its window keeps a
-- running summary, written by the model, of the prompts that fell out of it.
-- Off unless the profile or the conversation turns it on (summarize_history).

-- The conversation's own settings are columns of _conversation (050).

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

-- Deleted prompts erase the summaries made from them: 074-forget-summaries.sql.
create trigger forget_summaries after delete on dbms_cloud_ai._conversation_prompt
    referencing old table as gone for each statement
    execute function dbms_cloud_ai._forget_summaries();
