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
