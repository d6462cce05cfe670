"""HTTP, Slack and email notification tools (issue 33) against a local web
server and a local SMTP server the test starts on 127.0.0.1: the request sent
(method, path, body, bearer; SMTP commands and message), the host ACL (http,
smtp), an error reply, Slack's endpoint setting, the deadline and cancel of an
SMTP wait, and the credential kept out of the history and the views."""

from __future__ import annotations

import base64
import email
import json
import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from agent_run_helpers import create, rows, run_team, team, tool_history
from fake_llm import Answer, ToolCalls, tool_results
from helpers import raises

SECRET = "web-secret-7f3a9c1e5b"
A = "dbms_cloud_ai_agent"


class Web:
    """A web server that records each request and answers with ``status``/``body``."""

    def __init__(self):
        self.requests: list[dict] = []
        self.status, self.body = 200, b'{"temperature": 21}'
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                size = int(self.headers.get("content-length") or 0)
                web.requests.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                     "body": self.rfile.read(size)})
                self.send_response(web.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(web.body)))
                self.end_headers()
                self.wfile.write(web.body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def web():
    w = Web()
    yield w
    w.stop()


def http_tool(db, conn, web, name="WEATHER"):
    conn.execute("select dbms_cloud.create_credential('WEBKEY', 'u', %s)", (SECRET,))
    create(db, conn, "TOOL", name, {"tool_type": "http", "instruction": "Gets the weather",
                                    "tool_params": {"endpoint": web.url + "/weather",
                                                    "credential_name": "WEBKEY"},
                                    "tool_inputs": [{"name": "city", "description": "a city"}]})


def run_tool(conn, name, args):
    return conn.execute(f"select {A}.run_tool(%s, %s)", (name, json.dumps(args))).fetchone()[0]


def everything_visible(conn) -> str:
    """The caller's history and definition views, as one text."""
    out = []
    for view in ("user_ai_agent_team_history", "user_ai_agent_task_history",
                 "user_ai_agent_tool_history", "user_ai_agent_tools", "user_ai_agent_tool_attributes"):
        out.append(json.dumps(rows(conn, f"select * from {A}.{view}"), default=str))
    return "\n".join(out)


def test_an_http_tool_posts_the_arguments_with_the_bearer(db, alice, llm, web):
    http_tool(db, alice, web)
    assert json.loads(run_tool(alice, "WEATHER", {"city": "Lisbon"})) == {"temperature": 21}
    [req] = web.requests
    assert req["path"] == "/weather"
    assert json.loads(req["body"]) == {"city": "Lisbon"}
    assert req["headers"]["authorization"] == f"Bearer {SECRET}"
    assert req["headers"]["content-type"] == "application/json"
    # in a team: offered with its tool_inputs, the reply goes back to the model
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("WEATHER",)),))
    llm.script(ToolCalls([{"name": "WEATHER", "arguments": {"city": "Porto"}}]), Answer("Mild."))
    assert run_team(alice, "T", "weather in Porto?") == "Mild."
    assert json.loads(web.requests[-1]["body"]) == {"city": "Porto"}
    sent = [r["content"] for r in tool_results(llm.requests[-1].wire, llm.requests[-1].json)]
    assert any('"temperature": 21' in s for s in sent)
    t = tool_history(alice)[-1]
    assert json.loads(t["output"])["status"] == "success" and "21" in t["tool_output"]
    assert SECRET not in everything_visible(alice)


def test_an_http_tool_needs_a_host_ace(db, alice, web):
    http_tool(db, alice, web)
    with raises("42501"):
        run_tool(alice, "WEATHER", {"city": "Lisbon"})
    assert web.requests == []
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice')")
    run_tool(alice, "WEATHER", {"city": "Lisbon"})
    assert len(web.requests) == 1


def test_an_http_error_is_reported_with_its_status_and_not_retried(db, alice, llm, web):
    http_tool(db, alice, web)
    web.status, web.body = 503, json.dumps({"error": "down", "echo": SECRET}).encode()
    with raises("22023") as e:
        run_tool(alice, "WEATHER", {"city": "Lisbon"})
    assert "503" in str(e["error"]) and SECRET not in str(e["error"])
    assert len(web.requests) == 1              # a tool's request is sent once
    team(db, alice, llm, steps=(("A", "K", "Answer {query}", ("WEATHER",)),))
    llm.script(ToolCalls([{"name": "WEATHER", "arguments": {"city": "Porto"}}]), Answer("Unknown."))
    assert run_team(alice, "T", "weather in Porto?") == "Unknown."
    sent = [r["content"] for r in tool_results(llm.requests[-1].wire, llm.requests[-1].json)]
    assert any("503" in s for s in sent) and not any(SECRET in s for s in sent)
    t = tool_history(alice)[-1]
    assert json.loads(t["output"])["status"] == "error" and t["tool_output"] is None
    assert SECRET not in everything_visible(alice)


def test_a_credential_goes_over_http_only_to_loopback(db, alice, llm):
    alice.execute("select dbms_cloud.create_credential('WEBKEY', 'u', %s)", (SECRET,))
    create(db, alice, "TOOL", "FAR", {"tool_type": "http",
                                      "tool_params": {"endpoint": "http://example.com/x",
                                                      "credential_name": "WEBKEY"}})
    db.admin.execute("select dbms_cloud_ai.append_host_ace('example.com', 'PUBLIC')")
    with raises("22023"):
        run_tool(alice, "FAR", {"input": "x"})


def slack_tool(db, conn, name="SLACK"):
    conn.execute("select dbms_cloud.create_credential('SLACKBOT', 'bot', %s)", (SECRET,))
    create(db, conn, "TOOL", name, {"tool_type": "notification",
                                    "tool_params": {"notification_type": "slack",
                                                    "credential_name": "SLACKBOT",
                                                    "channel": "C0123"}})


def test_a_slack_tool_posts_to_the_administrators_endpoint(db, alice, web):
    slack_tool(db, alice)
    with raises("42501"):                      # an administrator's setting
        alice.execute("select dbms_cloud_ai.set_slack_api_endpoint('http://127.0.0.1:9')")
    db.admin.execute("select dbms_cloud_ai.set_slack_api_endpoint(%s)", (web.url + "/api/",))
    with raises("42501"):                      # and its host still needs an ACE
        run_tool(alice, "SLACK", {"message": "hello"})
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice')")
    web.body = b'{"ok": true, "channel": "C0123", "ts": "1.2"}'
    assert "C0123" in run_tool(alice, "SLACK", {"message": "hello"})
    [req] = web.requests
    assert req["path"] == "/api/chat.postMessage"
    assert json.loads(req["body"]) == {"channel": "C0123", "text": "hello"}
    assert req["headers"]["authorization"] == f"Bearer {SECRET}"
    web.body = b'{"ok": false, "error": "channel_not_found"}'
    with raises("22023") as e:
        run_tool(alice, "SLACK", {"message": "hello"})
    assert "channel_not_found" in str(e["error"])
    assert SECRET not in everything_visible(alice)
    db.admin.execute("select dbms_cloud_ai.set_slack_api_endpoint(null)")
    assert alice.execute("select count(*) from dbms_cloud_ai._admin_endpoint "
                         "where setting = 'slack_api_endpoint'").fetchone()[0] == 0


def test_notification_and_http_tools_check_their_params(db, alice):
    for attrs, state in [
            ({"tool_type": "http", "tool_params": {"credential_name": "C"}}, "22004"),
            ({"tool_type": "notification", "tool_params": {"channel": "C"}}, "22004"),
            ({"tool_type": "notification", "tool_params": {"notification_type": "pager"}}, "22023"),
            ({"tool_type": "notification", "tool_params": {"notification_type": "slack"}}, "22004"),
            ({"tool_type": "notification",
              "tool_params": {"notification_type": "email", "recipient": "a@b.c", "sender": "d@e.f",
                              "credential_name": "C"}}, "22004"),
            ({"tool_type": "websearch", "tool_params": {"credential_name": "C"}}, "0A000")]:
        with raises(state):
            create(db, alice, "TOOL", "X", attrs)
    with raises("22023"):
        create(db, alice, "TOOL", "H", {"tool_type": "http", "tool_params": {"endpoint": "ftp://x"}})
    create(db, alice, "TOOL", "H", {"tool_type": "http",
                                    "tool_params": {"endpoint": "https://user:pw@example.com/"}})
    with raises("22023"):                      # a password in the URL: refused when it runs
        run_tool(alice, "H", {"input": "x"})


class Smtp:
    """A tiny SMTP server: EHLO (offering AUTH PLAIN, no STARTTLS: it has no
    certificate; a credential may go in clear only to loopback), AUTH, MAIL,
    RCPT, DATA, QUIT; it records the commands and the message.  ``silent``: it
    accepts connections and never answers (a hung server)."""

    def __init__(self, silent=False, tls=None):
        self.tls = tls                     # an ssl.SSLContext: offer STARTTLS with it
        self.commands: list[str] = []
        self.data = b""
        self.silent = silent
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.open: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.open.append(conn)
            if not self.silent:
                threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn):
        f = conn.makefile("rb")
        conn.sendall(b"220 test ESMTP\r\n")
        while line := f.readline():
            cmd = line.decode().rstrip("\r\n")
            self.commands.append(cmd)
            verb = cmd.split(" ", 1)[0].upper()
            if verb == "EHLO":
                starttls = b"250-STARTTLS\r\n" if self.tls else b""
                conn.sendall(b"250-test\r\n" + starttls + b"250-AUTH PLAIN\r\n250 8BITMIME\r\n")
            elif verb == "STARTTLS":
                conn.sendall(b"220 go ahead\r\n")
                try:
                    conn = self.tls.wrap_socket(conn, server_side=True)
                except (OSError, ssl.SSLError):
                    break
                f = conn.makefile("rb")
            elif verb == "AUTH":
                conn.sendall(b"235 ok\r\n")
            elif verb == "DATA":
                conn.sendall(b"354 go on\r\n")
                while (chunk := f.readline()) not in (b".\r\n", b""):
                    self.data += chunk
                conn.sendall(b"250 queued\r\n")
            elif verb == "QUIT":
                conn.sendall(b"221 bye\r\n")
                break
            else:
                conn.sendall(b"250 ok\r\n")
        conn.close()

    def stop(self):
        self.sock.close()
        for c in self.open:
            c.close()


@pytest.fixture
def smtp():
    s = Smtp()
    yield s
    s.stop()


def email_tool(db, conn, port, name="MAIL"):
    conn.execute("select dbms_cloud.create_credential('SMTPLOGIN', 'mailer', %s)", (SECRET,))
    create(db, conn, "TOOL", name, {"tool_type": "notification",
                                    "tool_params": {"notification_type": "email",
                                                    "credential_name": "SMTPLOGIN",
                                                    "recipient": "ops@example.com",
                                                    "sender": "db@example.com",
                                                    "smtp_host": f"127.0.0.1:{port}",
                                                    "subject": "Daily figures"}})


def test_an_email_tool_sends_mail_where_an_smtp_ace_allows(db, alice, smtp):
    email_tool(db, alice, smtp.port)
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice')")   # http only
    with raises("42501"):
        run_tool(alice, "MAIL", {"message": "All good."})
    assert smtp.commands == []
    db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice', null, null, 'smtp')")
    assert "ops@example.com" in run_tool(alice, "MAIL", {"message": "All good."})
    verbs = [c.split(" ", 1)[0].upper() for c in smtp.commands]
    assert verbs == ["EHLO", "AUTH", "MAIL", "RCPT", "DATA", "QUIT"]
    assert base64.b64decode(smtp.commands[1].split()[-1]) == b"\0mailer\0" + SECRET.encode()
    assert "<db@example.com>" in smtp.commands[2] and "<ops@example.com>" in smtp.commands[3]
    sent = email.message_from_bytes(smtp.data)
    assert (sent["Subject"], sent["From"], sent["To"]) == \
        ("Daily figures", "db@example.com", "ops@example.com")
    assert sent.get_payload().strip() == "All good."
    assert SECRET not in everything_visible(alice)


def test_a_hung_smtp_server_ends_at_the_tools_timeout(db, alice):
    hung = Smtp(silent=True)
    try:
        email_tool(db, alice, hung.port)
        db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice', null, null, 'smtp')")
        alice.execute("set dbms_cloud_ai.agent_tool_timeout = '1s'")
        t0 = time.monotonic()
        with raises("22023"):
            run_tool(alice, "MAIL", {"message": "hello"})
        assert time.monotonic() - t0 < 5
    finally:
        hung.stop()


def test_a_cancel_ends_an_smtp_wait(db, alice):
    hung = Smtp(silent=True)
    try:
        email_tool(db, alice, hung.port)
        db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice', null, null, 'smtp')")
        alice.execute("set dbms_cloud_ai.agent_tool_timeout = '60s'")
        threading.Timer(1.0, alice.cancel).start()
        t0 = time.monotonic()
        with raises("57014"):
            run_tool(alice, "MAIL", {"message": "hello"})
        assert time.monotonic() - t0 < 5
    finally:
        hung.stop()


def test_starttls_is_used_when_offered_and_the_certificate_checked(db, alice, tmp_path):
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", tmp_path / "key.pem",
                    "-out", tmp_path / "cert.pem"], check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    server = Smtp(tls=ctx)
    try:
        email_tool(db, alice, server.port)
        db.admin.execute("select dbms_cloud_ai.append_host_ace('127.0.0.1', 'alice', null, null, 'smtp')")
        with raises("22023") as e:           # a self-signed certificate: not trusted
            run_tool(alice, "MAIL", {"message": "hello"})
        assert "certificate" in str(e["error"]).lower()
        assert [c.split(" ", 1)[0].upper() for c in server.commands] == ["EHLO", "STARTTLS"]
    finally:
        server.stop()
