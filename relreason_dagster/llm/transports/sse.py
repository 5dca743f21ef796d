"""A streamed chat completion (server-sent events) read back into the ``chat.completion`` it streams.

Why a module of its own: the direct transport reads a stream as it arrives (``stream: true`` on an
entry) but stores what a non-streamed call stores, so the events must become the very body
``replies.read_body`` reads: each choice's ``content``, its thinking (``reasoning_content``, or newer
vLLM's ``reasoning``, under the name it was streamed as), its ``finish_reason``, the ``usage`` of the
final chunk (``stream_options.include_usage``), the ``id``/``model``/``created``.  Pure: bytes in, a
dict out, so the tests feed it bytes cut anywhere.

A stream is complete when it sent ``data: [DONE]``, or when every choice it streamed has a
``finish_reason`` (a server that omits ``[DONE]``).  Anything short of that, a connection closed
mid-answer or a body that just ends, is :class:`~relreason_dagster.llm.provider_errors.MalformedReply`:
the provider began answering, so it may have billed the request, and a malformed reply is sent at
most twice (``provider_errors.RETRY_RULES``), not ``max_attempts`` times as a connection error that
nothing was answered to is.
"""

from __future__ import annotations

import json
from typing import Any

from relreason_dagster.llm.provider_errors import MalformedReply, ProviderError, status_error

DONE = "[DONE]"
# The message fields a delta's text pieces are joined into (thinking under the name it came as).
_TEXT_FIELDS = ("content", "reasoning_content", "reasoning")
# What of the first chunk that has it the assembled body keeps.
_HEAD_FIELDS = ("id", "created", "model", "system_fingerprint")


class _Choice:
    """One choice's pieces as they arrive."""

    __slots__ = ("finish_reason", "parts", "role")

    def __init__(self) -> None:
        self.parts: dict[str, list[str]] = {}
        self.role: str | None = None
        self.finish_reason: Any = None

    def message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": self.role or "assistant", "content": None}
        for name, parts in self.parts.items():
            message[name] = "".join(parts)
        return message


class EventStream:
    """Feed it a stream's bytes as they arrive (:meth:`feed`), then take the body (:meth:`body`)."""

    def __init__(self) -> None:
        self.done = False  # ``data: [DONE]`` seen
        self.events = 0  # JSON chunks read
        self._buffer = b""
        self._data: list[str] = []  # the ``data:`` lines of the event being read
        self._head: dict[str, Any] = {}
        self._choices: dict[int, _Choice] = {}
        self._usage: dict[str, Any] | None = None

    def feed(self, data: bytes) -> None:
        """Read what of ``data`` completes a line; keep the rest for the next feed."""
        buffer = self._buffer + data if self._buffer else data
        start = 0
        while not self.done:
            end = buffer.find(b"\n", start)
            if end < 0:
                break
            self._line(buffer[start:end])
            start = end + 1
        self._buffer = buffer[start:] if not self.done else b""

    def _line(self, raw: bytes) -> None:
        """One SSE line: ``data:`` is kept, a blank line ends the event, comments and other fields
        (``event:``, ``id:``, ``retry:``, a ``: keep-alive``) are skipped."""
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as exc:
            shown = raw[:200].decode("utf-8", "replace")
            raise MalformedReply(f"stream event that cannot be decoded ({exc.reason}): {shown!r}") from None
        if not line:
            self._dispatch()
        elif line.startswith("data:"):
            value = line[5:]
            self._data.append(value[1:] if value.startswith(" ") else value)

    def _dispatch(self) -> None:
        if not self._data:
            return
        data, self._data = "\n".join(self._data), []
        if data.strip() == DONE:
            self.done = True
            return
        try:
            chunk = json.loads(data)
        except ValueError:
            raise MalformedReply(f"stream event that is not JSON: {data[:200]!r}") from None
        if not isinstance(chunk, dict):
            raise MalformedReply(f"stream event that is not a JSON object: {data[:200]!r}")
        if chunk.get("error"):
            raise _error_event(chunk["error"], data)
        self.events += 1
        for name in _HEAD_FIELDS:
            if name not in self._head and chunk.get(name) is not None:
                self._head[name] = chunk[name]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage = usage  # the final chunk's (a server that sends it on every chunk: the last)
        choices = chunk.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, dict):
                continue
            index = choice.get("index")
            state = self._choices.setdefault(index if isinstance(index, int) else 0, _Choice())
            delta = choice.get("delta")
            if isinstance(delta, dict):
                if isinstance(delta.get("role"), str):
                    state.role = delta["role"]
                for name in _TEXT_FIELDS:
                    piece = delta.get(name)
                    if isinstance(piece, str):
                        state.parts.setdefault(name, []).append(piece)
            if choice.get("finish_reason") is not None:
                state.finish_reason = choice["finish_reason"]

    @property
    def complete(self) -> bool:
        """``[DONE]`` seen, or a ``finish_reason`` for every choice streamed."""
        if self.done:
            return True
        return bool(self._choices) and all(c.finish_reason is not None for c in self._choices.values())

    def body(self) -> dict[str, Any]:
        """The ``chat.completion`` the stream carried; :class:`MalformedReply` if it was cut short."""
        if self._buffer.strip() or self._data:
            self.feed(b"\n\n")  # a last event the server did not end with a blank line
        if not self.complete:
            raise MalformedReply(
                f"stream cut after {self.events} events, without [DONE] or a finish_reason "
                "(a 200 the provider began answering and may have billed)"
            )
        body: dict[str, Any] = {"object": "chat.completion", **self._head}
        body["choices"] = [
            {"index": index, "message": state.message(), "finish_reason": state.finish_reason}
            for index, state in sorted(self._choices.items())
        ]
        if self._usage is not None:
            body["usage"] = self._usage
        return body


def _error_event(error: Any, data: str) -> ProviderError:
    """An ``{"error": ...}`` event (vLLM, OpenAI and proxies send one when a stream fails mid-way): the
    kind its ``code`` names as an HTTP status would, else ``server_error``."""
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) and 400 <= code < 600 else 500
    found = status_error(status, json.dumps({"error": error}).encode("utf-8"), {})
    return ProviderError(found.kind, f"error event in the stream: {found}", found.status_code)
