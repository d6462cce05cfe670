-- dbms_cloud_ai install script: built by sql/build.py from the files in sql/.
-- Do not edit extension/dbms_cloud_ai--*.sql by hand.
\echo Use "CREATE EXTENSION dbms_cloud_ai" to load this file. \quit

-- CREATE EXTENSION already runs this script with search_path = pg_catalog, pg_temp
-- ahead of anything a user could plant; every object below is schema-qualified.
