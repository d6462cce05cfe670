-- Migration 0.8.0 -> 0.9.0: table changes only ("-- include schema/…" splices a
-- schema file in whole); build.py appends the whole api part (functions, views,
-- grants) with CREATE OR REPLACE.  New columns go at the end of their table here
-- and in sql/schema, so a fresh install and an updated one end with identical
-- catalogs (tests/packaging/test_upgrade.py).  A new table is its concern's schema file
-- (or a file of that concern: NNN-<concern>-<part>.sql), included whole, in any
-- order after what it references: the api part gives every table to
-- dbms_cloud_ai_owner (api/990-table-rules.sql) and replays the grants.

-- OCI API-key credentials (credentials.py): the kind of a credential's secret.
alter table dbms_cloud._credential add column kind text not null default 'password';

-- create_credential gains Oracle's OCI API-key form (user_ocid, tenancy_ocid,
-- private_key, fingerprint) as defaulted arguments of one function: a new signature.
drop function dbms_cloud.create_credential(text, text, text);
drop function dbms_cloud._py_create_credential(text, text, text);   -- its body (build.py)

-- The administrator's endpoint for oci profiles (model/oci_route.py).
-- include schema/014-admin-settings-endpoints.sql

-- A vector index keeps profile_name and its credential names as given, as
-- Oracle shows them, and resolves them where they are used (vector_indexes/options.py).
-- 0.8.0 stored them resolved: a name that an unquoted spelling would not give
-- back (lower or mixed case, other characters) gets its double quotes.
update dbms_cloud_ai._vector_index i
   set attributes = (select pg_catalog.jsonb_object_agg(a.key,
            case when a.key operator(pg_catalog.=) any (array['profile_name', 'credential_name',
                                                              'object_storage_credential_name'])
                      and pg_catalog.jsonb_typeof(a.value) operator(pg_catalog.=) 'string'
                      and (a.value operator(pg_catalog.#>>) '{}')
                          operator(pg_catalog.!~) '^[A-Z][A-Z0-9_$#]*$'
                 then pg_catalog.to_jsonb('"' operator(pg_catalog.||) (a.value operator(pg_catalog.#>>) '{}')
                                          operator(pg_catalog.||) '"')
                 else a.value end)
        from pg_catalog.jsonb_each(i.attributes) a)
 where i.attributes operator(pg_catalog.?|) array['profile_name', 'credential_name',
                                                  'object_storage_credential_name'];

-- Host ACEs keep Oracle's privilege names (connect, smtp, ...); append_host_ace and
-- remove_host_ace take a privilege, so their old signatures go.
alter table dbms_cloud_ai._host_ace drop constraint _host_ace_privilege_check,
    add constraint _host_ace_privilege_check
        check (privilege in ('http', 'http_proxy', 'connect', 'resolve', 'smtp', 'jdwp'));
-- (Each public function is a wrapper over its PL/Python body "_py_<name>": build.py.)
drop function dbms_cloud_ai.append_host_ace(text, text, integer, integer);
drop function dbms_cloud_ai._py_append_host_ace(text, text, integer, integer);
drop function dbms_cloud_ai.remove_host_ace(text, text, integer, integer);
drop function dbms_cloud_ai._py_remove_host_ace(text, text, integer, integer);

-- Select AI Agent (DBMS_CLOUD_AI_AGENT): its schema, the object and team-grant tables.
-- include schema/130-agents.sql

-- Select AI Agent run history (RUN_TEAM, RUN_TOOL).
-- include schema/130-agents-history.sql
