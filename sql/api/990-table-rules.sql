-- The tables belong to dbms_cloud_ai_owner (010-roles-and-schemas.sql), whichever
-- file or migration created them: catalog-driven and idempotent, so a new table
-- needs no line here and no migration has to order its tables around it.  The
-- api files' table grants run before it; the change of owner hands the grants
-- made by the installing superuser to the new owner (the catalog is the same).
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
