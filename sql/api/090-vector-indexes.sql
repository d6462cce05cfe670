-- Vector indexes (Oracle's DBMS_CLOUD_AI.CREATE_VECTOR_INDEX and friends; issue 19):
-- python/src/dbms_cloud_ai/vector_indexes/, docs/reference/vector-indexes.md.  attributes
-- accepts JSON text (Oracle's CLOB) or jsonb: two overloads, as create_profile.

create function dbms_cloud_ai.create_vector_index(index_name text, attributes text, description text default null,
                                                   wait_for_completion boolean default true)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.create_vector_index(plpy, index_name, attributes, description,
                                                          wait_for_completion)
$python$;
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

create function dbms_cloud_ai.update_vector_index(index_name text, attribute_name text, attribute_value text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.update_vector_index(plpy, index_name, attribute_name, attribute_value)
$python$;
comment on function dbms_cloud_ai.update_vector_index(text, text, text) is
'Set one vector index attribute (NULL removes it); the next refresh applies it';

create function dbms_cloud_ai.update_vector_index(index_name text, attributes text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.update_vector_index_attributes(plpy, index_name, attributes)
$python$;
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
create function dbms_cloud_ai.drop_vector_index(index_name text, include_data boolean default false,
                                                 force boolean default false,
                                                 schema_name text default pg_catalog.current_schema())
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_vector_index(plpy, index_name, include_data, force,
                                                        schema_name)
$python$;
comment on function dbms_cloud_ai.drop_vector_index(text, boolean, boolean, text) is
'Drop a vector index and its grants; include_data => false (the default) first keeps its data as your table <index_name>$vectab; force => true ignores a missing index';

create function dbms_cloud_ai.enable_vector_index(index_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.enable_vector_index(plpy, index_name)
$python$;
comment on function dbms_cloud_ai.enable_vector_index(text) is
'Enable a vector index: narrate and refreshes use it again';

create function dbms_cloud_ai.disable_vector_index(index_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.disable_vector_index(plpy, index_name)
$python$;
comment on function dbms_cloud_ai.disable_vector_index(text) is
'Disable a vector index: narrate over it and its refreshes are refused';

create function dbms_cloud_ai.grant_vector_index_access(index_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.grant_vector_index_access(plpy, index_name, user_or_role_name)
$python$;
comment on function dbms_cloud_ai.grant_vector_index_access(text, text) is
'Share your vector index with a role (or PUBLIC): its profiles may name it as "OWNER"."NAME"';

create function dbms_cloud_ai.revoke_vector_index_access(index_name text, user_or_role_name text)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.revoke_vector_index_access(plpy, index_name, user_or_role_name)
$python$;
comment on function dbms_cloud_ai.revoke_vector_index_access(text, text) is
'Stop sharing your vector index with a role';

-- This extension's, not Oracle's (Oracle refreshes by its own scheduler): the
-- refresh that pg_cron runs every refresh_rate minutes, on demand.

create function dbms_cloud_ai.refresh_vector_index(index_name text)
returns integer language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.refresh_vector_index(plpy, index_name)
$python$;
comment on function dbms_cloud_ai.refresh_vector_index(text) is
'Read the sources of your vector index again and embed the chunks that changed; returns how many were embedded';

-- What pg_cron runs (vector_indexes/schedule.py): a failed refresh is rolled back,
-- recorded on the index and reported by a WARNING, and the job ends normally;
-- then, in transactions of their own, the index's HNSW index is built or
-- dropped (maintain_vector_indexes).  A procedure that commits: CALL it on its
-- own (2D000 inside a transaction block); no SET clause (the package pins
-- search_path in each of its transactions: vector_indexes/ann.py, model/detached.py).
create procedure dbms_cloud_ai.refresh_vector_index_job(index_name text, inout embedded integer default null)
language plpython3u security invoker
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.refresh_vector_index_job(plpy, index_name)
$python$;
comment on procedure dbms_cloud_ai.refresh_vector_index_job(text, integer) is
'refresh_vector_index as pg_cron runs it: a failure is recorded (last_refresh_status FAILED, last_refresh_error) with a WARNING instead of raised (embedded NULL); then the HNSW index is maintained in transactions of its own. CALL it outside a transaction block';

-- The HNSW indexes (pgvector, vector_indexes/ann.py) are built and dropped here only, each
-- DDL in a transaction of its own that commits at once: no function (refresh,
-- drop_vector_index) runs them inside its caller's transaction (issue 30,
-- class 3).  index_name: that one of your indexes, else all of yours; both
-- also drop the HNSW indexes left by vector indexes that are gone.
create procedure dbms_cloud_ai.maintain_vector_indexes(index_name text default null)
language plpython3u security invoker
as $python$
    #BOOTSTRAP
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

-- Oracle's DBMS_CLOUD_PIPELINE view, as Oracle's SDK reads it for a vector
-- index's refresh (its pipeline_name, last_execution): one row per index of
-- the caller's, Oracle's columns first, then this extension's.  pipeline_id is
-- the index's id (Oracle's is a number).
create view dbms_cloud.user_cloud_pipelines with (security_invoker = true) as
select i.index_id::text as pipeline_id,
       coalesce(i.attributes operator(pg_catalog.->>) 'pipeline_name',
                i.index_name operator(pg_catalog.||) '$VECPIPELINE') as pipeline_name,
       'LOAD'::text as pipeline_type,
       case i.status when 'ENABLED' then 'STARTED' else 'STOPPED' end as status,
       i.description, i.created, i.modified as last_modified, i.refreshed as last_execution,
       null::bigint as operation_id, null::text as status_table, 'Y'::text as oracle_maintained,
       i.index_name, i.last_refresh_status, x.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
  left join dbms_cloud_ai._vector_index_content x on x.index_id operator(pg_catalog.=) i.index_id
 where i.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud.user_cloud_pipelines is
'Your vector indexes'' refreshes as Oracle''s pipelines (USER_CLOUD_PIPELINES)';

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

-- The pgvector path (vector_indexes/ann.py): the partial HNSW index of one vector index
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
-- that commits at once (vector_indexes/ann.py), and drop_role_data, an administrator's.
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

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai.dba_cloud_vector_indexes to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.dba_cloud_vector_index_attributes to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai._vector_index to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._vector_chunk to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._vector_index_grant to dbms_cloud_ai_user;
grant select on dbms_cloud_ai._vector_index_content to dbms_cloud_ai_user;
grant select, delete on dbms_cloud_ai._vector_index to dbms_cloud_ai_admin;
grant select, delete on dbms_cloud_ai._vector_chunk to dbms_cloud_ai_admin;
grant select, delete on dbms_cloud_ai._vector_index_grant to dbms_cloud_ai_admin;
grant select, delete on dbms_cloud_ai._vector_index_content to dbms_cloud_ai_admin;
grant select on dbms_cloud_ai.user_cloud_vector_indexes to dbms_cloud_ai_user;
grant select on dbms_cloud.user_cloud_pipelines to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_vector_index_attributes to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.all_cloud_vector_indexes to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.all_cloud_vector_index_attributes to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_vector_index_grants to dbms_cloud_ai_user;
