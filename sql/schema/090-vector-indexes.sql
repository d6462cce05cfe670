-- Vector indexes (Oracle's CREATE_VECTOR_INDEX and friends; issue 19): documents
-- cut into chunks, each embedded with the index's profile, that narrate answers
-- from (python/src/dbms_cloud_ai/vector_indexes/).  An index and its chunks belong to their
-- owner; grant_vector_index_access lets a role (its members, or PUBLIC) read
-- them.  Like profile grants (094), a grant keeps the grantee by name and OID,
-- and its owner column lets the policies of the index and chunk tables read the
-- grants without the grant table's policies reading them back (no recursion).
create table dbms_cloud_ai._vector_index
( index_id    uuid primary key default pg_catalog.gen_random_uuid()
, owner       name not null default dbms_cloud_ai._caller()
, index_name  text not null
, description text
, status      text not null default 'ENABLED' check (status in ('ENABLED', 'DISABLED'))
, attributes  jsonb not null default '{}'
, refreshed   timestamptz          -- the last refresh that completed
, embedding_model text             -- the model the chunks were embedded with (the question's too)
, common_words text[]              -- 0.7.0; dropped below (now _vector_index_content)
, created     timestamptz not null default pg_catalog.now()
, modified    timestamptz not null default pg_catalog.now()
-- the last refresh's outcome (vector_indexes/schedule.py): a failed one is recorded by
-- pg_cron's job (refresh_vector_index_job), which rolls the refresh back; its
-- error is in _vector_index_content (090-vector-indexes-content.sql)
, last_refresh_status text check (last_refresh_status in ('OK', 'FAILED'))
, last_refresh_at     timestamptz
, unique (owner, index_name)
, unique (index_id, owner)
);
-- What an index's documents say is not on this row, which administrators read
-- (vector_index_admin_read): common_words moved to _vector_index_content in
-- 0.8.0.  Created and dropped here as an update drops it, so that a fresh
-- install numbers the columns as an updated one does (tests/packaging/test_upgrade.py).
alter table dbms_cloud_ai._vector_index drop column common_words;
comment on table dbms_cloud_ai._vector_index is
'vector indexes: where their documents come from, how they are chunked, embedded and searched';

-- One chunk of a source: source is the row's id (table sources) or the URL.
-- hash: md5 of the chunk's text and the embedding model, so a refresh embeds
-- only the chunks whose text (or model) changed.  tsv is the full-text
-- candidates' index (vector_indexes/retrieve.py); embedding is unit length (float4[]:
-- pgvector is not required).
create table dbms_cloud_ai._vector_chunk
( index_id        uuid not null
, owner           name not null default dbms_cloud_ai._caller()
, source          text not null
, chunk_no        int not null
, content         text not null
, hash            text not null
, embedding       float4[]
, embedding_model text
, tsv             tsvector generated always as (pg_catalog.to_tsvector('pg_catalog.english'::regconfig, content)) stored
, modified        timestamptz not null default pg_catalog.now()
, primary key (index_id, source, chunk_no)
, foreign key (index_id, owner) references dbms_cloud_ai._vector_index (index_id, owner)
      on delete cascade
);
create index vector_chunk_tsv on dbms_cloud_ai._vector_chunk using gin (tsv);
-- retrieval's bounded fallback: an index's newest chunks
create index vector_chunk_recent on dbms_cloud_ai._vector_chunk (index_id, modified);
comment on table dbms_cloud_ai._vector_chunk is
'the chunks of a vector index''s documents with their embeddings';

create table dbms_cloud_ai._vector_index_grant
( index_id    uuid not null
, owner       name not null default dbms_cloud_ai._caller()
, grantee     name not null
, grantee_oid oid not null
, granted     timestamptz not null default pg_catalog.now()
, primary key (index_id, grantee_oid)
, foreign key (index_id, owner) references dbms_cloud_ai._vector_index (index_id, owner)
      on delete cascade
);
create index vector_index_grant_grantee on dbms_cloud_ai._vector_index_grant (grantee_oid);
comment on table dbms_cloud_ai._vector_index_grant is
'vector indexes shared by their owner (grant_vector_index_access); grantee_oid 0 is PUBLIC';

alter table dbms_cloud_ai._vector_index enable row level security;
alter table dbms_cloud_ai._vector_index force row level security;
alter table dbms_cloud_ai._vector_chunk enable row level security;
alter table dbms_cloud_ai._vector_chunk force row level security;
alter table dbms_cloud_ai._vector_index_grant enable row level security;
alter table dbms_cloud_ai._vector_index_grant force row level security;
-- A grantee's grant lasts while its owner is the live role that made it
-- (_role_is_live, 011-caller.sql).
create policy vector_index_grant_read on dbms_cloud_ai._vector_index_grant for select
    using (owner operator(pg_catalog.=) current_user
           or ((grantee_oid operator(pg_catalog.=) 0
                or (pg_catalog.pg_get_userbyid(grantee_oid) operator(pg_catalog.=) grantee
                    and pg_catalog.pg_has_role(current_user, grantee_oid, 'USAGE')))
               and dbms_cloud_ai._role_is_live(owner)));
-- The owner's rows, and those of indexes granted to the role.
create policy vector_index_read on dbms_cloud_ai._vector_index for select
    using (owner operator(pg_catalog.=) current_user
           or exists (select from dbms_cloud_ai._vector_index_grant g
                       where g.index_id operator(pg_catalog.=) _vector_index.index_id
                         and (g.grantee_oid operator(pg_catalog.=) 0
                              or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                  and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE')))));
-- A chunk is readable with its index (vector_index_read decides: the owner, the
-- grantees; and, from 090-vector-indexes.sql, not a later role of a
-- dropped owner's name).
-- Own or granted is said again here: administrators read every index row
-- (vector_index_admin_read), never the chunks of indexes not shared with them.
create policy vector_chunk_read on dbms_cloud_ai._vector_chunk for select
    using (exists (select from dbms_cloud_ai._vector_index i
                    where i.index_id operator(pg_catalog.=) _vector_chunk.index_id)
           and (owner operator(pg_catalog.=) current_user
                or exists (select from dbms_cloud_ai._vector_index_grant g
                            where g.index_id operator(pg_catalog.=) _vector_chunk.index_id
                              and (g.grantee_oid operator(pg_catalog.=) 0
                                   or (pg_catalog.pg_get_userbyid(g.grantee_oid) operator(pg_catalog.=) g.grantee
                                       and pg_catalog.pg_has_role(current_user, g.grantee_oid, 'USAGE'))))));
-- Administrators read every index's row and attributes (Oracle's
-- DBA_CLOUD_VECTOR_INDEXES); queries that mean "own or shared with me" say so
-- themselves (the ALL_ views, narrate's lookup: vector_indexes/narrate.py).
create policy vector_index_admin_read on dbms_cloud_ai._vector_index for select
    to dbms_cloud_ai_admin using (true);
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._vector_index', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._vector_chunk', '');
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._vector_index_grant', '');

-- Role binding and the writer's policies (what they are: 012-role-binding.sql).
-- The writer (writer.py) writes the caller's own indexes, chunks and grants;
-- the foreign keys on (index_id, owner) keep chunks and grants with their
-- index's owner.
create policy vector_index_writer on dbms_cloud_ai._vector_index to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
-- A later role of a dropped owner's name reads none of its rows (012-role-binding.sql); the
-- chunks follow their index (vector_chunk_read).
create policy vector_index_role_bound on dbms_cloud_ai._vector_index as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy vector_index_admin_drop_role_read on dbms_cloud_ai._vector_index for select to dbms_cloud_ai_admin
    using (dbms_cloud_ai._role_is_stale(owner));
create policy vector_index_admin_drop_role on dbms_cloud_ai._vector_index for delete to dbms_cloud_ai_admin
    using (dbms_cloud_ai._role_is_stale(owner));
create policy vector_chunk_writer on dbms_cloud_ai._vector_chunk to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy vector_chunk_admin_drop_role_read on dbms_cloud_ai._vector_chunk for select to dbms_cloud_ai_admin
    using (dbms_cloud_ai._role_is_stale(owner));
create policy vector_chunk_admin_drop_role on dbms_cloud_ai._vector_chunk for delete to dbms_cloud_ai_admin
    using (dbms_cloud_ai._role_is_stale(owner));
-- Retrieval (vector_indexes/retrieve.py) reads chunks as dbms_cloud_ai_owner, through the
-- writer's gate, after the package has read the index as the caller (its own,
-- or one granted to it: vector_index_read).  Under a policy that depends on the
-- caller, PostgreSQL evaluates the search's full-text match (@@, not leakproof)
-- only after the policy, on every chunk of the table, and never through the GIN
-- index; under this one it does (bench/README.md: 100,000 chunks in
-- milliseconds instead of a scan).  Only package statements run as this role.
create policy vector_chunk_search on dbms_cloud_ai._vector_chunk for select to dbms_cloud_ai_owner
    using (true);
create policy vector_index_grant_writer on dbms_cloud_ai._vector_index_grant to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()));
create policy vector_index_grant_role_bound on dbms_cloud_ai._vector_index_grant as restrictive
    using (owner operator(pg_catalog.<>) current_user
           or not exists (select from dbms_cloud_ai._role_binding b
                           where b.role_name operator(pg_catalog.=) current_user
                             and b.role_oid operator(pg_catalog.<>)
                                 pg_catalog.to_regrole(pg_catalog.quote_ident(current_user))::oid));
create policy vector_index_grant_admin_drop_role_read on dbms_cloud_ai._vector_index_grant for select to dbms_cloud_ai_admin
    using (dbms_cloud_ai._role_is_stale(owner));
create policy vector_index_grant_admin_drop_role on dbms_cloud_ai._vector_index_grant for delete to dbms_cloud_ai_admin
    using (dbms_cloud_ai._role_is_stale(owner));
