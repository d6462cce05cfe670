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
-- for the subject who said it.  (Columns of 050-conversations.sql.)
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

-- Role binding and the writer's policies (what they are: 012-role-binding.sql).
create trigger bind_role before insert on dbms_cloud_ai._memory
    for each statement execute function dbms_cloud_ai._bind_role();
create policy memory_role_bound on dbms_cloud_ai._memory as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy memory_admin_drop_role_read on dbms_cloud_ai._memory for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy memory_admin_drop_role on dbms_cloud_ai._memory for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
-- A memory only in the caller's own organization (its memory role's, else the database's).
create policy memory_writer on dbms_cloud_ai._memory to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and organization operator(pg_catalog.=) (
                    select coalesce((select r.organization from dbms_cloud_ai._memory_role r
                                      where r.role_name operator(pg_catalog.=) (select dbms_cloud_ai._caller())),
                                    pg_catalog.current_database()::text)));
create trigger bind_role before insert on dbms_cloud_ai._memory_job
    for each statement execute function dbms_cloud_ai._bind_role();
create policy memory_job_role_bound on dbms_cloud_ai._memory_job as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy memory_job_admin_drop_role_read on dbms_cloud_ai._memory_job for select
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy memory_job_admin_drop_role on dbms_cloud_ai._memory_job for delete
    to dbms_cloud_ai_admin using (dbms_cloud_ai._role_is_stale(owner));
create policy memory_job_writer on dbms_cloud_ai._memory_job to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and exists (select from dbms_cloud_ai._conversation c
                             where c.conversation_id operator(pg_catalog.=) _memory_job.conversation_id
                               and c.owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())));
create trigger bind_principal before insert or update of role_name on dbms_cloud_ai._memory_role
    for each row execute function dbms_cloud_ai._bind_principal('role_name');
create policy memory_role_role_bound on dbms_cloud_ai._memory_role as restrictive
    using (role_name operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
-- What the write statements and the policies above read besides the caller's rows.
create policy memory_role_writer_read on dbms_cloud_ai._memory_role for select to dbms_cloud_ai_owner
    using (role_name operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy memory_organization_writer_read on dbms_cloud_ai._memory_organization for select
    to dbms_cloud_ai_owner using (true);
