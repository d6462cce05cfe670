"""HTTP to LLM providers: one total deadline per call, bounded retries.

PostgreSQL cannot interrupt Python: its signal handlers only set flags.  While
a request waits, a watchdog thread (one per backend, asleep when idle) looks at
the flags every POLL_INTERVAL (``interrupts``); on a cancel, a statement
timeout, a terminate or a lost client it shuts the request's socket, and the
backend's thread, woken by the failed read, lets PostgreSQL raise its own error
or end the backend.  The request itself stays on the backend's thread, so a
call pays no thread hand-off.

The HTTP layer still bounds itself.  httpx's timeouts are per socket operation: a server that drips one byte a
second never trips them.  We therefore wrap httpcore's network backend so every
connect, read and write (and the DNS lookup, which has no timeout of its own)
is given at most the time left before one wall-clock deadline, and we cap the
response size, after decompression too (a few kilobytes of gzip can expand to
gigabytes).

Error details quote the start of the provider's reply; any credential sent in
the request headers is masked there, since some servers echo the key back.

One httpx transport (connection pool) lives for the whole backend (keep-alive
across calls).  It never reads proxy settings or .netrc from the server's
environment (trust_env=False), and nothing here follows redirects.
"""

from __future__ import annotations

import email.utils
import functools
import ipaddress
import json
import random
import re
import signal
import socket
import ssl
import threading
import time
import zlib
from dataclasses import dataclass

import certifi  # loaded by httpcore anyway; its bundle is read only for https
import httpcore
import httpx
from httpcore._backends.sync import SyncStream  # httpcore is pinned (requirements.txt)

from .. import jsontext
from ..errors import (
    CallInterrupted,
    ProviderAuthFailed,
    ProviderBadResponse,
    ProviderRateLimited,
    ProviderRejected,
    ProviderTimeout,
    ProviderUnavailable,
    ResultTooLarge,
)
from . import detached, interrupts

MAX_RESPONSE_BYTES = 8 * 1024 * 1024
BACKOFF_BASE = 0.5      # seconds; attempt n waits up to BACKOFF_BASE * 2**(n-1)
BACKOFF_CAP = 8.0

POLL_INTERVAL = 0.1     # seconds between looks at PostgreSQL's interrupt flags while waiting
WATCH_IDLE = 1.0        # the watchdog sleeps after this long without a request in flight


class _Job:
    """The request attempt the backend's thread is making."""

    __slots__ = ("abandoned", "deadline", "sock", "strict")

    def __init__(self, deadline, strict=False):
        self.deadline = deadline
        self.sock = None
        self.abandoned = False
        self.strict = strict     # the watchdog also ends it at its deadline (watched)

    def abandon(self):
        """Shut the attempt's socket: a blocked connect, read or write returns
        at once, and any later operation of this attempt fails."""
        self.abandoned = True
        sock = self.sock
        if sock is not None:
            try:  # socket.socket's own shutdown: SSLSocket's would drop its SSL object
                socket.socket.shutdown(sock, socket.SHUT_RDWR)
            except OSError:
                pass


_job: _Job | None = None   # set around each attempt, by the backend's thread only


def _start_thread(target, name):
    """A daemon thread that never runs PostgreSQL's signal handlers: they are
    written for the backend's own thread (statement_timeout's SIGALRM handler
    edits the timeout list the backend may be using), so every signal is
    blocked in the new thread from its first instruction (it inherits the mask)."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
    try:
        threading.Thread(target=target, name=name, daemon=True).start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class _Watchdog:
    """While the backend's thread waits on the network, look at PostgreSQL's
    interrupt flags every POLL_INTERVAL; on a cancel, statement timeout,
    terminate or lost client, abandon the attempt (shut its socket).  The
    backend's thread, woken by the failed socket operation, then lets
    PostgreSQL act (_exchange).  The watchdog calls no PostgreSQL API, costs
    the request path two attribute writes, and sleeps when no request is made."""

    def __init__(self):
        self.job: _Job | None = None
        self.awake = False
        self._wake = threading.Event()
        _start_thread(self._run, "dbms_cloud_ai-watchdog")

    def watch(self, job):
        self.job = job
        if not self.awake:
            self.awake = True
            self._wake.set()

    def _run(self):
        while True:
            self._wake.wait()
            self._wake.clear()
            while True:
                idle = 0.0
                while idle < WATCH_IDLE:
                    time.sleep(POLL_INTERVAL)
                    job = self.job
                    if job is None:
                        idle += POLL_INTERVAL
                    elif not job.abandoned and ((interrupts.pending() and interrupts.stopping())
                                                or (job.strict and time.monotonic() > job.deadline)):
                        job.abandon()
                self.awake = False
                if self.job is None:   # else a request began as we were leaving: go on
                    break
                self.awake = True


_watchdog: _Watchdog | None = None


def watched(fn, deadline: float, plpy):
    """``fn()`` waiting on a socket of its own (an agent's SMTP exchange), which
    it hands over with watch_socket() before each blocking step: the watchdog
    shuts it on a cancel, a terminate or a lost client, and at ``deadline``
    (whatever per-operation timeouts allowed), as for an HTTP request."""
    with detached.waiting(plpy):
        return _exchange(fn, deadline, plpy, strict=True)


def watch_socket(sock) -> float:
    """Make ``sock`` the one the watchdog shuts; the seconds left before the
    deadline (an error once it has passed or the exchange was abandoned)."""
    job = _job
    if job is not None:
        job.sock = sock
    left = _left(None)
    if sock is not None:
        sock.settimeout(left)
    return left


def _exchange(fn, deadline: float, plpy, strict=False):
    """``fn()`` (one attempt) under ``deadline``, watched for interrupts when
    ``plpy`` is given.  A failure while a cancel, terminate or lost client is
    pending becomes PostgreSQL's own error (or the backend's exit)."""
    global _job, _watchdog
    job = _job = _Job(deadline, strict)
    if plpy is not None:
        if _watchdog is None:
            _watchdog = _Watchdog()
        _watchdog.watch(job)
    try:
        return fn()
    except BaseException:
        if plpy is not None and interrupts.stopping():
            _interrupted(plpy, "waited on the network")
        raise
    finally:
        _job = None
        if _watchdog is not None:
            _watchdog.job = None
        if job.abandoned:  # a shut connection may still sit in the pool
            _transports.clear()


def _interrupted(plpy, what):
    """Let PostgreSQL act on the pending interrupt: its own error (57014), or
    the backend exits.  If the server holds it off, the call ends anyway."""
    interrupts.service(plpy)
    if interrupts.stopping():
        raise CallInterrupted(f"the call was interrupted (cancel, statement_timeout or terminate) "
                              f"while it {what}", hint="Retry the call.")


def _pause(seconds: float, plpy) -> None:
    """Sleep between retries, acting on interrupts every POLL_INTERVAL."""
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        time.sleep(min(left, POLL_INTERVAL))
        if plpy is not None and interrupts.pending():
            if interrupts.stopping():
                _interrupted(plpy, "waited to retry")
            interrupts.service(plpy)   # one the server handles and goes on


def _left(timeout):
    job = _job
    if job is None:
        return float("inf") if timeout is None else timeout
    if job.abandoned:
        raise httpcore.ReadError("the call was abandoned")
    left = job.deadline - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("deadline exceeded")
    return left if timeout is None else min(timeout, left)


def _current(stream):
    job = _job
    if job is not None:
        job.sock = getattr(stream._inner, "_sock", None)


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every operation ends by the call's deadline.

    Writes are held until the next read: httpcore writes a request's head and
    body separately, and with TCP_NODELAY each write is a packet of its own
    that wakes the server; sent together they are one send() and one wake-up
    (the server cannot answer before it has the whole request anyway)."""

    def __init__(self, inner):
        self._inner = inner
        self._pending: list[bytes] = []

    def read(self, max_bytes, timeout=None):
        _current(self)
        if self._pending:
            data = b"".join(self._pending)
            self._pending.clear()
            self._inner.write(data, _left(timeout))
        return self._inner.read(max_bytes, _left(timeout))

    def write(self, buffer, timeout=None):
        _current(self)
        _left(timeout)          # past the deadline, fail now rather than at the read
        if buffer:
            self._pending.append(bytes(buffer))

    def close(self):
        self._pending.clear()
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None):
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, _left(timeout)))

    def get_extra_info(self, info):
        return self._inner.get_extra_info(info)


def _resolve(host: str, port: int, timeout: float) -> list[str]:
    """The addresses of ``host``, looked up within ``timeout`` seconds.

    getaddrinfo takes no timeout: a resolver that does not answer blocks it for
    its own timeout x attempts x servers (10 s and more with glibc's defaults).
    The lookup runs in a daemon thread that is left behind if it overruns; it
    calls no PostgreSQL API."""
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    found: dict = {}
    done = threading.Event()

    def lookup():
        try:
            found["addrs"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as e:
            found["error"] = e
        done.set()
    _start_thread(lookup, "dbms_cloud_ai-resolve")
    end = time.monotonic() + min(timeout, 86400.0)
    while not done.wait(min(POLL_INTERVAL, max(0.0, end - time.monotonic()))):
        if _job is not None and _job.abandoned:
            raise httpcore.ConnectError(f"the call was abandoned while DNS looked up {host}")
        if time.monotonic() >= end:
            raise httpcore.ConnectTimeout(f"no answer from DNS for {host} within the call's deadline")
    if "error" in found:
        raise httpcore.ConnectError(f"DNS lookup of {host} failed: {found['error']}")
    return list(dict.fromkeys(a[4][0] for a in found["addrs"]))


class _DeadlineBackend(httpcore.NetworkBackend):
    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        # Connect to each address in turn, as socket.create_connection would;
        # TLS still verifies the host name (httpcore passes it to start_tls).
        failure = None
        for address in _resolve(host, port, _left(timeout)):
            try:
                return _DeadlineStream(self._connect(address, port, _left(timeout), socket_options))
            except httpcore.ConnectError as e:
                failure = e
        raise failure or httpcore.ConnectError(f"no address for {host}")

    @staticmethod
    def _connect(address, port, timeout, socket_options):
        """httpcore's SyncBackend.connect_tcp, except that the socket is known
        to the attempt before connect() blocks, so the watchdog can shut it."""
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        try:
            sock = socket.socket(family, socket.SOCK_STREAM)
        except OSError as e:
            raise httpcore.ConnectError(str(e)) from None
        try:
            if _job is not None:
                _job.sock = sock
                if _job.abandoned:  # the watchdog may have shut the previous socket just now
                    raise OSError("the call was abandoned")
            sock.settimeout(timeout)
            sock.connect((address, port))
            for option in socket_options or ():
                sock.setsockopt(*option)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except TimeoutError:
            sock.close()
            raise httpcore.ConnectTimeout("connect timed out") from None
        except OSError as e:
            sock.close()
            raise httpcore.ConnectError(str(e) or type(e).__name__) from None
        if _job is not None and _job.abandoned:
            sock.close()
            raise httpcore.ConnectError("the call was abandoned")
        return SyncStream(sock)

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise httpcore.ConnectError("unix sockets are not used")

    def sleep(self, seconds):
        time.sleep(seconds)


class _Transport(httpx.HTTPTransport):
    """httpx's transport over our own connection pool.  Not built by
    HTTPTransport.__init__, which would load a CA bundle for a TLS context we
    replace; ours is built only for https, once per backend: loading certifi's
    bundle takes tens of milliseconds of a session's first call."""

    def __init__(self, tls: bool):
        ssl_context = None
        if tls:
            ssl_context = ssl.create_default_context(cafile=certifi.where())
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context,
            max_connections=20, max_keepalive_connections=10, keepalive_expiry=30.0,
            network_backend=_DeadlineBackend())


_transports: dict[str, _Transport] = {}
_urls: dict[str, httpx.URL] = {}


def transport(scheme: str) -> _Transport:
    """The backend's connection pool for ``scheme``, reused across calls (keep-alive).

    Requests go straight to the transport rather than through httpx.Client:
    a Client keeps a cookie jar, and a jar shared by every role that uses this
    backend (SET ROLE, poolers) would carry one user's provider cookies into
    another's requests.  Skipping the Client's redirect, auth and cookie layers
    also saves about 100 microseconds a call."""
    pool = _transports.get(scheme)
    if pool is None:
        pool = _transports[scheme] = _Transport(tls=scheme != "http")
    return pool


def _url(url: str) -> httpx.URL:
    parsed = _urls.get(url)
    if parsed is None:
        if len(_urls) > 256:
            _urls.clear()
        parsed = _urls[url] = httpx.URL(url)
    return parsed


@dataclass
class Reply:
    status: int
    data: object
    attempts: int
    elapsed_ms: float


def post_json(url: str, headers: dict, body: dict, *, provider: str,
              deadline: float, max_attempts: int, plpy=None) -> Reply:
    """POST ``body``; return the decoded JSON of a 2xx reply or raise a ProviderError.

    ``deadline`` is a time.monotonic() value that nothing here goes past.
    Retried: connection failures, 408, 409, 429 and 5xx, with full-jitter
    exponential backoff, honouring Retry-After when it fits before the deadline.
    With ``plpy``, a cancel or terminate ends the wait (see _exchange), and in
    generate_detached the wait holds no snapshot (detached.waiting).
    """
    with detached.waiting(plpy):
        return _post_json(url, headers, body, provider, deadline, max_attempts, plpy)


def _post_json(url, headers, body, provider, deadline, max_attempts, plpy) -> Reply:
    # Only encodings _decompress can bound (httpx would add br/zstd if installed).
    hdrs = {"content-type": "application/json", "accept": "application/json",
            "accept-encoding": "gzip, deflate", **headers}
    payload = json.dumps(body, ensure_ascii=False).encode()
    secrets = _secrets(headers)
    status, raw, _, attempts, started = _request(
        _ProviderErrors(provider, url, secrets), "POST", url, hdrs, payload, deadline,
        max_attempts, plpy)
    return Reply(status, redacted(raw, _decode(raw, provider, status, attempts, secrets), secrets),
                 attempts, (time.monotonic() - started) * 1000)


REDACTED = "[REDACTED]"


def redacted(raw: bytes, data, secrets):
    """``data`` (a reply's decoded JSON) with every credential in its strings masked: an
    endpoint that echoes the key (a proxy, a hostile server) would otherwise hand it to
    whoever reads the answer: a grantee of a shared profile, the conversation's history, an
    agent's tools.  Every provider reply passes here.  Nothing to do, without walking the
    reply, when its text has no secret and no escape that could spell one."""
    if not secrets or (b"\\" not in raw and not any(s.encode() in raw for s in secrets)):
        return data

    def mask(text: str) -> str:
        for secret in secrets:
            text = text.replace(secret, REDACTED)
        return text
    root = [data]
    stack = [(root, 0)]
    while stack:                  # no recursion: a reply may nest as deep as JSON allows
        holder, key = stack.pop()
        value = holder[key]
        if isinstance(value, str):
            holder[key] = mask(value)
        elif isinstance(value, list):
            stack.extend((value, i) for i in range(len(value)))
        elif isinstance(value, dict):
            for k in list(value):
                masked = mask(k) if isinstance(k, str) else k
                if masked != k:
                    value[masked] = value.pop(k)
                stack.append((value, masked))
    return root[0]


@dataclass
class Document:
    status: int
    content: bytes
    content_type: str | None
    attempts: int


def get(url: str, headers: dict, *, deadline: float, max_attempts: int, plpy=None) -> Document:
    """GET a document (summarize's location_uri) under post_json's rules: one
    deadline, the same retries, at most MAX_RESPONSE_BYTES after decompression,
    no redirects, credentials masked in error details, interrupts acted on, no
    snapshot held in generate_detached."""
    with detached.waiting(plpy):
        hdrs = {"accept": "text/plain, text/markdown, text/*;q=0.9, */*;q=0.1",
                "accept-encoding": "gzip, deflate", **headers}
        status, raw, ctype, attempts, _ = _request(
            _DocumentErrors(_url(url).host, _secrets(headers)), "GET", url, hdrs, None, deadline,
            max_attempts, plpy)
        return Document(status, raw, ctype, attempts)


def send(url: str, headers: dict, payload: bytes, *, content_type: str, deadline: float,
         what: str, plpy=None) -> Document:
    """POST ``payload`` once for an agent's tool (an HTTP tool's endpoint, a Slack
    message): never retried, since a request that reached the server may have
    acted (posted a message); otherwise get's rules: one deadline, at most
    MAX_RESPONSE_BYTES, no redirects, credentials masked in error details,
    interrupts acted on.  ``what`` names the tool in errors."""
    with detached.waiting(plpy):
        hdrs = {"content-type": content_type,
                "accept": "application/json, text/*;q=0.9, */*;q=0.1",
                "accept-encoding": "gzip, deflate", **headers}
        status, raw, ctype, attempts, _ = _request(
            _ToolErrors(what, _url(url).host, _secrets(headers)), "POST", url, hdrs, payload,
            deadline, 1, plpy)
        return Document(status, raw, ctype, attempts)


def _request(errors, method, url, hdrs, payload, deadline, max_attempts, plpy):
    """The one request loop: attempts until a 2xx reply, the deadline, or
    ``max_attempts``.  Retried: connection failures, 408, 429, 5xx (and what
    ``errors.retried`` adds) unless ``errors.invalid`` says the reply blames the
    request, with full-jitter exponential backoff, honouring
    Retry-After when it fits before the deadline.  ``errors`` turns each way of
    failing into the error to raise.  Returns (status, body, content type,
    attempts, start time)."""
    started = time.monotonic()
    attempt = 0
    while True:
        attempt += 1
        status = failure = raw = None
        try:
            status, raw, retry_after, ctype = _exchange(
                lambda: _attempt(method, url, hdrs, payload), deadline, plpy)
        except _TooLarge as e:
            raise errors.too_large(e.status, attempt) from None
        except _BadEncoding as e:
            raise errors.bad_encoding(e, attempt) from None
        except (httpx.TimeoutException, httpcore.TimeoutException):
            raise errors.timeout(started, attempt) from None
        except (httpx.TransportError, httpcore.NetworkError, OSError) as e:
            failure = e
        if status is not None and 200 <= status < 300:
            return status, raw, ctype, attempt, started
        retryable = (status is None or status in (408, 429) or status >= 500
                     or status in errors.retried) and not errors.invalid(status, raw)
        if not retryable or attempt >= max_attempts:
            raise errors.failed(status, raw, failure, attempt)
        if status is not None and retry_after is not None \
                and time.monotonic() + retry_after > deadline:
            raise errors.failed(status, raw, failure, attempt,
                                f"Retry-After {retry_after:g}s is beyond the call's deadline")
        wait = retry_after if status is not None and retry_after is not None \
            else _backoff(attempt)
        if time.monotonic() + wait >= deadline:
            # Report what went wrong, not the deadline we did not wait for.
            raise errors.failed(status, raw, failure, attempt,
                                "no time left before the call's deadline to retry")
        _pause(wait, plpy)


class _ProviderErrors:
    """How a model provider's request fails (post_json)."""

    retried = (409,)

    def __init__(self, provider, url, secrets):
        self.provider, self.url, self.secrets = provider, url, secrets

    @staticmethod
    def invalid(status, raw):
        return _blames_the_request(status, raw)

    def too_large(self, status, attempt):
        return ProviderBadResponse(
            f"provider {self.provider} sent a response larger than {MAX_RESPONSE_BYTES} bytes",
            detail=f"HTTP {status}", hint="Lower max_tokens.", status=status, attempts=attempt)

    def bad_encoding(self, e, attempt):
        return ProviderBadResponse(
            f"provider {self.provider} sent a response that cannot be decoded (HTTP {e.status})",
            detail=f"HTTP {e.status}; {e.why}",
            hint="Check provider_endpoint: it must point at the provider's API.",
            status=e.status, attempts=attempt)

    def timeout(self, started, attempt):
        return _timeout(self.provider, started, attempt)

    def failed(self, status, raw, failure, attempt, note=None):
        if status is None:
            return _unavailable(self.provider, self.url, failure, attempt, note)
        return _http_error(self.provider, status, raw, attempt, self.secrets, note=note,
                           invalid=_blames_the_request(status, raw))


class _DocumentErrors:
    """How fetching a location_uri document fails (get)."""

    retried = ()

    @staticmethod
    def invalid(status, raw):
        return False

    def __init__(self, host, secrets):
        self.host, self.secrets = host, secrets

    def too_large(self, status, attempt):
        return ResultTooLarge(
            f"the document at location_uri (host {self.host}) is larger than "
            f"{MAX_RESPONSE_BYTES // (1024 * 1024)} MB",
            hint="Store the text in a table and pass it as content.")

    def bad_encoding(self, e, attempt):
        return ProviderBadResponse(
            f"the document at location_uri (host {self.host}) cannot be decoded",
            detail=f"HTTP {e.status}; {e.why}", hint="Serve it without that encoding.",
            status=e.status, attempts=attempt)

    def timeout(self, started, attempt):
        return _timed_out(f"host {self.host} did not send the location_uri document within the "
                          "call's deadline", started, attempt)

    def failed(self, status, raw, failure, attempt, note=None):
        lead = f"{note}. " if note else ""
        if status is None:
            why = str(failure).strip()[:160] or type(failure).__name__
            return ProviderUnavailable(
                f"could not fetch location_uri from host {self.host}",
                detail=f"{lead}{why} (after {attempt} attempt(s))",
                hint="Check that the host is reachable from the database server.",
                attempts=attempt)
        detail = (f"{lead}HTTP {status} after {attempt} attempt(s); body starts with "
                  f"{_snippet(raw, self.secrets)}")
        if status in (401, 403):
            cls, hint = ProviderAuthFailed, "Check credential_name and its password."
        elif status >= 500 or status in (408, 429):
            cls, hint = ProviderUnavailable, "Retry later."
        elif 300 <= status < 400:
            cls, hint = ProviderRejected, "Pass the final URL as location_uri (redirects " \
                                          "are not followed)."
        else:
            cls, hint = ProviderRejected, "Check location_uri."
        return cls(f"host {self.host} refused the location_uri document (HTTP {status})",
                   detail=detail, hint=hint, status=status, attempts=attempt)


class _ToolErrors:
    """How a tool's request fails (send): the message names the tool, the host and
    the HTTP status."""

    retried = ()

    @staticmethod
    def invalid(status, raw):
        return False

    def __init__(self, what, host, secrets):
        self.what, self.host, self.secrets = what, host, secrets

    def too_large(self, status, attempt):
        return ResultTooLarge(f"{self.what}: host {self.host} sent a reply larger than "
                              f"{MAX_RESPONSE_BYTES // (1024 * 1024)} MB", detail=f"HTTP {status}")

    def bad_encoding(self, e, attempt):
        return ProviderBadResponse(f"{self.what}: host {self.host} sent a reply that cannot be "
                                   f"decoded (HTTP {e.status})", detail=e.why, status=e.status,
                                   attempts=attempt)

    def timeout(self, started, attempt):
        return _timed_out(f"{self.what}: host {self.host} did not answer within the tool's "
                          "deadline", started, attempt)

    def failed(self, status, raw, failure, attempt, note=None):
        if status is None:
            why = str(failure).strip()[:160] or type(failure).__name__
            return ProviderUnavailable(f"{self.what}: could not reach host {self.host}",
                                       detail=why, attempts=attempt)
        cls = ProviderAuthFailed if status in (401, 403) else \
            ProviderUnavailable if status >= 500 or status in (408, 429) else ProviderRejected
        return cls(f"{self.what}: host {self.host} answered HTTP {status}",
                   detail=f"body starts with {_snippet(raw, self.secrets)}", status=status,
                   attempts=attempt)


# llama-cpp-python's server reports a request it cannot validate as HTTP 500
# (type internal_server_error, pydantic's message: "1 validation error:\n  {'type':
# 'int_parsing', 'loc': ('body', 'max_tokens'), ...}"): sending it again fails again.
_VALIDATION_MESSAGE = re.compile(r"\bvalidation errors?(?: for |:)|'loc': \('body'|\"loc\": ?\[\"body\"")


@functools.lru_cache(maxsize=1)   # asked by the retry decision, then by the error it makes
def _blames_the_request(status, raw) -> bool:
    """An HTTP 500 whose OpenAI-style error says the request itself is invalid."""
    if status != 500 or not raw:
        return False
    try:
        err = jsontext.loads(raw[:65536].decode("utf-8")).get("error")
    except (UnicodeDecodeError, ValueError, AttributeError):
        return False
    if isinstance(err, dict):
        if err.get("type") == "invalid_request_error":
            return True
        err = err.get("message")
    return isinstance(err, str) and _VALIDATION_MESSAGE.search(err[:4096]) is not None


def _backoff(attempt: int) -> float:
    """Full jitter: spreads retries of many sessions hitting the same outage."""
    return random.uniform(0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** (attempt - 1)))


def _read(resp) -> bytes:
    """The whole body, refused past MAX_RESPONSE_BYTES; the response is closed."""
    try:
        chunks, size = [], 0
        for chunk in resp.stream:
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise _TooLarge(resp.status_code)
            chunks.append(chunk)
    finally:
        resp.close()
    return b"".join(chunks)


def _attempt(method, url, headers, payload):
    """One attempt: (status, body bytes, Retry-After seconds or None, content type).
    An error reply whose encoding cannot be undone stays an error reply (its raw
    bytes are quoted); a 2xx one is refused."""
    u = _url(url)
    resp = transport(u.scheme).handle_request(
        httpx.Request(method, u, headers=headers, content=payload))
    raw = _read(resp)
    encoding = resp.headers.get("content-encoding")
    if encoding:
        try:
            raw = _decompress(raw, encoding, resp.status_code)
        except _BadEncoding:
            if 200 <= resp.status_code < 300:
                raise
    return (resp.status_code, raw, _retry_after(resp.headers.get("retry-after")),
            resp.headers.get("content-type"))


class _TooLarge(httpx.TransportError):
    def __init__(self, status):
        super().__init__("response too large")
        self.status = status


class _BadEncoding(Exception):
    def __init__(self, status, why):
        super().__init__(why)
        self.status = status
        self.why = why


def _decompress(raw: bytes, encoding: str, status: int) -> bytes:
    """Undo Content-Encoding, never producing more than MAX_RESPONSE_BYTES."""
    codings = [c.strip() for c in encoding.lower().split(",")]
    for coding in reversed([c for c in codings if c and c != "identity"]):
        if coding in ("gzip", "x-gzip"):
            raw = _inflate(raw, (zlib.MAX_WBITS | 16,), coding, status)
        elif coding == "deflate":  # zlib-wrapped as the RFC says, or raw as some servers send
            raw = _inflate(raw, (zlib.MAX_WBITS, -zlib.MAX_WBITS), coding, status)
        else:
            raise _BadEncoding(status, f"unsupported Content-Encoding {coding[:40]!r}")
    return raw


def _inflate(raw, wbits_options, coding, status):
    for wbits in wbits_options:
        try:
            out = zlib.decompressobj(wbits).decompress(raw, MAX_RESPONSE_BYTES + 1)
        except zlib.error:
            continue
        if len(out) > MAX_RESPONSE_BYTES:
            raise _TooLarge(status)
        return out
    raise _BadEncoding(status, f"body is not valid {coding} data")


def _retry_after(value):
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def _decode(raw: bytes, provider: str, status: int, attempts: int, secrets=()):
    try:
        return jsontext.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ProviderBadResponse(
            f"provider {provider} returned a response that is not JSON (HTTP {status})",
            detail=f"HTTP {status}; body starts with {_snippet(raw, secrets)}",
            hint="Check provider_endpoint: it must point at the provider's API.",
            status=status, attempts=attempts) from None


def _unavailable(provider, url, failure, attempts, note=None):
    host = httpx.URL(url).host
    why = str(failure).strip()[:160] or type(failure).__name__
    detail = f"{why} (after {attempts} attempt(s) to host {host})"
    if note:
        detail = f"{note}. {detail}"
    return ProviderUnavailable(
        f"could not connect to provider {provider} at {host}", detail=detail,
        hint="Check that the host is reachable from the database server (provider_endpoint, "
             "DNS, firewall) and retry.", attempts=attempts)


def _timeout(provider, started, attempts):
    return _timed_out(f"provider {provider} did not answer within the call's deadline",
                      started, attempts)


def _timed_out(message, started, attempts):
    return ProviderTimeout(
        message, detail=f"gave up after {time.monotonic() - started:.1f}s and {attempts} attempt(s)",
        hint="Raise dbms_cloud_ai.http_timeout or statement_timeout (both within the "
             "administrator's max_wait), or retry later.",
        attempts=attempts)


def _http_error(provider, status, raw, attempts, secrets=(), note=None, invalid=False):
    detail = f"HTTP {status} after {attempts} attempt(s); body starts with {_snippet(raw, secrets)}"
    if note:
        detail = f"{note}. {detail}"
    if invalid:
        return ProviderRejected(
            f"provider {provider} rejected the request as invalid (HTTP {status})", detail=detail,
            hint="Check the profile's model and other attributes; an OpenAI-compatible server "
                 "may not accept every field OpenAI does.", status=status, attempts=attempts)
    if status in (401, 403):
        return ProviderAuthFailed(
            f"provider {provider} rejected the credentials (HTTP {status})", detail=detail,
            hint="Store a valid API key with dbms_cloud.update_credential(credential_name, "
                 "'password', '<key>').", status=status, attempts=attempts)
    if status == 429:
        return ProviderRateLimited(
            f"provider {provider} is rate limiting requests (HTTP 429)", detail=detail,
            hint="Retry later or lower the request rate.", status=status, attempts=attempts)
    if status >= 500 or status == 408:
        return ProviderUnavailable(
            f"provider {provider} failed (HTTP {status})", detail=detail,
            hint="The provider had a server error; retry later.", status=status, attempts=attempts)
    if 300 <= status < 400:
        return ProviderRejected(
            f"provider {provider} answered with a redirect (HTTP {status}), which is not followed",
            detail=detail, hint="Set provider_endpoint to the final URL.",
            status=status, attempts=attempts)
    return ProviderRejected(
        f"provider {provider} rejected the request (HTTP {status})", detail=detail,
        hint="Check the profile's model and other attributes.", status=status, attempts=attempts)


_SECRET_HEADER_WORDS = ("auth", "key", "token", "secret")
_AUTH_SCHEMES = ("bearer ", "basic ", "token ")


def _secrets(headers: dict) -> list[str]:
    """The credential values among the request headers (a key, a bearer token)."""
    found = []
    for name, value in headers.items():
        if not isinstance(value, str) or not any(w in name.lower() for w in _SECRET_HEADER_WORDS):
            continue
        found.append(value)
        if value.lower().startswith(_AUTH_SCHEMES):
            found.append(value.split(" ", 1)[1].strip())
    return sorted({s for s in found if len(s) >= 4}, key=len, reverse=True)


def _snippet(raw: bytes, secrets=(), limit: int = 200) -> str:
    """The start of a reply for an error detail, with credentials masked.

    Masking happens before truncation (decoding enough bytes for ``limit``
    characters plus a whole secret), so a key cut at the limit cannot leak
    partially either."""
    room = max((len(s.encode()) for s in secrets), default=0)
    text = raw[:4 * limit + room].decode("utf-8", errors="replace")
    for s in secrets:
        text = text.replace(s, "[REDACTED]")
    text = text[:limit].replace("\n", " ")
    return repr(text) if text else "(empty)"
