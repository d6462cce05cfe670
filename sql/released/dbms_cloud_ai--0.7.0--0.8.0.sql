-- dbms_cloud_ai update script 0.7.0 -> 0.8.0: built by sql/build.py from
-- sql/updates/0.7.0--0.8.0.sql and the api part of sql/.  Do not edit by hand.
\echo Use "ALTER EXTENSION dbms_cloud_ai UPDATE TO '0.8.0'" to load this file. \quit

-- ALTER EXTENSION runs this with search_path = <the extension's schema>, pg_temp,
-- that is public: pin it before the migration binds any name.  The schemas
-- already belong to the extension (nobody else may create in them), so CREATE OR
-- REPLACE below can only meet the extension's own objects.
set local search_path to pg_catalog, pg_temp;

-- ===== sql/updates/0.7.0--0.8.0.sql =====
-- Migration 0.7.0 -> 0.8.0: table changes only ("-- include schema/…" splices a
-- schema file in whole); build.py appends the whole api part (functions, views,
-- grants) with CREATE OR REPLACE.  New columns go at the end of their table here
-- and in sql/schema, so a fresh install and an updated one end with identical
-- catalogs (tests/test_upgrade.py).  Anything that creates a table goes above
-- an include of 098-table-owner.sql; only files that create no table (099) follow it.

-- drop_vector_index gains schema_name (where include_data => false keeps the
-- data) and Oracle's default include_data => false: a new signature.
drop function dbms_cloud_ai.drop_vector_index(text, boolean, boolean);
drop function dbms_cloud_ai._py_drop_vector_index(text, boolean, boolean);   -- its body (build.py)

-- The last refresh's outcome (089-vector-indexes.sql; its error is in
-- _vector_index_content, below: issue 30, class 4).
alter table dbms_cloud_ai._vector_index
    add column last_refresh_status text check (last_refresh_status in ('OK', 'FAILED')),
    add column last_refresh_at timestamptz;

-- pg_cron jobs of vector indexes (rag/schedule.py) scheduled by 0.7.0 call
-- refresh_vector_index; 0.8.0's call refresh_vector_index_job, which records a
-- failed refresh.  Only pg_cron's own cron.job (a member of that extension): a
-- table a role planted as cron.job is never written by this superuser script.
do $cron_jobs$
begin
    if exists (select from pg_catalog.pg_depend d
                 join pg_catalog.pg_extension e on e.oid operator(pg_catalog.=) d.refobjid
                where d.classid operator(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                  and d.objid operator(pg_catalog.=) pg_catalog.to_regclass('cron.job')
                  and d.deptype operator(pg_catalog.=) 'e'
                  and e.extname operator(pg_catalog.=) 'pg_cron') then
        update cron.job
           set command = pg_catalog.replace(command, 'select dbms_cloud_ai.refresh_vector_index(',
                                            'select dbms_cloud_ai.refresh_vector_index_job(')
         where jobname operator(pg_catalog.~~) 'dbms_cloud_ai vector index %'
           and command operator(pg_catalog.~~) 'select dbms_cloud_ai.refresh_vector_index(%';
    end if;
end
$cron_jobs$;

-- Administrators read every vector index (dba_cloud_vector_indexes), not its
-- chunks: the chunk policy says own or granted itself (089-vector-indexes.sql).
alter policy vector_chunk_read on dbms_cloud_ai._vector_chunk
    using (exists (select from dbms_cloud_ai._vector_index i
                    where i.index_id operator(pg_catalog.=) _vector_chunk.index_id)
           and (owner operator(pg_catalog.=) current_user
                or exists (select from dbms_cloud_ai._vector_index_grant g
                            where g.index_id operator(pg_catalog.=) _vector_chunk.index_id
                              and (g.grantee_oid operator(pg_catalog.=) 0
                                   or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                       and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))));
create policy vector_index_admin_read on dbms_cloud_ai._vector_index for select
    to dbms_cloud_ai_admin using (true);

-- Issue 30, class 2: a shared profile or vector index is usable only while its
-- owner is the live role that made it (011-caller.sql, 089, 094, 099).
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
alter policy profile_grant_read on dbms_cloud_ai._profile_grant
    using (owner operator(pg_catalog.=) current_user
           or ((grantee_oid operator(pg_catalog.=) 0
                or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                    and pg_catalog.pg_has_role(current_user, grantee_oid, 'USAGE')))
               and dbms_cloud_ai._role_is_live(owner)));
alter policy profile_grant_shared_read on dbms_cloud_ai._profile_grant
    using ((grantee_oid operator(pg_catalog.=) 0
            or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                and pg_catalog.pg_has_role((select dbms_cloud_ai._caller()), grantee_oid, 'USAGE')))
           and dbms_cloud_ai._role_is_live(owner));
alter policy vector_index_grant_read on dbms_cloud_ai._vector_index_grant
    using (owner operator(pg_catalog.=) current_user
           or ((grantee_oid operator(pg_catalog.=) 0
                or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                    and pg_catalog.pg_has_role(current_user, grantee_oid, 'USAGE')))
               and dbms_cloud_ai._role_is_live(owner)));

-- issue 30, class 5: one tenant cannot starve or overspend another.
-- Memory jobs: a cap on each role's pending jobs (per organization), and each
-- job's timeouts, from which its owner's back-off is computed (memory/jobs.py).
alter table dbms_cloud_ai._memory_organization
    add column max_pending_jobs integer not null default 1000
        check (max_pending_jobs between 1 and 100000);
alter table dbms_cloud_ai._memory_job
    add column timeouts integer not null default 0,
    add column timed_out_at timestamptz;
create index on dbms_cloud_ai._memory_job (owner, due_at) where status operator(pg_catalog.=) 'pending';
create index on dbms_cloud_ai._memory_job (owner) where timeouts operator(pg_catalog.>) 0;
-- The owner's daily token budget for what each grantee spends through a shared
-- profile (set_profile_grant_budget; model/budget.py).
alter table dbms_cloud_ai._profile_grant
    add column daily_tokens bigint check (daily_tokens operator(pg_catalog.>=) 0);

-- issue 30, classes 3 and 4.
-- Class 4: what a vector index's row derives from its documents (common_words,
-- and the last refresh's error, above) moves to a table that administrators
-- read only for indexes shared with them, as the chunks (090-vector-index-content.sql).
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

insert into dbms_cloud_ai._vector_index_content (index_id, owner, common_words)
select i.index_id, i.owner, i.common_words from dbms_cloud_ai._vector_index i
 where i.common_words is not null;
alter table dbms_cloud_ai._vector_index drop column common_words;
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

-- Class 3: the HNSW indexes are built and dropped by procedures, each DDL in a
-- transaction of its own; pg_cron's job is the procedure refresh_vector_index_job
-- (what 0.7.0's jobs were pointed at above): CALL it.  pg_cron's own cron.job only.
do $cron_jobs_call$
begin
    if exists (select from pg_catalog.pg_depend d
                 join pg_catalog.pg_extension e on e.oid operator(pg_catalog.=) d.refobjid
                where d.classid operator(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                  and d.objid operator(pg_catalog.=) pg_catalog.to_regclass('cron.job')
                  and d.deptype operator(pg_catalog.=) 'e'
                  and e.extname operator(pg_catalog.=) 'pg_cron') then
        update cron.job
           set command = pg_catalog.replace(command, 'select dbms_cloud_ai.refresh_vector_index_job(',
                                            'call dbms_cloud_ai.refresh_vector_index_job(')
         where jobname operator(pg_catalog.~~) 'dbms_cloud_ai vector index %'
           and command operator(pg_catalog.~~) 'select dbms_cloud_ai.refresh_vector_index_job(%';
    end if;
end
$cron_jobs_call$;

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
create or replace function dbms_cloud_ai._write(token text, caller name, bound oid, mine oid)
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

create or replace function dbms_cloud._py_create_credential(credential_name text, username text, password text)
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

create or replace function dbms_cloud.create_credential(credential_name text, username text, password text)
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

create or replace function dbms_cloud._py_drop_credential(credential_name text)
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

create or replace function dbms_cloud.drop_credential(credential_name text)
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

create or replace function dbms_cloud._py_update_credential(credential_name text, attribute text, value text)
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

create or replace function dbms_cloud.update_credential(credential_name text, attribute text, value text)
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

create or replace function dbms_cloud._py_enable_credential(credential_name text)
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

create or replace function dbms_cloud.enable_credential(credential_name text)
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

create or replace function dbms_cloud._py_disable_credential(credential_name text)
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

create or replace function dbms_cloud.disable_credential(credential_name text)
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

create or replace function dbms_cloud_ai._py_create_profile(profile_name text, attributes text, status text, description text)
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

create or replace function dbms_cloud_ai.create_profile(profile_name text, attributes text default null,
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

create or replace function dbms_cloud_ai.create_profile(profile_name text, attributes jsonb,
                                             status text default null, description text default null)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.create_profile(profile_name, attributes::text, status, description);
end;
comment on function dbms_cloud_ai.create_profile(text, jsonb, text, text) is
'Create an AI profile from jsonb attributes';

create or replace function dbms_cloud_ai._py_drop_profile(profile_name text, force boolean)
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

create or replace function dbms_cloud_ai.drop_profile(profile_name text, force boolean default false)
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

create or replace function dbms_cloud_ai._py_enable_profile(profile_name text)
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

create or replace function dbms_cloud_ai.enable_profile(profile_name text)
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

create or replace function dbms_cloud_ai._py_disable_profile(profile_name text)
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

create or replace function dbms_cloud_ai.disable_profile(profile_name text)
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

create or replace function dbms_cloud_ai._py_set_attribute(profile_name text, attribute_name text, attribute_value text)
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

create or replace function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value text)
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
create or replace function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value boolean)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, boolean) is 'Set a boolean profile attribute';

create or replace function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value numeric)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, numeric) is 'Set a numeric profile attribute';

create or replace function dbms_cloud_ai.set_attribute(profile_name text, attribute_name text, attribute_value jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attribute(profile_name, attribute_name, attribute_value::text);
end;
comment on function dbms_cloud_ai.set_attribute(text, text, jsonb) is 'Set a JSON profile attribute';

create or replace function dbms_cloud_ai._py_set_attributes(profile_name text, attributes text)
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

create or replace function dbms_cloud_ai.set_attributes(profile_name text, attributes text)
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

create or replace function dbms_cloud_ai.set_attributes(profile_name text, attributes jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.set_attributes(profile_name, attributes::text);
end;
comment on function dbms_cloud_ai.set_attributes(text, jsonb) is 'Merge jsonb attributes into a profile';

create or replace function dbms_cloud_ai._profile_attribute_names()
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
create or replace function dbms_cloud_ai._py_grant_profile_access(profile_name text, user_or_role_name text)
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

create or replace function dbms_cloud_ai.grant_profile_access(profile_name text, user_or_role_name text)
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

create or replace function dbms_cloud_ai._py_revoke_profile_access(profile_name text, user_or_role_name text)
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

create or replace function dbms_cloud_ai.revoke_profile_access(profile_name text, user_or_role_name text)
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
create or replace function dbms_cloud_ai._py_set_profile_grant_budget(profile_name text, user_or_role_name text, daily_tokens bigint)
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

create or replace function dbms_cloud_ai.set_profile_grant_budget(profile_name text, user_or_role_name text,
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

create or replace function dbms_cloud_ai._py_set_profile(profile_name text)
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

create or replace function dbms_cloud_ai.set_profile(profile_name text)
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

create or replace function dbms_cloud_ai._py_get_profile()
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

create or replace function dbms_cloud_ai.get_profile()
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

create or replace function dbms_cloud_ai._py_clear_profile()
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

create or replace function dbms_cloud_ai.clear_profile()
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

create or replace function dbms_cloud_ai._py_append_host_ace(host text, principal_name text, lower_port integer, upper_port integer)
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

create or replace function dbms_cloud_ai.append_host_ace(host text, principal_name text default 'PUBLIC',
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

create or replace function dbms_cloud_ai._py_remove_host_ace(host text, principal_name text, lower_port integer, upper_port integer)
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

create or replace function dbms_cloud_ai.remove_host_ace(host text, principal_name text default 'PUBLIC',
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

create or replace function dbms_cloud_ai._py_generate(prompt text, profile_name text, action text, attributes text, params text, search_path text[])
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

create or replace function dbms_cloud_ai.generate(prompt text, profile_name text default null,
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

create or replace function dbms_cloud_ai.generate(prompt text, profile_name text, action text,
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
create or replace function dbms_cloud_ai._call_identity()
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

create or replace function dbms_cloud_ai._require_call_identity(expected text, procedure_name text)
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
create or replace procedure dbms_cloud_ai.generate_detached(prompt text, profile_name text default null,
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

create or replace function dbms_cloud_ai._py_create_conversation(attributes text)
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

create or replace function dbms_cloud_ai.create_conversation(attributes text default null)
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

create or replace function dbms_cloud_ai.create_conversation(attributes jsonb)
returns text language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.create_conversation(attributes::text);
end;
comment on function dbms_cloud_ai.create_conversation(jsonb) is 'create_conversation() with jsonb attributes';

-- Oracle's procedure form also makes the new conversation the session's current
-- one.  PostgreSQL cannot have a procedure with the function's signature, so
-- the procedure has the id as an INOUT argument: CALL ...(attributes => '{}', conversation_id => NULL).
create or replace procedure dbms_cloud_ai.create_conversation(attributes text, inout conversation_id text)
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

create or replace function dbms_cloud_ai._py_update_conversation(conversation_id text, attributes text)
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

create or replace function dbms_cloud_ai.update_conversation(conversation_id text, attributes text)
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

create or replace function dbms_cloud_ai.update_conversation(conversation_id text, attributes jsonb)
returns void language sql volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
begin atomic
    select dbms_cloud_ai.update_conversation(conversation_id, attributes::text);
end;
comment on function dbms_cloud_ai.update_conversation(text, jsonb) is 'update_conversation() with jsonb attributes';

create or replace function dbms_cloud_ai._py_drop_conversation(conversation_id text, force boolean)
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

create or replace function dbms_cloud_ai.drop_conversation(conversation_id text, force boolean default false)
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

create or replace function dbms_cloud_ai._py_delete_conversation_prompt(conversation_prompt_id text, force boolean)
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

create or replace function dbms_cloud_ai.delete_conversation_prompt(conversation_prompt_id text, force boolean default false)
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

create or replace function dbms_cloud_ai._py_set_conversation_id(conversation_id text)
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

create or replace function dbms_cloud_ai.set_conversation_id(conversation_id text)
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

create or replace function dbms_cloud_ai._py_get_conversation_id()
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

create or replace function dbms_cloud_ai.get_conversation_id()
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

create or replace function dbms_cloud_ai._py_clear_conversation_id()
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

create or replace function dbms_cloud_ai.clear_conversation_id()
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

create or replace function dbms_cloud_ai._py_add_conversation_tag(conversation_id text, tag_key text, tag_value text)
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

create or replace function dbms_cloud_ai.add_conversation_tag(conversation_id text, tag_key text, tag_value text)
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

create or replace function dbms_cloud_ai._py_remove_conversation_tag(conversation_id text, tag_key text, force boolean)
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

create or replace function dbms_cloud_ai.remove_conversation_tag(conversation_id text, tag_key text, force boolean default false)
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
create or replace function dbms_cloud_ai._purge_conversations_batch(batch_size integer)
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

create or replace procedure dbms_cloud_ai.purge_expired_conversations(batch_size integer default 10000,
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

create or replace function dbms_cloud_ai._session_conversation_prompts()
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

create or replace function dbms_cloud_ai._py_schedule_conversation_purge(schedule text, batch_size integer)
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

create or replace function dbms_cloud_ai.schedule_conversation_purge(schedule text default '*/10 * * * *',
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

create or replace function dbms_cloud_ai._py_unschedule_conversation_purge()
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

create or replace function dbms_cloud_ai.unschedule_conversation_purge()
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
create or replace function dbms_cloud_ai._session_table()
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

create or replace function dbms_cloud_ai._py_select_ai(statement text, search_path text[])
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

create or replace function dbms_cloud_ai.select_ai(statement text,
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
create or replace function dbms_cloud_ai._run_readonly(query text, path text, max_rows int8, max_bytes int8)
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
create or replace function dbms_cloud_ai._release_advisory_locks(before text[])
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
create or replace function dbms_cloud_ai._pending_calls()
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
create or replace function dbms_cloud_ai._tokens_used_today()
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

create or replace function dbms_cloud_ai._py_set_token_budget(principal_name text, daily_tokens bigint)
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

create or replace function dbms_cloud_ai.set_token_budget(principal_name text, daily_tokens bigint)
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

create or replace function dbms_cloud_ai._py_set_max_wait(seconds float8)
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

create or replace function dbms_cloud_ai.set_max_wait(seconds float8)
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
create or replace function dbms_cloud_ai._py_enable_data_access()
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

create or replace function dbms_cloud_ai.enable_data_access()
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

create or replace function dbms_cloud_ai._py_disable_data_access()
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

create or replace function dbms_cloud_ai.disable_data_access()
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

create or replace function dbms_cloud_ai.data_access_enabled()
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
create or replace function dbms_cloud_ai._py_feedback(profile_name text, sql_id text, sql_text text, feedback_type text, response text, feedback_content text, operation text, search_path text[])
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

create or replace function dbms_cloud_ai.feedback(profile_name text, sql_id text default null,
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

create or replace function dbms_cloud_ai._py_rate_prompt(conversation_prompt_id text, rating integer, rating_comment text)
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

create or replace function dbms_cloud_ai.rate_prompt(conversation_prompt_id text, rating integer,
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

create or replace function dbms_cloud_ai._py_export_negative_feedback(profile_name text, all_users boolean)
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

create or replace function dbms_cloud_ai.export_negative_feedback(profile_name text default null,
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

create or replace function dbms_cloud_ai._py_sql_id(sql_text text)
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

create or replace function dbms_cloud_ai.sql_id(sql_text text)
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

create or replace view dbms_cloud_ai.user_cloud_ai_sql_statements with (security_invoker = true) as
select s.sql_id, s.sql_text, s.profile_name, s.action, s.prompt, s.sql, s.created,
       pg_catalog.upper(s.conversation_prompt_id::text) as conversation_prompt_id
  from dbms_cloud_ai._sql_statement s
 where s.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_sql_statements is
'Your NL2SQL statements (runsql, showsql, explainsql, narrate) with their SQL_ID, for FEEDBACK';

create or replace view dbms_cloud_ai.user_cloud_ai_feedback with (security_invoker = true) as
select pg_catalog.upper(f.feedback_id::text) as feedback_id, f.profile_name, f.sql_id, f.sql_text,
       f.action, f.question, f.feedback_type, f.generated_sql, f.response, f.corrected_by,
       f.feedback_content, f.created, f.modified
  from dbms_cloud_ai._feedback f
 where f.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_feedback is 'Your FEEDBACK records';

create or replace view dbms_cloud_ai.dba_cloud_ai_feedback with (security_invoker = true) as
select pg_catalog.upper(f.feedback_id::text) as feedback_id, f.owner::text as owner, f.profile_name,
       f.sql_id, f.sql_text, f.action, f.question, f.feedback_type, f.generated_sql, f.response,
       f.corrected_by, f.feedback_content, f.created, f.modified
  from dbms_cloud_ai._feedback f;
comment on view dbms_cloud_ai.dba_cloud_ai_feedback is 'Every role''s FEEDBACK records (dbms_cloud_ai_admin only)';

-- Negative ratings and negative feedback, each with the question, the answer
-- given, the correction (feedback only) and the comment: material for a test suite.
create or replace view dbms_cloud_ai.user_cloud_ai_negative_feedback with (security_invoker = true) as
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

create or replace view dbms_cloud_ai.dba_cloud_ai_negative_feedback with (security_invoker = true) as
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
create or replace view dbms_cloud_ai.user_cloud_ai_conversation_summaries with (security_invoker = true) as
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

create or replace view dbms_cloud_ai.dba_cloud_ai_conversation_summaries with (security_invoker = true) as
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

create or replace function dbms_cloud_ai._py_set_model_price(provider text, model text, input_per_million numeric, output_per_million numeric, currency text)
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

create or replace function dbms_cloud_ai.set_model_price(provider text, model text,
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

create or replace view dbms_cloud_ai.model_prices with (security_invoker = true) as
select provider, model, input_per_million, output_per_million, currency, modified
  from dbms_cloud_ai._model_price;
comment on view dbms_cloud_ai.model_prices is
'Model prices per million tokens, kept by administrators (dbms_cloud_ai.set_model_price)';

create or replace function dbms_cloud_ai._py_summarize_usage(recheck_days integer)
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

create or replace function dbms_cloud_ai.summarize_usage(recheck_days integer default 7)
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
create or replace function dbms_cloud_ai._usage_live_from()
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
create or replace view dbms_cloud_ai._usage with (security_invoker = true) as
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

create or replace view dbms_cloud_ai.user_cloud_ai_usage with (security_invoker = true) as
select day, action, provider, model, calls, errors, error_rate, input_tokens, output_tokens,
       latency_p50_ms, latency_p95_ms, rating_balance, cost, currency
  from dbms_cloud_ai._usage
 where owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_usage is
'Your model calls per UTC day, action, provider and model: calls, errors, tokens, latency, ratings, cost';

create or replace view dbms_cloud_ai.dba_cloud_ai_usage with (security_invoker = true) as
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

create or replace function dbms_cloud_ai._py_schedule_usage_summary(schedule text)
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

create or replace function dbms_cloud_ai.schedule_usage_summary(schedule text default '17 * * * *')
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

create or replace function dbms_cloud_ai._py_unschedule_usage_summary()
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

create or replace function dbms_cloud_ai.unschedule_usage_summary()
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

create or replace function dbms_cloud_ai._py_summarize(content text, location_uri text, credential_name text, profile_name text, user_prompt text, params text, prompt text, parameters text)
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

create or replace function dbms_cloud_ai.summarize(content text default null, location_uri text default null,
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

create or replace function dbms_cloud_ai._py_translate(profile_name text, text text, source_language text, target_language text)
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

create or replace function dbms_cloud_ai.translate(profile_name text default null, text text default null,
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

create or replace function dbms_cloud_ai._py_set_end_user(subject text, is_local boolean)
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

create or replace function dbms_cloud_ai.set_end_user(subject text, is_local boolean default false)
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

create or replace function dbms_cloud_ai.memory_identity()
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

create or replace function dbms_cloud_ai._py_enable_memory(organization text)
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

create or replace function dbms_cloud_ai.enable_memory(organization text default null)
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

create or replace function dbms_cloud_ai._py_disable_memory(organization text)
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

create or replace function dbms_cloud_ai.disable_memory(organization text default null)
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

create or replace function dbms_cloud_ai._py_set_memory_attribute(attribute_name text, attribute_value text, organization text)
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

create or replace function dbms_cloud_ai.set_memory_attribute(attribute_name text, attribute_value text,
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

create or replace function dbms_cloud_ai._py_set_memory_role(role_name text, organization text, identity text)
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

create or replace function dbms_cloud_ai.set_memory_role(role_name text, organization text default null,
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

create or replace function dbms_cloud_ai._py_delete_memory(memory_id text)
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

create or replace function dbms_cloud_ai.delete_memory(memory_id text)
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

create or replace function dbms_cloud_ai._py_erase_memories(subject text, organization text, memory_id text)
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

create or replace function dbms_cloud_ai.erase_memories(subject text, organization text default null,
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

create or replace function dbms_cloud_ai._claim_memory_jobs(batch_size integer, run_token text)
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
create or replace function dbms_cloud_ai._run_memory_job(conversation_id text, run_token text)
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
create or replace procedure dbms_cloud_ai._run_memory_job_detached(conversation_id text, run_token text,
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

create or replace function dbms_cloud_ai._fail_memory_job(conversation_id text, run_token text, sqlstate text)
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

create or replace procedure dbms_cloud_ai.run_memory_jobs(batch_size integer default 100,
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

create or replace function dbms_cloud_ai._py_schedule_memory_jobs(schedule text, batch_size integer)
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

create or replace function dbms_cloud_ai.schedule_memory_jobs(schedule text default '* * * * *',
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

create or replace function dbms_cloud_ai._py_unschedule_memory_jobs()
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

create or replace function dbms_cloud_ai.unschedule_memory_jobs()
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
create or replace view dbms_cloud_ai.user_cloud_ai_memories with (security_invoker = true) as
select pg_catalog.upper(m.memory_id::text) as memory_id, m.fact,
       pg_catalog.upper(m.source_conversation_id::text) as conversation_id,
       pg_catalog.upper(m.source_prompt_id::text) as conversation_prompt_id, m.created
  from dbms_cloud_ai._memory m, dbms_cloud_ai.memory_identity() i
 where m.organization operator(pg_catalog.=) i.organization
   and m.subject operator(pg_catalog.=) i.subject
   and m.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_memories is
'What long-term memory remembers about you (the session''s end user)';

create or replace view dbms_cloud_ai.dba_cloud_ai_memories with (security_invoker = true) as
select m.organization, m.subject, m.owner::text as owner, pg_catalog.upper(m.memory_id::text) as memory_id,
       m.fact, pg_catalog.upper(m.source_conversation_id::text) as conversation_id,
       pg_catalog.upper(m.source_prompt_id::text) as conversation_prompt_id, m.created
  from dbms_cloud_ai._memory m;
comment on view dbms_cloud_ai.dba_cloud_ai_memories is
'Memories of the organizations you administer (dbms_cloud_ai_admin only)';

create or replace view dbms_cloud_ai.user_cloud_ai_memory_jobs with (security_invoker = true) as
select pg_catalog.upper(j.conversation_id::text) as conversation_id, j.subject, j.status, j.reason,
       j.due_at, j.attempts, j.facts_proposed, j.facts_stored, j.facts_rejected,
       j.facts_duplicate, j.facts_evicted, j.finished
  from dbms_cloud_ai._memory_job j
 where j.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_memory_jobs is
'Memory promotion of your conversations: when it is due, how it ended and why';

create or replace view dbms_cloud_ai.dba_cloud_ai_memory_jobs with (security_invoker = true) as
select j.organization, j.subject, j.owner::text as owner,
       pg_catalog.upper(j.conversation_id::text) as conversation_id, j.status, j.reason,
       j.due_at, j.attempts, j.facts_proposed, j.facts_stored, j.facts_rejected,
       j.facts_duplicate, j.facts_evicted, j.finished
  from dbms_cloud_ai._memory_job j;
comment on view dbms_cloud_ai.dba_cloud_ai_memory_jobs is
'Memory promotion jobs of the organizations you administer (dbms_cloud_ai_admin only)';

create or replace view dbms_cloud_ai.dba_cloud_ai_memory_erasures with (security_invoker = true) as
select e.erasure_id, e.organization, e.subject_digest, e.scope, e.actor::text as actor,
       e.memories, e.prompts, e.jobs, e.erased
  from dbms_cloud_ai._memory_erasure e;
comment on view dbms_cloud_ai.dba_cloud_ai_memory_erasures is
'Erasures: when, by whom, how much; the subject only as sha256(organization || NUL || subject)';

create or replace view dbms_cloud_ai.dba_cloud_ai_memory_settings with (security_invoker = true) as
select o.organization, o.enabled, o.max_memories, o.idle_minutes, o.recall_tokens, o.modified,
       o.modified_by::text as modified_by, o.max_pending_jobs
  from dbms_cloud_ai._memory_organization o;
comment on view dbms_cloud_ai.dba_cloud_ai_memory_settings is
'Long-term memory switch and limits per organization (no row: off, defaults)';

create or replace view dbms_cloud_ai.dba_cloud_ai_memory_roles with (security_invoker = true) as
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

create or replace function dbms_cloud_ai.drop_role_data(role_name text)
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

create or replace function dbms_cloud_ai.rebind_role(role_name text)
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

create or replace function dbms_cloud_ai._py_add_annotation(table_name pg_catalog.regclass, annotation_name text, annotation_value text, column_name text)
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

create or replace function dbms_cloud_ai.add_annotation(table_name pg_catalog.regclass, annotation_name text,
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

create or replace function dbms_cloud_ai._py_drop_annotation(table_name pg_catalog.regclass, annotation_name text, column_name text)
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

create or replace function dbms_cloud_ai.drop_annotation(table_name pg_catalog.regclass, annotation_name text,
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
create or replace view dbms_cloud_ai.user_cloud_ai_annotations with (security_invoker = true) as
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

create or replace function dbms_cloud_ai._py_generate_synthetic_data(profile_name text, object_name text, owner_name text, record_count integer, user_prompt text, params text, search_path text[])
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

create or replace function dbms_cloud_ai.generate_synthetic_data(
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

create or replace function dbms_cloud_ai._py_generate_synthetic_data(profile_name text, object_list text, params text)
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

create or replace function dbms_cloud_ai.generate_synthetic_data(
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

create or replace function dbms_cloud_ai._py_create_vector_index(index_name text, attributes text, description text, wait_for_completion boolean)
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

create or replace function dbms_cloud_ai.create_vector_index(index_name text, attributes text, description text default null,
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

create or replace function dbms_cloud_ai.create_vector_index(index_name text, attributes jsonb,
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

create or replace function dbms_cloud_ai._py_update_vector_index(index_name text, attribute_name text, attribute_value text)
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

create or replace function dbms_cloud_ai.update_vector_index(index_name text, attribute_name text, attribute_value text)
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

create or replace function dbms_cloud_ai._py_update_vector_index(index_name text, attributes text)
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

create or replace function dbms_cloud_ai.update_vector_index(index_name text, attributes text)
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

create or replace function dbms_cloud_ai.update_vector_index(index_name text, attributes jsonb)
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
create or replace function dbms_cloud_ai._py_drop_vector_index(index_name text, include_data boolean, force boolean, schema_name text)
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

create or replace function dbms_cloud_ai.drop_vector_index(index_name text, include_data boolean default false,
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

create or replace function dbms_cloud_ai._py_enable_vector_index(index_name text)
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

create or replace function dbms_cloud_ai.enable_vector_index(index_name text)
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

create or replace function dbms_cloud_ai._py_disable_vector_index(index_name text)
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

create or replace function dbms_cloud_ai.disable_vector_index(index_name text)
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

create or replace function dbms_cloud_ai._py_grant_vector_index_access(index_name text, user_or_role_name text)
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

create or replace function dbms_cloud_ai.grant_vector_index_access(index_name text, user_or_role_name text)
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

create or replace function dbms_cloud_ai._py_revoke_vector_index_access(index_name text, user_or_role_name text)
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

create or replace function dbms_cloud_ai.revoke_vector_index_access(index_name text, user_or_role_name text)
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

create or replace function dbms_cloud_ai._py_refresh_vector_index(index_name text)
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

create or replace function dbms_cloud_ai.refresh_vector_index(index_name text)
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
create or replace procedure dbms_cloud_ai.refresh_vector_index_job(index_name text, inout embedded integer default null)
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
create or replace procedure dbms_cloud_ai.maintain_vector_indexes(index_name text default null)
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
create or replace view dbms_cloud_ai.user_cloud_vector_indexes with (security_invoker = true) as
select i.index_name, i.description, i.status, i.refreshed as last_refreshed,
       i.embedding_model,
       (select pg_catalog.count(*) from dbms_cloud_ai._vector_chunk c
         where c.index_id operator(pg_catalog.=) i.index_id) as chunks,
       i.created, i.modified, i.last_refresh_status, x.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
  left join dbms_cloud_ai._vector_index_content x on x.index_id operator(pg_catalog.=) i.index_id
 where i.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_vector_indexes is 'Your vector indexes';

create or replace view dbms_cloud_ai.user_cloud_vector_index_attributes with (security_invoker = true) as
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
create or replace function dbms_cloud_ai._vector_index_usable(p_index uuid, p_owner name)
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

create or replace view dbms_cloud_ai.all_cloud_vector_indexes with (security_invoker = true) as
select i.owner::text as owner, i.index_name, i.description, i.status,
       i.refreshed as last_refreshed, i.embedding_model, i.created, i.modified,
       i.last_refresh_status, x.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
  left join dbms_cloud_ai._vector_index_content x on x.index_id operator(pg_catalog.=) i.index_id
 where dbms_cloud_ai._vector_index_usable(i.index_id, i.owner);
comment on view dbms_cloud_ai.all_cloud_vector_indexes is
'Your vector indexes and those shared with you';

create or replace view dbms_cloud_ai.all_cloud_vector_index_attributes with (security_invoker = true) as
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
create or replace view dbms_cloud_ai.dba_cloud_vector_indexes with (security_invoker = true) as
select i.owner::text as owner, i.index_name, i.description, i.status,
       i.refreshed as last_refreshed, i.embedding_model, i.created, i.modified,
       i.last_refresh_status, x.last_refresh_error, i.last_refresh_at
  from dbms_cloud_ai._vector_index i
  left join dbms_cloud_ai._vector_index_content x on x.index_id operator(pg_catalog.=) i.index_id;
comment on view dbms_cloud_ai.dba_cloud_vector_indexes is
'All vector indexes (dbms_cloud_ai_admin only)';

create or replace view dbms_cloud_ai.dba_cloud_vector_index_attributes with (security_invoker = true) as
select i.owner::text as owner, i.index_name, a.key as attribute_name,
       case pg_catalog.jsonb_typeof(a.value) when 'string' then a.value operator(pg_catalog.#>>) '{}'
            else a.value::text end as attribute_value
  from dbms_cloud_ai._vector_index i
 cross join pg_catalog.jsonb_each(i.attributes) a;
comment on view dbms_cloud_ai.dba_cloud_vector_index_attributes is
'The attributes of all vector indexes (dbms_cloud_ai_admin only)';

create or replace view dbms_cloud_ai.user_cloud_vector_index_grants with (security_invoker = true) as
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
create or replace function dbms_cloud_ai._vector_ann_lock_nowait(p_share boolean)
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
create or replace function dbms_cloud_ai._vector_ann_step(p_index uuid, p_caller name)
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
create or replace function dbms_cloud_ai._vector_ann_drop_gone(p_indexes uuid[])
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

create or replace view dbms_cloud.user_credentials with (security_invoker = true) as
select credential_name, username, enabled, created, modified
  from dbms_cloud._credential
 where owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud.user_credentials is 'Your credentials (never the secret)';

create or replace view dbms_cloud_ai.user_cloud_ai_profiles with (security_invoker = true) as
select profile_id, profile_name, status, description, created, last_modified
  from dbms_cloud_ai._profile
 where owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profiles is 'Your AI profiles';

create or replace view dbms_cloud_ai.dba_cloud_ai_profiles with (security_invoker = true) as
select profile_id, profile_name, owner::text as owner, status, description, created, last_modified
  from dbms_cloud_ai._profile;
comment on view dbms_cloud_ai.dba_cloud_ai_profiles is 'All AI profiles (dbms_cloud_ai_admin only)';

-- Attribute values as Oracle shows them: the text the user gave (create_profile,
-- set_attribute(s)); for values set before 0.6.0, strings as such, other values as JSON.
create or replace view dbms_cloud_ai.user_cloud_ai_profile_attributes with (security_invoker = true) as
select p.profile_id, p.profile_name, a.key as attribute_name,
       coalesce(p.attribute_text operator(pg_catalog.->>) a.key,
                case pg_catalog.jsonb_typeof(a.value)
                     when 'string' then a.value operator(pg_catalog.#>>) '{}'
                     else a.value::text end) as attribute_value
  from dbms_cloud_ai._profile p
 cross join lateral pg_catalog.jsonb_each(p.attributes) a
 where p.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profile_attributes is 'Attributes of your AI profiles';

create or replace view dbms_cloud_ai.dba_cloud_ai_profile_attributes with (security_invoker = true) as
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
create or replace view dbms_cloud_ai.all_cloud_ai_profiles with (security_invoker = true) as
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

create or replace view dbms_cloud_ai.all_cloud_ai_profile_attributes with (security_invoker = true) as
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

create or replace view dbms_cloud_ai.user_cloud_ai_profile_grants with (security_invoker = true) as
select p.profile_name, g.grantee::text as grantee, g.granted, g.daily_tokens
  from dbms_cloud_ai._profile_grant g
  join dbms_cloud_ai._profile p on p.profile_id operator(pg_catalog.=) g.profile_id
 where g.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_profile_grants is
'Whom your AI profiles are shared with (dbms_cloud_ai.grant_profile_access)';

create or replace view dbms_cloud_ai.dba_cloud_ai_profile_grants with (security_invoker = true) as
select g.owner::text as owner, p.profile_name, g.grantee::text as grantee, g.granted,
       g.daily_tokens
  from dbms_cloud_ai._profile_grant g
  join dbms_cloud_ai._profile p on p.profile_id operator(pg_catalog.=) g.profile_id;
comment on view dbms_cloud_ai.dba_cloud_ai_profile_grants is
'Every shared AI profile and its grantees (dbms_cloud_ai_admin only)';

create or replace view dbms_cloud_ai.profile_attribute_names with (security_invoker = true) as
select attribute_name, default_value, description from dbms_cloud_ai._profile_attribute_names();
comment on view dbms_cloud_ai.profile_attribute_names is 'Every profile attribute, its default and meaning';

create or replace view dbms_cloud_ai.user_host_aces with (security_invoker = true) as
select host, lower_port, upper_port, principal_name, privilege, created
  from dbms_cloud_ai._host_ace;
comment on view dbms_cloud_ai.user_host_aces is
'Host ACEs that apply to you (all of them for dbms_cloud_ai_admin)';

create or replace view dbms_cloud_ai.dba_host_aces with (security_invoker = true) as
select ace_id, host, lower_port, upper_port, principal_name, privilege, created, created_by
  from dbms_cloud_ai._host_ace;
comment on view dbms_cloud_ai.dba_host_aces is 'All host ACEs (dbms_cloud_ai_admin only)';

-- Conversations: Oracle's columns; ids as upper-case GUIDs; expired ones are gone.
-- An untitled conversation shows Oracle's 'New Conversation' until its first turn names it.
create or replace view dbms_cloud_ai.user_cloud_ai_conversations with (security_invoker = true) as
select pg_catalog.upper(c.conversation_id::text) as conversation_id,
       coalesce(c.title, 'New Conversation') as conversation_title,
       c.description, c.created, c.modified, c.retention_days, c.conversation_length, c.tags
  from dbms_cloud_ai._conversation c
 where c.owner operator(pg_catalog.=) current_user
   and (c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now());
comment on view dbms_cloud_ai.user_cloud_ai_conversations is 'Your conversations';

create or replace view dbms_cloud_ai.dba_cloud_ai_conversations with (security_invoker = true) as
select pg_catalog.upper(c.conversation_id::text) as conversation_id, c.owner::text as owner,
       coalesce(c.title, 'New Conversation') as conversation_title,
       c.description, c.created, c.modified, c.retention_days,
       c.conversation_length, c.tags
  from dbms_cloud_ai._conversation c
 where c.expires_at is null or c.expires_at operator(pg_catalog.>) pg_catalog.now();
comment on view dbms_cloud_ai.dba_cloud_ai_conversations is 'All conversations (dbms_cloud_ai_admin only)';

create or replace view dbms_cloud_ai.user_cloud_ai_conversation_prompts with (security_invoker = true) as
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

create or replace view dbms_cloud_ai.dba_cloud_ai_conversation_prompts with (security_invoker = true) as
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

create or replace view dbms_cloud_ai.session_cloud_ai_conversation_prompts with (security_invoker = true) as
select prompt_number, profile_name, prompt_action, prompt, prompt_response, created
  from dbms_cloud_ai._session_conversation_prompts();
comment on view dbms_cloud_ai.session_cloud_ai_conversation_prompts is
'This session''s short-term conversation (profiles with "conversation": true); gone at session end';

-- Model calls: every request the extension sent, with what it cost.  Yours
-- include this session's calls whose statement failed (still in memory, see
-- model/accounting.py) until a later call stores them.
create or replace view dbms_cloud_ai.user_cloud_ai_calls with (security_invoker = true) as
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

create or replace view dbms_cloud_ai.dba_cloud_ai_calls with (security_invoker = true) as
select pg_catalog.upper(m.call_id::text) as call_id, m.owner::text as owner, m.created,
       m.profile_name, m.action, m.purpose, m.provider, m.model, m.prompt_version,
       m.input_tokens, m.output_tokens, m.tokens_estimated, m.latency_ms, m.attempts, m.status,
       m.error_sqlstate, m.http_status, pg_catalog.upper(m.conversation_id::text) as conversation_id,
       pg_catalog.upper(m.conversation_prompt_id::text) as conversation_prompt_id
  from dbms_cloud_ai._model_call m;
comment on view dbms_cloud_ai.dba_cloud_ai_calls is 'Every model request of every role (dbms_cloud_ai_admin only)';

create or replace view dbms_cloud_ai.user_cloud_ai_message_sources with (security_invoker = true) as
select pg_catalog.upper(s.call_id::text) as call_id,
       pg_catalog.upper(s.conversation_prompt_id::text) as conversation_prompt_id,
       s.source_kind, s.source_id, s.similarity
  from dbms_cloud_ai._message_source s
 where s.owner operator(pg_catalog.=) current_user;
comment on view dbms_cloud_ai.user_cloud_ai_message_sources is
'The retrieved context (feedback examples, memories) each answer used, with its similarity';

create or replace view dbms_cloud_ai.user_cloud_ai_token_budgets with (security_invoker = true) as
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
