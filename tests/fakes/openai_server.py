"""A local OpenAI-compatible ``/v1/chat/completions`` server with fault injection.

Used by the gateway fault test and the concurrency benchmark: it speaks enough
of the OpenAI protocol for LiteLLM (``openai/<any>`` or ``hosted_vllm/<any>``
with ``api_base=server.api_base``), answers after a fixed delay, and injects
faults deterministically: the fate of a request depends only on
``(seed, prompt key, how many times this prompt was asked before)``, so a
rerun of a test sees the same faults in the same places.

``meet_models=N`` holds every request until requests for N distinct model
names have arrived (``met`` is then set): a test of "these ran at the same
time" that no machine load can fake.

Faults: ``rate_limit_fraction`` → 429 with ``Retry-After``;
``server_error_fraction`` → 500; ``hang_fraction`` → no answer at all (the
connection is held until :meth:`FakeOpenAIServer.stop`), which exercises
client timeouts.  Every request is logged as a :class:`LogEntry` (prompt key,
monotonic arrival time, status; ``None`` for a hang) for assertions.

Usage::

    with FakeOpenAIServer(delay_s=0.2, rate_limit_fraction=0.2, retry_after_s=1) as server:
        litellm.completion(model="openai/fake", api_base=server.api_base, api_key="x", messages=[...])
        server.log  # [LogEntry(key=..., t=..., status=200, attempt=1)]
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def prompt_key(messages: list[dict[str, Any]]) -> str:
    """A short stable key for a message list (what the log and fault decisions use)."""
    text = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class LogEntry:
    """One request as the server saw it; ``status`` None means it was never answered."""

    key: str
    t: float
    status: int | None
    attempt: int


def default_answer(messages: list[dict[str, Any]]) -> str:
    return f"answer to {prompt_key(messages)}"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024  # many clients connect at once; the default backlog of 5 drops SYNs
    owner: FakeOpenAIServer


class _Handler(BaseHTTPRequestHandler):
    # Headers and body go out in separate writes; without TCP_NODELAY each response waits ~40 ms.
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"  # keep-alive, as real providers do
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silence the per-request stderr line."""

    def _send_json(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "fake", "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(
                404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}}
            )
            return
        try:
            body = json.loads(raw or b"{}")
            messages = body["messages"]
        except (ValueError, KeyError, TypeError):
            self._send_json(400, {"error": {"message": "bad request body", "type": "invalid_request_error"}})
            return
        owner = self.server.owner
        key = prompt_key(messages)
        owner._meet(str(body.get("model", "")))
        status, attempt = owner._decide(key)
        if status is None:
            # Never answer: hold the connection until the server stops.
            owner._stopping.wait()
            self.close_connection = True
            return
        if owner.delay_s > 0:
            time.sleep(owner.delay_s)
        if status == 429:
            self._send_json(
                429,
                {
                    "error": {
                        "message": "rate limited (fake)",
                        "type": "rate_limit_error",
                        "code": "rate_limit",
                    }
                },
                {"Retry-After": owner.retry_after_header},
            )
        elif status == 500:
            self._send_json(500, {"error": {"message": "internal error (fake)", "type": "server_error"}})
        else:
            content = owner.responder(messages)
            usage = {
                "prompt_tokens": sum(len(str(m.get("content", "")).split()) for m in messages),
                "completion_tokens": len(content.split()),
            }
            usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
            self._send_json(
                200,
                {
                    "id": f"chatcmpl-{key}-{attempt}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "fake"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": usage,
                },
            )


class FakeOpenAIServer:
    """The server, on 127.0.0.1 and a free port (or ``port``), serving from a background thread.

    Each connection gets its own thread, so any number of concurrent requests
    are served (and delayed) in parallel.
    """

    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        rate_limit_fraction: float = 0.0,
        server_error_fraction: float = 0.0,
        hang_fraction: float = 0.0,
        retry_after_s: float = 1,
        seed: int = 0,
        responder: Callable[[list[dict[str, Any]]], str] | None = None,
        port: int = 0,
        meet_models: int = 0,
        meet_timeout_s: float = 120.0,
    ) -> None:
        if rate_limit_fraction + server_error_fraction + hang_fraction > 1:
            raise ValueError("fault fractions add up to more than 1")
        self.delay_s = delay_s
        self.rate_limit_fraction = rate_limit_fraction
        self.server_error_fraction = server_error_fraction
        self.hang_fraction = hang_fraction
        self.retry_after_s = retry_after_s
        self.seed = seed
        self.responder = responder or default_answer
        self.requested_port = port  # 0: any free port
        self.log: list[LogEntry] = []
        self._attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        # The meeting point: no request is answered before requests of ``meet_models`` distinct model
        # names have arrived (or ``meet_timeout_s`` passed), so "two clients ran at the same time" is a
        # fact the server observes, not a timing.
        self.meet_models = meet_models
        self.meet_timeout_s = meet_timeout_s
        self.models_seen: set[str] = set()
        self.met = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def retry_after_header(self) -> str:
        value = self.retry_after_s
        return str(int(value)) if float(value).is_integer() else str(value)

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        self._stopping.clear()
        self._httpd = _Server(("127.0.0.1", self.requested_port), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release held ("hanging") connections."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("server not started")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """What to pass to LiteLLM as ``api_base``."""
        return self.url + "/v1"

    # -- faults and log ----------------------------------------------------

    def fault_for(self, key: str, attempt: int) -> int | None:
        """The status the ``attempt``-th request (1-based) of prompt ``key`` gets; None = hang."""
        digest = hashlib.sha256(f"{self.seed}:{key}:{attempt}".encode()).digest()
        u = int.from_bytes(digest[:8], "big") / 2**64
        if u < self.rate_limit_fraction:
            return 429
        u -= self.rate_limit_fraction
        if u < self.server_error_fraction:
            return 500
        u -= self.server_error_fraction
        if u < self.hang_fraction:
            return None
        return 200

    def _meet(self, model: str) -> None:
        if self.meet_models <= 0:
            return
        with self._lock:
            self.models_seen.add(model)
            if len(self.models_seen) >= self.meet_models:
                self.met.set()
        self.met.wait(self.meet_timeout_s)

    def _decide(self, key: str) -> tuple[int | None, int]:
        with self._lock:
            self._attempts[key] += 1
            attempt = self._attempts[key]
            status = self.fault_for(key, attempt)
            self.log.append(LogEntry(key=key, t=time.monotonic(), status=status, attempt=attempt))
        return status, attempt

    def reset_log(self) -> None:
        """Forget the log (attempt counters continue, so faults stay deterministic per prompt)."""
        with self._lock:
            self.log = []

    def entries(self) -> list[LogEntry]:
        with self._lock:
            return list(self.log)

    def status_counts(self) -> Counter[int | None]:
        with self._lock:
            return Counter(entry.status for entry in self.log)
