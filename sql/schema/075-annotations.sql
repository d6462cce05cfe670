-- Annotations (issue 18; Oracle's ANNOTATIONS clause on tables and columns):
-- names, or name-value pairs, that the schema context shows the model when the
-- profile's attribute annotations is true (nl2sql/schema_context.py).  A row
-- belongs to the role that wrote it (owner); only a role with the rights of the
-- annotated relation's owner writes one (dbms_cloud_ai.add_annotation, checked
-- there and by the writer's policy below).
-- table_id is a regclass: it follows a rename, and pg_dump saves it by name, so
-- a restore finds the table again.  Rows of a dropped table stay behind unseen:
-- the schema context and the view show a row only while its table exists and
-- its writer still has the rights of the table's owner (an OID reused by another
-- role's table does not inherit them).
-- column_name is a name, not an attribute number (pg_dump renumbers columns
-- after a dropped one): a renamed column leaves its annotations behind.
create table dbms_cloud_ai._annotation
( owner            name not null default dbms_cloud_ai._caller()
, table_id         pg_catalog.regclass not null
, column_name      name
, annotation_name  text not null
                   check (annotation_name operator(pg_catalog.~) '^[A-Za-z_][A-Za-z0-9_$#]{0,127}$')
, annotation_value text check (pg_catalog.length(annotation_value) operator(pg_catalog.<=) 1000)
, modified         timestamptz not null default pg_catalog.now()
);
-- One value per name and column (or table) for each writer; two writers never
-- collide, so a unique-key error tells nobody about another role's rows.
create unique index annotation_key on dbms_cloud_ai._annotation
    (owner, table_id, (coalesce(column_name, ''::name)), annotation_name);
comment on table dbms_cloud_ai._annotation is
'annotations (names or name-value pairs) on tables and columns, shown to the model when a profile has annotations true';

alter table dbms_cloud_ai._annotation enable row level security;
alter table dbms_cloud_ai._annotation force row level security;
-- A role reads its own annotations and those of the relations (and columns) it
-- may read itself: the schema context shows the owner's annotations to readers.
create policy annotation_read on dbms_cloud_ai._annotation for select
    using (owner operator(pg_catalog.=) current_user
           or ((pg_catalog.has_table_privilege(table_id, 'SELECT')
                and column_name is null)
               or exists (select from pg_catalog.pg_attribute a
                           where a.attrelid operator(pg_catalog.=) table_id
                             and a.attname operator(pg_catalog.=) column_name
                             and a.attnum operator(pg_catalog.>) 0 and not a.attisdropped
                             and pg_catalog.has_column_privilege(table_id, a.attnum, 'SELECT'))
               or (column_name is null
                   and pg_catalog.has_any_column_privilege(table_id, 'SELECT'))));
select pg_catalog.pg_extension_config_dump('dbms_cloud_ai._annotation', '');

-- Role binding and the writer's policies (what they are: 012-role-binding.sql).
-- The writer (writer.py) adds and removes the caller's annotations, and adds one
-- only while the caller has the rights of the annotated relation's owner
-- (add_annotation checks the same first, for a clear message).
create policy annotation_writer on dbms_cloud_ai._annotation to dbms_cloud_ai_owner
    using (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller()))
    with check (owner operator(pg_catalog.=) (select dbms_cloud_ai._caller())
                and coalesce(pg_catalog.pg_has_role((select dbms_cloud_ai._caller()),
                                                    (select c.relowner from pg_catalog.pg_class c
                                                      where c.oid operator(pg_catalog.=) table_id),
                                                    'USAGE'), false));
