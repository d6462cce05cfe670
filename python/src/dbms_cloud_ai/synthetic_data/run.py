"""GENERATE_SYNTHETIC_DATA end to end: checks, batches, inserts, counts.

Everything that can be refused is refused before the first request: the
arguments, the profile, the data-access switch (Oracle: synthetic data fails
while data access is disabled), a read-only transaction, each table and the
caller's INSERT privilege on the columns written, and the number of requests
(at most ``dbms_cloud_ai.max_text_calls``, counted for the first pass).

Each table gets one prepared INSERT naming its own columns, quoted from the
catalog; the model's values are its parameters.  It runs as the caller
(SECURITY INVOKER: privileges, row-level security, triggers), one row per
subtransaction, so a row PostgreSQL refuses (a data or integrity error, a
row-level security policy, a trigger's exception) is skipped and counted.
Batches repeat until record_count rows are in or, per table, 2 * planned + 1
requests were made.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter

from .. import data_access, db, profiles, settings
from ..errors import InvalidParameter, ReadOnlyTransaction, TooManyCalls
from ..model import accounting, llm
from . import prompt, tables
from .params import FN, Options

ACTION = "SYNTHETIC_DATA"
CALLS_GUC = "dbms_cloud_ai.max_text_calls"
# PostgreSQL's refusals of one row: data exceptions, integrity constraints,
# WITH CHECK OPTION, row-level security (42501) and a trigger's RAISE (P0001).
# Anything else (a cancel, a lock timeout, a missing privilege on a sequence
# ...) ends the call.
_ROW_CLASSES = ("22", "23", "44")
_ROW_STATES = ("42501", "P0001")
CHARS_PER_TOKEN = 3
ANSWER_FILL = 0.8          # of max_tokens, for the rows of one answer


def batch_rows(table: tables.Table, opts: Options, max_tokens: int) -> int:
    """Rows per request: the priority's, fewer when max_tokens cannot hold them."""
    row_chars = 4 + sum(len(json.dumps(c.name)) + 32 for c in table.model_columns)
    fit = int(max_tokens * ANSWER_FILL * CHARS_PER_TOKEN / row_chars)
    return max(1, min(opts.batch_rows, fit))


def _check_calls(plpy, planned: int, shared: bool = False):
    raw = db.one(plpy, "select pg_catalog.current_setting($1, true) as v", ("text",),
                 (CALLS_GUC,))["v"]
    cap = settings.for_grantee(CALLS_GUC, settings.value(CALLS_GUC, raw), shared)
    if planned > cap:
        raise TooManyCalls(f"generating these rows needs {planned} model calls, more than "
                           f"{CALLS_GUC} ({cap})",
                           hint=f"SET {CALLS_GUC} = {planned}; or lower record_count before "
                                f"calling {FN} again.")


def generate(plpy, profile_name, targets, opts: Options, search_path) -> str:
    ctx = profiles.for_call(plpy, profile_name)
    data_access.require(ctx, "generate_synthetic_data",
                        "sends tables to the model to invent rows")
    if ctx.settings.get("ro") == "on":
        raise ReadOnlyTransaction("generate_synthetic_data cannot insert rows in a read-only "
                                  "transaction", hint=f"Call {FN} on the primary, outside a "
                                                      "read-only transaction.")
    found = [tables.resolve(plpy, t, list(search_path or [])) for t in targets]
    if len({t.oid for t in found}) < len(found):
        raise InvalidParameter("object_list names a table more than once",
                               hint="Name each table once, with its total record_count.")
    attrs = ctx.profile.attrs
    max_tokens = attrs.get("max_tokens") or 1024
    batches = {t.oid: batch_rows(t, opts, max_tokens) for t in found}
    _check_calls(plpy, sum(math.ceil(t.target.record_count / batches[t.oid])
                           for t in found if t.model_columns), ctx.owner is not None)
    report = []
    with accounting.turn(plpy, ctx, ctx.profile.name, ACTION):
        for table in tables.in_dependency_order(found):
            counts = _fill(plpy, ctx, attrs, table, opts, batches[table.oid])
            plpy.notice(f"generate_synthetic_data: {table.qualified}: {counts['inserted']} of "
                        f"{counts['record_count']} rows inserted, {counts['skipped']} skipped, "
                        f"{counts['model_calls']} model calls")
            report.append(counts)
    return json.dumps(report)


def _insert_plan(plpy, table: tables.Table):
    cols = table.written
    if not cols:
        return plpy.prepare(f"insert into {table.qualified} default values")
    return plpy.prepare(
        f"insert into {table.qualified} ({', '.join(c.quoted for c in cols)}) values ("
        + ", ".join(f"${i}" for i in range(1, len(cols) + 1)) + ")",
        [c.param_type for c in cols])


def _insert(plpy, plan, args) -> str | None:
    """None when the row is in, else the SQLSTATE of PostgreSQL's refusal."""
    try:
        with plpy.subtransaction():
            plpy.execute(plan, args)
        return None
    except plpy.SPIError as e:
        state = getattr(e, "sqlstate", None) or ""
        if state[:2] in _ROW_CLASSES or state in _ROW_STATES:
            return state
        raise


def _fill(plpy, ctx, attrs, table: tables.Table, opts: Options, batch: int) -> dict:
    total = table.target.record_count
    counts = {"owner": table.schema, "name": table.name, "record_count": total, "inserted": 0,
              "skipped": 0, "model_calls": 0}
    refused: Counter = Counter()
    if total == 0:
        return counts | {"skipped_sqlstates": {}}
    plan = _insert_plan(plpy, table)
    parents = [(fk, tables.parent_keys(plpy, fk)) for fk in table.foreign_keys]
    asks_model = bool(table.model_columns)
    samples = tables.sample_rows(plpy, table, opts.sample_rows) if asks_model else []
    stats = tables.statistics(plpy, table) if asks_model and opts.table_statistics else []
    rounds, limit = 0, 2 * math.ceil(total / batch) + 1
    while counts["inserted"] < total and rounds < limit:
        rounds += 1
        n = min(batch, total - counts["inserted"])
        rows: list | None = [{}] * n
        if asks_model:
            counts["model_calls"] += 1
            answer = llm.chat(plpy, attrs, prompt.messages(table, opts, samples, stats, n,
                                                           counts["inserted"], rounds),
                              ctx, purpose=prompt.PURPOSE, prompt_version=prompt.VERSION)
            rows = prompt.rows_of(answer.text, n) or []
        for row in rows:
            try:
                args = prompt.values(table, row) if asks_model else []
            except prompt.Unusable:
                counts["skipped"] += 1
                refused["unusable"] += 1
                continue
            args += _parent_values(table, parents)
            state = _insert(plpy, plan, args)
            if state is None:
                counts["inserted"] += 1
            else:
                counts["skipped"] += 1
                refused[state] += 1
    return counts | {"skipped_sqlstates": dict(refused)}


def _parent_values(table: tables.Table, parents) -> list:
    """A parent key for each foreign key, in ``table.written`` order (NULL when
    the parent has no readable row)."""
    chosen: dict[str, str | None] = {}
    for fk, keys in parents:
        pick = random.choice(keys) if keys else (None,) * len(fk.columns)
        for col, value in zip(fk.columns, pick):
            chosen.setdefault(col, value)
    fks = table.fk_columns
    return [chosen.get(c.name) for c in table.written if c.name in fks]

