-- After 098-table-owner.sql (the role dbms_cloud_ai_owner) and 093-annotations.sql.
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
