-- Vector indexes (Oracle's DBMS_CLOUD_AI.CREATE_VECTOR_INDEX and friends; issue 19):
-- python/src/dbms_cloud_ai/rag/, docs/reference/vector-indexes.md.  attributes
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

-- What pg_cron runs (rag/schedule.py): a failed refresh is rolled back,
-- recorded on the index and reported by a WARNING, and the job ends normally.
create function dbms_cloud_ai.refresh_vector_index_job(index_name text)
returns integer language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.refresh_vector_index_job(plpy, index_name)
$python$;
comment on function dbms_cloud_ai.refresh_vector_index_job(text) is
'refresh_vector_index as pg_cron runs it: a failure is recorded (last_refresh_status FAILED, last_refresh_error) with a WARNING instead of raised, and NULL returned';

-- Oracle's views, and the ALL_ pair with the indexes granted to the caller.
create view dbms_cloud_ai.user_cloud_vector_indexes with (security_invoker = true) as
select i.index_name, i.description, i.status, i.refreshed as last_refreshed,
       i.embedding_model,
       (select pg_catalog.count(*) from dbms_cloud_ai._vector_chunk c
         where c.index_id operator(pg_catalog.=) i.index_id) as chunks,
       i.created, i.modified, i.last_refresh_status, i.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
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
       i.last_refresh_status, i.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
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
-- their chunks.
create view dbms_cloud_ai.dba_cloud_vector_indexes with (security_invoker = true) as
select i.owner::text as owner, i.index_name, i.description, i.status,
       i.refreshed as last_refreshed, i.embedding_model, i.created, i.modified,
       i.last_refresh_status, i.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i;
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
-- over its chunks' embeddings, built when missing and those of other dimensions
-- dropped (p_dims null: all of them, as when the index goes; p_build false:
-- only drop).  Its predicate keeps out chunks of other dimensions, whose cast
-- would fail: a build also reads row versions that a refresh of another model
-- just replaced, in this transaction or one still seen by a snapshot.  CREATE INDEX on
-- _vector_chunk needs CREATE on schema dbms_cloud_ai, which only the extension's
-- owner holds, so this runs as that owner; only dbms_cloud_ai_owner may call it
-- (the package, through the writer, which passes the caller's name).  Its
-- inputs are a uuid, a count and that name: the vector index must be the
-- caller's, pgvector's schema comes from the catalog (dbms_cloud_ai_owner must
-- be able to use it: the search runs as that role), and every name and literal
-- of the DDL goes through format's %I and %L.
create function dbms_cloud_ai._vector_ann_index(p_index uuid, p_dims integer, p_build boolean, p_caller name)
returns text language plpgsql volatile parallel unsafe security definer
set search_path to pg_catalog, pg_temp
as $fn$
declare
    v_schema name;
    v_type text;
    v_name text;
    v_old name;
    v_index text;
begin
    select i.index_name into v_index from dbms_cloud_ai._vector_index i
     where i.index_id operator(pg_catalog.=) p_index and i.owner operator(pg_catalog.=) p_caller;
    if not found then
        raise exception 'vector index % is not one of %''s', p_index, p_caller
            using errcode = 'insufficient_privilege';
    end if;
    select n.nspname into v_schema
      from pg_catalog.pg_extension e
      join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) e.extnamespace
     where e.extname operator(pg_catalog.=) 'vector'
       and pg_catalog.string_to_array(e.extversion, '.')::int[] operator(pg_catalog.>=) '{0,5}'::int[]
       and pg_catalog.has_schema_privilege('dbms_cloud_ai_owner', n.oid, 'USAGE');
    v_type := case when v_schema is null or p_dims is null or p_dims operator(pg_catalog.<) 1 then null
                   when p_dims operator(pg_catalog.<=) 2000 then 'vector'
                   when p_dims operator(pg_catalog.<=) 4000 then 'halfvec' end;
    if v_type is not null then
        v_name := pg_catalog.format('vector_chunk_ann_%s_%s',
                                    pg_catalog.replace(p_index::text, '-', ''), p_dims);
    end if;
    for v_old in
        select c.relname from pg_catalog.pg_class c
         where c.relnamespace operator(pg_catalog.=) 'dbms_cloud_ai'::regnamespace
           and c.relkind operator(pg_catalog.=) 'i'
           and pg_catalog.starts_with(c.relname::text, pg_catalog.format('vector_chunk_ann_%s_',
                                              pg_catalog.replace(p_index::text, '-', '')))
           and c.relname operator(pg_catalog.<>) coalesce(v_name, '')
    loop
        execute pg_catalog.format('drop index dbms_cloud_ai.%I', v_old);
    end loop;
    if v_type is null or not p_build then
        return null;
    end if;
    if pg_catalog.to_regclass(pg_catalog.format('dbms_cloud_ai.%I', v_name)) is not null then
        return v_name;
    end if;
    -- Every partial index costs each insert into the chunks table a predicate
    -- check, and each plan over it a proof: a role's HNSW indexes are bounded.
    -- Count and build are one step per role: concurrent refreshes of its indexes
    -- queue on its role binding row until the one before commits (no ordinary
    -- role can lock that row: a locking clause needs UPDATE), so the cap holds.
    perform from dbms_cloud_ai._role_binding b
     where b.role_name operator(pg_catalog.=) p_caller for update;
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
        return null;
    end if;
    execute pg_catalog.format(
        'create index %I on dbms_cloud_ai._vector_chunk using hnsw '
        '((embedding::%I.%s(%s)) %I.%I) '
        'where index_id = %L::uuid and pg_catalog.cardinality(embedding) = %s',
        v_name, v_schema, v_type, p_dims, v_schema, v_type operator(pg_catalog.||) '_ip_ops',
        p_index, p_dims);
    return v_name;
end
$fn$;
comment on function dbms_cloud_ai._vector_ann_index(uuid, integer, boolean, name) is
'Internal: the HNSW index of a vector index, when the database has pgvector';
