-- Rows as version 0.8.0 stored them, written straight into its tables (the
-- 0.8.0 Python library is not installed next to the current one).  Frozen with
-- the 0.8.0 script: tests/test_upgrade.py loads this into a 0.8.0 database,
-- runs ALTER EXTENSION dbms_cloud_ai UPDATE and reads the rows back through
-- the current version's API.
-- 0.8.0 binds every role name that holds rows to its role (_role_binding);
-- the superuser running this seed bypasses row-level security.
insert into dbms_cloud_ai._role_binding (role_name, role_oid)
select rolname, oid from pg_catalog.pg_roles where rolname = 'alice';

insert into dbms_cloud_ai._profile (owner, profile_name, status, description, attributes,
                                    attribute_text)
values ('alice', 'OLD_P', 'ENABLED', 'made by 0.8.0',
        '{"provider": "openai", "model": "gpt-4o-mini", "conversation": "true"}',
        '{"provider": "openai", "model": "gpt-4o-mini", "conversation": "true"}');

insert into dbms_cloud_ai._conversation (conversation_id, owner, title, description, retention_days)
values ('6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0a01', 'alice', 'Old talk', 'from 0.8.0', 30);

insert into dbms_cloud_ai._conversation_prompt
       (conversation_prompt_id, conversation_id, seq, owner, profile_name, prompt_action,
        prompt, prompt_response, provider, model, prompt_version, input_tokens, output_tokens,
        latency_ms, rating, rating_comment, rated)
values ('6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0b01', '6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0a01', 1, 'alice',
        'OLD_P', 'chat', 'old question one', 'old answer one', 'openai', 'gpt-4o-mini', 'chat/1',
        11, 7, 120, 1, 'good', now()),
       ('6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0b02', '6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0a01', 2, 'alice',
        'OLD_P', 'chat', 'old question two', 'old answer two', 'openai', 'gpt-4o-mini', 'chat/1',
        13, 9, 130, null, null, null);

insert into dbms_cloud_ai._model_call
       (call_id, owner, created, profile_name, action, purpose, provider, model, prompt_version,
        input_tokens, output_tokens, latency_ms, status, conversation_id, conversation_prompt_id)
values ('6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0c01', 'alice', now(), 'OLD_P', 'chat', 'answer', 'openai',
        'gpt-4o-mini', 'chat/1', 11, 7, 120, 'ok', '6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0a01',
        '6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0b01');

insert into dbms_cloud_ai._memory
       (memory_id, organization, subject, owner, fact, fact_key, source_conversation_id,
        source_prompt_id, source_prompt_ids, embedding, embedding_model)
values ('6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0d01', current_database(), 'alice', 'alice',
        'Alice prefers metric units', 'alice prefers metric units',
        '6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0a01', '6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0b01',
        '{6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0b01}', '{0.6,0.8,0}', 'all-minilm-l6-v2');

insert into dbms_cloud_ai._model_price (provider, model, input_per_million, output_per_million)
values ('openai', 'gpt-4o-mini', 0.15, 0.60);

insert into dbms_cloud_ai._token_budget (principal, daily_tokens) values ('alice', 100000);

-- 0.8.0's data-access switch, left on (its default) so the API behaves the same.
insert into dbms_cloud_ai._data_access (enabled, modified_by) values (true, 'postgres');

-- 0.8.0's vector indexes: one of alice's with a chunk (no embedding yet, as a
-- refresh in progress leaves it), and her profile shared with bob.
insert into dbms_cloud_ai._vector_index (index_id, owner, index_name, description, attributes,
                                         last_refresh_status, last_refresh_at)
values ('6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0e01', 'alice', 'OLD_IDX', 'from 0.8.0',
        '{"location": "https://docs.example.com/handbook.txt", "profile_name": "OLD_P"}',
        null, null);
-- 0.8.0 keeps what an index derives from its documents apart (_vector_index_content).
insert into dbms_cloud_ai._vector_index_content (index_id, owner, common_words)
values ('6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0e01', 'alice', '{returns,accepted}');
insert into dbms_cloud_ai._vector_chunk (index_id, owner, source, chunk_no, content, hash)
values ('6f0b0c2e-1d2a-4c1e-9a55-0a0a0a0a0e01', 'alice', 'https://docs.example.com/handbook.txt', 0,
        'Returns are accepted within 30 days.', 'd41d8cd98f00b204e9800998ecf8427e');
insert into dbms_cloud_ai._profile_grant (profile_id, owner, grantee, grantee_oid, daily_tokens)
select p.profile_id, p.owner, r.rolname, r.oid, 50000
  from dbms_cloud_ai._profile p, pg_catalog.pg_roles r
 where p.owner = 'alice' and p.profile_name = 'OLD_P' and r.rolname = 'bob';
