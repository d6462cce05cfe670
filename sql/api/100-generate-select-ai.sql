-- Natural language to SQL: Oracle's SELECT AI statement as a function, and the
-- read-only runner for generated queries (python/src/dbms_cloud_ai/nl2sql/sqlrun.py).

create function dbms_cloud_ai.select_ai(statement text,
                                        search_path text[] default pg_catalog.current_schemas(false)::text[])
returns text language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.select_ai(plpy, statement, search_path)
$python$;
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
