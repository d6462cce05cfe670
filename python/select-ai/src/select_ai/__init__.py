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

# --- area A1: profiles, providers, actions, feedback, synthetic data

# --- area A2: conversations

# --- area B: vector indexes
