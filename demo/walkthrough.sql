-- make demo, part 2: Select AI for PostgreSQL as an ordinary user (demo_user).
--
-- demo/run_demo.py runs this file with psql --echo-queries, so every statement
-- is printed before its result.  It passes:
--   cred_user       the credential's username (Oracle uses the provider name)
--   profile_attrs   the profile's attributes as JSON (provider, model, ...)
--   offline         true when the model is tools/fake_llm.py with the canned
--                   answers of demo/answers.json, false for a real model
--   has_embeddings  true when embed_attrs names a server that embeds (the
--   embed_attrs     scripted endpoint, or the local embedding server): step 30
--   timeout         how long one model call and one statement may take (30s; a
--                   small local model on a laptop needs minutes: 300s)
--   question        DEMO_QUESTION, a question of the reader's own, asked when
--   has_question    is true
--   and, in the environment only, DEMO_CREDENTIAL_PASSWORD: the API key (a
--   dummy key in offline mode), which is never echoed.
--
-- To replay parts of it yourself, connect with the psql command that
-- `make demo` prints at the end and paste the statements.

\set ON_ERROR_STOP 0
\set VERBOSITY default
-- Errors raised in PL/Python carry a Python traceback as CONTEXT: not shown.
\set SHOW_CONTEXT never
\set QUIET on
\pset pager off
\pset null '(null)'
-- Long answers wrap at 100 columns.
\pset format wrapped
\pset columns 100
\set QUIET off

\echo '-- How long one model call may take, retries included (the default is 120 s):'
SET dbms_cloud_ai.http_timeout = :'timeout';

\echo
\echo '==> 1. Store the API key as a credential (DBMS_CLOUD.CREATE_CREDENTIAL)'
\echo '-- The key comes from the environment and this statement is not echoed, so'
\echo '-- the secret never appears on screen.  What runs is:'
\echo 'SELECT dbms_cloud.create_credential(credential_name => ''DEMO_CRED'', username => ''':cred_user''', password => ''********'');'
\getenv api_key DEMO_CREDENTIAL_PASSWORD
\set ECHO none
SELECT dbms_cloud.create_credential(credential_name => 'DEMO_CRED', username => :'cred_user', password => :'api_key');
\unset api_key
\set ECHO queries

\echo
\echo '==> 2. Credentials are write-only: the view has no password column, and there is no way to read the key back'
SELECT credential_name, username, enabled FROM dbms_cloud.user_credentials;

\echo
\echo '==> 3. Create an AI profile: which provider, model and credential to use (DBMS_CLOUD_AI.CREATE_PROFILE)'
SELECT dbms_cloud_ai.create_profile(
         profile_name => 'DEMO_PROFILE',
         attributes   => :'profile_attrs',
         description  => 'Created by make demo');

\echo
\echo '==> 4. Your profiles and their attributes (USER_CLOUD_AI_PROFILES, USER_CLOUD_AI_PROFILE_ATTRIBUTES)'
SELECT profile_name, status, description FROM dbms_cloud_ai.user_cloud_ai_profiles;
SELECT attribute_name, attribute_value
  FROM dbms_cloud_ai.user_cloud_ai_profile_attributes
 WHERE profile_name = 'DEMO_PROFILE'
 ORDER BY attribute_name;
\echo '-- Every attribute a profile may have, with its default:'
SELECT attribute_name, default_value FROM dbms_cloud_ai.profile_attribute_names
 WHERE attribute_name IN ('provider', 'model', 'temperature', 'max_tokens', 'provider_endpoint');

\echo
\echo '==> 5. Make it the session''s profile (SET_PROFILE / GET_PROFILE)'
SELECT dbms_cloud_ai.set_profile('DEMO_PROFILE');
SELECT dbms_cloud_ai.get_profile();

\echo
\echo '==> 6. Ask the model (GENERATE with action => ''chat'')'
SELECT dbms_cloud_ai.generate('What is 4 + 4 ?', 'DEMO_PROFILE', 'chat') AS answer;
SELECT dbms_cloud_ai.generate(
         prompt       => 'In two sentences: what does the PostgreSQL extension dbms_cloud_ai do?',
         profile_name => 'DEMO_PROFILE',
         action       => 'chat') AS answer;
\echo '-- Without profile_name, the session''s profile (step 5) is used:'
SELECT dbms_cloud_ai.generate('Suggest a name for a new trail running shoe. One line.', action => 'chat') AS answer;
\echo '-- A busy server: the same call as a procedure that commits before asking, so nothing'
\echo '-- (no snapshot, no transaction) is held while the model answers and VACUUM goes on:'
CALL dbms_cloud_ai.generate_detached('What is 4 + 4 ?', 'DEMO_PROFILE', 'chat');

\echo
\echo '==> 7. One call per row: the sentiment of product reviews, joined to the sample schema sh'
CREATE TABLE product_reviews (
    review_id integer PRIMARY KEY,
    prod_id   integer NOT NULL,
    review    text NOT NULL
);
INSERT INTO product_reviews VALUES
  (1, 1,  'Comfortable from the first run, great grip on wet trails.'),
  (2, 6,  'The strap broke after two weeks. Very disappointed.'),
  (3, 4,  'Does the job. Nothing special, nothing wrong.'),
  (4, 8,  'Best racket I have ever owned, my serve has never been better!'),
  (5, 13, 'Arrived late and two of the tent poles were bent.');
SELECT p.prod_name, r.review,
       dbms_cloud_ai.generate('What is the sentiment of this product review? '
                              || 'Answer with one word: positive, negative or neutral. Review: '
                              || r.review,
                              'DEMO_PROFILE', 'chat') AS sentiment
  FROM product_reviews r JOIN sh.products p USING (prod_id)
 ORDER BY r.review_id;

\echo
\echo '==> 8. Change one attribute (SET_ATTRIBUTE): a lower temperature for steadier answers'
SELECT dbms_cloud_ai.set_attribute('DEMO_PROFILE', 'temperature', '0.2');
SELECT attribute_name, attribute_value
  FROM dbms_cloud_ai.user_cloud_ai_profile_attributes
 WHERE profile_name = 'DEMO_PROFILE' AND attribute_name = 'temperature';
SELECT dbms_cloud_ai.generate('Write a one-line slogan for our outdoor sports shop.',
                              'DEMO_PROFILE', 'chat') AS answer;

\echo
\echo '==> 9. A named conversation (CREATE_CONVERSATION): each turn sends the earlier ones as context'
SELECT dbms_cloud_ai.create_conversation('{"title": "Trail shoes", "retention_days": 30}') AS conversation_id \gset
\echo 'returned conversation_id =' :conversation_id
SELECT dbms_cloud_ai.set_conversation_id(:'conversation_id');
SELECT dbms_cloud_ai.generate('Which of our products is best for wet trails?', 'DEMO_PROFILE', 'chat') AS answer;
SELECT dbms_cloud_ai.generate('And what does it cost?', 'DEMO_PROFILE', 'chat') AS answer;
SELECT conversation_title, retention_days FROM dbms_cloud_ai.user_cloud_ai_conversations;
SELECT prompt_action, prompt, prompt_response
  FROM dbms_cloud_ai.user_cloud_ai_conversation_prompts ORDER BY created;
-- Come back to it later, from any session, with set_conversation_id or params:
SELECT dbms_cloud_ai.clear_conversation_id();

\echo
\echo '==> 10. A session conversation: with "conversation": true the session keeps its last 10 prompts'
SELECT dbms_cloud_ai.set_attribute('DEMO_PROFILE', 'conversation', 'true');
SELECT dbms_cloud_ai.generate('My name is Sam and I run trails on weekends.', 'DEMO_PROFILE', 'chat') AS answer;
SELECT dbms_cloud_ai.generate('What did I say I do on weekends?', 'DEMO_PROFILE', 'chat') AS answer;
SELECT prompt_number, prompt_action, prompt FROM dbms_cloud_ai.session_cloud_ai_conversation_prompts;
SELECT dbms_cloud_ai.set_attribute('DEMO_PROFILE', 'conversation', 'false');

\echo
\echo '==> 11. Natural language to SQL: tell the profile which tables it may query'
\echo '-- object_list [{"owner": "sh"}] is the whole sample schema sh (Oracle''s upper-case "SH" works too);'
\echo '-- comments and constraints add the table and column comments and the keys to what the model'
\echo '-- is told, which helps it pick the right columns and joins.'
SELECT dbms_cloud_ai.set_attributes('DEMO_PROFILE',
         '{"object_list": [{"owner": "sh"}], "comments": true, "constraints": true}');
\echo '-- runsql and narrate run the query the model wrote. Once a query runs, only statement_timeout'
\echo '-- can stop it, so without a finite one they refuse to start (SQLSTATE 55000). The 30 s also'
\echo '-- bound the model calls of each statement.'
SET statement_timeout = :'timeout';
\echo '-- The answers below are multi-line text; \\pset format unaligned prints them as they are:'
\pset format unaligned

\echo
\echo '==> 12. SELECT AI showsql: the SQL for a question, checked but not run'
\echo '-- dbms_cloud_ai.select_ai(''<action> <question>'') is Oracle''s SELECT AI statement; it uses the'
\echo '-- session''s profile (step 5).'
SELECT dbms_cloud_ai.select_ai('showsql How many customers do we have in each region?') AS sql;
\if :offline
\echo '-- The offline model wrote Oracle SQL: FROM "SH"."CUSTOMERS" c JOIN "SH"."COUNTRIES" co ON'
\echo '-- co."COUNTRY_ID" = ...  The quoted upper-case names were matched to PostgreSQL''s lower-case'
\echo '-- ones; the query was parsed, checked (one read-only query over sh only) and laid out.'
\endif

\echo
\echo '==> 13. SELECT AI showprompt: what the model is sent for that question (no model call)'
\echo '-- A JSON array of messages. One line per message: an introduction, a CREATE TABLE (with'
\echo '-- COMMENT ON statements and keys) for each table of sh, then the rules and the question:'
\pset format wrapped
SELECT m.ord AS msg, m.msg->>'role' AS role,
       split_part(split_part(m.msg->>'content', E'\n', 1), '. ', 1) AS starts_with
  FROM jsonb_array_elements(dbms_cloud_ai.select_ai(
         'showprompt How many customers do we have in each region?')::jsonb)
       WITH ORDINALITY AS m(msg, ord);
\echo '-- The last message in full:'
\pset format unaligned
SELECT dbms_cloud_ai.select_ai('showprompt How many customers do we have in each region?')::jsonb
       -> -1 ->> 'content' AS last_message;

\echo
\echo '==> 14. SELECT AI runsql, the default action: run the query, rows as Oracle''s JSON'
SELECT dbms_cloud_ai.select_ai('How much has each customer in Germany spent?') AS result;
\if :offline
\echo '-- The offline model used Oracle''s NVL(SUM(s."AMOUNT_SOLD"), 0); it was transpiled to COALESCE.'
\endif
\echo '-- The query ran read-only, as demo_user, under the statement_timeout, and was rolled back.'

\echo
\echo '==> 15. The same through GENERATE, in named notation as in Oracle (action => ''runsql'')'
SELECT dbms_cloud_ai.generate(prompt       => 'What are our three best-selling products by revenue?',
                              profile_name => 'DEMO_PROFILE',
                              action       => 'runsql') AS result;

\echo
\echo '==> 16. SELECT AI explainsql: the query, and the model explains it (a second model call)'
SELECT dbms_cloud_ai.select_ai('explainsql Which customers have never bought anything?') AS explanation;

\echo
\echo '==> 17. SELECT AI narrate: the query runs, and the model answers from its rows (a second call)'
SELECT dbms_cloud_ai.select_ai('narrate Which sales channel brought in the most revenue?') AS answer;

\echo
\echo '==> 18. A follow-up question: with "conversation": true the model sees the earlier questions and SQL'
SELECT dbms_cloud_ai.set_attribute('DEMO_PROFILE', 'conversation', 'true');
SELECT dbms_cloud_ai.select_ai('Which country has the most customers?') AS result;
\echo '-- "those customers" only makes sense after the question before:'
SELECT dbms_cloud_ai.select_ai('List those customers with the cities they live in.') AS result;
\echo '-- The session''s last prompts (step 10''s chat turns too); for runsql and showsql the response'
\echo '-- kept is the SQL, as in Oracle:'
\pset format wrapped
SELECT prompt_number AS "#", prompt_action AS action, prompt,
       left(regexp_replace(prompt_response, '\s+', ' ', 'g'), 28) || '...' AS response
  FROM dbms_cloud_ai.session_cloud_ai_conversation_prompts ORDER BY 1;
SELECT dbms_cloud_ai.set_attribute('DEMO_PROFILE', 'conversation', 'false');

\echo
\echo '==> 19. In psql: runsql''s rows as an ordinary table with the real column names, in one step'
\echo '-- End the showsql call with \\gexec instead of a semicolon:'
\echo '--   SELECT dbms_cloud_ai.select_ai(''showsql What are our three best-selling products by revenue?'') \\gexec'
\echo '-- psql runs the query it returns (checked: one read-only query) as a normal statement. Below:'
\echo '-- the call (echoed without its \\gexec), the query it returned, and its rows.'
SELECT dbms_cloud_ai.select_ai('showsql What are our three best-selling products by revenue?') \gexec

\echo
\echo '==> 20. Only reading queries run: anything else is refused before it reaches PostgreSQL (expected error)'
\if :offline
\echo '-- The offline model answers this one with DELETE FROM sh.customers ...'
\else
\echo '-- A real model usually answers with a SELECT instead (the rules forbid writing); a DELETE is refused:'
\endif
SELECT dbms_cloud_ai.select_ai('Delete the customers who have never bought anything.') AS result;
\echo '-- SQLSTATE of that statement:' :SQLSTATE

\echo
\echo '==> 21. Mistakes give an error with a DETAIL and a HINT (this error is expected)'
SELECT dbms_cloud_ai.generate('What is 4 + 4 ?', 'DEMO_PROFILE', action => 'dance');

\echo
\echo '==> 22. What each model call cost (beyond Oracle): purpose, model, tokens, latency, status'
\pset format aligned
SELECT created::time(0) AS at, action, purpose, model, input_tokens AS tokens_in,
       output_tokens AS tokens_out, latency_ms, status
  FROM dbms_cloud_ai.user_cloud_ai_calls ORDER BY created DESC LIMIT 8;

\echo
\echo '==> 23. Rate an answer (+1 or -1, with a comment): good NL2SQL answers become examples for similar questions'
SELECT dbms_cloud_ai.rate_prompt(p.conversation_prompt_id, 1, 'right answer')
  FROM dbms_cloud_ai.user_cloud_ai_conversation_prompts p
 WHERE p.prompt_action = 'CHAT' ORDER BY p.created LIMIT 1;
SELECT prompt_action, left(prompt, 40) AS prompt, rating, rating_comment
  FROM dbms_cloud_ai.user_cloud_ai_conversation_prompts WHERE rating IS NOT NULL;

\echo
\echo '==> 24. Long-term memory (beyond Oracle): the profile opts in, and you state a durable fact in a conversation'
SELECT dbms_cloud_ai.set_attribute('DEMO_PROFILE', 'long_term_memory', 'true');
SELECT * FROM dbms_cloud_ai.memory_identity();
SELECT dbms_cloud_ai.create_conversation('{"title": "Contact preferences"}') AS setup_conversation \gset
SELECT dbms_cloud_ai.generate('From now on, email me at demo.user@example.com and never phone me.',
       'DEMO_PROFILE', 'chat', params => json_build_object('conversation_id', :'setup_conversation')::text)
       AS answer;

\echo
\echo '==> 25. Promotion: once the conversation is idle, a job extracts the durable facts, each citing the message it came from'
CALL dbms_cloud_ai.run_memory_jobs();
SELECT status, reason, facts_proposed, facts_stored, facts_rejected FROM dbms_cloud_ai.user_cloud_ai_memory_jobs;
SELECT left(memory_id, 8) AS memory, fact, left(conversation_id, 8) AS from_conversation
  FROM dbms_cloud_ai.user_cloud_ai_memories;

\echo
\echo '==> 26. A new conversation: its first turn receives what you stated before'
SELECT dbms_cloud_ai.create_conversation('{"title": "Later"}') AS later_conversation \gset
SELECT dbms_cloud_ai.generate('How should you contact me?', 'DEMO_PROFILE', 'chat',
       params => json_build_object('conversation_id', :'later_conversation')::text) AS answer;
SELECT s.source_kind, m.fact
  FROM dbms_cloud_ai.user_cloud_ai_message_sources s
  JOIN dbms_cloud_ai.user_cloud_ai_memories m ON m.memory_id = upper(s.source_id)
 WHERE s.source_kind = 'memory';

\echo
\echo '==> 27. Forget it: a deleted memory is never recalled again (disable_memory() would only pause memory)'
SELECT dbms_cloud_ai.delete_memory(memory_id) FROM dbms_cloud_ai.user_cloud_ai_memories;
SELECT count(*) AS memories_left FROM dbms_cloud_ai.user_cloud_ai_memories;

\echo
\echo '==> 28. Synthetic data (GENERATE_SYNTHETIC_DATA): the model invents rows that fit the table; each is inserted as you'
CREATE TABLE demo_user.shoe_testers (
    id        int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name      text NOT NULL,
    city      text NOT NULL,
    weekly_km int NOT NULL CHECK (weekly_km BETWEEN 5 AND 200),
    email     text UNIQUE
);
SELECT dbms_cloud_ai.generate_synthetic_data(
         profile_name => 'DEMO_PROFILE', object_name => 'shoe_testers', owner_name => 'demo_user',
         record_count => 5, user_prompt => 'trail runners who test our new shoes') AS counts;
SELECT * FROM demo_user.shoe_testers ORDER BY id;

\echo
\echo '==> 29. Share the profile with another role (GRANT_PROFILE_ACCESS): it uses your key, never sees it'
SELECT dbms_cloud_ai.grant_profile_access(profile_name => 'DEMO_PROFILE', user_or_role_name => 'demo_analyst');
SELECT profile_name, grantee FROM dbms_cloud_ai.user_cloud_ai_profile_grants;
\echo '-- Now as demo_analyst (psql \\c): the shared profile is "OWNER"."NAME"'
\c - demo_analyst
SET dbms_cloud_ai.http_timeout = :'timeout';
SELECT owner, profile_name, status FROM dbms_cloud_ai.all_cloud_ai_profiles;
SELECT count(*) AS credentials_demo_analyst_can_see FROM dbms_cloud.user_credentials;
SELECT dbms_cloud_ai.generate('How many customers do we have in each region?',
                              profile_name => '"demo_user"."DEMO_PROFILE"', action => 'showsql') AS sql;
\echo '-- The call is demo_analyst''s own: its accounting, its budget; demo_user sees none of it'
SELECT profile_name, action, purpose, status FROM dbms_cloud_ai.user_cloud_ai_calls;
\c - demo_user
SET dbms_cloud_ai.http_timeout = :'timeout';
SELECT dbms_cloud_ai.set_profile('DEMO_PROFILE');
SELECT dbms_cloud_ai.revoke_profile_access('DEMO_PROFILE', 'demo_analyst');

\echo
\echo '==> 30. A vector index over your documents (CREATE_VECTOR_INDEX), and narrate answering from it with its sources'
\if :has_embeddings
CREATE TABLE demo_user.handbook (id int PRIMARY KEY, body text NOT NULL);
INSERT INTO demo_user.handbook VALUES
  (1, 'Returns: unworn shoes come back within 60 days with the receipt. Worn trail shoes come back within 14 days, only if they failed.'),
  (2, 'Holidays: staff ask for holidays at least four weeks ahead, through the shift planner.'),
  (3, 'Warranty: soles and uppers carry a two-year warranty against manufacturing defects.');
\echo '-- The index''s own profile embeds its chunks, and each question asked over it: here one on'
\echo '-- an embeddings server, while the chat model may be one that does not embed.'
SELECT dbms_cloud_ai.create_profile('DEMO_EMBED', :'embed_attrs');
SELECT dbms_cloud_ai.create_vector_index(
         index_name => 'HANDBOOK',
         attributes => '{"location": "table:demo_user.handbook(id, body)", "profile_name": "DEMO_EMBED", "match_limit": 2}');
SELECT index_name, status, embedding_model, chunks FROM dbms_cloud_ai.user_cloud_vector_indexes;
\echo '-- With pgvector, its HNSW index is built outside any transaction of yours: by this call, or'
\echo '-- by the pg_cron job of refresh_rate. Until then narrate searches by words and meaning.'
CALL dbms_cloud_ai.maintain_vector_indexes();
\echo '-- A chat profile that answers from the index: narrate embeds the question through DEMO_EMBED.'
SELECT dbms_cloud_ai.create_profile('HANDBOOK_QA',
         :'profile_attrs'::jsonb || '{"vector_index_name": "HANDBOOK", "enable_sources": true}'::jsonb);
SELECT dbms_cloud_ai.generate('How long do I have to return worn trail shoes?', 'HANDBOOK_QA', 'narrate') AS answer;
SELECT source_kind, source_id, round(similarity::numeric, 2) AS similarity
  FROM dbms_cloud_ai.user_cloud_ai_message_sources WHERE source_kind = 'document';
\else
\echo '-- A vector index needs a server that embeds as well as this chat model: see'
\echo '-- docs/reference/vector-indexes.md; make demo without a key (the local model and the'
\echo '-- local embedding server) or DEMO_OFFLINE=1 make demo runs these steps.'
\endif

\echo
\echo '==> 31. Select AI Agent (DBMS_CLOUD_AI_AGENT): tools, tasks, agents and a team; RUN_TEAM answers by calling the tools'
\echo '-- A SQL tool asks NL2SQL questions through a profile (validated, read-only, as you); a function'
\echo '-- tool is an ordinary SQL function of yours: the model''s JSON arguments are checked against its'
\echo '-- signature, and it runs as you, in a subtransaction, under a time limit.'
\echo '-- (A new session since step 29: generated SQL runs only under a finite statement_timeout.)'
SET statement_timeout = :'timeout';
CREATE FUNCTION demo_user.times_ten(n numeric) RETURNS numeric LANGUAGE sql AS 'SELECT n * 10';
SELECT dbms_cloud_ai_agent.create_tool('SHOP',
         '{"instruction": "Answers a question about the shop''s database (customers, products, countries)",
           "tool_type": "SQL", "tool_params": {"profile_name": "DEMO_PROFILE"}}');
SELECT dbms_cloud_ai_agent.create_tool('TIMES_TEN',
         '{"instruction": "Multiplies a number by ten", "function": "times_ten",
           "tool_inputs": [{"name": "n", "description": "the number"}]}');
SELECT dbms_cloud_ai_agent.create_agent('ANALYST',
         '{"profile_name": "DEMO_PROFILE", "enable_human_tool": false,
           "role": "You use the tools you are given and answer tersely."}');
\echo '-- Two tasks: {query} is the prompt of RUN_TEAM; "input" hands the first task''s result to the second.'
SELECT dbms_cloud_ai_agent.create_task('COUNT',
         '{"instruction": "Use the SHOP tool to answer this question: {query} Then reply with the number only.",
           "tools": ["SHOP"], "enable_human_tool": false}');
SELECT dbms_cloud_ai_agent.create_task('SCALE',
         '{"instruction": "Call the tool TIMES_TEN with n set to the number in the earlier result. Reply with its result only.",
           "tools": ["TIMES_TEN"], "input": "COUNT", "enable_human_tool": false}');
SELECT dbms_cloud_ai_agent.create_team('SHOP_TEAM',
         '{"agents": [{"name": "ANALYST", "task": "COUNT"}, {"name": "ANALYST", "task": "SCALE"}],
           "process": "sequential"}');
SELECT tool_name, status FROM dbms_cloud_ai_agent.user_ai_agent_tools ORDER BY tool_name;
SELECT dbms_cloud_ai_agent.run_team('SHOP_TEAM', 'How many countries are there?') AS answer;
\echo '-- What the run did (USER_AI_AGENT_TEAM_HISTORY, _TASK_HISTORY, _TOOL_HISTORY):'
SELECT team_name, state FROM dbms_cloud_ai_agent.user_ai_agent_team_history;
SELECT task_order, task_name, state, result FROM dbms_cloud_ai_agent.user_ai_agent_task_history ORDER BY task_order;
SELECT tool_name, input, tool_output FROM dbms_cloud_ai_agent.user_ai_agent_tool_history ORDER BY start_date;
\echo '-- Beyond Oracle: every model and tool call of the run is accounted, and bounded by your budget:'
SELECT purpose, model, input_tokens, output_tokens, latency_ms, status
  FROM dbms_cloud_ai.user_cloud_ai_calls WHERE action = 'AGENT' ORDER BY created;

\if :has_question
\echo
\echo '==> Your question (DEMO_QUESTION), through select_ai: runsql unless it starts with an action'
SELECT dbms_cloud_ai.select_ai(:'question') AS answer;
\endif

\echo
\echo '==> Done.'
