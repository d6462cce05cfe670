-- Annotations on tables and columns (Oracle's ANNOTATIONS clause, which
-- PostgreSQL lacks): docs/reference/annotations.md.  table_name is a regclass,
-- resolved in the caller's search_path when the call is made.

create function dbms_cloud_ai.add_annotation(table_name pg_catalog.regclass, annotation_name text,
                                             annotation_value text default null,
                                             column_name text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.add_annotation(plpy, table_name, annotation_name,
                                                     annotation_value, column_name)
$python$;
comment on function dbms_cloud_ai.add_annotation(pg_catalog.regclass, text, text, text) is
'Annotate a table you own (or one of its columns): a name, or a name and a value; replaces the value of the same name';

create function dbms_cloud_ai.drop_annotation(table_name pg_catalog.regclass, annotation_name text,
                                              column_name text default null)
returns void language plpython3u volatile parallel unsafe security invoker
set search_path to pg_catalog, pg_temp
as $python$
    #BOOTSTRAP
    return GD["dbms_cloud_ai"].sqlapi.drop_annotation(plpy, table_name, annotation_name, column_name)
$python$;
comment on function dbms_cloud_ai.drop_annotation(pg_catalog.regclass, text, text) is
'Remove an annotation you added to a table or column';

-- The annotations the caller wrote and those on the relations and columns it may
-- read, of writers who still have the rights of the relation's owner.
create view dbms_cloud_ai.user_cloud_ai_annotations with (security_invoker = true) as
select n.nspname as schema_name, c.relname as table_name, a.column_name,
       a.annotation_name, a.annotation_value, a.owner as annotated_by, a.modified
  from dbms_cloud_ai._annotation a
  join pg_catalog.pg_class c on c.oid operator(pg_catalog.=) a.table_id
  join pg_catalog.pg_namespace n on n.oid operator(pg_catalog.=) c.relnamespace
  join pg_catalog.pg_roles w on w.rolname operator(pg_catalog.=) a.owner
 where pg_catalog.pg_has_role(w.oid, c.relowner, 'USAGE');
comment on view dbms_cloud_ai.user_cloud_ai_annotations is
'annotations you wrote or may see (on relations you can read), as the schema context shows them';

-- Privileges for the tables and views of this concern (functions: 999-privileges.sql).
grant select on dbms_cloud_ai._annotation to dbms_cloud_ai_user;
grant select on dbms_cloud_ai.user_cloud_ai_annotations to dbms_cloud_ai_user;
