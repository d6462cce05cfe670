"""A comparable picture of everything the extension owns in a database's catalog.

Used to prove that an updated installation ends exactly like a fresh one
(tests/packaging/test_upgrade.py).  Each entry is (kind, text) with no OIDs, so two
databases compare by value.
"""

from __future__ import annotations

SCHEMAS = "array['dbms_cloud', 'dbms_cloud_ai']"

QUERIES = {
    "schema": f"""
        select n.nspname || ' owner=' || pg_get_userbyid(n.nspowner) || ' acl=' || coalesce(n.nspacl::text, '')
              || ' comment=' || coalesce(obj_description(n.oid, 'pg_namespace'), '')
          from pg_namespace n where n.nspname = any({SCHEMAS})""",
    "relation": f"""
        select c.oid::regclass::text || ' kind=' || c.relkind::text || ' owner=' || pg_get_userbyid(c.relowner)
              || ' rls=' || c.relrowsecurity || '/' || c.relforcerowsecurity
              || ' acl=' || coalesce(c.relacl::text, '') || ' options=' || coalesce(c.reloptions::text, '')
              || ' persistence=' || c.relpersistence::text
              || ' comment=' || coalesce(obj_description(c.oid, 'pg_class'), '')
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = any({SCHEMAS})""",
    # attnum order matters: a column added by an update must land where a fresh install puts it
    "column": f"""
        select c.oid::regclass::text || '.' || a.attnum || ' ' || a.attname || ' '
              || format_type(a.atttypid, a.atttypmod) || ' notnull=' || a.attnotnull
              || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
              || ' identity=' || a.attidentity::text || ' generated=' || a.attgenerated::text
              || ' collation=' || coalesce(a.attcollation::regcollation::text, '')
              || ' acl=' || coalesce(a.attacl::text, '')
              || ' comment=' || coalesce(col_description(c.oid, a.attnum), '')
          from pg_attribute a join pg_class c on c.oid = a.attrelid
          join pg_namespace n on n.oid = c.relnamespace
          left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
         where n.nspname = any({SCHEMAS}) and a.attnum > 0 and not a.attisdropped""",
    "constraint": f"""
        select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(co.oid)
              || ' deferrable=' || condeferrable
          from pg_constraint co join pg_namespace n on n.oid = co.connamespace
         where n.nspname = any({SCHEMAS})""",
    "index": f"""
        select pg_get_indexdef(i.indexrelid)
          from pg_index i join pg_class c on c.oid = i.indexrelid
          join pg_namespace n on n.oid = c.relnamespace where n.nspname = any({SCHEMAS})""",
    "policy": f"""
        select schemaname || '.' || tablename || ' ' || policyname || ' ' || permissive || ' '
              || roles::text || ' ' || cmd || ' using=' || coalesce(qual, '')
              || ' check=' || coalesce(with_check, '')
          from pg_policies where schemaname = any({SCHEMAS})""",
    "trigger": f"""
        select pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text
          from pg_trigger t join pg_class c on c.oid = t.tgrelid
          join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = any({SCHEMAS}) and not t.tgisinternal""",
    "function": f"""
        select p.oid::regprocedure::text || ' kind=' || p.prokind::text
              || ' returns=' || coalesce(pg_get_function_result(p.oid), '')
              || ' args=' || pg_get_function_arguments(p.oid)
              || ' lang=' || l.lanname || ' secdef=' || p.prosecdef
              || ' volatile=' || p.provolatile::text || ' parallel=' || p.proparallel::text
              || ' strict=' || p.proisstrict || ' leakproof=' || p.proleakproof
              || ' cost=' || p.procost || ' rows=' || p.prorows
              || ' config=' || coalesce(p.proconfig::text, '')
              || ' owner=' || pg_get_userbyid(p.proowner) || ' acl=' || coalesce(p.proacl::text, '')
              || ' comment=' || coalesce(obj_description(p.oid, 'pg_proc'), '')
              || ' body=' || md5(p.prosrc)
          from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          join pg_language l on l.oid = p.prolang
         where n.nspname = any({SCHEMAS})""",
    "view": f"""
        select c.oid::regclass::text || ' ' || pg_get_viewdef(c.oid)
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = any({SCHEMAS}) and c.relkind in ('v', 'm')""",
    "sequence": f"""
        select s.seqrelid::regclass::text || ' ' || format_type(s.seqtypid, null) || ' start=' || s.seqstart
              || ' inc=' || s.seqincrement || ' min=' || s.seqmin || ' max=' || s.seqmax
              || ' cache=' || s.seqcache || ' cycle=' || s.seqcycle
          from pg_sequence s join pg_class c on c.oid = s.seqrelid
          join pg_namespace n on n.oid = c.relnamespace where n.nspname = any({SCHEMAS})""",
    "type": f"""
        select t.oid::regtype::text || ' type=' || t.typtype::text || ' owner=' || pg_get_userbyid(t.typowner)
              || ' acl=' || coalesce(t.typacl::text, '')
          from pg_type t join pg_namespace n on n.oid = t.typnamespace
         where n.nspname = any({SCHEMAS}) and t.typtype <> 'c'""",
    "member": """
        select pg_describe_object(d.classid, d.objid, d.objsubid)
          from pg_depend d join pg_extension e on e.oid = d.refobjid
         where d.refclassid = 'pg_extension'::regclass and d.deptype = 'e'
           and e.extname = 'dbms_cloud_ai'""",
    "dumped": """
        select x.oid::regclass::text || ' where=' || coalesce(x.cond, '')
          from pg_extension e,
               unnest(e.extconfig, e.extcondition) as x(oid, cond)
         where e.extname = 'dbms_cloud_ai'""",
    "extension": """
        select e.extname || ' ' || e.extversion || ' schema=' || e.extnamespace::regnamespace::text
              || ' relocatable=' || e.extrelocatable
          from pg_extension e where e.extname = 'dbms_cloud_ai'""",
}


def snapshot(conn) -> dict[str, list[str]]:
    """Sorted catalog entries per kind, as the superuser connection `conn` sees them."""
    return {kind: sorted(r[0] for r in conn.execute(q)) for kind, q in QUERIES.items()}


def differences(a: dict[str, list[str]], b: dict[str, list[str]]) -> list[str]:
    """Entries present in one snapshot and not the other, labelled by side."""
    out = []
    for kind in QUERIES:
        left, right = set(a[kind]), set(b[kind])
        out += [f"only fresh    {kind}: {x}" for x in sorted(left - right)]
        out += [f"only updated  {kind}: {x}" for x in sorted(right - left)]
    return out
