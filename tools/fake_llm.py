"""A fake LLM server on 127.0.0.1 that speaks each provider's wire format.

Tests point profiles at it (through provider_endpoint and a host ACE) and
assert on what the extension really sent: path, headers, JSON body.  Replies
are scripted per request: a text answer in the provider's format, any status,
headers and raw body, or a fault (delay, hang, slow headers, drip, close).

    fake = FakeLLM(); fake.start()
    fake.script(Answer("hello"), Raw(500), Raw(429, headers={"retry-after": "1"}))
    ... call generate() ...
    fake.requests[-1].json["messages"]

Embedding endpoints (OpenAI/Azure ``.../embeddings``, Cohere ``/v2/embed``,
Google ``:embedContent`` and ``:batchEmbedContents``) answer with
deterministic vectors: a hashed bag of the text's words (``embed_text``), so
texts that share words are close.  They are recorded in ``requests`` like any
other request but never take a scripted step: ``embed_script`` scripts them.

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
class Answer:
    """A successful completion in the wire format the request used."""
    text: str
    input_tokens: int | None = 11
    output_tokens: int | None = 7
    delay: float = 0.0


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


@dataclass
class Vectors:
    """An embedding answer in the request's wire format; ``vectors`` None:
    ``embed_text`` of each input text."""
    vectors: list | None = None
    input_tokens: int | None = 5
    delay: float = 0.0


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


def embedding_texts(wire: str, body: dict) -> list[str]:
    """The texts an embedding request asks for, whatever the wire format."""
    try:
        if wire == "openai-embeddings":
            inp = body["input"]
            return [inp] if isinstance(inp, str) else list(inp)
        if wire == "cohere-embed":
            return list(body["texts"])
        if wire == "google-embed":
            return ["".join(p.get("text", "") for p in body["content"]["parts"])]
        if wire == "google-batch-embed":
            return ["".join(p.get("text", "") for p in r["content"]["parts"])
                    for r in body["requests"]]
    except (KeyError, TypeError, AttributeError):
        pass
    return []


EMBEDDING_WIRES = ("openai-embeddings", "cohere-embed", "google-embed", "google-batch-embed")


def render_embedding(wire: str, step: Vectors, body: dict, model: str | None) -> dict:
    texts = embedding_texts(wire, body)
    vectors = step.vectors if step.vectors is not None else [embed_text(t) for t in texts]
    tokens = step.input_tokens
    if wire == "cohere-embed":
        out = {"id": "fake-embed", "embeddings": {"float": vectors}, "texts": texts}
        if tokens is not None:
            out["meta"] = {"billed_units": {"input_tokens": tokens}}
        return out
    if wire == "google-embed":
        return {"embedding": {"values": vectors[0] if vectors else []}}
    if wire == "google-batch-embed":
        return {"embeddings": [{"values": v} for v in vectors]}
    out = {"object": "list", "model": model or "fake-embedding",
           "data": [{"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)]}
    if tokens is not None:
        out["usage"] = {"prompt_tokens": tokens, "total_tokens": tokens}
    return out


def wire_format(path: str) -> str:
    if path.split("?")[0].endswith("/chat/completions"):
        return "openai"
    if path.split("?")[0].endswith("/embeddings"):
        return "openai-embeddings"
    if path.endswith("/v2/embed"):
        return "cohere-embed"
    if path.endswith(":embedContent"):
        return "google-embed"
    if path.endswith(":batchEmbedContents"):
        return "google-batch-embed"
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/v2/chat"):
        return "cohere"
    if ":generateContent" in path:
        return "google"
    return "unknown"


def render(wire: str, ans: Answer, model: str | None) -> dict:
    """The body a real provider would send for ``ans``."""
    i, o = ans.input_tokens, ans.output_tokens
    if wire == "anthropic":
        usage = {"input_tokens": i, "output_tokens": o} if i is not None else None
        body = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": ans.text}], "stop_reason": "end_turn"}
        if usage:
            body["usage"] = usage
        return body
    if wire == "cohere":
        body = {"id": "fake", "finish_reason": "COMPLETE",
                "message": {"role": "assistant", "content": [{"type": "text", "text": ans.text}]}}
        if i is not None:
            body["usage"] = {"billed_units": {"input_tokens": i, "output_tokens": o},
                             "tokens": {"input_tokens": i, "output_tokens": o}}
        return body
    if wire == "google":
        body = {"candidates": [{"content": {"role": "model", "parts": [{"text": ans.text}]},
                                "finishReason": "STOP"}], "modelVersion": model}
        if i is not None:
            body["usageMetadata"] = {"promptTokenCount": i, "candidatesTokenCount": o,
                                     "totalTokenCount": i + o}
        return body
    body = {"id": "chatcmpl-fake", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ans.text},
                         "finish_reason": "stop"}]}
    if i is not None:
        body["usage"] = {"prompt_tokens": i, "completion_tokens": o, "total_tokens": i + o}
    return body


def request_model(wire: str, path: str, body: dict) -> str | None:
    if wire in ("google", "google-embed", "google-batch-embed"):
        return path.split("/models/")[-1].split(":")[0]
    return body.get("model") if isinstance(body, dict) else None


def last_user_text(wire: str, body: dict) -> str:
    """The text of the last user turn, whatever the wire format."""
    try:
        if wire == "google":
            return body["contents"][-1]["parts"][0]["text"]
        msgs = [m for m in body["messages"] if m["role"] == "user"]
        content = msgs[-1]["content"]
        return content if isinstance(content, str) else content[0]["text"]
    except (KeyError, IndexError, TypeError):
        return ""


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
    def start(self, port: int = 0) -> "FakeLLM":
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
        elif isinstance(step, Answer):
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


def keyword_responder(answers: list[dict], fallback: str):
    """Answer with the first entry whose every keyword appears in the last user turn."""
    def respond(wire, body):
        text = last_user_text(wire, body).lower()
        for a in answers:
            if all(k.lower() in text for k in a["keywords"]):
                return Answer(a["answer"])
        return Answer(fallback)
    return respond


def main():
    ap = argparse.ArgumentParser(description="Serve canned LLM answers on 127.0.0.1.")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--answers", required=True, help="JSON file: {fallback, answers: [{keywords, answer}]}")
    ap.add_argument("--port-file", help="write the port number here once listening")
    args = ap.parse_args()
    spec = json.load(open(args.answers))
    fake = FakeLLM(keyword_responder(spec["answers"], spec["fallback"])).start(args.port)
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
