"""security.md 8.B: a canary API key stored by alice never leaves its ciphertext.

alice stores ``sk-canary-<uuid>`` (as a bind parameter, the documented way) and
drives every credential path, failing ones included (bad provider, duplicate
name, provider 401/403/500/garbage echoing the key, malformed input,
update_credential, disable/enable).  Then the canary is searched, as raw text
and as hex (a bytea column shows hex), in:

- every column of every table and view of the extension's schemas (the list
  comes from the catalog), read as the superuser, alice, bob and ai_admin;
- every error any client got;
- the server log, with ``log_statement = all`` and ``log_min_messages = debug1``;
- ``pg_stat_statements`` (``track = all``, so statements inside the functions too);
- pg_roles, pg_db_role_setting, pg_settings, pg_stat_activity;
- ``pg_dump`` of the database (plain format);
- the WAL written during the test, read raw (pg_waldump prints no tuple data);
- and, at the fake provider, anywhere but the auth header.

Each sink also gets a visible marker (the credential's username, or a probe
statement) that must be found there, so a sink that silently read nothing
would fail the test instead of passing it.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import time
import uuid

import psycopg
import pytest
from fake_llm import Answer, Raw
from helpers import case, raises
from psycopg import sql

SCHEMAS = ("dbms_cloud", "dbms_cloud_ai")

# log_statement = all logs bind values unless log_parameter_max_length = 0, by
# PostgreSQL's design: the security notes in docs/security.md tell a DBA who logs every
# statement to set it, so the sweep runs the server that way.
VERBOSE = {
    "log_statement": "all",
    "log_min_messages": "debug1",
    "log_min_error_statement": "debug1",
    "log_parameter_max_length": "0",
    "pg_stat_statements.track": "all",
}


def _cluster_admin():
    return psycopg.connect(host=os.environ["DCA_PGHOST"], port=os.environ["DCA_PGPORT"],
                           user="postgres", dbname="postgres", autocommit=True)


@pytest.fixture(scope="module")
def verbose_server():
    """The whole cluster at its most verbose for this module, then back as it was."""
    if not os.environ.get("DCA_PGHOST"):
        pytest.skip("no server: run `make test`")
    with _cluster_admin() as c:
        for name, value in VERBOSE.items():
            c.execute(sql.SQL("alter system set {} = {}").format(sql.Identifier(*name.split(".")),
                                                                  sql.Literal(value)))
        c.execute("select pg_reload_conf()")
        _wait_for_settings(VERBOSE)
    yield
    with _cluster_admin() as c:
        for name in VERBOSE:
            c.execute(sql.SQL("alter system reset {}").format(sql.Identifier(*name.split("."))))
        c.execute("select pg_reload_conf()")


def _wait_for_settings(wanted: dict, timeout: float = 10.0):
    """pg_reload_conf() only signals: wait until a new backend sees the values."""
    deadline = time.monotonic() + timeout
    while True:
        with _cluster_admin() as c:
            got = {n: c.execute("select current_setting(%s)", (n,)).fetchone()[0] for n in wanted}
        if all(got[n] == v for n, v in wanted.items()):
            return
        assert time.monotonic() < deadline, f"settings not applied: {got}"
        time.sleep(0.05)


def hits(text: str, canary: str) -> bool:
    return canary in text or canary.encode().hex() in text


# --- driving every credential path ---------------------------------------------------------------

class Run:
    """What one sweep did: the canary, the markers that must be found, the errors seen."""

    def __init__(self):
        tag = uuid.uuid4()
        self.canary = f"sk-canary-{tag}"
        self.username = f"visible-user-{tag}"       # stored in clear: sinks must show it
        self.probe = f"probe-marker-{tag}"          # a superuser statement: logged and in WAL
        self.errors: list[psycopg.Error] = []
        self.log_offset = 0
        self.wal_start = ""
        self.wal_end = ""


def _expect(run: Run, conn, sqlstate: str, query: str, params=()):
    with raises(sqlstate) as e:
        conn.execute(query, params)
    run.errors.append(e["error"])


def drive(db, llm, run: Run, log: str | None):
    admin = db.admin
    run.log_offset = os.path.getsize(log) if log else 0
    run.wal_start = admin.execute("select pg_current_wal_insert_lsn()::text").fetchone()[0]
    admin.execute("create table public.canary_probe (t text)")
    admin.execute(sql.SQL("insert into public.canary_probe values ({})").format(sql.Literal(run.probe)))

    alice = db.connect("alice")
    k = run.canary
    alice.execute("select dbms_cloud.create_credential('CANARY', %s, %s)", (run.username, k))
    _expect(run, alice, "42710", "select dbms_cloud.create_credential('canary', 'u', %s)", (k,))
    _expect(run, alice, "22023", "select dbms_cloud.create_credential('bad name', 'u', %s)", (k,))
    _expect(run, alice, "22004", "select dbms_cloud.create_credential('c2', %s, null)", (k,))
    _expect(run, alice, "22023", "select dbms_cloud.update_credential('CANARY', 'colour', %s)", (k,))
    _expect(run, alice, "42704", "select dbms_cloud.update_credential('NOPE', 'password', %s)", (k,))
    _expect(run, alice, "22023", "select dbms_cloud.update_credential('CANARY', 'password', ' ')")
    alice.execute("select dbms_cloud.update_credential('CANARY', 'password', %s)", (k,))
    alice.execute("select dbms_cloud.update_credential('CANARY', 'username', %s)", (run.username,))
    _expect(run, alice, "22023", "select dbms_cloud_ai.create_profile('BADP', %s)",
            (json.dumps({"provider": "no-such-provider", "credential_name": "CANARY"}),))
    _expect(run, alice, "22023", "select dbms_cloud.create_credential(%s, 'u', %s)",
            ('"unterminated', k))
    for name, provider in (("P", "openai"), ("A", "anthropic")):
        alice.execute("select dbms_cloud_ai.create_profile(%s, %s)", (name, json.dumps(
            {"provider": provider, "credential_name": "CANARY", "provider_endpoint": llm.url})))
    # Providers that echo the key back: details quote the start of their answers.
    alice.execute("set dbms_cloud_ai.http_max_attempts = 1")
    llm.script(Raw(401, {"error": f"invalid key {k}"}), Raw(403, f"forbidden {k}"),
               Raw(500, f"oops {k}"), Raw(200, f"not json {k}"), Raw(422, {"key": k}))
    for profile, state in (("P", "28000"), ("A", "28000"), ("P", "LL000"), ("P", "LL003"),
                           ("P", "LL004")):
        _expect(run, alice, state, "select dbms_cloud_ai.generate('q', %s, 'chat')", (profile,))
    _expect(run, alice, "22023",  # a credential sent over plain http is refused before any request
            "select dbms_cloud_ai.summarize(location_uri => %s, credential_name => 'CANARY', "
            "profile_name => 'P')", (llm.url + "/doc.txt",))
    alice.execute("select dbms_cloud.disable_credential('CANARY')")
    _expect(run, alice, "55000", "select dbms_cloud_ai.generate('q', 'P', 'chat')")
    alice.execute("select dbms_cloud.enable_credential('CANARY')")
    llm.script(Answer("fine"), Answer("fine too"))
    assert alice.execute("select dbms_cloud_ai.generate('q', 'P', 'chat')").fetchone()[0] == "fine"
    assert alice.execute("select dbms_cloud_ai.generate('q', 'A', 'chat')").fetchone()[0] == "fine too"
    # An OCI API-key credential whose private key is the canary (never sent anywhere).
    oci = "select dbms_cloud.create_credential(%s, user_ocid => %s, tenancy_ocid => 't', " \
          "private_key => %s, fingerprint => 'f'{})"
    alice.execute(oci.format(""), ("OCI_CANARY", run.username, k))
    _expect(run, alice, "22023", oci.format(", password => %s"), ("OCI2", run.username, k, k))
    _expect(run, alice, "42710", oci.format(""), ("OCI_CANARY", run.username, k))
    alice.execute("select dbms_cloud.update_credential('OCI_CANARY', 'private_key', %s)", (k,))
    _expect(run, alice, "22023", "select dbms_cloud.update_credential('OCI_CANARY', 'password', %s)",
            (k,))
    alice.execute("select dbms_cloud_ai.create_profile('OCIP', %s)", (json.dumps(
        {"provider": "oci", "credential_name": "OCI_CANARY", "provider_endpoint": llm.url}),))
    alice.execute("select dbms_cloud_ai.create_profile('OPENAI_OCI', %s)", (json.dumps(
        {"provider": "openai", "credential_name": "OCI_CANARY", "provider_endpoint": llm.url}),))
    llm.script(Answer("oci fine"))
    assert alice.execute("select dbms_cloud_ai.generate('q', 'OCIP', 'chat')").fetchone()[0] == "oci fine"
    _expect(run, alice, "22023", "select dbms_cloud_ai.generate('q', 'OPENAI_OCI', 'chat')")
    # The other roles, by name: nothing to find, nothing that differs from "missing".
    for role in ("bob", "ai_admin"):
        other = db.connect(role)
        _expect(run, other, "42704", "select dbms_cloud.update_credential('CANARY', 'password', %s)", (k,))
        _expect(run, other, "42704", "select dbms_cloud.drop_credential('CANARY')")
        _expect(run, other, "42704", "select dbms_cloud_ai.generate('q', 'P', 'chat')")

    # Everything so far is in WAL files: a synchronous commit flushes what precedes it.
    admin.execute("set synchronous_commit = on")
    admin.execute("insert into public.canary_probe values ('flush')")
    run.wal_end = admin.execute("select pg_current_wal_lsn()::text").fetchone()[0]
    admin.execute("reset synchronous_commit")
    return alice


@pytest.fixture
def run(db, llm, verbose_server):
    r = Run()
    drive(db, llm, r, os.environ.get("DCA_PGLOG"))
    return r


# --- the sinks ------------------------------------------------------------------------------------

def relations(db) -> list[str]:
    return [r[0] for r in db.admin.execute("""
        select pg_catalog.format('%%I.%%I', n.nspname, c.relname)
          from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
         where n.nspname = any (%s) and c.relkind in ('r', 'v', 'm', 'p', 'f')
         order by 1""", (list(SCHEMAS),)).fetchall()]


def read_everything(conn, rels) -> tuple[dict[str, str], set[str]]:
    """Every row of every relation as text (row::text: all columns), and the denied ones."""
    text, denied = {}, set()
    for rel in rels:
        try:
            rows = conn.execute(f"select t::text from {rel} t").fetchall()
        except psycopg.errors.InsufficientPrivilege:
            denied.add(rel)
            continue
        text[rel] = "\n".join(r[0] for r in rows)
    return text, denied


def test_canary_is_in_no_column_of_any_table_or_view_for_any_role(db, run):
    rels = relations(db)
    assert "dbms_cloud._credential" in rels and "dbms_cloud.user_credentials" in rels
    readers = {"postgres": db.admin, "alice": db.connect("alice"), "bob": db.connect("bob"),
               "ai_admin": db.connect("ai_admin")}
    for role, conn in readers.items():
        text, denied = read_everything(conn, rels)
        with case(role):
            assert not [r for r, t in text.items() if hits(t, run.canary)]
            # The scan reads real rows: the clear username is there for those who may see it.
            sees_username = [r for r, t in text.items() if run.username in t]
            if role == "alice":
                assert set(sees_username) == {"dbms_cloud._credential", "dbms_cloud.user_credentials"}
            elif role == "postgres":  # the view shows the caller's own credentials only
                assert sees_username == ["dbms_cloud._credential"]
            else:
                assert sees_username == []
            if role == "postgres":
                assert denied == set()
            else:
                assert len(text) > 10, denied


def test_canary_is_in_no_error_returned_to_a_client(run):
    assert len(run.errors) >= 18
    for err in run.errors:
        d = err.diag
        fields = (str(err), d.message_primary, d.message_detail, d.message_hint, d.context,
                  d.internal_query, d.statement_position)
        with case(f"{err.sqlstate}: {d.message_primary}"):
            assert not any(hits(f or "", run.canary) for f in fields)
    # The provider errors did quote the providers' answers, masked.
    details = " ".join(e.diag.message_detail or "" for e in run.errors if e.sqlstate in ("28000", "LL000"))
    assert "invalid key" in details and "oops" in details


def test_canary_reaches_the_provider_only_in_the_auth_header(run, llm):
    carrying = [r for r in llm.requests if any(run.canary in v for v in r.headers.values())]
    assert len(carrying) == 7  # 5 failures + 2 answers, nothing from bob or ai_admin
    for r in llm.requests:
        assert run.canary.encode() not in r.body and run.canary not in r.path
        for name, value in r.headers.items():
            if run.canary in value:
                assert (name, value) in (("authorization", f"Bearer {run.canary}"),
                                         ("x-api-key", run.canary)), name


def test_canary_is_not_in_the_server_log(run):
    log = os.environ.get("DCA_PGLOG")
    if not log:
        pytest.skip("DCA_PGLOG (the server log's path) is not set: `make test` sets it")
    with open(log, "rb") as f:
        f.seek(run.log_offset)
        text = f.read().decode(errors="replace")
    assert run.probe in text                        # log_statement = all was on
    assert "create_credential" in text and "DEBUG" in text
    assert "ERROR" in text                           # the failing statements were logged
    assert not hits(text, run.canary)


def test_canary_is_not_in_statistics_settings_or_activity(db, run):
    admin = db.admin
    track = admin.execute("select current_setting('pg_stat_statements.track')").fetchone()[0]
    assert track == "all"
    queries = [r[0] for r in admin.execute("select query from pg_stat_statements").fetchall()]
    assert any("create_credential" in q for q in queries)
    assert any("dbms_cloud._credential" in q for q in queries)   # nested statements are tracked
    assert not [q for q in queries if hits(q, run.canary)]
    probes = {
        "pg_roles": "select r::text from pg_catalog.pg_roles r",
        "pg_db_role_setting": "select s::text from pg_catalog.pg_db_role_setting s",
        "pg_settings": "select s::text from pg_catalog.pg_settings s",
        "custom settings": """select pg_catalog.current_setting(name, true) from pg_catalog.pg_settings
                               where name like 'dbms\\_cloud%%'""",
        "pg_stat_activity": "select a::text from pg_catalog.pg_stat_activity a",
    }
    for role in ("postgres", "alice", "bob", "ai_admin"):
        conn = admin if role == "postgres" else db.connect(role)
        for what, q in probes.items():
            try:
                text = "\n".join(str(r[0]) for r in conn.execute(q).fetchall())
            except psycopg.errors.InsufficientPrivilege:
                continue
            with case(f"{role}: {what}"):
                assert not hits(text, run.canary)
    activity = admin.execute("select string_agg(query, ' ') from pg_stat_activity "
                             "where usename = 'alice'").fetchone()[0]
    assert "dbms_cloud" in activity  # alice's sessions are there, showing their last statement


def test_canary_is_not_in_pg_dump_output(db, run):
    bindir = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                            check=True).stdout.strip()
    out = subprocess.run([str(pathlib.Path(bindir) / "pg_dump"), "--format=plain",
                          "-h", db.info.host, "-p", str(db.info.port), "-U", "postgres",
                          db.info.dbname], capture_output=True, check=True).stdout.decode()
    assert run.username in out and run.probe in out   # the credential rows were dumped
    assert not hits(out, run.canary)


def wal_between(admin, start: str, end: str) -> bytes:
    """The WAL record bytes from start to end, read raw (pg_waldump would not
    print tuple data), with every page header cut out: a record that crosses a
    page boundary has the next page's header in the middle of its bytes, which
    would split a string written across it."""
    seg, page = (int(admin.execute("select setting from pg_settings where name = %s", (n,)).fetchone()[0])
                 for n in ("wal_segment_size", "wal_block_size"))
    lo, hi = admin.execute("select (%s::pg_lsn - '0/0')::bigint, (%s::pg_lsn - '0/0')::bigint",
                           (start, end)).fetchone()
    tli = admin.execute("select substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)").fetchone()[0]
    per_id = 0x100000000 // seg
    out = bytearray()
    pos = lo - lo % page
    while pos < hi:
        segno, off = divmod(pos, seg)
        name = f"{tli}{segno // per_id:08X}{segno % per_id:08X}"
        block = admin.execute("select pg_read_binary_file(%s, %s, %s)",
                              (f"pg_wal/{name}", off, page)).fetchone()[0]
        # XLogLongPageHeaderData (first page of a segment) is 40 bytes, the short one 24.
        out += block[40 if off == 0 else 24:]
        pos += page
    return bytes(out)


def test_canary_is_not_in_the_wal_written_meanwhile(db, run):
    wal = wal_between(db.admin, run.wal_start, run.wal_end)
    assert run.probe.encode() in wal and run.username.encode() in wal  # tuple data is there
    assert run.canary.encode() not in wal
    assert run.canary.encode().hex().encode() not in wal
