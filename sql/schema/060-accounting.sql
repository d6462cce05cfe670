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

-- The turn's totals and rating are columns of _conversation_prompt (050).
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
