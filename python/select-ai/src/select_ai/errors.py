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


class _AgentObjectError(_Named):
    """An agent object the SDK looks up by name; the keyword is the SDK's (agent_name, ...)."""
    keyword = "name"

    def __init__(self, *args, **kwargs):
        name = args[0] if args else kwargs.pop(self.keyword)
        super().__init__(name)
        setattr(self, self.keyword, name)


class AgentNotFoundError(_AgentObjectError):
    what, keyword = "Agent", "agent_name"


class AgentAttributesEmptyError(_AgentObjectError):
    what, state, keyword = "Agent", "has no attributes", "agent_name"


class AgentTaskNotFoundError(_AgentObjectError):
    what, keyword = "Agent Task", "task_name"


class AgentTaskAttributesEmptyError(_AgentObjectError):
    what, state, keyword = "Agent Task", "has no attributes", "task_name"


class AgentToolNotFoundError(_AgentObjectError):
    what, keyword = "Agent Tool", "tool_name"


class AgentToolAttributesEmptyError(_AgentObjectError):
    what, state, keyword = "Agent Tool", "has no attributes", "tool_name"


class AgentTeamNotFoundError(_AgentObjectError):
    what, keyword = "Agent Team", "team_name"


class AgentTeamAttributesEmptyError(_AgentObjectError):
    what, state, keyword = "Agent Team", "has no attributes", "team_name"


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
    ("42710", "profile"): 20046,  # the profile already exists (the SDK's replace=True drops it)
    ("42704", "profile"): 20046,  # no such profile
    ("22023", "profile"): 20047,  # invalid attribute (neither provider nor provider_endpoint, ...)
    ("22P02", "profile"): 20047,  # attributes that are not JSON
    ("55000", "profile"): 20046,  # already in the desired status
    ("2201B", "profile"): 12726,  # list(): an invalid regular expression
    # --- topic: conversation
    # Oracle raises ORA-20050 for every refusal of its conversation procedures: a malformed
    # id, an unknown one, a bad attribute (a title over 128 characters ...).
    ("22P02", "conversation"): 20050,
    ("42704", "conversation"): 20050,
    ("22023", "conversation"): 20050,
    ("22004", "conversation"): 20050,
    # --- topic: credential (Oracle's DBMS_CLOUD numbers; credential.py gives Oracle's texts
    #     for the name checks it makes itself)
    ("42710", "credential"): 20022,  # credential already exists
    ("42704", "credential"): 20004,  # credential does not exist
    ("22004", "credential"): 20010,  # missing argument
    ("22023", "credential"): 20010,  # invalid argument
    # --- topic: privilege (GRANT/REVOKE of the extension's user role)
    ("42704", "privilege"): 1917,    # user or role does not exist
    # --- topic: acl (DBMS_NETWORK_ACL_ADMIN; privilege.py gives Oracle's texts)
    ("22004", "acl"): 29261,         # bad argument (a NULL host)
    ("22023", "acl"): 24244,         # invalid host or port for ACL assignment
    ("42704", "acl"): 46238,         # database user or role does not exist
    ("42704", "acl.revoke"): 1927,   # cannot REVOKE privileges you did not grant
    # --- topic: vector_index
    # Oracle's DBMS_CLOUD_AI raises ORA-20048 for a vector index that exists already, one
    # that does not, and a bad name or attribute value; ORA-12726 for a malformed pattern.
    ("42710", "vector_index"): 20048,     # vector index "X" already exists
    ("42704", "vector_index"): 20048,     # vector index "X" does not exist
    ("22023", "vector_index"): 20048,     # invalid name or attribute value
    ("22004", "vector_index"): 20048,     # a NULL name
    ("2201B", "vector_index.list"): 12726,  # invalid regular expression
    ("42704", "pipeline"): 20044,         # DBMS_CLOUD_PIPELINE: no such pipeline
    # --- topic: feedback
    ("42704", "feedback"): 20000,  # no matching SQL statement or feedback record
    ("22023", "feedback"): 20000,
    # sql_id and sql_text both given: Oracle cannot resolve the call (PL/SQL error)
    ("22023", "feedback.ambiguous_statement"): 6550,
    # --- topic: synthetic_data
    ("22023", "synthetic_data"): 20000,  # "Invalid value for priority", "record_count cannot ..."
    # --- topics: agent, task, tool, team (DBMS_CLOUD_AI_AGENT: one number per kind of object
    #     for every refusal: unknown or duplicate object, bad or missing attribute, wrong state)
    **{(state, kind): code
       for kind, code in (("agent", 20050), ("task", 20051), ("tool", 20052), ("team", 20053))
       for state in ("42704", "42710", "22023", "22004", "22P02", "55000")},
    ("2201B", "agent"): 12726,  # list(): an invalid regular expression
    ("2201B", "task"): 12726,
    ("2201B", "tool"): 12726,
    ("2201B", "team"): 12726,
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
