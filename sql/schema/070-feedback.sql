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

-- Role binding and the writer's policies (what they are: 012-role-binding.sql).
create trigger bind_role before insert on dbms_cloud_ai._sql_statement
    for each statement execute function dbms_cloud_ai._bind_role();
create policy sql_statement_role_bound on dbms_cloud_ai._sql_statement as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy sql_statement_admin_drop_role_read on dbms_cloud_ai._sql_statement for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy sql_statement_admin_drop_role on dbms_cloud_ai._sql_statement for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy sql_statement_writer on dbms_cloud_ai._sql_statement to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create trigger bind_role before insert on dbms_cloud_ai._feedback
    for each statement execute function dbms_cloud_ai._bind_role();
create policy feedback_role_bound on dbms_cloud_ai._feedback as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy feedback_admin_drop_role on dbms_cloud_ai._feedback for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy feedback_writer on dbms_cloud_ai._feedback to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create trigger bind_role before insert on dbms_cloud_ai._example
    for each statement execute function dbms_cloud_ai._bind_role();
create policy example_role_bound on dbms_cloud_ai._example as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy example_admin_drop_role_read on dbms_cloud_ai._example for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy example_admin_drop_role on dbms_cloud_ai._example for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
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
