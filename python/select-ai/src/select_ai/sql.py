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
