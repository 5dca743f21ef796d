"""A fake OpenAI-compatible server (a scripted stand-in for a provider) with fault injection.

Used by the gateway fault test and the concurrency benchmark: it speaks enough
of the OpenAI protocol for LiteLLM (``openai/<any>`` or ``hosted_vllm/<any>``
with ``api_base=server.api_base``), answers after a fixed delay (``delay_s``, per
answer: a 5 s server for timeout tests is ``delay_s=5``), and injects
faults deterministically: the fate of a request depends only on
``(seed, prompt key, how many times this prompt was asked before)``, so a
rerun of a test sees the same faults in the same places.

``meet_models=N`` holds every request until requests for N distinct model
names have arrived (``met`` is then set): a test of "these ran at the same
time" that no machine load can fake.

Faults: ``rate_limit_fraction`` → 429 with ``Retry-After``; a scripted ``502`` answers an HTML page, as a
proxy in front of a server does;
``server_error_fraction`` → 500; ``drop_fraction`` → the connection is closed
without an answer (:data:`DROP`; the client sees a connection error at once);
``hang_fraction`` → no answer at all (the connection is held until
:meth:`FakeOpenAIServer.stop`), which exercises client timeouts.  ``faults``
replaces the random draw with a function of (prompt key, attempt), so a test
scripts exactly which request fails how; a scripted ``401`` answers "incorrect
API key" and echoes the request's bearer token in the message, as some
providers do (the gateway must redact it before storing anything).
``reject_params`` ({param: "parameter" | "value"}) answers every request that carries one of those
params with OpenAI's 400 for a model that refuses it ("Unsupported parameter: 'top_p' is not
supported with this model." / "Unsupported value: 'temperature' does not support 0 ...", with
``param`` and ``code`` set as OpenAI sets them).
``malformed`` (a function of (prompt key, attempt) returning one of
:data:`MALFORMED_KINDS` or None) turns a 200 into a reply of that broken
shape: no choices, empty choices, a choice without a message, null content, an HTML page instead
of JSON, a complete answer whose body is not UTF-8 (a 200 the provider billed that no client
decodes).  Every fault is the server's decision, never a client timeout racing a slow machine: a
test that wants exact attempt counts uses drops, not hangs, and a generous client timeout.
Every request is logged as a :class:`LogEntry` (prompt key, monotonic arrival
time, status; ``None`` for a hang; the model name sent; the malformed shape, if
any; the generation params of the body; whether it asked for a stream) for assertions, in arrival order.

``reasoning`` makes it answer like a reasoning model: a mapping of model name (as sent, e.g.
``fake-o``) to a style, ``"field"`` (the thinking in ``message.reasoning_content`` and its token count in
``usage.completion_tokens_details.reasoning_tokens``, as OpenAI-style reasoning APIs send it) or
``"think_tags"`` (a ``<think>…</think>`` block before the answer in ``content``, as open models such as
DeepSeek-R1 or Qwen3 inline it).  The thinking mentions both "true" and "false", so a parser that read it
would find an answer in it.  The name ``"*"`` gives its style to every model not named.

``params_responder`` (a function of (messages, params), params being the request's generation params
as :class:`LogEntry` keeps them) answers in place of ``responder`` when set: a scripted model whose
answer depends on what it was asked with (``reasoning_effort``, say).  ``thinking`` (same arguments)
replaces :func:`reasoning_text` as the thinking a ``reasoning`` style sends, so its length can
depend on them too (``tests/fakes/scripted_effort.py`` scripts both).

``finish_reason`` (a function of the prompt key) sets an answer's ``finish_reason`` (default
``"stop"``; it may return None, sent as null, or another server's name such as ``"eos"``).

``served_model`` makes the server answer as a snapshot behind the alias it was asked for, as a
provider does when an alias moves: a function of (prompt key, answer number) returning the reply's
``model`` (None: the model name asked, the default).  The answer number counts the 200 answers this
server has given (1 for its first; live, streamed and batch answers alike, under the server's lock),
so ``served_model=snapshots(10, "snap-1", "snap-2")`` answers ``snap-1`` ten times and ``snap-2``
after, whatever the order requests arrive in; a function of the key alone fixes each prompt's
snapshot.  ``system_fingerprint`` (a function of the served model name) adds that field to every
answer (None, or no function: the field is left out, as servers that do not fingerprint do).

``prompt_tokens`` (a function of the messages) is the ``usage.prompt_tokens`` every answer reports, a
scripted provider count in place of the default (the words of the messages):
``prompt_tokens=scaled_prompt_tokens(1.3)`` reports 1.3 x relreason's own count of the prompt (its
default tokenizer, chat template included), rounded, as a provider whose tokenizer is coarser would.

``hold_until_in_flight=N`` holds the first requests until N are in flight at
once (``max_in_flight`` records the most ever seen): "the client used its
concurrency" becomes a fact the server observes, not a timing.
:meth:`FakeOpenAIServer.allow` gates the answers: ``allow(5)`` answers five
requests and holds the rest until the next ``allow`` (``allow(None)``: all),
so a test sees a run paused mid-way for as long as it needs.

Streaming: a chat request with ``"stream": true`` is answered (after the same faults, holds and
``delay_s``) as OpenAI streams it: ``text/event-stream``, chunked, ``chat.completion.chunk`` events (a
role chunk, one ``delta`` piece per word of the thinking in ``reasoning_content`` and then of the
answer, a chunk with the ``finish_reason``, a chunk with ``"choices": []`` and the ``usage`` when
``stream_options.include_usage`` is set), then ``data: [DONE]``; the pieces join to the very answer a
non-streamed call gets.  ``stream_pace_s`` spaces the pieces (one a second for five seconds:
``stream_pace_s=1, stream_pieces=5``) and ``stream_stall`` (a function of (prompt key, attempt)
returning a piece count, or None) stops a stream after that many pieces and holds it open, sending
nothing, until the server stops: slow thinking and a stall, told apart.  A fault (429, 500, ...) on a
streamed request is the same JSON error as on any other; ``malformed`` shapes apply to JSON bodies only.

Batches: the files and batches endpoints (``POST /v1/files``, ``GET /v1/files[/{id}[/content]]``,
``DELETE /v1/files/{id}``, ``POST /v1/batches``, ``GET /v1/batches[/{id}]``,
``POST /v1/batches/{id}/cancel``) serve the Batch API in the shapes LiteLLM's ``acreate_file`` /
``acreate_batch`` / ``aretrieve_batch`` / ``afile_content`` / ``acancel_batch`` accept
(:mod:`tests.fakes.openai_batches` holds the rules).  A batch moves only when the test says so:
``batch_complete_after_retrieves=N`` (the N-th retrieve finds it completed), or
:meth:`FakeOpenAIServer.advance_batch` / :meth:`~FakeOpenAIServer.complete_batch` /
:meth:`~FakeOpenAIServer.expire_batch`.  Each line is answered by :meth:`FakeOpenAIServer.completion`,
the logic of live calls (``responder``, ``reasoning``, ``finish_reason``, ``n``, ``reject_params``), a
prompt's first batch answer being its attempt 1 as its first live answer is; ``batch_line_fault``
(a function of (custom_id, prompt key) returning an HTTP status, or None) fails the lines it names.
Live faults (``faults``, the fractions, ``malformed``) are not applied to batch lines.
:attr:`FakeOpenAIServer.calls` logs every request by kind (:data:`API_KINDS`), so
``server.live_chat_calls() == 0`` says a run sent everything as batches; ``log`` keeps logging chat
calls only, as before, and :meth:`~FakeOpenAIServer.batch_lines` the batch lines that ran.

:func:`hostile_answer` builds answers no parser should choke on (lone
surrogates, NUL bytes, a megabyte, deep nesting, LaTeX bombs, ``__import__``,
power towers, a 10^6-cell matrix); ``python -m tests.fakes.openai_server``
serves them (or plain answers) from a process of its own.

Usage::

    with FakeOpenAIServer(delay_s=0.2, rate_limit_fraction=0.2, retry_after_s=1) as server:
        litellm.completion(model="openai/fake", api_base=server.api_base, api_key="x", messages=[...])
        server.log  # [LogEntry(key=..., t=..., status=200, attempt=1)]
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.openai_batches import (
    MAX_BATCH_BYTES,
    MAX_BATCH_LINES,
    ApiError,
    BatchLineEntry,
    BatchStore,
    LineAnswer,
)


def prompt_key(messages: list[dict[str, Any]]) -> str:
    """A short stable key for a message list (what the log and fault decisions use)."""
    text = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# The status logged for a request whose connection the server closed without answering.
DROP = 0

FaultFn = Callable[[str, int], "int | None"]

# Shapes of a broken 200 reply (``malformed=``), each seen from real providers or proxies.
MALFORMED_KINDS: tuple[str, ...] = (
    "empty_choices",  # "choices": []
    "no_choices",  # no "choices" key at all
    "no_message",  # a choice with a finish_reason and no "message"
    "null_content",  # "message": {"role": "assistant", "content": null}, finish_reason "length"
    "null_content_no_finish",  # content null and finish_reason null: nothing says what happened
    "not_json",  # an HTML page with status 200 (a proxy's login or error page)
    "invalid_utf8",  # a whole chat completion whose answer holds bytes that are not UTF-8 (0xff 0xfe)
)
# The bytes ``invalid_utf8`` puts in the answer: no UTF-8 text contains them.
INVALID_UTF8 = b"\xff\xfe"
MalformedFn = Callable[[str, int], "str | None"]


@dataclass(frozen=True)
class LogEntry:
    """One request as the server saw it; ``status`` None: never answered, :data:`DROP`: connection closed."""

    key: str
    t: float
    status: int | None
    attempt: int
    model: str = ""
    malformed: str | None = None
    # The request's generation params as sent (every body key but model and messages: temperature,
    # top_p, max_tokens, ...), so a test sees what a study's protocol put on the wire.
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    # True when the request asked for a server-sent event stream (``"stream": true``).
    stream: bool = False


@dataclass(frozen=True)
class ApiCall:
    """Any request the server received, chat or not (:attr:`FakeOpenAIServer.calls`), in arrival order.

    ``kind`` is one of :data:`API_KINDS`: a test asserts "0 live chat calls" with
    ``server.live_chat_calls() == 0`` while batch traffic shows as ``files.create``,
    ``batches.create``, ``batches.retrieve``, ``files.content``, ...  ``ref`` is the file or batch id
    the call named or created (None for chat); ``status`` what it was answered (None: never).
    """

    kind: str
    method: str
    path: str
    t: float
    status: int | None
    ref: str | None = None


API_KINDS: tuple[str, ...] = (
    "chat",
    "models",
    "files.create",
    "files.list",
    "files.retrieve",
    "files.content",
    "files.delete",
    "batches.create",
    "batches.list",
    "batches.retrieve",
    "batches.cancel",
    "unknown",
)


# How a reasoning model hands over its thinking (``reasoning=``): a field of its own, or inline tags.
REASONING_STYLES: tuple[str, ...] = ("field", "think_tags")


def reasoning_text(key: str, attempt: int) -> str:
    """The fake thinking for one request: names "true" and "false" both, so a parser reading it would err."""
    return (
        f"Request {key}, attempt {attempt}. Could the statement be true? It could also be false; "
        "let me check each fact in turn before answering."
    )


def snapshots(first_n: int, first: str, then: str) -> Callable[[str, int], str]:
    """A ``served_model`` knob: the first ``first_n`` answers come from ``first``, the rest from ``then``
    (an alias moving to a new snapshot mid-way)."""
    return lambda _key, number: first if number <= first_n else then


def scaled_prompt_tokens(factor: float) -> Callable[[list[dict[str, Any]]], int]:
    """A scripted ``prompt_tokens``: ``factor`` x relreason's count of the messages (its default tokenizer,
    chat template included, as ``raw.prompts.input_tokens`` holds it), rounded half up."""
    from relreason_dagster.common.tokenizer import chat_prompt_tokens

    def count(messages: list[dict[str, Any]]) -> int:
        return int(factor * chat_prompt_tokens(messages) + 0.5)

    return count


def default_answer(messages: list[dict[str, Any]]) -> str:
    return f"answer to {prompt_key(messages)}"


# (method, path pattern, kind): the routes the fake serves, matched on the path's end so that any
# ``api_base`` prefix (``/v1``, a proxy's ``/openai/v1``) works.
_ID = r"(?P<id>[^/]+)"
_ROUTES: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (method, re.compile(pattern + "$"), kind)
    for method, pattern, kind in (
        ("POST", r"/chat/completions", "chat"),
        ("GET", r"/models", "models"),
        ("POST", r"/files", "files.create"),
        ("GET", r"/files", "files.list"),
        ("GET", rf"/files/{_ID}/content", "files.content"),
        ("GET", rf"/files/{_ID}", "files.retrieve"),
        ("DELETE", rf"/files/{_ID}", "files.delete"),
        ("POST", r"/batches", "batches.create"),
        ("GET", r"/batches", "batches.list"),
        ("POST", rf"/batches/{_ID}/cancel", "batches.cancel"),
        ("GET", rf"/batches/{_ID}", "batches.retrieve"),
    )
)


def _parse_upload(content_type: str, raw: bytes) -> tuple[bytes, str, str]:
    """(file bytes, filename, purpose) of a ``multipart/form-data`` upload, read byte-exact (a JSONL
    file's line ends must survive), or :class:`ApiError` 400 as OpenAI answers a malformed upload."""
    header = Message()
    header["Content-Type"] = content_type
    boundary = header.get_param("boundary")
    if header.get_content_type() != "multipart/form-data" or not isinstance(boundary, str):
        raise ApiError(400, "Expected a multipart/form-data upload with a 'file' and a 'purpose'.")
    fields: dict[str, tuple[bytes, str | None]] = {}
    for part in raw.split(b"--" + boundary.encode("latin-1"))[1:]:
        if part.startswith(b"--"):
            break  # the closing delimiter
        head, _, data = part.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        disposition = Message()
        for line in head.decode("utf-8", "replace").split("\r\n"):
            name, _, value = line.partition(":")
            if name.strip():
                disposition[name.strip()] = value.strip()
        field_name = disposition.get_param("name", header="content-disposition")
        if isinstance(field_name, str):
            filename = disposition.get_param("filename", header="content-disposition")
            fields[field_name] = (data.removesuffix(b"\r\n"), filename if isinstance(filename, str) else None)
    if "file" not in fields:
        raise ApiError(400, "Missing required parameter: 'file'.", "file")
    if "purpose" not in fields:
        raise ApiError(400, "Missing required parameter: 'purpose'.", "purpose")
    data, filename = fields["file"]
    return data, filename or "upload.jsonl", fields["purpose"][0].decode("utf-8", "replace")


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

    def _send_html(self, status: int, page: str) -> None:
        data = page.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_invalid_utf8(self, body: dict[str, Any], key: str, attempt: int) -> None:
        """A 200 chat completion, complete and well-formed but for :data:`INVALID_UTF8` in its answer."""
        reply = {
            "id": f"chatcmpl-{key}-{attempt}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "true @@"}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
        data = json.dumps(reply).encode("utf-8").replace(b"@@", INVALID_UTF8)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _read_body(self) -> bytes:
        """The request body, by Content-Length or chunked (an SDK may stream an upload chunked)."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _route(self) -> tuple[str, str | None]:
        """(kind, id named in the path) of this request (:data:`API_KINDS`)."""
        path = urlsplit(self.path).path.rstrip("/")
        for method, pattern, kind in _ROUTES:
            if method == self.command:
                match = pattern.search(path)
                if match:
                    return kind, match.groupdict().get("id")
        return "unknown", None

    def _send_api(self, kind: str, status: int, body: dict[str, Any], ref: str | None) -> None:
        self.server.owner._record(kind, self.command, self.path, status, ref)
        self._send_json(status, body)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._dispatch(b"")

    def do_DELETE(self) -> None:  # noqa: N802 - stdlib naming
        self._dispatch(self._read_body())

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        raw = self._read_body()
        kind, _ = self._route()
        if kind == "chat":
            self._chat(raw)
        else:
            self._dispatch(raw)

    def _dispatch(self, raw: bytes) -> None:
        """Every route but chat: models, files and batches (:mod:`tests.fakes.openai_batches`)."""
        owner = self.server.owner
        store = owner.batches
        kind, ref = self._route()
        try:
            if kind == "models":
                self._send_api(
                    kind, 200, {"object": "list", "data": [{"id": "fake", "object": "model"}]}, None
                )
            elif kind == "files.create":
                data, filename, purpose = _parse_upload(self.headers.get("Content-Type", ""), raw)
                item = store.add_file(data, filename, purpose)
                self._send_api(kind, 200, item.as_object(), item.id)
            elif kind == "files.list":
                with store._lock:
                    data = [item.as_object() for item in store.files.values()]
                self._send_api(kind, 200, {"object": "list", "data": data, "has_more": False}, None)
            elif kind == "files.retrieve":
                self._send_api(kind, 200, store.file(str(ref)).as_object(), ref)
            elif kind == "files.delete":
                self._send_api(kind, 200, store.delete_file(str(ref)), ref)
            elif kind == "files.content":
                data = store.file(str(ref)).data
                owner._record(kind, self.command, self.path, 200, ref)
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            elif kind == "batches.create":
                try:
                    request = json.loads(raw or b"{}")
                except ValueError:
                    raise ApiError(400, "We could not parse the JSON body of your request.") from None
                batch = store.create(request if isinstance(request, dict) else {})
                self._send_api(kind, 200, batch.as_object(), batch.id)
            elif kind == "batches.list":
                with store._lock:
                    data = [batch.as_object() for batch in reversed(store.batches.values())]
                page = {
                    "object": "list",
                    "data": data,
                    "first_id": data[0]["id"] if data else None,
                    "last_id": data[-1]["id"] if data else None,
                    "has_more": False,
                }
                self._send_api(kind, 200, page, None)
            elif kind == "batches.retrieve":
                with store._lock:
                    body = store.retrieve(str(ref)).as_object()
                self._send_api(kind, 200, body, ref)
            elif kind == "batches.cancel":
                with store._lock:
                    body = store.cancel(str(ref)).as_object()
                self._send_api(kind, 200, body, ref)
            else:
                message = f"no route {self.path}"
                self._send_api(
                    kind, 404, {"error": {"message": message, "type": "invalid_request_error"}}, None
                )
        except ApiError as error:
            self._send_api(kind, error.status, error.body, ref)

    def _chat(self, raw: bytes) -> None:
        """``POST /v1/chat/completions``: faults, holds and delays, then a JSON answer or a stream."""
        owner = self.server.owner
        try:
            body = json.loads(raw or b"{}")
            messages = body["messages"]
        except (ValueError, KeyError, TypeError):
            owner._record("chat", self.command, self.path, 400, None)
            self._send_json(400, {"error": {"message": "bad request body", "type": "invalid_request_error"}})
            return
        key = prompt_key(messages)
        owner._meet(str(body.get("model", "")))
        sent = {k: v for k, v in body.items() if k not in ("model", "messages")}
        stream = body.get("stream") is True
        status, attempt, shape = owner._decide(key, str(body.get("model", "")), sent, stream=stream)
        owner._record("chat", self.command, self.path, status, None)
        owner._enter()
        try:
            self._answer(owner, body, messages, key, status, attempt, shape)
        finally:
            owner._leave()

    def _answer(
        self,
        owner: FakeOpenAIServer,
        body: dict[str, Any],
        messages: list[dict[str, Any]],
        key: str,
        status: int | None,
        attempt: int,
        shape: str | None = None,
    ) -> None:
        owner._hold()
        if status is None:
            # Never answer: hold the connection until the server stops.
            owner._stopping.wait()
            self.close_connection = True
            return
        if owner.delay_s > 0:
            time.sleep(owner.delay_s)
        if status == DROP:
            self.close_connection = True  # no status line at all: the client's read fails now
            return
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
        elif status == 502:
            self._send_html(502, "<html><body><h1>502 Bad Gateway</h1> (fake proxy)</body></html>")
        elif status == 400:
            self._send_json(400, owner.rejection(body))
        elif status == 401:
            token = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            self._send_json(
                401,
                {
                    "error": {
                        "message": f"Incorrect API key provided: {token}. Check the key (fake).",
                        "type": "invalid_request_error",
                        "code": "invalid_api_key",
                        "param": token,
                    }
                },
            )
        elif shape == "not_json":
            self._send_html(200, "<html><body>Please sign in (fake proxy page)</body></html>")
        elif shape == "invalid_utf8":
            self._send_invalid_utf8(body, key, attempt)
        elif shape is not None:
            self._send_json(200, _malformed_body(shape, key, attempt, str(body.get("model", "fake"))))
        elif body.get("stream") is True:
            self._stream(owner, owner.completion(body, messages, key, attempt), body, key, attempt)
        else:
            self._send_json(200, owner.completion(body, messages, key, attempt))

    def _write_chunk(self, data: bytes) -> None:
        """One HTTP/1.1 chunk (a stream has no Content-Length), flushed at once so pacing is real."""
        self.wfile.write(f"{len(data):x}\r\n".encode("ascii") + data + b"\r\n")
        self.wfile.flush()

    def _stream(
        self,
        owner: FakeOpenAIServer,
        completion: dict[str, Any],
        body: dict[str, Any],
        key: str,
        attempt: int,
    ) -> None:
        """The answer ``completion`` as OpenAI streams it: server-sent ``chat.completion.chunk`` events
        (a role chunk, ``delta`` pieces, a chunk with the ``finish_reason``, a ``usage`` chunk with no
        choices when ``stream_options.include_usage`` is set, then ``data: [DONE]``), paced
        ``stream_pace_s`` apart, and stalled for good after ``stream_stall(key, attempt)`` pieces."""
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and options.get("include_usage") is True
        stall_after = owner.stream_stall(key, attempt) if owner.stream_stall is not None else None
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pieces_sent = 0
        try:
            for event, is_piece in stream_events(completion, include_usage, owner.stream_pieces):
                if is_piece:
                    if stall_after is not None and pieces_sent >= stall_after:
                        owner._stopping.wait()  # no byte more until the server stops: a stall
                        self.close_connection = True
                        return
                    if pieces_sent and owner.stream_pace_s > 0 and owner._stopping.wait(owner.stream_pace_s):
                        self.close_connection = True
                        return
                    pieces_sent += 1
                self._write_chunk(b"data: " + json.dumps(event).encode("utf-8") + b"\n\n")
            self._write_chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client stopped reading (its stall timeout, say)


def _split_pieces(text: str, pieces: int | None) -> list[str]:
    """``text`` cut into stream deltas that join back to it exactly: a word each (with the space after
    it), or ``pieces`` near-equal slices when set (empty slices when the text is shorter)."""
    if pieces is None:
        return [part for part in re.split(r"(?<=\s)(?=\S)", text) if part]
    size, extra = divmod(len(text), pieces)
    out, start = [], 0
    for i in range(pieces):
        end = start + size + (1 if i < extra else 0)
        out.append(text[start:end])
        start = end
    return out


def stream_events(
    completion: dict[str, Any], include_usage: bool, pieces: int | None = None
) -> list[tuple[dict[str, Any], bool]]:
    """The ``chat.completion.chunk`` events of a streamed ``completion`` and, for each, whether it
    carries a piece of text (what pacing and stalls count).  Thinking in ``reasoning_content``
    streams before the answer, as reasoning servers send it; with ``include_usage`` every chunk has
    ``"usage": null`` and a last chunk with ``"choices": []`` carries the usage."""
    head = {
        "id": completion["id"],
        "object": "chat.completion.chunk",
        "created": completion["created"],
        "model": completion["model"],
        "system_fingerprint": completion.get("system_fingerprint"),
    }

    def chunk(choices: list[dict[str, Any]]) -> dict[str, Any]:
        event = {**head, "choices": choices}
        if include_usage:
            event["usage"] = None
        return event

    events: list[tuple[dict[str, Any], bool]] = []
    for choice in completion["choices"]:
        index, message = choice["index"], choice["message"]
        start = {"role": "assistant", "content": ""}
        events.append(
            (chunk([{"index": index, "delta": start, "logprobs": None, "finish_reason": None}]), False)
        )
        for name in ("reasoning_content", "content"):
            text = message.get(name)
            if not isinstance(text, str):
                continue
            for part in _split_pieces(text, pieces if name == "content" else None):
                delta = {name: part}
                events.append(
                    (chunk([{"index": index, "delta": delta, "logprobs": None, "finish_reason": None}]), True)
                )
        end = {"index": index, "delta": {}, "logprobs": None, "finish_reason": choice["finish_reason"]}
        events.append((chunk([end]), False))
    if include_usage:
        events.append(({**head, "choices": [], "usage": completion["usage"]}, False))
    return events


def _params(body: dict[str, Any]) -> dict[str, Any]:
    """A request's generation params: every body key but model and messages (what the log keeps)."""
    return {k: v for k, v in body.items() if k not in ("model", "messages")}


def _choice(
    owner: FakeOpenAIServer,
    body: dict[str, Any],
    messages: list[dict[str, Any]],
    key: str,
    attempt: int,
    i: int,
) -> tuple[dict[str, Any], int, int | None]:
    """Choice ``i`` of an answer (``n`` > 1 asks several: choice i > 0 ends with " (choice i)", so each
    draw is told apart), its completion tokens and its reasoning tokens (None: no thinking field)."""
    params = _params(body)
    answer = owner.params_responder
    content = answer(messages, params) if answer is not None else owner.responder(messages)
    if i:
        content = f"{content} (choice {i})"
    tokens = len(content.split())
    thought: int | None = None
    message: dict[str, Any] = {"role": "assistant", "content": content}
    style = owner.reasoning.get(str(body.get("model", "")), owner.reasoning.get("*"))
    if style is not None:
        thought_text = owner.thinking(messages, params) if owner.thinking else reasoning_text(key, attempt)
        thinking = thought_text + (f" Choice {i}." if i else "")
        if style == "field":
            message["reasoning_content"] = thinking
            thought = len(thinking.split())
            tokens += thought
        elif style == "think_tags":
            message["content"] = f"<think>\n{thinking}\n</think>\n\n{content}"
            tokens = len(message["content"].split())
        else:
            known = ", ".join(REASONING_STYLES)
            raise ValueError(f"unknown reasoning style {style!r}; known: {known}")
    finish = owner.finish_reason(key) if owner.finish_reason else "stop"
    return {"index": i, "message": message, "finish_reason": finish}, tokens, thought


def _malformed_body(shape: str, key: str, attempt: int, model: str) -> dict[str, Any]:
    """A 200 body of the broken ``shape`` (:data:`MALFORMED_KINDS`)."""
    body: dict[str, Any] = {
        "id": f"chatcmpl-{key}-{attempt}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3},
    }
    if shape == "empty_choices":
        body["choices"] = []
    elif shape == "no_choices":
        pass
    elif shape == "no_message":
        body["choices"] = [{"index": 0, "finish_reason": "stop"}]
    elif shape in ("null_content", "null_content_no_finish"):
        finish = "length" if shape == "null_content" else None
        body["choices"] = [
            {"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": finish}
        ]
    else:
        raise ValueError(f"unknown malformed shape {shape!r}; known: {', '.join(MALFORMED_KINDS)}")
    return body


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
        drop_fraction: float = 0.0,
        retry_after_s: float = 1,
        seed: int = 0,
        responder: Callable[[list[dict[str, Any]]], str] | None = None,
        params_responder: Callable[[list[dict[str, Any]], dict[str, Any]], str] | None = None,
        thinking: Callable[[list[dict[str, Any]], dict[str, Any]], str] | None = None,
        faults: FaultFn | None = None,
        malformed: MalformedFn | None = None,
        port: int = 0,
        meet_models: int = 0,
        meet_timeout_s: float = 120.0,
        hold_until_in_flight: int = 0,
        reject_params: dict[str, str] | None = None,
        reasoning: dict[str, str] | None = None,
        finish_reason: Callable[[str], str | None] | None = None,
        ignore_n: bool = False,
        served_model: Callable[[str, int], str | None] | None = None,
        system_fingerprint: Callable[[str], str | None] | None = None,
        prompt_tokens: Callable[[list[dict[str, Any]]], int] | None = None,
        stream_pace_s: float = 0.0,
        stream_pieces: int | None = None,
        stream_stall: Callable[[str, int], int | None] | None = None,
        batch_complete_after_retrieves: int | None = None,
        batch_line_fault: Callable[[str, str], int | None] | None = None,
        batch_max_lines: int = MAX_BATCH_LINES,
        batch_max_bytes: int = MAX_BATCH_BYTES,
        batch_reverse_output: bool = False,
    ) -> None:
        if stream_pieces is not None and stream_pieces < 1:
            raise ValueError("stream_pieces must be at least 1")
        if rate_limit_fraction + server_error_fraction + hang_fraction + drop_fraction > 1:
            raise ValueError("fault fractions add up to more than 1")
        self.delay_s = delay_s
        self.rate_limit_fraction = rate_limit_fraction
        self.server_error_fraction = server_error_fraction
        self.hang_fraction = hang_fraction
        self.drop_fraction = drop_fraction
        self.faults = faults
        self.malformed = malformed
        self.reject_params = dict(reject_params or {})
        self.in_flight = 0
        self.max_in_flight = 0
        # Until this many requests are in flight at once, each waits (``meet_timeout_s`` at most).
        self.hold_until_in_flight = hold_until_in_flight
        self.held = threading.Event()
        # The gate of :meth:`allow`: requests admitted so far, and how many may be (None: any number).
        self.admitted = 0
        self.answer_limit: int | None = None
        self.retry_after_s = retry_after_s
        self.seed = seed
        self.responder = responder or default_answer
        # Answers and thinking that read the request's params too (None: ``responder``, reasoning_text).
        self.params_responder = params_responder
        self.thinking = thinking
        self.reasoning: dict[str, str] = dict(reasoning or {})  # model name -> REASONING_STYLES
        # The finish_reason of an answer, by prompt key (None: "stop"; a function may return null).
        self.finish_reason = finish_reason
        # Answer one choice whatever ``n`` asks (a server that ignores the parameter).
        self.ignore_n = ignore_n
        # The reply's ``model`` by (prompt key, answer number), and its fingerprint by served model.
        self.served_model = served_model
        self.system_fingerprint = system_fingerprint
        self.answers_given = 0
        # The usage.prompt_tokens of an answer, by the messages (None: the words of the messages).
        self.prompt_tokens = prompt_tokens
        self.requested_port = port  # 0: any free port
        # Streaming (``"stream": true``): seconds between text pieces, the answer cut into this many
        # pieces (None: a word each), and after how many pieces a (prompt key, attempt) stalls for good.
        self.stream_pace_s = stream_pace_s
        self.stream_pieces = stream_pieces
        self.stream_stall = stream_stall
        # Batch lines: the HTTP status of a line, by (custom_id, prompt key); None or 200 answers it.
        self.batch_line_fault = batch_line_fault
        self.batches = BatchStore(
            self._answer_line,
            complete_after_retrieves=batch_complete_after_retrieves,
            max_lines=batch_max_lines,
            max_bytes=batch_max_bytes,
            reverse_output=batch_reverse_output,
        )
        self.batch_log: list[BatchLineEntry] = []
        self._batch_attempts: Counter[str] = Counter()
        self.calls: list[ApiCall] = []
        self.log: list[LogEntry] = []
        self._attempts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._gate = threading.Condition(self._lock)
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

    def outcome(self, key: str, max_attempts: int, first_attempt: int = 1) -> tuple[bool, int]:
        """(succeeds, requests made) for a client that tries ``key`` up to ``max_attempts`` times.

        ``first_attempt`` is the server-side attempt number of its first try (prompts asked
        before continue counting).  What a test expects, before the run, from the faults alone.
        """
        for n in range(1, max_attempts + 1):
            if self.fault_for(key, first_attempt + n - 1) == 200:
                return True, n
        return False, max_attempts

    def fault_for(self, key: str, attempt: int) -> int | None:
        """The status the ``attempt``-th request (1-based) of prompt ``key`` gets; None = hang."""
        if self.faults is not None:
            return self.faults(key, attempt)
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
        u -= self.hang_fraction
        if u < self.drop_fraction:
            return DROP
        return 200

    def _meet(self, model: str) -> None:
        if self.meet_models <= 0:
            return
        with self._lock:
            self.models_seen.add(model)
            if len(self.models_seen) >= self.meet_models:
                self.met.set()
        self.met.wait(self.meet_timeout_s)

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            if self.hold_until_in_flight and self.in_flight >= self.hold_until_in_flight:
                self.held.set()

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _hold(self) -> None:
        if self.hold_until_in_flight > 0:
            self.held.wait(self.meet_timeout_s)
        with self._gate:
            while self.answer_limit is not None and self.admitted >= self.answer_limit:
                if self._stopping.is_set():
                    return
                self._gate.wait(1.0)
            self.admitted += 1

    def allow(self, limit: int | None) -> None:
        """Answer requests until ``limit`` have been admitted in all, then hold the rest (None: no limit)."""
        with self._gate:
            self.answer_limit = limit
            self._gate.notify_all()

    def _decide(
        self, key: str, model: str = "", params: dict[str, Any] | None = None, *, stream: bool = False
    ) -> tuple[int | None, int, str | None]:
        with self._lock:
            self._attempts[key] += 1
            attempt = self._attempts[key]
            status = self.fault_for(key, attempt)
            if status == 200 and any(p in (params or {}) for p in self.reject_params):
                status = 400  # the model refuses a param it was sent (``reject_params``)
            # A malformed shape is a broken JSON body; a stream has none, so it is never malformed.
            shape = self.malformed(key, attempt) if self.malformed is not None and status == 200 else None
            shape = None if stream else shape
            self.log.append(
                LogEntry(
                    key=key,
                    t=time.monotonic(),
                    status=status,
                    attempt=attempt,
                    model=model,
                    malformed=shape,
                    params=dict(params or {}),
                    stream=stream,
                )
            )
        return status, attempt, shape

    def _record(self, kind: str, method: str, path: str, status: int | None, ref: str | None) -> None:
        with self._lock:
            self.calls.append(ApiCall(kind, method, path, time.monotonic(), status, ref))

    def completion(
        self, body: dict[str, Any], messages: list[dict[str, Any]], key: str, attempt: int
    ) -> dict[str, Any]:
        """The ``chat.completion`` this server answers to ``body`` (``responder``, ``reasoning``,
        ``finish_reason``, ``n``): one logic for live calls, streams and batch lines, so each way of
        asking gets the same answer."""
        n = body.get("n") if isinstance(body.get("n"), int) and not self.ignore_n else 1
        choices = [_choice(self, body, messages, key, attempt, i) for i in range(max(n, 1))]
        usage: dict[str, Any] = {
            # The prompt is read once, whatever the number of choices; completions add up.
            "prompt_tokens": (
                self.prompt_tokens(messages)
                if self.prompt_tokens is not None
                else sum(len(str(m.get("content", "")).split()) for m in messages)
            ),
            "completion_tokens": sum(tokens for _, tokens, _ in choices),
        }
        thought = [t for _, _, t in choices if t is not None]
        if thought:
            usage["completion_tokens_details"] = {"reasoning_tokens": sum(thought)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        with self._lock:
            self.answers_given += 1
            number = self.answers_given
        asked = body.get("model", "fake")
        served = self.served_model(key, number) if self.served_model is not None else None
        reply: dict[str, Any] = {
            "id": f"chatcmpl-{key}-{attempt}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": asked if served is None else served,
            "choices": [choice for choice, _, _ in choices],
            "usage": usage,
        }
        fingerprint = self.system_fingerprint(reply["model"]) if self.system_fingerprint else None
        if fingerprint is not None:
            reply["system_fingerprint"] = fingerprint
        return reply

    def error_body(self, status: int, body: dict[str, Any]) -> dict[str, Any]:
        """The provider's JSON error body for ``status`` (what a failed batch line carries)."""
        if status == 429:
            return {
                "error": {"message": "rate limited (fake)", "type": "rate_limit_error", "code": "rate_limit"}
            }
        if status == 400:
            return self.rejection(body)
        if status >= 500:
            return {"error": {"message": "internal error (fake)", "type": "server_error"}}
        return {"error": {"message": f"request failed with {status} (fake)", "type": "invalid_request_error"}}

    def _answer_line(self, batch_id: str, custom_id: str, body: dict[str, Any]) -> LineAnswer:
        """Answer one batch line with the live logic (a prompt's first batch answer is its attempt 1,
        counted apart from live attempts so live faults stay where they were) and log it."""
        messages = body.get("messages")
        if not isinstance(messages, list):
            status, reply = 400, {"error": {"message": "bad request body", "type": "invalid_request_error"}}
            key = ""
        else:
            key = prompt_key(messages)
            params = {k: v for k, v in body.items() if k not in ("model", "messages")}
            status = self.batch_line_fault(custom_id, key) if self.batch_line_fault is not None else None
            status = 200 if status is None else status
            if status == 200 and any(p in params for p in self.reject_params):
                status = 400  # the model refuses the param in a batch as it does live
            with self._lock:
                self._batch_attempts[key] += 1
                attempt = self._batch_attempts[key]
            reply = (
                self.completion(body, messages, key, attempt)
                if status == 200
                else self.error_body(status, body)
            )
        with self._lock:
            self.batch_log.append(
                BatchLineEntry(
                    batch_id=batch_id,
                    custom_id=custom_id,
                    key=key,
                    model=str(body.get("model", "")),
                    outcome="answered" if status == 200 else "failed",
                    status=status,
                    params={k: v for k, v in body.items() if k not in ("model", "messages")},
                )
            )
        return status, reply

    # -- batches, by the test's hand ----------------------------------------

    def batch_ids(self) -> list[str]:
        """The batches created so far, oldest first."""
        with self.batches._lock:
            return list(self.batches.batches)

    def batch_object(self, batch_id: str) -> dict[str, Any]:
        """The batch as a retrieve would show it, without counting as one."""
        with self.batches._lock:
            return self.batches.batch(batch_id).as_object()

    def advance_batch(self, batch_id: str, n: int | None = None) -> None:
        """Answer the next ``n`` lines of a batch (None: all) and leave it ``in_progress``."""
        self.batches.advance(batch_id, n)

    def complete_batch(self, batch_id: str) -> None:
        """Answer every line still to do and complete the batch (its files are then written)."""
        self.batches.complete(batch_id)

    def expire_batch(self, batch_id: str) -> None:
        """End the batch's window: lines not answered yet go to the error file as ``batch_expired``."""
        self.batches.expire(batch_id)

    def live_chat_calls(self) -> int:
        """Chat completion requests received, streamed or not (batch lines are not chat calls)."""
        with self._lock:
            return sum(1 for call in self.calls if call.kind == "chat")

    def api_calls(self, kind: str | None = None) -> list[ApiCall]:
        """Every request received (or those of one ``kind``), in arrival order."""
        with self._lock:
            return [call for call in self.calls if kind is None or call.kind == kind]

    def batch_lines(self) -> list[BatchLineEntry]:
        """Every batch line answered or failed so far (expired and cancelled lines never ran)."""
        with self._lock:
            return list(self.batch_log)

    def rejection(self, body: dict[str, Any]) -> dict[str, Any]:
        """OpenAI's 400 body for the first refused param ``body`` carries (``reject_params``), or a plain
        400 (a scripted ``faults`` status) when it carries none."""
        found = [(n, s) for n, s in self.reject_params.items() if n in body]
        if not found:
            return {"error": {"message": "invalid request (fake)", "type": "invalid_request_error"}}
        name, style = found[0]
        if style == "value":
            message = (
                f"Unsupported value: '{name}' does not support {body[name]!r} with this model. "
                "Only the default (1) value is supported."
            )
        else:
            message = f"Unsupported parameter: '{name}' is not supported with this model."
        code = f"unsupported_{'value' if style == 'value' else 'parameter'}"
        return {"error": {"message": message, "type": "invalid_request_error", "param": name, "code": code}}

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


# ---------------------------------------------------------------------------
# Hostile answers
# ---------------------------------------------------------------------------

HOSTILE_KINDS: tuple[str, ...] = (
    "surrogates",
    "nul",
    "megabyte",
    "deep_nesting",
    "latex_bomb",
    "dunder_import",
    "power_tower",
    "matrix",
)
# The kinds whose text UTF-8 cannot carry: stored with U+FFFD and ``sanitized`` set.
UNSTORABLE_KINDS = frozenset({"surrogates"})
MEGABYTE = 1 << 20


def _megabyte() -> str:
    line = "P1 has father. P0 is P2's sister. The answer is [[1]] True. Answer: the chief. "
    return (line * (MEGABYTE // len(line) + 1))[:MEGABYTE]


def _matrix(n: int = 1000) -> str:
    row = "[" + ",".join("1" if i % 3 else "0" for i in range(n)) + "]"
    return "[[" + ",".join([row] * n) + "]]"


def hostile_answer(kind: str, marker: str = "/tmp/relreason-hostile-marker") -> str:
    """An answer of one hostile ``kind`` (:data:`HOSTILE_KINDS`).

    Each looks enough like an answer (``[[...]]`` brackets, ``True``, ``P1 has
    father``) to reach the parsers' deeper paths.  ``dunder_import`` would create
    the file ``marker`` if anything evaluated model text as code.
    """
    if kind == "surrogates":  # sent as raw "\ud800" JSON escapes: valid JSON, not valid UTF-8
        return (
            "P1 has father. \ud800 The answer is [[\udc00 1]] True \ud83d Answer: \udfff the chief "
            "\udc00\ud800"
        )
    if kind == "nul":
        return "P1 has father.\x00 The answer is [[1\x00]]\x00 True\x00 Answer: the\x00 chief\x00"
    if kind == "megabyte":
        return _megabyte()
    if kind == "deep_nesting":
        depth = 100_000
        return "[[" + "[" * depth + "1" + "]" * depth + "]] " + "(" * 20_000 + "{" * 20_000 + " True"
    if kind == "latex_bomb":
        depth = 5_000
        return (
            "[[$" + "\\frac{1}{" * depth + "2" + "}" * depth + "$]] "
            "\\def\\x{\\x\\x}\\x \\newcommand{\\y}{\\y\\y}\\y "
            + "[[\\sqrt{" * 200
            + "2"
            + "}]]" * 200
            + " [[\\begin{pmatrix}"
            + "1&" * 20_000
            + "1\\end{pmatrix}]] True"
        )
    if kind == "dunder_import":
        return (
            f"[[__import__('pathlib').Path({marker!r}).write_text('evaluated')]] "
            f"[[__import__('os').system('touch {marker}')]] "
            "[[().__class__.__base__.__subclasses__()]] [[eval('1+1')]] True P1 has father."
        )
    if kind == "power_tower":
        return (
            "[[9^9^9^9^9^9]] [[10**10**10**10]] [[2^{2^{2^{2^{2^{2^{2}}}}}}]] [[(9**9)**(9**9)]] "
            "[[9!!!!!!]] [[factorial(factorial(100))]] [[1e999999999]] True P1 has father."
        )
    if kind == "matrix":
        return _matrix()
    raise ValueError(f"unknown hostile kind {kind!r}; known: {', '.join(HOSTILE_KINDS)}")


def hostile_kind_for(messages: list[dict[str, Any]]) -> str:
    """A fixed kind per prompt (by its key), so every rerun sends the same answer to the same prompt."""
    return HOSTILE_KINDS[int(prompt_key(messages), 16) % len(HOSTILE_KINDS)]


def main(argv: list[str] | None = None) -> int:
    """Serve until interrupted: ``python -m tests.fakes.openai_server --answers surrogates --port 8765``."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--answers",
        choices=["plain", "surrogates", "hostile"],
        default="plain",
        help="plain: 'answer to <key>'; surrogates: every other answer holds lone surrogates; "
        "hostile: one hostile kind per prompt",
    )
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--rate-limit-fraction", type=float, default=0.0)
    parser.add_argument("--retry-after", type=float, default=1.0)
    parser.add_argument(
        "--reasoning",
        choices=REASONING_STYLES,
        help="answer every model like a reasoning model: its thinking in reasoning_content (field) or in a "
        "<think> block before the answer (think_tags)",
    )
    args = parser.parse_args(argv)

    def responder(messages: list[dict[str, Any]]) -> str:
        if args.answers == "hostile":
            return hostile_answer(hostile_kind_for(messages))
        if args.answers == "surrogates" and int(prompt_key(messages), 16) % 2 == 0:
            return hostile_answer("surrogates")
        return default_answer(messages)

    server = FakeOpenAIServer(
        port=args.port,
        responder=responder,
        delay_s=args.delay,
        rate_limit_fraction=args.rate_limit_fraction,
        retry_after_s=args.retry_after,
        reasoning={"*": args.reasoning} if args.reasoning else None,
    ).start()
    print(f"serving on {server.api_base}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
