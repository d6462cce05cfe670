-- pg_dump saves the rows of the tables marked above; their identity sequences
-- must be marked too, or a restored database hands out ids from 1 again: the
-- next credential or profile collides with a restored one, and the newest
-- prompt or memory sorts as the oldest.  (One call per statement: each call
-- updates the extension's catalog row.)
select pg_catalog.pg_extension_config_dump(
    pg_catalog.pg_get_serial_sequence('dbms_cloud._credential', 'credential_id')::pg_catalog.regclass, '');
select pg_catalog.pg_extension_config_dump(
    pg_catalog.pg_get_serial_sequence('dbms_cloud_ai._profile', 'profile_id')::pg_catalog.regclass, '');
select pg_catalog.pg_extension_config_dump(
    pg_catalog.pg_get_serial_sequence('dbms_cloud_ai._host_ace', 'ace_id')::pg_catalog.regclass, '');
select pg_catalog.pg_extension_config_dump(
    pg_catalog.pg_get_serial_sequence('dbms_cloud_ai._conversation_prompt', 'seq')::pg_catalog.regclass, '');
select pg_catalog.pg_extension_config_dump(
    pg_catalog.pg_get_serial_sequence('dbms_cloud_ai._example', 'example_id')::pg_catalog.regclass, '');
select pg_catalog.pg_extension_config_dump(
    pg_catalog.pg_get_serial_sequence('dbms_cloud_ai._memory', 'seq')::pg_catalog.regclass, '');
