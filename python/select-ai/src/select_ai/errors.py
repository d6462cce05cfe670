"""The SDK's exception types, and the one table from this extension's SQLSTATEs to Oracle's
ORA- numbers.

A database error surfaces as ``oracledb.DatabaseError`` (the real class from python-oracledb, so
``except oracledb.DatabaseError`` in code written for Oracle's SDK keeps working), whose
``args[0].code`` and message carry the ORA- number Oracle gives for the same condition.
"""

from __future__ import annotations

import oracledb
import psycopg
from oracledb.errors import _Error

__all__ = [
    "AgentAttributesEmptyError",
    "AgentNotFoundError",
    "AgentTaskAttributesEmptyError",
    "AgentTaskNotFoundError",
    "AgentTeamAttributesEmptyError",
    "AgentTeamNotFoundError",
    "AgentToolAttributesEmptyError",
    "AgentToolNotFoundError",
    "ConversationNotFoundError",
    "DatabaseNotConnectedError",
    "InvalidSQLError",
    "ProfileAttributesEmptyError",
    "ProfileExistsError",
    "ProfileNotFoundError",
    "SelectAIError",
    "VectorIndexNotFoundError",
]


class SelectAIError(Exception):
    """Base of the errors raised by select_ai itself (not by the database)."""


class DatabaseNotConnectedError(SelectAIError):
    def __str__(self):
        return "Not connected to the database: call select_ai.connect() or select_ai.create_pool() first"


class _Named(SelectAIError):
    what = "object"
    state = "not found"

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name

    def __str__(self):
        return f"{self.what} {self.name} {self.state}"


class ConversationNotFoundError(_Named):
    what, state = "Conversation with id", "not found"

    def __init__(self, conversation_id: str):
        super().__init__(conversation_id)
        self.conversation_id = conversation_id


class ProfileNotFoundError(_Named):
    what = "Profile"

    def __init__(self, profile_name: str):
        super().__init__(profile_name)
        self.profile_name = profile_name


class ProfileExistsError(_Named):
    what, state = "Profile", "already exists: use replace=True to overwrite it"

    def __init__(self, profile_name: str):
        super().__init__(profile_name)
        self.profile_name = profile_name


class ProfileAttributesEmptyError(_Named):
    what, state = "Profile", "has no attributes: give ProfileAttributes"

    def __init__(self, profile_name: str):
        super().__init__(profile_name)
        self.profile_name = profile_name


class VectorIndexNotFoundError(SelectAIError):
    def __init__(self, index_name: str, profile_name: str | None = None):
        super().__init__(index_name)
        self.index_name, self.profile_name = index_name, profile_name

    def __str__(self):
        where = f" for profile {self.profile_name}" if self.profile_name else ""
        return f"Vector index {self.index_name}{where} not found"


class AgentNotFoundError(_Named):
    what = "Agent"


class AgentAttributesEmptyError(_Named):
    what, state = "Agent", "has no attributes"


class AgentTaskNotFoundError(_Named):
    what = "Task"


class AgentTaskAttributesEmptyError(_Named):
    what, state = "Task", "has no attributes"


class AgentToolNotFoundError(_Named):
    what = "Tool"


class AgentToolAttributesEmptyError(_Named):
    what, state = "Tool", "has no attributes"


class AgentTeamNotFoundError(_Named):
    what = "Team"


class AgentTeamAttributesEmptyError(_Named):
    what, state = "Team", "has no attributes"


class InvalidSQLError(SelectAIError):
    def __init__(self, error_message: str):
        super().__init__(error_message)
        self.error_message = error_message

    def __str__(self):
        return f"Invalid SQL: {self.error_message}"


# The one table: (SQLSTATE, topic) -> ORA number.  The topic is what the failing statement
# was about (the `topic` of its select_ai._run.Sql, or "cursor" for SQL a user sent through
# a cursor); a dotted topic ("vector_index.create") falls back to its head ("vector_index"),
# then to (SQLSTATE, None).  A SQLSTATE found nowhere becomes ORA-20000, Oracle's number for
# errors its PL/SQL packages raise.  Each area keeps to its own section (merges stay clean).
ORA_CODES: dict[tuple[str, str | None], int] = {
    # --- topic: none (PostgreSQL's own conditions, whatever the statement)
    ("42P01", None): 942,      # table or view does not exist
    ("42703", None): 904,      # invalid identifier
    ("42601", None): 900,      # invalid SQL statement
    ("42883", None): 904,      # no such function: invalid identifier
    ("42501", None): 1031,     # insufficient privileges
    ("42P07", None): 955,      # name is already used by an existing object
    ("42710", None): 955,
    ("28P01", None): 1017,     # invalid username/password; logon denied
    ("28000", None): 1017,
    ("57014", None): 1013,     # user requested cancel of current operation
    ("55P03", None): 54,       # resource busy
    ("40P01", None): 60,       # deadlock detected
    ("22012", None): 1476,     # divisor is equal to zero
    ("23505", None): 1,        # unique constraint violated
    ("22001", None): 12899,    # value too large for column
    ("25006", None): 16000,    # database open for read-only access
    # --- topic: profile
    # --- topic: conversation
    # --- topic: credential
    # --- topic: acl
    # --- topic: vector_index
    # --- topic: feedback
    # --- topic: synthetic_data
}

UNMAPPED = 20000


def ora_code(sqlstate: str | None, topic: str | None) -> int:
    while topic:
        if (sqlstate, topic) in ORA_CODES:
            return ORA_CODES[(sqlstate, topic)]
        topic = topic.rpartition(".")[0] or None
    return ORA_CODES.get((sqlstate, None), UNMAPPED)


def database_error(code: int, message: str) -> oracledb.DatabaseError:
    """An oracledb.DatabaseError as python-oracledb raises it: str() is "ORA-NNNNN: message"."""
    full = f"ORA-{code:05d}: {message}"
    return oracledb.DatabaseError(_Error(full, code=code))


def from_postgres(exc: psycopg.Error, topic: str | None = None) -> oracledb.DatabaseError:
    """The oracledb.DatabaseError for a psycopg error (its SQLSTATE, message, hint)."""
    diag = exc.diag
    message = diag.message_primary or str(exc).strip()
    if diag.message_hint:
        message = f"{message} (hint: {diag.message_hint})"
    error = database_error(ora_code(exc.sqlstate, topic), message)
    error.sqlstate = exc.sqlstate  # what PostgreSQL said, for whoever wants it
    return error
