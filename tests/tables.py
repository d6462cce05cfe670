"""Every table of the extension, once: what the tests expect of it.

One row per table.  tests/security/test_tables.py fails while a table of the catalog is
missing here (a new table must be classified before anything else passes), and
the suites read their lists from here instead of keeping their own:

- role_column: the column naming whose row it is (row-level security; None:
  rows shared by all); probe_column: a harmless column an UPDATE may write;
  insert: one row for the role {o} (its parents are the acting role's own);
  access: per role (or tuple of roles), the outcome of test_rls_matrix.OPS
  (tests/security/test_rls_matrix.py, security.md 8.D1);
- dumped: pg_dump saves its rows (pg_extension_config_dump), and with them its
  identity sequences (sql/api/990-table-rules.sql);
- bookkeeping: every call writes it (a generated query's harmlessness is checked
  on the other tables: tests/safety_helpers.py);
- every table is checked by tests/security/test_isolation.py (another role sees none of
  a role's rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

USERS = ("alice", "bob", "carol")
# The six operations of test_rls_matrix.OPS: select, insert_own, insert_other,
# update_own, update_owner, delete.
OWN = ("own", "ok", "refused", "own", "refused", "own")
APPEND_ONLY = ("own", "ok", "refused", "denied", "denied", "denied")
READ_ONLY = ("own", "denied", "denied", "denied", "denied", "denied")
# Own rows and those of owners who shared a profile with the role (profile sharing).
SHARED_WITH = ("shared", "denied", "denied", "denied", "denied", "denied")
SHARED_READ = ("rows", "denied", "n/a", "denied", "n/a", "denied")
ADMIN_MANAGED = ("all", "ok", "ok", "own", "own", "all")
NOTHING = ("denied",) * 6


@dataclass(frozen=True)
class Table:
    name: str
    role_column: str | None
    probe_column: str
    insert: str
    access: dict = field(default_factory=dict)
    dumped: bool = True
    bookkeeping: bool = False    # written by every call itself (accounting, the statement log,
                                 # role bindings): tests/safety_helpers.py skips it


TABLES = {t.name: t for t in (
    # Users write nothing directly (issue 14, class 2): every write of theirs runs
    # in dbms_cloud_ai._write as dbms_cloud_ai_owner (tests/security/test_users_cannot_write.py).
    # Administrators keep table privileges for their cross-role functions.
    Table('dbms_cloud._credential', role_column="owner", probe_column="enabled",
          insert=("insert into dbms_cloud._credential (owner, credential_name, secret, key_id) "
                  "values ({o}, 'M' || gen_random_uuid(), '\\x00', 'k')"),
          access={USERS: READ_ONLY, "ai_admin": OWN}),
    # Administrators read every profile, conversation, prompt, feedback and
    # summary (the DBA_ views) and change only their own ...
    Table('dbms_cloud_ai._profile', role_column="owner", probe_column="description",
          insert=("insert into dbms_cloud_ai._profile (owner, profile_name) values ({o}, 'M' || gen_random_uuid())"),
          access={USERS: SHARED_WITH, "ai_admin": ("all",) + OWN[1:]}),
    # Grants of profiles: the owner's, and those naming the role (or a group of it, or PUBLIC).
    Table('dbms_cloud_ai._profile_grant', role_column="owner", probe_column="granted",
          insert=("insert into dbms_cloud_ai._profile_grant (profile_id, owner, grantee, grantee_oid) "
                  "select profile_id, {o}, 'carol', 0 from dbms_cloud_ai._profile where owner = {o} limit 1"),
          access={USERS: SHARED_WITH, "ai_admin": ("all", "denied", "denied", "denied", "denied", "none")}),
    # Set by administrators for any principal; a role reads what applies to it.
    Table('dbms_cloud_ai._host_ace', role_column="principal_name", probe_column="host",
          insert=("insert into dbms_cloud_ai._host_ace (host, principal_name) values ('m.example', {o})"),
          access={USERS: ("grantee",) + NOTHING[1:], "ai_admin": ADMIN_MANAGED}),
    Table('dbms_cloud_ai._conversation', role_column="owner", probe_column="description",
          insert=("insert into dbms_cloud_ai._conversation (conversation_id, owner) values (gen_random_uuid(), {o})"),
          access={USERS: READ_ONLY, "ai_admin": ("all",) + OWN[1:]}),
    # ... except that erasure deletes the prompts said by, and the memories and
    # jobs of, a memory subject of an organization they administer (all seeded
    # prompts are: the profiles have long_term_memory).
    # A prompt's owner, organization and subject are not updatable at all (erasure
    # finds a subject's prompts by them), so moving one to another owner is denied
    # by privilege before the owner trigger could refuse it.
    Table('dbms_cloud_ai._conversation_prompt', role_column="owner", probe_column="prompt",
          insert=("insert into dbms_cloud_ai._conversation_prompt (conversation_prompt_id, conversation_id, owner, "
                  "prompt_action, prompt, prompt_response) select gen_random_uuid(), c.conversation_id, {o}, 'CHAT', "
                  "'x', 'y' from dbms_cloud_ai._conversation c where c.owner = current_user limit 1"),
          access={USERS: READ_ONLY,
                  "ai_admin": ("all",) + OWN[1:4] + ("denied", "all")}),
    # Accounting is written only by the SECURITY DEFINER writer (_write):
    # users read their rows; an administrator reads all, corrects counts (UPDATE of
    # the token columns only: the matrix's UPDATE writes another column) and
    # deletes only a dropped role's rows (drop_role_data, issue 14 class 3).
    Table('dbms_cloud_ai._model_call', role_column="owner", probe_column="model",
          insert=("insert into dbms_cloud_ai._model_call (call_id, owner, created, purpose, provider, prompt_version, "
                  "latency_ms, status) values (gen_random_uuid(), {o}, now(), 'answer', 'openai', 'v', 1, 'ok')"),
          bookkeeping=True,
          access={USERS: READ_ONLY, "ai_admin": ("all",) + READ_ONLY[1:5] + ("none",)}),
    Table('dbms_cloud_ai._message_source', role_column="owner", probe_column="similarity",
          insert=("insert into dbms_cloud_ai._message_source (call_id, owner, source_kind, source_id) "
                  "values (gen_random_uuid(), {o}, 'memory', 'x')"),
          bookkeeping=True,
          access={USERS: READ_ONLY, "ai_admin": ("all",) + READ_ONLY[1:5] + ("none",)}),
    Table('dbms_cloud_ai._token_budget', role_column="principal", probe_column="daily_tokens",
          insert=("insert into dbms_cloud_ai._token_budget (principal, daily_tokens) values ({o}, 5) "
                  "on conflict do nothing"),
          access={USERS: READ_ONLY, "ai_admin": ADMIN_MANAGED}),
    # The NL2SQL log: the administrator sees only rows of erasable prompts (none here).
    Table('dbms_cloud_ai._sql_statement', role_column="owner", probe_column="sql",
          insert=("insert into dbms_cloud_ai._sql_statement (owner, sql_id, sql_text, profile_name, action, "
                  "prompt, sql) values ({o}, '0000000000000', 'x', 'P', 'SHOWSQL', 'x', 'select 1')"),
          bookkeeping=True,
          access={USERS: READ_ONLY,
                  "ai_admin": ("own", "ok", "refused", "denied", "denied", "own")}),
    Table('dbms_cloud_ai._feedback', role_column="owner", probe_column="feedback_content",
          insert=("insert into dbms_cloud_ai._feedback (feedback_id, owner, profile_name, sql_id, sql_text, question, "
                  "feedback_type) values (gen_random_uuid(), {o}, 'P', gen_random_uuid()::text, 'x', 'q', 'negative')"),
          access={USERS: READ_ONLY, "ai_admin": ("all",) + OWN[1:]}),
    Table('dbms_cloud_ai._example', role_column="owner", probe_column="question",
          insert=("insert into dbms_cloud_ai._example (owner, profile_name, source_kind, conversation_prompt_id, "
                  "question, sql, tsv) select {o}, 'P', 'rated_prompt', p.conversation_prompt_id, 'q', 'select 1', "
                  "to_tsvector('q') from dbms_cloud_ai._conversation_prompt p where p.owner = current_user "
                  "and p.prompt_action = 'CHAT' limit 1"),
          access={USERS: READ_ONLY, "ai_admin": OWN}),
    Table('dbms_cloud_ai._conversation_summary', role_column="owner", probe_column="summary",
          insert=("insert into dbms_cloud_ai._conversation_summary (conversation_id, owner) select c.conversation_id, "
                  "{o} from dbms_cloud_ai._conversation c where c.owner = current_user and c.title like '%-spare'"),
          access={USERS: READ_ONLY, "ai_admin": ("all",) + OWN[1:]}),
    Table('dbms_cloud_ai._model_price', role_column=None, probe_column="currency",
          insert=("insert into dbms_cloud_ai._model_price (provider, model, input_per_million, output_per_million) "
                  "values ('openai', 'M' || gen_random_uuid(), 1, 1)"),
          access={USERS: SHARED_READ, "ai_admin": ("rows", "ok", "n/a", "rows", "n/a", "rows")}),
    Table('dbms_cloud_ai._admin_setting', role_column=None, probe_column="value",
          insert=("insert into dbms_cloud_ai._admin_setting (setting, value) values ('max_wait', 300) "
                  "on conflict do nothing"),
          access={USERS: SHARED_READ,
                  "ai_admin": ("rows", "ok", "n/a", "rows", "n/a", "rows")}),
    Table('dbms_cloud_ai._admin_endpoint', role_column=None, probe_column="url",
          insert=("insert into dbms_cloud_ai._admin_endpoint (setting, url) "
                  "values ('oci_genai_endpoint', 'http://127.0.0.1:9') on conflict do nothing"),
          access={USERS: SHARED_READ,
                  "ai_admin": ("rows", "ok", "n/a", "rows", "n/a", "rows")}),
    Table('dbms_cloud_ai._data_access', role_column=None, probe_column="enabled",
          insert=("insert into dbms_cloud_ai._data_access (enabled) values (true) "
                  "on conflict do nothing"),
          access={USERS: SHARED_READ,
                  "ai_admin": ("rows", "ok", "n/a", "rows", "n/a", "rows")}),
    Table('dbms_cloud_ai._usage_daily', role_column="owner", probe_column="calls",
          dumped=False,
          insert=("insert into dbms_cloud_ai._usage_daily (day, owner, provider, calls, errors) "
                  "values (current_date, {o}, 'openai', 1, 0)"),
          access={USERS: READ_ONLY, "ai_admin": ADMIN_MANAGED}),
    Table('dbms_cloud_ai._usage_state', role_column=None, probe_column="summarized_at",
          dumped=False,
          insert=("insert into dbms_cloud_ai._usage_state default values on conflict do nothing"),
          access={USERS: SHARED_READ, "ai_admin": ("rows", "denied", "n/a", "rows", "n/a", "denied")}),
    # One row per role (the key): renaming one's row onto another role's collides.
    Table('dbms_cloud_ai._memory_role', role_column="role_name", probe_column="identity",
          insert=("insert into dbms_cloud_ai._memory_role (role_name, organization) values ({o}, 'acme') "
                  "on conflict do nothing"),
          access={USERS: READ_ONLY, "ai_admin": ADMIN_MANAGED[:4] + ("23505", "all")}),
    # ai_admin administers organization acme only: no other organization can be made.
    Table('dbms_cloud_ai._memory_organization', role_column=None, probe_column="enabled",
          insert=("insert into dbms_cloud_ai._memory_organization (organization) values ('M' || gen_random_uuid())"),
          access={USERS: SHARED_READ,
                  "ai_admin": ("rows", "refused", "n/a", "rows", "n/a", "rows")}),
    Table('dbms_cloud_ai._memory', role_column="owner", probe_column="fact",
          insert=("insert into dbms_cloud_ai._memory (memory_id, organization, subject, owner, fact, fact_key, "
                  "source_conversation_id, source_prompt_id, source_prompt_ids) values (gen_random_uuid(), "
                  "dbms_cloud_ai._organization(), {o}, {o}, 'f', md5(random()::text), gen_random_uuid(), "
                  "gen_random_uuid(), '{{}}')"),
          access={USERS: READ_ONLY, "ai_admin": ("all",) + OWN[1:5] + ("all",)}),
    Table('dbms_cloud_ai._memory_job', role_column="owner", probe_column="reason",
          insert=("insert into dbms_cloud_ai._memory_job (conversation_id, owner, organization, due_at) "
                  "select c.conversation_id, {o}, current_database(), now() from dbms_cloud_ai._conversation c "
                  "where c.owner = current_user and c.title like '%-spare'"),
          access={USERS: READ_ONLY, "ai_admin": ("all",) + OWN[1:5] + ("all",)}),
    # Role bindings (issue 14, class 3): a role reads its own and its groups'
    # (the writer binds it); an administrator may bind an existing role's name
    # to that role's own OID (a no-op here: all are bound), reads all, re-binds
    # only to the name's current OID and deletes only bindings of dropped roles.
    Table('dbms_cloud_ai._role_binding', role_column="role_name", probe_column="role_oid",
          insert=("insert into dbms_cloud_ai._role_binding (role_name, role_oid) select {o}, r.oid from pg_roles r "
                  "where r.rolname = {o} on conflict do nothing"),
          bookkeeping=True,
          access={USERS: ("grantee",) + NOTHING[1:],
                  "ai_admin": ("all", "ok", "ok", "own", "denied", "none")}),
    # Annotations (issue 18): a role reads its own and those of relations it may
    # read (none of the other roles' here); only the writer adds or removes them.
    Table('dbms_cloud_ai._annotation', role_column="owner", probe_column="annotation_value",
          insert=("insert into dbms_cloud_ai._annotation (owner, table_id, annotation_name) "
                  "values ({o}, 'pg_catalog.pg_class', 'M')"),
          access={USERS: READ_ONLY, "ai_admin": READ_ONLY}),
    # Vector indexes (issue 19): the owner's, and those granted to the role (as
    # profiles: the seed grants each to carol's group, like its profile).
    Table('dbms_cloud_ai._vector_index', role_column="owner", probe_column="description",
          insert=("insert into dbms_cloud_ai._vector_index (owner, index_name) "
                  "values ({o}, 'M' || gen_random_uuid())"),
          # administrators read every index (dba_cloud_vector_indexes), and delete a
          # dropped role's only (drop_role_data); never the chunks of others' indexes
          access={USERS: SHARED_WITH, "ai_admin": ("all",) + SHARED_WITH[1:5] + ("none",)}),
    Table('dbms_cloud_ai._vector_chunk', role_column="owner", probe_column="content",
          insert=("insert into dbms_cloud_ai._vector_chunk (index_id, owner, source, chunk_no, content, hash) "
                  "select index_id, {o}, 'm', 0, 'm', 'm' from dbms_cloud_ai._vector_index "
                  "where owner = {o} limit 1"),
          access={USERS: SHARED_WITH, "ai_admin": SHARED_WITH[:5] + ("none",)}),
    # What an index's row derives from its documents (issue 30, class 4): read as
    # the chunks are, so administrators see none of the others' (no "all").
    Table('dbms_cloud_ai._vector_index_content', role_column="owner", probe_column="last_refresh_error",
          insert=("insert into dbms_cloud_ai._vector_index_content (index_id, owner, common_words) "
                  "select index_id, {o}, '{{m}}' from dbms_cloud_ai._vector_index "
                  "where owner = {o} limit 1"),
          access={USERS: SHARED_WITH, "ai_admin": SHARED_WITH[:5] + ("none",)}),
    Table('dbms_cloud_ai._vector_index_grant', role_column="owner", probe_column="granted",
          insert=("insert into dbms_cloud_ai._vector_index_grant (index_id, owner, grantee, grantee_oid) "
                  "select index_id, {o}, 'carol', 0 from dbms_cloud_ai._vector_index "
                  "where owner = {o} limit 1"),
          access={USERS: SHARED_WITH, "ai_admin": SHARED_WITH[:5] + ("none",)}),
    # Select AI Agent run history (agents/history.py): written by the runs only;
    # administrators read every run and delete a dropped role's (drop_role_data)
    # and, for memory erasure, a run tied to a prompt of a memory subject (the
    # seeded runs are: memory is on for everyone); tasks and tools go by cascade.
    Table('dbms_cloud_ai._agent_team_run', role_column="owner", probe_column="user_prompt",
          insert=("insert into dbms_cloud_ai._agent_team_run (team_exec_id, owner, team_owner, team_name, "
                  "state) values (gen_random_uuid(), {o}, {o}, 'T', 'SUCCEEDED')"),
          access={USERS: READ_ONLY, "ai_admin": ("all",) + READ_ONLY[1:5] + ("all",)}),
    Table('dbms_cloud_ai._agent_task_run', role_column="owner", probe_column="result",
          insert=("insert into dbms_cloud_ai._agent_task_run (team_exec_id, task_order, owner, state) "
                  "select team_exec_id, 1 + (random() * 1e6)::int, {o}, 'SUCCEEDED' "
                  "from dbms_cloud_ai._agent_team_run where owner = current_user limit 1"),
          access={USERS: READ_ONLY, "ai_admin": ("all",) + READ_ONLY[1:5] + ("none",)}),
    Table('dbms_cloud_ai._agent_tool_run', role_column="owner", probe_column="output",
          insert=("insert into dbms_cloud_ai._agent_tool_run (invocation_id, owner, tool_name) "
                  "values (gen_random_uuid(), {o}, 'X')"),
          access={USERS: READ_ONLY, "ai_admin": ("all",) + READ_ONLY[1:5] + ("none",)}),
    # Select AI Agent's tools, tasks, agents and teams: a role reads its own and
    # the teams shared with it (seeded: shared with carol's group, as profiles);
    # administrators read all (the DBA_ views) and delete a dropped role's only.
    Table('dbms_cloud_ai._agent_object', role_column="owner", probe_column="description",
          insert=("insert into dbms_cloud_ai._agent_object (owner, object_type, object_name) "
                  "values ({o}, 'TOOL', 'M' || gen_random_uuid())"),
          access={USERS: SHARED_WITH, "ai_admin": ("all",) + SHARED_WITH[1:5] + ("none",)}),
    # Team grants: the owner's, and those naming the role (or a group of it, or PUBLIC).
    Table('dbms_cloud_ai._agent_team_grant', role_column="owner", probe_column="granted",
          insert=("insert into dbms_cloud_ai._agent_team_grant (object_id, owner, grantee, grantee_oid) "
                  "select object_id, {o}, 'carol', 0 from dbms_cloud_ai._agent_object "
                  "where owner = {o} limit 1"),
          access={USERS: SHARED_WITH, "ai_admin": ("all",) + SHARED_WITH[1:5] + ("none",)}),
    Table('dbms_cloud_ai._memory_erasure', role_column="actor", probe_column="memories",
          insert=("insert into dbms_cloud_ai._memory_erasure (erasure_id, organization, subject_digest, scope, actor, "
                  "memories, prompts, jobs) values (gen_random_uuid(), 'acme', 'd', 'memory', {o}, 0, 0, 0)"),
          access={USERS: NOTHING,
                  "ai_admin": ("own", "ok", "refused", "denied", "denied", "denied")}),
)}
