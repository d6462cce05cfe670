-- dbms_cloud_ai install script: built by sql/build.py from the files in sql/.
-- Do not edit extension/dbms_cloud_ai--*.sql by hand.
\echo Use "CREATE EXTENSION dbms_cloud_ai" to load this file. \quit

-- CREATE EXTENSION runs this script with search_path = <the extension's schema>,
-- pg_temp, that is public (pg_catalog implicitly first): a role that may create
-- objects in public could otherwise plant a better-matching function or operator
-- for an unqualified name used in a CHECK, DEFAULT, view or BEGIN ATOMIC body,
-- and the catalog would bind it.  SET LOCAL lasts until the script ends (CREATE
-- EXTENSION restores the caller's setting); update scripts start with the same
-- line (build.py); tests/security/test_install_hygiene.py.  Objects are schema-qualified too.
set local search_path to pg_catalog, pg_temp;
