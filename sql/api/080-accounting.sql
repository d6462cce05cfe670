-- Accounting of model calls, and daily token budgets (python/src/dbms_cloud_ai/accounting.py,
-- budget.py).

-- Calls of this session not yet in a committed row (their statement failed):
-- accounting keeps them in the backend's memory until a later call writes them.
create function dbms_cloud_ai._pending_calls()
returns setof dbms_cloud_ai._model_call language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.pending_calls(plpy)
$python$;

-- Accounting rows are written only here: users hold no INSERT on the accounting
-- tables, so no role can forge a record (negative tokens, a future date, another
-- budget's total) or probe ids through unique-key errors.  It runs as
-- dbms_cloud_ai_owner and stores only what the package, in this same backend,
-- authorised a moment before with a one-time token that lives in the package's
-- memory, which no SQL role can read (python/src/dbms_cloud_ai/accounting.py).
-- Its two statements keep one generic plan per backend: planned for each call's
-- parameters, with the row-level security policies expanded, the INSERT cost
-- 350 us of planning per call (the chat benchmark's regression in 0.3.0).
create function dbms_cloud_ai._store_calls(token text, statement text, payload text)
returns text language plpython3u volatile parallel unsafe security definer
set search_path to pg_catalog, pg_temp
set plan_cache_mode to force_generic_plan
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.store_calls(plpy, token, statement, payload)
$python$;
alter function dbms_cloud_ai._store_calls(text, text, text) owner to dbms_cloud_ai_owner;
comment on function dbms_cloud_ai._store_calls(text, text, text) is
'Internal: writes the accounting records the package authorised (no direct INSERT for users)';

-- The one SECURITY DEFINER function: a database-wide budget (PUBLIC) needs
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
