-- ===== sql/head.sql =====
-- dbms_cloud_ai install script: built by sql/build.py from the files in sql/.
-- Do not edit extension/dbms_cloud_ai--*.sql by hand.
\echo Use "CREATE EXTENSION dbms_cloud_ai" to load this file. \quit

-- CREATE EXTENSION runs this script with search_path = <the extension's schema>,
-- pg_temp, that is public (pg_catalog implicitly first): a role that may create
-- objects in public could otherwise plant a better-matching function or operator
-- for an unqualified name used in a CHECK, DEFAULT, view or BEGIN ATOMIC body,
-- and the catalog would bind it.  SET LOCAL lasts until the script ends (CREATE
-- EXTENSION restores the caller's setting); update scripts start with the same
-- line (build.py); tests/test_install_hygiene.py.  Objects are schema-qualified too.
set local search_path to pg_catalog, pg_temp;

-- ===== sql/schema/010-roles-and-schemas.sql =====
-- Roles are cluster-wide and outlive the extension; they are created only when
-- missing.  dbms_cloud_ai_user is Oracle's "GRANT EXECUTE ON DBMS_CLOUD_AI";
-- dbms_cloud_ai_admin is Oracle's ADMIN for the DBA_ views and host ACLs.
do $roles$
begin
    if not exists (select from pg_catalog.pg_roles where rolname = 'dbms_cloud_ai_user') then
        create role dbms_cloud_ai_user nologin;
    end if;
    if not exists (select from pg_catalog.pg_roles where rolname = 'dbms_cloud_ai_admin') then
        create role dbms_cloud_ai_admin nologin;
    end if;
    if exists (select from pg_catalog.pg_roles
                where rolname in ('dbms_cloud_ai_user', 'dbms_cloud_ai_admin')
                  and (rolcanlogin or rolsuper or rolbypassrls)) then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = 'roles dbms_cloud_ai_user and dbms_cloud_ai_admin must be NOLOGIN, NOSUPERUSER and NOBYPASSRLS',
            hint = 'Drop or alter the existing roles, then run CREATE EXTENSION again.';
    end if;
end
$roles$;

grant dbms_cloud_ai_user to dbms_cloud_ai_admin;

-- No IF NOT EXISTS: if someone planted these schemas, installation fails.
create schema dbms_cloud;
create schema dbms_cloud_ai;
comment on schema dbms_cloud is 'Oracle DBMS_CLOUD credentials for dbms_cloud_ai';
comment on schema dbms_cloud_ai is 'Oracle Select AI (DBMS_CLOUD_AI) for PostgreSQL';

-- ===== sql/schema/011-caller.sql =====
-- The role an API call acts for.  Ordinary roles write the extension's tables
-- only through dbms_cloud_ai._write (python/src/dbms_cloud_ai/writer.py), which
-- runs as dbms_cloud_ai_owner; the package's call of it sets dbms_cloud_ai.caller
-- to the calling role's name first.  Anywhere else this is current_user: a role
-- that sets the setting itself changes nothing, as no code of its own runs as
-- the owner.
-- Column defaults and the owner role's policies (099-writer.sql) use it where
-- they would use current_user.
create function dbms_cloud_ai._caller()
returns name language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $$
    select case when current_user operator(pg_catalog.=) 'dbms_cloud_ai_owner'::pg_catalog.name
                then nullif(pg_catalog.current_setting('dbms_cloud_ai.caller', true), '')::pg_catalog.name
                else current_user end
$$;
comment on function dbms_cloud_ai._caller() is
'the role an API call acts for: current_user, or the caller of dbms_cloud_ai._write inside it';

-- A shared thing (profile, vector index) is usable only while its owner is the
-- live role that stored it (issue 30, class 2): the name exists and, if bound,
-- is bound to that role's OID (097-role-binding.sql).  Dropped, or dropped and
-- created again under the same name, and every grant of the owner's is inert at
-- once, before any drop_role_data.  The grant tables' read policies use it.
-- SECURITY DEFINER because a grantee may not read its owner's binding row
-- (role_binding_read); the answer is one boolean about a name.  PL/pgSQL: the
-- policies of tables created before _role_binding name it.
create function dbms_cloud_ai._role_is_live(role_name name)
returns boolean language plpgsql stable parallel safe security definer
set search_path to pg_catalog, pg_temp
as $$
begin
    return exists (select from pg_catalog.pg_roles r
                    where r.rolname operator(pg_catalog.=) _role_is_live.role_name
                      and not exists (select from dbms_cloud_ai._role_binding b
                                       where b.role_name operator(pg_catalog.=) _role_is_live.role_name
                                         and b.role_oid operator(pg_catalog.<>) r.oid));
end
$$;
comment on function dbms_cloud_ai._role_is_live(name) is
'true while the role that stored this name''s rows exists under it (a shared object''s owner)';

-- ===== sql/schema/020-credentials.sql =====
-- Credentials: the secret is AES-256-GCM ciphertext made by the Python package
-- before the first INSERT; the master key lives in a file outside the database.
create table dbms_cloud._credential
( credential_id   bigint generated by default as identity primary key
, owner           name not null default dbms_cloud_ai._caller()
, credential_name text not null
, username        text
, secret          bytea not null
, key_id          text not null
, enabled         boolean not null default true
, created         timestamptz not null default pg_catalog.now()
, modified        timestamptz not null default pg_catalog.now()
, unique (owner, credential_name)
);
comment on table dbms_cloud._credential is 'credentials; secret is ciphertext bound to owner and name';

alter table dbms_cloud._credential enable row level security;
alter table dbms_cloud._credential force row level security;
create policy credential_owner on dbms_cloud._credential
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);

select pg_catalog.pg_extension_config_dump('dbms_cloud._credential', '');

-- ===== sql/schema/030-profiles.sql =====
-- AI profiles.  Attributes are stored as validated, typed JSON, and beside them
-- the text the user gave for each, which the views show as Oracle does.
create table dbms_cloud_ai._profile
( profile_id    bigint generated by default as identity primary key
, owner         name not null default dbms_cloud_ai._caller()
, profile_name  text not null
, status        text not null default 'ENABLED' check (status in ('ENABLED', 'DISABLED'))
, description   text
, attributes    jsonb not null default '{}'
, credential_name text  -- attributes.credential_name normalized by Oracle's rules, for one-query lookups
, created       timestamptz not null default pg_catalog.now()
, last_modified timestamptz not null default pg_catalog.now()
, unique (owner, profile_name)
  -- issue 18: each attribute's text as the user gave it (the views show it, as Oracle);
  -- an attribute missing here (set before 0.6.0) is shown from its typed value
, attribute_text jsonb not null default '{}'
);
comment on table dbms_cloud_ai._profile is 'AI profiles; one row per (owner, profile_name)';

alter table dbms_cloud_ai._profile enable row level security;
alter table dbms_cloud_ai._profile force row level security;
create policy profile_owner on dbms_cloud_ai._profile
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
-- Administrators read every profile (the DBA_ views) but change only their own.
create policy profile_admin_read on dbms_cloud_ai._profile for select to dbms_cloud_ai_admin
    using (true);

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._profile', '');

-- ===== sql/schema/040-host-acl.sql =====
-- Host access control entries (Oracle's DBMS_NETWORK_ACL_ADMIN.APPEND_HOST_ACE).
create table dbms_cloud_ai._host_ace
( ace_id         bigint generated by default as identity primary key
, host           text not null
, lower_port     integer check (lower_port between 1 and 65535)
, upper_port     integer check (upper_port between 1 and 65535)
, principal_name text not null
, privilege      text not null default 'http' check (privilege = 'http')
, created        timestamptz not null default pg_catalog.now()
, created_by     name not null default dbms_cloud_ai._caller()
);
comment on table dbms_cloud_ai._host_ace is 'hosts a role may reach besides the providers'' own API hosts';

alter table dbms_cloud_ai._host_ace enable row level security;
alter table dbms_cloud_ai._host_ace force row level security;
-- A role sees the entries granted to PUBLIC, to itself, or to a role it belongs to.
create policy host_ace_grantee on dbms_cloud_ai._host_ace for select
    using (principal_name operator(pg_catalog.=) 'PUBLIC'
           or exists (select from pg_catalog.pg_roles r
                       where r.rolname operator(pg_catalog.=) principal_name
                         and pg_catalog.pg_has_role(current_user, r.oid, 'member')));
create policy host_ace_admin on dbms_cloud_ai._host_ace to dbms_cloud_ai_admin
    using (true) with check (true);

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._host_ace', '');

-- ===== sql/schema/050-conversations.sql =====
-- Named long-term conversations (Oracle CREATE_CONVERSATION) and their prompts.
-- Ids are uuids, shown as Oracle's 36-character upper-case GUIDs.  Each table's
-- whole shape is here, its columns in the order versions added them (a fresh
-- install and an updated one must agree: tests/test_upgrade.py); the features
-- that added columns keep their indexes and policies in their own files.
create table dbms_cloud_ai._conversation
( conversation_id     uuid primary key
, owner               name not null default dbms_cloud_ai._caller()
, title               text check (pg_catalog.length(title) <= 128)
, description         text
, retention_days      integer not null default 7 check (retention_days >= 0)
, conversation_length integer check (conversation_length between 1 and 999)
, tags                jsonb not null default '{}'
, title_pending       boolean not null default true   -- generate a title after the first prompt
, created             timestamptz not null default pg_catalog.now()
, modified            timestamptz not null default pg_catalog.now()
, expires_at          timestamptz                      -- created + retention_days; NULL keeps forever
  -- condensed history (075): the conversation's own settings; NULL: the profile's, else the default
, summarize_history   boolean
, summary_max_tokens  integer check (summary_max_tokens between 50 and 4000)
  -- long-term memory (090): a title the model wrote is erased with the prompt it came from
, title_generated     boolean not null default false
);
comment on table dbms_cloud_ai._conversation is 'named conversations; expired ones behave as missing';
create index on dbms_cloud_ai._conversation (expires_at) where expires_at is not null;
create index on dbms_cloud_ai._conversation (owner, created);

create table dbms_cloud_ai._conversation_prompt
( conversation_prompt_id uuid primary key
, conversation_id        uuid not null references dbms_cloud_ai._conversation on delete cascade
, seq                    bigint generated by default as identity  -- strict order across sessions
, owner                  name not null default dbms_cloud_ai._caller()
, profile_name           text
, prompt_action          text not null
, prompt                 text not null
, prompt_response        text not null
, created                timestamptz not null default pg_catalog.clock_timestamp()
, modified               timestamptz not null default pg_catalog.clock_timestamp()
, client_identifier      text
, client_ip              text
, sid                    integer  -- Oracle SID: the backend pid
, serial_no              bigint   -- Oracle SERIAL#: the backend's start time, epoch microseconds
  -- accounting (060): the turn's model calls, all of them (answer, repair, ...); its rating
, provider               text
, model                  text
, prompt_version         text
, input_tokens           integer
, output_tokens          integer
, tokens_estimated       boolean
, latency_ms             integer
, rating                 smallint check (rating in (-1, 1))
, rating_comment         text
, rated                  timestamptz
  -- long-term memory (090): which end user said it (a gateway's conversation has several)
, organization           text
, subject                text
  -- retries (095): the client's request id, unique per owner
, request_id             text check (pg_catalog.length(request_id) between 1 and 200)
);
comment on table dbms_cloud_ai._conversation_prompt is 'one row per prompt and its response';
-- The history window reads the newest rows of one conversation: constant cost at any length.
create index on dbms_cloud_ai._conversation_prompt (conversation_id, seq);

alter table dbms_cloud_ai._conversation enable row level security;
alter table dbms_cloud_ai._conversation force row level security;
alter table dbms_cloud_ai._conversation_prompt enable row level security;
alter table dbms_cloud_ai._conversation_prompt force row level security;

create policy conversation_owner on dbms_cloud_ai._conversation
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
-- A prompt may only be written into one of the writer's own conversations: the
-- foreign key alone would let another role probe (or write into) any id.
create policy conversation_prompt_owner on dbms_cloud_ai._conversation_prompt
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _conversation_prompt.conversation_id
                               and c.owner operator(pg_catalog.=) current_user));
-- Administrators read everything (DBA_ views) and purge what has expired, nothing more.
create policy conversation_admin_read on dbms_cloud_ai._conversation for select
    to dbms_cloud_ai_admin using (true);
create policy conversation_prompt_admin_read on dbms_cloud_ai._conversation_prompt for select
    to dbms_cloud_ai_admin using (true);
create policy conversation_admin_purge on dbms_cloud_ai._conversation for delete
    to dbms_cloud_ai_admin using (expires_at operator(pg_catalog.<=) pg_catalog.now());
create policy conversation_prompt_admin_purge on dbms_cloud_ai._conversation_prompt for delete
    to dbms_cloud_ai_admin
    using (exists (select from dbms_cloud_ai._conversation c
                    where c.conversation_id operator(pg_catalog.=) _conversation_prompt.conversation_id
                      and c.expires_at operator(pg_catalog.<=) pg_catalog.now()));

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._conversation', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._conversation_prompt', '');

-- ===== sql/schema/060-accounting.sql =====
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

-- ===== sql/schema/070-feedback.sql =====
-- Feedback on NL2SQL answers (Oracle FEEDBACK), and the examples that feedback
-- and ratings become (python/src/dbms_cloud_ai/feedback.py).

-- Every runsql, showsql, explainsql and narrate call, as Oracle's V$MAPPED_SQL
-- knows a SELECT AI statement: its SQL_ID, its text ("select ai <action>
-- <prompt>") and the SQL the model wrote.  FEEDBACK names statements by these.
create table dbms_cloud_ai._sql_statement
( statement_id           uuid primary key default pg_catalog.gen_random_uuid()  -- no sequence: nothing but this row changes
, owner                  name not null default dbms_cloud_ai._caller()
, sql_id                 text not null check (sql_id ~ '^[0-9abcdfghjkmnpqrstuvwxyz]{13}$')
, sql_text               text not null
, profile_name           text not null
, action                 text not null check (action in ('RUNSQL', 'SHOWSQL', 'EXPLAINSQL', 'NARRATE'))
, prompt                 text not null
, sql                    text not null
, conversation_prompt_id uuid          -- the prompt it was recorded as, if any (no key: prompts go)
, sid                    integer       -- the session, as in conversation prompts
, serial_no              bigint
, created                timestamptz not null default pg_catalog.clock_timestamp()
, foreign key (owner, profile_name) references dbms_cloud_ai._profile (owner, profile_name)
      on delete cascade
);
comment on table dbms_cloud_ai._sql_statement is 'NL2SQL statements by SQL_ID, for FEEDBACK';
create index on dbms_cloud_ai._sql_statement (owner, profile_name, sql_id, created);
-- "the last statement of this session" (the feedback action)
create index on dbms_cloud_ai._sql_statement (owner, sid, serial_no, created);

-- One feedback record per owner, profile and SQL_ID; adding again replaces it.
create table dbms_cloud_ai._feedback
( feedback_id      uuid primary key
, owner            name not null default dbms_cloud_ai._caller()
, profile_name     text not null
, sql_id           text not null
, sql_text         text not null
, action           text                -- of the statement; NULL when it was never seen
, question         text not null
, feedback_type    text not null check (feedback_type in ('positive', 'negative'))
, generated_sql    text                -- what the model wrote; NULL when never seen
, response         text                -- the corrected (or confirmed) SQL
, corrected_by     text check (corrected_by in ('user', 'model'))
, feedback_content text
, created          timestamptz not null default pg_catalog.now()
, modified         timestamptz not null default pg_catalog.now()
, unique (owner, profile_name, sql_id)
, foreign key (owner, profile_name) references dbms_cloud_ai._profile (owner, profile_name)
      on delete cascade
);
comment on table dbms_cloud_ai._feedback is 'FEEDBACK records: one per owner, profile and SQL_ID';
create index on dbms_cloud_ai._feedback (owner, modified) where feedback_type = 'negative';

-- Questions with a query known to answer them, shown to the model before
-- similar later questions of the same owner and profile: from positive
-- feedback, negative feedback with a correction, and prompts rated +1.
create table dbms_cloud_ai._example
( example_id             bigint generated always as identity primary key
, owner                  name not null default dbms_cloud_ai._caller()
, profile_name           text not null
, source_kind            text not null check (source_kind in ('feedback', 'rated_prompt'))
, feedback_id            uuid unique references dbms_cloud_ai._feedback on delete cascade
, conversation_prompt_id uuid unique references dbms_cloud_ai._conversation_prompt on delete cascade
, question               text not null
, sql                    text not null
, tsv                    tsvector not null          -- to_tsvector('english', question)
, embedding              float4[]                   -- unit length; NULL without embedding_model
, embedding_model        text
, created                timestamptz not null default pg_catalog.now()
, check (case source_kind when 'feedback' then feedback_id is not null and conversation_prompt_id is null
                          else conversation_prompt_id is not null and feedback_id is null end)
);
comment on table dbms_cloud_ai._example is 'examples (question and SQL) for later NL2SQL prompts';
create index on dbms_cloud_ai._example (owner, profile_name);
create index on dbms_cloud_ai._example using gin (tsv);

alter table dbms_cloud_ai._sql_statement enable row level security;
alter table dbms_cloud_ai._sql_statement force row level security;
alter table dbms_cloud_ai._feedback enable row level security;
alter table dbms_cloud_ai._feedback force row level security;
alter table dbms_cloud_ai._example enable row level security;
alter table dbms_cloud_ai._example force row level security;

create policy sql_statement_owner on dbms_cloud_ai._sql_statement
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
create policy feedback_owner on dbms_cloud_ai._feedback
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user);
-- An example may only point at the writer's own feedback or prompt: the foreign
-- keys alone would let another role probe for ids.
create policy example_owner on dbms_cloud_ai._example
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user
                and (feedback_id is null
                     or exists (select from dbms_cloud_ai._feedback f
                                 where f.feedback_id operator(pg_catalog.=) _example.feedback_id
                                   and f.owner operator(pg_catalog.=) current_user))
                and (conversation_prompt_id is null
                     or exists (select from dbms_cloud_ai._conversation_prompt p
                                 where p.conversation_prompt_id operator(pg_catalog.=) _example.conversation_prompt_id
                                   and p.owner operator(pg_catalog.=) current_user)));
-- Administrators read every role's feedback (dba_cloud_ai_feedback and the
-- negative-feedback export), nothing more.
create policy feedback_admin_read on dbms_cloud_ai._feedback for select
    to dbms_cloud_ai_admin using (true);

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._sql_statement', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._feedback', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._example', '');

-- ===== sql/schema/074-forget-summaries.sql =====
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


-- ===== sql/schema/075-conversation-summary.sql =====
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

-- ===== sql/schema/085-usage.sql =====
-- Usage reports (sql/api/095-usage.sql): the prices an administrator keeps for
-- the cost column, a daily summary of past days, and the indexes that keep report
-- queries fast at millions of recorded calls (bench/bench_accounting.py measures
-- them).

-- Price of a model, per million tokens.  A price applies to the model the
-- calls record under that name, and to the same name with a date suffix:
-- providers report dated versions ('gpt-4o-mini-2024-07-18' for a request for
-- 'gpt-4o-mini', 'claude-haiku-4-5-20251001'); an exact price wins.
create table dbms_cloud_ai._model_price
( provider           text not null
, model              text not null check (model operator(pg_catalog.<>) '')
, input_per_million  numeric not null check (input_per_million operator(pg_catalog.>=) 0)
, output_per_million numeric not null check (output_per_million operator(pg_catalog.>=) 0)
, currency           text not null default 'USD'
                     check (currency operator(pg_catalog.~) '^[A-Z]{3}$')
, modified           timestamptz not null default pg_catalog.now()
, primary key (provider, model)
);
comment on table dbms_cloud_ai._model_price is
'price per million input and output tokens of a model (and of its dated versions)';

alter table dbms_cloud_ai._model_price enable row level security;
alter table dbms_cloud_ai._model_price force row level security;
-- Prices are no secret: everyone reads them; administrators set them.
create policy model_price_read on dbms_cloud_ai._model_price for select using (true);
create policy model_price_admin on dbms_cloud_ai._model_price
    to dbms_cloud_ai_admin using (true) with check (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._model_price', '');

-- The report day is the UTC calendar day: (created at time zone 'UTC')::date,
-- an immutable expression that the usage views group by and that can be
-- indexed.  summarize_usage() reads whole days through it; so do the usage
-- views for the days the summary does not cover (all of them until it first
-- runs).  Today's calls, the live part of the views, are found through the
-- (created) and (owner, created) indexes of 060-accounting.sql.
create index _model_call_utc_day on dbms_cloud_ai._model_call
    ((pg_catalog.timezone('UTC', created)::date));

-- Rated prompts of one owner and day, for the rating balance: the columns it
-- compares and adds are included so that the lookup reads the index alone.
-- Ratings are few, so the partial index is small.
create index _conversation_prompt_rated_usage on dbms_cloud_ai._conversation_prompt
    (owner, created) include (prompt_action, provider, model, rating)
    where rating is not null;

-- The daily summary: one row per UTC day, owner, action, provider and model
-- with what the usage views report for it (ratings and cost stay live: ratings
-- change, prices too).  dbms_cloud_ai.summarize_usage() (an administrator, every
-- few minutes from pg_cron or cron) fills it for the days up to yesterday and
-- rebuilds a day whose calls changed since; the views read summarized days from
-- here and the others (today) from _model_call.  Derived data: not dumped (a
-- restored database recomputes it at the next summarize_usage()).
create table dbms_cloud_ai._usage_daily
( day            date not null
, owner          name not null
, action         text
, provider       text not null
, model          text
, calls          bigint not null
, errors         bigint not null
, input_tokens   bigint
, output_tokens  bigint
, latency_p50_ms integer
, latency_p95_ms integer
);
comment on table dbms_cloud_ai._usage_daily is
'model calls summarized per UTC day, owner, action, provider and model (dbms_cloud_ai.summarize_usage)';
create index on dbms_cloud_ai._usage_daily (day, owner);
create index on dbms_cloud_ai._usage_daily (owner, day);

-- How far the summary goes: days up to summarized_through (inclusive) come from
-- _usage_daily.  One row; NULL until the first summarize_usage().
create table dbms_cloud_ai._usage_state
( singleton          boolean primary key default true check (singleton)
, summarized_through date
, summarized_at      timestamptz
);
comment on table dbms_cloud_ai._usage_state is 'how far _usage_daily goes';
insert into dbms_cloud_ai._usage_state default values;

alter table dbms_cloud_ai._usage_daily enable row level security;
alter table dbms_cloud_ai._usage_daily force row level security;
alter table dbms_cloud_ai._usage_state enable row level security;
alter table dbms_cloud_ai._usage_state force row level security;
create policy usage_daily_owner on dbms_cloud_ai._usage_daily for select
    using (owner operator(pg_catalog.=) current_user);
create policy usage_daily_admin on dbms_cloud_ai._usage_daily
    to dbms_cloud_ai_admin using (true) with check (true);
create policy usage_state_read on dbms_cloud_ai._usage_state for select using (true);
create policy usage_state_admin on dbms_cloud_ai._usage_state
    to dbms_cloud_ai_admin using (true) with check (true);

-- ===== sql/schema/089-vector-indexes.sql =====
-- Vector indexes (Oracle's CREATE_VECTOR_INDEX and friends; issue 19): documents
-- cut into chunks, each embedded with the index's profile, that narrate answers
-- from (python/src/dbms_cloud_ai/rag/).  An index and its chunks belong to their
-- owner; grant_vector_index_access lets a role (its members, or PUBLIC) read
-- them.  Like profile grants (094), a grant keeps the grantee by name and OID,
-- and its owner column lets the policies of the index and chunk tables read the
-- grants without the grant table's policies reading them back (no recursion).
create table dbms_cloud_ai._vector_index
( index_id    uuid primary key default pg_catalog.gen_random_uuid()
, owner       name not null default dbms_cloud_ai._caller()
, index_name  text not null
, description text
, status      text not null default 'ENABLED' check (status in ('ENABLED', 'DISABLED'))
, attributes  jsonb not null default '{}'
, refreshed   timestamptz          -- the last refresh that completed
, embedding_model text             -- the model the chunks were embedded with (the question's too)
, common_words text[]              -- 0.7.0; dropped below (now _vector_index_content)
, created     timestamptz not null default pg_catalog.now()
, modified    timestamptz not null default pg_catalog.now()
-- the last refresh's outcome (rag/schedule.py): a failed one is recorded by
-- pg_cron's job (refresh_vector_index_job), which rolls the refresh back; its
-- error is in _vector_index_content (090-vector-index-content.sql)
, last_refresh_status text check (last_refresh_status in ('OK', 'FAILED'))
, last_refresh_at     timestamptz
, unique (owner, index_name)
, unique (index_id, owner)
);
-- What an index's documents say is not on this row, which administrators read
-- (vector_index_admin_read): common_words moved to _vector_index_content in
-- 0.8.0.  Created and dropped here as an update drops it, so that a fresh
-- install numbers the columns as an updated one does (tests/test_upgrade.py).
alter table dbms_cloud_ai._vector_index drop column common_words;
comment on table dbms_cloud_ai._vector_index is
'vector indexes: where their documents come from, how they are chunked, embedded and searched';

-- One chunk of a source: source is the row's id (table sources) or the URL.
-- hash: md5 of the chunk's text and the embedding model, so a refresh embeds
-- only the chunks whose text (or model) changed.  tsv is the full-text
-- candidates' index (rag/retrieve.py); embedding is unit length (float4[]:
-- pgvector is not required).
create table dbms_cloud_ai._vector_chunk
( index_id        uuid not null
, owner           name not null default dbms_cloud_ai._caller()
, source          text not null
, chunk_no        int not null
, content         text not null
, hash            text not null
, embedding       float4[]
, embedding_model text
, tsv             tsvector generated always as (pg_catalog.to_tsvector('pg_catalog.english'::regconfig, content)) stored
, modified        timestamptz not null default pg_catalog.now()
, primary key (index_id, source, chunk_no)
, foreign key (index_id, owner) references dbms_cloud_ai._vector_index (index_id, owner)
      on delete cascade
);
create index vector_chunk_tsv on dbms_cloud_ai._vector_chunk using gin (tsv);
-- retrieval's bounded fallback: an index's newest chunks
create index vector_chunk_recent on dbms_cloud_ai._vector_chunk (index_id, modified);
comment on table dbms_cloud_ai._vector_chunk is
'the chunks of a vector index''s documents with their embeddings';

create table dbms_cloud_ai._vector_index_grant
( index_id    uuid not null
, owner       name not null default dbms_cloud_ai._caller()
, grantee     name not null
, grantee_oid oid not null
, granted     timestamptz not null default pg_catalog.now()
, primary key (index_id, grantee_oid)
, foreign key (index_id, owner) references dbms_cloud_ai._vector_index (index_id, owner)
      on delete cascade
);
create index vector_index_grant_grantee on dbms_cloud_ai._vector_index_grant (grantee_oid);
comment on table dbms_cloud_ai._vector_index_grant is
'vector indexes shared by their owner (grant_vector_index_access); grantee_oid 0 is PUBLIC';

alter table dbms_cloud_ai._vector_index enable row level security;
alter table dbms_cloud_ai._vector_index force row level security;
alter table dbms_cloud_ai._vector_chunk enable row level security;
alter table dbms_cloud_ai._vector_chunk force row level security;
alter table dbms_cloud_ai._vector_index_grant enable row level security;
alter table dbms_cloud_ai._vector_index_grant force row level security;
-- A grantee's grant lasts while its owner is the live role that made it
-- (_role_is_live, 011-caller.sql).
create policy vector_index_grant_read on dbms_cloud_ai._vector_index_grant for select
    using (owner operator(pg_catalog.=) current_user
           or ((grantee_oid operator(pg_catalog.=) 0
                or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                    and pg_catalog.pg_has_role(current_user, grantee_oid, 'USAGE')))
               and dbms_cloud_ai._role_is_live(owner)));
-- The owner's rows, and those of indexes granted to the role.
create policy vector_index_read on dbms_cloud_ai._vector_index for select
    using (owner operator(pg_catalog.=) current_user
           or exists (select from dbms_cloud_ai._vector_index_grant g
                       where g.index_id operator(pg_catalog.=) _vector_index.index_id
                         and (g.grantee_oid operator(pg_catalog.=) 0
                              or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                  and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE')))));
-- A chunk is readable with its index (vector_index_read decides: the owner, the
-- grantees; and, from 099-vector-index-writer.sql, not a later role of a
-- dropped owner's name).
-- Own or granted is said again here: administrators read every index row
-- (vector_index_admin_read), never the chunks of indexes not shared with them.
create policy vector_chunk_read on dbms_cloud_ai._vector_chunk for select
    using (exists (select from dbms_cloud_ai._vector_index i
                    where i.index_id operator(pg_catalog.=) _vector_chunk.index_id)
           and (owner operator(pg_catalog.=) current_user
                or exists (select from dbms_cloud_ai._vector_index_grant g
                            where g.index_id operator(pg_catalog.=) _vector_chunk.index_id
                              and (g.grantee_oid operator(pg_catalog.=) 0
                                   or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                       and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))));
-- Administrators read every index's row and attributes (Oracle's
-- DBA_CLOUD_VECTOR_INDEXES); queries that mean "own or shared with me" say so
-- themselves (the ALL_ views, narrate's lookup: rag/narrate.py).
create policy vector_index_admin_read on dbms_cloud_ai._vector_index for select
    to dbms_cloud_ai_admin using (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._vector_index', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._vector_chunk', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._vector_index_grant', '');

-- ===== sql/schema/090-memory.sql =====
-- Long-term memory: durable facts about identified end users, kept per
-- (organization, subject), extracted from idle conversations, recalled later.

-- Which organization (tenant) a role belongs to, and where its subject comes
-- from: 'role' (the role itself is the end user), 'asserted' (a trusted gateway:
-- the end user is whoever it vouches for with set_end_user(), nobody otherwise)
-- or 'anonymous' (never a subject).  A role without a row belongs to the
-- database's own organization (current_database()) as 'role'.
create table dbms_cloud_ai._memory_role
( role_name    name primary key
, organization text not null check (pg_catalog.length(organization) between 1 and 128)
, identity     text not null default 'role' check (identity in ('role', 'asserted', 'anonymous'))
, modified     timestamptz not null default pg_catalog.now()
, modified_by  name not null default dbms_cloud_ai._caller()
);
comment on table dbms_cloud_ai._memory_role is 'organization and identity source of a role';

-- The organization's switch ("remember identified users across conversations")
-- and its limits.  No row: switched off, defaults.
create table dbms_cloud_ai._memory_organization
( organization  text primary key check (pg_catalog.length(organization) between 1 and 128)
, enabled       boolean not null default false
, max_memories  integer not null default 200 check (max_memories between 1 and 100000)
, idle_minutes  integer not null default 15 check (idle_minutes between 0 and 10080)
, recall_tokens integer not null default 400 check (recall_tokens between 0 and 100000)
, modified      timestamptz not null default pg_catalog.now()
, modified_by   name not null default dbms_cloud_ai._caller()
, max_pending_jobs integer not null default 1000 check (max_pending_jobs between 1 and 100000)   -- 0.8.0: per role
);
comment on table dbms_cloud_ai._memory_organization is 'long-term memory switch and limits per organization';

-- The caller's organization: its role's row, else this database.  Used by the
-- administrators' policies below, evaluated once per statement (initplan).
create function dbms_cloud_ai._organization()
returns text language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $$
    select coalesce((select r.organization from dbms_cloud_ai._memory_role r
                      where r.role_name operator(pg_catalog.=) current_user),
                    pg_catalog.current_database()::text)
$$;

-- An administrator whose role has no organization row administers every
-- organization of the database; one assigned to an organization, only it.
create function dbms_cloud_ai._administers(organization text)
returns boolean language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $$
    select not exists (select from dbms_cloud_ai._memory_role r
                        where r.role_name operator(pg_catalog.=) current_user)
        or organization operator(pg_catalog.=) dbms_cloud_ai._organization()
$$;

create table dbms_cloud_ai._memory
( memory_id              uuid primary key
, seq                    bigint generated always as identity   -- write order: eviction drops the lowest
, organization           text not null
, subject                text not null
, owner                  name not null default dbms_cloud_ai._caller()    -- the role that holds it (a gateway for its visitors)
, fact                   text not null check (pg_catalog.length(fact) between 1 and 2000)
, fact_key               text not null   -- md5 of the fact, case and spacing folded: exact duplicates
, source_conversation_id uuid not null
, source_prompt_id       uuid not null   -- the message it was first extracted from
, source_prompt_ids      uuid[] not null -- every message that stated it (duplicates add theirs): erasure removes them all
, created                timestamptz not null default pg_catalog.now()
, fact_tsv               tsvector generated always as (pg_catalog.to_tsvector('pg_catalog.simple'::regconfig, fact)) stored
, embedding              float4[]        -- the fact's, unit length; NULL without embedding_model (0.6.0)
, embedding_model        text            -- the profile's embedding_model that made it
, unique (organization, subject, owner, fact_key)
);
comment on table dbms_cloud_ai._memory is 'durable facts about an end user, with their provenance';
-- Recall, listing and eviction read one subject's memories in write order.
create index on dbms_cloud_ai._memory (organization, subject, seq);
create index on dbms_cloud_ai._memory (source_prompt_id);

-- One promotion job per conversation: each new message moves it back to
-- pending and pushes due_at out (debounce); the runner takes due jobs.
create table dbms_cloud_ai._memory_job
( conversation_id     uuid primary key references dbms_cloud_ai._conversation on delete cascade
, owner               name not null default dbms_cloud_ai._caller()
, organization        text not null
, subject             text                -- NULL: anonymous; the job stops
, profile_name        text
, status              text not null default 'pending'
                      check (status in ('pending', 'running', 'done', 'stopped', 'failed'))
, reason              text                -- why it stopped or failed; no content
, due_at              timestamptz not null
, run_token           uuid                -- the run that claimed it
, claimed_at          timestamptz
, attempts            integer not null default 0
, extracted_through   bigint not null default 0   -- prompts up to this seq were read
, facts_proposed      integer
, facts_stored        integer
, facts_rejected      integer
, facts_duplicate     integer
, facts_evicted       integer
, call_id             uuid                -- the extraction's model call
, created             timestamptz not null default pg_catalog.now()
, finished            timestamptz
, timeouts            integer not null default 0   -- 0.8.0: its requests that timed out since its owner's last answered extraction
, timed_out_at        timestamptz                   -- the last of them (the owner's back-off, memory/jobs.py)
);
comment on table dbms_cloud_ai._memory_job is 'one memory promotion job per conversation (debounced)';
create index on dbms_cloud_ai._memory_job (due_at) where status operator(pg_catalog.=) 'pending';
create index on dbms_cloud_ai._memory_job (organization, subject);
-- An owner's pending jobs (the cap at enqueue, the claim's per-owner queue) and
-- its timeouts (back-off): memory/jobs.py.
create index on dbms_cloud_ai._memory_job (owner, due_at) where status operator(pg_catalog.=) 'pending';
create index on dbms_cloud_ai._memory_job (owner) where timeouts operator(pg_catalog.>) 0;

-- That an erasure happened, by whom, and how much it removed; never what.
create table dbms_cloud_ai._memory_erasure
( erasure_id       uuid primary key
, organization     text not null
, subject_digest   text not null   -- sha256 of the subject: matches a later request, reveals nothing
, scope            text not null check (scope in ('memory', 'subject'))
, actor            name not null default dbms_cloud_ai._caller()
, memories         integer not null
, prompts          integer not null
, jobs             integer not null
, erased           timestamptz not null default pg_catalog.now()
);
comment on table dbms_cloud_ai._memory_erasure is 'audit of memory erasures, without content';

-- _conversation.title_generated: a title the model wrote (from the first prompt)
-- is erased with that prompt.  _conversation_prompt.organization, subject: which
-- end user said each prompt (set when the profile has long_term_memory): a
-- gateway's conversation may carry several visitors; a fact is extracted only
-- for the subject who said it.  (Columns of 050.)
create index on dbms_cloud_ai._conversation_prompt (organization, subject) where subject is not null;

alter table dbms_cloud_ai._memory_role enable row level security;
alter table dbms_cloud_ai._memory_role force row level security;
alter table dbms_cloud_ai._memory_organization enable row level security;
alter table dbms_cloud_ai._memory_organization force row level security;
alter table dbms_cloud_ai._memory enable row level security;
alter table dbms_cloud_ai._memory force row level security;
alter table dbms_cloud_ai._memory_job enable row level security;
alter table dbms_cloud_ai._memory_job force row level security;
alter table dbms_cloud_ai._memory_erasure enable row level security;
alter table dbms_cloud_ai._memory_erasure force row level security;

-- A role reads its own assignment; administrators read all, and assign roles
-- in the organizations they administer.  (No policy here may call
-- _organization(): it reads this table, and would recurse.)
create policy memory_role_read on dbms_cloud_ai._memory_role for select
    using (role_name operator(pg_catalog.=) current_user
           or pg_catalog.pg_has_role(current_user, 'dbms_cloud_ai_admin', 'member'));
create policy memory_role_admin_insert on dbms_cloud_ai._memory_role for insert
    to dbms_cloud_ai_admin with check (dbms_cloud_ai._administers(organization));
create policy memory_role_admin_update on dbms_cloud_ai._memory_role for update
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization))
    with check (dbms_cloud_ai._administers(organization));
create policy memory_role_admin_delete on dbms_cloud_ai._memory_role for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization));

-- Everyone reads the switch of their own organization (recall checks it).
create policy memory_organization_read on dbms_cloud_ai._memory_organization for select
    using (organization operator(pg_catalog.=) (select dbms_cloud_ai._organization()));
create policy memory_organization_admin on dbms_cloud_ai._memory_organization
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization))
    with check (dbms_cloud_ai._administers(organization));

-- Memories belong to the role that holds them; which subject's memories a call
-- may use is decided by the session identity (memory/recall.py), always within this.
-- A role writes only into its own organization (no relabelling rows into a
-- tenant whose administrators would then see them).
create policy memory_owner on dbms_cloud_ai._memory
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user
                and organization operator(pg_catalog.=) (select dbms_cloud_ai._organization()));
create policy memory_admin_read on dbms_cloud_ai._memory for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization));
create policy memory_admin_erase on dbms_cloud_ai._memory for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization));

-- Like prompts: a job only for one of the writer's own conversations (the
-- foreign key alone would let a role probe for, or squat on, another's ids).
create policy memory_job_owner on dbms_cloud_ai._memory_job
    using (owner operator(pg_catalog.=) current_user)
    with check (owner operator(pg_catalog.=) current_user
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _memory_job.conversation_id
                               and c.owner operator(pg_catalog.=) current_user));
-- A runner that is an administrator claims and closes due jobs (it runs each
-- as the job's owner); erasure removes a subject's jobs.
create policy memory_job_admin_read on dbms_cloud_ai._memory_job for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization));
-- (A job stays the job of its conversation's owner: the runner runs it as that role.)
create policy memory_job_admin_update on dbms_cloud_ai._memory_job for update
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization))
    with check (dbms_cloud_ai._administers(organization)
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _memory_job.conversation_id
                               and c.owner operator(pg_catalog.=) _memory_job.owner));
create policy memory_job_admin_erase on dbms_cloud_ai._memory_job for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization));

create policy memory_erasure_admin on dbms_cloud_ai._memory_erasure
    to dbms_cloud_ai_admin using (dbms_cloud_ai._administers(organization))
    with check (dbms_cloud_ai._administers(organization) and actor operator(pg_catalog.=) current_user);

-- Erasure removes the prompts a subject's facts came from and the answers that
-- used them: administrators may delete prompts said by a subject of an
-- organization they administer, and what those prompts' accounting points at.
create policy conversation_prompt_admin_erase on dbms_cloud_ai._conversation_prompt for delete
    to dbms_cloud_ai_admin
    using (subject is not null and dbms_cloud_ai._administers(organization));
-- ... the NL2SQL statement log rows recorded for them (a DELETE with a WHERE
-- clause must also see the rows: the same condition for SELECT) ...
create policy sql_statement_admin_erase on dbms_cloud_ai._sql_statement for delete
    to dbms_cloud_ai_admin
    using (exists (select from dbms_cloud_ai._conversation_prompt p
                    where p.conversation_prompt_id operator(pg_catalog.=) _sql_statement.conversation_prompt_id
                      and p.subject is not null and dbms_cloud_ai._administers(p.organization)));
create policy sql_statement_admin_erase_read on dbms_cloud_ai._sql_statement for select
    to dbms_cloud_ai_admin
    using (exists (select from dbms_cloud_ai._conversation_prompt p
                    where p.conversation_prompt_id operator(pg_catalog.=) _sql_statement.conversation_prompt_id
                      and p.subject is not null and dbms_cloud_ai._administers(p.organization)));
-- ... the FEEDBACK records on those statements (their sql_text quotes the prompt) ...
create policy feedback_admin_erase on dbms_cloud_ai._feedback for delete
    to dbms_cloud_ai_admin
    using (exists (select from dbms_cloud_ai._sql_statement s
                     join dbms_cloud_ai._conversation_prompt p
                       on p.conversation_prompt_id operator(pg_catalog.=) s.conversation_prompt_id
                    where s.owner operator(pg_catalog.=) _feedback.owner
                      and s.profile_name operator(pg_catalog.=) _feedback.profile_name
                      and s.sql_id operator(pg_catalog.=) _feedback.sql_id
                      and p.subject is not null and dbms_cloud_ai._administers(p.organization)));
-- ... the titles the model made from them ...
create policy conversation_admin_erase on dbms_cloud_ai._conversation for update
    to dbms_cloud_ai_admin
    using (exists (select from dbms_cloud_ai._conversation_prompt p
                    where p.conversation_id operator(pg_catalog.=) _conversation.conversation_id
                      and p.subject is not null and dbms_cloud_ai._administers(p.organization)))
    with check (title is null and description is null);
-- ... and blank the summaries made from such prompts (never write one).
create policy conversation_summary_admin_erase on dbms_cloud_ai._conversation_summary for update
    to dbms_cloud_ai_admin
    using (exists (select from dbms_cloud_ai._conversation_prompt p
                    where p.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id
                      and p.subject is not null and dbms_cloud_ai._administers(p.organization)))
    with check (summary is null);
-- Erasure also gives a summary-less conversation an empty summary row (generation 1):
-- a turn in flight that read no row would otherwise insert a summary made from
-- the erased prompts after the erasure.
create policy conversation_summary_admin_erase_insert on dbms_cloud_ai._conversation_summary for insert
    to dbms_cloud_ai_admin
    with check (summary is null
                and owner operator(pg_catalog.=) (select c.owner from dbms_cloud_ai._conversation c
                                                   where c.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id)
                and exists (select from dbms_cloud_ai._conversation_prompt p
                             where p.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id
                               and p.subject is not null and dbms_cloud_ai._administers(p.organization)));

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._memory_role', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._memory_organization', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._memory', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._memory_job', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._memory_erasure', '');

-- ===== sql/schema/090-vector-index-content.sql =====
-- What a vector index's row says that comes from its documents (issue 30,
-- class 4): the common words a refresh counted (rag/refresh.py) and the last
-- failed refresh's error (rag/schedule.py: a message may quote a source's
-- values).  Administrators read every _vector_index row (Oracle's
-- DBA_CLOUD_VECTOR_INDEXES) but never the content of an index not shared with
-- them: these columns live here, under the chunks' rule (own or granted), and
-- the views join them, so the DBA_ views show NULL for the others' indexes.
-- One row per index at most, written by the owner's refreshes only (the
-- writer); it goes with its index (the foreign key).
create table dbms_cloud_ai._vector_index_content
( index_id           uuid primary key
, owner              name not null default dbms_cloud_ai._caller()
, common_words       text[]        -- lexemes in too many chunks to select candidates (rag/retrieve.py)
, last_refresh_error text          -- SQLSTATE: message (short) of the last refresh when it FAILED
, foreign key (index_id, owner) references dbms_cloud_ai._vector_index (index_id, owner)
      on delete cascade
);
comment on table dbms_cloud_ai._vector_index_content is
'what a vector index''s row derives from its documents, readable as its chunks are (owner and grantees)';

alter table dbms_cloud_ai._vector_index_content enable row level security;
alter table dbms_cloud_ai._vector_index_content force row level security;
-- The chunks' rule (vector_chunk_read), said again: the index must be readable
-- (vector_index_read; a later role of a dropped owner's name reads none), and
-- the reader is its owner or a grantee, never an administrator as such.
create policy vector_index_content_read on dbms_cloud_ai._vector_index_content for select
    using (exists (select from dbms_cloud_ai._vector_index i
                    where i.index_id operator(pg_catalog.=) _vector_index_content.index_id)
           and (owner operator(pg_catalog.=) current_user
                or exists (select from dbms_cloud_ai._vector_index_grant g
                            where g.index_id operator(pg_catalog.=) _vector_index_content.index_id
                              and (g.grantee_oid operator(pg_catalog.=) 0
                                   or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                       and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))));
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._vector_index_content', '');

-- ===== sql/schema/091-admin-settings.sql =====
-- Limits only an administrator may change (python/src/dbms_cloud_ai/model/llm.py).
-- A user can SET any custom setting (and ALTER ROLE itself), so a limit on
-- users cannot be a setting: it lives here, readable by all, written by
-- dbms_cloud_ai_admin through dbms_cloud_ai.set_max_wait.
create table dbms_cloud_ai._admin_setting
( setting  text primary key check (setting operator(pg_catalog.=) 'max_wait')
, value    float8 not null check (value operator(pg_catalog.>) 0)
, modified timestamptz not null default pg_catalog.now()
);
comment on table dbms_cloud_ai._admin_setting is
'limits set by administrators: max_wait, the longest any call may wait on the network (seconds)';
alter table dbms_cloud_ai._admin_setting enable row level security;
alter table dbms_cloud_ai._admin_setting force row level security;
create policy admin_setting_read on dbms_cloud_ai._admin_setting for select using (true);
create policy admin_setting_admin on dbms_cloud_ai._admin_setting
    to dbms_cloud_ai_admin using (true) with check (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._admin_setting', '');

-- ===== sql/schema/092-data-access.sql =====
-- Oracle's ENABLE_DATA_ACCESS / DISABLE_DATA_ACCESS (python/src/dbms_cloud_ai/data_access.py):
-- one database-wide switch.  No row means enabled (the default).  Readable by
-- all (every call reads it with its first query), written only by
-- dbms_cloud_ai_admin through dbms_cloud_ai.enable_data_access / disable_data_access.
create table dbms_cloud_ai._data_access
( only_row    boolean primary key default true check (only_row)
, enabled     boolean not null
, modified    timestamptz not null default pg_catalog.now()
, modified_by name not null default current_user
);
comment on table dbms_cloud_ai._data_access is
'whether row values may be sent to a model provider (narrate); no row: enabled';
alter table dbms_cloud_ai._data_access enable row level security;
alter table dbms_cloud_ai._data_access force row level security;
create policy data_access_read on dbms_cloud_ai._data_access for select using (true);
create policy data_access_admin on dbms_cloud_ai._data_access
    to dbms_cloud_ai_admin using (true) with check (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._data_access', '');

-- ===== sql/schema/093-annotations.sql =====
-- Annotations (issue 18; Oracle's ANNOTATIONS clause on tables and columns):
-- names, or name-value pairs, that the schema context shows the model when the
-- profile's attribute annotations is true (nl2sql/schema_context.py).  A row
-- belongs to the role that wrote it (owner); only a role with the rights of the
-- annotated relation's owner writes one (dbms_cloud_ai.add_annotation, checked
-- there and by the writer's policy in 099-annotation-writer.sql).
-- table_id is a regclass: it follows a rename, and pg_dump saves it by name, so
-- a restore finds the table again.  Rows of a dropped table stay behind unseen:
-- the schema context and the view show a row only while its table exists and
-- its writer still has the rights of the table's owner (an OID reused by another
-- role's table does not inherit them).
-- column_name is a name, not an attribute number (pg_dump renumbers columns
-- after a dropped one): a renamed column leaves its annotations behind.
create table dbms_cloud_ai._annotation
( owner            name not null default dbms_cloud_ai._caller()
, table_id         pg_catalog.regclass not null
, column_name      name
, annotation_name  text not null
                   check (annotation_name operator(pg_catalog.~) '^[A-Za-z_][A-Za-z0-9_$#]{0,127}$')
, annotation_value text check (pg_catalog.length(annotation_value) operator(pg_catalog.<=) 1000)
, modified         timestamptz not null default pg_catalog.now()
);
-- One value per name and column (or table) for each writer; two writers never
-- collide, so a unique-key error tells nobody about another role's rows.
create unique index annotation_key on dbms_cloud_ai._annotation
    (owner, table_id, (coalesce(column_name, ''::name)), annotation_name);
comment on table dbms_cloud_ai._annotation is
'annotations (names or name-value pairs) on tables and columns, shown to the model when a profile has annotations true';

alter table dbms_cloud_ai._annotation enable row level security;
alter table dbms_cloud_ai._annotation force row level security;
-- A role reads its own annotations and those of the relations (and columns) it
-- may read itself: the schema context shows the owner's annotations to readers.
create policy annotation_read on dbms_cloud_ai._annotation for select
    using (owner operator(pg_catalog.=) current_user
           or ((pg_catalog.has_table_privilege(table_id, 'SELECT')
                and column_name is null)
               or exists (select from pg_catalog.pg_attribute a
                           where a.attrelid operator(pg_catalog.=) table_id
                             and a.attname operator(pg_catalog.=) column_name
                             and a.attnum operator(pg_catalog.>) 0 and not a.attisdropped
                             and pg_catalog.has_column_privilege(table_id, a.attnum, 'SELECT'))
               or (column_name is null
                   and pg_catalog.has_any_column_privilege(table_id, 'SELECT'))));
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._annotation', '');

-- ===== sql/schema/094-profile-grants.sql =====
-- Profile sharing (Oracle's GRANT_PROFILE_ACCESS / REVOKE_PROFILE_ACCESS).  One
-- row lets the grantee (a role, its members through inheritance, or PUBLIC) use
-- the owner's profile: read the profile row and its attributes, and call the
-- provider with the profile's credential inside the package.  The credential
-- row itself stays unreadable to the grantee (sql/schema/099-profile-grant-writer.sql
-- lets only the package's owner-role path read it, for the profile's own use).
--
-- The grantee is kept by name and OID: both must still match the live role,
-- so a later role that reuses the OID or the name of a dropped grantee gets
-- nothing.  grantee_oid 0 is PUBLIC.  owner is the profile's owner (the foreign
-- key says so), kept here so that the policies of this table never read
-- _profile, whose policies read this table.
alter table dbms_cloud_ai._profile add constraint profile_id_owner unique (profile_id, owner);
create table dbms_cloud_ai._profile_grant
( profile_id  bigint not null
, owner       name not null default dbms_cloud_ai._caller()
, grantee     name not null
, grantee_oid oid not null
, granted     timestamptz not null default pg_catalog.now()
, daily_tokens bigint check (daily_tokens operator(pg_catalog.>=) 0)   -- 0.8.0: set_profile_grant_budget, per role
, primary key (profile_id, grantee_oid)
, foreign key (profile_id, owner) references dbms_cloud_ai._profile (profile_id, owner)
      on delete cascade
);
create index profile_grant_grantee on dbms_cloud_ai._profile_grant (grantee_oid);
comment on table dbms_cloud_ai._profile_grant is
'profiles shared by their owner (grant_profile_access); grantee_oid 0 is PUBLIC';

alter table dbms_cloud_ai._profile_grant enable row level security;
alter table dbms_cloud_ai._profile_grant force row level security;
-- A grantee's grant lasts while its owner is the live role that made it
-- (_role_is_live, 011-caller.sql).
create policy profile_grant_read on dbms_cloud_ai._profile_grant for select
    using (owner operator(pg_catalog.=) current_user
           or ((grantee_oid operator(pg_catalog.=) 0
                or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                    and pg_catalog.pg_has_role(current_user, grantee_oid, 'USAGE')))
               and dbms_cloud_ai._role_is_live(owner)));
create policy profile_grant_admin_read on dbms_cloud_ai._profile_grant for select
    to dbms_cloud_ai_admin using (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._profile_grant', '');

-- A grantee reads the shared profile's row (generate, set_profile, the ALL_ views).
create policy profile_grantee_read on dbms_cloud_ai._profile for select
    using (exists (select from dbms_cloud_ai._profile_grant g
                    where g.profile_id operator(pg_catalog.=) _profile.profile_id
                      and (g.grantee_oid operator(pg_catalog.=) 0
                           or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                               and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE')))));

-- ===== sql/schema/095-request-id.sql =====
-- A client's request id (generate params "request_id") names one turn of its
-- owner's conversations, so a client that retries a call (its connection
-- dropped, it timed out) gets the stored turn back instead of a second one.
-- The unique index settles two calls in flight with the same id at insert
-- time: no lock is held while the model answers (generate.py).  The column
-- request_id is _conversation_prompt's last (050).
create unique index _conversation_prompt_request_id on dbms_cloud_ai._conversation_prompt
    (owner, request_id) where request_id is not null;

-- ===== sql/schema/096-fixed-row-owner.sql =====
-- A row never changes owner.  Row-level security stops a role from writing
-- rows for another role, but the administrators' erasure policies let them
-- UPDATE other roles' conversations, summaries and memory jobs (blanking titles
-- and summaries, claiming jobs), and a WITH CHECK cannot compare the new row
-- with the old one: without this, an administrator could hand alice's
-- conversation or memory job to bob (tests/test_rls_matrix.py).  No code path
-- changes an owner; the trigger fires only when one would.
create function dbms_cloud_ai._owner_is_fixed() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
begin
    raise exception using
        errcode = 'insufficient_privilege',
        message = pg_catalog.format('rows of %s cannot change owner', tg_table_name),
        hint = 'Rows belong to the role that created them.';
end
$function$;
comment on function dbms_cloud_ai._owner_is_fixed() is
'trigger: the owner column of a row never changes';

-- Every table with an owner column gets the trigger owner_is_fixed from
-- sql/api/990-table-rules.sql (catalog-driven: a new table needs no line here).

-- ===== sql/schema/097-role-binding.sql =====
-- A role's rows belong to that role, not to its name (issue 14, class 3).
-- Rows name their role (owner, principal_name, principal, role_name), and a
-- name outlives its role: DROP ROLE does not see these rows, and a role created
-- later with the same name would inherit them.  Each name that holds rows is
-- bound here to the OID of the role that stored them; the policies below hide
-- a name's rows from a role whose OID is not the bound one, and writes by such
-- a role fail with 42501 naming the administrator's way out.  binding_id is
-- part of the credentials' associated data (crypto.py): it stays with the
-- binding when an administrator re-binds after a restore into another cluster
-- (rebind_role), and a new binding (after drop_role_data) never has it.
-- Unbound names are usable by the role of that name (first use binds them).
create table dbms_cloud_ai._role_binding
( role_name  name primary key
, role_oid   oid not null          -- 0: rows of a role that was gone when 0.3.0 was installed
, binding_id uuid not null default pg_catalog.gen_random_uuid()
, created    timestamptz not null default pg_catalog.now()
);
comment on table dbms_cloud_ai._role_binding is
'the role (OID) each role name that holds rows belongs to';

-- A name whose rows no existing role may use: no role has the name, or the
-- role that has it now is not the one the name is bound to.
create function dbms_cloud_ai._role_is_stale(role_name name)
returns boolean language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $$
    select case when r.oid is null then true
                else exists (select from dbms_cloud_ai._role_binding b
                              where b.role_name operator(pg_catalog.=) $1
                                and b.role_oid operator(pg_catalog.<>) r.oid) end
      from (select (select a.oid from pg_catalog.pg_roles a
                     where a.rolname operator(pg_catalog.=) $1) as oid) r
$$;
comment on function dbms_cloud_ai._role_is_stale(name) is
'true when no existing role may use the rows of this role name (dropped, or dropped and created again)';

alter table dbms_cloud_ai._role_binding enable row level security;
alter table dbms_cloud_ai._role_binding force row level security;
-- A role reads the bindings of the roles it is a member of (its own, and its
-- groups': a group's binding decides whether the group's ACEs apply to it);
-- administrators read all (drop_role_data, rebind_role).
create policy role_binding_read on dbms_cloud_ai._role_binding for select
    using (role_name operator(pg_catalog.=) current_user
           or coalesce(pg_catalog.pg_has_role(current_user,
                                              pg_catalog.to_regrole(pg_catalog.quote_ident(role_name))::oid,
                                              'member'), false));
create policy role_binding_admin_read on dbms_cloud_ai._role_binding for select
    to dbms_cloud_ai_admin using (true);
-- Anyone may bind an existing role's name to that role's own OID, nothing else
-- (the first store of a role binds it, an administrator's ACE binds its grantee).
create policy role_binding_insert on dbms_cloud_ai._role_binding for insert
    with check (role_oid operator(pg_catalog.=) (select r.oid from pg_catalog.pg_roles r
                                                  where r.rolname operator(pg_catalog.=) role_name));
-- rebind_role: only to the OID the name has now, keeping binding_id.
create policy role_binding_admin_rebind on dbms_cloud_ai._role_binding for update
    to dbms_cloud_ai_admin using (true)
    with check (role_oid operator(pg_catalog.=) (select r.oid from pg_catalog.pg_roles r
                                                  where r.rolname operator(pg_catalog.=) role_name));
create policy role_binding_admin_drop on dbms_cloud_ai._role_binding for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(role_name));

select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._role_binding', '');

-- Statement trigger on every table with an owner column: bind the writing role
-- on its first write, refuse a role whose name is bound to another role.  One
-- index probe per statement.  Superusers are skipped: row-level security does
-- not apply to them, and pg_restore (a superuser) loads the tables' rows with
-- COPY before the dumped bindings, which a binding made here would collide with.
create function dbms_cloud_ai._bind_role() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
declare
    mine  oid;
    bound oid;
begin
    -- dbms_cloud_ai_owner: the writer (_write) binds the role it writes for itself
    -- (writer.py).
    if pg_catalog.current_setting('is_superuser') operator(pg_catalog.=) 'on'
       or current_user operator(pg_catalog.=) 'dbms_cloud_ai_owner' then
        return null;
    end if;
    mine := pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid;
    select b.role_oid into bound from dbms_cloud_ai._role_binding b
     where b.role_name operator(pg_catalog.=) current_user;
    if bound is null then
        insert into dbms_cloud_ai._role_binding (role_name, role_oid) values (current_user, mine)
        on conflict (role_name) do nothing;
    elsif bound operator(pg_catalog.<>) mine then
        raise exception using
            errcode = 'insufficient_privilege',
            message = pg_catalog.format('role %s is not the role that stored the dbms_cloud_ai rows of that name',
                                        current_user),
            detail = 'A role of this name was dropped; its rows are kept apart from this role.',
            hint = pg_catalog.format('An administrator removes them with dbms_cloud_ai.drop_role_data(%L) '
                                     '(or, after a restore into another cluster, re-binds them with '
                                     'dbms_cloud_ai.rebind_role(%L)).', current_user, current_user);
    end if;
    return null;
end
$function$;
comment on function dbms_cloud_ai._bind_role() is
'trigger: bind the writing role''s name to its OID, refuse a role whose name is bound to another';

-- Row trigger on the administrators' tables that name a role: the grantee is
-- bound when granted, so the grant goes with the role, not with its name.  The
-- API functions that grant (append_host_ace, set_token_budget, set_memory_role)
-- bind it themselves (roles.py), for superusers too; this trigger does it for
-- any other writer and skips superusers for the same reason as _bind_role.
create function dbms_cloud_ai._bind_principal() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
declare
    who     name := pg_catalog.to_jsonb(new) operator(pg_catalog.->>) tg_argv[0];
    now_oid oid;
    bound   oid;
begin
    if pg_catalog.current_setting('is_superuser') operator(pg_catalog.=) 'on' then
        return new;
    end if;
    select r.oid, b.role_oid into now_oid, bound
      from pg_catalog.pg_roles r
      left join dbms_cloud_ai._role_binding b on b.role_name operator(pg_catalog.=) r.rolname
     where r.rolname operator(pg_catalog.=) who;
    if now_oid is null then   -- PUBLIC, or no role of that name
        return new;
    elsif bound is null then
        insert into dbms_cloud_ai._role_binding (role_name, role_oid) values (who, now_oid)
        on conflict (role_name) do nothing;
    elsif bound operator(pg_catalog.<>) now_oid then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = pg_catalog.format('role %s is not the role that stored the dbms_cloud_ai rows of that name',
                                        who),
            hint = pg_catalog.format('Remove the dropped role''s rows first with dbms_cloud_ai.drop_role_data(%L).',
                                     who);
    end if;
    return new;
end
$function$;
comment on function dbms_cloud_ai._bind_principal() is
'trigger: bind the role a row is granted to (column named by the trigger argument)';

-- Not on the accounting tables (_model_call, _message_source): only the writer
-- inserts there (administrators may read and delete, not insert), and the
-- writer binds and checks on every write; one trigger call per model call was
-- a tenth of the accounting write.
create trigger bind_role before insert on dbms_cloud._credential
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._profile
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._conversation
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._conversation_prompt
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._conversation_summary
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._sql_statement
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._feedback
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._example
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._memory
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_role before insert on dbms_cloud_ai._memory_job
    for each statement execute function dbms_cloud_ai._bind_role();
create trigger bind_principal before insert or update of principal_name on dbms_cloud_ai._host_ace
    for each row execute function dbms_cloud_ai._bind_principal('principal_name');
create trigger bind_principal before insert or update of principal on dbms_cloud_ai._token_budget
    for each row execute function dbms_cloud_ai._bind_principal('principal');
create trigger bind_principal before insert or update of role_name on dbms_cloud_ai._memory_role
    for each row execute function dbms_cloud_ai._bind_principal('role_name');

-- The rows of a name are its role's only while the name is bound to the
-- caller's OID (or unbound).  Restrictive: added to every other policy.  Rows of
-- other names pass (administrators' reads); the binding probe is uncorrelated,
-- so it runs once per statement (an initplan) and the owner indexes still apply.
-- The caller's OID comes from the role cache (to_regrole), not from a query.
create policy credential_role_bound on dbms_cloud._credential as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy profile_role_bound on dbms_cloud_ai._profile as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy conversation_role_bound on dbms_cloud_ai._conversation as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy conversation_prompt_role_bound on dbms_cloud_ai._conversation_prompt as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy conversation_summary_role_bound on dbms_cloud_ai._conversation_summary as restrictive
    using (owner operator(pg_catalog.<>) current_user
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
create policy message_source_role_bound on dbms_cloud_ai._message_source as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy sql_statement_role_bound on dbms_cloud_ai._sql_statement as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy feedback_role_bound on dbms_cloud_ai._feedback as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy example_role_bound on dbms_cloud_ai._example as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy usage_daily_role_bound on dbms_cloud_ai._usage_daily as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy memory_role_bound on dbms_cloud_ai._memory as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy memory_job_role_bound on dbms_cloud_ai._memory_job as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy token_budget_role_bound on dbms_cloud_ai._token_budget as restrictive
    using (principal operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy memory_role_role_bound on dbms_cloud_ai._memory_role as restrictive
    using (role_name operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
-- A host ACE applies through the role it was granted to (or a group holding
-- that name), only while the name is bound to that role.  Administrators see
-- every entry (they remove the stale ones).
create policy host_ace_role_bound on dbms_cloud_ai._host_ace as restrictive
    using (principal_name operator(pg_catalog.=) 'PUBLIC'
           or (select pg_catalog.pg_has_role(current_user, 'dbms_cloud_ai_admin', 'member'))
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) _host_ace.principal_name
                             and b.role_oid operator(pg_catalog.<>)
                                 coalesce(pg_catalog.to_regrole(pg_catalog.quote_ident(b.role_name))::oid, 0::oid)));

-- drop_role_data: administrators delete the rows of names no existing role may
-- use, and only those (a live role's rows stay its own).  A DELETE with a WHERE
-- clause also needs the rows to be readable: tables the administrators do not
-- read whole get a read policy for the same rows.
create policy credential_admin_drop_role_read on dbms_cloud._credential for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy sql_statement_admin_drop_role_read on dbms_cloud_ai._sql_statement for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy example_admin_drop_role_read on dbms_cloud_ai._example for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy memory_admin_drop_role_read on dbms_cloud_ai._memory for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy memory_job_admin_drop_role_read on dbms_cloud_ai._memory_job for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy credential_admin_drop_role on dbms_cloud._credential for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy profile_admin_drop_role on dbms_cloud_ai._profile for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy conversation_admin_drop_role on dbms_cloud_ai._conversation for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy conversation_prompt_admin_drop_role on dbms_cloud_ai._conversation_prompt for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy conversation_summary_admin_drop_role on dbms_cloud_ai._conversation_summary for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy model_call_admin_drop_role on dbms_cloud_ai._model_call for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy message_source_admin_drop_role on dbms_cloud_ai._message_source for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
-- Accounting stays append-only for every live role: the owner policies cover
-- DELETE too, and administrators now hold the privilege.
create policy model_call_delete_dropped_only on dbms_cloud_ai._model_call as restrictive for delete
    using (dbms_cloud_ai._role_is_stale(owner));
create policy message_source_delete_dropped_only on dbms_cloud_ai._message_source as restrictive for delete
    using (dbms_cloud_ai._role_is_stale(owner));
create policy sql_statement_admin_drop_role on dbms_cloud_ai._sql_statement for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy feedback_admin_drop_role on dbms_cloud_ai._feedback for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy example_admin_drop_role on dbms_cloud_ai._example for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy memory_admin_drop_role on dbms_cloud_ai._memory for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy memory_job_admin_drop_role on dbms_cloud_ai._memory_job for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));

-- ===== sql/schema/098-table-owner.sql =====
-- The tables belong to a NOLOGIN role that is no superuser, cannot bypass row-level
-- security and has no members, not to the superuser who ran CREATE EXTENSION:
-- nobody acts as the owner (who could switch row-level security off or drop
-- policies), and FORCE ROW LEVEL SECURITY binds the owner too (security.md 8.D3,
-- tests/test_rls_matrix.py).  Like the other roles it is cluster-wide and made
-- only when missing; one that exists must already be that harmless.
do $owner$
begin
    if not exists (select from pg_catalog.pg_roles where rolname operator(pg_catalog.=) 'dbms_cloud_ai_owner') then
        create role dbms_cloud_ai_owner nologin;
    end if;
    if exists (select from pg_catalog.pg_roles r
                where r.rolname operator(pg_catalog.=) 'dbms_cloud_ai_owner'
                  and (r.rolcanlogin or r.rolsuper or r.rolbypassrls))
       or exists (select from pg_catalog.pg_auth_members m
                    join pg_catalog.pg_roles r on r.oid operator(pg_catalog.=) m.roleid
                   where r.rolname operator(pg_catalog.=) 'dbms_cloud_ai_owner') then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = 'role dbms_cloud_ai_owner must be NOLOGIN, NOSUPERUSER and NOBYPASSRLS, without members',
            hint = 'Drop or alter the existing role, then run CREATE EXTENSION again.';
    end if;
end
$owner$;

do $tables$
declare
    t pg_catalog.regclass;
begin
    for t in select c.oid from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) c.relnamespace
              where n.nspname operator(pg_catalog.=) any (array['dbms_cloud', 'dbms_cloud_ai'])
                and c.relkind operator(pg_catalog.=) any (array['r', 'p']::"char"[])
              order by c.oid loop
        execute pg_catalog.format('alter table %s owner to dbms_cloud_ai_owner', t);
    end loop;
end
$tables$;
-- Foreign-key checks and cascades run as the table owner.
grant usage on schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_owner;

-- ===== sql/schema/099-accounting-writer.sql =====
-- After 098-table-owner.sql, which makes the role dbms_cloud_ai_owner.
-- Accounting rows are written by dbms_cloud_ai._write (099-writer.sql), which runs as
-- dbms_cloud_ai_owner (row-level security is forced on the owner too, so it gets
-- policies of its own; no one logs in or acts as that role otherwise).  Users only
-- read their rows.  Administrators correct a record's counts (UPDATE of the
-- token columns only; a deleted record would be stored again by the session
-- that still holds it, so correction is by update).
create policy model_call_writer on dbms_cloud_ai._model_call for all
    to dbms_cloud_ai_owner using (true) with check (true);
create policy message_source_writer on dbms_cloud_ai._message_source for all
    to dbms_cloud_ai_owner using (true) with check (true);
create policy model_call_admin_correct on dbms_cloud_ai._model_call for update
    to dbms_cloud_ai_admin using (true) with check (true);
-- Counts a provider reported are clamped by the package; a row can never hold less.
alter table dbms_cloud_ai._model_call add constraint model_call_counts_not_negative
    check (input_tokens operator(pg_catalog.>=) 0 and output_tokens operator(pg_catalog.>=) 0
           and latency_ms operator(pg_catalog.>=) 0 and attempts operator(pg_catalog.>=) 1);

-- ===== sql/schema/099-annotation-writer.sql =====
-- After 098-table-owner.sql (the role dbms_cloud_ai_owner) and 093-annotations.sql.
-- The writer (writer.py) adds and removes the caller's annotations, and adds one
-- only while the caller has the rights of the annotated relation's owner
-- (add_annotation checks the same first, for a clear message).
create policy annotation_writer on dbms_cloud_ai._annotation to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and coalesce(pg_catalog.pg_has_role((select dbms_cloud_ai._caller()),
                                                    (select c.relowner from pg_catalog.pg_class c
                                                      where c.oid operator(pg_catalog.=) table_id),
                                                    'USAGE'), false));

-- ===== sql/schema/099-profile-grant-writer.sql =====
-- After 098-table-owner.sql (the role dbms_cloud_ai_owner) and 094-profile-grants.sql.
-- The writer (writer.py) adds and removes grants of the caller's own profiles
-- (the foreign key on (profile_id, owner) makes owner the profile's owner).
create policy profile_grant_writer on dbms_cloud_ai._profile_grant to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));

-- The one read a grantee's call makes as the owner role (profiles.shared_credential):
-- the credential of a profile shared with the caller, for that profile's provider
-- request only.  These policies apply to dbms_cloud_ai_owner, which no SQL role
-- can become: an ordinary role never reads another role's credential row.
create policy profile_grant_shared_read on dbms_cloud_ai._profile_grant for select
    to dbms_cloud_ai_owner
    using ((grantee_oid operator(pg_catalog.=) 0
            or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                and pg_catalog.pg_has_role((select dbms_cloud_ai._caller()), grantee_oid, 'USAGE')))
           and dbms_cloud_ai._role_is_live(owner));
create policy profile_shared_read on dbms_cloud_ai._profile for select to dbms_cloud_ai_owner
    using (exists (select from dbms_cloud_ai._profile_grant g
                    where g.profile_id operator(pg_catalog.=) _profile.profile_id));
create policy credential_shared_read on dbms_cloud._credential for select to dbms_cloud_ai_owner
    using (exists (select from dbms_cloud_ai._profile p
                    where p.owner operator(pg_catalog.=) _credential.owner
                      and p.credential_name operator(pg_catalog.=) _credential.credential_name
                      and p.owner operator(pg_catalog.<>) (select dbms_cloud_ai._caller())
                      and exists (select from dbms_cloud_ai._profile_grant g
                                   where g.profile_id operator(pg_catalog.=) p.profile_id)));

-- drop_role_data removes the grants naming a dropped role (a grant whose
-- grantee no longer exists under that name and OID: already inert).
create policy profile_grant_admin_drop on dbms_cloud_ai._profile_grant for delete
    to dbms_cloud_ai_admin
    using (grantee_oid operator(pg_catalog.<>) 0
           and pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.<>) grantee);

-- ===== sql/schema/099-vector-index-content-writer.sql =====
-- After 098-table-owner.sql and 090-vector-index-content.sql: the writer
-- (writer.py) writes the caller's own rows (refreshes: rag/refresh.py,
-- rag/schedule.py); the foreign key keeps a row with its index's owner.
create policy vector_index_content_writer on dbms_cloud_ai._vector_index_content to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
-- Retrieval reads an index's common words as dbms_cloud_ai_owner, through the
-- writer's gate, after the caller's own read of the index row (its own, or one
-- granted to it), as it reads the chunks (vector_chunk_search).
create policy vector_index_content_search on dbms_cloud_ai._vector_index_content for select
    to dbms_cloud_ai_owner using (true);
-- drop_role_data: administrators delete a dropped role's rows (and no others).
create policy vector_index_content_admin_drop_role_read on dbms_cloud_ai._vector_index_content
    for select to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy vector_index_content_admin_drop_role on dbms_cloud_ai._vector_index_content
    for delete to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));

-- ===== sql/schema/099-vector-index-writer.sql =====
-- After 098-table-owner.sql (the role dbms_cloud_ai_owner), 097-role-binding.sql
-- and 089-vector-indexes.sql.  The writer (writer.py) writes the caller's own
-- indexes, chunks and grants; the foreign keys on (index_id, owner) keep chunks
-- and grants with their index's owner.
create policy vector_index_writer on dbms_cloud_ai._vector_index to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy vector_chunk_writer on dbms_cloud_ai._vector_chunk to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy vector_index_grant_writer on dbms_cloud_ai._vector_index_grant to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
-- A later role of a dropped owner's name reads none of its rows (097); the
-- chunks follow their index (vector_chunk_read).
create policy vector_index_role_bound on dbms_cloud_ai._vector_index as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy vector_index_grant_role_bound on dbms_cloud_ai._vector_index_grant as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
-- drop_role_data: administrators delete a dropped role's indexes, chunks and grants.
do $drop_role$
declare
    t text;
begin
    foreach t in array array['vector_index', 'vector_chunk', 'vector_index_grant'] loop
        execute pg_catalog.format(
            'create policy %I on dbms_cloud_ai.%I for select to dbms_cloud_ai_admin '
            'using (dbms_cloud_ai._role_is_stale(owner))', t operator(pg_catalog.||) '_admin_drop_role_read',
            '_' operator(pg_catalog.||) t);
        execute pg_catalog.format(
            'create policy %I on dbms_cloud_ai.%I for delete to dbms_cloud_ai_admin '
            'using (dbms_cloud_ai._role_is_stale(owner))', t operator(pg_catalog.||) '_admin_drop_role',
            '_' operator(pg_catalog.||) t);
    end loop;
end
$drop_role$;
-- Retrieval (rag/retrieve.py) reads chunks as dbms_cloud_ai_owner, through the
-- writer's gate, after the package has read the index as the caller (its own,
-- or one granted to it: vector_index_read).  Under a policy that depends on the
-- caller, PostgreSQL evaluates the search's full-text match (@@, not leakproof)
-- only after the policy, on every chunk of the table, and never through the GIN
-- index; under this one it does (bench/README.md: 100,000 chunks in
-- milliseconds instead of a scan).  Only package statements run as this role.
create policy vector_chunk_search on dbms_cloud_ai._vector_chunk for select to dbms_cloud_ai_owner
    using (true);

-- ===== sql/schema/099-writer.sql =====
-- After 098-table-owner.sql (the role dbms_cloud_ai_owner).
-- The write path (issue 14, class 2): ordinary roles hold no INSERT, UPDATE or
-- DELETE on these tables.  An API call's writes run in dbms_cloud_ai._write as
-- dbms_cloud_ai_owner (python/src/dbms_cloud_ai/writer.py), for the role that
-- called, which dbms_cloud_ai._caller() names there.  Row-level security is
-- forced on the owner too, so the owner role gets these policies: the same rules
-- as the users' own policies, for the caller instead of current_user.  A write
-- statement that forgot its owner condition still reaches only the caller's rows.
-- Tables whose rows need nothing but their owner:
do $writer$
declare
    t pg_catalog.regclass;
begin
    foreach t in array array['dbms_cloud._credential', 'dbms_cloud_ai._profile',
                             'dbms_cloud_ai._conversation', 'dbms_cloud_ai._sql_statement',
                             'dbms_cloud_ai._feedback']::pg_catalog.regclass[] loop
        execute pg_catalog.format(
            'create policy %I on %s to dbms_cloud_ai_owner '
            'using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())) '
            'with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))',
            pg_catalog.ltrim((select c.relname from pg_catalog.pg_class c
                               where c.oid operator(pg_catalog.=) t), '_') operator(pg_catalog.||) '_writer',
            t);
    end loop;
end
$writer$;
-- The others, like the users' policies, also check what a row points at.
create policy conversation_prompt_writer on dbms_cloud_ai._conversation_prompt to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _conversation_prompt.conversation_id
                               and c.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())));
create policy conversation_summary_writer on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _conversation_summary.conversation_id
                               and c.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())));
create policy example_writer on dbms_cloud_ai._example to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and (feedback_id is null
                     or exists (select from dbms_cloud_ai._feedback f
                                 where f.feedback_id operator(pg_catalog.=) _example.feedback_id
                                   and f.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())))
                and (conversation_prompt_id is null
                     or exists (select from dbms_cloud_ai._conversation_prompt p
                                 where p.conversation_prompt_id operator(pg_catalog.=) _example.conversation_prompt_id
                                   and p.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))));
-- A memory only in the caller's own organization (its memory role's, else the database's).
create policy memory_writer on dbms_cloud_ai._memory to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and organization operator(pg_catalog.=) (
                    select coalesce((select r.organization from dbms_cloud_ai._memory_role r
                                      where r.role_name operator(pg_catalog.=) (select dbms_cloud_ai._caller())),
                                    pg_catalog.current_database()::text)));
create policy memory_job_writer on dbms_cloud_ai._memory_job to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _memory_job.conversation_id
                               and c.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())));
-- What the write statements and the policies above read besides the caller's rows.
create policy memory_role_writer_read on dbms_cloud_ai._memory_role for select to dbms_cloud_ai_owner
    using (role_name operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy memory_organization_writer_read on dbms_cloud_ai._memory_organization for select
    to dbms_cloud_ai_owner using (true);
-- The writer binds the caller's name to its role (the insert policy every role
-- has) and reads the binding back.
create policy role_binding_writer_read on dbms_cloud_ai._role_binding for select to dbms_cloud_ai_owner
    using (true);
-- No future dates: the package stamps a call when it happens; a row dated
-- later would count against today's budgets until that day.
alter table dbms_cloud_ai._model_call add constraint model_call_not_in_future
    check (created operator(pg_catalog.<=) (pg_catalog.statement_timestamp() operator(pg_catalog.+) interval '5 minutes'));

-- ===== sql/api/005-writer.sql =====
-- The write path (issue 14, class 2; python/src/dbms_cloud_ai/writer.py).
-- Ordinary roles hold no INSERT, UPDATE or DELETE on the extension's tables;
-- every write of an API call runs here, as dbms_cloud_ai_owner, for the role
-- that called.  It takes no SQL and no values: it runs the one statement that
-- the package, in this same backend, put in its own memory a moment before,
-- with a one-time token that no SQL role can read.  Called directly: 42501.
-- The package's call (writer._CALL) computes the caller's name, its binding and
-- OID, and sets dbms_cloud_ai.caller, before the call switches to the owner role.
-- Its statements keep one generic plan per backend: planned for each call's
-- parameters, with the row-level security policies expanded, an INSERT into
-- _model_call cost 350 us of planning per call.
create function dbms_cloud_ai._write(token text, caller name, bound oid, mine oid)
returns void language plpython3u volatile parallel unsafe security definer
set search_path to pg_catalog, pg_temp
set plan_cache_mode to force_generic_plan
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.write(plpy, token, caller, bound, mine)
$python$;
alter function dbms_cloud_ai._write(text, name, oid, oid) owner to dbms_cloud_ai_owner;
comment on function dbms_cloud_ai._write(text, name, oid, oid) is
'Internal: runs the write the package authorised, as dbms_cloud_ai_owner for the calling role';

-- ===== sql/api/010-credentials.sql =====
-- dbms_cloud credentials (Oracle DBMS_CLOUD.CREATE_CREDENTIAL and friends).
-- Functions, not procedures: PostgreSQL 15 keeps CALL literals verbatim in
-- pg_stat_statements, while a SELECT's constants are normalised away.

create function dbms_cloud._py_create_credential(credential_name text, username text, password text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.create_credential(plpy, credential_name, username, password)
$python$;

create function dbms_cloud.create_credential(credential_name text, username text, password text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud._py_create_credential(credential_name, username, password);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud.create_credential(text, text, text) is
'Store an API key (password) under credential_name for the calling role; it can never be read back';

create function dbms_cloud._py_drop_credential(credential_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.drop_credential(plpy, credential_name)
$python$;

create function dbms_cloud.drop_credential(credential_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud._py_drop_credential(credential_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud.drop_credential(text) is 'Drop one of your credentials';

create function dbms_cloud._py_update_credential(credential_name text, attribute text, value text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.update_credential(plpy, credential_name, attribute, value)
$python$;

create function dbms_cloud.update_credential(credential_name text, attribute text, value text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud._py_update_credential(credential_name, attribute, value);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud.update_credential(text, text, text) is
'Change a credential''s username or password (attribute => ''username'' | ''password'')';

create function dbms_cloud._py_enable_credential(credential_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.enable_credential(plpy, credential_name)
$python$;

create function dbms_cloud.enable_credential(credential_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud._py_enable_credential(credential_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud.enable_credential(text) is 'Enable a credential';

create function dbms_cloud._py_disable_credential(credential_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.disable_credential(plpy, credential_name)
$python$;

create function dbms_cloud.disable_credential(credential_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud._py_disable_credential(credential_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud.disable_credential(text) is 'Disable a credential: profiles using it stop working';

-- ===== sql/api/020-profiles.sql =====
-- AI profiles (Oracle DBMS_CLOUD_AI.CREATE_PROFILE and friends).  Oracle
-- procedures are functions returning void so they work in SELECT.
-- attributes accepts JSON text (Oracle's CLOB) or jsonb: two overloads.

create function dbms_cloud_ai._py_create_profile(profile_name text, attributes text, status text, description text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.create_profile(plpy, profile_name, attributes, status, description)
$python$;

create function dbms_cloud_ai.create_profile(profile_name text, attributes text default null,
                                             status text default null, description text default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_create_profile(profile_name, attributes, status, description);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.create_profile(text, text, text, text) is
'Create an AI profile: attributes is a JSON object (provider, credential_name, model, ...)';

create function dbms_cloud_ai.create_profile(profile_name text, attributes jsonb,
                                             status text default null, description text default null)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.create_profile(profile_name, attributes::text, status, description);
end;
comment on function dbms_cloud_ai.create_profile(text, jsonb, text, text) is
'Create an AI profile from jsonb attributes';

create function dbms_cloud_ai._py_drop_profile(profile_name text, force boolean)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.drop_profile(plpy, profile_name, force)
$python$;

create function dbms_cloud_ai.drop_profile(profile_name text, force boolean default false)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_drop_profile(profile_name, force);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.drop_profile(text, boolean) is
'Drop an AI profile; force => true ignores a missing profile';

create function dbms_cloud_ai._py_enable_profile(profile_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.enable_profile(plpy, profile_name)
$python$;

create function dbms_cloud_ai.enable_profile(profile_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_enable_profile(profile_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.enable_profile(text) is 'Enable an AI profile';

create function dbms_cloud_ai._py_disable_profile(profile_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.disable_profile(plpy, profile_name)
$python$;

create function dbms_cloud_ai.disable_profile(profile_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_disable_profile(profile_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.disable_profile(text) is 'Disable an AI profile: generate() refuses it';

create function dbms_cloud_ai._py_set_attribute(profile_name text, attribute_name text, attribute_value text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_attribute(plpy, profile_name, attribute_name, attribute_value)
$python$;

create function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_attribute(profile_name, attribute_name, attribute_value);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_attribute(text, text, text) is
'Set one profile attribute; the value is a string (''true'', ''1024'', JSON text); NULL removes it';

-- Oracle's SDKs pass booleans and numbers too.
create function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value boolean)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, boolean) is 'Set a boolean profile attribute';

create function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value numeric)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, numeric) is 'Set a numeric profile attribute';

create function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, jsonb) is 'Set a JSON profile attribute';

create function dbms_cloud_ai._py_set_attributes(profile_name text, attributes text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_attributes(plpy, profile_name, attributes)
$python$;

create function dbms_cloud_ai.set_attributes(profile_name text, attributes text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_attributes(profile_name, attributes);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_attributes(text, text) is
'Merge a JSON object of attributes into a profile; a null value removes that attribute';

create function dbms_cloud_ai.set_attributes(profile_name text, attributes jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attributes(profile_name, attributes::text);
end;
comment on function dbms_cloud_ai.set_attributes(text, jsonb) is 'Merge jsonb attributes into a profile';

create function dbms_cloud_ai._profile_attribute_names()
returns table (attribute_name text, default_value text, description text)
language plpython3u stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.profile_attribute_names(plpy)
$python$;

-- Profile sharing (python/src/dbms_cloud_ai/sharing.py): the owner lets a role
-- (its members through inheritance, or PUBLIC) use the profile as
-- "OWNER"."NAME"; the grantee never reads the credential.
create function dbms_cloud_ai._py_grant_profile_access(profile_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.grant_profile_access(plpy, profile_name, user_or_role_name)
$python$;

create function dbms_cloud_ai.grant_profile_access(profile_name text, user_or_role_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_grant_profile_access(profile_name, user_or_role_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.grant_profile_access(text, text) is
'Share your profile with a role (or PUBLIC): it may generate with it as "OWNER"."NAME" and see its attributes';

create function dbms_cloud_ai._py_revoke_profile_access(profile_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.revoke_profile_access(plpy, profile_name, user_or_role_name)
$python$;

create function dbms_cloud_ai.revoke_profile_access(profile_name text, user_or_role_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_revoke_profile_access(profile_name, user_or_role_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.revoke_profile_access(text, text) is
'Stop sharing your profile with a role; its next call with the profile fails';

-- Not in Oracle (issue 30, class 5): what the roles using a shared profile may
-- spend of the owner's key.  Each role that calls through the grant may spend
-- daily_tokens per UTC day through this profile (NULL: no budget), counted
-- like set_token_budget's budgets (model/budget.py): no rollback undoes it.
create function dbms_cloud_ai._py_set_profile_grant_budget(profile_name text, user_or_role_name text, daily_tokens bigint)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_profile_grant_budget(plpy, profile_name, user_or_role_name, daily_tokens)
$python$;

create function dbms_cloud_ai.set_profile_grant_budget(profile_name text, user_or_role_name text,
                                                       daily_tokens bigint)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_profile_grant_budget(profile_name, user_or_role_name, daily_tokens);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_profile_grant_budget(text, text, bigint) is
'Owners: the daily tokens each role holding this grant may spend through your shared profile (NULL: no budget)';

-- ===== sql/api/030-session.sql =====
-- The session's current profile (Oracle SET_PROFILE / GET_PROFILE / CLEAR_PROFILE).
-- Kept in the setting dbms_cloud_ai.profile_name; every read re-checks that the
-- profile exists for the current role, so setting it by hand grants nothing.

create function dbms_cloud_ai._py_set_profile(profile_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_profile(plpy, profile_name)
$python$;

create function dbms_cloud_ai.set_profile(profile_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_profile(profile_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_profile(text) is 'Make a profile the session''s current profile';

create function dbms_cloud_ai._py_get_profile()
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.get_profile(plpy)
$python$;

create function dbms_cloud_ai.get_profile()
returns text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_get_profile();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.get_profile() is 'The session''s current profile name, or NULL';

create function dbms_cloud_ai._py_clear_profile()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.clear_profile(plpy)
$python$;

create function dbms_cloud_ai.clear_profile()
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_clear_profile();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.clear_profile() is 'Forget the session''s current profile';

-- ===== sql/api/040-host-acl.sql =====
-- Host ACEs (Oracle DBMS_NETWORK_ACL_ADMIN.APPEND_HOST_ACE / REMOVE_HOST_ACE), admin only.

create function dbms_cloud_ai._py_append_host_ace(host text, principal_name text, lower_port integer, upper_port integer)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.append_host_ace(plpy, host, principal_name, lower_port, upper_port)
$python$;

create function dbms_cloud_ai.append_host_ace(host text, principal_name text default 'PUBLIC',
                                              lower_port integer default null,
                                              upper_port integer default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_append_host_ace(host, principal_name, lower_port, upper_port);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.append_host_ace(text, text, integer, integer) is
'Allow a role (or PUBLIC) to reach a host: name, IP address or *.domain, optionally a port range';

create function dbms_cloud_ai._py_remove_host_ace(host text, principal_name text, lower_port integer, upper_port integer)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.remove_host_ace(plpy, host, principal_name, lower_port, upper_port)
$python$;

create function dbms_cloud_ai.remove_host_ace(host text, principal_name text default 'PUBLIC',
                                              lower_port integer default null,
                                              upper_port integer default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_remove_host_ace(host, principal_name, lower_port, upper_port);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.remove_host_ace(text, text, integer, integer) is
'Remove a host ACE added with append_host_ace';

-- ===== sql/api/050-generate.sql =====
-- GENERATE (Oracle DBMS_CLOUD_AI.GENERATE).  NULL profile_name means the session
-- profile, NULL action means runsql, attributes override the profile for this
-- call only, params carries per-call options such as conversation_id.
--
-- search_path (not in Oracle's signature) is the caller's schema search path:
-- NL2SQL describes the current schema when the profile has no object_list and
-- resolves unqualified table names with it.  The function itself runs with a
-- pinned search_path, so it cannot read the caller's; a default expression is
-- evaluated by the caller, before the function's SET clause applies.

create function dbms_cloud_ai._py_generate(prompt text, profile_name text, action text, attributes text, params text, search_path text[])
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.generate(plpy, prompt, profile_name, action, attributes, params, search_path)
$python$;

create function dbms_cloud_ai.generate(prompt text, profile_name text default null,
                                       action text default null, attributes text default null,
                                       params text default null,
                                       search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_generate(prompt, profile_name, action, attributes, params, search_path);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.generate(text, text, text, text, text, text[]) is
'Ask the profile''s model: runsql (default), showsql, explainsql, narrate, showprompt or chat';

create function dbms_cloud_ai.generate(prompt text, profile_name text, action text,
                                       attributes jsonb, params jsonb default null,
                                       search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.generate(prompt, profile_name, action, attributes::text, params::text,
                                  search_path);
end;
comment on function dbms_cloud_ai.generate(text, text, text, jsonb, jsonb, text[]) is
'generate() with jsonb attributes and params';

-- Who a committing procedure acts for, taken before its first commit and
-- required after each (model/detached.py): a commit ends a transaction-local
-- role or end user, and the rest of the call must not act for the session user.
create function dbms_cloud_ai._call_identity()
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.call_identity(plpy)
$python$;

create function dbms_cloud_ai._require_call_identity(expected text, procedure_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.require_call_identity(plpy, expected, procedure_name)
$python$;

-- generate() for long calls, as a procedure: it commits before each model
-- request and waits in a transaction that holds no snapshot and no transaction
-- id, so that VACUUM anywhere in the database is not held back while the model
-- answers (python/src/dbms_cloud_ai/model/detached.py; docs/scaling.md).  CALL it on
-- its own (autocommit): inside a transaction block it raises 2D000.  A
-- procedure that commits cannot have a SET clause: the package pins
-- search_path and lock_timeout in each of its transactions.
create procedure dbms_cloud_ai.generate_detached(prompt text, profile_name text default null,
                                                 action text default null,
                                                 attributes text default null,
                                                 params text default null,
                                                 search_path text[] default pg_catalog.current_schemas(false)::text[],
                                                 inout response text default null)
language plpython3u security invoker
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.generate_detached(plpy, prompt, profile_name, action, attributes, params, search_path)
$python$;
comment on procedure dbms_cloud_ai.generate_detached(text, text, text, text, text, text[], text) is
'generate() that holds no snapshot or transaction while the model answers: CALL it outside a transaction block';

-- ===== sql/api/060-conversations.sql =====
-- Conversations (Oracle DBMS_CLOUD_AI.CREATE_CONVERSATION and friends).

create function dbms_cloud_ai._py_create_conversation(attributes text)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.create_conversation(plpy, attributes)
$python$;

create function dbms_cloud_ai.create_conversation(attributes text default null)
returns text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_create_conversation(attributes);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
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

create function dbms_cloud_ai._py_update_conversation(conversation_id text, attributes text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.update_conversation(plpy, conversation_id, attributes)
$python$;

create function dbms_cloud_ai.update_conversation(conversation_id text, attributes text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_update_conversation(conversation_id, attributes);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.update_conversation(text, text) is
'Change some attributes of a conversation; the others keep their values';

create function dbms_cloud_ai.update_conversation(conversation_id text, attributes jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.update_conversation(conversation_id, attributes::text);
end;
comment on function dbms_cloud_ai.update_conversation(text, jsonb) is 'update_conversation() with jsonb attributes';

create function dbms_cloud_ai._py_drop_conversation(conversation_id text, force boolean)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.drop_conversation(plpy, conversation_id, force)
$python$;

create function dbms_cloud_ai.drop_conversation(conversation_id text, force boolean default false)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_drop_conversation(conversation_id, force);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.drop_conversation(text, boolean) is
'Drop a conversation and its prompts; force => true ignores a missing one';

create function dbms_cloud_ai._py_delete_conversation_prompt(conversation_prompt_id text, force boolean)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.delete_conversation_prompt(plpy, conversation_prompt_id, force)
$python$;

create function dbms_cloud_ai.delete_conversation_prompt(conversation_prompt_id text, force boolean default false)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_delete_conversation_prompt(conversation_prompt_id, force);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.delete_conversation_prompt(text, boolean) is
'Delete one prompt (and its response) from a conversation; force => true ignores a missing one';

create function dbms_cloud_ai._py_set_conversation_id(conversation_id text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_conversation_id(plpy, conversation_id)
$python$;

create function dbms_cloud_ai.set_conversation_id(conversation_id text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_conversation_id(conversation_id);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_conversation_id(text) is
'Make a conversation the session''s current one: generate() then continues it';

create function dbms_cloud_ai._py_get_conversation_id()
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.get_conversation_id(plpy)
$python$;

create function dbms_cloud_ai.get_conversation_id()
returns text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_get_conversation_id();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.get_conversation_id() is 'The session''s current conversation id, or NULL';

create function dbms_cloud_ai._py_clear_conversation_id()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.clear_conversation_id(plpy)
$python$;

create function dbms_cloud_ai.clear_conversation_id()
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_clear_conversation_id();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.clear_conversation_id() is 'Stop continuing a conversation in this session';

create function dbms_cloud_ai._py_add_conversation_tag(conversation_id text, tag_key text, tag_value text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.add_conversation_tag(plpy, conversation_id, tag_key, tag_value)
$python$;

create function dbms_cloud_ai.add_conversation_tag(conversation_id text, tag_key text, tag_value text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_add_conversation_tag(conversation_id, tag_key, tag_value);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.add_conversation_tag(text, text, text) is
'Set a tag (key and value) on a conversation';

create function dbms_cloud_ai._py_remove_conversation_tag(conversation_id text, tag_key text, force boolean)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.remove_conversation_tag(plpy, conversation_id, tag_key, force)
$python$;

create function dbms_cloud_ai.remove_conversation_tag(conversation_id text, tag_key text, force boolean default false)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_remove_conversation_tag(conversation_id, tag_key, force);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.remove_conversation_tag(text, text, boolean) is
'Remove a tag from a conversation; force => true ignores a missing tag or conversation';

-- Retention purge: a procedure, so that it commits after every batch and never
-- holds locks for long.  Call it at top level (CALL, pg_cron, psql -c), not
-- inside an explicit transaction block.
create function dbms_cloud_ai._purge_conversations_batch(batch_size integer)
returns bigint language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
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
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.session_conversation_prompts(plpy)
$python$;

create function dbms_cloud_ai._py_schedule_conversation_purge(schedule text, batch_size integer)
returns bigint language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.schedule_conversation_purge(plpy, schedule, batch_size)
$python$;

create function dbms_cloud_ai.schedule_conversation_purge(schedule text default '*/10 * * * *',
                                                          batch_size integer default 10000)
returns bigint language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_schedule_conversation_purge(schedule, batch_size);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.schedule_conversation_purge(text, integer) is
'Run purge_expired_conversations() on a pg_cron schedule, as the calling administrator; returns the job id';

create function dbms_cloud_ai._py_unschedule_conversation_purge()
returns boolean language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.unschedule_conversation_purge(plpy)
$python$;

create function dbms_cloud_ai.unschedule_conversation_purge()
returns boolean language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_unschedule_conversation_purge();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
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

-- ===== sql/api/070-select-ai.sql =====
-- Natural language to SQL: Oracle's SELECT AI statement as a function, and the
-- read-only runner for generated queries (python/src/dbms_cloud_ai/nl2sql/sqlrun.py).

create function dbms_cloud_ai._py_select_ai(statement text, search_path text[])
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.select_ai(plpy, statement, search_path)
$python$;

create function dbms_cloud_ai.select_ai(statement text,
                                        search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_select_ai(statement, search_path);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.select_ai(text, text[]) is
'Oracle''s SELECT AI [action] prompt, with the session profile: select_ai(''showsql how many customers'')';

-- Reads the rows of one query that sqlguard accepted, read-only, with the caller's
-- privileges and search_path.  The query's first column is each row already as a
-- JSON array of [column name, value as JSON text] pairs (resolve.view_body; normally
-- the temporary view resolve.checked_view verified, so what runs is what was checked):
-- column order and repeated names are kept, and Python never has to parse a value
-- (however deeply nested).  At most max_rows + 1 rows, and a final NULL once
-- max_bytes was reached.  The caller (sqlrun.run) rolls the
-- surrounding subtransaction back afterwards.  A query that changed the role
-- (set_config('role', ...), possible when the login role may SET ROLE) gets an
-- error instead of its rows.  Operators are written OPERATOR(pg_catalog.x):
-- part of the body runs under the caller's search_path.
create function dbms_cloud_ai._run_readonly(query text, path text, max_rows int8, max_bytes int8)
returns setof text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $run$
declare
    r text;
    used int8 := 0;
    who name := current_user;
    login name := session_user;
begin
    perform pg_catalog.set_config('transaction_read_only', 'on', true);
    perform pg_catalog.set_config('search_path', path, true);
    for r in execute
        'select q.r::pg_catalog.text from (' operator(pg_catalog.||) query
        operator(pg_catalog.||) ') q(r) limit $1'
        using max_rows operator(pg_catalog.+) 1
    loop
        used := used operator(pg_catalog.+) pg_catalog.octet_length(r);
        if used operator(pg_catalog.>) max_bytes then
            return next null;
            exit;
        end if;
        return next r;
    end loop;
    if current_user operator(pg_catalog.<>) who or session_user operator(pg_catalog.<>) login then
        raise exception using errcode = '42501',
            message = 'generated SQL changed the current role; its rows are not returned';
    end if;
end
$run$;

-- Session advisory locks survive a rollback: release the ones a generated query
-- took (those not in "before", the caller's own, as classid/objid/objsubid/mode),
-- and take again the caller's ones it released (pg_advisory_unlock_all).  Hold
-- counts are not visible in pg_locks, so a query that took an extra hold on a
-- lock the caller already had cannot be told apart; the validator refuses every
-- advisory-lock function, this is the layer below it.
-- (The last unlock of each key fails and would WARN the client: hence client_min_messages.)
create function dbms_cloud_ai._release_advisory_locks(before text[])
returns text[] language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set client_min_messages to error
as $release$
declare
    l record;
    released int := 0;
    k1 int4;
    k2 int4;
    parts text[];
    key text;
    ok boolean;
    lost text[] := '{}';
begin
    for l in select distinct a.classid, a.objid, a.objsubid, a.mode
               from pg_catalog.pg_locks a
              where a.locktype = 'advisory' and a.pid = pg_catalog.pg_backend_pid() and a.granted
                and not (a.classid || '/' || a.objid || '/' || a.objsubid || '/' || a.mode)
                        = any (coalesce(before, '{}'))
    loop
        k1 := (l.classid::int8 - case when l.classid::int8 > 2147483647 then 4294967296 else 0 end)::int4;
        k2 := (l.objid::int8 - case when l.objid::int8 > 2147483647 then 4294967296 else 0 end)::int4;
        loop
            exit when not case
                when l.objsubid = 1 and l.mode = 'ShareLock'
                    then pg_catalog.pg_advisory_unlock_shared((l.classid::int8 << 32) | l.objid::int8)
                when l.objsubid = 1
                    then pg_catalog.pg_advisory_unlock((l.classid::int8 << 32) | l.objid::int8)
                when l.mode = 'ShareLock' then pg_catalog.pg_advisory_unlock_shared(k1, k2)
                else pg_catalog.pg_advisory_unlock(k1, k2) end;
            released := released + 1;
        end loop;
    end loop;
    foreach key in array coalesce(before, '{}') loop
        continue when exists (
            select from pg_catalog.pg_locks a
             where a.locktype = 'advisory' and a.pid = pg_catalog.pg_backend_pid() and a.granted
               and (a.classid || '/' || a.objid || '/' || a.objsubid || '/' || a.mode) = key);
        parts := pg_catalog.string_to_array(key, '/');
        k1 := (parts[1]::int8 - case when parts[1]::int8 > 2147483647 then 4294967296 else 0 end)::int4;
        k2 := (parts[2]::int8 - case when parts[2]::int8 > 2147483647 then 4294967296 else 0 end)::int4;
        ok := case
            when parts[3] = '1' and parts[4] = 'ShareLock'
                then pg_catalog.pg_try_advisory_lock_shared((parts[1]::int8 << 32) | parts[2]::int8)
            when parts[3] = '1'
                then pg_catalog.pg_try_advisory_lock((parts[1]::int8 << 32) | parts[2]::int8)
            when parts[4] = 'ShareLock' then pg_catalog.pg_try_advisory_lock_shared(k1, k2)
            else pg_catalog.pg_try_advisory_lock(k1, k2) end;
        if not ok then
            lost := lost || key;
        end if;
    end loop;
    return lost;   -- the caller's locks that another session took meanwhile
end
$release$;

-- ===== sql/api/080-accounting.sql =====
-- Accounting of model calls, and daily token budgets (python/src/dbms_cloud_ai/model/accounting.py,
-- model/budget.py).

-- Calls of this session not yet in a committed row (their statement failed):
-- accounting keeps them in the backend's memory until a later call writes them.
create function dbms_cloud_ai._pending_calls()
returns setof dbms_cloud_ai._model_call language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
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

create function dbms_cloud_ai._py_set_token_budget(principal_name text, daily_tokens bigint)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_token_budget(plpy, principal_name, daily_tokens)
$python$;

create function dbms_cloud_ai.set_token_budget(principal_name text, daily_tokens bigint)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_token_budget(principal_name, daily_tokens);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_token_budget(text, bigint) is
'Admin: daily token budget (UTC day) for a role''s own calls, or PUBLIC for the whole database; NULL removes it';

-- ===== sql/api/085-limits.sql =====
-- Limits an administrator sets for every role (python/src/dbms_cloud_ai/model/llm.py).

create function dbms_cloud_ai._py_set_max_wait(seconds float8)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_max_wait(plpy, seconds)
$python$;

create function dbms_cloud_ai.set_max_wait(seconds float8)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_max_wait(seconds);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_max_wait(float8) is
'Admin: the longest any call may wait on the network, in seconds (whatever dbms_cloud_ai.http_timeout and statement_timeout say); NULL restores the default of 300';

-- Oracle's data-access switch (python/src/dbms_cloud_ai/data_access.py).
create function dbms_cloud_ai._py_enable_data_access()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_data_access(plpy, True)
$python$;

create function dbms_cloud_ai.enable_data_access()
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_enable_data_access();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.enable_data_access() is
'Admin: let narrate send query results to the model again (database-wide; the default)';

create function dbms_cloud_ai._py_disable_data_access()
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_data_access(plpy, False)
$python$;

create function dbms_cloud_ai.disable_data_access()
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_disable_data_access();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.disable_data_access() is
'Admin: no row value of a query result goes to any model (database-wide): narrate fails with LL006; runsql, showsql, explainsql, chat and showprompt still work';

create function dbms_cloud_ai.data_access_enabled()
returns boolean language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
return coalesce((select d.enabled from dbms_cloud_ai._data_access d), true);
comment on function dbms_cloud_ai.data_access_enabled() is
'Whether row values may be sent to a model (dbms_cloud_ai.enable_data_access / disable_data_access)';

-- ===== sql/api/090-feedback.sql =====
-- FEEDBACK (Oracle DBMS_CLOUD_AI.FEEDBACK), ratings of conversation prompts, the
-- NL2SQL statement log, and the export of negative feedback
-- (python/src/dbms_cloud_ai/feedback.py).

-- search_path (not in Oracle's signature): the caller's schema search path, for
-- checking a correction the model writes (as generate() has it).
create function dbms_cloud_ai._py_feedback(profile_name text, sql_id text, sql_text text, feedback_type text, response text, feedback_content text, operation text, search_path text[])
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.feedback(plpy, profile_name, sql_id, sql_text, feedback_type, response, feedback_content, operation, search_path)
$python$;

create function dbms_cloud_ai.feedback(profile_name text, sql_id text default null,
                                       sql_text text default null,
                                       feedback_type text default null,
                                       response text default null,
                                       feedback_content text default null,
                                       operation text default 'add',
                                       search_path text[] default pg_catalog.current_schemas(false)::text[])
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_feedback(profile_name, sql_id, sql_text, feedback_type, response, feedback_content, operation, search_path);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.feedback(text, text, text, text, text, text, text, text[]) is
'Oracle''s FEEDBACK: positive or negative feedback on an NL2SQL statement (by sql_id or sql_text); operation add or delete';

create function dbms_cloud_ai._py_rate_prompt(conversation_prompt_id text, rating integer, rating_comment text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.rate_prompt(plpy, conversation_prompt_id, rating, rating_comment)
$python$;

create function dbms_cloud_ai.rate_prompt(conversation_prompt_id text, rating integer,
                                          rating_comment text default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_rate_prompt(conversation_prompt_id, rating, rating_comment);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.rate_prompt(text, integer, text) is
'Rate one of your conversation prompts: 1 (useful) or -1 (not useful), with an optional comment; NULL clears';

create function dbms_cloud_ai._py_export_negative_feedback(profile_name text, all_users boolean)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.export_negative_feedback(plpy, profile_name, all_users)
$python$;

create function dbms_cloud_ai.export_negative_feedback(profile_name text default null,
                                                       all_users boolean default false)
returns text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_export_negative_feedback(profile_name, all_users);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.export_negative_feedback(text, boolean) is
'Negatively rated prompts and negative feedback as JSON lines (one object per line); all_users for administrators';

create function dbms_cloud_ai._py_sql_id(sql_text text)
returns text language plpython3u immutable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.sql_id(plpy, sql_text)
$python$;

create function dbms_cloud_ai.sql_id(sql_text text)
returns text language plpgsql immutable parallel safe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_sql_id(sql_text);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
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

-- Privileges for the tables and views above (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._sql_statement, dbms_cloud_ai._feedback, dbms_cloud_ai._example
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_sql_statements, dbms_cloud_ai.user_cloud_ai_feedback,
                dbms_cloud_ai.user_cloud_ai_negative_feedback
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_feedback, dbms_cloud_ai.dba_cloud_ai_negative_feedback
   to dbms_cloud_ai_admin;

-- ===== sql/api/092-conversation-summary.sql =====
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

-- ===== sql/api/095-usage.sql =====
-- Usage reports: model prices (python/src/dbms_cloud_ai/model/usage.py) and the usage
-- views, per UTC day, owner, action, provider and model.

create function dbms_cloud_ai._py_set_model_price(provider text, model text, input_per_million numeric, output_per_million numeric, currency text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_model_price(plpy, provider, model, input_per_million, output_per_million, currency)
$python$;

create function dbms_cloud_ai.set_model_price(provider text, model text,
                                              input_per_million numeric,
                                              output_per_million numeric,
                                              currency text default 'USD')
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_model_price(provider, model, input_per_million, output_per_million, currency);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_model_price(text, text, numeric, numeric, text) is
'Admin: price per million input and output tokens of a model (and of its dated versions); NULL prices remove it';

create view dbms_cloud_ai.model_prices with (security_invoker = true) as
select provider, model, input_per_million, output_per_million, currency, modified
  from dbms_cloud_ai._model_price;
comment on view dbms_cloud_ai.model_prices is
'Model prices per million tokens, kept by administrators (dbms_cloud_ai.set_model_price)';

create function dbms_cloud_ai._py_summarize_usage(recheck_days integer)
returns integer language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.summarize_usage(plpy, recheck_days)
$python$;

create function dbms_cloud_ai.summarize_usage(recheck_days integer default 7)
returns integer language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_summarize_usage(recheck_days);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.summarize_usage(integer) is
'Admin: summarize the calls of past days for the usage views; rebuilds a day of the last recheck_days (NULL: any day) whose calls changed; returns the days (re)built';

-- When the first day the summary does not cover starts (UTC midnight; -infinity
-- before the first summarize_usage()): the live part of the usage views reads
-- the calls from there.  A function rather than a subquery so that the planner
-- estimates that part with the real bound (it evaluates stable functions when it
-- estimates, not subqueries), and LEAKPROOF (it takes no argument, so it can
-- reveal nothing about a row) so that row-level security lets
-- created >= _usage_live_from() reach an index: the (created) index for an
-- administrator, a role's own (owner, created).
create function dbms_cloud_ai._usage_live_from()
returns timestamptz language sql stable leakproof parallel safe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select coalesce((select pg_catalog.timezone('UTC', (s.summarized_through
                                                        operator(pg_catalog.+) 1)::timestamp)
                       from dbms_cloud_ai._usage_state s), '-infinity'::timestamptz);
end;

-- One row per UTC day, owner, action, provider and model: the daily summary for
-- the days it covers, then the calls of the days after it, grouped (today, or
-- every day before the first summarize_usage()).  A filter on a grouping column
-- (day, owner, action, provider, model) is pushed into both parts, and below the
-- live part's grouping.
--
-- rating_balance: the sum of the ratings (+1/-1) of the conversation prompts of
-- that day (when the prompt was recorded), owner, action and answering provider
-- and model, read live (ratings change) through the (owner, created) index of
-- rated prompts.  The day's bounds are columns (day_starts, day_ends), not
-- expressions in the subquery: row-level security lets a condition reach an index
-- only if every function in it is leakproof, and timezone() is not, while a
-- comparison of created with an outer column is.  cost:
-- today's price of the recorded model, else of its name without a date suffix
-- ('gpt-4o-mini' prices 'gpt-4o-mini-2024-07-18', 'claude-haiku-4-5' prices
-- 'claude-haiku-4-5-20251001').  Both are computed only when selected: the
-- rating is a scalar subquery, and the price joins are left joins on the price
-- table's key, which PostgreSQL removes when unused.
create view dbms_cloud_ai._usage with (security_invoker = true) as
select g.day, g.owner, g.action, g.provider, g.model, g.calls, g.errors,
       pg_catalog.round(g.errors::numeric operator(pg_catalog./) nullif(g.calls, 0), 4)
           as error_rate,
       g.input_tokens, g.output_tokens, g.latency_p50_ms, g.latency_p95_ms,
       coalesce((select pg_catalog.sum(p.rating)
                   from dbms_cloud_ai._conversation_prompt p
                  where p.rating is not null
                    and p.owner operator(pg_catalog.=) g.owner
                    and p.created operator(pg_catalog.>=) g.day_starts
                    and p.created operator(pg_catalog.<) g.day_ends
                    and p.prompt_action is not distinct from g.action
                    and p.provider is not distinct from g.provider
                    and p.model is not distinct from g.model), 0)::int8 as rating_balance,
       -- OPERATOR() has one precedence for all operators: every product is parenthesized.
       pg_catalog.round(((coalesce(g.input_tokens, 0)
                              operator(pg_catalog.*) coalesce(e.input_per_million, b.input_per_million))
                         operator(pg_catalog.+)
                         (coalesce(g.output_tokens, 0)
                              operator(pg_catalog.*) coalesce(e.output_per_million, b.output_per_million)))
                        operator(pg_catalog./) 1000000, 6) as cost,
       coalesce(e.currency, b.currency) as currency
  from (select d.day, d.owner, d.action, d.provider, d.model, d.calls, d.errors, d.input_tokens,
               d.output_tokens, d.latency_p50_ms, d.latency_p95_ms,
               pg_catalog.timezone('UTC', d.day::timestamp) as day_starts,
               pg_catalog.timezone('UTC', (d.day operator(pg_catalog.+) 1)::timestamp) as day_ends
          from dbms_cloud_ai._usage_daily d       -- only days up to summarized_through
        union all
        select l.day, l.owner, l.action, l.provider, l.model, l.calls, l.errors, l.input_tokens,
               l.output_tokens, l.latency_ms[1], l.latency_ms[2],
               pg_catalog.timezone('UTC', l.day::timestamp),
               pg_catalog.timezone('UTC', (l.day operator(pg_catalog.+) 1)::timestamp)
          from (select pg_catalog.timezone('UTC', m.created)::date as day, m.owner, m.action,
                       m.provider, m.model, pg_catalog.count(*) as calls,
                       pg_catalog.count(*) filter (where m.status operator(pg_catalog.=) 'error')
                           as errors,
                       pg_catalog.sum(m.input_tokens) as input_tokens,
                       pg_catalog.sum(m.output_tokens) as output_tokens,
                       pg_catalog.percentile_disc(array[0.5, 0.95]::float8[])
                           within group (order by m.latency_ms) as latency_ms
                  from dbms_cloud_ai._model_call m
                 where m.created operator(pg_catalog.>=) dbms_cloud_ai._usage_live_from()
                 group by 1, 2, 3, 4, 5) l) g
  left join dbms_cloud_ai._model_price e
         on e.provider operator(pg_catalog.=) g.provider and e.model operator(pg_catalog.=) g.model
  left join dbms_cloud_ai._model_price b
         on b.provider operator(pg_catalog.=) g.provider
        and b.model operator(pg_catalog.=)
            case when pg_catalog.translate(pg_catalog.right(g.model, 11), '0123456789', '9999999999')
                      operator(pg_catalog.=) '-9999-99-99'
                 then pg_catalog.left(g.model, -11)
                 when pg_catalog.translate(pg_catalog.right(g.model, 9), '0123456789', '9999999999')
                      operator(pg_catalog.=) '-99999999'
                 then pg_catalog.left(g.model, -9) end;
comment on view dbms_cloud_ai._usage is
'Usage per UTC day, owner, action, provider and model (the user_ and dba_ usage views)';

create view dbms_cloud_ai.user_cloud_ai_usage with (security_invoker = true) as
select day, action, provider, model, calls, errors, error_rate, input_tokens, output_tokens,
       latency_p50_ms, latency_p95_ms, rating_balance, cost, currency
  from dbms_cloud_ai._usage
 where owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_usage is
'Your model calls per UTC day, action, provider and model: calls, errors, tokens, latency, ratings, cost';

create view dbms_cloud_ai.dba_cloud_ai_usage with (security_invoker = true) as
select day, owner, action, provider, model, calls, errors, error_rate,
       input_tokens, output_tokens, latency_p50_ms, latency_p95_ms, rating_balance, cost, currency
  from dbms_cloud_ai._usage;
comment on view dbms_cloud_ai.dba_cloud_ai_usage is
'Model calls of every role per UTC day, owner, action, provider and model (dbms_cloud_ai_admin only)';

grant select on dbms_cloud_ai._model_price, dbms_cloud_ai._usage_daily, dbms_cloud_ai._usage_state
   to dbms_cloud_ai_user;
grant insert, update, delete on dbms_cloud_ai._model_price, dbms_cloud_ai._usage_daily
   to dbms_cloud_ai_admin;
grant update on dbms_cloud_ai._usage_state to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.model_prices, dbms_cloud_ai._usage, dbms_cloud_ai.user_cloud_ai_usage
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_ai_usage to dbms_cloud_ai_admin;

create function dbms_cloud_ai._py_schedule_usage_summary(schedule text)
returns bigint language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.schedule_usage_summary(plpy, schedule)
$python$;

create function dbms_cloud_ai.schedule_usage_summary(schedule text default '17 * * * *')
returns bigint language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_schedule_usage_summary(schedule);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.schedule_usage_summary(text) is
'Run summarize_usage() on a pg_cron schedule (default hourly), as the calling administrator; returns the job id';

create function dbms_cloud_ai._py_unschedule_usage_summary()
returns boolean language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.unschedule_usage_summary(plpy)
$python$;

create function dbms_cloud_ai.unschedule_usage_summary()
returns boolean language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_unschedule_usage_summary();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.unschedule_usage_summary() is
'Remove the pg_cron job made by schedule_usage_summary(); false if there was none';

-- ===== sql/api/100-text-actions.sql =====
-- SUMMARIZE and TRANSLATE (python/src/dbms_cloud_ai/text/actions.py); also
-- generate()'s summarize and translate actions.
--
-- summarize takes the content, or the http(s) URL of a text document
-- (location_uri, fetched only from hosts the host ACL allows, with an optional
-- credential for HTTP Basic authentication).  Oracle's two SDKs spell two of its
-- arguments differently: the Java SDK (and this positional order) uses
-- user_prompt and params, the Python SDK prompt and parameters; both spellings
-- are accepted (one of each pair).  A NULL content (without location_uri) or a
-- NULL text gives NULL without a model call, so that per-row use over a
-- nullable column works.

create function dbms_cloud_ai._py_summarize(content text, location_uri text, credential_name text, profile_name text, user_prompt text, params text, prompt text, parameters text)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.summarize(plpy, content, location_uri, credential_name, profile_name, user_prompt, params, prompt, parameters)
$python$;

create function dbms_cloud_ai.summarize(content text default null, location_uri text default null,
                                        credential_name text default null,
                                        profile_name text default null,
                                        user_prompt text default null, params text default null,
                                        prompt text default null, parameters text default null)
returns text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_summarize(content, location_uri, credential_name, profile_name, user_prompt, params, prompt, parameters);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.summarize(text, text, text, text, text, text, text, text) is
'Summarize content (or the text at location_uri) of any length; params: min_words, max_words, summary_style, chunk_processing_method, extractiveness_level';

create function dbms_cloud_ai._py_translate(profile_name text, text text, source_language text, target_language text)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.translate(plpy, profile_name, text, source_language, target_language)
$python$;

create function dbms_cloud_ai.translate(profile_name text default null, text text default null,
                                        source_language text default null,
                                        target_language text default null)
returns text language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_translate(profile_name, text, source_language, target_language);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.translate(text, text, text, text) is
'Translate text of any length; languages as names or ISO 639-1 codes, NULL: the profile''s source_language / target_language (no source: detected)';

-- ===== sql/api/110-memory.sql =====
-- Long-term memory (not in Oracle): identity, the organization's switch, the
-- promotion job runner, deletion and erasure.  See memory/recall.py,
-- memory/jobs.py and memory/identity.py.

create function dbms_cloud_ai._py_set_end_user(subject text, is_local boolean)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_end_user(plpy, subject, is_local)
$python$;

create function dbms_cloud_ai.set_end_user(subject text, is_local boolean default false)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_end_user(subject, is_local);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_end_user(text, boolean) is
'Trusted gateway roles only: the end user this session (or transaction) speaks for; NULL: anonymous';

create function dbms_cloud_ai.memory_identity()
returns table (organization text, subject text, identity text, memory_enabled boolean)
language plpython3u stable parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.memory_identity(plpy)
$python$;
comment on function dbms_cloud_ai.memory_identity() is
'The organization and end user (subject) long-term memory uses in this session';

create function dbms_cloud_ai._py_enable_memory(organization text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.enable_memory(plpy, organization)
$python$;

create function dbms_cloud_ai.enable_memory(organization text default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_enable_memory(organization);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.enable_memory(text) is
'Administrators: remember identified users across conversations in this organization (default: yours)';

create function dbms_cloud_ai._py_disable_memory(organization text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.disable_memory(plpy, organization)
$python$;

create function dbms_cloud_ai.disable_memory(organization text default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_disable_memory(organization);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.disable_memory(text) is
'Administrators: stop extraction and recall in this organization; stored memories are kept';

create function dbms_cloud_ai._py_set_memory_attribute(attribute_name text, attribute_value text, organization text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_memory_attribute(plpy, attribute_name, attribute_value, organization)
$python$;

create function dbms_cloud_ai.set_memory_attribute(attribute_name text, attribute_value text,
                                                   organization text default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_memory_attribute(attribute_name, attribute_value, organization);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_memory_attribute(text, text, text) is
'Administrators: enabled, max_memories (200), idle_minutes (15), recall_tokens (400) or max_pending_jobs (1000) of an organization';

create function dbms_cloud_ai._py_set_memory_role(role_name text, organization text, identity text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.set_memory_role(plpy, role_name, organization, identity)
$python$;

create function dbms_cloud_ai.set_memory_role(role_name text, organization text default null,
                                              identity text default 'role')
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_set_memory_role(role_name, organization, identity);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.set_memory_role(text, text, text) is
'Administrators: a role''s organization and identity (role, asserted: a trusted gateway, or anonymous)';

create function dbms_cloud_ai._py_delete_memory(memory_id text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.delete_memory(plpy, memory_id)
$python$;

create function dbms_cloud_ai.delete_memory(memory_id text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_delete_memory(memory_id);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.delete_memory(text) is
'Forget one of your memories: it is never recalled or searched again';

create function dbms_cloud_ai._py_erase_memories(subject text, organization text, memory_id text)
returns integer language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.erase_memories(plpy, subject, organization, memory_id)
$python$;

create function dbms_cloud_ai.erase_memories(subject text, organization text default null,
                                             memory_id text default null)
returns integer language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_erase_memories(subject, organization, memory_id);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.erase_memories(text, text, text) is
'Administrators: erase one memory or all of a subject''s, with the prompts they came from or were used in; audited';

create function dbms_cloud_ai._claim_memory_jobs(batch_size integer, run_token text)
returns text[] language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.claim_memory_jobs(plpy, batch_size, run_token)
$python$;

-- One claimed job in the caller's transaction.  run_memory_jobs no longer calls
-- it (it calls _run_memory_job_detached below); kept because databases still at
-- an earlier 0.3.0 build call it, and the package serves them too.
create function dbms_cloud_ai._run_memory_job(conversation_id text, run_token text)
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
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
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.run_memory_job_detached(plpy, conversation_id, run_token, job_owner)
$python$;

create function dbms_cloud_ai._fail_memory_job(conversation_id text, run_token text, sqlstate text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
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

create function dbms_cloud_ai._py_schedule_memory_jobs(schedule text, batch_size integer)
returns bigint language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.schedule_memory_jobs(plpy, schedule, batch_size)
$python$;

create function dbms_cloud_ai.schedule_memory_jobs(schedule text default '* * * * *',
                                                   batch_size integer default 100)
returns bigint language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_schedule_memory_jobs(schedule, batch_size);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.schedule_memory_jobs(text, integer) is
'Run run_memory_jobs() on a pg_cron schedule, as the calling administrator; returns the job id';

create function dbms_cloud_ai._py_unschedule_memory_jobs()
returns boolean language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.unschedule_memory_jobs(plpy)
$python$;

create function dbms_cloud_ai.unschedule_memory_jobs()
returns boolean language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_unschedule_memory_jobs();
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;

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

-- ===== sql/api/120-roles.sql =====
-- The DBA's side of role bindings (sql/schema/097-role-binding.sql): a dropped
-- role's rows stay apart from any later role of its name until an
-- administrator removes them (drop_role_data) or, after a restore into another
-- cluster where the same people have new role OIDs, re-binds them (rebind_role).

create function dbms_cloud_ai.drop_role_data(role_name text)
returns bigint language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $function$
declare
    who name := role_name;
    n   bigint := 0;
    k   bigint;
    ann uuid[];
begin
    if not pg_catalog.pg_has_role(current_user, 'dbms_cloud_ai_admin', 'member') then
        raise exception using
            errcode = 'insufficient_privilege',
            message = 'dbms_cloud_ai.drop_role_data requires the dbms_cloud_ai_admin role',
            hint = 'Run it as a member of dbms_cloud_ai_admin.';
    end if;
    if who is null then
        raise exception using
            errcode = 'null_value_not_allowed', message = 'role_name must not be NULL',
            hint = 'Pass the name of the dropped role.';
    end if;
    if not dbms_cloud_ai._role_is_stale(who) then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = pg_catalog.format('role %s exists and its dbms_cloud_ai rows are its own', who),
            hint = 'drop_role_data removes only the rows of a dropped role: drop the role first '
                   '(REASSIGN OWNED / DROP OWNED, DROP ROLE).';
    end if;
    -- Children before parents; the policies limit every DELETE to stale names.
    delete from dbms_cloud_ai._example t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._feedback t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._sql_statement t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._message_source t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._model_call t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._memory_job t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._conversation_summary t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._conversation_prompt t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._conversation t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._memory t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._usage_daily t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._profile_grant t where t.grantee operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    select pg_catalog.array_agg(t.index_id) into ann
      from dbms_cloud_ai._vector_index t where t.owner operator(pg_catalog.=) who;
    delete from dbms_cloud_ai._vector_chunk t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._vector_index_content t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._vector_index_grant t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._vector_index t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    -- Their HNSW indexes (rag/ann.py), which no one may use any more.  The DROP
    -- holds the chunks table's ACCESS EXCLUSIVE lock until this transaction ends:
    -- run drop_role_data on its own.  When the table is busy they are left to
    -- the next maintenance (maintain_vector_indexes drops what is gone).
    if ann is not null and dbms_cloud_ai._vector_ann_drop_gone(ann) is null then
        raise notice 'the HNSW indexes of %''s vector indexes are left to the next maintenance', who
            using hint = 'The chunks table was busy: CALL dbms_cloud_ai.maintain_vector_indexes() later.';
    end if;
    delete from dbms_cloud_ai._profile t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud._credential t where t.owner operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._host_ace t where t.principal_name operator(pg_catalog.=) who::text;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._token_budget t where t.principal operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    delete from dbms_cloud_ai._memory_role t where t.role_name operator(pg_catalog.=) who;
    get diagnostics k = row_count; n := n operator(pg_catalog.+) k;
    -- Last: a new role of this name binds itself on its first write.
    delete from dbms_cloud_ai._role_binding b where b.role_name operator(pg_catalog.=) who;
    return n;
end
$function$;
comment on function dbms_cloud_ai.drop_role_data(text) is
'Administrators: remove every row of a dropped role (its name may then be used by a new role); returns the rows removed';

create function dbms_cloud_ai.rebind_role(role_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $function$
declare
    who name := role_name;
    now_oid oid;
begin
    if not pg_catalog.pg_has_role(current_user, 'dbms_cloud_ai_admin', 'member') then
        raise exception using
            errcode = 'insufficient_privilege',
            message = 'dbms_cloud_ai.rebind_role requires the dbms_cloud_ai_admin role',
            hint = 'Run it as a member of dbms_cloud_ai_admin.';
    end if;
    select r.oid into now_oid from pg_catalog.pg_roles r where r.rolname operator(pg_catalog.=) who;
    if now_oid is null then
        raise exception using
            errcode = 'undefined_object', message = pg_catalog.format('role %s does not exist', who),
            hint = 'Create the role first, or remove its rows with dbms_cloud_ai.drop_role_data().';
    end if;
    update dbms_cloud_ai._role_binding b set role_oid = now_oid
     where b.role_name operator(pg_catalog.=) who and b.role_oid operator(pg_catalog.<>) now_oid;
    if not found then
        raise exception using
            errcode = 'object_not_in_prerequisite_state',
            message = pg_catalog.format('role %s already owns the dbms_cloud_ai rows of its name', who),
            hint = 'rebind_role is only for a database restored into another cluster.';
    end if;
end
$function$;
comment on function dbms_cloud_ai.rebind_role(text) is
'Administrators, after a restore into another cluster: give a role name''s rows to the role that has the name now';

-- ===== sql/api/125-annotations.sql =====
-- Annotations on tables and columns (Oracle's ANNOTATIONS clause, which
-- PostgreSQL lacks): docs/reference/annotations.md.  table_name is a regclass,
-- resolved in the caller's search_path when the call is made.

create function dbms_cloud_ai._py_add_annotation(table_name pg_catalog.regclass, annotation_name text, annotation_value text, column_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.add_annotation(plpy, table_name, annotation_name,
                                                     annotation_value, column_name)
$python$;

create function dbms_cloud_ai.add_annotation(table_name pg_catalog.regclass, annotation_name text,
                                             annotation_value text default null,
                                             column_name text default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_add_annotation(table_name, annotation_name, annotation_value, column_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.add_annotation(pg_catalog.regclass, text, text, text) is
'Annotate a table you own (or one of its columns): a name, or a name and a value; replaces the value of the same name';

create function dbms_cloud_ai._py_drop_annotation(table_name pg_catalog.regclass, annotation_name text, column_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.drop_annotation(plpy, table_name, annotation_name, column_name)
$python$;

create function dbms_cloud_ai.drop_annotation(table_name pg_catalog.regclass, annotation_name text,
                                              column_name text default null)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_drop_annotation(table_name, annotation_name, column_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.drop_annotation(pg_catalog.regclass, text, text) is
'Remove an annotation you added to a table or column';

-- The annotations the caller wrote and those on the relations and columns it may
-- read, of writers who still have the rights of the relation's owner.
create view dbms_cloud_ai.user_cloud_ai_annotations with (security_invoker = true) as
select n.nspname as schema_name, c.relname as table_name, a.column_name,
       a.annotation_name, a.annotation_value, a.owner as annotated_by, a.modified
  from dbms_cloud_ai._annotation a
  join pg_catalog.pg_class c on c.oid operator(pg_catalog.=) a.table_id
  join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) c.relnamespace
  join pg_catalog.pg_roles w on w.rolname operator(pg_catalog.=) a.owner
 where pg_catalog.pg_has_role(w.oid, c.relowner, 'USAGE');
comment on view dbms_cloud_ai.user_cloud_ai_annotations is
'annotations you wrote or may see (on relations you can read), as the schema context shows them';

-- ===== sql/api/130-synthetic-data.sql =====
-- GENERATE_SYNTHETIC_DATA (python/src/dbms_cloud_ai/synthetic/): the profile's
-- model invents rows that are inserted into the caller's tables, as the caller.
--
-- Oracle's procedure has two forms; here two overloads of one function, called
-- with SELECT (or PERFORM in PL/pgSQL), positionally or with named notation:
--   (profile_name, object_name, owner_name, record_count, user_prompt, params)
--   (profile_name, object_list, params)
-- Each returns a JSON array with one object per table (requested, inserted and
-- skipped rows, model calls) and raises a NOTICE per table.  search_path (not in
-- Oracle's signature) is the caller's: a NULL owner_name means its first schema.
-- Only the first form has it, so that no call can match both (in object_list,
-- owner is required, as in Oracle).

create function dbms_cloud_ai._py_generate_synthetic_data(profile_name text, object_name text, owner_name text, record_count integer, user_prompt text, params text, search_path text[])
returns jsonb language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.generate_synthetic_data(plpy, profile_name, object_name, owner_name, record_count, user_prompt, params, search_path)
$python$;

create function dbms_cloud_ai.generate_synthetic_data(
        profile_name text, object_name text, owner_name text, record_count integer,
        user_prompt text default null, params text default null,
        search_path text[] default pg_catalog.current_schemas(false)::text[])
returns jsonb language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_generate_synthetic_data(profile_name, object_name, owner_name, record_count, user_prompt, params, search_path);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.generate_synthetic_data(text, text, text, integer, text, text, text[]) is
'Insert record_count rows invented by the profile''s model into owner_name.object_name; params: sample_rows, table_statistics, priority, comments';

create function dbms_cloud_ai._py_generate_synthetic_data(profile_name text, object_list text, params text)
returns jsonb language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.generate_synthetic_data_list(plpy, profile_name, object_list, params)
$python$;

create function dbms_cloud_ai.generate_synthetic_data(
        profile_name text, object_list text, params text default null)
returns jsonb language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_generate_synthetic_data(profile_name, object_list, params);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.generate_synthetic_data(text, text, text) is
'Insert rows invented by the profile''s model into each table of object_list ([{"owner", "name", "record_count", "user_prompt"}]), parents first';

-- ===== sql/api/130-vector-indexes.sql =====
-- Vector indexes (Oracle's DBMS_CLOUD_AI.CREATE_VECTOR_INDEX and friends; issue 19):
-- python/src/dbms_cloud_ai/rag/, docs/reference/vector-indexes.md.  attributes
-- accepts JSON text (Oracle's CLOB) or jsonb: two overloads, as create_profile.

create function dbms_cloud_ai._py_create_vector_index(index_name text, attributes text, description text, wait_for_completion boolean)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.create_vector_index(plpy, index_name, attributes, description,
                                                          wait_for_completion)
$python$;

create function dbms_cloud_ai.create_vector_index(index_name text, attributes text, description text default null,
                                                   wait_for_completion boolean default true)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_create_vector_index(index_name, attributes, description, wait_for_completion);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.create_vector_index(text, text, text, boolean) is
'Create a vector index: attributes location, profile_name, chunk_size, ...; wait_for_completion => true embeds its documents now';

create function dbms_cloud_ai.create_vector_index(index_name text, attributes jsonb,
                                                   description text default null,
                                                   wait_for_completion boolean default true)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.create_vector_index(index_name, attributes::text, description,
                                             wait_for_completion);
end;
comment on function dbms_cloud_ai.create_vector_index(text, jsonb, text, boolean) is
'Create a vector index from jsonb attributes';

create function dbms_cloud_ai._py_update_vector_index(index_name text, attribute_name text, attribute_value text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.update_vector_index(plpy, index_name, attribute_name, attribute_value)
$python$;

create function dbms_cloud_ai.update_vector_index(index_name text, attribute_name text, attribute_value text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_update_vector_index(index_name, attribute_name, attribute_value);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.update_vector_index(text, text, text) is
'Set one vector index attribute (NULL removes it); the next refresh applies it';

create function dbms_cloud_ai._py_update_vector_index(index_name text, attributes text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.update_vector_index_attributes(plpy, index_name, attributes)
$python$;

create function dbms_cloud_ai.update_vector_index(index_name text, attributes text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_update_vector_index(index_name, attributes);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.update_vector_index(text, text) is
'Merge a JSON object of attributes into a vector index; a null value removes that attribute';

create function dbms_cloud_ai.update_vector_index(index_name text, attributes jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.update_vector_index(index_name, attributes::text);
end;
comment on function dbms_cloud_ai.update_vector_index(text, jsonb) is
'Merge jsonb attributes into a vector index';

-- schema_name (not in Oracle's signature): where include_data => false keeps the
-- data, by default the caller's current schema; a default expression is
-- evaluated by the caller, before the function's SET clause applies.
create function dbms_cloud_ai._py_drop_vector_index(index_name text, include_data boolean, force boolean, schema_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.drop_vector_index(plpy, index_name, include_data, force,
                                                        schema_name)
$python$;

create function dbms_cloud_ai.drop_vector_index(index_name text, include_data boolean default false,
                                                 force boolean default false,
                                                 schema_name text default pg_catalog.current_schema())
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_drop_vector_index(index_name, include_data, force, schema_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.drop_vector_index(text, boolean, boolean, text) is
'Drop a vector index and its grants; include_data => false (the default) first keeps its data as your table <index_name>$vectab; force => true ignores a missing index';

create function dbms_cloud_ai._py_enable_vector_index(index_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.enable_vector_index(plpy, index_name)
$python$;

create function dbms_cloud_ai.enable_vector_index(index_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_enable_vector_index(index_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.enable_vector_index(text) is
'Enable a vector index: narrate and refreshes use it again';

create function dbms_cloud_ai._py_disable_vector_index(index_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.disable_vector_index(plpy, index_name)
$python$;

create function dbms_cloud_ai.disable_vector_index(index_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_disable_vector_index(index_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.disable_vector_index(text) is
'Disable a vector index: narrate over it and its refreshes are refused';

create function dbms_cloud_ai._py_grant_vector_index_access(index_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.grant_vector_index_access(plpy, index_name, user_or_role_name)
$python$;

create function dbms_cloud_ai.grant_vector_index_access(index_name text, user_or_role_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_grant_vector_index_access(index_name, user_or_role_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.grant_vector_index_access(text, text) is
'Share your vector index with a role (or PUBLIC): its profiles may name it as "OWNER"."NAME"';

create function dbms_cloud_ai._py_revoke_vector_index_access(index_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.revoke_vector_index_access(plpy, index_name, user_or_role_name)
$python$;

create function dbms_cloud_ai.revoke_vector_index_access(index_name text, user_or_role_name text)
returns void language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    perform dbms_cloud_ai._py_revoke_vector_index_access(index_name, user_or_role_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.revoke_vector_index_access(text, text) is
'Stop sharing your vector index with a role';

-- This extension's, not Oracle's (Oracle refreshes by its own scheduler): the
-- refresh that pg_cron runs every refresh_rate minutes, on demand.

create function dbms_cloud_ai._py_refresh_vector_index(index_name text)
returns integer language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.refresh_vector_index(plpy, index_name)
$python$;

create function dbms_cloud_ai.refresh_vector_index(index_name text)
returns integer language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
set lock_timeout to '5s'
as $wrapper$
declare
    _s text; _m text; _d text; _h text;
begin
    return dbms_cloud_ai._py_refresh_vector_index(index_name);
exception when others then
    get stacked diagnostics _s = returned_sqlstate, _m = message_text,
                            _d = pg_exception_detail, _h = pg_exception_hint;
    _m := pg_catalog.regexp_replace(_m, '^(dbms_cloud_ai|spiexceptions\.\w+|plpy\.\w+): ', '');
    if _d <> '' and _h <> '' then
        raise exception using errcode = _s, message = _m, detail = _d, hint = _h;
    elsif _d <> '' then
        raise exception using errcode = _s, message = _m, detail = _d;
    elsif _h <> '' then
        raise exception using errcode = _s, message = _m, hint = _h;
    else
        raise exception using errcode = _s, message = _m;
    end if;
end
$wrapper$;
comment on function dbms_cloud_ai.refresh_vector_index(text) is
'Read the sources of your vector index again and embed the chunks that changed; returns how many were embedded';

-- What pg_cron runs (rag/schedule.py): a failed refresh is rolled back,
-- recorded on the index and reported by a WARNING, and the job ends normally;
-- then, in transactions of their own, the index's HNSW index is built or
-- dropped (maintain_vector_indexes).  A procedure that commits: CALL it on its
-- own (2D000 inside a transaction block); no SET clause (the package pins
-- search_path in each of its transactions: rag/ann.py, model/detached.py).
create procedure dbms_cloud_ai.refresh_vector_index_job(index_name text, inout embedded integer default null)
language plpython3u security invoker
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.refresh_vector_index_job(plpy, index_name)
$python$;
comment on procedure dbms_cloud_ai.refresh_vector_index_job(text, integer) is
'refresh_vector_index as pg_cron runs it: a failure is recorded (last_refresh_status FAILED, last_refresh_error) with a WARNING instead of raised (embedded NULL); then the HNSW index is maintained in transactions of its own. CALL it outside a transaction block';

-- The HNSW indexes (pgvector, rag/ann.py) are built and dropped here only, each
-- DDL in a transaction of its own that commits at once: no function (refresh,
-- drop_vector_index) runs them inside its caller's transaction (issue 30,
-- class 3).  index_name: that one of your indexes, else all of yours; both
-- also drop the HNSW indexes left by vector indexes that are gone.
create procedure dbms_cloud_ai.maintain_vector_indexes(index_name text default null)
language plpython3u security invoker
as $python$
    if GD.get("dbms_cloud_ai.version") != "0.8.0":
        import os, sys
        if GD.get("dbms_cloud_ai.version") is not None:
            plpy.error("dbms_cloud_ai was updated while this session was open",
                       detail="This session loaded version %s; the database now has 0.8.0." % GD["dbms_cloud_ai.version"],
                       hint="Reconnect to use the new version.", sqlstate="55000")
        _dca_dir = os.path.join(os.environ.get("DBMS_CLOUD_AI_PYTHON_LIB_DIR") or "/usr/local/lib/dbms_cloud_ai",
                                "0.8.0", "python%d.%d" % sys.version_info[:2])
        if not os.path.isdir(_dca_dir):
            plpy.error("dbms_cloud_ai Python library is not installed",
                       detail="Directory %s does not exist." % _dca_dir,
                       hint="Run 'make install' as root on the database server.", sqlstate="58000")
        sys.path[:] = [_dca_dir] + [p for p in sys.path if p != _dca_dir and not p.endswith("-packages")]
        import dbms_cloud_ai, dbms_cloud_ai.sqlapi
        if dbms_cloud_ai.__version__ != "0.8.0":
            plpy.error("dbms_cloud_ai Python library version %s does not match the extension 0.8.0"
                       % dbms_cloud_ai.__version__,
                       hint="Run 'make install' as root, then reconnect.", sqlstate="58000")
        GD["dbms_cloud_ai"] = dbms_cloud_ai
        GD["dbms_cloud_ai.version"] = "0.8.0"
    return GD["dbms_cloud_ai"].sqlapi.maintain_vector_indexes(plpy, index_name)
$python$;
comment on procedure dbms_cloud_ai.maintain_vector_indexes(text) is
'Build the missing HNSW index of your vector indexes (or of index_name), drop those of other dimensions and of dropped vector indexes; each in a transaction of its own. CALL it outside a transaction block';

-- Oracle's views, and the ALL_ pair with the indexes granted to the caller.
create view dbms_cloud_ai.user_cloud_vector_indexes with (security_invoker = true) as
select i.index_name, i.description, i.status, i.refreshed as last_refreshed,
       i.embedding_model,
       (select pg_catalog.count(*) from dbms_cloud_ai._vector_chunk c
         where c.index_id operator(pg_catalog.=) i.index_id) as chunks,
       i.created, i.modified, i.last_refresh_status, x.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
  left join dbms_cloud_ai._vector_index_content x on x.index_id operator(pg_catalog.=) i.index_id
 where i.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_vector_indexes is 'Your vector indexes';

create view dbms_cloud_ai.user_cloud_vector_index_attributes with (security_invoker = true) as
select i.index_name, a.key as attribute_name,
       case pg_catalog.jsonb_typeof(a.value) when 'string' then a.value operator(pg_catalog.#>>) '{}'
            else a.value::text end as attribute_value
  from dbms_cloud_ai._vector_index i
 cross join pg_catalog.jsonb_each(i.attributes) a
 where i.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_vector_index_attributes is
'The attributes of your vector indexes, as set';

-- "Own or shared with me": the ALL_ views and narrate's lookup say it
-- themselves, since administrators read every index row (vector_index_admin_read).
create function dbms_cloud_ai._vector_index_usable(p_index uuid, p_owner name)
returns boolean language sql stable parallel safe security invoker
set search_path to pg_catalog, pg_temp
as $$
    select p_owner operator(pg_catalog.=) current_user
        or (exists (select from dbms_cloud_ai._vector_index_grant g
                     where g.index_id operator(pg_catalog.=) p_index
                       and (g.grantee_oid operator(pg_catalog.=) 0
                            or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))
            and dbms_cloud_ai._role_is_live(p_owner))
$$;
comment on function dbms_cloud_ai._vector_index_usable(uuid, name) is
'Internal: whether the vector index is the caller''s or shared with it';

create view dbms_cloud_ai.all_cloud_vector_indexes with (security_invoker = true) as
select i.owner::text as owner, i.index_name, i.description, i.status,
       i.refreshed as last_refreshed, i.embedding_model, i.created, i.modified,
       i.last_refresh_status, x.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
  left join dbms_cloud_ai._vector_index_content x on x.index_id operator(pg_catalog.=) i.index_id
 where dbms_cloud_ai._vector_index_usable(i.index_id, i.owner);
comment on view dbms_cloud_ai.all_cloud_vector_indexes is
'Your vector indexes and those shared with you';

create view dbms_cloud_ai.all_cloud_vector_index_attributes with (security_invoker = true) as
select i.owner::text as owner, i.index_name, a.key as attribute_name,
       case pg_catalog.jsonb_typeof(a.value) when 'string' then a.value operator(pg_catalog.#>>) '{}'
            else a.value::text end as attribute_value
  from dbms_cloud_ai._vector_index i
 cross join pg_catalog.jsonb_each(i.attributes) a
 where dbms_cloud_ai._vector_index_usable(i.index_id, i.owner);
comment on view dbms_cloud_ai.all_cloud_vector_index_attributes is
'The attributes of your vector indexes and of those shared with you';

-- Oracle's DBA_ pair: every role's indexes (dbms_cloud_ai_admin only), without
-- their chunks, and without what is derived from their documents
-- (last_refresh_error: NULL unless the index is the administrator's or shared
-- with it, by the policy of _vector_index_content).
create view dbms_cloud_ai.dba_cloud_vector_indexes with (security_invoker = true) as
select i.owner::text as owner, i.index_name, i.description, i.status,
       i.refreshed as last_refreshed, i.embedding_model, i.created, i.modified,
       i.last_refresh_status, x.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
  left join dbms_cloud_ai._vector_index_content x on x.index_id operator(pg_catalog.=) i.index_id;
comment on view dbms_cloud_ai.dba_cloud_vector_indexes is
'All vector indexes (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.dba_cloud_vector_index_attributes with (security_invoker = true) as
select i.owner::text as owner, i.index_name, a.key as attribute_name,
       case pg_catalog.jsonb_typeof(a.value) when 'string' then a.value operator(pg_catalog.#>>) '{}'
            else a.value::text end as attribute_value
  from dbms_cloud_ai._vector_index i
 cross join pg_catalog.jsonb_each(i.attributes) a;
comment on view dbms_cloud_ai.dba_cloud_vector_index_attributes is
'The attributes of all vector indexes (dbms_cloud_ai_admin only)';

create view dbms_cloud_ai.user_cloud_vector_index_grants with (security_invoker = true) as
select i.index_name, g.grantee::text as grantee, g.granted
  from dbms_cloud_ai._vector_index_grant g
  join dbms_cloud_ai._vector_index i on i.index_id operator(pg_catalog.=) g.index_id
 where g.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_vector_index_grants is
'Whom your vector indexes are shared with (dbms_cloud_ai.grant_vector_index_access)';

-- The pgvector path (rag/ann.py): the partial HNSW index of one vector index
-- over its chunks' embeddings.  Its predicate keeps out chunks of other
-- dimensions, whose cast would fail: a build also reads row versions that a
-- refresh of another model just replaced, still seen by a snapshot.  CREATE
-- INDEX on _vector_chunk needs CREATE on schema dbms_cloud_ai, which only the
-- extension's owner holds, so these run as that owner.
--
-- Where they run (issue 30, class 3): a DROP INDEX holds ACCESS EXCLUSIVE on the
-- shared chunks table, a CREATE INDEX holds SHARE, until the transaction ends;
-- inside a user's transaction left open, every other role's narrate (or
-- refresh) would wait.  So no function runs them: only the procedures
-- maintain_vector_indexes and refresh_vector_index_job, one DDL per transaction
-- that commits at once (rag/ann.py), and drop_role_data, an administrator's.
-- CONCURRENTLY is refused below top level, so each takes its lock with NOWAIT,
-- retried a few times, and never waits in the lock queue: a queued ACCESS
-- EXCLUSIVE request would stop every reader behind it, a queued SHARE request
-- every writer.  Others wait only while the DDL itself runs.
create function dbms_cloud_ai._vector_ann_lock_nowait(p_share boolean)
returns boolean language plpgsql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $fn$
begin
    for v_try in 1..10 loop
        begin
            if p_share then
                lock table dbms_cloud_ai._vector_chunk in share mode nowait;
            else
                lock table dbms_cloud_ai._vector_chunk in access exclusive mode nowait;
            end if;
            return true;
        exception when lock_not_available then
            perform pg_catalog.pg_sleep(0.05 operator(pg_catalog.*) v_try);
        end;
    end loop;
    return false;
end
$fn$;
comment on function dbms_cloud_ai._vector_ann_lock_nowait(boolean) is
'Internal: the chunks table''s SHARE (p_share) or ACCESS EXCLUSIVE lock without queueing for it (false when busy)';

-- One step of the HNSW maintenance of vector index p_index (p_caller's: the
-- package passes the writer's caller; only dbms_cloud_ai_owner may call it):
-- drop one HNSW index of it that is not the wanted one (other dimensions), else
-- build the wanted one when missing (the dimensions of its chunks).  p_index of
-- a vector index that no longer exists (anyone's: nobody can use it), or NULL
-- (any such one): drop one of its HNSW indexes.  Returns 'dropped', 'built',
-- 'busy' (the lock was not free: nothing done), 'capped' (20 already), or NULL
-- when there is nothing to do.  Its inputs are a uuid and the caller's name;
-- pgvector's schema comes from the catalog (dbms_cloud_ai_owner must be able to
-- use it: the search runs as that role), and every name and literal of the DDL
-- goes through format's %I and %L.
create function dbms_cloud_ai._vector_ann_step(p_index uuid, p_caller name)
returns text language plpgsql volatile parallel unsafe security definer
set search_path to pg_catalog, pg_temp
as $fn$
declare
    v_owner name;
    v_index text;
    v_dims integer;
    v_schema name;
    v_type text;
    v_name text;
    v_old name;
begin
    if p_index is not null then
        select i.owner, i.index_name into v_owner, v_index from dbms_cloud_ai._vector_index i
         where i.index_id operator(pg_catalog.=) p_index;
        if found and v_owner operator(pg_catalog.<>) p_caller then
            raise exception 'vector index % is not one of %''s', p_index, p_caller
                using errcode = 'insufficient_privilege';
        end if;
    end if;
    if v_owner is not null then
        -- The dimensions of its chunks, read in a block that is then undone: the
        -- read's ACCESS SHARE lock on the chunks table goes with it (the value
        -- stays), so two maintenances that each drop an index never make each
        -- other's NOWAIT fail.
        begin
            select pg_catalog.cardinality(c.embedding) into v_dims from dbms_cloud_ai._vector_chunk c
             where c.index_id operator(pg_catalog.=) p_index and c.embedding is not null limit 1;
            raise exception using errcode = 'DCAV0';
        exception when sqlstate 'DCAV0' then
            null;
        end;
        select n.nspname into v_schema
          from pg_catalog.pg_extension e
          join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) e.extnamespace
         where e.extname operator(pg_catalog.=) 'vector'
           and pg_catalog.string_to_array(e.extversion, '.')::int[] operator(pg_catalog.>=) '{0,5}'::int[]
           and pg_catalog.has_schema_privilege('dbms_cloud_ai_owner', n.oid, 'USAGE');
        v_type := case when v_schema is null or v_dims is null or v_dims operator(pg_catalog.<) 1 then null
                       when v_dims operator(pg_catalog.<=) 2000 then 'vector'
                       when v_dims operator(pg_catalog.<=) 4000 then 'halfvec' end;
        if v_type is not null then
            v_name := pg_catalog.format('vector_chunk_ann_%s_%s',
                                        pg_catalog.replace(p_index::text, '-', ''), v_dims);
        end if;
    end if;
    -- An HNSW index of this vector index (or of one that is gone) that is not wanted.
    select c.relname into v_old from pg_catalog.pg_class c
     where c.relnamespace operator(pg_catalog.=) 'dbms_cloud_ai'::regnamespace
       and c.relkind operator(pg_catalog.=) 'i'
       and c.relname operator(pg_catalog.<>) coalesce(v_name, '')
       and case when p_index is not null
                then pg_catalog.starts_with(c.relname::text, pg_catalog.format('vector_chunk_ann_%s_',
                                                 pg_catalog.replace(p_index::text, '-', '')))
                else c.relname operator(pg_catalog.~) '^vector_chunk_ann_[0-9a-f]{32}_[0-9]+$'
                     and not exists (select from dbms_cloud_ai._vector_index i
                                      where pg_catalog.replace(i.index_id::text, '-', '')
                                            operator(pg_catalog.=) pg_catalog.split_part(c.relname::text, '_', 4)) end
     limit 1;
    if v_old is not null then
        if not dbms_cloud_ai._vector_ann_lock_nowait(false) then
            return 'busy';
        end if;
        execute pg_catalog.format('drop index if exists dbms_cloud_ai.%I', v_old);
        return 'dropped';
    end if;
    if v_name is null or pg_catalog.to_regclass(pg_catalog.format('dbms_cloud_ai.%I', v_name)) is not null then
        return null;
    end if;
    -- Every partial index costs each insert into the chunks table a predicate
    -- check, and each plan over it a proof: a role's HNSW indexes are bounded.
    -- Count and build are one step per role: concurrent maintenance of its indexes
    -- queues on its role binding row until the one before commits (no ordinary
    -- role can lock that row: a locking clause needs UPDATE), so the cap holds.
    begin
        perform from dbms_cloud_ai._role_binding b
         where b.role_name operator(pg_catalog.=) p_caller for update;
        if pg_catalog.to_regclass(pg_catalog.format('dbms_cloud_ai.%I', v_name)) is not null then
            return null;        -- built by the maintenance this one waited for
        end if;
        if (select pg_catalog.count(*)
              from dbms_cloud_ai._vector_index i
              join pg_catalog.pg_class c
                on pg_catalog.starts_with(c.relname::text, pg_catalog.format('vector_chunk_ann_%s_',
                                                  pg_catalog.replace(i.index_id::text, '-', '')))
             where i.owner operator(pg_catalog.=) p_caller
               and c.relnamespace operator(pg_catalog.=) 'dbms_cloud_ai'::regnamespace
               and c.relkind operator(pg_catalog.=) 'i') operator(pg_catalog.>=) 20 then
            raise notice 'vector index % gets no HNSW index: % has 20 already', v_index, p_caller
                using hint = 'Retrieval uses full text for it; drop unused vector indexes with '
                             'dbms_cloud_ai.drop_vector_index().';
            return 'capped';
        end if;
    exception when lock_not_available then
        return 'busy';          -- another maintenance of this role builds (lock_timeout)
    end;
    if not dbms_cloud_ai._vector_ann_lock_nowait(true) then
        return 'busy';
    end if;
    execute pg_catalog.format(
        'create index %I on dbms_cloud_ai._vector_chunk using hnsw '
        '((embedding::%I.%s(%s)) %I.%I) '
        'where index_id = %L::uuid and pg_catalog.cardinality(embedding) = %s',
        v_name, v_schema, v_type, v_dims, v_schema, v_type operator(pg_catalog.||) '_ip_ops',
        p_index, v_dims);
    return 'built';
end
$fn$;
comment on function dbms_cloud_ai._vector_ann_step(uuid, name) is
'Internal: one DDL of the HNSW maintenance of a vector index, when the database has pgvector';

-- drop_role_data (an administrator's): the HNSW indexes of the given vector
-- indexes, which must be gone (deleted by this transaction, or before).
-- Executable by dbms_cloud_ai_admin only.  Returns how many were dropped; NULL
-- when the chunks table was busy (left to the next maintenance).
create function dbms_cloud_ai._vector_ann_drop_gone(p_indexes uuid[])
returns integer language plpgsql volatile parallel unsafe security definer
set search_path to pg_catalog, pg_temp
as $fn$
declare
    v_old name;
    n integer := 0;
begin
    for v_old in
        select c.relname from pg_catalog.pg_class c
          join pg_catalog.unnest(p_indexes) as x(index_id)
            on pg_catalog.starts_with(c.relname::text, pg_catalog.format('vector_chunk_ann_%s_',
                                              pg_catalog.replace(x.index_id::text, '-', '')))
         where c.relnamespace operator(pg_catalog.=) 'dbms_cloud_ai'::regnamespace
           and c.relkind operator(pg_catalog.=) 'i'
           and not exists (select from dbms_cloud_ai._vector_index i
                            where i.index_id operator(pg_catalog.=) x.index_id)
    loop
        if n operator(pg_catalog.=) 0 and not dbms_cloud_ai._vector_ann_lock_nowait(false) then
            return null;
        end if;
        execute pg_catalog.format('drop index if exists dbms_cloud_ai.%I', v_old);
        n := n operator(pg_catalog.+) 1;
    end loop;
    return n;
end
$fn$;
comment on function dbms_cloud_ai._vector_ann_drop_gone(uuid[]) is
'Internal: drop_role_data drops the HNSW indexes of the vector indexes it removed';

-- ===== sql/api/800-views.sql =====
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

-- ===== sql/api/990-table-rules.sql =====
-- Rules every table of the extension follows, applied from the catalog on each
-- install and update (this part is replayed by every update script), so that a
-- new table needs no line here:
-- * a table with an owner column gets the trigger owner_is_fixed (096): a row
--   never changes owner;
-- * a table whose rows pg_dump saves (pg_extension_config_dump in its schema
--   file) has its identity or serial sequences saved too, or a restored
--   database hands out ids from 1 again: the next credential or profile
--   collides with a restored one, the newest prompt or memory sorts as the
--   oldest.  One call per statement: each call updates the extension's row.
do $rules$
declare
    t pg_catalog.regclass;
    s pg_catalog.regclass;
begin
    for t in select c.oid from pg_catalog.pg_class c
               join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) c.relnamespace
               join pg_catalog.pg_attribute a on a.attrelid operator(pg_catalog.=) c.oid
              where n.nspname operator(pg_catalog.=) any (array['dbms_cloud', 'dbms_cloud_ai'])
                and c.relkind operator(pg_catalog.=) any (array['r', 'p']::"char"[])
                and a.attname operator(pg_catalog.=) 'owner' and not a.attisdropped
              order by c.oid loop
        execute pg_catalog.format(
            'create or replace trigger owner_is_fixed before update of owner on %s for each row '
            'when (old.owner is distinct from new.owner) execute function dbms_cloud_ai._owner_is_fixed()', t);
    end loop;
    for s in select pg_catalog.pg_get_serial_sequence(c.oid::pg_catalog.regclass::text, a.attname)::pg_catalog.regclass
               from pg_catalog.pg_extension e
              cross join pg_catalog.unnest(e.extconfig) x (oid)
               join pg_catalog.pg_class c on c.oid operator(pg_catalog.=) x.oid
               join pg_catalog.pg_attribute a on a.attrelid operator(pg_catalog.=) c.oid
              where e.extname operator(pg_catalog.=) 'dbms_cloud_ai'
                and c.relkind operator(pg_catalog.=) 'r'
                and a.attnum operator(pg_catalog.>) 0 and not a.attisdropped
                and pg_catalog.pg_get_serial_sequence(c.oid::pg_catalog.regclass::text, a.attname) is not null
              order by c.oid, a.attnum loop
        perform pg_catalog.pg_extension_config_dump(s, '');
    end loop;
end
$rules$;

-- ===== sql/api/999-privileges.sql =====
-- Who may do what.  Nothing is granted to PUBLIC: a DBA grants
-- dbms_cloud_ai_user (Oracle: GRANT EXECUTE ON DBMS_CLOUD_AI) and, for the
-- DBA_ views and host ACLs, dbms_cloud_ai_admin.

revoke all on all functions in schema dbms_cloud, dbms_cloud_ai from public;
revoke all on all procedures in schema dbms_cloud_ai from public;
revoke all on all tables in schema dbms_cloud, dbms_cloud_ai from public;

grant usage on schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_user;
grant execute on all functions in schema dbms_cloud, dbms_cloud_ai to dbms_cloud_ai_user;
grant execute on all procedures in schema dbms_cloud_ai to dbms_cloud_ai_user;

-- Ordinary roles read their own rows and write nothing directly (issue 14,
-- class 2): every write of an API call runs in dbms_cloud_ai._write as
-- dbms_cloud_ai_owner (python/src/dbms_cloud_ai/writer.py).  Without a write
-- privilege a role can neither forge rows nor LOCK a table in any mode that
-- blocks the extension, nor probe other roles' keys through unique-key errors.
-- The revoke also takes back what 0.2.0 granted.
-- HNSW index DDL (sql/api/130-vector-indexes.sql): for the package's maintenance
-- procedures only, through the writer; for drop_role_data, administrators only.
-- No user can run it inside a transaction of its own (issue 30, class 3).
revoke execute on function dbms_cloud_ai._vector_ann_step(uuid, name),
                           dbms_cloud_ai._vector_ann_drop_gone(uuid[]),
                           dbms_cloud_ai._vector_ann_lock_nowait(boolean)
    from dbms_cloud_ai_user;
grant execute on function dbms_cloud_ai._vector_ann_step(uuid, name) to dbms_cloud_ai_owner;
grant execute on function dbms_cloud_ai._vector_ann_drop_gone(uuid[]) to dbms_cloud_ai_admin;

revoke insert, update, delete, truncate, references, trigger
    on all tables in schema dbms_cloud, dbms_cloud_ai from dbms_cloud_ai_user;
grant select on dbms_cloud._credential, dbms_cloud_ai._profile, dbms_cloud_ai._host_ace,
                dbms_cloud_ai._conversation, dbms_cloud_ai._conversation_prompt,
                dbms_cloud_ai._memory, dbms_cloud_ai._memory_job
   to dbms_cloud_ai_user;
-- Administrators' own functions work across roles with the administrators'
-- privileges, within their policies: erasure (erase_memories), purging every
-- role's expired conversations, drop_role_data and the memory job runner's
-- claims.  These are the rights every user held before 0.3.0, kept for
-- administrators only (a role the DBA trusts with everyone's data).
grant select, insert, update, delete on dbms_cloud._credential, dbms_cloud_ai._profile,
                dbms_cloud_ai._conversation, dbms_cloud_ai._feedback, dbms_cloud_ai._example,
                dbms_cloud_ai._conversation_summary, dbms_cloud_ai._memory,
                dbms_cloud_ai._memory_job
   to dbms_cloud_ai_admin;
grant select, insert, delete on dbms_cloud_ai._conversation_prompt, dbms_cloud_ai._sql_statement
   to dbms_cloud_ai_admin;
grant update (profile_name, prompt_action, prompt, prompt_response, modified, client_identifier, client_ip,
              sid, serial_no, provider, model, prompt_version, input_tokens, output_tokens,
              tokens_estimated, latency_ms, rating, rating_comment, rated, request_id)
   on dbms_cloud_ai._conversation_prompt to dbms_cloud_ai_admin;
grant insert, update, delete on dbms_cloud_ai._host_ace to dbms_cloud_ai_admin;
-- What dbms_cloud_ai_owner evaluates when it writes for a caller (column
-- defaults, the policies that apply to every role).
grant execute on function dbms_cloud_ai._caller(), dbms_cloud_ai._organization(),
                          dbms_cloud_ai._administers(text), dbms_cloud_ai._role_is_stale(name),
                          dbms_cloud_ai._role_is_live(name)
   to dbms_cloud_ai_owner;
grant select on dbms_cloud_ai._model_call, dbms_cloud_ai._message_source to dbms_cloud_ai_user;
-- An administrator corrects a record's counts.
grant update (input_tokens, output_tokens, tokens_estimated) on dbms_cloud_ai._model_call
   to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._model_call, dbms_cloud_ai._message_source to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._token_budget to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._token_budget to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._admin_setting to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._annotation to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._profile_grant to dbms_cloud_ai_user, dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._profile_grant to dbms_cloud_ai_admin;
grant select, insert, update, delete on dbms_cloud_ai._admin_setting to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._data_access to dbms_cloud_ai_user;
grant select, insert, update, delete on dbms_cloud_ai._data_access to dbms_cloud_ai_admin;

grant select on dbms_cloud_ai._memory_role, dbms_cloud_ai._memory_organization to dbms_cloud_ai_user;
grant insert, update, delete on dbms_cloud_ai._memory_role, dbms_cloud_ai._memory_organization
   to dbms_cloud_ai_admin;
grant select, insert on dbms_cloud_ai._memory_erasure to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._conversation_prompt, dbms_cloud_ai._sql_statement to dbms_cloud_ai_admin;
grant update on dbms_cloud_ai._conversation_summary to dbms_cloud_ai_admin;
-- Role bindings (097-role-binding.sql): a role binds itself on its first write;
-- administrators re-bind after a restore and remove a dropped role's rows,
-- accounting included (drop_role_data; the policies allow nothing else).
grant select on dbms_cloud_ai._role_binding to dbms_cloud_ai_user;
grant insert, update (role_oid), delete on dbms_cloud_ai._role_binding to dbms_cloud_ai_admin;
grant delete on dbms_cloud_ai._model_call, dbms_cloud_ai._message_source to dbms_cloud_ai_admin;

grant select on dbms_cloud.user_credentials, dbms_cloud_ai.user_cloud_ai_profiles,
                dbms_cloud_ai.user_cloud_ai_profile_attributes, dbms_cloud_ai.profile_attribute_names,
                dbms_cloud_ai.user_host_aces, dbms_cloud_ai.user_cloud_ai_conversations,
                dbms_cloud_ai.user_cloud_ai_conversation_prompts,
                dbms_cloud_ai.session_cloud_ai_conversation_prompts,
                dbms_cloud_ai.user_cloud_ai_calls, dbms_cloud_ai.user_cloud_ai_message_sources,
                dbms_cloud_ai.user_cloud_ai_token_budgets, dbms_cloud_ai.user_cloud_ai_memories,
                dbms_cloud_ai.user_cloud_ai_memory_jobs, dbms_cloud_ai.user_cloud_ai_annotations,
                dbms_cloud_ai.all_cloud_ai_profiles, dbms_cloud_ai.all_cloud_ai_profile_attributes,
                dbms_cloud_ai.user_cloud_ai_profile_grants
   to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.dba_cloud_vector_indexes, dbms_cloud_ai.dba_cloud_vector_index_attributes
   to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_ai_profiles, dbms_cloud_ai.dba_cloud_ai_profile_attributes,
                dbms_cloud_ai.dba_cloud_ai_profile_grants,
                dbms_cloud_ai.dba_host_aces, dbms_cloud_ai.dba_cloud_ai_conversations,
                dbms_cloud_ai.dba_cloud_ai_conversation_prompts, dbms_cloud_ai.dba_cloud_ai_calls,
                dbms_cloud_ai.user_cloud_ai_token_budgets, dbms_cloud_ai.dba_cloud_ai_memories,
                dbms_cloud_ai.dba_cloud_ai_memory_jobs, dbms_cloud_ai.dba_cloud_ai_memory_erasures,
                dbms_cloud_ai.dba_cloud_ai_memory_settings, dbms_cloud_ai.dba_cloud_ai_memory_roles
   to dbms_cloud_ai_admin;

-- Vector indexes (089-vector-indexes.sql): read by their owner and grantees;
-- written only through the writer.
grant select on dbms_cloud_ai._vector_index, dbms_cloud_ai._vector_chunk,
                dbms_cloud_ai._vector_index_grant, dbms_cloud_ai._vector_index_content
   to dbms_cloud_ai_user;
grant select, delete on dbms_cloud_ai._vector_index, dbms_cloud_ai._vector_chunk,
                        dbms_cloud_ai._vector_index_grant, dbms_cloud_ai._vector_index_content
   to dbms_cloud_ai_admin;   -- drop_role_data
grant select on dbms_cloud_ai.user_cloud_vector_indexes,
                dbms_cloud_ai.user_cloud_vector_index_attributes,
                dbms_cloud_ai.all_cloud_vector_indexes,
                dbms_cloud_ai.all_cloud_vector_index_attributes,
                dbms_cloud_ai.user_cloud_vector_index_grants
   to dbms_cloud_ai_user;
