"""Daily token budgets: refuse a request that would exceed one, before it is sent.

An administrator sets a budget for a role (the tokens of its own calls) or for
PUBLIC (the tokens of every call in the database) with ``set_token_budget``.
A day is a UTC calendar day.  Used tokens are the larger of two counts: the
input and output tokens recorded by ``accounting`` (stored, plus this
backend's not yet stored), and the spend counter (``spool``), which counts
every request sent while a budget applied and which no rollback, read-only
transaction or reconnect undoes.  The request about to be sent counts with its
estimated input (four characters per token; output cannot be known in
advance), reserved in the counter in the same locked step as the check, so
concurrent sessions cannot both take the last room.

The budgets that apply to the caller come with the call's first query
(``profiles.for_call``), so a database without budgets pays nothing.

A grantee of a shared profile is also bounded by the owner's budget on the
grant (``sharing.set_grant_budget``): the tokens this role spent through that
profile today (its rows and records naming the profile ``"owner"."NAME"``),
counted the same way, in a spend counter of its own (the role and profile).
"""

from __future__ import annotations

import json

from .. import acl, db, role_binding
from ..errors import InvalidParameter, TokenBudgetExceeded
from . import accounting, spool

_BUDGETS = """select (select pg_catalog.json_object_agg(b.principal, b.daily_tokens)
                        from dbms_cloud_ai._token_budget b)::text as budgets"""

# This role's tokens today (its own rows: row-level security), and, when a
# database-wide budget exists, everyone's (a SECURITY DEFINER function that
# returns only the total); then the tokens of this backend's records of today
# that are in no row it can see: never written (a read-only transaction), or
# written by a transaction or savepoint that rolled back.  Those tokens were
# spent all the same, and counting only never-written records would let a
# BEGIN ... generate ... ROLLBACK loop run past any budget.
_USED = """
    select (select coalesce(pg_catalog.sum(coalesce(m.input_tokens, 0)
                                                      + coalesce(m.output_tokens, 0)), 0)
              from dbms_cloud_ai._model_call m
             where m.owner = current_user
               and m.created >= pg_catalog.date_trunc('day', pg_catalog.now(), 'UTC'))::int8 as own,
           case when $1 then dbms_cloud_ai._tokens_used_today() end as total,
           (select coalesce(pg_catalog.sum(h.tokens), 0)
              from pg_catalog.json_to_recordset($2::json) as h(call_id uuid, tokens int8,
                                                               created float8)
             where pg_catalog.to_timestamp(h.created)
                       >= pg_catalog.date_trunc('day', pg_catalog.now(), 'UTC')
               and not exists (select from dbms_cloud_ai._model_call m
                                where m.call_id = h.call_id))::int8 as unsaved,
           case when $3::text is not null then
           (select coalesce(pg_catalog.sum(coalesce(m.input_tokens, 0)
                                                      + coalesce(m.output_tokens, 0)), 0)
              from dbms_cloud_ai._model_call m
             where m.owner = current_user and m.profile_name = $3
               and m.created >= pg_catalog.date_trunc('day', pg_catalog.now(), 'UTC'))::int8
           end as through,
           (select coalesce(pg_catalog.sum(h.tokens), 0)
              from pg_catalog.json_to_recordset($2::json) as h(call_id uuid, tokens int8,
                                                               created float8, profile text)
             where h.profile = $3
               and pg_catalog.to_timestamp(h.created)
                       >= pg_catalog.date_trunc('day', pg_catalog.now(), 'UTC')
               and not exists (select from dbms_cloud_ai._model_call m
                                where m.call_id = h.call_id))::int8 as unsaved_through"""


def parse(raw: str | None) -> dict:
    return json.loads(raw) if raw else {}


def check(plpy, ctx, messages: list[dict], reserve: bool = True) -> None:
    """Refuse the request about to be sent if a budget would be exceeded; else
    (``reserve``) count its estimate at once in the spend counters (``spool``),
    which no rollback undoes; ``accounting.record`` settles it."""
    budgets = ctx.budgets if ctx is not None and ctx.budgets is not None \
        else parse(db.one(plpy, _BUDGETS)["budgets"])
    grant_limit = ctx.grant_budget if ctx is not None and ctx.owner else None
    if not budgets and grant_limit is None:
        return
    who = ctx.who if ctx is not None else db.current_user(plpy)
    own_limit, all_limit = budgets.get(who), budgets.get("PUBLIC")
    if own_limit is None and all_limit is None and grant_limit is None:
        return
    estimate = sum(len(str(m.get("content") or "")) for m in messages) // 4 + 1
    held = [{"call_id": r["call_id"], "created": r["created"], "profile": r["profile_name"],
             "tokens": (r["input_tokens"] or 0) + (r["output_tokens"] or 0)}
            for r in accounting.held(who) if r["input_tokens"] or r["output_tokens"]]
    through = ctx.profile.name if grant_limit is not None else None
    row = db.one(plpy, _USED, ("bool", "text", "text"),
                 (all_limit is not None, json.dumps(held), through))
    unsaved = row["unsaved"]
    limits = {}
    if own_limit is not None:
        limits[who] = (own_limit, (row["own"] or 0) + unsaved)
    if all_limit is not None:
        limits["PUBLIC"] = (all_limit, (row["total"] or 0) + unsaved)
    if grant_limit is not None:
        limits[grant_counter(ctx)] = (grant_limit, (row["through"] or 0)
                                      + row["unsaved_through"])
    if reserve:
        reservation, over = spool.reserve(plpy, limits, estimate)
    else:
        reservation, over = None, next(((p, lim, used) for p, (lim, used) in limits.items()
                                        if used + estimate > lim), None)
    if over is not None:
        principal, limit, used = over
        detail = (f"Budget {limit} tokens per UTC day; used today {used}; this request "
                  f"needs about {estimate} input tokens.")
        if principal not in (who, "PUBLIC"):
            raise TokenBudgetExceeded(
                f"daily token budget of role {who} through shared profile {ctx.profile.name} "
                "would be exceeded", detail=detail,
                hint="Wait until tomorrow (UTC), or ask the profile's owner to raise it with "
                     "dbms_cloud_ai.set_profile_grant_budget().")
        whose = "the database (PUBLIC)" if principal == "PUBLIC" else f"role {who}"
        raise TokenBudgetExceeded(
            f"daily token budget of {whose} would be exceeded", detail=detail,
            hint="Wait until tomorrow (UTC), or ask an administrator to raise it with "
                 f"dbms_cloud_ai.set_token_budget('{principal}', ...).")
    if reservation is not None:
        accounting.reserved(reservation)


def grant_counter(ctx) -> str:
    """The spend counter of a grantee's tokens through a shared profile: by the
    profile's id (a profile dropped and created again starts afresh) and the
    role; a NUL keeps it apart from any role's own counter."""
    return f"{ctx.who}\x00profile {ctx.profile.profile_id}"


def set_budget(plpy, principal_name, daily_tokens) -> None:
    acl.require_admin(plpy, "set_token_budget")
    who = acl.principal(plpy, principal_name)
    if daily_tokens is None:
        db.query(plpy, "delete from dbms_cloud_ai._token_budget where principal = $1",
                 ("text",), (who,))
        return
    if daily_tokens < 0:
        raise InvalidParameter(f"daily_tokens must be 0 or more, not {daily_tokens}",
                               hint="Pass NULL to remove the budget.")
    role_binding.bind_principal(plpy, who)
    db.query(plpy, """
        insert into dbms_cloud_ai._token_budget (principal, daily_tokens) values ($1, $2)
        on conflict (principal) do update
           set daily_tokens = excluded.daily_tokens, modified = pg_catalog.now()""",
             ("text", "int8"), (who, daily_tokens))
