"""The local gateway's pins and config (scripts/local-gateway/, docs/local-model.md), offline.

Every package of the gateway's venv is pinned by version and sha256; the script installs
them with --require-hashes and nothing else; the gateway listens on loopback only and its
key is never in git; the config renders to the routes the real tier's profiles send.
"""

from __future__ import annotations

import importlib.util
import re

from paths import ROOT
from unit.test_local_model_pins import SHA256

HERE = ROOT / "scripts" / "local-gateway"
SCRIPT = ROOT / "scripts" / "local-gateway.sh"


def logical_lines(text: str) -> list[str]:
    """A requirements file's requirement lines, continuations joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", text)
    return [line.split("#", 1)[0].strip() for line in joined.splitlines() if line.split("#", 1)[0].strip()]


def test_every_line_is_pinned_by_version_and_hash():
    pins = {}
    for line in logical_lines((HERE / "requirements.txt").read_text()):
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:\S+)+)$", line)
        assert m, f"not pinned by version and hash: {line}"
        name = m.group(1).lower().replace("_", "-")
        assert name not in pins, f"{name} twice"
        hashes = re.findall(r"--hash=sha256:(\S+)", m.group(3))
        assert hashes and all(SHA256.match(h) for h in hashes), line
        pins[name] = m.group(2)
    assert pins["litellm"] == "1.106.12"
    # What the proxy needs at run time comes pinned too (the [proxy] extra).
    assert {"fastapi", "uvicorn", "pyyaml", "openai", "httpx", "pydantic"} <= set(pins)


def test_the_input_names_one_exact_version():
    assert logical_lines((HERE / "requirements.in").read_text()) == ["litellm[proxy]==1.106.12"]


def test_the_script_installs_hashed_wheels_only():
    text = SCRIPT.read_text()
    installs = re.findall(r"pip\" install(?:[^\n]*\\\n)*[^\n]*", text)
    assert len(installs) == 1
    for flag in ("--require-hashes", "--only-binary=:all:", "--no-deps", "requirements.txt"):
        assert flag in installs[0], flag


def test_the_gateway_listens_on_loopback_only_and_keeps_its_key_out_of_git():
    text = SCRIPT.read_text()
    assert re.search(r"^HOST=127\.0\.0\.1\b", text, re.M)
    assert re.findall(r"--host \S+", text) == ['--host "$HOST"']
    assert "umask 077" in text and "secrets.token_hex" in text
    assert not re.search(r"sk-[A-Za-z0-9]{8,}", text + (HERE / "config.yaml.in").read_text())
    assert "master_key: os.environ/LITELLM_MASTER_KEY" in (HERE / "config.yaml.in").read_text()


def test_nothing_is_fetched_at_start():
    text = SCRIPT.read_text()
    for var in ("LITELLM_LOCAL_MODEL_COST_MAP=True", "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS=True",
                "unset DATABASE_URL"):
        assert var in text, var


def load_render():
    spec = importlib.util.spec_from_file_location("gateway_render", HERE / "render.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def routes(config: str) -> dict[str, tuple[str, str]]:
    """model_name -> (litellm model, api_base) of a rendered config (no YAML parser here)."""
    found = re.findall(r'- model_name: "?([^"\n]+)"?\n\s+litellm_params: \{model: "([^"]+)", '
                       r'api_base: "([^"]+)"', config)
    return {name: (model, base) for name, model, base in found}


def test_the_config_routes_each_wire_and_embeddings():
    render = load_render()
    template = (HERE / "config.yaml.in").read_text()
    env = {"GW_MODEL_ID": "qwen-x", "GW_MODEL_URL": "http://127.0.0.1:8765",
           "GW_EMBED_URL": "http://127.0.0.1:8766/v1", "GW_EMBED_MODEL": "all-minilm-l6-v2"}
    config = render.render(template, env)
    chat = ("openai/qwen-x", "http://127.0.0.1:8765/v1")
    assert routes(config) == {"claude-local": chat, "gemini-local": chat, "qwen-x": chat,
                              "all-minilm-l6-v2": ("openai/all-minilm-l6-v2", "http://127.0.0.1:8766/v1")}
    assert "model_info: {mode: embedding}" in config
    for setting in ("use_chat_completions_url_for_anthropic_messages: true", "drop_params: true",
                    "num_retries: 0"):
        assert re.search(rf"^  {setting}$", config, re.M), setting
    # No embedding server: no embedding route.
    config = render.render(template, {**env, "GW_EMBED_URL": ""})
    assert set(routes(config)) == {"claude-local", "gemini-local", "qwen-x"}
    assert "mode: embedding" not in config
