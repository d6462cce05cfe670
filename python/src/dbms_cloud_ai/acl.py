"""Outbound network access, governed like Oracle's host access control lists.

HTTPS to the providers' own API hosts is allowed out of the box.  Every other
destination (a custom endpoint, a local Ollama, loopback, private addresses,
plain http) needs a host ACE that an administrator granted to the calling role,
one of its groups, or PUBLIC.

An ACE carries one of Oracle's host privileges (http, http_proxy, connect,
resolve, smtp, jdwp); only ``http`` and ``connect`` (which Oracle grants for
every protocol, HTTP included) let a request through here, and ``smtp`` or
``connect`` an agent's mail (agents/mail.py).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from . import db, role_binding
from .errors import InsufficientPrivilege, InvalidParameter, NullValue, UndefinedObject
from .providers import WELL_KNOWN_HOSTS, WELL_KNOWN_SUFFIXES

PRIVILEGES = ("http", "http_proxy", "connect", "resolve", "smtp", "jdwp")
# The privileges that let the extension's HTTP requests through (SQL text: a literal list).
EGRESS_SQL = "privilege in ('http', 'connect')"
# ... and its mail (an agent's email tool), as in Oracle's UTL_SMTP.
SMTP_SQL = "privilege in ('smtp', 'connect')"

_HOST = re.compile(r"(\*|(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)\Z")


def is_admin(plpy) -> bool:
    return db.one(plpy, """
        select (select rolsuper from pg_catalog.pg_roles where rolname = current_user)
            or pg_catalog.pg_has_role(current_user, 'dbms_cloud_ai_admin', 'member') as a""")["a"]


def require_admin(plpy, what):
    if not is_admin(plpy):
        raise InsufficientPrivilege(
            f"{what} requires the dbms_cloud_ai_admin role",
            hint="Ask a superuser to run: GRANT dbms_cloud_ai_admin TO <role>;")


def normalize_host(host):
    if host is None:
        raise NullValue("host must not be NULL", hint="Pass a host name, IP address or '*.domain'.")
    h = host.strip().lower().rstrip(".")
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    try:
        return str(ipaddress.ip_address(h))
    except ValueError:
        pass
    if not _HOST.match(h):
        raise InvalidParameter(f"invalid host {host!r}",
                               hint="Pass a host name ('api.example.com'), an IP address, "
                                    "or a wildcard ('*.example.com').")
    return h


def _ports(lower_port, upper_port):
    for p in (lower_port, upper_port):
        if p is not None and not 1 <= p <= 65535:
            raise InvalidParameter(f"port {p} is out of range (1 to 65535)",
                                   hint="Pass ports between 1 and 65535, or NULL for all ports.")
    if lower_port is not None and upper_port is None:
        upper_port = lower_port
    if upper_port is not None and lower_port is None:
        lower_port = upper_port
    if lower_port is not None and lower_port > upper_port:
        raise InvalidParameter("lower_port is greater than upper_port",
                               hint="Swap lower_port and upper_port.")
    return lower_port, upper_port


def normalize_privilege(privilege):
    if privilege is None:
        raise NullValue("privilege must not be NULL", hint="Pass 'http' (the default) or 'connect'.")
    p = privilege.strip().lower()
    if p not in PRIVILEGES:
        raise InvalidParameter(f"unknown host privilege {privilege!r}",
                               hint=f"Pass one of Oracle's host privileges: {', '.join(PRIVILEGES)}.")
    return p


def principal(plpy, principal_name):
    if principal_name is None or principal_name.strip().upper() == "PUBLIC":
        return "PUBLIC"
    if db.one(plpy, "select 1 as x from pg_catalog.pg_roles where rolname = $1",
              ("text",), (principal_name,)) is None:
        raise UndefinedObject(f"role {principal_name} does not exist",
                              hint="Pass an existing role name, or 'PUBLIC'.")
    return principal_name


def append_ace(plpy, host, principal_name, lower_port, upper_port, privilege="http"):
    require_admin(plpy, "dbms_cloud_ai.append_host_ace")
    h = normalize_host(host)
    lo, hi = _ports(lower_port, upper_port)
    priv = normalize_privilege(privilege)
    who = principal(plpy, principal_name)
    role_binding.bind_principal(plpy, who)
    db.query(plpy, """
        insert into dbms_cloud_ai._host_ace (host, lower_port, upper_port, principal_name, privilege)
        select $1, $2, $3, $4, $5 where not exists (
            select 1 from dbms_cloud_ai._host_ace where host = $1 and principal_name = $4
               and lower_port is not distinct from $2 and upper_port is not distinct from $3
               and privilege = $5)""",
             ("text", "int4", "int4", "text", "text"), (h, lo, hi, who, priv))


def remove_ace(plpy, host, principal_name, lower_port, upper_port, privilege="http"):
    require_admin(plpy, "dbms_cloud_ai.remove_host_ace")
    h = normalize_host(host)
    lo, hi = _ports(lower_port, upper_port)
    priv = normalize_privilege(privilege)
    who = principal(plpy, principal_name) if principal_name is not None else "PUBLIC"
    db.query(plpy, """
        delete from dbms_cloud_ai._host_ace where host = $1 and principal_name = $4
           and lower_port is not distinct from $2 and upper_port is not distinct from $3
           and privilege = $5""",
             ("text", "int4", "int4", "text", "text"), (h, lo, hi, who, priv))


def _matches(pattern: str, host: str) -> bool:
    if pattern == "*" or pattern == host:
        return True
    return pattern.startswith("*.") and host.endswith(pattern[1:])


def check_egress(plpy, url: str, aces: list | None = None, smtp: bool = False) -> None:
    """Raise unless the calling role may send a request to ``url``.

    ``aces`` ([host, lower_port, upper_port] triples) may come from the
    caller's own query, which row-level security filtered the same way.
    ``smtp``: mail to ``smtp://host:port``, which needs privilege smtp or connect."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        host = str(ipaddress.ip_address(host))
    except ValueError:
        pass
    port = parts.port or (443 if parts.scheme == "https" else 80)
    if parts.scheme == "https" and not smtp and (host in WELL_KNOWN_HOSTS or host.endswith(WELL_KNOWN_SUFFIXES)):
        return
    # Row-level security returns only the ACEs granted to this role, its groups, or PUBLIC.
    if aces is None:
        aces = [(r["host"], r["lower_port"], r["upper_port"]) for r in
                db.query(plpy, "select host, lower_port, upper_port from dbms_cloud_ai._host_ace "
                                 f"where {SMTP_SQL if smtp else EGRESS_SQL}")]
    for ace_host, lower, upper in aces:
        if _matches(ace_host, host) and (lower is None or lower <= port <= upper):
            return
    raise InsufficientPrivilege(
        f"network access denied by access control list (ACL) for host {host} port {port}",
        detail="Only HTTPS to the providers' own hosts is allowed without a host ACE.",
        hint=f"An administrator can allow it with: SELECT dbms_cloud_ai.append_host_ace("
             f"host => '{host}', principal_name => '<role>'"
             + (", privilege => 'smtp'" if smtp else "") + ");")
