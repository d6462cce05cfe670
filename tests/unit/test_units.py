"""Pure-Python parts, no server: names, attributes, endpoints, crypto, HTTP deadline."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from dbms_cloud_ai import attributes, crypto, jsontext, names
from dbms_cloud_ai.errors import (
    SQLSTATES,
    ConfigurationError,
    DcaError,
    InvalidJson,
    InvalidParameter,
    NotInPrerequisiteState,
    ProviderRateLimited,
    ProviderTimeout,
)
from dbms_cloud_ai.model import http
from dbms_cloud_ai.providers import PROVIDERS, endpoint_url
from dbms_cloud_ai.providers.base import join_api_path
from fake_llm import Answer, Drip, FakeLLM, Hang, Raw
from paths import ROOT


def test_every_error_class_is_in_the_sqlstate_table():
    def walk(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from walk(sub)
    states = {c.sqlstate for c in walk(DcaError) if "sqlstate" in c.__dict__}
    assert states <= set(SQLSTATES)
    assert len(states) == len(SQLSTATES)


@pytest.mark.parametrize("raw,expected", [
    ("openai", "OPENAI"), (" OpenAI_1 ", "OPENAI_1"), ('"MixedCase"', "MixedCase"),
    ('"with space"', "with space"), ("a$b#c", "A$B#C"),
])
def test_oracle_name_rules(raw, expected):
    assert names.normalize(raw, "profile") == expected


@pytest.mark.parametrize("raw", ["", "1abc", "has space", '""', '"a"b"', "x" * 126])
def test_invalid_names(raw):
    with pytest.raises(InvalidParameter):
        names.normalize(raw, "profile")


def test_attribute_values_from_strings_and_json():
    assert attributes.parse_value("max_tokens", "512") == ("max_tokens", 512)
    assert attributes.parse_value("MAX_TOKENS", 512.0) == ("max_tokens", 512)
    assert attributes.parse_value("comments", "TRUE") == ("comments", True)
    assert attributes.parse_value("temperature", "0.5") == ("temperature", 0.5)
    assert attributes.parse_value("object_list", '[{"owner":"SH"}]') == ("object_list", [{"owner": "SH"}])
    assert attributes.parse_value("model", None) == ("model", None)
    assert attributes.display(True) == "true"
    assert attributes.display([{"owner": "SH", "name": "T"}]) == '[{"owner":"SH","name":"T"}]'


@pytest.mark.parametrize("fact,quote,ok", [
    ("Sam is the user's name", "call me sam", True),
    ("Wants answers in Spanish", "please always answer me in spanish", True),   # answers ~ answer
    ("prefers tea over coffee", "i prefer tea", True),
    ("I want to be contacted via email", "whenever you show amounts of money, use euros", False),
    ("My name is M1", "how do i compute a rolling 7-day average?", False),
    ("Hamlet is the main character in the play", "summarize hamlet for me", False),
    ("菜食主義者です", "私は菜食主義者です", True),          # unspaced scripts are not split
])
def test_a_fact_must_share_words_with_its_quote(fact, quote, ok):
    from dbms_cloud_ai.memory.jobs import grounded
    assert grounded(fact, quote) is ok


DEEP = "[" * 100_000 + "]" * 100_000   # past the interpreter's recursion limit


def test_json_nested_too_deeply_is_bad_json_everywhere_it_is_read():
    """A model answer, a provider body or an argument nested 100,000 deep is invalid
    JSON (each reader's own outcome), never a RecursionError (an internal error)."""
    from dbms_cloud_ai.conversations.store import parse_title
    from dbms_cloud_ai.memory.jobs import parse_facts
    from dbms_cloud_ai.providers.base import tool_arguments, tool_calls_in_text

    with pytest.raises(ValueError):
        jsontext.loads(DEEP)
    assert tool_arguments(DEEP) == {}
    assert tool_calls_in_text('{"name": "search_memories", "arguments": ' + DEEP + "}",
                              [{"name": "search_memories", "parameters": {}}]) == []
    with pytest.raises(ValueError):
        parse_facts('{"facts": ' + DEEP + "}")
    assert parse_title('{"title": ' + DEEP + "}")[0]
    assert http._blames_the_request(500, ('{"error": ' + DEEP + "}").encode()) is False
    with pytest.raises(InvalidJson):
        attributes.parse_value("object_list", DEEP)
    with pytest.raises(InvalidJson):
        attributes.parse_json_object(DEEP, "attributes")


def test_endpoint_forms():
    assert endpoint_url("api.fireworks.ai/inference") == "https://api.fireworks.ai/inference"
    assert endpoint_url("http://127.0.0.1:11434/") == "http://127.0.0.1:11434"
    openai = PROVIDERS["openai"]
    for ep, url in [("http://h:1", "http://h:1/v1/chat/completions"),
                    ("http://h:1/v1", "http://h:1/v1/chat/completions"),
                    ("https://api.fireworks.ai/inference", "https://api.fireworks.ai/inference/v1/chat/completions"),
                    ("http://h/v1/chat/completions", "http://h/v1/chat/completions")]:
        assert openai.url({"provider_endpoint": ep}, None) == url
    assert join_api_path("https://x/v1beta/openai", "/v1", "/chat/completions") == \
        "https://x/v1beta/openai/chat/completions"


@pytest.fixture
def key_file(tmp_path, monkeypatch):
    path = tmp_path / "master.key"
    path.write_text(os.urandom(32).hex() + "\n")
    path.chmod(0o600)
    monkeypatch.setenv("DBMS_CLOUD_AI_KEY_FILE", str(path))
    crypto._cache.clear()
    yield path
    crypto._cache.clear()


def test_crypto_round_trip_and_binding(key_file):
    b1, b2 = "0b1e0000-0000-4000-8000-000000000001", "0b1e0000-0000-4000-8000-000000000002"
    blob, kid = crypto.encrypt("alice", "CRED", "sk-secret", b1)
    assert b"sk-secret" not in blob
    assert kid.endswith(crypto.ROLE_BOUND)
    assert crypto.decrypt("alice", "CRED", blob, kid, b1) == "sk-secret"
    with pytest.raises(NotInPrerequisiteState):
        crypto.decrypt("bob", "CRED", blob, kid, b1)
    with pytest.raises(NotInPrerequisiteState):
        crypto.decrypt("alice", "OTHER", blob, kid, b1)
    with pytest.raises(NotInPrerequisiteState):
        crypto.decrypt("alice", "CRED", blob, "another-key-id" + crypto.ROLE_BOUND, b1)
    # issue 14, class 3: a later role of the same name has another binding id
    for other in (b2, None):
        with pytest.raises(NotInPrerequisiteState):
            crypto.decrypt("alice", "CRED", blob, kid, other)
    # ... and stripping the marker (the pre-0.3.0 associated data) does not help
    with pytest.raises(NotInPrerequisiteState):
        crypto.decrypt("alice", "CRED", blob, kid[:-len(crypto.ROLE_BOUND)], b1)


def test_crypto_refuses_a_bad_key_file(key_file):
    key_file.chmod(0o644)
    with pytest.raises(ConfigurationError):
        crypto.encrypt("a", "b", "c", "d")
    key_file.chmod(0o600)
    key_file.write_text("not hex")
    with pytest.raises(ConfigurationError):
        crypto.encrypt("a", "b", "c", "d")
    key_file.unlink()
    with pytest.raises(ConfigurationError):
        crypto.encrypt("a", "b", "c", "d")


@pytest.fixture(scope="module")
def server():
    fake = FakeLLM().start()
    yield fake
    fake.stop()


def post(server, deadline_s=2.0, attempts=3):
    server_url = server.url + "/v1/chat/completions"
    return http.post_json(server_url, {}, {"model": "m", "messages": []}, provider="openai",
                          deadline=time.monotonic() + deadline_s, max_attempts=attempts)


def test_http_total_deadline_beats_a_dripping_server(server):
    server.reset()
    server.script(Drip("x" * 200, interval=0.2))
    start = time.monotonic()
    with pytest.raises(ProviderTimeout):
        post(server, deadline_s=1.0)
    assert time.monotonic() - start < 1.5
    server.reset()


def test_http_retry_after_beyond_deadline_fails_fast(server):
    server.reset()
    server.script(Raw(429, {"error": "slow down"}, headers={"retry-after": "60"}))
    start = time.monotonic()
    with pytest.raises(ProviderRateLimited) as e:
        post(server, deadline_s=5.0)
    assert time.monotonic() - start < 0.5
    assert "429" in e.value.detail
    assert len(server.requests) == 1


def test_http_keeps_the_connection_alive(server):
    server.reset()
    server.script(Answer("a"), Answer("b"))
    assert post(server).data["choices"][0]["message"]["content"] == "a"
    assert post(server).data["choices"][0]["message"]["content"] == "b"


def test_http_hang_is_bounded(server):
    server.reset()
    server.script(Hang(30))
    start = time.monotonic()
    with pytest.raises(ProviderTimeout):
        post(server, deadline_s=0.8)
    assert time.monotonic() - start < 1.3
    server.reset()


def test_readme_error_table_matches_the_code():
    import re
    readme = (ROOT / "docs" / "reference"
              / "errors.md").read_text()
    rows = {m.group(1): (m.group(2), m.group(3).replace("`", "").strip()) for m in
            re.finditer(r"^\| `([0-9A-Z]{5})` \| (\w+) \| (.+) \|$", readme, re.M)}
    assert rows == {state: (cond, when) for state, (cond, when) in SQLSTATES.items()}


def test_summarize_params_are_the_ones_generate_accepts():
    """generate.py keeps its own copy so that it need not import text_actions."""
    from dbms_cloud_ai import generate
    from dbms_cloud_ai.text import actions as text_actions
    assert generate.ACTIONS["summarize"].params == text_actions.SUMMARY_PARAMS


def test_the_lists_of_actions_elsewhere_are_the_action_tables():
    """Modules that generate.py runs cannot import its table (no cycle): their
    own lists must say what the table says."""
    from dbms_cloud_ai import generate
    from dbms_cloud_ai.nl2sql import feedback
    acts = generate.ACTIONS.values()
    assert set(feedback.LOGGED_ACTIONS) == {a.name for a in acts if a.logs_statement}
    assert set(feedback.EXAMPLE_ACTIONS) == {a.name.upper() for a in acts
                                             if a.keeps == "sql" and a.records}
    assert tuple(generate.ACTIONS)[:6] == ("runsql", "showsql", "explainsql", "narrate", "chat",
                                           "showprompt")   # Oracle's order


def test_a_chat_session_does_not_load_what_only_other_actions_need():
    """What the PL/Python bodies import (sqlapi) leaves NL2SQL, feedback, the text
    actions and their libraries for the first call that needs them (cold start)."""
    src = ROOT / "python" / "src"
    code = "import sys, dbms_cloud_ai.sqlapi; print(' '.join(sorted(sys.modules)))"
    loaded = set(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                text=True, env={**os.environ, "PYTHONPATH": str(src)}).stdout.split())
    assert "dbms_cloud_ai.sqlapi" in loaded
    for name in ("dbms_cloud_ai.nl2sql", "dbms_cloud_ai.nl2sql.actions", "dbms_cloud_ai.nl2sql.feedback",
                 "dbms_cloud_ai.text", "dbms_cloud_ai.text.actions", "dbms_cloud_ai.model.usage",
                 "dbms_cloud_ai.memory.jobs", "dbms_cloud_ai.vector_indexes", "sqlglot", "pglast"):
        assert name not in loaded, name


def test_a_request_leaves_in_one_send():
    """httpcore writes a request's head and body apart; with TCP_NODELAY each
    write would be a packet and a wake-up of the server.  The stream holds them
    until the response is read, then sends them together."""
    class Inner:
        def __init__(self):
            self.writes, self.reads = [], 0

        def write(self, data, timeout=None):
            self.writes.append(bytes(data))

        def read(self, max_bytes, timeout=None):
            self.reads += 1
            return b"HTTP/1.1 200 OK\r\n\r\n"

        def close(self):
            pass
    inner = Inner()
    stream = http._DeadlineStream(inner)
    stream.write(b"POST / HTTP/1.1\r\nhost: x\r\n\r\n")
    stream.write(b"")
    stream.write(memoryview(b'{"a": 1}'))
    assert inner.writes == []
    stream.read(65536)
    assert inner.writes == [b'POST / HTTP/1.1\r\nhost: x\r\n\r\n{"a": 1}']
    stream.read(65536)                      # nothing more to send
    assert len(inner.writes) == 1 and inner.reads == 2
