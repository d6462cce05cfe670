"""SQL text the API sends, by area (PostgreSQL, psycopg placeholders).

The SDK exposes its SQL text as module constants, and scripts (its test suite among them)
import some of them; these are ours, against the dbms_cloud_ai extension.
"""

# --- area: privileges and network access (C)
# Oracle-dialect text for select_ai.cursor() (binds :user, :host), as the SDK's constants are.
# GRANT/REVOKE of the extension's user role take the role name from the :user bind.
GRANT_PRIVILEGES_TO_USER = "GRANT dbms_cloud_ai_user TO :user"
REVOKE_PRIVILEGES_FROM_USER = "REVOKE dbms_cloud_ai_user FROM :user"
ENABLE_AI_PROFILE_DOMAIN_FOR_USER = (
    "BEGIN dbms_cloud_ai.append_host_ace(host => :host, principal_name => lower(:user)); END;")
DISABLE_AI_PROFILE_DOMAIN_FOR_USER = (
    "BEGIN dbms_cloud_ai.remove_host_ace(host => :host, principal_name => lower(:user)); END;")

# --- area: profiles (A1)
# Oracle upper-cases unquoted profile names and the SDK looks them up so; owners
# are PostgreSQL role names, compared without case because the SDK upper-cases them.
_PROFILE_OWNER_IS = "pg_catalog.upper(owner) = pg_catalog.upper(coalesce(%(owner)s, current_user::text))"

GET_PROFILE = (
    "select profile_name, description, pg_catalog.upper(owner) from dbms_cloud_ai.all_cloud_ai_profiles"
    " where profile_name = %(profile_name)s and " + _PROFILE_OWNER_IS
)

GET_PROFILE_ATTRIBUTES = (
    "select attribute_name, attribute_value from dbms_cloud_ai.all_cloud_ai_profile_attributes"
    " where profile_name = %(profile_name)s and " + _PROFILE_OWNER_IS
)

# Oracle's REGEXP_LIKE(..., 'i'): a case-insensitive POSIX match.
LIST_PROFILES = (
    "select profile_name, description, pg_catalog.upper(owner) from dbms_cloud_ai.all_cloud_ai_profiles"
    " where profile_name ~* %(pattern)s and " + _PROFILE_OWNER_IS + " order by profile_name"
)

CREATE_PROFILE = (
    "select dbms_cloud_ai.create_profile(profile_name => %(profile_name)s,"
    " attributes => %(attributes)s::text, description => %(description)s::text)"
)
DROP_PROFILE = "select dbms_cloud_ai.drop_profile(profile_name => %(profile_name)s, force => %(force)s)"
ENABLE_PROFILE = "select dbms_cloud_ai.enable_profile(profile_name => %(profile_name)s)"
DISABLE_PROFILE = "select dbms_cloud_ai.disable_profile(profile_name => %(profile_name)s)"

# set_attribute has text, boolean, numeric and jsonb overloads: the value's cast picks one.
SET_ATTRIBUTE_TEXT = (
    "select dbms_cloud_ai.set_attribute(profile_name => %(profile_name)s,"
    " attribute_name => %(attribute_name)s, attribute_value => %(attribute_value)s::text)"
)
SET_ATTRIBUTE_BOOLEAN = (
    "select dbms_cloud_ai.set_attribute(profile_name => %(profile_name)s,"
    " attribute_name => %(attribute_name)s, attribute_value => %(attribute_value)s::boolean)"
)
SET_ATTRIBUTE_NUMERIC = (
    "select dbms_cloud_ai.set_attribute(profile_name => %(profile_name)s,"
    " attribute_name => %(attribute_name)s, attribute_value => %(attribute_value)s::numeric)"
)
SET_ATTRIBUTES = (
    "select dbms_cloud_ai.set_attributes(profile_name => %(profile_name)s,"
    " attributes => %(attributes)s::text)"
)

GRANT_PROFILE_ACCESS = (
    "select dbms_cloud_ai.grant_profile_access(profile_name => %(profile_name)s,"
    " user_or_role_name => %(user_or_role_name)s)"
)
REVOKE_PROFILE_ACCESS = (
    "select dbms_cloud_ai.revoke_profile_access(profile_name => %(profile_name)s,"
    " user_or_role_name => %(user_or_role_name)s)"
)

GENERATE = (
    "select dbms_cloud_ai.generate(prompt => %(prompt)s::text, profile_name => %(profile_name)s::text,"
    " action => %(action)s::text, attributes => %(attributes)s::text, params => %(params)s::text)"
)

# runsql and narrate run the generated query, which the extension refuses without a
# finite statement_timeout; Oracle has no such rule, so a call that has none gets one
# for its own transaction only.
ENSURE_STATEMENT_TIMEOUT = (
    "select pg_catalog.set_config('statement_timeout', %(timeout)s, true)"
    " where pg_catalog.current_setting('statement_timeout') = '0'"
)

FEEDBACK = (
    "select dbms_cloud_ai.feedback(profile_name => %(profile_name)s, sql_id => %(sql_id)s,"
    " sql_text => %(sql_text)s, feedback_type => %(feedback_type)s, response => %(response)s,"
    " feedback_content => %(feedback_content)s, operation => %(operation)s)"
)

SUMMARIZE = (
    "select dbms_cloud_ai.summarize(content => %(content)s::text,"
    " location_uri => %(location_uri)s::text, credential_name => %(credential_name)s::text,"
    " profile_name => %(profile_name)s::text, prompt => %(prompt)s::text,"
    " parameters => %(parameters)s::text)"
)

TRANSLATE = (
    "select dbms_cloud_ai.translate(profile_name => %(profile_name)s::text, text => %(text)s::text,"
    " source_language => %(source_language)s::text, target_language => %(target_language)s::text)"
)

GENERATE_SYNTHETIC_DATA_TABLE = (
    "select dbms_cloud_ai.generate_synthetic_data(profile_name => %(profile_name)s::text,"
    " object_name => %(object_name)s::text, owner_name => %(owner_name)s::text,"
    " record_count => %(record_count)s::integer, user_prompt => %(user_prompt)s::text,"
    " params => %(params)s::text)"
)
GENERATE_SYNTHETIC_DATA_LIST = (
    "select dbms_cloud_ai.generate_synthetic_data(profile_name => %(profile_name)s::text,"
    " object_list => %(object_list)s::text, params => %(params)s::text)"
)

# --- area: conversations (A2)
# The views show ids upper-case; upper() lets a caller pass either case.

CREATE_CONVERSATION = "select dbms_cloud_ai.create_conversation(attributes => %(attributes)s::text)"

UPDATE_CONVERSATION = (
    "select dbms_cloud_ai.update_conversation(conversation_id => %(conversation_id)s, "
    "attributes => %(attributes)s::text)"
)

DROP_CONVERSATION = (
    "select dbms_cloud_ai.drop_conversation(conversation_id => %(conversation_id)s, "
    "force => %(force)s)"
)

DELETE_CONVERSATION_PROMPT = (
    "select dbms_cloud_ai.delete_conversation_prompt("
    "conversation_prompt_id => %(conversation_prompt_id)s, force => %(force)s)"
)

ADD_CONVERSATION_TAG = (
    "select dbms_cloud_ai.add_conversation_tag(conversation_id => %(conversation_id)s, "
    "tag_key => %(tag_key)s, tag_value => %(tag_value)s)"
)

REMOVE_CONVERSATION_TAG = (
    "select dbms_cloud_ai.remove_conversation_tag(conversation_id => %(conversation_id)s, "
    "tag_key => %(tag_key)s, force => %(force)s)"
)

LIST_USER_CONVERSATIONS = """
select conversation_id, conversation_title, description, retention_days, conversation_length
  from dbms_cloud_ai.user_cloud_ai_conversations
 order by created, conversation_id
"""

GET_USER_CONVERSATION_ATTRIBUTES = """
select conversation_id, conversation_title, description, retention_days, conversation_length
  from dbms_cloud_ai.user_cloud_ai_conversations
 where conversation_id = pg_catalog.upper(%(conversation_id)s::text)
"""

LIST_USER_CONVERSATION_PROMPTS = """
select conversation_prompt_id, conversation_id, conversation_title, profile_name,
       prompt_action, prompt, prompt_response, created, modified,
       client_identifier, client_ip, sid, "serial#" as serial
  from dbms_cloud_ai.user_cloud_ai_conversation_prompts
 where conversation_id = pg_catalog.upper(%(conversation_id)s::text)
 order by created, conversation_prompt_id
"""

# --- area: vector indexes (B)
