-- Per-call accounting: one row per request the extension sends to a model
-- (answers, repairs, explanations, narrations, titles, summaries, feedback,
-- embeddings).  No prompt or answer text is kept here, only what a call cost.
create table dbms_cloud_ai._model_call
( call_id                uuid primary key
, owner                  name not null default dbms_cloud_ai._caller()
, created                timestamptz not null
, profile_name           text
, action                 text          -- RUNSQL, CHAT, ... or FEEDBACK
, purpose                text not null -- answer, repair, explanation, narration, title, summary, feedback, embedding
, provider               text not null
, model                  text
, prompt_version         text not null -- template name @ hash of its text
, input_tokens           integer
, output_tokens          integer
, tokens_estimated       boolean not null default false
, latency_ms             integer not null
, attempts               integer not null default 1
, status                 text not null check (status in ('ok', 'error'))
, error_sqlstate         text
, http_status            integer
, conversation_id        uuid          -- no foreign key: the cost outlives a dropped conversation
, conversation_prompt_id uuid
);
comment on table dbms_cloud_ai._model_call is 'one row per model request: provider, model, tokens, latency, status';
-- Budgets and per-owner reports read one owner's recent calls; reports by day read a time range.
create index on dbms_cloud_ai._model_call (owner, created) include (input_tokens, output_tokens);
create index on dbms_cloud_ai._model_call (created);
create index on dbms_cloud_ai._model_call (conversation_prompt_id) where conversation_prompt_id is not null;

-- What an answer used besides the question: feedback examples, memories, documents.
create table dbms_cloud_ai._message_source
( call_id                uuid not null
, owner                  name not null default dbms_cloud_ai._caller()
, conversation_prompt_id uuid
, source_kind            text not null  -- feedback, rated_prompt, memory, document
, source_id              text not null
, similarity             real
, primary key (call_id, source_kind, source_id)
);
comment on table dbms_cloud_ai._message_source is 'the retrieved context an answer used, with its similarity';
create index on dbms_cloud_ai._message_source (conversation_prompt_id) where conversation_prompt_id is not null;

-- The turn's totals and rating are columns of _conversation_prompt (050-conversations.sql).
create index on dbms_cloud_ai._conversation_prompt (owner, created) where rating is not null;

alter table dbms_cloud_ai._model_call enable row level security;
alter table dbms_cloud_ai._model_call force row level security;
alter table dbms_cloud_ai._message_source enable row level security;
alter table dbms_cloud_ai._message_source force row level security;
create policy model_call_owner on dbms_cloud_ai._model_call
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
create policy model_call_admin_read on dbms_cloud_ai._model_call for select
    to dbms_cloud_ai_admin using (true);
create policy message_source_owner on dbms_cloud_ai._message_source
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
create policy message_source_admin_read on dbms_cloud_ai._message_source for select
    to dbms_cloud_ai_admin using (true);

-- Daily token budgets, set by an administrator: for one role (its own calls)
-- or for PUBLIC (the whole database).
create table dbms_cloud_ai._token_budget
( principal    name primary key   -- a role, or PUBLIC
, daily_tokens bigint not null check (daily_tokens >= 0)
, modified     timestamptz not null default pg_catalog.now()
);
comment on table dbms_cloud_ai._token_budget is 'daily token budgets per role, or for PUBLIC (the database)';
alter table dbms_cloud_ai._token_budget enable row level security;
alter table dbms_cloud_ai._token_budget force row level security;
-- A role sees the budgets that apply to it; administrators see and set all.
create policy token_budget_read on dbms_cloud_ai._token_budget for select
    using (principal operator(pg_catalog.=) current_user or principal operator(pg_catalog.=) 'PUBLIC');
create policy token_budget_admin on dbms_cloud_ai._token_budget
    to dbms_cloud_ai_admin using (true) with check (true);

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._model_call', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._message_source', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._token_budget', '');

-- Role binding and the writer's policies (what they are: 012-role-binding.sql).
create trigger bind_principal before insert or update of principal on dbms_cloud_ai._token_budget
    for each row execute function dbms_cloud_ai._bind_principal('principal');
create policy token_budget_role_bound on dbms_cloud_ai._token_budget as restrictive
    using (principal operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy model_call_role_bound on dbms_cloud_ai._model_call as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy model_call_admin_drop_role on dbms_cloud_ai._model_call for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
-- Accounting stays append-only for every live role: the owner policies cover
-- DELETE too, and administrators now hold the privilege.
create policy model_call_delete_dropped_only on dbms_cloud_ai._model_call as restrictive for delete
    using (dbms_cloud_ai._role_is_stale(owner));
-- No future dates: the package stamps a call when it happens; a row dated
-- later would count against today's budgets until that day.
alter table dbms_cloud_ai._model_call add constraint model_call_not_in_future
    check (created operator(pg_catalog.<=) (pg_catalog.statement_timestamp() operator(pg_catalog.+) interval '5 minutes'));
-- Accounting rows are written by dbms_cloud_ai._write (api/005-writer.sql), which runs as
-- dbms_cloud_ai_owner (row-level security is forced on the owner too, so it gets
-- policies of its own; no one logs in or acts as that role otherwise).  Users only
-- read their rows.  Administrators correct a record's counts (UPDATE of the
-- token columns only; a deleted record would be stored again by the session
-- that still holds it, so correction is by update).
create policy model_call_writer on dbms_cloud_ai._model_call for all
    to dbms_cloud_ai_owner using (true) with check (true);
create policy model_call_admin_correct on dbms_cloud_ai._model_call for update
    to dbms_cloud_ai_admin using (true) with check (true);
-- Counts a provider reported are clamped by the package; a row can never hold less.
alter table dbms_cloud_ai._model_call add constraint model_call_counts_not_negative
    check (input_tokens operator(pg_catalog.>=) 0 and output_tokens operator(pg_catalog.>=) 0
           and latency_ms operator(pg_catalog.>=) 0 and attempts operator(pg_catalog.>=) 1);
create policy message_source_role_bound on dbms_cloud_ai._message_source as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy message_source_admin_drop_role on dbms_cloud_ai._message_source for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy message_source_delete_dropped_only on dbms_cloud_ai._message_source as restrictive for delete
    using (dbms_cloud_ai._role_is_stale(owner));
create policy message_source_writer on dbms_cloud_ai._message_source for all
    to dbms_cloud_ai_owner using (true) with check (true);
