-- A row never changes owner.  Row-level security stops a role from writing
-- rows for another role, but the administrators' erasure policies let them
-- UPDATE other roles' conversations, summaries and memory jobs (blanking titles
-- and summaries, claiming jobs), and a WITH CHECK cannot compare the new row
-- with the old one: without this, an administrator could hand alice's
-- conversation or memory job to bob (tests/security/test_rls_matrix.py).  No code path
-- changes an owner; the trigger fires only when one would.
create function dbms_cloud_ai._owner_is_fixed() returns trigger
language plpgsql security invoker
set search_path to pg_catalog, pg_temp
as $function$
begin
    raise exception using
        errcode = 'insufficient_privilege',
        message = pg_catalog.format('rows of %s cannot change owner', tg_table_name),
        hint = 'Rows belong to the role that created them.';
end
$function$;
comment on function dbms_cloud_ai._owner_is_fixed() is
'trigger: the owner column of a row never changes';

-- Every table with an owner column gets the trigger owner_is_fixed from
-- sql/api/990-table-rules.sql (catalog-driven: a new table needs no line here).
