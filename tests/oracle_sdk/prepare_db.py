"""The database Oracle's suite runs in (scripts/oracle-sdk-tests.sh), and the proof that the
fake model answers.

* the database with the extension, and the script's pg_hba.conf in force (the suite's roles
  log in with their passwords);
* the suite's administrator, PYSAI_TEST_ADMIN_USER: a superuser login role.  Oracle's ADMIN is
  the database's administrator (it creates users and grants privileges), and the suite's
  provider tests run their Select AI calls as that user too; it is also a member of
  dbms_cloud_ai_admin, the extension's administrator role;
* 127.0.0.1 (the fake model) allowed for every role (``append_host_ace(..., 'PUBLIC')``), as
  tests/fix_llm.py does;
* the ``oci`` provider routed to the fake model (``set_oci_genai_endpoint``), when the
  extension has that setting.

Every step fails loudly: a server that does not answer stops the run before the suite starts.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request

import psycopg
from psycopg import sql


def prove_model(url: str) -> None:
    """One chat completion from the fake model (OpenAI's wire)."""
    body = json.dumps({"model": "probe", "messages": [{"role": "user", "content": "ping"}]}).encode()
    req = urllib.request.Request(url + "/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        answer = json.load(resp)["choices"][0]["message"]["content"]
    if not answer:
        raise SystemExit(f"the fake model at {url} answered nothing")


def create_database(host: str, port: str, dbname: str) -> None:
    with psycopg.connect(host=host, port=port, user="postgres", dbname="postgres", autocommit=True,
                         connect_timeout=10) as c:
        c.execute(sql.SQL("create database {}").format(sql.Identifier(dbname)))


def prepare(c: psycopg.Connection, admin: str, password: str, llm_url: str) -> None:
    admin = admin.lower()       # Oracle's user name, folded as the client folds it
    c.execute("create extension dbms_cloud_ai cascade")
    c.execute(sql.SQL("create role {} login superuser password {}").format(
        sql.Identifier(admin), sql.Literal(password)))
    c.execute(sql.SQL("grant dbms_cloud_ai_admin to {}").format(sql.Identifier(admin)))
    # Oracle's user is a schema: "$user" in search_path puts the admin's tables there.
    c.execute(sql.SQL("create schema {} authorization {}").format(
        sql.Identifier(admin), sql.Identifier(admin)))
    c.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'PUBLIC')")
    has_setting = c.execute(
        "select to_regprocedure('dbms_cloud_ai.set_oci_genai_endpoint(text)') is not null").fetchone()[0]
    if has_setting:
        c.execute("select dbms_cloud_ai.set_oci_genai_endpoint(%s)", (llm_url,))
    else:
        print("oracle-sdk: this extension has no set_oci_genai_endpoint: oci profiles cannot reach the "
              "fake model", file=sys.stderr)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--llm", required=True, help="the fake model's OpenAI-compatible base URL")
    ap.add_argument("--host", required=True)
    ap.add_argument("--port", required=True)
    ap.add_argument("--dbname", required=True)
    ap.add_argument("--admin", required=True)
    ap.add_argument("--admin-password", required=True)
    args = ap.parse_args()
    prove_model(args.llm)
    create_database(args.host, args.port, args.dbname)
    with psycopg.connect(host=args.host, port=args.port, user="postgres", dbname=args.dbname,
                         autocommit=True) as c:
        c.execute("select pg_reload_conf()")    # the script's pg_hba.conf: passwords count
        prepare(c, args.admin, args.admin_password, args.llm)
    return 0


if __name__ == "__main__":
    sys.exit(main())
