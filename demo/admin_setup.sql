-- make demo, part 1: what a superuser (or DBA) does once per database.
-- Run by demo/run_demo.py as postgres in the demo database, with psql
-- variables need_ace (true/false), ace_host and ace_port, and need_embed_ace,
-- embed_ace_host and embed_ace_port (the local embedding server; only with need_ace).

-- The extension (CASCADE also installs plpython3u, which it needs).
CREATE EXTENSION dbms_cloud_ai CASCADE;

-- A login role for the walk-through.  dbms_cloud_ai_user is Oracle's
-- "GRANT EXECUTE ON DBMS_CLOUD_AI"; the role gets its own schema and may read
-- the sample schema sh.
CREATE ROLE demo_user LOGIN;
GRANT dbms_cloud_ai_user TO demo_user;
CREATE SCHEMA demo_user AUTHORIZATION demo_user;
GRANT USAGE ON SCHEMA sh TO demo_user;
GRANT SELECT ON ALL TABLES IN SCHEMA sh TO demo_user;
-- A second login role, with whom demo_user shares its profile (step 28).
CREATE ROLE demo_analyst LOGIN;
GRANT dbms_cloud_ai_user TO demo_analyst;
GRANT USAGE ON SCHEMA sh TO demo_analyst;
GRANT SELECT ON ALL TABLES IN SCHEMA sh TO demo_analyst;

\if :need_ace
-- The model's server is not a provider's own HTTPS API host, so an
-- administrator must allow demo_user to reach it (Oracle: APPEND_HOST_ACE).
SELECT dbms_cloud_ai.append_host_ace(host => :'ace_host', principal_name => 'demo_user',
                                     lower_port => :ace_port);
SELECT dbms_cloud_ai.append_host_ace(host => :'ace_host', principal_name => 'demo_analyst',
                                     lower_port => :ace_port);
\if :need_embed_ace
-- The local embedding server (step 30's vector index) listens on a port of its own.
SELECT dbms_cloud_ai.append_host_ace(host => :'embed_ace_host', principal_name => 'demo_user',
                                     lower_port => :embed_ace_port);
\endif
SELECT host, lower_port, upper_port, principal_name, privilege FROM dbms_cloud_ai.dba_host_aces;
\else
\echo '-- No host ACE needed: HTTPS to a provider''s own API host is allowed out of the box.'
\endif

-- Long-term memory is off by default: switch it on for this database's
-- organization.  Promotion normally waits for 15 idle minutes; the demo
-- promotes at once.  (In production: SELECT dbms_cloud_ai.schedule_memory_jobs();
-- with pg_cron, or CALL dbms_cloud_ai.run_memory_jobs() from cron.)
\if :local
\echo '-- A small local model on a laptop needs minutes per answer: calls may wait up to 10 minutes.'
SELECT dbms_cloud_ai.set_max_wait(600);
\endif

SELECT dbms_cloud_ai.enable_memory();
SELECT dbms_cloud_ai.set_memory_attribute('idle_minutes', '0');
SELECT organization, enabled, max_memories, idle_minutes, recall_tokens
  FROM dbms_cloud_ai.dba_cloud_ai_memory_settings;
