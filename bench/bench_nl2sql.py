"""What NL2SQL costs inside the database: schema context, SQL validation, end to end.

Run by `make bench` against a throwaway cluster, or against any running server
(superuser postgres, trust auth):

    DCA_PGHOST=/path/to/sock DCA_PGPORT=5432 .venv/bin/python -m bench.bench_nl2sql \
        [--calls N] [--cold N] [--fresh N] [--reps N] [--e2e-calls N] [--keep]

It creates a login role bench_nl2sql_user (member of dbms_cloud_ai_user) and
two fresh databases with the extension: dca_bench_nl2sql, where the role owns
four schemas of realistic tables -- warm (3 tables), s10, s100 and s1000 -- and
dca_bench_nl2sql_small with only warm and s10.  Each table has 8 columns of
mixed types, a primary key, foreign keys to its parents, and comments on the
table and on most columns.  Each schema has an openai profile (object_list =>
the schema, comments => true, constraints => true) whose provider_endpoint is
an in-process fake LLM answering at once.

(1) Schema context.  dbms_cloud_ai.generate(question, profile, 'showprompt')
    builds the whole prompt (catalog read or cache check, relevance selection,
    DDL rendering, JSON) without calling the model.  Timed on the client, per
    call, for 10, 100 and 1,000 tables (and 10 in the small database), at the default
    dbms_cloud_ai.schema_context_tokens (12000) and, where that budget leaves
    tables out, at one large enough for all (1,000,000):
      cold, fresh session: a new connection whose first call (uncounted) used
                           the 3-table warm profile, so the package is imported
                           and its statements prepared; the timed call is the
                           first one for the scope;
      cold, after DDL:     another session changes a comment on one table of
                           the scope just before the call (new catalog
                           fingerprint, so the cache is rebuilt);
      cached:              repeated calls in one session, nothing changed.
    The configurations run interleaved, call by call, rotating who goes first.
    Prompt size is the characters of the messages' content (what the model
    receives), tokens about chars/4.

(2) Validation.  sqlguard.check() on 20 representative analytic queries
    (joins, CTEs, window functions, grouping sets, LATERAL, upper-case Oracle
    identifiers to fold) over the s10 tables, with allowed_objects, search_path
    and fold as nl2sql.accept() passes them: in this process (the package from
    python/src) and inside a backend (a PL/Python harness calling the loaded
    package's sqlguard, timed there with time.perf_counter()).

(3) End to end against the fake LLM, profile of s10 (10 tables, cached): chat,
    showprompt, showsql (prompt + model + validation + planning) and runsql
    (the same + execution, read-only, rows as JSON), one connection each,
    interleaved, the fake model answering each question with one of the 20
    queries; the NL2SQL actions run in both databases.  The difference to chat
    is the extension's NL2SQL overhead.

A benchmark, not a test: it exits 0 whatever the figures (2 if no server).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time

from fake_llm import Answer, FakeLLM, last_user_text
from psycopg import sql

from bench.benchlib import check, connect, durability, fresh_databases, summary

DBNAME = "dca_bench_nl2sql"
SMALL_DBNAME = "dca_bench_nl2sql_small"
ROLE = "bench_nl2sql_user"
CREDENTIAL = "BENCH_CRED"
API_KEY = "sk-bench-0123456789abcdef"
SIZES = (10, 100, 1000)
DEFAULT_BUDGET = 12_000        # settings.SETTINGS: dbms_cloud_ai.schema_context_tokens
ALL_BUDGET = 1_000_000         # its upper bound
CHARS_PER_TOKEN = 4
QUESTION = "What was the total amount of online orders per customer region last month?"
CHAT_ANSWER = "ok"
US, MS = 1e6, 1e3

# --- the schema ------------------------------------------------------------------

# (noun, parents): every parent comes earlier in the list, so any prefix of
# [area x noun] has the tables its foreign keys point to.
NOUNS = [
    ("region", ()), ("store", ("region",)), ("customer", ("region",)), ("employee", ("store",)),
    ("product_category", ()), ("product", ("product_category",)),
    ("order", ("customer", "store")), ("order_line", ("order", "product")),
    ("payment", ("order",)), ("shipment", ("order",)), ("supplier", ("region",)),
    ("purchase_order", ("supplier",)), ("inventory", ("product", "store")), ("promotion", ()),
    ("campaign", ("promotion",)), ("invoice", ("customer",)), ("refund", ("payment",)),
    ("warehouse", ("region",)), ("delivery_route", ("warehouse",)), ("vehicle", ("warehouse",)),
    ("department", ()), ("salary", ("employee",)), ("timesheet", ("employee",)),
    ("project", ("department",)), ("ticket", ("customer", "employee")),
    ("review", ("product", "customer")), ("loyalty_account", ("customer",)),
    ("gift_card", ("customer",)), ("price_list", ("product",)), ("tax_rate", ("region",)),
    ("currency", ()), ("exchange_rate", ("currency",)), ("budget", ("department",)),
    ("expense", ("employee",)), ("contract", ("supplier",)), ("asset", ("department",)),
    ("maintenance_job", ("asset",)), ("audit_event", ("employee",)),
    ("web_session", ("customer",)), ("page_view", ("web_session",)),
]
AREAS = ["retail", "online", "wholesale", "outlet", "franchise", "marketplace", "corporate",
         "emea", "apac", "americas", "latam", "nordic", "iberia", "benelux", "dach", "uk",
         "france", "italy", "japan", "india", "china", "brazil", "canada", "mexico", "oceania"]
# Filler columns after id and the foreign keys, up to 8 columns in all.
FILLERS = [
    ("name", "varchar(120) not null", "Display name of the {n}, as shown to staff"),
    ("status", "varchar(20)", "Lifecycle state: NEW, ACTIVE, CLOSED or CANCELLED"),
    ("amount", "numeric(12,2)", "Amount in EUR, taxes included"),
    ("created_at", "timestamptz not null default now()", "When the {n} was recorded (UTC)"),
    ("quantity", "integer", None),
    ("is_active", "boolean", None),
    ("valid_from", "date", "First day the {n} is valid"),
]


def tables_of(size: int) -> list[tuple[str, str, tuple[str, ...]]]:
    """(table, noun, parent nouns) of the first ``size`` tables of [area x noun]."""
    out = [(f"{a}_{n}", n, p) for a in AREAS for n, p in NOUNS][:size]
    check(len(out) == size, f"only {len(out)} tables can be named")
    return out


def columns_of(noun: str, parents) -> list[tuple[str, str, str | None]]:
    words = noun.replace("_", " ")
    cols = [("id", "bigint not null", None)]
    cols += [(f"{p}_id", "bigint not null", f"The {p.replace('_', ' ')} this {words} belongs to")
             for p in parents]
    cols += [(c, t, d.format(n=words) if d else None) for c, t, d in FILLERS[:8 - len(cols)]]
    return cols


def schema_ddl(schema: str, size: int) -> str:
    out = []
    for table, noun, parents in tables_of(size):
        area = table[:-len(noun) - 1]
        cols = columns_of(noun, parents)
        body = [f"    {c} {t}" for c, t, _ in cols] + ["    primary key (id)"]
        body += [f"    foreign key ({p}_id) references {schema}.{area}_{p} (id)" for p in parents]
        out.append(f"create table {schema}.{table} (\n" + ",\n".join(body) + "\n);")
        words = noun.replace("_", " ")
        out.append(f"comment on table {schema}.{table} is "
                   f"'{words.capitalize()}s of the {area} business, one row per {words}; "
                   f"kept by the {area} back office.';")
        out += [f"comment on column {schema}.{table}.{c} is '{d}';" for c, _, d in cols if d]
    return "\n".join(out)


def sample_rows(schema: str, size: int, rows: int) -> str:
    """``rows`` rows per table, parents first, every foreign key satisfied."""
    values = {"id": "g", "name": "'{n} ' || g", "amount": "((g * 37) % 1000) + 0.99",
              "status": "(array['NEW','ACTIVE','CLOSED','CANCELLED'])[g % 4 + 1]",
              "created_at": "now() - g * interval '7 hours'", "quantity": "g % 12",
              "is_active": "g % 3 <> 0", "valid_from": "date '2024-01-01' + g"}
    out = []
    for table, noun, parents in tables_of(size):
        cols = columns_of(noun, parents)
        exprs = [f"(g * {i + 3}) % {rows} + 1" if c.endswith("_id") else
                 values[c].format(n=noun) for i, (c, _, _) in enumerate(cols)]
        out.append(f"insert into {schema}.{table} ({', '.join(c for c, _, _ in cols)}) "
                   f"select {', '.join(exprs)} from generate_series(1, {rows}) g;")
    return "\n".join(out) + "\nanalyze;"


# --- 20 representative queries on s10 (retail_region ... retail_shipment) ----------

S = "s10.retail_"
QUERIES = [
    f"SELECT count(*) AS \"Closed Orders\" FROM {S}order o WHERE o.status = 'CLOSED'",
    f"SELECT r.name AS \"Region\", count(c.id) AS \"Customers\" FROM {S}region r "
    f"LEFT JOIN {S}customer c ON c.region_id = r.id GROUP BY r.name ORDER BY 2 DESC",
    f"SELECT c.name AS \"Customer\", sum(o.amount) AS \"Total\" FROM {S}order o "
    f"JOIN {S}customer c ON c.id = o.customer_id GROUP BY c.name ORDER BY \"Total\" DESC LIMIT 10",
    f"SELECT r.name AS \"Region\", date_trunc('month', o.created_at) AS \"Month\", "
    f"sum(o.amount) AS \"Revenue\" FROM {S}order o JOIN {S}store s ON s.id = o.store_id "
    f"JOIN {S}region r ON r.id = s.region_id WHERE o.created_at >= now() - interval '90 days' "
    f"GROUP BY 1, 2 ORDER BY 1, 2",
    f"SELECT pc.name AS \"Category\", sum(ol.amount * ol.quantity) AS \"Revenue\", "
    f"count(DISTINCT o.customer_id) AS \"Buyers\" FROM {S}order_line ol "
    f"JOIN {S}product p ON p.id = ol.product_id "
    f"JOIN {S}product_category pc ON pc.id = p.product_category_id "
    f"JOIN {S}order o ON o.id = ol.order_id WHERE o.status <> 'CANCELLED' "
    f"GROUP BY pc.name ORDER BY 2 DESC",
    f"WITH m AS (SELECT date_trunc('month', o.created_at) AS month, sum(o.amount) AS total "
    f"FROM {S}order o GROUP BY 1) SELECT m.month AS \"Month\", m.total AS \"Total\", "
    f"m.total - lag(m.total) OVER (ORDER BY m.month) AS \"Change\" FROM m ORDER BY m.month",
    f"SELECT t.region_id, t.name AS \"Store\", t.total AS \"Total\" FROM (SELECT s.region_id, "
    f"s.name, sum(o.amount) AS total, rank() OVER (PARTITION BY s.region_id "
    f"ORDER BY sum(o.amount) DESC) AS rnk FROM {S}store s JOIN {S}order o ON o.store_id = s.id "
    f"GROUP BY s.region_id, s.name) t WHERE t.rnk <= 3 ORDER BY t.region_id, t.rnk",
    f"SELECT o.customer_id, o.created_at, o.amount, sum(o.amount) OVER (PARTITION BY "
    f"o.customer_id ORDER BY o.created_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
    f"AS \"Running Total\" FROM {S}order o WHERE o.customer_id <= 20",
    f"WITH ordered AS (SELECT o.customer_id, sum(o.amount) AS total FROM {S}order o "
    f"GROUP BY 1), paid AS (SELECT o.customer_id, sum(p.amount) AS total FROM {S}payment p "
    f"JOIN {S}order o ON o.id = p.order_id WHERE p.status = 'CLOSED' GROUP BY 1) "
    f"SELECT c.name AS \"Customer\", ordered.total AS \"Ordered\", coalesce(paid.total, 0) "
    f"AS \"Paid\", ordered.total - coalesce(paid.total, 0) AS \"Outstanding\" FROM ordered "
    f"JOIN {S}customer c ON c.id = ordered.customer_id LEFT JOIN paid "
    f"ON paid.customer_id = ordered.customer_id ORDER BY \"Outstanding\" DESC LIMIT 20",
    f"SELECT o.id AS \"Order\", o.created_at AS \"Placed\" FROM {S}order o WHERE NOT EXISTS "
    f"(SELECT 1 FROM {S}shipment sh WHERE sh.order_id = o.id) AND o.status <> 'CANCELLED' "
    f"ORDER BY o.created_at LIMIT 50",
    f"SELECT s.name AS \"Store\", count(*) FILTER (WHERE o.status = 'NEW') AS \"New\", "
    f"count(*) FILTER (WHERE o.status = 'CLOSED') AS \"Closed\", "
    f"round(avg(o.amount) FILTER (WHERE o.status = 'CLOSED'), 2) AS \"Avg Closed\" "
    f"FROM {S}order o JOIN {S}store s ON s.id = o.store_id GROUP BY s.name",
    f"SELECT r.name AS \"Region\", percentile_cont(0.5) WITHIN GROUP (ORDER BY o.amount) "
    f"AS \"Median Order\" FROM {S}order o JOIN {S}customer c ON c.id = o.customer_id "
    f"JOIN {S}region r ON r.id = c.region_id GROUP BY r.name",
    f"SELECT CASE WHEN o.amount >= 500 THEN 'large' WHEN o.amount >= 100 THEN 'medium' "
    f"ELSE 'small' END AS \"Size\", count(*) AS \"Orders\", avg(o.amount) AS \"Average\" "
    f"FROM {S}order o GROUP BY 1 ORDER BY 2 DESC",
    f"SELECT r.name AS \"Region\", s.name AS \"Store\", sum(o.amount) AS \"Revenue\" "
    f"FROM {S}order o JOIN {S}store s ON s.id = o.store_id JOIN {S}region r "
    f"ON r.id = s.region_id GROUP BY ROLLUP (r.name, s.name) ORDER BY 1, 2",
    f"SELECT s.name AS \"Store\", (SELECT count(*) FROM {S}employee e WHERE e.store_id = s.id "
    f"AND e.is_active) AS \"Active Employees\" FROM {S}store s ORDER BY 2 DESC",
    f"SELECT o.id AS \"Order\", l.name AS \"Line\", l.amount AS \"Amount\" FROM {S}order o "
    f"CROSS JOIN LATERAL (SELECT ol.name, ol.amount FROM {S}order_line ol WHERE "
    f"ol.order_id = o.id ORDER BY ol.amount DESC LIMIT 3) l "
    f"WHERE o.created_at >= date '2024-01-01' ORDER BY o.id LIMIT 100",
    f"SELECT 'payments' AS \"Kind\", count(*) AS \"Rows\", sum(p.amount) AS \"Amount\" "
    f"FROM {S}payment p UNION ALL SELECT 'shipments', count(*), sum(sh.amount) "
    f"FROM {S}shipment sh",
    f"SELECT to_char(o.created_at, 'YYYY-MM') AS \"Month\", extract(dow FROM o.created_at) "
    f"AS \"Weekday\", count(*) AS \"Orders\" FROM {S}order o "
    f"WHERE upper(o.status) = upper('closed') GROUP BY 1, 2 ORDER BY 1, 2",
    f"SELECT DISTINCT ON (p.order_id) p.order_id AS \"Order\", p.created_at AS \"Last Payment\", "
    f"p.amount AS \"Amount\" FROM {S}payment p ORDER BY p.order_id, p.created_at DESC",
    # Oracle style: quoted upper-case names, folded to the catalog's by sqlguard (fold).
    'SELECT "C"."NAME" AS "Customer", COUNT("O"."ID") AS "Orders" FROM "S10"."RETAIL_CUSTOMER" "C" '
    'JOIN "S10"."RETAIL_ORDER" "O" ON "O"."CUSTOMER_ID" = "C"."ID" GROUP BY "C"."NAME" '
    'ORDER BY 2 DESC FETCH FIRST 10 ROWS ONLY',
]
QUESTIONS = {f"Q{i + 1:02d}": q for i, q in enumerate(QUERIES)}

SQLGUARD_HARNESS = r"""
create function public.bench_sqlguard(queries text[], reps int, scope text)
returns float8[] language plpython3u volatile
as $python$
    # sqlguard.check() as nl2sql.accept() calls it, timed inside this backend.
    # Needs the package loaded: call a dbms_cloud_ai function in the session first.
    import inspect, time
    dca = GD.get("dbms_cloud_ai")
    if dca is None:
        plpy.error("call a dbms_cloud_ai function in this session first")
    load, extra = dca.nl2sql.schema_context.load, ()
    if "user" in inspect.signature(load).parameters:     # load(plpy, entries, user) in 8b3b584
        extra = (plpy.execute("select current_user::text as u")[0]["u"],)
    catalog = load(plpy, [{"owner": scope}], *extra)
    allowed, fold, path = catalog.allowed(), catalog.fold(), [scope]
    check, clock, out = dca.nl2sql.sqlguard.check, time.perf_counter, []
    for _ in range(reps):
        for q in queries:
            t0 = clock()
            check(q, allowed_objects=allowed, search_path=path, fold=fold)
            out.append((clock() - t0) * 1e6)
    return out
$python$
"""


def profile_name(scope: str) -> str:
    return f"BENCH_{scope.upper()}"


# The big database holds every scope; the small one only warm and s10, to show
# what the size of the rest of the catalog costs a 10-table scope.
DATABASES = {DBNAME: {"warm": 3, **{f"s{n}": n for n in SIZES}},
             SMALL_DBNAME: {"warm": 3, "s10": 10}}


def setup(fake: FakeLLM, sample: int) -> bool:
    """Fresh databases, role, schemas, tables, profiles; True if the role is ours."""
    created_role = fresh_databases(DATABASES, ROLE)
    for db, scopes in DATABASES.items():
        with connect("postgres", db) as c:
            c.execute("create extension dbms_cloud_ai cascade")
            c.execute(f"grant dbms_cloud_ai_user to {ROLE}")
            c.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
            for schema in scopes:
                c.execute(f"create schema {schema} authorization {ROLE}")
            if db == DBNAME:
                c.execute(SQLGUARD_HARNESS)
                c.execute(f"grant execute on function public.bench_sqlguard(text[], int, text) "
                          f"to {ROLE}")
        with connect(ROLE, db) as c:
            with c.transaction():
                for schema, n in scopes.items():
                    c.execute(schema_ddl(schema, n))
            c.execute(sample_rows("s10", 10, sample))
            c.execute("select dbms_cloud.create_credential(%s, 'user', %s)", (CREDENTIAL, API_KEY))
            for schema in scopes:
                attrs = {"provider": "openai", "credential_name": CREDENTIAL,
                         "provider_endpoint": fake.url, "object_list": [{"owner": schema}],
                         "comments": True, "constraints": True}
                c.execute("select dbms_cloud_ai.create_profile(%s, %s)",
                          (profile_name(schema), json.dumps(attrs)))
    return created_role


def teardown(created_role: bool) -> None:
    with connect("postgres", "postgres") as c:
        for db in DATABASES:
            c.execute(f"drop database if exists {db} with (force)")
        if created_role:
            c.execute(f"drop role if exists {ROLE}")


def db_tables(db: str) -> int:
    return sum(DATABASES[db].values())


# Runs of (3) that turn something off per call: (label, action, generate's attributes).
VARIANTS = {"showsql, no value hints": ("showsql", '{"value_hints": false}')}


def gen_sql(conn, prompt: str, profile: str, action: str) -> str:
    action, attrs = VARIANTS.get(action, (action, None))
    return sql.SQL("select dbms_cloud_ai.generate({}, {}, {}, attributes => {})").format(
        sql.Literal(prompt), sql.Literal(profile), sql.Literal(action),
        sql.Literal(attrs)).as_string(conn)


def set_budget(conn, tokens: int) -> None:
    conn.execute(f"set dbms_cloud_ai.schema_context_tokens = {int(tokens)}")


def prompt_facts(shown: str) -> dict:
    """Sizes of a showprompt answer: what the model would receive."""
    items = json.loads(shown)
    msgs = [m for m in items if "role" in m]
    note = next((m for m in items if "note" in m), {})
    ddl = [m["content"] for m in msgs if m["role"] == "system" and m["content"].startswith("CREATE ")]
    described = [re.match(r"CREATE \w+(?: VIEW)? (\S+)", d).group(1) for d in ddl]
    return {"described": described, "omitted": len(note.get("omitted_tables", [])),
            "context_chars": sum(len(d) for d in ddl),
            "prompt_chars": sum(len(m["content"]) for m in msgs), "json_chars": len(shown)}


def timed(cur, q: str, prepare: bool = True) -> tuple[float, str]:
    t0 = time.perf_counter()
    cur.execute(q, prepare=prepare)
    row = cur.fetchone()
    return time.perf_counter() - t0, row[0]


def rotated(items: list, i: int) -> list:
    k = i % len(items)
    return items[k:] + items[:k]


def fmt(s: dict | None, scale: float, digits: int = 1) -> str:
    if not s:
        return f"{'-':>17}"
    return f"{s['p50'] * scale:>8.{digits}f} {s['p95'] * scale:>8.{digits}f}"


# --- (1) schema context ---------------------------------------------------------------

def bench_context(args) -> None:
    # Which configurations: every size at the default budget, and at a budget
    # large enough for all where the default one leaves tables out; the 10
    # tables also alone in a small database.
    configs = []
    for db, n in [(SMALL_DBNAME, 10)] + [(DBNAME, n) for n in SIZES]:
        with connect(ROLE, db) as c:
            for budget in (DEFAULT_BUDGET, ALL_BUDGET):
                set_budget(c, budget)
                got = c.execute(gen_sql(c, QUESTION, profile_name(f"s{n}"), "showprompt")).fetchone()[0]
                facts = prompt_facts(got)
                configs.append({"db": db, "n": n, "budget": budget, "facts": facts})
                if budget == DEFAULT_BUDGET and not facts["omitted"]:
                    break
    for cfg in configs:
        check(len(cfg["facts"]["described"]) + cfg["facts"]["omitted"] == cfg["n"],
              f"{cfg['n']} tables: described + omitted != {cfg['n']}")
        cfg["label"] = (f"{cfg['n']:>6,}{db_tables(cfg['db']):>8,}  "
                        f"{'default' if cfg['budget'] == DEFAULT_BUDGET else 'all':<8}")
        cfg["profile"] = profile_name(f"s{cfg['n']}")
        cfg["cached"], cfg["ddl"], cfg["fresh"], cfg["first"] = [], [], [], []

    # Cached, then cold after DDL: one warmed session per configuration.
    sessions = []
    for cfg in configs:
        conn = connect(ROLE, cfg["db"])
        set_budget(conn, cfg["budget"])
        conn.execute(gen_sql(conn, QUESTION, profile_name("warm"), "showprompt"))
        q = gen_sql(conn, QUESTION, cfg["profile"], "showprompt")
        for _ in range(args.warmup):
            conn.execute(q, prepare=True)
        sessions.append((cfg, conn, conn.cursor(), q))
    clock = time.perf_counter
    started = clock()
    for i in range(args.calls):
        for cfg, _, cur, q in rotated(sessions, i):
            dt, got = timed(cur, q)
            check(len(got) == cfg["facts"]["json_chars"], f"{cfg['label']}: another prompt")
            cfg["cached"].append(dt)
    ddl = {db: connect(ROLE, db) for db in DATABASES}  # another session changes a comment
    for i in range(args.cold):
        for cfg, _, cur, q in rotated(sessions, i):
            first = tables_of(cfg["n"])[0][0]
            ddl[cfg["db"]].execute(f"comment on table s{cfg['n']}.{first} is 'Regions of the "
                                   f"retail business (edited, round {i}, {cfg['budget']})'")
            dt, _ = timed(cur, q)
            cfg["ddl"].append(dt)
    for conn in ddl.values():
        conn.close()
    for _, conn, _, _ in sessions:
        conn.close()
    # Cold in a fresh session: the package is loaded by a first call on the warm profile.
    for i in range(args.fresh):
        for cfg in rotated(configs, i):
            with connect(ROLE, cfg["db"]) as conn:
                set_budget(conn, cfg["budget"])
                cur = conn.cursor()
                dt0, _ = timed(cur, gen_sql(conn, QUESTION, profile_name("warm"), "showprompt"),
                               prepare=False)
                dt, got = timed(cur, gen_sql(conn, QUESTION, cfg["profile"], "showprompt"),
                                prepare=False)
                cfg["first"].append(dt0)
                cfg["fresh"].append(dt)
                check(prompt_facts(got)["described"] == cfg["facts"]["described"],
                      f"{cfg['label']}: a fresh session described other tables")
    wall = clock() - started

    firsts = summary([x for cfg in configs for x in cfg["first"]])
    print()
    print(f"(1) schema context: generate(question, profile, 'showprompt'), client-side latency "
          f"in ms; {wall:.1f}s wall")
    print("    tables of 8 columns (mixed types), primary and foreign keys, comments on the "
          "table and most columns; profile comments => true, constraints => true")
    print(f"    question: {QUESTION!r}")
    print(f"    samples per configuration: cached {args.calls} (after {args.warmup} warm-up), "
          f"cold after DDL {args.cold}, cold fresh session {args.fresh}; interleaved")
    print(f"    budget: dbms_cloud_ai.schema_context_tokens, default {DEFAULT_BUDGET:,} or "
          f"{ALL_BUDGET:,} ('all')")
    print()
    print(f"    {'scope':>6}{'in db':>8}  {'budget':<8}{'described':>10}{'omitted':>8}"
          f"{'context':>10}{'~tokens':>9}{'prompt':>10}{'~tokens':>9}  {'cold, fresh session':>17}  "
          f"{'cold, after DDL':>17}  {'cached':>17}")
    print(f"    {'':>6}{'':>8}  {'':<8}{'':>10}{'':>8}{'chars':>10}{'':>9}"
          f"{'chars':>10}{'':>9}  " + "  ".join(f"{'p50':>8} {'p95':>8}" for _ in range(3)))
    for cfg in configs:
        f = cfg["facts"]
        print(f"    {cfg['label']}{len(f['described']):>10,}{f['omitted']:>8,}"
              f"{f['context_chars']:>10,}{f['context_chars'] // CHARS_PER_TOKEN:>9,}"
              f"{f['prompt_chars']:>10,}{f['prompt_chars'] // CHARS_PER_TOKEN:>9,}  "
              f"{fmt(summary(cfg['fresh']), MS)}  {fmt(summary(cfg['ddl']), MS)}  "
              f"{fmt(summary(cfg['cached']), MS)}")
    print()
    print("    (scope: tables the profile's object_list covers; in db: tables in its database)")
    per_table = [cfg["facts"]["context_chars"] / len(cfg["facts"]["described"])
                 for cfg in configs if cfg["facts"]["described"]]
    print(f"    one table's description: about {sum(per_table) / len(per_table):,.0f} chars "
          f"(~{sum(per_table) / len(per_table) / CHARS_PER_TOKEN:,.0f} tokens)")
    asked = ("online_order", "online_customer", "online_region")
    for cfg in configs:
        if cfg["facts"]["omitted"]:
            got = {d.split(".", 1)[1] for d in cfg["facts"]["described"]}
            print(f"    {cfg['n']:,} tables at the default budget: the question's tables "
                  f"{', '.join(asked)} described: "
                  f"{'all' if got.issuperset(asked) else sorted(got & set(asked)) or 'none'}")
    print(f"    first generate() call of a new session (imports the package; not in the table): "
          f"p50 {firsts['p50'] * MS:.0f} ms, p95 {firsts['p95'] * MS:.0f} ms")


# --- (2) validation -------------------------------------------------------------------

def bench_validation(args) -> None:
    import pglast
    import sqlglot
    from dbms_cloud_ai.nl2sql import sqlguard  # python/src, this interpreter

    tables = [t for t, _, _ in tables_of(10)]
    allowed = {("s10", t) for t in tables}
    names = {"s10", *tables, *(c for _, n, p in tables_of(10) for c, _, _ in columns_of(n, p))}
    fold = {n.lower(): n for n in names}
    for q in QUERIES:  # every query is accepted, and reads only s10 tables
        got = sqlguard.check(q, allowed_objects=allowed, search_path=["s10"], fold=fold)
        check(all(o in allowed for o in got.objects), f"query reads {got.objects}")

    glot = {"t": 0.0}
    real_second = getattr(sqlguard, "_second_opinion", None)

    def second(*a, **kw):
        t0 = time.perf_counter()
        try:
            return real_second(*a, **kw)
        finally:
            glot["t"] += time.perf_counter() - t0

    nq = len(QUERIES)
    proc: list[list[float]] = [[] for _ in QUERIES]
    backend: list[list[float]] = [[] for _ in QUERIES]
    conn = connect(ROLE, DBNAME)
    conn.execute(gen_sql(conn, QUESTION, profile_name("s10"), "showprompt"))  # loads the package
    harness = "select public.bench_sqlguard(%s, %s, 's10')"

    def in_process(rounds: int, keep: bool = True) -> float:
        t = time.perf_counter()
        for _ in range(rounds):
            for i, q in enumerate(QUERIES):
                t0 = time.perf_counter()
                sqlguard.check(q, allowed_objects=allowed, search_path=["s10"], fold=fold)
                if keep:
                    proc[i].append(time.perf_counter() - t0)
        return time.perf_counter() - t

    def in_backend(rounds: int, keep: bool = True) -> None:
        flat = conn.execute(harness, (QUERIES, rounds)).fetchone()[0]
        if keep:
            for k, us in enumerate(flat):
                backend[k % nq].append(us / US)

    in_process(args.warmup, keep=False)
    in_backend(args.warmup, keep=False)
    # Alternating blocks of a few rounds, so both see the same machine conditions.
    t_all, done, block = 0.0, 0, 5
    if real_second is not None:
        sqlguard._second_opinion = second
    try:
        while done < args.reps:
            n = min(block, args.reps - done)
            if (done // block) % 2 == 0:
                t_all += in_process(n)
                in_backend(n)
            else:
                in_backend(n)
                t_all += in_process(n)
            done += n
    finally:
        if real_second is not None:
            sqlguard._second_opinion = real_second
    conn.close()

    all_proc = summary([x for xs in proc for x in xs])
    all_back = summary([x for xs in backend for x in xs])
    med_proc = sorted(summary(xs)["p50"] for xs in proc)
    med_back = sorted(summary(xs)["p50"] for xs in backend)
    print()
    print(f"(2) sqlguard.check() on {nq} analytic queries over the s10 tables "
          f"(allowed_objects, search_path, fold as nl2sql passes them), {args.reps} rounds "
          f"after {args.warmup} warm-up, in blocks of {block} alternating between the two; "
          f"microseconds per query")
    print(f"    pglast {pglast.__version__}, sqlglot {sqlglot.__version__}; queries "
          f"{min(map(len, QUERIES))}-{max(map(len, QUERIES))} chars")
    print()
    cols = ("p50", "p95", "p99", "mean")
    print(f"    {'':<34}" + "".join(f"{c:>9}" for c in cols)
          + f"{'fastest q':>11}{'slowest q':>11}")
    for label, s, meds in (("in this process (python/src)", all_proc, med_proc),
                           ("inside a backend (PL/Python)", all_back, med_back)):
        print(f"    {label:<34}" + "".join(f"{s[c] * US:>9.0f}" for c in cols)
              + f"{meds[0] * US:>11.0f}{meds[-1] * US:>11.0f}")
    print("    ('fastest q' / 'slowest q': the median of the cheapest and of the dearest query)")
    if real_second is not None:
        print(f"    sqlglot's second opinion is {glot['t'] / t_all:.0%} of the in-process time")


# --- (3) end to end -------------------------------------------------------------------

def responder(wire, body):
    m = re.search(r"Question: (Q\d\d)\b", last_user_text(wire, body))
    return Answer(QUESTIONS[m.group(1)] if m else CHAT_ANSWER)


def bench_e2e(args, fake: FakeLLM) -> None:
    # chat once (it reads no catalog); the NL2SQL actions in both databases.
    runs = [("chat", DBNAME)] + [(a, db) for db in (SMALL_DBNAME, DBNAME)
                                 for a in ("showprompt", "showsql", "runsql")] \
        + [(v, SMALL_DBNAME) for v in VARIANTS]
    prof = profile_name("s10")
    conns = {r: connect(ROLE, r[1]) for r in runs}
    for conn in conns.values():  # runsql refuses to run generated SQL without a timeout
        conn.execute("set statement_timeout = '30s'")
    keys = list(QUESTIONS)
    stmts = {r: [gen_sql(conns[r], f"{k}: the question", prof, r[0]) for k in keys] for r in runs}
    curs = {r: conns[r].cursor() for r in runs}
    lat: dict[tuple, list[float]] = {r: [] for r in runs}
    # Every answer is what it should be, before timing.
    fake.reset()
    sizes = {}
    for r in runs:
        a = VARIANTS.get(r[0], (r[0],))[0]
        for j, k in enumerate(keys):
            before = len(fake.requests)
            got = curs[r].execute(stmts[r][j], prepare=True).fetchone()[0]
            if a == "chat":
                check(got == CHAT_ANSWER, f"chat returned {got!r}")
            elif a == "showsql":
                check(got.lower().lstrip("( ").startswith(("select", "with")),
                      f"showsql {k} returned {got!r}")
            elif a == "runsql":
                check(got.startswith("[") or got == "No data found for the prompt.",
                      f"runsql {k} returned {got[:200]!r}")
            check((len(fake.requests) > before) == (a != "showprompt"),
                  f"{a} {k}: unexpected model calls")
            if len(fake.requests) > before:
                sizes.setdefault(a, len(fake.requests[-1].body))
    clock = time.perf_counter
    started = clock()
    for i in range(args.e2e_warmup + args.e2e_calls):
        j = i % len(keys)
        for r in rotated(runs, i):
            dt, got = timed(curs[r], stmts[r][j])
            check(r[0] != "chat" or got == CHAT_ANSWER, f"chat returned {got!r}")
            if i >= args.e2e_warmup:
                lat[r].append(dt)
    wall = clock() - started
    server = conns[runs[0]].execute("select current_setting('server_version')").fetchone()[0]
    for conn in conns.values():
        conn.close()
    st = {r: summary(lat[r]) for r in runs}
    chat = st[runs[0]]
    print()
    print(f"(3) end to end, profile of s10 (10 tables, catalog cached), fake LLM answering at once; "
          f"{args.e2e_calls} calls each after {args.e2e_warmup} warm-up, interleaved, {wall:.1f}s wall")
    print(f"    PostgreSQL {server}; request body: chat {sizes.get('chat', 0):,} bytes, "
          f"showsql/runsql {sizes.get('showsql', 0):,} bytes; the model's SQL cycles through the "
          f"{len(keys)} queries of (2); runsql runs them on 200 rows per table")
    print()
    cols = ("p50", "p95", "p99", "mean")
    print(f"    {'latency (us)':<34}{'database':>10}" + "".join(f"{c:>9}" for c in cols)
          + f"{'p50 - chat':>12}")
    labels = {"chat": "generate(..., 'chat')", "showprompt": "showprompt (no model call)",
              "showsql": "showsql (+ validate + plan)", "runsql": "runsql (+ validate + run)",
              **{v: v for v in VARIANTS}}
    for r in runs:
        print(f"    {labels[r[0]]:<34}{db_tables(r[1]):>10,}"
              + "".join(f"{st[r][c] * US:>9.0f}" for c in cols)
              + (f"{(st[r]['p50'] - chat['p50']) * US:>12.0f}" if r != runs[0] else f"{'':>12}"))
    print("    ('database': tables in the database; the scope is the same 10 tables)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=40, help="(1) cached calls per configuration (40)")
    ap.add_argument("--warmup", type=int, default=5, help="(1)(2) uncounted calls/rounds first (5)")
    ap.add_argument("--cold", type=int, default=15, help="(1) cold calls after DDL per configuration (15)")
    ap.add_argument("--fresh", type=int, default=8, help="(1) cold calls in a fresh session per configuration (8)")
    ap.add_argument("--reps", type=int, default=50, help="(2) rounds of the queries (50)")
    ap.add_argument("--e2e-calls", type=int, default=200, help="(3) measured calls of each action (200)")
    ap.add_argument("--e2e-warmup", type=int, default=20, help="(3) uncounted calls of each first (20)")
    ap.add_argument("--only", choices=("context", "validation", "e2e"), help="run only one part")
    ap.add_argument("--keep", action="store_true", help="keep the databases afterwards")
    args = ap.parse_args()
    if not os.environ.get("DCA_PGHOST"):
        print("bench: DCA_PGHOST/DCA_PGPORT not set (socket directory and port of a server "
              "where postgres is a trust-auth superuser); or run `make bench`", file=sys.stderr)
        return 2
    print(f"bench_nl2sql: {durability()}", flush=True)

    fake = FakeLLM(responder).start()
    created_role = False
    try:
        t0 = time.perf_counter()
        created_role = setup(fake, sample=200)
        print()
        print(f"dbms_cloud_ai NL2SQL benchmark: databases {DBNAME} ({db_tables(DBNAME):,} tables) "
              f"and {SMALL_DBNAME} ({db_tables(SMALL_DBNAME)}), role {ROLE}, made in "
              f"{time.perf_counter() - t0:.1f}s; fake LLM at {fake.url} (answers at once)")
        if args.only in (None, "context"):
            bench_context(args)
        if args.only in (None, "validation"):
            bench_validation(args)
        if args.only in (None, "e2e"):
            bench_e2e(args, fake)
        return 0
    finally:
        fake.stop()
        if not args.keep:
            teardown(created_role)


if __name__ == "__main__":
    sys.exit(main())
