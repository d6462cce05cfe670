"""An email notification tool: the model's message sent by SMTP.

To ``smtp_host`` (``host`` or ``host:port``, port 587 by default), only when
the caller's host ACEs allow it with privilege smtp or connect (42501 before
anything is sent).  STARTTLS when the server offers it (certificates
verified); AUTH with the credential's user name and password when one is
named, which needs TLS unless the server is on a loopback address.

Every wait is bounded and cancelable: the exchange runs under model/http.py's
watchdog (http.watched), which shuts the socket on a cancel, a terminate or the
deadline (agent_tool_timeout within the statement's), and each socket
operation is given at most the time left.  The DNS lookup is http's bounded one.
"""

from __future__ import annotations

import re
import smtplib
import socket
import ssl
import time
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

import certifi
import httpcore

from .. import acl, credentials, db, names
from ..errors import DcaError, InvalidParameter
from ..model import http, timing
from .outbound import _STOPS, Failed, message

DEFAULT_PORT = 587
_HOST = re.compile(r"\[?([A-Za-z0-9.:-]+?)\]?(?::(\d{1,5}))?\Z")
_LOOPBACK = re.compile(r"(localhost|127(\.\d{1,3}){3}|::1)\Z", re.I)


def _host_port(raw, what: str) -> tuple[str, int]:
    m = _HOST.match(str(raw or "").strip())
    port = int(m.group(2)) if m and m.group(2) else DEFAULT_PORT
    if not m or not 0 < port < 65536:
        raise InvalidParameter(f"{what}: tool_params.smtp_host must be a host or host:port",
                               hint="Set it with dbms_cloud_ai_agent.set_attribute().")
    return m.group(1).lower(), port


class _SMTP(smtplib.SMTP):
    """smtplib's client whose socket the watchdog knows before each wait."""

    def _get_socket(self, host, port, timeout):
        failure = None
        for address in http._resolve(host, port, http.watch_socket(None)):
            sock = socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET,
                                 socket.SOCK_STREAM)
            try:
                http.watch_socket(sock)
                sock.connect((address, port))
                return sock
            except OSError as e:
                sock.close()
                failure = e
        raise failure or OSError(f"no address for {host}")

    def send(self, s):
        http.watch_socket(self.sock)
        super().send(s)

    def getreply(self):
        http.watch_socket(self.sock)
        return super().getreply()


class _WatchedTls(ssl.SSLContext):
    """STARTTLS's context: the TLS socket is handed to the watchdog before its
    handshake, which is then bounded and cancelable like any other wait (the
    plain socket it wraps is detached, and shutting that one does nothing)."""

    def wrap_socket(self, sock, server_side=False, do_handshake_on_connect=True,
                    suppress_ragged_eofs=True, server_hostname=None, session=None):
        tls = super().wrap_socket(sock, server_side=server_side, do_handshake_on_connect=False,
                                  suppress_ragged_eofs=suppress_ragged_eofs,
                                  server_hostname=server_hostname, session=session)
        http.watch_socket(tls)
        tls.do_handshake()
        return tls


def _tls() -> ssl.SSLContext:
    ctx = _WatchedTls(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cafile=certifi.where())
    return ctx


def _login(plpy, credential_name) -> tuple[str, str]:
    name = names.normalize(credential_name, "credential")
    password = credentials.api_key(plpy, credential_name)
    row = db.one(plpy, "select username from dbms_cloud._credential "
                       "where owner = current_user and credential_name = $1", ("text",), (name,))
    return (row["username"] or "") if row else "", password


def _exchange(host, port, login, mail: EmailMessage, what: str) -> None:
    client = _SMTP(timeout=1.0)      # replaced before each wait by the time left
    try:
        client._host = host          # the name STARTTLS verifies (set only by SMTP(host))
        client.connect(host, port)
        client.ehlo()
        if client.has_extn("starttls"):
            client.starttls(context=_tls())
            client.ehlo()
        elif login is not None and not _LOOPBACK.match(host):
            raise Failed(f"{what}: {host} does not offer STARTTLS: the credential would be "
                         "sent in clear text")
        if login is not None:
            client.login(*login)
        client.send_message(mail)
        client.quit()
    finally:
        try:
            client.close()
        except OSError:
            pass


def email_tool(plpy, tool, args: dict, limit: float) -> str:
    params = tool.attrs.get("tool_params") or {}
    what = f"tool {tool.name}"
    host, port = _host_port(params.get("smtp_host"), what)
    acl.check_egress(plpy, f"smtp://{host}:{port}", smtp=True)
    login = _login(plpy, params["credential_name"]) if params.get("credential_name") else None
    mail = EmailMessage()
    try:
        mail["From"] = params["sender"]
        mail["To"] = params["recipient"]
        mail["Subject"] = params.get("subject") or "Notification"
    except (KeyError, ValueError) as e:
        raise InvalidParameter(f"{what}: invalid sender, recipient or subject ({e})",
                               hint="Set them with dbms_cloud_ai_agent.set_attribute().") from None
    mail["Date"] = formatdate(localtime=False)
    mail["Message-ID"] = make_msgid()
    mail.set_content(message(args))
    end, _ = timing.deadline(plpy, None, "tool")
    deadline = min(end, time.monotonic() + limit)
    try:
        http.watched(lambda: _exchange(host, port, login, mail, what), deadline, plpy)
    except DcaError as e:
        if e.sqlstate in _STOPS:
            raise
        raise Failed(e.message) from None
    except (OSError, smtplib.SMTPException, httpcore.NetworkError, httpcore.TimeoutException) as e:
        if time.monotonic() >= deadline:
            raise Failed(f"{what}: {host} did not take the mail within the tool's deadline") from None
        why = str(e).strip()[:200] or type(e).__name__
        if login is not None:
            why = why.replace(login[1], http.REDACTED)
        raise Failed(f"{what}: mail not sent by {host}: {why}") from None
    return f"mail sent to {params['recipient']}"
