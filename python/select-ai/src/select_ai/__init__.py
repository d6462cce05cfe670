"""select_ai: Oracle's Select AI Python API, against PostgreSQL and the dbms_cloud_ai extension.

Code written for Oracle's SDK runs unchanged apart from ``connect``/``create_pool``, whose
``dsn`` is a libpq connection string.  See docs/select-ai-client.md.
"""

from . import db, errors
from .db import (
    async_connect,
    async_cursor,
    async_disconnect,
    async_is_connected,
    connect,
    create_pool,
    create_pool_async,
    cursor,
    disconnect,
    is_connected,
)
from .errors import *  # noqa: F403
from .version import __version__ as __version__

# --- area C: credentials, privileges, network access
# isort: split
from .credential import (
    async_create_credential,
    async_delete_credential,
    async_grant_credential_access,
    async_revoke_credential_access,
    create_credential,
    delete_credential,
    grant_credential_access,
    revoke_credential_access,
)
from .privilege import (
    async_grant_http_access,
    async_grant_network_access,
    async_grant_privileges,
    async_revoke_http_access,
    async_revoke_network_access,
    async_revoke_privileges,
    grant_http_access,
    grant_network_access,
    grant_privileges,
    revoke_http_access,
    revoke_network_access,
    revoke_privileges,
)

# --- area A1: profiles, providers, actions, feedback, synthetic data
# isort: split
from .action import Action
from .async_profile import AsyncProfile
from .base_profile import BaseProfile, ProfileAttributes
from .feedback import FeedbackOperation, FeedbackType
from .profile import Profile
from .provider import (
    AnthropicProvider,
    AWSProvider,
    AzureProvider,
    CohereProvider,
    GoogleProvider,
    HuggingFaceProvider,
    OCIGenAIProvider,
    OpenAIProvider,
    Provider,
)
from .summary import SummaryParams
from .synthetic_data import SyntheticDataAttributes, SyntheticDataParams

# --- area A2: conversations
# isort: split
from .conversation import (
    AsyncConversation,
    Conversation,
    ConversationAttributes,
    ConversationPrompt,
)

# --- area B: vector indexes
from .vector_index import (
    AsyncVectorIndex,
    OracleVectorIndexAttributes,
    VectorDBProvider,
    VectorDistanceMetric,
    VectorIndex,
    VectorIndexAttributes,
)

# --- issue 33: Select AI Agent (select_ai.agent)
# isort: split
from . import agent as agent
