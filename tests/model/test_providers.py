"""Each provider's wire format, checked on what the fake LLM really received.

Every profile points at the fake server through provider_endpoint; the tests
assert on the URL path, the authentication headers, the JSON body (default
model, messages in the provider's own shape, sampling options) and that the
answer text comes back from generate().
"""

from __future__ import annotations

import json

import psycopg
import pytest
from fake_llm import Answer
from helpers import API_KEY, case, generate, make_profile, raises

SYSTEM = "Answer in French."
OPTIONS = dict(temperature=0.4, max_tokens=77, stop_tokens=[";", "END"], seed=42)
AUTH_HEADERS = ("authorization", "api-key", "x-api-key", "x-goog-api-key")


def ask(conn, fake, answer="la réponse", prompt="What is 4 + 4 ?", profile="P"):
    """One chat call; returns the single request the fake server received."""
    fake.script(Answer(answer))
    assert generate(conn, prompt, profile=profile) == answer
    assert len(fake.requests) == 1, [r.path for r in fake.requests]
    return fake.requests[0]


def assert_key_only_in_header(req, header, value):
    assert req.method == "POST"
    assert req.headers[header] == value
    for other in AUTH_HEADERS:
        if other != header:
            assert other not in req.headers, f"unexpected {other} header"
    assert API_KEY not in req.path
    assert API_KEY not in req.body.decode()
    assert req.headers["content-type"].startswith("application/json")


# -- OpenAI --------------------------------------------------------------------

def test_openai(alice, llm):
    make_profile(alice, llm, provider="openai", additional_instructions=SYSTEM, **OPTIONS)
    req = ask(alice, llm)
    assert req.path == "/v1/chat/completions"
    assert_key_only_in_header(req, "authorization", f"Bearer {API_KEY}")
    assert req.json == {
        "model": "gpt-4o-mini",
        "messages": [{"role": "system", "content": SYSTEM},
                     {"role": "user", "content": "What is 4 + 4 ?"}],
        "temperature": 0.4, "max_tokens": 77, "stop": [";", "END"], "seed": 42,
    }


def test_openai_defaults_send_no_optional_fields(alice, llm):
    make_profile(alice, llm, provider="openai")
    body = ask(alice, llm).json
    assert body == {"model": "gpt-4o-mini", "max_tokens": 1024,
                    "messages": [{"role": "user", "content": "What is 4 + 4 ?"}]}


# -- Azure OpenAI --------------------------------------------------------------

def test_azure(alice, llm):
    make_profile(alice, llm, provider="azure", azure_deployment_name="my-dep",
                 additional_instructions=SYSTEM, **OPTIONS)
    req = ask(alice, llm)
    path, _, query = req.path.partition("?")
    assert path == "/openai/deployments/my-dep/chat/completions"
    assert query.startswith("api-version=") and len(query) > len("api-version=")
    assert_key_only_in_header(req, "api-key", API_KEY)
    body = req.json
    assert "model" not in body  # the deployment decides the model
    assert body["messages"] == [{"role": "system", "content": SYSTEM},
                                {"role": "user", "content": "What is 4 + 4 ?"}]
    assert (body["temperature"], body["max_tokens"], body["stop"], body["seed"]) == \
        (0.4, 77, [";", "END"], 42)


def test_azure_with_explicit_model(alice, llm):
    make_profile(alice, llm, provider="azure", azure_deployment_name="dep2", model="gpt-4o")
    req = ask(alice, llm)
    assert req.path.startswith("/openai/deployments/dep2/chat/completions?api-version=")
    assert req.json["model"] == "gpt-4o"
    assert req.json["max_tokens"] == 1024


def test_azure_deployment_name_is_one_path_segment(alice, llm):
    make_profile(alice, llm, provider="azure", azure_deployment_name="my dep/../x?y=1")
    path = ask(alice, llm).path
    assert path.startswith("/openai/deployments/my%20dep%2F..%2Fx%3Fy%3D1/chat/completions?api-version=")
    assert path.count("?") == 1


# -- Anthropic -----------------------------------------------------------------

def test_anthropic(alice, llm):
    make_profile(alice, llm, provider="anthropic", additional_instructions=SYSTEM, **OPTIONS)
    req = ask(alice, llm)
    assert req.path == "/v1/messages"
    assert_key_only_in_header(req, "x-api-key", API_KEY)
    assert req.headers["anthropic-version"] == "2023-06-01"
    body = req.json
    assert body["model"] == "claude-haiku-4-5"
    assert body["system"] == SYSTEM
    assert body["messages"] == [{"role": "user", "content": "What is 4 + 4 ?"}]
    assert all(m["role"] != "system" for m in body["messages"])
    assert body["temperature"] == 0.4
    assert body["max_tokens"] == 77
    assert body["stop_sequences"] == [";", "END"]
    assert "stop" not in body and "seed" not in body  # the Messages API has no seed


def test_anthropic_without_system_and_with_high_temperature(alice, llm):
    make_profile(alice, llm, provider="anthropic", model="claude-x", temperature=1.7)
    body = ask(alice, llm).json
    assert "system" not in body
    assert body["model"] == "claude-x"
    assert body["max_tokens"] == 1024  # required by the API, always sent
    assert body["temperature"] <= 1.0  # Anthropic's range is 0..1


# -- Cohere --------------------------------------------------------------------

def test_cohere(alice, llm):
    make_profile(alice, llm, provider="cohere", additional_instructions=SYSTEM, **OPTIONS)
    req = ask(alice, llm)
    assert req.path == "/v2/chat"
    assert_key_only_in_header(req, "authorization", f"Bearer {API_KEY}")
    body = req.json
    assert body["model"] == "command-a-03-2025"
    assert body["messages"] == [{"role": "system", "content": SYSTEM},
                                {"role": "user", "content": "What is 4 + 4 ?"}]
    assert body["temperature"] == 0.4
    assert body["max_tokens"] == 77
    assert body["stop_sequences"] == [";", "END"]
    assert body["seed"] == 42


# -- Google Gemini -------------------------------------------------------------

def test_google(alice, llm):
    make_profile(alice, llm, provider="google", additional_instructions=SYSTEM, **OPTIONS)
    req = ask(alice, llm)
    assert req.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert_key_only_in_header(req, "x-goog-api-key", API_KEY)
    assert "key=" not in req.path
    body = req.json
    assert "model" not in body
    assert body["systemInstruction"] == {"parts": [{"text": SYSTEM}]}
    assert body["contents"] == [{"role": "user", "parts": [{"text": "What is 4 + 4 ?"}]}]
    assert body["generationConfig"] == {"temperature": 0.4, "maxOutputTokens": 77,
                                        "stopSequences": [";", "END"], "seed": 42}


def test_google_model_and_endpoint_with_version(alice, llm):
    make_profile(alice, llm, provider="google", model="gemini-2.0-pro",
                 provider_endpoint=llm.url + "/v1beta")
    req = ask(alice, llm)
    assert req.path == "/v1beta/models/gemini-2.0-pro:generateContent"
    assert "systemInstruction" not in req.json
    assert req.json["generationConfig"] == {"maxOutputTokens": 1024}


# -- Hugging Face --------------------------------------------------------------

def test_huggingface(alice, llm):
    make_profile(alice, llm, provider="huggingface", additional_instructions=SYSTEM, **OPTIONS)
    req = ask(alice, llm)
    assert req.path == "/v1/chat/completions"
    assert_key_only_in_header(req, "authorization", f"Bearer {API_KEY}")
    body = req.json
    assert body["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert body["messages"] == [{"role": "system", "content": SYSTEM},
                                {"role": "user", "content": "What is 4 + 4 ?"}]
    assert (body["temperature"], body["max_tokens"], body["stop"], body["seed"]) == \
        (0.4, 77, [";", "END"], 42)


# -- OpenAI-compatible servers (provider_endpoint, no provider) ------------------

def test_openai_compatible_without_credential(alice, llm):
    make_profile(alice, llm, provider=None, credential=None, model="llama3.2")
    req = ask(alice, llm)
    assert req.path == "/v1/chat/completions"
    for h in AUTH_HEADERS:
        assert h not in req.headers
    assert req.json["model"] == "llama3.2"
    assert req.json["messages"] == [{"role": "user", "content": "What is 4 + 4 ?"}]


def test_openai_compatible_with_credential(alice, llm):
    make_profile(alice, llm, provider=None, model="llama3.2")
    req = ask(alice, llm)
    assert_key_only_in_header(req, "authorization", f"Bearer {API_KEY}")


def test_endpoint_forms_reach_chat_completions(alice, llm):
    for i, suffix in enumerate(["", "/", "/v1", "/v1/", "/v1/chat/completions"]):
        with case(suffix):
            llm.reset()
            make_profile(alice, llm, name=f"E{i}", provider=None, credential=None, model="m",
                         provider_endpoint=llm.url + suffix)
            assert ask(alice, llm, profile=f"E{i}").path == "/v1/chat/completions"


def test_provider_endpoint_forms(alice, llm):
    for i, (provider, suffix, path) in enumerate([
        ("openai", "/proxy/v1", "/proxy/v1/chat/completions"),
        ("anthropic", "/v1", "/v1/messages"),
        ("anthropic", "/v1/messages", "/v1/messages"),
        ("cohere", "/v2", "/v2/chat"),
        ("cohere", "/v2/chat", "/v2/chat"),
        ("google", "/v1beta/", "/v1beta/models/gemini-2.5-flash:generateContent"),
        ("google", "/v1", "/v1/models/gemini-2.5-flash:generateContent"),
        ("huggingface", "/v1", "/v1/chat/completions"),
        ("azure", "/", "/openai/deployments/d/chat/completions"),
    ]):
        with case((provider, suffix)):
            llm.reset()
            make_profile(alice, llm, name=f"E{i}", credential=f"C{i}", provider=provider,
                         provider_endpoint=llm.url + suffix, **PROVIDER_CASES[provider])
            assert ask(alice, llm, profile=f"E{i}").path.split("?")[0] == path


# -- every provider ------------------------------------------------------------

PROVIDER_CASES = {
    "openai": {},
    "azure": {"azure_deployment_name": "d"},
    "anthropic": {},
    "cohere": {},
    "google": {},
    "huggingface": {},
}


def each_provider(conn, fake, **kw) -> list[str]:
    """Create a profile named after each provider; return the names."""
    for provider, extra in PROVIDER_CASES.items():
        make_profile(conn, fake, name=provider, provider=provider,
                     **({"credential": f"C_{provider}"} | kw | extra))
    return list(PROVIDER_CASES)


def test_answer_without_token_usage(alice, llm):
    for provider in each_provider(alice, llm):
        with case(provider):
            llm.reset()
            llm.script(Answer("no usage here", input_tokens=None, output_tokens=None))
            assert generate(alice, "hello", profile=provider) == "no usage here"
            assert len(llm.requests) == 1


def test_unicode_round_trip(alice, llm):
    prompt = 'Grüße, 世界 — "quoted"\nline'
    for provider in each_provider(alice, llm):
        with case(provider):
            llm.reset()
            req = ask(alice, llm, answer="Ünïcødé ✓ 日本語", prompt=prompt, profile=provider)
            assert prompt in _texts(req.json)


def _texts(body):
    """Every string in a JSON body."""
    if isinstance(body, dict):
        return [t for v in body.values() for t in _texts(v)]
    if isinstance(body, list):
        return [t for v in body for t in _texts(v)]
    return [body] if isinstance(body, str) else []


def test_endpoint_without_credential_sends_no_key_header(alice, llm):
    """provider_endpoint without credential_name is allowed (e.g. a key-injecting
    proxy): no authentication header may be sent, and certainly not 'None'."""
    for provider in each_provider(alice, llm, credential=None):
        with case(provider):
            llm.reset()
            req = ask(alice, llm, profile=provider)
            for h in AUTH_HEADERS:
                assert h not in req.headers, f"sent {h}: {req.headers.get(h)}"
            assert "None" not in json.dumps(req.headers)


def test_per_call_model_override(alice, llm):
    for provider in each_provider(alice, llm):
        with case(provider):
            llm.reset()
            llm.script(Answer("ok"))
            assert generate(alice, "q", profile=provider,
                            attributes='{"model": "override-model"}') == "ok"
            req = llm.requests[-1]
            if provider == "google":
                assert req.path == "/v1beta/models/override-model:generateContent"
            else:
                assert req.json["model"] == "override-model"


# -- profile validation --------------------------------------------------------

def create(conn, attrs, name="V"):
    conn.execute("select dbms_cloud_ai.create_profile(%s, %s)", (name, json.dumps(attrs)))


def test_azure_needs_a_deployment(alice, llm):
    alice.execute("select dbms_cloud.create_credential('CRED', 'user', %s)", (API_KEY,))
    with raises("22023"):
        create(alice, {"provider": "azure", "credential_name": "CRED",
                       "provider_endpoint": llm.url})
    with raises("22023"):
        create(alice, {"provider": "azure", "credential_name": "CRED",
                       "azure_deployment_name": "d"})  # neither resource nor endpoint
    create(alice, {"provider": "azure", "credential_name": "CRED",
                   "azure_resource_name": "res", "azure_deployment_name": "d"})


def test_oracle_only_providers_are_not_supported(alice):
    for provider in ("aws", "AWS", " aws ", "database"):
        with case(provider):
            with raises("0A000"):
                create(alice, {"provider": provider})


def test_unknown_provider(alice):
    with raises("22023"):
        create(alice, {"provider": "acme"})


def test_provider_without_endpoint_needs_a_credential(alice):
    for provider in ("openai", "anthropic", "cohere", "google", "huggingface"):
        with case(provider):
            with raises("22023"):
                create(alice, {"provider": provider})


def test_openai_compatible_needs_a_model(alice, llm):
    with raises("22023"):
        create(alice, {"provider_endpoint": llm.url})


def test_bad_endpoints(alice):
    for endpoint in ("ftp://example.com", "http://user:pw@example.com",
                     "http://example.com/?key=1", "http://example.com/#frag", "http://"):
        with case(endpoint):
            with raises("22023"):
                create(alice, {"provider": "openai", "provider_endpoint": endpoint, "model": "m"})


def test_no_profile_is_stored_after_a_validation_error(alice, llm):
    for attrs in ({"provider": "azure", "provider_endpoint": llm.url}, {"provider": "aws"},
                  {"provider": "openai"}):
        with pytest.raises(psycopg.Error):
            create(alice, attrs)
    assert alice.execute("select count(*) from dbms_cloud_ai.user_cloud_ai_profiles").fetchone()[0] == 0
