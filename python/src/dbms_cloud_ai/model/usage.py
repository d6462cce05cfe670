"""Model prices and the daily summary for the usage reports (the views are SQL:
sql/api/060-accounting-usage.sql).

An administrator sets the price of a model per million input and output
tokens.  A price applies to the model the calls record under that name and to
the same name with a date suffix, which providers add to the model they report
('gpt-4o-mini-2024-07-18' for a request for 'gpt-4o-mini'); an exact price wins.

``summarize`` fills dbms_cloud_ai._usage_daily: for each UTC day up to
yesterday, what the usage views report per owner, action, provider and model.
The views read the days it covers from there and later days from the calls
themselves.  A day is rebuilt when its number of calls no longer matches its
summary (a record stored late, after a failed statement; rows removed), which
it checks for the last ``recheck_days`` summarized days.
"""

from __future__ import annotations

import re

from .. import acl, db, providers, scheduling
from ..errors import InvalidParameter, NullValue

_CURRENCY = re.compile(r"[A-Z]{3}\Z")


def _provider(name) -> str:
    known = sorted([*providers.PROVIDERS, providers.COMPATIBLE.name])
    if name is None:
        raise NullValue("provider must not be NULL", hint="Pass one of: " + ", ".join(known) + ".")
    p = name.strip().lower()
    if p not in known:
        raise InvalidParameter(f"unknown provider {name!r}",
                               detail="Providers: " + ", ".join(known) + ".",
                               hint="Use the provider name the calls record "
                                    "(user_cloud_ai_calls.provider).")
    return p


def set_price(plpy, provider, model, input_per_million, output_per_million, currency) -> None:
    acl.require_admin(plpy, "dbms_cloud_ai.set_model_price")
    p = _provider(provider)
    if model is None or not model.strip():
        raise NullValue("model must not be NULL or empty",
                        hint="Pass a model name as the calls record it, or the start of one.")
    m = model.strip()
    if input_per_million is None and output_per_million is None:
        db.query(plpy, "delete from dbms_cloud_ai._model_price where provider = $1 and model = $2",
                 ("text", "text"), (p, m))
        return
    if input_per_million is None or output_per_million is None:
        raise NullValue("give both prices, or neither to remove the price",
                        hint="For example set_model_price('openai', 'gpt-4o-mini', 0.15, 0.60).")
    for what, v in (("input_per_million", input_per_million),
                    ("output_per_million", output_per_million)):
        if v < 0:
            raise InvalidParameter(f"{what} must be 0 or more, not {v}",
                                   hint="Prices are per million tokens.")
    c = (currency if currency is not None else "USD").strip().upper()
    if not _CURRENCY.match(c):
        raise InvalidParameter(f"invalid currency {currency!r}",
                               hint="Use a three-letter ISO 4217 code such as 'USD' or 'EUR'.")
    db.query(plpy, """
        insert into dbms_cloud_ai._model_price
               (provider, model, input_per_million, output_per_million, currency)
        values ($1, $2, $3, $4, $5)
        on conflict (provider, model) do update
           set input_per_million = excluded.input_per_million,
               output_per_million = excluded.output_per_million,
               currency = excluded.currency, modified = pg_catalog.now()""",
             ("text", "text", "numeric", "numeric", "text"),
             (p, m, input_per_million, output_per_million, c))


# The days to (re)build: those up to yesterday (UTC) after $1 whose number of
# calls differs from their summary (never summarized: no summary at all).
_STALE_DAYS = """
    with raw as (
        select pg_catalog.timezone('UTC', m.created)::date as day, pg_catalog.count(*) as n
          from dbms_cloud_ai._model_call m
         where pg_catalog.timezone('UTC', m.created)::date > $1
           and pg_catalog.timezone('UTC', m.created)::date <= $2
         group by 1),
    summarized as (
        select d.day, pg_catalog.sum(d.calls) as n
          from dbms_cloud_ai._usage_daily d
         where d.day > $1 and d.day <= $2
         group by 1)
    select coalesce(pg_catalog.array_agg(coalesce(raw.day, summarized.day)::text
                                         order by coalesce(raw.day, summarized.day)),
                    '{}') as days
      from raw full join summarized on raw.day = summarized.day
     where raw.n is distinct from summarized.n"""

# The same aggregation as the live part of dbms_cloud_ai._usage (keep them alike).
_BUILD = """
    with gone as (delete from dbms_cloud_ai._usage_daily where day = any($1::date[]))
    insert into dbms_cloud_ai._usage_daily
           (day, owner, action, provider, model, calls, errors, input_tokens, output_tokens,
            latency_p50_ms, latency_p95_ms)
    select l.day, l.owner, l.action, l.provider, l.model, l.calls, l.errors, l.input_tokens,
           l.output_tokens, l.latency_ms[1], l.latency_ms[2]
      from (select pg_catalog.timezone('UTC', m.created)::date as day, m.owner, m.action,
                   m.provider, m.model, pg_catalog.count(*) as calls,
                   pg_catalog.count(*) filter (where m.status = 'error') as errors,
                   pg_catalog.sum(m.input_tokens) as input_tokens,
                   pg_catalog.sum(m.output_tokens) as output_tokens,
                   pg_catalog.percentile_disc(array[0.5, 0.95]::float8[])
                       within group (order by m.latency_ms) as latency_ms
              from dbms_cloud_ai._model_call m
             where pg_catalog.timezone('UTC', m.created)::date = any($1::date[])
             group by 1, 2, 3, 4, 5) l"""


def summarize(plpy, recheck_days) -> int:
    """Summarize the days up to yesterday (UTC) that need it; returns how many."""
    acl.require_admin(plpy, "dbms_cloud_ai.summarize_usage")
    if recheck_days is not None and recheck_days < 0:
        raise InvalidParameter(f"recheck_days must be 0 or more, not {recheck_days}",
                               hint="Pass NULL to recheck every summarized day.")
    # One summarizer at a time: the state row is locked until commit.
    state = db.one(plpy, """
        select s.summarized_through::text as through,
               (pg_catalog.now() at time zone 'UTC')::date operator(pg_catalog.-) 1 as target
          from dbms_cloud_ai._usage_state s for update""")
    if state["through"] is None or recheck_days is None:
        after = "-infinity"
    else:
        after = db.one(plpy, "select ($1::date - $2)::text as d", ("text", "int4"),
                       (state["through"], recheck_days))["d"]
    days = db.one(plpy, _STALE_DAYS, ("date", "date"), (after, state["target"]))["days"]
    if days:
        db.query(plpy, _BUILD, ("text[]",), (days,))
    db.query(plpy, """
        update dbms_cloud_ai._usage_state
           set summarized_through = greatest(summarized_through, $1),
               summarized_at = pg_catalog.now()""", ("date",), (state["target"],))
    return len(days)


USAGE_JOB = "dbms_cloud_ai_summarize_usage"
_USAGE_ELSEWHERE = "SELECT dbms_cloud_ai.summarize_usage()"


def schedule_summary(plpy, when) -> int:
    """Run summarize_usage() on a pg_cron schedule, as the calling administrator."""
    return scheduling.schedule(plpy, "dbms_cloud_ai.schedule_usage_summary", USAGE_JOB, when,
                               "select dbms_cloud_ai.summarize_usage()", _USAGE_ELSEWHERE)


def unschedule_summary(plpy) -> bool:
    return scheduling.unschedule(plpy, "dbms_cloud_ai.unschedule_usage_summary", USAGE_JOB,
                                 _USAGE_ELSEWHERE)
