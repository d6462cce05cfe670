-- Usage reports (sql/api/060-accounting-usage.sql): the prices an administrator keeps for
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

-- Role binding and the writer's policies (what they are: 012-role-binding.sql).
create policy usage_daily_role_bound on dbms_cloud_ai._usage_daily as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
