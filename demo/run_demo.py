#!/usr/bin/env python3
"""`make demo`: load sample data and walk through Select AI in psql.

The Makefile has already started a throwaway cluster in DEMO_DIR (socket
DEMO_DIR/sock, port DEMO_PORT, superuser postgres with trust authentication).
This script

  1. picks the model: a real provider when the environment names one
     (DEMO_OPENAI_COMPATIBLE_URL, OPENAI_API_KEY, ANTHROPIC_API_KEY, ...),
     else the LOCAL model: a real small model behind llama.cpp's
     OpenAI-compatible server on 127.0.0.1 (scripts/local-model.sh builds it
     on first use, caches it, and leaves it running so you can go on in psql),
     with the local embedding server beside it for the vector index of step
     30 (scripts/local-embeddings.sh: all-MiniLM-L6-v2, llama.cpp's server
     does not embed); with DEMO_OFFLINE=1, the scripted endpoint
     tools/fake_llm.py serving demo/answers.json instead (instant; pid in
     DEMO_DIR/fake_llm.pid), which embeds too;
  2. creates the database demo and loads demo/sample_schema.sql (schema sh);
  3. as postgres runs demo/admin_setup.sql: the extension, the login role
     demo_user and, when needed, a host ACE;
  4. as demo_user runs demo/walkthrough.sql, echoing every statement; with the
     local model, a step that cannot reach its server has the server checked
     (scripts/local-model.sh diagnose), and when it is gone the demo stops at
     once with the server's log and the cause of its end, exit status 1;
  5. prints how to connect and how to stop (make demo-stop).

    DEMO_DIR=... DEMO_PORT=... python demo/run_demo.py
    DEMO_DIR=... python demo/run_demo.py --stop     # stop the offline model server
    python demo/run_demo.py --mode                  # only print which model would be used

Environment for a real model (the first that is set wins):

    DEMO_OPENAI_COMPATIBLE_URL  an OpenAI-compatible server, e.g. a local Ollama
                                at http://localhost:11434; DEMO_MODEL names the
                                model (default llama3.2), DEMO_API_KEY its key if
                                it needs one
    OLLAMA_HOST                 the same, from Ollama's own variable
    OPENAI_BASE_URL             the same without OPENAI_API_KEY; with it, an
                                OpenAI-compatible gateway that needs the key
    OPENAI_API_KEY              OpenAI (DEMO_MODEL default gpt-4o-mini)
    ANTHROPIC_API_KEY           Anthropic (DEMO_MODEL default claude-haiku-4-5)
    COHERE_API_KEY              Cohere
    GEMINI_API_KEY or GOOGLE_API_KEY   Google Gemini
    DEMO_OFFLINE=1              ignore all of the above and use the scripted endpoint
    DEMO_QUESTION               a question of your own, asked at the end (select_ai: the
                                profile's default action, runsql, unless it starts with
                                chat, narrate, showsql, ...)

Without any of them the demo runs the local model (docs/local-model.md).

Only the standard library is used, so `make demo-stop` can run this with any
Python 3.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo"
DB = "demo"
USER = "demo_user"
PROFILE = "DEMO_PROFILE"

# The offline model server's pid is written twice: DEMO_DIR/fake_llm.pid, and a
# copy beside DEMO_DIR, because `make demo` wipes DEMO_DIR before this script
# runs and must still be able to stop the previous demo's server.
PID_NAME = "fake_llm.pid"


# --- which model ------------------------------------------------------------------

@dataclass
class Mode:
    offline: bool
    banner: str                   # the first line the user sees
    label: str                    # short name for the summary
    attrs: dict = field(default_factory=dict)
    cred_user: str = "OPENAI"
    key: str = "sk-demo-offline-not-a-real-key"
    ace_host: str | None = None   # host ACE needed for a non-provider host
    ace_port: int | None = None
    local: bool = False           # the project's local model server (scripts/local-model.sh)
    # The profile that embeds the vector index of step 30 (None: the step is skipped), and
    # the host and port of its server when that needs a host ACE of its own.
    embed_attrs: dict | None = None
    embed_ace: tuple[str, int] | None = None
    timeout: str = "30s"          # http_timeout and statement_timeout of the walk-through


def env(name: str) -> str | None:
    v = os.environ.get(name, "").strip()
    return v or None


def choose_mode() -> Mode:
    model = env("DEMO_MODEL")
    if env("DEMO_OFFLINE") not in (None, "0", "false", "no"):
        return offline_mode("DEMO_OFFLINE is set")
    url, source = env("DEMO_OPENAI_COMPATIBLE_URL"), "DEMO_OPENAI_COMPATIBLE_URL"
    if not url and env("OLLAMA_HOST"):  # Ollama's own variable, e.g. 127.0.0.1:11434
        url, source = env("OLLAMA_HOST"), "OLLAMA_HOST"
    if not url and env("OPENAI_BASE_URL") and not env("OPENAI_API_KEY"):
        url, source = env("OPENAI_BASE_URL"), "OPENAI_BASE_URL"
    if url:
        if "://" not in url:
            url = "http://" + url
        parts = urlsplit(url)
        model = model or "llama3.2"
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        return Mode(False, f"demo: REAL model: OpenAI-compatible server at {url}, model {model} "
                           f"(from {source} and DEMO_MODEL)",
                    f"OpenAI-compatible server {url}",
                    {"provider_endpoint": url, "model": model, "credential_name": "DEMO_CRED"},
                    cred_user="OPENAI_COMPATIBLE", key=env("DEMO_API_KEY") or "no-key-needed",
                    ace_host=host, ace_port=port)
    real = [("OPENAI_API_KEY", "openai", "OPENAI", "gpt-4o-mini"),
            ("ANTHROPIC_API_KEY", "anthropic", "ANTHROPIC", "claude-haiku-4-5"),
            ("COHERE_API_KEY", "cohere", "COHERE", None),
            ("GEMINI_API_KEY", "google", "GOOGLE", None),
            ("GOOGLE_API_KEY", "google", "GOOGLE", None)]
    for var, provider, user, default_model in real:
        key = env(var)
        if key:
            attrs = {"provider": provider, "credential_name": "DEMO_CRED"}
            base = env("OPENAI_BASE_URL") if provider == "openai" else None
            if base:  # the OpenAI SDK's variable: an OpenAI-compatible gateway with a key
                parts = urlsplit(base if "://" in base else "https://" + base)
                attrs["provider_endpoint"] = base
                return Mode(False, f"demo: REAL model: OpenAI-compatible endpoint {base}, model "
                                   f"{model or default_model} (OPENAI_BASE_URL and OPENAI_API_KEY; "
                                   "the key is never printed)",
                            f"endpoint {base}", {**attrs, "model": model or default_model},
                            cred_user=user, key=key, ace_host=parts.hostname,
                            ace_port=parts.port or (443 if parts.scheme == "https" else 80))
            m = model or default_model
            if m:
                attrs["model"] = m
            shown = f", model {m}" if m else ", the provider's default model"
            return Mode(False, f"demo: REAL model: provider {provider}{shown} "
                               f"(API key from {var}; it is never printed)",
                        f"provider {provider}", attrs, cred_user=user, key=key)
    return local_mode()


LOCAL_MODEL = ROOT / "scripts" / "local-model.sh"
LOCAL_EMBEDDINGS = ROOT / "scripts" / "local-embeddings.sh"


def local_mode() -> Mode:
    """No key and no server named: the project's own local model, offline."""
    return Mode(False, "demo: LOCAL model: a real small model behind llama.cpp's OpenAI-compatible "
                       "server on 127.0.0.1, offline. The first run builds llama.cpp and fetches the "
                       "1.1 GB model (scripts/local-model.sh): about 10 minutes on 2 cores (more on "
                       "a busy machine), then cached. DEMO_OFFLINE=1 uses the instant scripted endpoint instead.",
                "the local model", {"credential_name": "DEMO_CRED", "temperature": 0},
                cred_user="LOCAL_MODEL", key="no-key-needed", local=True, timeout="300s")


def ask(script: pathlib.Path, what: str) -> str:
    return subprocess.run([str(script), what], capture_output=True, text=True,
                          check=True).stdout.strip()


def start_local_model(mode: Mode) -> None:
    """Start (building and caching on first use) the local model server, and the
    local embedding server beside it (installed on first use too; reused when it
    runs already); their progress goes to the terminal."""
    # The embedding server starts meanwhile: its install and torch's start overlap
    # the model server's build and load.
    embedder = subprocess.Popen([str(LOCAL_EMBEDDINGS), "start"], stdin=subprocess.DEVNULL)
    if subprocess.run([str(LOCAL_MODEL), "start"]).returncode != 0:
        embedder.wait()
        fail("the local model server did not start (see above); DEMO_OFFLINE=1 make demo "
             "runs with the scripted endpoint instead")
    # start has had the server answer one chat completion, not only GET /v1/models: a build
    # this CPU cannot run has died there, before the first step of the walk-through.
    url, model = ask(LOCAL_MODEL, "url"), ask(LOCAL_MODEL, "model")
    parts = urlsplit(url)
    mode.attrs.update(provider_endpoint=url, model=model)
    mode.ace_host, mode.ace_port = parts.hostname, parts.port
    mode.label = f"the local model {model} at {url}"
    print(f"demo: the local model {model} answers at {url} (it stays up after the demo; "
          "make demo-stop stops it)", flush=True)
    if embedder.wait() != 0:
        print("demo: WARNING: the local embedding server did not start (see above): step 30 "
              "(a vector index) is skipped", flush=True)
        return
    url, model = ask(LOCAL_EMBEDDINGS, "url"), ask(LOCAL_EMBEDDINGS, "model")
    # An OpenAI-compatible server (no provider) that needs no key: no credential.  Such a
    # profile must name a model; this one never chats, so it names the one the server serves.
    mode.embed_attrs = {"provider_endpoint": url, "model": model, "embedding_model": model}
    mode.embed_ace = (urlsplit(url).hostname, urlsplit(url).port)
    print(f"demo: the local embedding server {model} embeds at {url} (it stays up after the "
          "demo; make demo-stop stops it)", flush=True)


def servers_gone(mode: Mode, line: str) -> str | None:
    """After a step failed with `line`: when a local server is gone, why the demo stops
    (scripts/...sh diagnose shows its log and the cause).  Any error is reason to look: a
    server that dies during a request fails it with a closed connection, the next one with
    "could not connect to provider" (LL000)."""
    if not mode.local or not line.startswith("ERROR:"):
        return None
    servers = [("local model", LOCAL_MODEL)] + ([("local embedding", LOCAL_EMBEDDINGS)] if mode.embed_attrs else [])
    gone = [name for name, script in servers
            if subprocess.run([str(script), "diagnose"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL).returncode != 0]
    if not gone:
        return None
    return (f"the {' and the '.join(gone)} server{'s are' if len(gone) > 1 else ' is'} gone (above): the demo "
            "stops here rather than run its other steps against it. scripts/local-model.sh start "
            "(and scripts/local-embeddings.sh start) start them again; DEMO_OFFLINE=1 make demo runs "
            "with the scripted endpoint")


def offline_mode(why: str) -> Mode:
    return Mode(True, "demo: OFFLINE mode: scripted OpenAI-compatible endpoint tools/fake_llm.py "
                      f"with canned answers from demo/answers.json ({why})",
                "the OFFLINE scripted endpoint tools/fake_llm.py",
                {"provider": "openai", "credential_name": "DEMO_CRED", "model": "gpt-4o-mini"})


# --- the offline model server ---------------------------------------------------------

def pid_files(demo_dir: pathlib.Path) -> list[pathlib.Path]:
    return [demo_dir / PID_NAME, demo_dir.parent / f".{demo_dir.name}.{PID_NAME}"]


def is_our_server(pid: int) -> bool:
    """True when pid is a running tools/fake_llm.py (not a recycled pid)."""
    try:
        cmdline = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return any(arg.endswith(b"fake_llm.py") for arg in cmdline)


def stop_server(demo_dir: pathlib.Path) -> bool:
    """Stop the offline model server recorded in the pid files; True if one was running."""
    stopped = False
    for pid in {read_pid(f) for f in pid_files(demo_dir)} - {None}:
        if not is_our_server(pid):
            continue
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            continue
        for _ in range(50):
            if not is_our_server(pid):
                break
            time.sleep(0.1)
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        stopped = True
    for f in pid_files(demo_dir):
        try:
            f.unlink()
        except FileNotFoundError:
            pass
    return stopped


def read_pid(path: pathlib.Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def start_server(demo_dir: pathlib.Path) -> int:
    """Start tools/fake_llm.py in the background, detached; return its port."""
    log_dir = demo_dir / "log"
    log_dir.mkdir(parents=True, exist_ok=True)
    port_file = demo_dir / "fake_llm.port"
    port_file.unlink(missing_ok=True)
    log = open(log_dir / "fake_llm.log", "ab")
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "tools" / "fake_llm.py"), "--port", "0",
         "--answers", str(DEMO / "answers.json"), "--port-file", str(port_file)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log, cwd=str(ROOT),
        start_new_session=True)  # outlives make, and Ctrl-C in this terminal
    for f in pid_files(demo_dir):
        f.write_text(f"{proc.pid}\n")
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            fail(f"the offline model server exited at start (status {proc.returncode}); "
                 f"see {log_dir / 'fake_llm.log'}")
        try:
            return int(port_file.read_text().strip())
        except (OSError, ValueError):
            time.sleep(0.05)
    fail(f"the offline model server did not start within 15 s; see {log_dir / 'fake_llm.log'}")


# --- psql ------------------------------------------------------------------------

def psql_binary() -> str:
    try:  # the PostgreSQL `make install` installed into, as scripts/pg-cluster.sh finds it
        pg_config = subprocess.run([str(ROOT / "scripts" / "install.sh"), "pg-config"],
                                   capture_output=True, text=True, check=True).stdout.strip()
        bindir = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        bindir = ""
    candidate = pathlib.Path(bindir, "psql")
    if bindir and candidate.is_file():
        return str(candidate)
    found = shutil.which("psql")
    if not found:
        fail("psql not found: run `make deps` first")
    return found


class Psql:
    def __init__(self, binary: str, sock: str, port: str):
        self.binary, self.sock, self.port = binary, sock, port

    def base(self, user: str, db: str) -> list[str]:
        return [self.binary, "-X", "-h", self.sock, "-p", self.port, "-U", user, "-d", db,
                "-v", "ON_ERROR_STOP=1", "-P", "pager=off"]

    def env(self, extra: dict | None = None) -> dict:
        e = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        e.update(PGAPPNAME="dbms_cloud_ai demo", PGCLIENTENCODING="UTF8", **(extra or {}))
        return e

    def quiet(self, user: str, db: str, *args: str, what: str) -> str:
        """Run psql without echo; abort the demo on any error."""
        r = subprocess.run(self.base(user, db) + ["-q", *args], env=self.env(),
                           capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"{what} failed:\n{r.stderr.strip() or r.stdout.strip()}")
        return r.stdout

    def echoed(self, user: str, db: str, script: pathlib.Path, variables: dict,
               extra_env: dict | None = None, stop_on_error: bool = True,
               on_error: Callable[[str], str | None] | None = None) -> list[str]:
        """Run a script printing each statement and its result; return the ERROR lines.
        on_error sees each ERROR line once its DETAIL and HINT are printed: when it returns a
        message, psql is ended and the demo stops with that message."""
        cmd = self.base(user, db) + ["--echo-queries", "-f", str(script)]
        if not stop_on_error:
            cmd[cmd.index("ON_ERROR_STOP=1")] = "ON_ERROR_STOP=0"
        for k, v in variables.items():
            cmd += ["-v", f"{k}={v}"]
        # Line-buffered stdout keeps results and errors (stderr) in order.
        if shutil.which("stdbuf"):
            cmd = ["stdbuf", "-oL", "-eL"] + cmd
        proc = subprocess.Popen(cmd, env=self.env(extra_env), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, bufsize=1)

        def judge(error: str | None):
            stop = on_error(error) if on_error and error else None
            if stop:
                proc.terminate()
                proc.wait()
                fail(stop)

        errors, pending = [], None
        prefix = re.compile(r"^psql:[^:]*:\d+: ")
        for line in proc.stdout:
            line = prefix.sub("", line)        # "psql:/path/file.sql:42: ERROR: ..." -> "ERROR: ..."
            if not line.startswith(("DETAIL:", "HINT:")):
                judge(pending)
                pending = None
            if line.startswith("ERROR:"):
                errors.append(line.strip())
                pending = line
            sys.stdout.write(line)
            sys.stdout.flush()
        judge(pending)
        proc.wait()
        if proc.returncode != 0 and stop_on_error:
            fail(f"{script.name} stopped at an error (see above)")
        return errors


# --- the demo --------------------------------------------------------------------

def fail(msg: str):
    print(f"demo: ERROR: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


def section(title: str):
    print(f"\n======== {title} ========", flush=True)


# The walk-through's deliberate errors: an unknown action, and generated SQL
# that is not a read-only query (the offline model's DELETE).
EXPECTED_ERRORS = ("unknown action", "SQL refused: DELETE statements are not allowed")


def main() -> int:
    demo_dir = pathlib.Path(os.environ.get("DEMO_DIR", "/tmp/dbms_cloud_ai/demo")).resolve()
    if sys.argv[1:] == ["--stop"]:
        if stop_server(demo_dir):
            print("demo: stopped the offline model server")
        return 0
    if sys.argv[1:] == ["--mode"]:  # the Makefile shows this before `make deps install` runs
        print(choose_mode().banner)
        return 0
    if sys.argv[1:]:
        print(__doc__, file=sys.stderr)
        return 2
    port = os.environ.get("DEMO_PORT", "54330")
    sock = str(demo_dir / "sock")

    mode = choose_mode()
    if not os.environ.get("DEMO_BANNER_SHOWN"):  # `make demo` prints it first, before installing
        print(mode.banner, flush=True)

    stop_server(demo_dir)  # a previous demo's server, if any
    psql = Psql(psql_binary(), sock, port)
    if mode.local:
        start_local_model(mode)
    if mode.offline:
        fake_port = start_server(demo_dir)
        mode.attrs["provider_endpoint"] = f"http://127.0.0.1:{fake_port}"
        # the scripted endpoint embeds too (a hashed bag of words)
        mode.embed_attrs = {"provider": "openai", "credential_name": "DEMO_CRED",
                            "provider_endpoint": mode.attrs["provider_endpoint"],
                            "embedding_model": "text-embedding-3-small"}
        mode.ace_host, mode.ace_port = "127.0.0.1", fake_port
        print(f"demo: offline model server listening on http://127.0.0.1:{fake_port} "
              f"(pid {read_pid(pid_files(demo_dir)[0])}, stays up after the demo)", flush=True)

    # The database and the sample schema.
    psql.quiet("postgres", "postgres", "-c", f"CREATE DATABASE {DB}", what="creating database demo")
    psql.quiet("postgres", DB, "-f", str(DEMO / "sample_schema.sql"), what="loading demo/sample_schema.sql")
    counts = psql.quiet("postgres", DB, "-At", "-F", " ", "-c",
                        "select (select count(*) from sh.countries), (select count(*) from sh.customers), "
                        "(select count(*) from sh.products), (select count(*) from sh.sales)",
                        what="counting sample rows").split()
    print(f"demo: database {DB} with sample schema sh: {counts[0]} countries, {counts[1]} customers, "
          f"{counts[2]} products, {counts[3]} sales (demo/sample_schema.sql)", flush=True)

    section("As superuser postgres: install the extension, create demo_user (demo/admin_setup.sql)")
    psql.echoed("postgres", DB, DEMO / "admin_setup.sql", {
        "need_ace": "true" if mode.ace_host else "false",
        "local": "true" if mode.local else "false",
        "ace_host": mode.ace_host or "",
        "ace_port": str(mode.ace_port) if mode.ace_port else "NULL",
        "need_embed_ace": "true" if mode.embed_ace else "false",
        "embed_ace_host": mode.embed_ace[0] if mode.embed_ace else "",
        "embed_ace_port": str(mode.embed_ace[1]) if mode.embed_ace else "NULL",
    })

    section(f"As demo_user: Select AI with {mode.label} (demo/walkthrough.sql)")
    errors = psql.echoed(
        USER, DB, DEMO / "walkthrough.sql",
        {"cred_user": mode.cred_user, "profile_attrs": json.dumps(mode.attrs, indent=2),
         "offline": "true" if mode.offline else "false", "timeout": mode.timeout,
         "has_embeddings": "true" if mode.embed_attrs else "false",
         "embed_attrs": json.dumps(mode.embed_attrs or {}, indent=2),
         "question": env("DEMO_QUESTION") or "",
         "has_question": "true" if env("DEMO_QUESTION") else "false"},
        extra_env={"DEMO_CREDENTIAL_PASSWORD": mode.key}, stop_on_error=False,
        on_error=lambda line: servers_gone(mode, line))
    unexpected = [e for e in errors if not any(x in e for x in EXPECTED_ERRORS)]

    section("Next steps")
    psql_cmd = "psql" if shutil.which("psql") else psql.binary
    if unexpected:
        print(f"demo: WARNING: {len(unexpected)} statement(s) failed besides the expected ones:")
        for e in dict.fromkeys(unexpected):
            print(f"  {e}")
        if not mode.offline:
            print("  Check the network, the API key and the model name; "
                  "DEMO_OFFLINE=1 make demo runs without a real model.")
    if mode.offline:
        print(f"The offline model server keeps running (pid file {pid_files(demo_dir)[0]}); "
              "it answers only the walk-through's prompts.")
    if mode.local:
        print(f"{mode.label[0].upper()}{mode.label[1:]} keeps running: ask it anything, offline. "
              "DEMO_QUESTION='...' make demo asks your question at the end of the walk-through.")
    print(f"The demo database, its profile {PROFILE} and credential DEMO_CRED are yours to explore. Connect with:")
    print(f"  {psql_cmd} -h {sock} -p {port} -U {USER} {DB}")
    print("and try, for example:")
    print(f"  SELECT dbms_cloud_ai.generate('What is 4 + 4 ?', '{PROFILE}', 'chat');")
    print(f"  SELECT dbms_cloud_ai.set_profile('{PROFILE}');")
    print("  SET statement_timeout = '30s';")
    print("  SELECT dbms_cloud_ai.select_ai('How much has each customer in Germany spent?');")
    print("  SELECT dbms_cloud_ai.select_ai('showsql What are our three best-selling products "
          "by revenue?') \\gexec")
    print("Stop the demo cluster" + (" and the model server" if mode.offline else "")
          + (" and the model and embedding servers" if mode.local else "")
          + " with: make demo-stop")
    return 1 if unexpected else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\ndemo: interrupted; `make demo-stop` stops what was started", file=sys.stderr)
        sys.exit(130)
