-- Usage reports: model prices (python/src/dbms_cloud_ai/model/usage.py) and the usage
-- views, per UTC day, owner, action, provider and model.

create function dbms_cloud_ai.set_model_price(provider text, model text,
                                              input_per_million numeric,
                                              output_per_million numeric,
                                              currency text default 'USD')
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_model_price(plpy, provider, model, input_per_million, output_per_million, currency)
$python$;
comment on function dbms_cloud_ai.set_model_price(text, text, numeric, numeric, text) is
'Admin: price per million input and output tokens of a model (and of its dated versions); NULL prices remove it';

create view dbms_cloud_ai.model_prices with (security_invoker = true) as
select provider, model, input_per_million, output_per_million, currency, modified
  from dbms_cloud_ai._model_price;
comment on view dbms_cloud_ai.model_prices is
'Model prices per million tokens, kept by administrators (dbms_cloud_ai.set_model_price)';

create function dbms_cloud_ai.summarize_usage(recheck_days integer default 7)
returns integer language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.summarize_usage(plpy, recheck_days)
$python$;
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

create function dbms_cloud_ai.schedule_usage_summary(schedule text default '17 * * * *')
returns bigint language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.schedule_usage_summary(plpy, schedule)
$python$;
comment on function dbms_cloud_ai.schedule_usage_summary(text) is
'Run summarize_usage() on a pg_cron schedule (default hourly), as the calling administrator; returns the job id';

create function dbms_cloud_ai.unschedule_usage_summary()
returns boolean language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.unschedule_usage_summary(plpy)
$python$;
comment on function dbms_cloud_ai.unschedule_usage_summary() is
'Remove the pg_cron job made by schedule_usage_summary(); false if there was none';
