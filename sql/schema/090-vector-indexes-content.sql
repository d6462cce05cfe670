-- What a vector index's row says that comes from its documents (issue 30,
-- class 4): the common words a refresh counted (vector_indexes/refresh.py) and the last
-- failed refresh's error (vector_indexes/schedule.py: a message may quote a source's
-- values).  Administrators read every _vector_index row (Oracle's
-- DBA_CLOUD_VECTOR_INDEXES) but never the content of an index not shared with
-- them: these columns live here, under the chunks' rule (own or granted), and
-- the views join them, so the DBA_ views show NULL for the others' indexes.
-- One row per index at most, written by the owner's refreshes only (the
-- writer); it goes with its index (the foreign key).
create table dbms_cloud_ai._vector_index_content
( index_id           uuid primary key
, owner              name not null default dbms_cloud_ai._caller()
, common_words       text[]        -- lexemes in too many chunks to select candidates (vector_indexes/retrieve.py)
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

-- Role binding and the writer's policies (what they are: 012-role-binding.sql).
-- The writer (writer.py) writes the caller's own rows (refreshes: vector_indexes/refresh.py,
-- vector_indexes/schedule.py); the foreign key keeps a row with its index's owner.
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
