"""A fake LLM server on 127.0.0.1 that speaks each provider's wire format.

Tests point profiles at it (through provider_endpoint and a host ACE) and
assert on what the extension really sent: path, headers, JSON body.  Replies
are scripted per request: a text answer in the provider's format, any status,
headers and raw body, or a fault (delay, hang, slow headers, drip, close).

    fake = FakeLLM(); fake.start()
    fake.script(Answer("hello"), Raw(500), Raw(429, headers={"retry-after": "1"}))
    ... call generate() ...
    fake.requests[-1].json["messages"]

Tool calling: ``ToolCalls(calls, text="")`` answers with tool calls, each
``{"name", "arguments": {...}, "id": optional}``, as the provider would
(OpenAI finish_reason "tool_calls", Anthropic tool_use blocks, Gemini
functionCall parts without ids, Cohere v2 TOOL_CALL with a tool_plan).  On a
recorded request body, ``offered_tools`` names the tools offered,
``tool_call_requests`` lists the earlier tool calls it replays and
``tool_results`` the tool results it carries, whatever the wire format:

    fake.script(ToolCalls([{"name": "search_memories", "arguments": {"query": "x"}}]),
                Answer("done"))
    ... call generate() ...
    tool_results(fake.requests[1].wire, fake.requests[1].json)

Embedding endpoints (OpenAI/Azure ``.../embeddings``, Cohere ``/v2/embed``,
Google ``:embedContent`` and ``:batchEmbedContents``) answer with
deterministic vectors: a hashed bag of the text's words (``embed_text``), so
texts that share words are close.  They are recorded in ``requests`` like any
other request but never take a scripted step: ``embed_script`` scripts them.

Wire formats live in tools/fake_wires/, one module per provider as in
python/src/dbms_cloud_ai/providers/: each wire object (``WIRES``, by the name
``Recorded.wire`` gives) knows the paths it serves, renders Answer, ToolCalls
(a ChatWire) or Vectors (an EmbeddingWire; these three replies are defined in
fake_wires/base.py and imported from here), and reads the model, the tools, the
tool calls and results, the last user text or the texts to embed out of a
request.  The functions here (``render``, ``offered_tools``, ``tool_results``,
``last_user_text``, ...) take a wire name and hand over to its object; a name
no wire has (``"unknown"``: a path none serves) is read and answered the
OpenAI way.

Adding a provider: one Wire subclass, its registry line.  A ChatWire (and an
EmbeddingWire if the provider embeds) in tools/fake_wires/<provider>.py, next
to the adapter in providers/<provider>.py: ``serves(path)`` for the adapter's
URL, the ``render_*`` methods, the readers; then its line in ``WIRES``
(tools/fake_wires/__init__.py).  tests/unit/test_fake_wires.py checks that
every adapter's URL reaches its wire, and tests/unit/test_tool_calling_wire.py
(its CASES and WIRES) that the adapter parses what the wire renders.

Run as a program it serves canned answers for the demo:

    python tools/fake_llm.py --port 8099 --answers demo/answers.json
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import re
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from fake_wires import (
    EMBEDDING_WIRES,
    Answer,
    ToolCalls,
    Vectors,
    chat_wire,
    embedding_wire,
    wire_format,
    wire_named,
)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict
    body: bytes
    at: float

    @property
    def json(self):
        return json.loads(self.body)

    @property
    def wire(self) -> str:
        return wire_format(self.path)


@dataclass
class Raw:
    """Any status, headers and body (bytes, str, or an object sent as JSON)."""
    status: int = 200
    body: object = b""
    headers: dict = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class Hang:
    """Accept the request and say nothing for ``seconds``."""
    seconds: float = 60.0


@dataclass
class Drip:
    """Send a valid answer one byte every ``interval`` seconds.

    With ``headers=True`` the status line and headers drip too."""
    text: str = "slow answer"
    interval: float = 0.5
    headers: bool = False


@dataclass
class Close:
    """Close the connection without answering."""


EMBED_DIM = 256
# Words that say nothing about what a question asks for: left out of the bag,
# so "how many customers" and "how many products" are not close.
_STOP = set("""a an the of in on at to for from by with and or not no is are was were be been
do does did have has had i we you they he she it this that these those there here what which
who whom whose how many much me my our your their its show list give tell find all any each
per please can could would should will""".split())


def embed_text(text: str, dim: int = EMBED_DIM) -> list[float]:
    """A unit vector: each word (lower-case, a plural s dropped, stop words left
    out) adds 1 to the coordinate its MD5 picks."""
    v = [0.0] * dim
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w in _STOP:
            continue
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        v[int(hashlib.md5(w.encode()).hexdigest()[:8], 16) % dim] += 1.0
    if not any(v):
        v[-1] = 1.0
    n = math.sqrt(sum(x * x for x in v))
    return [round(x / n, 6) for x in v]


# -- the wire formats (tools/fake_wires/): one-line dispatchers by wire name ------

def embedding_texts(wire: str, body: dict) -> list[str]:
    """The texts an embedding request asks for, whatever the wire format."""
    return embedding_wire(wire).texts(body) if wire in EMBEDDING_WIRES else []


def render_embedding(wire: str, step: Vectors, body: dict, model: str | None) -> dict:
    texts = embedding_texts(wire, body)
    vectors = step.vectors if step.vectors is not None else [embed_text(t) for t in texts]
    return embedding_wire(wire).render_vectors(vectors, texts, step.input_tokens, model)


def render(wire: str, ans: Answer | ToolCalls, model: str | None) -> dict:
    """The body a real provider would send for ``ans``."""
    if isinstance(ans, ToolCalls):
        return render_tool_calls(wire, ans, model)
    return chat_wire(wire).render_answer(ans, model)


def render_tool_calls(wire: str, step: ToolCalls, model: str | None) -> dict:
    """The body a real provider sends when its model asks for tool calls."""
    return chat_wire(wire).render_tool_calls(step, model)


def offered_tools(wire: str, body: dict) -> list[str]:
    """The names of the tools a chat request offers, whatever the wire format."""
    return chat_wire(wire).offered_tools(body)


def tool_call_requests(wire: str, body: dict) -> list[dict]:
    """The model's earlier tool calls a chat request replays, in order:
    ``{"id", "name", "arguments"}`` (arguments parsed when sent as JSON text;
    Gemini ids are ``call_<n>``, n counting the calls of their turn)."""
    return chat_wire(wire).tool_call_requests(body)


def tool_results(wire: str, body: dict) -> list[dict]:
    """Every tool result a chat request carries, in order: ``{"id", "name",
    "content"}`` with content as text (for Gemini, the JSON of
    functionResponse.response.result; its id ``call_<n>`` counts the results of
    their turn, matching the calls)."""
    return chat_wire(wire).tool_results(body)


def request_model(wire: str, path: str, body: dict) -> str | None:
    return wire_named(wire).model(path, body)


def last_user_text(wire: str, body: dict) -> str:
    """The text of the last user turn that has text, whatever the wire format
    (tool results, which some formats send as user turns, are passed over)."""
    return chat_wire(wire).last_user_text(body)


class FakeLLM:
    def __init__(self, responder=None):
        self.requests: list[Recorded] = []
        self._script: collections.deque = collections.deque()
        self._embed_script: collections.deque = collections.deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._default_responder = responder or (lambda wire, body: Answer("fake answer"))
        self.responder = self._default_responder
        self._server = None

    # -- control ---------------------------------------------------------------
    def start(self, port: int = 0) -> FakeLLM:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # no 40 ms delayed-ACK stall between header and body writes

            def log_message(self, *args):
                pass

            def do_POST(self):
                fake._handle(self)

            do_GET = do_POST

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                # A client that hangs up (a deadline that fired, a backend that
                # ended) is routine here, not a server error worth a traceback.
                if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
                    super().handle_error(request, client_address)

        self._server = Server(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self._stop.set()
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def script(self, *steps):
        with self._lock:
            self._script.extend(steps)

    def embed_script(self, *steps):
        """Steps for embedding requests only (Raw, Hang, Close, Vectors)."""
        with self._lock:
            self._embed_script.extend(steps)

    @property
    def embedding_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.wire in EMBEDDING_WIRES]

    @property
    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.wire not in EMBEDDING_WIRES]

    def reset(self):
        """Forget scripted steps and recorded requests; answer as when started."""
        with self._lock:
            self._script.clear()
            self._embed_script.clear()
            self.requests.clear()
            self.responder = self._default_responder
        self._stop.clear()

    # -- serving ---------------------------------------------------------------
    def _handle(self, h: BaseHTTPRequestHandler):
        length = int(h.headers.get("content-length") or 0)
        body = h.rfile.read(length) if length else b""
        rec = Recorded(h.command, h.path, {k.lower(): v for k, v in h.headers.items()}, body,
                       time.monotonic())
        wire = wire_format(h.path)
        queue = self._embed_script if wire in EMBEDDING_WIRES else self._script
        with self._lock:
            self.requests.append(rec)
            step = queue.popleft() if queue else None
        try:
            parsed = json.loads(body) if body else {}
        except ValueError:
            parsed = {}
        if step is None:
            step = Vectors() if wire in EMBEDDING_WIRES else self.responder(wire, parsed)
        try:
            self._reply(h, step, wire, parsed)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _reply(self, h, step, wire, parsed):
        if isinstance(step, Close):
            h.close_connection = True
            h.connection.shutdown(socket.SHUT_RDWR)
            return
        if isinstance(step, Hang):
            self._stop.wait(step.seconds)
            h.close_connection = True
            return
        if isinstance(step, Drip):
            payload = json.dumps(render(wire, Answer(step.text), request_model(wire, h.path, parsed))).encode()
            head = (f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                    f"content-length: {len(payload)}\r\n\r\n").encode()
            data = head + payload if step.headers else payload
            if not step.headers:
                h.wfile.write(head)
                h.wfile.flush()
            for b in data:
                if self._stop.wait(step.interval):
                    return
                h.wfile.write(bytes([b]))
                h.wfile.flush()
            return
        if step.delay and self._stop.wait(step.delay):
            return
        if isinstance(step, Vectors):
            status, headers = 200, {}
            payload = json.dumps(render_embedding(wire, step, parsed,
                                                  request_model(wire, h.path, parsed))).encode()
        elif isinstance(step, (Answer, ToolCalls)):
            status, headers = 200, {}
            payload = json.dumps(render(wire, step, request_model(wire, h.path, parsed))).encode()
        else:
            status, headers = step.status, step.headers
            b = step.body
            payload = b if isinstance(b, bytes) else b.encode() if isinstance(b, str) else json.dumps(b).encode()
        h.send_response(status)
        if not any(k.lower() == "content-type" for k in headers):
            h.send_header("content-type", "application/json")
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("content-length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload)


def closed_port() -> int:
    """A local port with nothing listening (connection refused)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class SilentPort:
    """A local port whose kernel completes TCP connections that nobody ever
    accepts: the request is sent, never read, never answered.

        with SilentPort() as port: ... provider_endpoint http://127.0.0.1:<port> ...
    """

    def __enter__(self) -> int:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        return self._sock.getsockname()[1]

    def __exit__(self, *exc):
        self._sock.close()


MEMORY_EXTRACTION = "You maintain long-term memory"   # memory/jobs.py's extraction prompt


def extract_memories(body: dict, cues: list[str]) -> Answer | None:
    """A long-term memory extraction request (OpenAI wire format) answered the
    way the extension expects: every user message containing one of ``cues``
    becomes a fact quoting that sentence.  None when the request is another."""
    msgs = body.get("messages") or []
    if not msgs or not str(msgs[0].get("content", "")).startswith(MEMORY_EXTRACTION):
        return None
    facts = []
    for m in json.loads(msgs[1]["content"]):
        text = m.get("text", "")
        for cue in cues:
            at = text.lower().find(cue.lower()) if m.get("id") else -1
            if at >= 0:
                sentence = re.split(r"(?<=[.!?])\s", text[at:], maxsplit=1)[0]
                facts.append({"fact": "The user said: " + sentence, "message_id": m["id"],
                              "quote": sentence})
                break
    return Answer(json.dumps({"facts": facts}))


def keyword_responder(answers: list[dict], fallback: str, memory_cues: list[str] = ()):
    """Answer with the first entry whose every keyword appears in the last user turn;
    memory extraction requests with ``extract_memories``.  An entry with ``call_tool`` (a
    regular expression) asks instead for a call of the offered tool whose name it matches,
    with its ``arguments``, unless the request carries a result of that tool already (then
    the next entries answer)."""
    def respond(wire, body):
        extracted = extract_memories(body, memory_cues) if memory_cues else None
        if extracted is not None:
            return extracted
        text = last_user_text(wire, body).lower()
        for a in answers:
            if not all(k.lower() in text for k in a["keywords"]):
                continue
            if "call_tool" not in a:
                return Answer(a["answer"])
            called = {r["name"] for r in tool_results(wire, body)}
            tool = next((t for t in offered_tools(wire, body)
                         if re.search(a["call_tool"], t, re.I) and t not in called), None)
            if tool is not None:
                return ToolCalls([{"name": tool, "arguments": a.get("arguments", {})}])
        return Answer(fallback)
    return respond


class Obedient:
    """A model that does whatever the injected instructions it reads ask
    (security.md 8.C7): the extension's defences, not the model, must contain it.

    ``demands`` maps a marker (a word each injected payload carries) to what
    that payload asks for: ``sql`` (a statement), ``tool`` (search_memories
    arguments) and ``say`` (text for the answer, e.g. an exfiltration link).
    When a request contains a marker (or always, with ``remembered``: the model
    read it in an earlier turn), the model obeys it:

    * an NL2SQL request or repair round gets the demanded SQL; an injection
      that demands no SQL gets a query returning the demanded text and the
      echo below as a string constant; no injection: ``default_sql``;
    * a request offering tools gets search_memories calls with the demanded
      arguments, plus a search for the marker itself;
    * any other request gets the demanded text followed by an echo of the
      whole request ("here is my system prompt"), so whatever the extension put
      in a prompt ends up in the answer.

    ``obeyed`` lists (markers, what was done) in request order."""

    NL2SQL_CUES = ("Write one PostgreSQL query", "PostgreSQL could not use that query")

    def __init__(self, demands: dict, default_sql: str = "SELECT 1", remembered: bool = False):
        self.demands = demands
        self.default_sql = default_sql
        self.remembered = remembered
        self.obeyed: list[tuple[str, str]] = []

    def __call__(self, wire, body):
        text = json.dumps(body, ensure_ascii=False)
        seen = [m for m in self.demands if self.remembered or m in text]
        last = last_user_text(wire, body)
        if any(cue in last for cue in self.NL2SQL_CUES):
            for m in seen:
                if self.demands[m].get("sql"):
                    self.obeyed.append((m, "sql"))
                    return Answer(self.demands[m]["sql"])
            if seen:
                self.obeyed.append((",".join(seen), "sql-echo"))
                said = self._said(seen, text)
                return Answer("SELECT '" + said.replace("'", "''") + "' AS answer")
            return Answer(self.default_sql)
        if seen and offered_tools(wire, body) and not tool_results(wire, body):
            calls = []
            for m in seen:
                if self.demands[m].get("tool"):
                    calls.append({"name": "search_memories", "arguments": self.demands[m]["tool"]})
                calls.append({"name": "search_memories", "arguments": {"query": m}})
            self.obeyed.append((",".join(seen), "tool"))
            return ToolCalls(calls)
        if seen:
            self.obeyed.append((",".join(seen), "say"))
        return Answer(self._said(seen, text))

    def _said(self, seen, text):
        says = [self.demands[m]["say"] for m in seen if self.demands[m].get("say")]
        return "As instructed: " + " ".join(says) + "\nEverything I was given:\n" + text


def main():
    ap = argparse.ArgumentParser(description="Serve canned LLM answers on 127.0.0.1.")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--answers", required=True, help="JSON file: {fallback, answers: [{keywords, answer}]}")
    ap.add_argument("--port-file", help="write the port number here once listening")
    args = ap.parse_args()
    spec = json.load(open(args.answers))
    fake = FakeLLM(keyword_responder(spec["answers"], spec["fallback"],
                                    spec.get("memory_cues", ()))).start(args.port)
    if args.port_file:
        with open(args.port_file, "w") as f:
            f.write(str(fake.port))
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()


if __name__ == "__main__":
    main()
