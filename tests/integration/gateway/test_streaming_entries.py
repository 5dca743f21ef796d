"""``stream: true`` on a model entry, both transports, against the fake OpenAI server (issue 54, item 3).

The fake (tests/fakes/openai_server.py, a scripted stand-in for a provider) streams as OpenAI does, at a
pace and with a stall the test sets.  A streamed answer must be stored exactly as the non-streamed
answer to the same request is (content, thinking, finish reason, token counts from the stream's final
chunk, cost, request hash), after one send however slowly it arrives; a stream that stops sending is a
``timeout`` whose row says it stalled, sent as often as the retry table allows a timeout; a stream cut
short is a ``malformed_reply``.  No assertion reads a clock: a stall is a server that never sends its
next piece, and the stall timeouts are far above the fake's pace.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.provider_errors import sends_allowed
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer, stream_events

pytestmark = pytest.mark.integration

TRANSPORTS = ("direct", "litellm")
KEY_ENV = "RELREASON_TEST_STREAM_KEY"
MODEL = "same-model"
# Columns that differ between two runs of the same answer whatever sent it.
IGNORED = {"latency_s", "created_at"}


def _prompts(count: int = 2) -> list[dict[str, Any]]:
    return [
        {
            "prompt_id": f"p{i}",
            "messages": [{"role": "user", "content": f"prompt {i}: is the statement true?"}],
            "max_tokens": 32,
            "benchmark": "toy",
        }
        for i in range(count)
    ]


def _spec(api_base: str, transport: str, served: str = "fake-plain", **kw: Any) -> ModelEntry:
    fields: dict[str, Any] = {"timeout_s": 30, "stall_timeout_s": 20, "max_attempts": 3, **kw}
    return ModelEntry(
        name=MODEL,
        litellm_model=f"openai/{served}",
        params={"temperature": 0},
        api_base=api_base,
        api_key_env=KEY_ENV,
        concurrency=4,
        transport=transport,
        **fields,
    )


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    """A key for the fake (LiteLLM's OpenAI client refuses to send without one)."""
    monkeypatch.setenv(KEY_ENV, "sk-fake-stream")


def _run(
    tmp_path, label: str, transport: str, server_kw: dict[str, Any], spec_kw: dict[str, Any], port: int = 0
) -> tuple[dict[str, dict[str, Any]], Any, list[Any], int]:
    """One run into a lake of its own: (rows by prompt id, stats, the server's log, its port; a later
    server takes the same port, so the api_base and with it the request hash are the same)."""
    store = ResponseStore(Lake.open(tmp_path / label))
    with FakeOpenAIServer(port=port, **server_kw) as server:
        stats = run_model(
            store, _spec(server.api_base, transport, **spec_kw), _prompts(), backoff_base_s=0.001
        )
        return store.latest(MODEL), stats, server.entries(), server.port


def _same_rows(left: dict[str, dict[str, Any]], right: dict[str, dict[str, Any]]) -> None:
    assert set(left) == set(right) == {p["prompt_id"] for p in _prompts()}
    for pid in left:
        differ = {c for c in left[pid] if c not in IGNORED and left[pid][c] != right[pid][c]}
        assert not differ, (pid, {c: (left[pid][c], right[pid][c]) for c in differ})


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_slow_stream_is_one_send_and_the_non_streamed_row(tmp_path, transport):
    """A token a second for 5 s (``stream_pace_s=1, stream_pieces=5``) under ``timeout_s: 30`` and
    ``stall_timeout_s: 2``: one send per prompt, and the row the non-streamed call stores."""
    plain, _, plain_log, port = _run(tmp_path, "plain", transport, {}, {})
    paced = {"stream_pace_s": 1.0, "stream_pieces": 5}
    streamed, stats, log, _ = _run(
        tmp_path, "stream", transport, paced, {"stream": True, "stall_timeout_s": 2.0}, port
    )
    assert [(e.stream, e.status, e.attempt) for e in log] == [(True, 200, 1)] * len(_prompts())
    assert [e.stream for e in plain_log] == [False] * len(_prompts())
    assert all(e.params["stream_options"] == {"include_usage": True} for e in log)
    assert stats.called == len(_prompts()) and stats.errors == 0 and stats.attempts == len(_prompts())
    _same_rows(plain, streamed)
    for row in streamed.values():
        assert row["content"].startswith("answer to ") and row["finish_reason"] == "stop"
        assert row["prompt_tokens"] > 0 and row["completion_tokens"] == len(row["content"].split())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_thinking_and_final_usage_are_stored_as_without_stream(tmp_path, transport):
    """Thinking streamed in ``reasoning_content`` and the usage of the final chunk (its
    ``reasoning_tokens`` too) are stored as the non-streamed reply's fields are."""
    kw = {"reasoning": {"fake-thinker": "field"}}
    plain, _, _, port = _run(tmp_path, "plain", transport, kw, {"served": "fake-thinker"})
    streamed, _, log, _ = _run(
        tmp_path, "stream", transport, kw, {"served": "fake-thinker", "stream": True}, port
    )
    assert all(e.stream for e in log)
    _same_rows(plain, streamed)
    row = streamed["p0"]
    assert "true" in row["reasoning"] and "true" not in row["content"]
    assert row["reasoning_tokens"] == len(row["reasoning"].split()) > 0
    assert row["completion_tokens"] == row["reasoning_tokens"] + len(row["content"].split())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_stall_is_a_timeout_row_that_says_so(tmp_path, transport):
    """Every attempt stops after 2 pieces and sends nothing more: with ``stall_timeout_s: 1`` (the
    ceiling 30 s) each send ends as a stall, the row is a ``timeout`` saying "stalled" after the role
    chunk and the 2 pieces, and the sends are what the retry table allows a timeout."""
    server_kw = {"stream_stall": lambda key, attempt: 2, "stream_pieces": 5}
    spec_kw = {"stream": True, "stall_timeout_s": 1.0, "max_attempts": 2}
    rows, stats, log, _ = _run(tmp_path, "stall", transport, server_kw, spec_kw)
    allowed = sends_allowed("timeout", 2)
    assert 1 <= allowed <= 2
    assert len(log) == allowed * len(_prompts()) and all(e.stream for e in log)
    assert stats.error_kinds == {"timeout": len(_prompts())}
    for row in rows.values():
        assert row["content"] is None and row["attempts"] == allowed
        assert row["error"].startswith("timeout: ") and "stalled" in row["error"], row["error"]
        assert "after 3 " in row["error"], row["error"]  # the role chunk and two pieces did arrive


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_error_status_before_the_stream_is_the_error_it_is_without_stream(tmp_path, transport):
    """A 429 (then a 500) answered to a streamed request, before any event: the kinds, retries and
    stored text of a non-streamed request, not a stream error."""
    script = {1: 429, 2: 500, 3: 200}
    server_kw = {"faults": lambda key, attempt: script[min(attempt, 3)], "retry_after_s": 0.01}
    rows, stats, log, _ = _run(tmp_path, "faults", transport, server_kw, {"stream": True})
    assert [(e.attempt, e.status) for e in log if e.key == log[0].key] == [(1, 429), (2, 500), (3, 200)]
    assert stats.errors == 0 and all(row["attempts"] == 3 and row["content"] for row in rows.values())
    failing = {"faults": lambda key, attempt: 429, "retry_after_s": 0.01}
    rows, stats, _, _ = _run(
        tmp_path, "rate_limited", transport, failing, {"stream": True, "max_attempts": 2}
    )
    assert stats.error_kinds == {"rate_limit": len(_prompts())}
    assert all("rate limited (fake)" in row["error"] for row in rows.values())


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_switching_stream_on_re_asks_nothing(store, transport):
    """The request hash leaves ``stream`` out: an answer stored without it is not asked again with it."""
    with FakeOpenAIServer() as server:
        before = run_model(store, _spec(server.api_base, transport), _prompts())
        assert before.called == len(_prompts())
        server.reset_log()
        after = run_model(store, _spec(server.api_base, transport, stream=True), _prompts())
        assert server.entries() == [] and after.called == 0 and after.skipped == len(_prompts())


class _CutStreams(ThreadingHTTPServer):
    """A scripted server (no provider behind it) whose every chat answer is a stream cut short: the
    role chunk and two pieces, then either the connection closed mid-body (``clean=False``) or the
    body ended properly but without a finish_reason or ``[DONE]`` (``clean=True``)."""

    daemon_threads = True

    def __init__(self, clean: bool) -> None:
        super().__init__(("127.0.0.1", 0), _CutHandler)
        self.clean = clean
        self.sends = 0
        self.lock = threading.Lock()

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _CutHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _CutStreams

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silent."""

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        with self.server.lock:
            self.server.sends += 1
        answer = {
            "id": "chatcmpl-cut",
            "created": 1,
            "model": body["model"],
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "a b c d"}, "finish_reason": "stop"}
            ],
        }
        events = [event for event, _ in stream_events(answer, include_usage=False)][:3]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for event in events:
            data = b"data: " + json.dumps(event).encode() + b"\n\n"
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        if self.server.clean:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        self.close_connection = True


@pytest.mark.parametrize("clean", [False, True], ids=["connection_closed", "body_ended"])
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_stream_cut_short_is_a_malformed_reply(store, transport, clean):
    """A stream that ends before its finish_reason (the provider began answering, so it may have
    billed it) is ``malformed_reply``: sent twice at most though ``max_attempts`` is 3."""
    server = _CutStreams(clean)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        spec = _spec(server.api_base, transport, stream=True)
        stats = run_model(store, spec, _prompts(1), backoff_base_s=0.001)
    finally:
        server.shutdown()
        server.server_close()
    row = store.latest(MODEL)["p0"]
    assert stats.error_kinds == {"malformed_reply": 1}, row["error"]
    assert row["error"].startswith("malformed_reply: ") and "stream cut" in row["error"], row["error"]
    assert server.sends == row["attempts"] == sends_allowed("malformed_reply", 3) == 2
