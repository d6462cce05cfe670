-- Accounting of model calls, and daily token budgets (python/src/dbms_cloud_ai/model/accounting.py,
-- model/budget.py).

-- Calls of this session not yet in a committed row (their statement failed):
-- accounting keeps them in the backend's memory until a later call writes them.
create function dbms_cloud_ai._pending_calls()
returns setof dbms_cloud_ai._model_call language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
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

create function dbms_cloud_ai.set_token_budget(principal_name text, daily_tokens bigint)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.set_token_budget(plpy, principal_name, daily_tokens)
$python$;
comment on function dbms_cloud_ai.set_token_budget(text, bigint) is
'Admin: daily token budget (UTC day) for a role''s own calls, or PUBLIC for the whole database; NULL removes it';
