"""The one table of error conditions and their SQLSTATEs.

Every error the extension raises on purpose is a DcaError subclass below.  The
SQL boundary (boundary.py) turns it into ``plpy.error(message, detail=, hint=,
sqlstate=)``.  The error table in docs/reference/errors.md is generated from ``SQLSTATES``; keep
the two in step by editing only this file.
"""

from __future__ import annotations


class DcaError(Exception):
    """Base class: a message that names the object, optional detail and hint."""

    sqlstate = "XX000"
    condition = "internal_error"

    def __init__(self, message: str, *, detail: str | None = None, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.detail = detail
        self.hint = hint


class InvalidParameter(DcaError):
    sqlstate, condition = "22023", "invalid_parameter_value"


class InvalidJson(DcaError):
    sqlstate, condition = "22P02", "invalid_text_representation"


class NullValue(DcaError):
    sqlstate, condition = "22004", "null_value_not_allowed"


class UndefinedObject(DcaError):
    sqlstate, condition = "42704", "undefined_object"


class NothingInScope(UndefinedObject):
    """NL2SQL: no table the caller can read is in the profile's scope."""


class DuplicateObject(DcaError):
    sqlstate, condition = "42710", "duplicate_object"


class DuplicateTable(DcaError):
    """drop_vector_index(include_data => false): the table that would keep the
    data exists already."""

    sqlstate, condition = "42P07", "duplicate_table"


class InvalidSchemaName(DcaError):
    """No schema to create a table in (no current schema, or none of that name)."""

    sqlstate, condition = "3F000", "invalid_schema_name"


class NotInPrerequisiteState(DcaError):
    sqlstate, condition = "55000", "object_not_in_prerequisite_state"


class LockNotAvailable(DcaError):
    """Another session holds a lock on one of the extension's tables for longer
    than the extension waits (its functions run with lock_timeout)."""

    sqlstate, condition = "55P03", "lock_not_available"


class InsufficientPrivilege(DcaError):
    sqlstate, condition = "42501", "insufficient_privilege"


class ReadOnlyTransaction(DcaError):
    sqlstate, condition = "25006", "read_only_sql_transaction"


class InvalidTransactionTermination(DcaError):
    """generate_detached commits before each model request: not possible inside a
    transaction block or from a function."""

    sqlstate, condition = "2D000", "invalid_transaction_termination"


class FeatureNotSupported(DcaError):
    sqlstate, condition = "0A000", "feature_not_supported"


class ConfigurationError(DcaError):
    """The server is not set up as the extension needs (key file, library)."""

    sqlstate, condition = "58000", "system_error"


class ProviderError(DcaError):
    """Base for failures talking to an LLM provider; detail carries the HTTP status."""

    def __init__(self, message, *, status: int | None = None, attempts: int = 1, **kw):
        super().__init__(message, **kw)
        self.status = status
        self.attempts = attempts


class ProviderAuthFailed(ProviderError):
    sqlstate, condition = "28000", "invalid_authorization_specification"


class ProviderUnavailable(ProviderError):
    sqlstate, condition = "LL000", "provider_unavailable"


class ProviderTimeout(ProviderError):
    sqlstate, condition = "LL001", "provider_timeout"


class ProviderRateLimited(ProviderError):
    sqlstate, condition = "LL002", "provider_rate_limited"


class ProviderBadResponse(ProviderError):
    sqlstate, condition = "LL003", "provider_malformed_response"


class ProviderRejected(ProviderError):
    sqlstate, condition = "LL004", "provider_rejected_request"


class CallInterrupted(DcaError):
    """A cancel, statement timeout or terminate arrived while a call waited on
    the network and the server held it off; usually PostgreSQL raises its own
    57014 (or ends the backend) first."""

    sqlstate, condition = "57014", "query_canceled"


class TokenBudgetExceeded(DcaError):
    """A daily token budget would be exceeded: refused before any request."""

    sqlstate, condition = "53400", "configuration_limit_exceeded"


class ResultTooLarge(DcaError):
    sqlstate, condition = "54000", "program_limit_exceeded"


class TooManyCalls(ResultTooLarge):
    """Summarize or translate content that needs more model calls than
    dbms_cloud_ai.max_text_calls: refused before any request."""


class OutputTruncated(ResultTooLarge):
    """A translation stopped at max_tokens before the end of its part."""


class GeneratedSqlFailed(DcaError):
    """The model's SQL still did not parse, plan or run after the repair round.
    With NothingInScope, what NL2SQL answers with Oracle's text unless the profile
    says raise_on_invalid_sql (nl2sql/actions.py)."""

    sqlstate, condition = "LL005", "generated_sql_failed"


class DataAccessDisabled(DcaError):
    """An action that sends row values to the model while an administrator has
    disabled data access (Oracle: ORA-20000 "Data access is disabled for SELECT
    AI"): refused before any model call."""

    sqlstate, condition = "LL006", "data_access_disabled"


# SQLSTATE -> (condition, when).  Rendered into docs/reference/errors.md.
SQLSTATES = {
    "22023": ("invalid_parameter_value",
              "bad argument or attribute: unknown attribute, wrong type, out of range, "
              "unknown action, empty prompt, invalid name, a bad setting value, bad summarize "
              "params or an unknown language (\"Invalid language or language code\"), feedback "
              "with both or neither of sql_id and sql_text, an unknown feedback_type or "
              "operation, a rating other than 1 or -1, an unknown memory attribute or identity, a "
              "bad subject, a malformed request_id or one reused for a different call; bad "
              "generate_synthetic_data params (\"Invalid value for priority\", \"record_count "
              "cannot be smaller than 0\") or a relation that is not a table"),
    "22P02": ("invalid_text_representation",
              "attributes or params are not valid JSON; a malformed conversation or prompt id, "
              "or sql_id"),
    "22004": ("null_value_not_allowed", "a required argument is NULL"),
    "42704": ("undefined_object",
              "profile, credential, conversation, prompt or memory does not exist for the calling "
              "role (or the conversation expired); no matching NL2SQL statement or feedback "
              "record (FEEDBACK); no table you can read in an NL2SQL profile's scope "
              "(showprompt, or with raise_on_invalid_sql); a table generate_synthetic_data cannot see; "
              "an agent, task, tool or team that does not exist for the calling role (or a team "
              "not shared with it)"),
    "42710": ("duplicate_object",
              "profile, credential, agent, task, tool or team already exists"),
    "42P07": ("duplicate_table",
              "drop_vector_index(include_data => false): the table that would keep the "
              "index's data exists already"),
    "3F000": ("invalid_schema_name",
              "drop_vector_index(include_data => false) with no current schema (or a "
              "schema_name that does not exist)"),
    "55000": ("object_not_in_prerequisite_state",
              "profile or credential disabled, already in the desired status, no "
              "profile set in the session, extension updated in this session, runsql or "
              "narrate without a finite statement_timeout (or above "
              "dbms_cloud_ai.max_statement_timeout); a grant to a role name still bound to a "
              "dropped role, drop_role_data for a live role, rebind_role for a role that "
              "already owns its name's rows"),
    "55P03": ("lock_not_available",
              "another session held a lock on one of the extension's tables for longer than "
              "its functions wait (lock_timeout 5s)"),
    "42501": ("insufficient_privilege",
              "host not allowed by the network ACL, an admin-only function, or generated SQL "
              "refused (not a single read-only query, outside the object list, a forbidden "
              "function; DETAIL has the SQL); set_end_user by a role that is not a trusted "
              "gateway; an administrator acting on an organization they do not administer; "
              "a role whose name is still bound to a dropped role (hint: drop_role_data); "
              "a grantee's attribute a shared profile reserves to its owner or caps "
              "(conversation_length, summarize_history, object_list); "
              "also PostgreSQL's own permission denied"),
    "25006": ("read_only_sql_transaction",
              "runsql, showsql, explainsql or narrate in a read-only transaction or on a hot "
              "standby: the check of what generated SQL resolves to needs a temporary view; "
              "generate_synthetic_data in a read-only transaction"),
    "2D000": ("invalid_transaction_termination",
              "generate_detached called inside a transaction block (after BEGIN) or from a "
              "function: it commits before each model request; likewise "
              "maintain_vector_indexes and refresh_vector_index_job, which commit each HNSW "
              "index DDL"),
    "0A000": ("feature_not_supported",
              "provider or action this version does not implement; embeddings with a provider "
              "that has none; WEBSEARCH, NOTIFICATION and HTTP agent tools"),
    "58000": ("system_error", "master key file or Python library missing or unreadable"),
    "28000": ("invalid_authorization_specification",
              "the provider rejected the API key (HTTP 401/403)"),
    "LL000": ("provider_unavailable",
              "connection failed or HTTP 5xx after all retries"),
    "LL001": ("provider_timeout",
              "the call's deadline passed (dbms_cloud_ai.http_timeout or statement_timeout; "
              "for a memory job dbms_cloud_ai.memory_job_timeout)"),
    "LL002": ("provider_rate_limited",
              "HTTP 429 after all retries, or Retry-After beyond the deadline"),
    "LL003": ("provider_malformed_response",
              "the provider answered 2xx with a body that is not the expected JSON (or a "
              "feedback classification that is neither positive nor negative)"),
    "LL004": ("provider_rejected_request",
              "any other HTTP 4xx (400, 404, 422, ...) or a redirect; not retried"),
    "57014": ("query_canceled",
              "pg_cancel_backend or statement_timeout while a call waited on the provider or a "
              "location_uri host (PostgreSQL's own error; the wait ends within 0.1 s and nothing "
              "is written)"),
    "53400": ("configuration_limit_exceeded",
              "a daily token budget (dbms_cloud_ai.set_token_budget, or the owner's "
              "set_profile_grant_budget of a shared profile) would be exceeded; refused before "
              "any request is sent"),
    "54000": ("program_limit_exceeded",
              "a single row of a generated query's result is larger than "
              "dbms_cloud_ai.max_result_bytes; summarize or translate content that needs more "
              "model calls than dbms_cloud_ai.max_text_calls (refused before any request) or a "
              "location_uri document over 8 MB; a translation cut off at max_tokens; "
              "generate_synthetic_data needing more first-pass requests than max_text_calls; "
              "agent, task, tool or team attributes over 64 KB or nested over 8 deep"),
    "LL005": ("generated_sql_failed",
              "the model's SQL could not be parsed, planned or run even after the repairs "
              "and repair_rounds repair requests, with the profile attribute "
              "raise_on_invalid_sql (without it, Oracle's "
              "text \"Sorry, unfortunately a valid SELECT statement could not be generated "
              "...\" is returned); DETAIL has the last SQL and the error"),
    "LL006": ("data_access_disabled",
              "narrate, or a refresh of a vector index with a table source, while an "
              "administrator has disabled data access "
              "(dbms_cloud_ai.disable_data_access; Oracle's ORA-20000 \"Data access is disabled "
              "for SELECT AI\"); refused before any request is sent; generate_synthetic_data "
              "whenever data access is disabled, as in Oracle"),
}
