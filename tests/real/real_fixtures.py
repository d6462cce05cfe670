"""Fixtures of the real-model tier (issue 17): the extension against a real model server.

(Not a conftest.py: the tests and the root conftest's hook import it by name, as
real.real_fixtures.)

`make test-real` starts the project's local model server (scripts/local-model.sh)
and its local embedding server (scripts/local-embeddings.sh), and runs the tests
marked ``real``; LOCAL_MODEL_URL and LOCAL_MODEL_NAME (LOCAL_EMBED_URL and
LOCAL_EMBED_NAME for embeddings) point them at other OpenAI-compatible servers
instead.  Without a server the tier fails: it never passes by skipping.

The tests assert what holds for any competent model (a result equal to the
ground truth, a fact recalled, valid JSON), never wording.

A server that dies fails the tier loudly (issue 29): a test that fails on an unreachable
provider (LL000) has the servers checked (tests/conftest.py calls gone_servers), and one that
is gone stops the session with its log's tail and the cause of its end; the session fixtures
check once more after the tier.  A server the script started is checked by its process
(`scripts/...sh diagnose`); one the environment names, by whether it still takes connections.
"""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest
from paths import ROOT

LOCAL_MODEL = ROOT / "scripts" / "local-model.sh"
LOCAL_EMBEDDINGS = ROOT / "scripts" / "local-embeddings.sh"
# A small model on two cores takes seconds to minutes per answer (300s is the most
# dbms_cloud_ai.max_statement_timeout allows by default).
TIMEOUT = os.environ.get("REAL_STATEMENT_TIMEOUT", "300s")   # max_statement_timeout


@dataclass
class Model:
    url: str
    name: str


def _script(script: pathlib.Path, *args: str) -> str:
    return subprocess.run([str(script), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def _server(script: pathlib.Path, url_var: str, name_var: str) -> Model:
    """The server the environment names, else the one the script starts (or runs already)."""
    url, name = os.environ.get(url_var), os.environ.get(name_var)
    if not url:
        subprocess.run([str(script), "start"], check=True)
        url, name = _script(script, "url"), _script(script, "model")
    assert url and name, f"no server: set {url_var} and {name_var} or let " \
                         f"scripts/{script.name} start one"
    return Model(url, name)


# name -> (the script that started the server, None when the environment names it; its url)
_IN_USE: dict[str, tuple[pathlib.Path | None, str]] = {}
# name -> how many instances of its fixture are set up: each test module that imports a
# fixture gets its own session-scoped instance, and only the last one's teardown checks.
_USERS: dict[str, int] = {}


def gone(script: pathlib.Path | None, url: str) -> str | None:
    """Why the server is gone, or None while it is there."""
    if script is None:
        parts = urlsplit(url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            socket.create_connection((parts.hostname, port), timeout=10).close()
        except TimeoutError:
            return None  # busy, not gone
        except OSError as e:
            return f"{url} takes no connection: {e}"
        return None
    r = subprocess.run([str(script), "diagnose"], capture_output=True, text=True)
    return None if r.returncode == 0 else r.stderr.strip()


def gone_servers(error: BaseException) -> str | None:
    """After a test failed with error: when a provider could not be reached (LL000), what
    the servers in use say of themselves, for those that are gone."""
    if getattr(error, "sqlstate", None) != "LL000":
        return None
    found = [f"the {name} server is gone:\n{why}" for name, watch in _IN_USE.items() if (why := gone(*watch))]
    return "\n".join(found) or None


def _watched(name: str, script: pathlib.Path, url_var: str, name_var: str):
    model = _server(script, url_var, name_var)
    _IN_USE[name] = (None if os.environ.get(url_var) else script, model.url)
    _USERS[name] = _USERS.get(name, 0) + 1
    yield model
    _USERS[name] -= 1
    if _USERS[name]:
        return
    why = gone(*_IN_USE.pop(name))
    if why:
        pytest.fail(f"the {name} server is gone after the real tier:\n{why}", pytrace=False)


@pytest.fixture(scope="session")
def local_model():
    yield from _watched("local model", LOCAL_MODEL, "LOCAL_MODEL_URL", "LOCAL_MODEL_NAME")


@pytest.fixture(scope="session")
def local_embeddings():
    """The embedding server: infinity serving all-MiniLM-L6-v2 (384 dimensions)."""
    yield from _watched("local embedding", LOCAL_EMBEDDINGS, "LOCAL_EMBED_URL", "LOCAL_EMBED_NAME")


@pytest.fixture
def real(db, alice, local_model):
    """alice with the profile P on the real model (temperature 0), allowed to
    reach its host, and a statement_timeout long enough for a small model."""
    host = urlsplit(local_model.url).hostname
    db.admin.execute("select dbms_cloud_ai.append_host_ace(%s, 'PUBLIC')", (host,))
    db.admin.execute("select dbms_cloud_ai.set_max_wait(900)")
    alice.execute("select dbms_cloud_ai.create_profile('P', %s)", (json.dumps({
        "provider_endpoint": local_model.url, "model": local_model.name, "temperature": 0,
        "object_list": [{"owner": "sh"}]}),))
    for setting in ("statement_timeout", "dbms_cloud_ai.http_timeout"):
        alice.execute("select pg_catalog.set_config(%s, %s, false)", (setting, TIMEOUT))
    return alice


@pytest.fixture
def embedder(db, alice, local_embeddings):
    """alice with the profile E straight on the embedding server: its provider_endpoint is
    that server and its embedding_model the served model.  E has no chat model there
    (``model`` names none that exists), so its tests use only what needs no chat answer:
    negative feedback with the corrected SQL, and showprompt."""
    host = urlsplit(local_embeddings.url).hostname
    db.admin.execute("select dbms_cloud_ai.append_host_ace(%s, 'PUBLIC')", (host,))
    alice.execute("select dbms_cloud_ai.create_profile('E', %s)", (json.dumps({
        "provider_endpoint": local_embeddings.url, "model": "no-chat-model-here",
        "embedding_model": local_embeddings.name, "object_list": [{"owner": "sh"}]}),))
    return alice


@pytest.fixture
def sh(db):
    """The demo's sample schema sh (demo/sample_schema.sql), readable by alice."""
    db.admin.execute((ROOT / "demo" / "sample_schema.sql").read_text())
    db.admin.execute("grant usage on schema sh to alice")
    db.admin.execute("grant select on all tables in schema sh to alice")
    return db


# --- The gateway (scripts/local-gateway.sh): the anthropic and google adapters against a
# real server.  litellm's proxy speaks their wires in front of the same local model.

GATEWAY = ROOT / "scripts" / "local-gateway.sh"
# The model names the gateway routes to the local model, per provider.
GATEWAY_MODELS = {"anthropic": "claude-local", "google": "gemini-local"}


@dataclass
class Gateway:
    url: str
    key: str


@pytest.fixture(scope="session")
def gateway(local_model) -> Gateway:
    """GATEWAY_URL and GATEWAY_KEY, else the project's gateway in front of local_model."""
    url, key = os.environ.get("GATEWAY_URL"), os.environ.get("GATEWAY_KEY")
    if not url:
        env = {**os.environ, "LOCAL_MODEL_URL": local_model.url, "LOCAL_MODEL_NAME": local_model.name}
        subprocess.run([str(GATEWAY), "start"], check=True, env=env)
        url, key = (subprocess.run([str(GATEWAY), cmd], check=True, capture_output=True, text=True)
                    .stdout.strip() for cmd in ("url", "key"))
    assert url and key, "no gateway: set GATEWAY_URL and GATEWAY_KEY or let " \
                        "scripts/local-gateway.sh start one"
    return Gateway(url, key)


def gateway_profile(db, conn, gateway: Gateway, provider: str, model: str):
    """conn with the profile P of this provider on the gateway (temperature 0), its key
    as the credential GW, the host allowed, and a statement_timeout for a small model."""
    db.admin.execute("select dbms_cloud_ai.append_host_ace(%s, 'PUBLIC')",
                     (urlsplit(gateway.url).hostname,))
    db.admin.execute("select dbms_cloud_ai.set_max_wait(900)")
    conn.execute("select dbms_cloud.create_credential('GW', 'gateway', %s)", (gateway.key,))
    conn.execute("select dbms_cloud_ai.create_profile('P', %s)", (json.dumps({
        "provider": provider, "provider_endpoint": gateway.url, "credential_name": "GW",
        "model": model, "temperature": 0, "object_list": [{"owner": "sh"}]}),))
    for setting in ("statement_timeout", "dbms_cloud_ai.http_timeout"):
        conn.execute("select pg_catalog.set_config(%s, %s, false)", (setting, TIMEOUT))
    return conn


@pytest.fixture(params=sorted(GATEWAY_MODELS))
def via_gateway(request, db, alice, gateway):
    """alice with P on the gateway, once per wire: anthropic (/v1/messages) and google
    (generateContent)."""
    return gateway_profile(db, alice, gateway, request.param, GATEWAY_MODELS[request.param])
