"""Conversations: named long-term ones (tables) and the session's short-term one.

Oracle's rules: a named conversation (params.conversation_id, else the
session's SET_CONVERSATION_ID) wins over the profile's ``conversation``
attribute; only runsql, showsql, explainsql, narrate and chat read or write
history; the newest ``conversation_length`` prompt/response pairs (default 10)
are sent, oldest first, whichever profile made them.  The session
conversation keeps at most 10 prompts of the same profile in a temporary table.
With ``summarize_history`` on, the prompts that fell out of a named
conversation's window are sent as a running summary first (``summaries``).

Order of work in a call: read the history (no locks), call the model, then one
short write of prompt and response together.  A failed model call writes
nothing.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field

from .. import acl, attributes, data_access, db, jsontext, scheduling, writer
from ..errors import InvalidJson, InvalidParameter, NotInPrerequisiteState, NullValue, UndefinedObject
from ..model import accounting
from . import summaries

SESSION_GUC = "dbms_cloud_ai.conversation_id"
DEFAULT_LENGTH = 10
SESSION_MAX = 10
MAX_TITLE = 128
_ID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
_HINT_CREATE = "Create one with dbms_cloud_ai.create_conversation()."


class InvalidId(InvalidJson):
    """22P02: the text is not a conversation (prompt) id at all."""


def parse_id(raw, what="conversation id", hint=_HINT_CREATE) -> str:
    if raw is None:
        raise NullValue(f"{what} must not be NULL", hint=hint)
    text = str(raw).strip()
    if not _ID.match(text):
        raise InvalidId(f"Invalid value for {what}",
                        detail=f"{text[:60]!r} is not a 36-character id such as "
                               "40D1E4B2-8E1B-10C4-E063-1A5B000A677D.",
                        hint=hint)
    return text.lower()


def show_id(value) -> str:
    return str(value).upper()


def _missing(cid):
    return UndefinedObject(f"conversation id={show_id(cid)} does not exist", hint=_HINT_CREATE)


# --- attributes -------------------------------------------------------------------

def _attrs(attributes_json, *, partial: bool) -> dict:
    raw = attributes.parse_json_object(attributes_json, "attributes")
    out = {}
    for key, value in raw.items():
        k = key.strip().lower()
        if k == "title":
            if value is not None and not isinstance(value, str):
                raise InvalidParameter("conversation attribute title must be a string",
                                       hint="Pass a title of at most 128 characters.")
            if value is not None and len(value) > MAX_TITLE:
                raise InvalidParameter(
                    f"title value length ({len(value)}) exceeds the maximum length ({MAX_TITLE})",
                    hint="Pass a title of at most 128 characters.")
        elif k == "description":
            if value is not None and not isinstance(value, str):
                raise InvalidParameter("conversation attribute description must be a string",
                                       hint="Pass the description as a JSON string.")
        elif k in ("summarize_history", "summary_max_tokens"):
            value = summaries.conversation_attr(k, value)
        elif k in ("retention_days", "conversation_length"):
            lo, hi = (0, 36500) if k == "retention_days" else (1, 999)
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                value = int(value)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if value is None and k == "conversation_length":
                pass  # no length of its own: the profile's, else 10
            elif isinstance(value, bool) or not isinstance(value, int):
                raise InvalidParameter(f"conversation attribute {k} must be an integer",
                                       hint=f"Pass {k} as a whole number from {lo} to {hi}.")
            elif not lo <= value <= hi:
                raise InvalidParameter(
                    f"conversation attribute {k} is out of range: {value} (allowed {lo} to {hi})",
                    hint=f"Pass {k} as a whole number from {lo} to {hi}.")
        else:
            raise InvalidParameter(
                f"unknown conversation attribute {key!r}",
                detail="Conversation attributes are title, description, retention_days, "
                       "conversation_length, summarize_history and summary_max_tokens.",
                hint="Remove it from attributes.")
        out[k] = value
    return out


_LIVE = "(c.expires_at is null or c.expires_at > pg_catalog.now())"


def _exists(plpy, cid) -> bool:
    return db.one(plpy, f"""select 1 as x from dbms_cloud_ai._conversation c
                             where c.conversation_id = $1::uuid and c.owner = current_user
                               and {_LIVE}""", ("text",), (cid,)) is not None


# --- the management API -------------------------------------------------------------

def create(plpy, attributes_json, set_current=False) -> str:
    a = _attrs(attributes_json, partial=False)
    cid = str(uuid.uuid4())
    writer.query(plpy, """
        insert into dbms_cloud_ai._conversation
               (conversation_id, title, description, retention_days, conversation_length,
                title_pending, expires_at, summarize_history, summary_max_tokens)
        values ($1::uuid, $2, $3, $4, $5, $2 is null,
                case when $4 = 0 then null else pg_catalog.now() + pg_catalog.make_interval(days => $4) end,
                $6, $7)""",
             ("text", "text", "text", "int4", "int4", "bool", "int4"),
             (cid, a.get("title"), a.get("description"), a.get("retention_days", 7),
              a.get("conversation_length"), a.get("summarize_history"), a.get("summary_max_tokens")))
    if set_current:
        _set_session(plpy, cid)
    return show_id(cid)


def update(plpy, conversation_id, attributes_json):
    cid = parse_id(conversation_id)
    a = _attrs(attributes_json, partial=True)
    if not _exists(plpy, cid):
        raise _missing(cid)
    if not a:
        return
    row = writer.one(plpy, f"""
        update dbms_cloud_ai._conversation c set
               title = case when $2 then $3 else title end,
               title_pending = case when $2 then false else title_pending end,
               title_generated = case when $2 then false else title_generated end,
               description = case when $4 then $5 else description end,
               retention_days = coalesce($6, retention_days),
               expires_at = case when $6 is null then expires_at when $6 = 0 then null
                                 else created + pg_catalog.make_interval(days => $6) end,
               conversation_length = case when $7 then $8 else conversation_length end,
               summarize_history = case when $9 then $10 else summarize_history end,
               summary_max_tokens = case when $11 then $12 else summary_max_tokens end,
               modified = pg_catalog.now()
         where c.conversation_id = $1::uuid and c.owner = dbms_cloud_ai._caller() and {_LIVE}
        returning 1 as x""",
                 ("text", "bool", "text", "bool", "text", "int4", "bool", "int4",
                  "bool", "bool", "bool", "int4"),
                 (cid, "title" in a, a.get("title"), "description" in a, a.get("description"),
                  a.get("retention_days"), "conversation_length" in a, a.get("conversation_length"),
                  "summarize_history" in a, a.get("summarize_history"),
                  "summary_max_tokens" in a, a.get("summary_max_tokens")))
    if row is None:
        raise _missing(cid)


def drop(plpy, conversation_id, force):
    cid = parse_id(conversation_id)
    gone = writer.one(plpy, f"""delete from dbms_cloud_ai._conversation c
                            where c.conversation_id = $1::uuid and c.owner = dbms_cloud_ai._caller() and {_LIVE}
                            returning 1 as x""", ("text",), (cid,))
    if gone is None and not force:
        raise _missing(cid)
    if _session_id(plpy) == cid:
        clear_session(plpy)


def delete_prompt(plpy, conversation_prompt_id, force):
    pid = parse_id(conversation_prompt_id, "conversation prompt id")
    gone = writer.one(plpy, f"""
        delete from dbms_cloud_ai._conversation_prompt p
         using dbms_cloud_ai._conversation c
         where p.conversation_prompt_id = $1::uuid and p.owner = dbms_cloud_ai._caller()
           and c.conversation_id = p.conversation_id and {_LIVE}
        returning 1 as x""", ("text",), (pid,))
    if gone is None and not force:
        raise UndefinedObject(f"conversation prompt id={show_id(pid)} does not exist",
                              hint="List prompts in dbms_cloud_ai.user_cloud_ai_conversation_prompts.")


def add_tag(plpy, conversation_id, tag_key, tag_value):
    cid = parse_id(conversation_id)
    if tag_key is None or not str(tag_key).strip():
        raise NullValue("tag_key must not be empty", hint="Pass a tag name as tag_key.")
    row = writer.one(plpy, f"""
        update dbms_cloud_ai._conversation c
           set tags = c.tags || pg_catalog.jsonb_build_object($2::text, $3::text), modified = pg_catalog.now()
         where c.conversation_id = $1::uuid and c.owner = dbms_cloud_ai._caller() and {_LIVE}
        returning 1 as x""", ("text", "text", "text"), (cid, tag_key, tag_value))
    if row is None:
        raise _missing(cid)


def remove_tag(plpy, conversation_id, tag_key, force):
    cid = parse_id(conversation_id)
    row = db.one(plpy, f"""
        select c.tags ? $2 as has from dbms_cloud_ai._conversation c
         where c.conversation_id = $1::uuid and c.owner = current_user and {_LIVE}""",
                 ("text", "text"), (cid, tag_key))
    if row is None:
        if force:
            return
        raise _missing(cid)
    if not row["has"]:
        if force:
            return
        raise UndefinedObject(f"conversation id={show_id(cid)} has no tag {tag_key!r}",
                              hint="See the tags column of dbms_cloud_ai.user_cloud_ai_conversations.")
    writer.query(plpy, """update dbms_cloud_ai._conversation set tags = tags - $2, modified = pg_catalog.now()
                       where conversation_id = $1::uuid and owner = dbms_cloud_ai._caller()""",
             ("text", "text"), (cid, tag_key))


# --- the session's current conversation ------------------------------------------------

def _session_id(plpy):
    row = db.one(plpy, "select pg_catalog.current_setting($1, true) as v", ("text",), (SESSION_GUC,))
    return (row["v"] or "").lower() or None


def _set_session(plpy, cid):
    db.query(plpy, "select pg_catalog.set_config($1, $2, false)", ("text", "text"), (SESSION_GUC, show_id(cid)))


def set_session(plpy, conversation_id):
    cid = parse_id(conversation_id)
    if not _exists(plpy, cid):
        raise _missing(cid)
    _set_session(plpy, cid)


def get_session(plpy):
    cid = _session_id(plpy)
    if cid is None or not _ID.match(cid) or not _exists(plpy, cid):
        return None
    return show_id(cid)


def clear_session(plpy):
    db.query(plpy, "select pg_catalog.set_config($1, '', false)", ("text",), (SESSION_GUC,))


# --- history for a generate() call ----------------------------------------------------------

@dataclass
class Thread:
    """The history a call continues, and where its turn is written afterwards."""

    kind: str                      # "named" or "session"
    conversation_id: str | None
    history: list[dict] = field(default_factory=list)   # what is sent: summary, then window
    title_pending: bool = False
    window: list[dict] = field(default_factory=list)    # user/assistant messages, oldest first
    condense: summaries.Condense | None = None          # summarize_history on (named only)


def for_call(plpy, params: dict, attrs: dict, profile_name: str,
             session_id: str | None, rows_private: bool = False,
             caps: dict | None = None) -> Thread | None:
    """``session_id`` is the setting dbms_cloud_ai.conversation_id as the call's
    first query read it (profiles.for_call), lower-cased.  ``rows_private``:
    data access is disabled, narrate answers are withheld (data_access.py).
    ``caps`` (a grantee of a shared profile: sharing.check_caps): the
    conversation's own conversation_length, summarize_history and
    summary_max_tokens are clamped to them (the owner's key pays)."""
    explicit = params.get("conversation_id")
    if explicit is not None:
        cid = parse_id(explicit)
    else:
        cid = session_id
        if cid is not None and not _ID.match(cid):
            raise InvalidId("Invalid value for conversation id",
                            detail="The setting dbms_cloud_ai.conversation_id holds a malformed id.",
                            hint="Call dbms_cloud_ai.clear_conversation_id() or set_conversation_id().")
    if cid is not None:
        conv = db.one(plpy, f"""
            select c.conversation_length, c.title_pending, c.summarize_history,
                   c.summary_max_tokens, s.summary, s.first_seq, s.covers_seq, s.prompts,
                   s.generation
              from dbms_cloud_ai._conversation c
              left join dbms_cloud_ai._conversation_summary s
                on s.conversation_id = c.conversation_id and s.owner = current_user
             where c.conversation_id = $1::uuid and c.owner = current_user and {_LIVE}""",
                      ("text",), (cid,))
        if conv is None:
            raise UndefinedObject(
                f"conversation id={show_id(cid)} does not exist",
                hint=_HINT_CREATE if explicit is not None else
                "Call dbms_cloud_ai.clear_conversation_id() or set_conversation_id() with a live id.")
        length = conv["conversation_length"] or attrs.get("conversation_length") or DEFAULT_LENGTH
        if caps is not None:
            length = min(length, caps["conversation_length"])
            if not caps["summarize_history"]:
                conv = {**conv, "summarize_history": False}
            elif (conv["summary_max_tokens"] or 0) > caps["summary_max_tokens"]:
                conv = {**conv, "summary_max_tokens": caps["summary_max_tokens"]}
        condense = summaries.state(conv, attrs)
        # Newest first, after the summary (when summarising): the window, then
        # what fell out of it since the summary was made.  Bounded at any length.
        rows = db.query(plpy, """
            select seq, prompt, prompt_response, prompt_action from dbms_cloud_ai._conversation_prompt
             where conversation_id = $1::uuid and owner = current_user and seq > $2
             order by seq desc limit $3""", ("text", "int8", "int4"),
                        (cid, condense.after if condense else summaries.NO_SEQ,
                         summaries.read_limit(condense, length)))
        if rows_private:
            rows = data_access.withheld(rows)
        window = _messages(summaries.split(condense, rows, length))
        return Thread("named", cid, summaries.with_summary(condense, window), conv["title_pending"],
                      window, condense)
    if attrs.get("conversation"):
        if not _session_table_exists(plpy):
            return Thread("session", None)
        rows = db.query(plpy, """
            select prompt, prompt_response, prompt_action from (
                select prompt, prompt_response, prompt_action, seq from pg_temp.dca_session_prompt
                 where owner = current_user and profile_name = $1
                 order by seq desc limit $2) t
             order by seq""", ("text", "int4"), (profile_name, SESSION_MAX))
        if rows_private:
            rows = data_access.withheld(rows)
        return Thread("session", None, _messages(rows))
    return None


def _messages(rows):
    out = []
    for r in rows:
        out.append({"role": "user", "content": r["prompt"]})
        out.append({"role": "assistant", "content": r["prompt_response"]})
    return out


def new_prompt_id() -> str:
    return str(uuid.uuid4())


_NO_TOTALS = dict.fromkeys(("provider", "model", "prompt_version", "input_tokens",
                            "output_tokens", "tokens_estimated", "latency_ms"))


# --- client request ids: one stored turn per (owner, request_id) -------------------------------

MAX_REQUEST_ID = 200
_REQUEST_ID_HINT = "Pass a string you make per call (a UUID, say), the same on every retry of it."


class TurnExists(Exception):
    """record(): another call stored the turn of this request id first."""

    def __init__(self, turn: dict):
        super().__init__(turn["prompt_id"])
        self.turn = turn


def parse_request_id(raw) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str) or not 1 <= len(raw) <= MAX_REQUEST_ID or not raw.isprintable():
        raise InvalidParameter(
            f"params request_id must be a string of 1 to {MAX_REQUEST_ID} printable characters",
            hint=_REQUEST_ID_HINT)
    return raw


def stored_turn(plpy, request_id: str) -> dict | None:
    """The calling role's turn stored under ``request_id``, if any."""
    return db.one(plpy, """
        select p.conversation_prompt_id::text as prompt_id, p.conversation_id::text as conversation_id,
               p.profile_name, p.prompt_action, p.prompt, p.prompt_response
          from dbms_cloud_ai._conversation_prompt p
         where p.owner = current_user and p.request_id = $1""", ("text",), (request_id,))


def check_replay(turn: dict, request_id: str, conversation_id: str, profile_name, action, prompt):
    """A request id names one turn: a call that reuses it must be that turn's retry."""
    differs = [what for what, stored, given in (
        ("conversation", turn["conversation_id"], conversation_id),
        ("action", turn["prompt_action"], action.upper()),
        ("profile", turn["profile_name"], profile_name),
        ("prompt", turn["prompt"], prompt)) if stored != given]
    if differs:
        raise InvalidParameter(
            f"request_id {request_id!r} already names another turn",
            detail="The stored turn's " + ", ".join(differs) + " differ from this call's.",
            hint="Use a new request_id for a new call; reuse one only to retry the same call.")


def record(plpy, thread: Thread, profile_name, action, prompt, response, prompt_id=None,
           totals=None, speaker=None, request_id=None):
    """Write one turn (prompt and response together) after the model answered,
    with what its model calls cost (``accounting.turn_totals``) and, for
    long-term memory, who said it (``speaker``: identity.Identity).  A turn
    with a ``request_id`` another call stored first raises TurnExists: the
    unique index decides at insert time, so nothing is locked while the model
    answers."""
    if thread.kind == "session":
        _session_record(plpy, profile_name, action, prompt, response)
        return True
    t = {**_NO_TOTALS, **(totals or {})}
    try:
        with plpy.subtransaction():
            row = writer.one(plpy, f"""
                insert into dbms_cloud_ai._conversation_prompt
                       (conversation_prompt_id, conversation_id, profile_name, prompt_action, prompt,
                        prompt_response, client_identifier, client_ip, sid, serial_no,
                        provider, model, prompt_version, input_tokens, output_tokens,
                        tokens_estimated, latency_ms, organization, subject, request_id)
                select $1::uuid, c.conversation_id, $3, $4, $5, $6,
                       nullif(pg_catalog.current_setting('application_name'), ''),
                       pg_catalog.host(pg_catalog.inet_client_addr()), pg_catalog.pg_backend_pid(),
                       $17, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16
                  from dbms_cloud_ai._conversation c
                 where c.conversation_id = $2::uuid and c.owner = dbms_cloud_ai._caller() and {_LIVE}
                    on conflict (owner, request_id) where request_id is not null do nothing
                returning 1 as x""", ("text", "text", "text", "text", "text", "text",
                                     "text", "text", "text", "int4", "int4", "bool", "int4",
                                     "text", "text", "text", "int8"),
                         (prompt_id or new_prompt_id(), thread.conversation_id, profile_name,
                          action.upper(), prompt, response, t["provider"], t["model"],
                          t["prompt_version"], t["input_tokens"], t["output_tokens"],
                          t["tokens_estimated"], t["latency_ms"],
                          speaker.organization if speaker else None,
                          speaker.subject if speaker else None, request_id,
                          backend_serial(plpy)))
    except plpy.spiexceptions.ForeignKeyViolation:
        row = None
    if row is None and request_id is not None:
        winner = stored_turn(plpy, request_id)
        if winner is not None:
            raise TurnExists(winner)
    if row is None:  # dropped (or expired) while the model was answering
        plpy.warning(f"conversation id={show_id(thread.conversation_id)} no longer exists; "
                     "this answer was not recorded")
        return False
    return True


_serial: list[int] = []


def backend_serial(plpy) -> int | None:
    """This backend's serial number (its start, in microseconds): with its pid,
    the session a row was written in.  Read in the caller's own context (the
    writer's role may not read the caller's backend), once per backend."""
    if not _serial:
        s = db.one(plpy, """
            select (extract(epoch from a.backend_start) * 1000000)::bigint as s
              from pg_catalog.pg_stat_get_activity(pg_catalog.pg_backend_pid()) a""")["s"]
        if s is None:
            return None
        _serial.append(s)
    return _serial[0]


def claim_naming(plpy, cid) -> bool:
    """True for the one turn that names an untitled conversation.

    Every turn that started while the conversation was untitled read
    title_pending = true; without a claim, each of them would ask the model
    for a title.  The claim is a transaction-scoped advisory lock, tried and
    never waited for, and title_pending is read again once it is held: the
    claimant's commit is visible before its lock goes.  generate() claims and
    names before record() writes the turn, so no row lock (the new prompt's
    key-share lock on its conversation) is held while the model names it:
    drop, update and other turns are not blocked."""
    row = db.one(plpy, """
        select pg_catalog.pg_try_advisory_xact_lock(
                   pg_catalog.hashtext('dbms_cloud_ai.name_conversation'),
                   pg_catalog.hashtext($1)) as locked""", ("text",), (cid,))
    if not row["locked"]:
        return False
    row = db.one(plpy, f"""select c.title_pending from dbms_cloud_ai._conversation c
                            where c.conversation_id = $1::uuid and c.owner = current_user
                              and {_LIVE}""", ("text",), (cid,))
    return bool(row and row["title_pending"])


def set_title(plpy, thread: Thread, title: str | None, description: str | None):
    writer.query(plpy, """
        update dbms_cloud_ai._conversation
           set title = coalesce(title, $2), description = coalesce(description, $3),
               title_generated = title is null and $2 is not null,
               title_pending = false, modified = pg_catalog.now()
         where conversation_id = $1::uuid and owner = dbms_cloud_ai._caller() and title_pending""",
             ("text", "text", "text"),
             (thread.conversation_id, title[:MAX_TITLE] if title else None, description))


# --- the session's short-term conversation ----------------------------------------------------

def _session_table_exists(plpy) -> bool:
    """Whether this backend has the session table; a table of that name that
    dbms_cloud_ai_owner does not own was planted by another role of this
    backend (SET ROLE, a pooler) to read or seed history, and is refused."""
    row = db.one(plpy, """
        select c.relowner = r.oid as ours
          from pg_catalog.pg_class c, pg_catalog.pg_roles r
         where c.oid = pg_catalog.to_regclass('pg_temp.dca_session_prompt')
           and r.rolname = 'dbms_cloud_ai_owner'""")
    if row is None:
        return False
    if not row["ours"]:
        raise NotInPrerequisiteState(
            "temporary table dca_session_prompt of this session was not created by dbms_cloud_ai",
            detail="Another role of this session created it; the session conversation will not use it.",
            hint="Run DISCARD TEMP (or reconnect), then call dbms_cloud_ai.generate again.")
    return True


def clear_session_prompts(plpy) -> None:
    """Forget the calling role's short-term conversation in this session."""
    if _session_table_exists(plpy):
        db.query(plpy, "delete from pg_temp.dca_session_prompt where owner = current_user")


def _session_record(plpy, profile_name, action, prompt, response):
    if not _session_table_exists(plpy):
        # A temporary table: it disappears with the session, as Oracle's does.
        db.query(plpy, "select dbms_cloud_ai._session_table()")
    db.query(plpy, """insert into pg_temp.dca_session_prompt
                          (profile_name, prompt_action, prompt, prompt_response)
                      values ($1, $2, $3, $4)""", ("text", "text", "text", "text"),
             (profile_name, action.upper(), prompt, response))
    db.query(plpy, """
        delete from pg_temp.dca_session_prompt
         where owner = current_user and profile_name = $1 and seq not in (
               select seq from pg_temp.dca_session_prompt
                where owner = current_user and profile_name = $1 order by seq desc limit $2)""",
             ("text", "int4"), (profile_name, SESSION_MAX))


def session_prompts(plpy):
    if not _session_table_exists(plpy):
        return []
    return [(r["seq"], r["profile_name"], r["prompt_action"], r["prompt"], r["prompt_response"],
             r["created"])
            for r in db.query(plpy, """select seq, profile_name, prompt_action, prompt, prompt_response,
                                              created
                                         from pg_temp.dca_session_prompt
                                        where owner = current_user order by seq""")]


# --- retention ---------------------------------------------------------------------------------

def purge_batch(plpy, batch_size) -> int:
    """Delete up to ``batch_size`` prompts of expired conversations, and the
    expired conversations left without prompts; return rows deleted.

    The procedure purge_expired_conversations commits after each batch, so no
    lock is held for long.  Prompts go by ctid from the (conversation_id, seq)
    index, one conversation at a time: the same plan whether or not row-level
    security applies (a superuser's purge would otherwise scan the table)."""
    if batch_size is None or batch_size < 1:
        raise InvalidParameter("batch_size must be at least 1", hint="Pass batch_size => 10000.")
    # An administrator purges every role's expired conversations with their own
    # privileges (their purge policies); anyone else purges their own, through
    # the writer.
    w = db if acl.is_admin(plpy) else writer
    deleted, room = 0, batch_size
    while room > 0:
        conv = db.one(plpy, """
            select c.conversation_id::text as id from dbms_cloud_ai._conversation c
             where c.expires_at <= pg_catalog.now() order by c.expires_at limit 1""")
        if conv is None:
            break
        n = w.one(plpy, """
            with doomed as (select ctid from dbms_cloud_ai._conversation_prompt
                             where conversation_id = $1::uuid limit $2)
            , gone as (delete from dbms_cloud_ai._conversation_prompt p
                        where p.ctid = any (array(select ctid from doomed)) returning 1)
            select count(*) as n from gone""", ("text", "int4"), (conv["id"], room))["n"]
        deleted += n
        room -= n
        if room > 0:  # every prompt is gone: the conversation goes too
            deleted += w.one(plpy, """
                with gone as (delete from dbms_cloud_ai._conversation c
                               where c.conversation_id = $1::uuid and c.expires_at <= pg_catalog.now()
                                 and not exists (select from dbms_cloud_ai._conversation_prompt p
                                                  where p.conversation_id = c.conversation_id)
                              returning 1)
                select count(*) as n from gone""", ("text",), (conv["id"],))["n"]
    return deleted


_TITLE_SYSTEM = ("You name conversations. Reply with a JSON object and nothing else: "
                 '{"title": "<at most 8 words>", "description": "<one sentence>"}.')
TITLE_VERSION = accounting.version("title", _TITLE_SYSTEM)


def title_request(prompt: str, response: str) -> list[dict]:
    """The messages asking the model to name a conversation after its first turn."""
    return [
        {"role": "system", "content": _TITLE_SYSTEM},
        {"role": "user", "content": f"First question:\n{prompt}\n\nFirst answer:\n{response[:2000]}"},
    ]


def parse_title(text: str) -> tuple[str, str | None]:
    try:
        start, end = text.index("{"), text.rindex("}") + 1
        data = jsontext.loads(text[start:end])
        title = str(data.get("title") or "").strip()
        desc = data.get("description")
        if title:
            return title[:MAX_TITLE], (str(desc).strip() or None) if desc else None
    except (ValueError, AttributeError):
        pass
    first = text.strip().splitlines()[0].strip(" \"'#*") if text.strip() else "Conversation"
    return first[:MAX_TITLE] or "Conversation", None


# --- scheduling the purge with pg_cron ------------------------------------------------------

PURGE_JOB = "dbms_cloud_ai_purge_conversations"


_PURGE_ELSEWHERE = "CALL dbms_cloud_ai.purge_expired_conversations()"


def schedule_purge(plpy, schedule, batch_size):
    """Schedule the purge with pg_cron as the calling administrator; returns the job id."""
    scheduling.check(plpy, "dbms_cloud_ai.schedule_conversation_purge", _PURGE_ELSEWHERE)
    if batch_size is None or not 1 <= batch_size <= 1_000_000:
        raise InvalidParameter("batch_size must be between 1 and 1000000",
                               hint="Pass batch_size => 10000.")
    return scheduling.schedule(plpy, "dbms_cloud_ai.schedule_conversation_purge", PURGE_JOB,
                               schedule,
                               f"call dbms_cloud_ai.purge_expired_conversations({int(batch_size)})",
                               _PURGE_ELSEWHERE)


def unschedule_purge(plpy):
    return scheduling.unschedule(plpy, "dbms_cloud_ai.unschedule_conversation_purge", PURGE_JOB,
                                 _PURGE_ELSEWHERE)
