"""Start means answers (issue 29): scripts/local-model.sh install and start end with one real
completion, and a server that dies is reported with its log and the likely cause; the demo and
the real tier stop at once when a local server they use is gone.

No llama.cpp here: a stand-in venv whose python runs a stdlib `llama_cpp` package from
tmp_path.  Its server answers GET /v1/models, then does what FAKE_SERVER says on the first
completion (answer, die of SIGILL as a build with AVX-512 or AMX does on a CPU without them,
be killed as by the OOM killer, hang); its Llama does what FAKE_LLAMA says.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest
from paths import ROOT

SCRIPT = ROOT / "scripts" / "local-model.sh"
HERE = ROOT / "scripts" / "local-model"
PINS = json.loads((HERE / "models.json").read_text())
PIN = PINS["models"][PINS["default"]]


def load_helper():
    spec = importlib.util.spec_from_file_location("local_model_helper", HERE / "helper.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


helper = load_helper()

# The stand-in server: python -m llama_cpp.server --model M --model_alias A --host H --port P ...
FAKE_SERVER = '''
import faulthandler, http.server, json, os, signal, sys, time

args = sys.argv[1:]
port, alias = int(args[args.index("--port") + 1]), args[args.index("--model_alias") + 1]
mode = os.environ.get("FAKE_SERVER", "ok")
print("fake server: loading", flush=True)
if mode == "segv-at-start":
    os.kill(os.getpid(), signal.SIGSEGV)


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, body):
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.reply({"object": "list", "data": [{"id": alias, "object": "model"}]})

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        if mode == "sigill-silent":  # no faulthandler: only the exit status tells
            faulthandler.disable()
        if mode.startswith("sigill"):
            os.kill(os.getpid(), signal.SIGILL)
        if mode == "sigkill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "hang":
            time.sleep(60)
        self.reply({"choices": [{"index": 0, "message": {"role": "assistant", "content": "OK"}}]})

    def log_message(self, *a):
        pass


http.server.HTTPServer(("127.0.0.1", port), Handler).serve_forever()
'''

# The stand-in llama_cpp.Llama of install's smoke completion.
FAKE_LLAMA = '''
import os, signal, sys


class Llama:
    def __init__(self, model_path, **kw):
        print(f"fake llama: loading {model_path}", file=sys.stderr, flush=True)

    def create_completion(self, prompt, **kw):
        if os.environ.get("FAKE_LLAMA") == "sigill":
            os.kill(os.getpid(), signal.SIGILL)
        return {"choices": [{"text": " 1"}]}
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(env: dict, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def lm(tmp_path):
    """The environment of scripts/local-model.sh on a stand-in cache: the model file (a few
    bytes, stamped as verified) and a venv keyed as the script expects."""
    cache, pkg = tmp_path / "cache", tmp_path / "pkg"
    (pkg / "llama_cpp" / "server").mkdir(parents=True)
    (pkg / "llama_cpp" / "__init__.py").write_text(FAKE_LLAMA)
    (pkg / "llama_cpp" / "server" / "__init__.py").write_text("")
    (pkg / "llama_cpp" / "server" / "__main__.py").write_text(FAKE_SERVER)
    python = cache / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\nPYTHONPATH="{pkg}" exec "{sys.executable}" "$@"\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    model = cache / "models" / PIN["file"]
    model.parent.mkdir()
    model.write_bytes(b"GGUF")
    (cache / "models" / (PIN["file"] + ".verified")).write_text(helper.stamp_of(str(model), PIN["sha256"]))
    env = {**os.environ, "DCA_MODEL_CACHE": str(cache), "LOCAL_MODEL_RUN_DIR": str(tmp_path / "run"),
           "LOCAL_MODEL_PORT": str(free_port()), "LOCAL_MODEL_START_TIMEOUT": "20", "LOCAL_MODEL_THREADS": "1"}
    env.pop("LOCAL_MODEL", None)
    env.pop("LOCAL_MODEL_CMAKE_ARGS", None)
    (cache / "venv" / ".dca-pins").write_text(run(env, "venv-key").stdout)
    env["RUN"] = str(tmp_path / "run")
    yield env
    run(env, "stop")


def no_server_left(env) -> bool:
    run_dir = pathlib.Path(env["RUN"])
    return not (run_dir / "server.pid").exists() and not (run_dir / "server.port").exists() \
        and helper.served(f"http://127.0.0.1:{env['LOCAL_MODEL_PORT']}") is None


def test_start_proves_a_completion_and_diagnose_finds_the_server(lm):
    r = run(lm, "start")
    assert r.returncode == 0, r.stderr
    assert r.stdout == f"local-model: {PIN['served_id']} at http://127.0.0.1:{lm['LOCAL_MODEL_PORT']}\n"
    assert "first completion answered" in r.stderr
    r = run(lm, "diagnose")
    assert r.returncode == 0 and "runs (pid" in r.stderr


@pytest.mark.parametrize("mode", ["sigill", "sigill-silent"])
def test_start_reports_a_server_that_dies_of_sigill_on_its_first_completion(lm, mode):
    r = run({**lm, "FAKE_SERVER": mode}, "start")
    assert r.returncode == 1 and r.stdout == ""
    assert "the local-model server died on its first completion: killed by SIGILL (an illegal instruction)" \
        in r.stderr
    venv = pathlib.Path(lm["DCA_MODEL_CACHE"]) / "venv"
    assert f"hint: the build uses an instruction this CPU lacks; rebuild: rm -rf {venv} && " \
           "scripts/local-model.sh install" in r.stderr
    assert "fake server: loading" in r.stderr  # the log's tail
    assert no_server_left(lm)


def test_start_reports_a_server_that_crashes_before_it_answers(lm):
    r = run({**lm, "FAKE_SERVER": "segv-at-start"}, "start")
    assert r.returncode == 1
    assert "the local-model server died at start: crashed (SIGSEGV)" in r.stderr
    assert "Fatal Python error: Segmentation fault" in r.stderr
    assert no_server_left(lm)


def test_start_reports_a_server_killed_as_by_the_oom_killer(lm):
    r = run({**lm, "FAKE_SERVER": "sigkill"}, "start")
    assert r.returncode == 1
    assert "died on its first completion: killed by SIGKILL: most likely out of memory" in r.stderr
    assert no_server_left(lm)


def test_start_ends_a_server_that_does_not_answer_its_first_completion(lm):
    t0 = time.monotonic()
    r = run({**lm, "FAKE_SERVER": "hang", "LOCAL_MODEL_START_TIMEOUT": "2"}, "start")
    assert r.returncode == 1
    assert "the local-model server did not answer its first completion (above); it was stopped" in r.stderr
    assert "LOCAL_MODEL_START_TIMEOUT" in r.stderr
    assert no_server_left(lm)
    assert time.monotonic() - t0 < 30


def test_diagnose_names_a_server_that_died_after_start(lm):
    assert run(lm, "start").returncode == 0
    pid = int((pathlib.Path(lm["RUN"]) / "server.pid").read_text())
    os.kill(pid, signal.SIGILL)  # as the first real question on a CPU without AVX-512 would
    for _ in range(50):
        if run(lm, "diagnose").returncode:
            break
        time.sleep(0.1)
    r = run(lm, "diagnose")
    assert r.returncode == 1
    assert f"the local-model server (pid {pid}) is gone: killed by SIGILL" in r.stderr
    assert "Fatal Python error: Illegal instruction" in r.stderr  # faulthandler, in the log


def test_diagnose_after_stop_says_stopped(lm):
    assert run(lm, "start").returncode == 0
    assert run(lm, "stop").returncode == 0
    r = run(lm, "diagnose")
    assert r.returncode == 1 and "not running: stopped" in r.stderr


def test_install_ends_with_a_smoke_completion(lm):
    r = run(lm, "install")
    assert r.returncode == 0, r.stderr
    assert "smoke completion: ' 1'" in r.stderr


def test_install_fails_when_the_smoke_completion_dies_of_sigill(lm):
    r = run({**lm, "FAKE_LLAMA": "sigill"}, "install")
    assert r.returncode == 1
    assert "the smoke completion of install failed: killed by SIGILL (an illegal instruction)" in r.stderr
    assert "rebuild: rm -rf" in r.stderr
    assert "fake llama: loading" in r.stderr  # the smoke's log


# --- the diagnosis itself


def test_the_cause_comes_from_the_exit_status():
    assert helper.cause(132, [], "local-model", "REBUILD")[1].endswith("rebuild: REBUILD")
    assert "out of memory" in helper.cause(137, [], "local-model")[0]
    assert helper.cause(139, [], "local-model")[0] == "crashed (SIGSEGV)"
    assert helper.cause(134, [], "local-model")[0].startswith("aborted (SIGABRT")
    assert helper.cause(143, [], "local-model")[0] == "ended by SIGTERM (from outside)"
    assert helper.cause(1, [], "local-model")[0] == "exited with status 1"


def test_without_a_status_the_cause_comes_from_this_runs_log(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("=== dbms_cloud_ai: starting local-model on port 1 at then ===\n"
                   "Fatal Python error: Illegal instruction\n"
                   "=== dbms_cloud_ai: starting local-model on port 1 at now ===\n"
                   "INFO:     Uvicorn running on http://127.0.0.1:1\n")
    lines = helper.log_since_start(str(log))
    assert lines == ["INFO:     Uvicorn running on http://127.0.0.1:1"]  # the earlier run's crash is not this one's
    assert "SIGKILL" in helper.cause(None, lines, "local-model")[0]  # nothing said: killed without a word
    lines += ["Fatal Python error: Segmentation fault", "", "Current thread 0x1 (most recent call first):"]
    assert helper.cause(None, lines, "local-model")[0] == "crashed (SIGSEGV)"
    assert helper.cause(None, ["INFO:     Finished server process [7]"], "local-model")[0].startswith("shut down")


def test_a_cpu_without_the_baseline_is_named(monkeypatch):
    monkeypatch.setattr(helper, "cpu_lacks", lambda: ["avx2", "fma"])
    why, hint = helper.cause(132, [], "local-model", "REBUILD")
    assert why.endswith("this CPU lacks avx2, fma of the build's baseline")
    assert "LOCAL_MODEL_CMAKE_ARGS" in hint and "REBUILD" not in hint


def test_the_venv_key_follows_the_build_flags():
    def key(**env):
        return subprocess.run([str(SCRIPT), "venv-key"], env={**os.environ, **env}, capture_output=True,
                              text=True, check=True).stdout.strip()
    plain = key(LOCAL_MODEL_CMAKE_ARGS="")
    assert len(plain) == 64 and plain != key(LOCAL_MODEL_CMAKE_ARGS="-DGGML_AVX512=ON")


# --- the demo stops at once when its local server is gone


@pytest.fixture
def demo(monkeypatch):
    """demo/run_demo.py as a module (registered: its dataclasses look their module up)."""
    spec = importlib.util.spec_from_file_location("run_demo", ROOT / "demo" / "run_demo.py")
    mod = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "run_demo", mod)
    spec.loader.exec_module(mod)
    return mod


def dead_server(tmp_path) -> dict:
    """The environment of scripts/local-model.sh whose server died of SIGILL after its start:
    a pid file left behind naming no process, and faulthandler's line in its log."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    proc = subprocess.Popen(["true"])
    proc.wait()
    (run_dir / "server.pid").write_text(f"{proc.pid}\n")
    (run_dir / "server.log").write_text("=== dbms_cloud_ai: starting local-model on port 1 at now ===\n"
                                        "INFO:     Uvicorn running\nFatal Python error: Illegal instruction\n")
    return {"LOCAL_MODEL_RUN_DIR": str(run_dir), "DCA_MODEL_CACHE": str(tmp_path / "cache")}


def test_the_demo_stops_when_the_local_model_server_is_gone(demo, tmp_path, monkeypatch):
    """Any error of a step has the servers looked at: a server that dies during a request
    fails it with a closed connection, and the next step with "could not connect"."""
    mode = demo.local_mode()
    down = "ERROR:  could not connect to provider openai at 127.0.0.1\n"
    for k, v in dead_server(tmp_path).items():
        monkeypatch.setenv(k, v)
    assert demo.servers_gone(demo.offline_mode("test"), down) is None  # not the local model
    assert demo.servers_gone(mode, "NOTICE:  nothing\n") is None        # not an error
    for line in (down, "ERROR:  provider openai closed the connection\n"):
        assert demo.servers_gone(mode, line).startswith(
            "the local model server is gone (above): the demo stops")


def test_the_walkthrough_ends_at_the_error_that_stops_the_demo(demo, tmp_path, capsys):
    """psql is ended at once (its further statements never run) and the demo exits 1."""
    psql = tmp_path / "psql"
    psql.write_text("#!/bin/sh\n"
                    "echo 'SELECT generate(...);'\n"
                    "echo 'psql:walkthrough.sql:76: ERROR:  could not connect to provider openai at 127.0.0.1'\n"
                    "echo 'DETAIL:  [Errno 111] Connection refused (after 3 attempt(s) to host 127.0.0.1)'\n"
                    "echo 'SELECT the_next_step();'\n"
                    "exec sleep 30\n"
                    "echo 'never'\n")
    psql.chmod(0o755)
    seen = []
    t0 = time.monotonic()
    with pytest.raises(SystemExit) as stop:
        demo.Psql(str(psql), "sock", "1").echoed(
            "demo_user", "demo", tmp_path / "walkthrough.sql", {}, stop_on_error=False,
            on_error=lambda line: seen.append(line) or "the local model server is gone")
    assert stop.value.code == 1 and time.monotonic() - t0 < 10
    out, err = capsys.readouterr()
    assert "DETAIL:  [Errno 111] Connection refused" in out and "the_next_step" not in out
    assert seen == ["ERROR:  could not connect to provider openai at 127.0.0.1\n"]
    assert "demo: ERROR: the local model server is gone" in err


# --- the real tier fails loudly when a server is gone


def load_real_fixtures():
    from real import real_fixtures
    return real_fixtures


class ProviderUnavailable(Exception):
    sqlstate = "LL000"


def test_the_real_tier_names_a_dead_server_after_a_connection_failure(tmp_path, monkeypatch):
    rf = load_real_fixtures()
    for k, v in dead_server(tmp_path).items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(rf, "_IN_USE", {"local model": (rf.LOCAL_MODEL, "http://127.0.0.1:1")})
    assert rf.gone_servers(AssertionError("a wrong answer")) is None  # not a connection failure
    why = rf.gone_servers(ProviderUnavailable())
    assert why.startswith("the local model server is gone:\n")
    assert "is gone: killed by SIGILL" in why and "rebuild: rm -rf" in why


def test_a_server_the_environment_names_is_checked_by_its_port():
    rf = load_real_fixtures()
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        url = f"http://127.0.0.1:{listening.getsockname()[1]}"
        assert rf.gone(None, url) is None
    assert "takes no connection" in rf.gone(None, url)


def test_each_module_s_instance_of_a_server_fixture_tears_down_and_the_last_checks(
        tmp_path, monkeypatch):
    # Every test module that imports local_model gets its own session-scoped instance:
    # all of them end at the session's end, and only the last may check (and forget) the
    # server.  A dead server fails that last teardown, once.
    rf = load_real_fixtures()
    for k, v in dead_server(tmp_path).items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(rf, "_IN_USE", {})
    monkeypatch.setattr(rf, "_USERS", {})
    monkeypatch.setenv("LOCAL_MODEL_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("LOCAL_MODEL_NAME", "m")
    instances = [rf._watched("local model", rf.LOCAL_MODEL, "LOCAL_MODEL_URL",
                             "LOCAL_MODEL_NAME") for _ in range(3)]
    assert [next(i).url for i in instances] == ["http://127.0.0.1:1"] * 3
    for i in instances[:2]:
        with pytest.raises(StopIteration):
            next(i)
    assert "local model" in rf._IN_USE
    with pytest.raises(pytest.fail.Exception, match="local model server is gone"):
        next(instances[2])
    assert rf._IN_USE == {}
