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

# --- area: vector indexes (B)
# Oracle's REGEXP_LIKE(name, pattern, 'i'): an empty pattern is Oracle's NULL,
# which matches nothing (PostgreSQL's '' would match everything).
LIST_ALL_VECTOR_INDEXES = """
select v.index_name, v.description, v.owner
  from dbms_cloud_ai.all_cloud_vector_indexes v
 where v.index_name ~* nullif(%(pattern)s, '')
   and upper(v.owner) = upper(coalesce(%(owner)s, current_user))
 order by v.index_name
"""

GET_ALL_VECTOR_INDEX = """
select index_name, description, owner
  from dbms_cloud_ai.all_cloud_vector_indexes
 where index_name = %(index_name)s
   and upper(owner) = upper(coalesce(%(owner)s, current_user))
"""

GET_ALL_VECTOR_INDEX_ATTRIBUTES = """
select attribute_name, attribute_value
  from dbms_cloud_ai.all_cloud_vector_index_attributes
 where index_name = %(index_name)s
   and upper(owner) = upper(coalesce(%(owner)s, current_user))
"""

# The table DROP_VECTOR_INDEX(include_data => false) keeps an index's data in.
VECTOR_TABLE_EXISTS = """
select to_regclass(quote_ident(current_schema()) || '.' || quote_ident(%(table_name)s)) is not null
"""

CREATE_VECTOR_INDEX = """
select dbms_cloud_ai.create_vector_index(
         index_name => %(index_name)s, attributes => %(attributes)s::text,
         description => %(description)s, wait_for_completion => %(wait_for_completion)s)
"""

DROP_VECTOR_INDEX = """
select dbms_cloud_ai.drop_vector_index(
         index_name => %(index_name)s, include_data => %(include_data)s, force => %(force)s)
"""

UPDATE_VECTOR_INDEX_ATTRIBUTE = """
select dbms_cloud_ai.update_vector_index(
         index_name => %(index_name)s, attribute_name => %(attribute_name)s,
         attribute_value => %(attribute_value)s::text)
"""

UPDATE_VECTOR_INDEX_ATTRIBUTES = """
select dbms_cloud_ai.update_vector_index(
         index_name => %(index_name)s, attributes => %(attributes)s::text)
"""

ENABLE_VECTOR_INDEX = "select dbms_cloud_ai.enable_vector_index(index_name => %(index_name)s)"

DISABLE_VECTOR_INDEX = "select dbms_cloud_ai.disable_vector_index(index_name => %(index_name)s)"

GRANT_VECTOR_INDEX_ACCESS = """
select dbms_cloud_ai.grant_vector_index_access(
         index_name => %(index_name)s, user_or_role_name => %(user_or_role_name)s)
"""

REVOKE_VECTOR_INDEX_ACCESS = """
select dbms_cloud_ai.revoke_vector_index_access(
         index_name => %(index_name)s, user_or_role_name => %(user_or_role_name)s)
"""

# The last run of an index's refresh job (USER_CLOUD_PIPELINES), as UTC.
GET_VECTOR_PIPELINE_LAST_EXECUTION = """
select last_execution at time zone 'UTC'
  from dbms_cloud_ai.user_cloud_pipelines
 where pipeline_name = %(pipeline_name)s
"""
