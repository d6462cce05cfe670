-- make demo, part 2: Select AI for PostgreSQL as an ordinary user (demo_user).
--
-- demo/run_demo.py runs this file with psql --echo-queries, so every statement
-- is printed before its result.  It passes:
--   cred_user       the credential's username (Oracle uses the provider name)
--   profile_attrs   the profile's attributes as JSON (provider, model, ...)
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

\echo '-- Give up on an unreachable provider after 30 s instead of the default 120 s:'
SET dbms_cloud_ai.http_timeout = '30s';

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
\echo '==> 11. Mistakes give an error with a DETAIL and a HINT (these two errors are expected)'
SELECT dbms_cloud_ai.generate('What is 4 + 4 ?', 'DEMO_PROFILE', action => 'dance');
\echo '-- Oracle''s default action is runsql (natural language to SQL), which this version does not have yet:'
SELECT dbms_cloud_ai.generate('How many customers live in Germany?', 'DEMO_PROFILE');

\echo
\echo '==> Done.'
