"""The fake OpenAI server's streamed chat completions and slow answers (issue 54, item 4).

A stall timeout can only be tested against a server that streams as a provider does: server-sent
``chat.completion.chunk`` events with ``delta`` pieces, a ``usage`` chunk when
``stream_options.include_usage`` is set, ``data: [DONE]``, and a pace and a stall the test sets.  The
fake (tests/fakes/openai_server.py, a scripted stand-in for a provider) is read here with plain
aiohttp, as a direct transport would, and once through LiteLLM so the shape is one it accepts.
Streams are checked by content and order; the only clocks are bounded waits (a stall is a read that
does not return within a bound, however slow the machine).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import aiohttp
import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402

from tests.fakes.openai_server import FakeOpenAIServer, default_answer, stream_events  # noqa: E402

pytestmark = pytest.mark.integration

MODEL = "fake-stream"
MESSAGES = [{"role": "user", "content": "Is the statement true? Think it over."}]
# Far above anything the fake takes to send its next piece: only a stall reaches it.
READ_BOUND_S = 60.0
# How long a stalled stream is watched for one more byte.
STALL_WATCH_S = 1.0


async def _post(
    session: aiohttp.ClientSession, server: FakeOpenAIServer, **body: Any
) -> aiohttp.ClientResponse:
    payload = {"model": MODEL, "messages": MESSAGES, **body}
    return await session.post(f"{server.api_base}/chat/completions", json=payload)


async def _events(response: aiohttp.ClientResponse) -> list[Any]:
    """The ``data:`` payloads of a server-sent event stream, decoded (``"[DONE]"`` kept as a string)."""
    events: list[Any] = []
    async for raw in response.content:
        line = raw.decode("utf-8").strip()
        if line.startswith("data: "):
            data = line.removeprefix("data: ")
            events.append(data if data == "[DONE]" else json.loads(data))
    return events


def _joined(events: list[Any], field: str) -> str:
    return "".join(
        choice["delta"].get(field) or ""
        for event in events
        if isinstance(event, dict)
        for choice in event["choices"]
    )


def test_a_stream_is_the_live_answer_in_pieces_with_usage_last() -> None:
    """``stream: true`` with ``include_usage``: a role chunk, word pieces that join to the non-streamed
    answer (thinking first, in ``reasoning_content``), a finish chunk, a usage chunk with no choices,
    ``[DONE]``; the log marks the call as streamed."""

    async def scenario() -> None:
        with (
            FakeOpenAIServer(reasoning={MODEL: "field"}) as plain,
            FakeOpenAIServer(reasoning={MODEL: "field"}) as sse,
        ):
            timeout = aiohttp.ClientTimeout(total=READ_BOUND_S)
            async with aiohttp.ClientSession(timeout=timeout) as session:
                whole = await (await _post(session, plain)).json()
                response = await _post(session, sse, stream=True, stream_options={"include_usage": True})
                assert response.status == 200
                assert response.headers["Content-Type"].startswith("text/event-stream")
                events = await _events(response)
        assert events[-1] == "[DONE]"
        chunks = events[:-1]
        assert all(c["object"] == "chat.completion.chunk" and c["id"] == whole["id"] for c in chunks)
        assert chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
        message = whole["choices"][0]["message"]
        assert _joined(chunks, "content") == message["content"] == default_answer(MESSAGES)
        assert _joined(chunks, "reasoning_content") == message["reasoning_content"]
        kinds = [next(iter(c["choices"][0]["delta"]), None) for c in chunks[1:-2]]
        assert kinds == sorted(kinds, key=lambda kind: kind != "reasoning_content"), "thinking streams first"
        assert len(kinds) == len(message["content"].split()) + len(message["reasoning_content"].split())
        assert chunks[-2]["choices"][0]["finish_reason"] == "stop" and chunks[-2]["choices"][0]["delta"] == {}
        assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == whole["usage"]
        assert all(c["usage"] is None for c in chunks[:-1])
        assert [(e.stream, e.status) for e in sse.entries()] == [(True, 200)]
        assert [(e.stream, e.status) for e in plain.entries()] == [(False, 200)]
        assert sse.live_chat_calls() == 1

    asyncio.run(scenario())


def test_without_include_usage_no_usage_chunk_is_sent() -> None:
    async def scenario() -> list[Any]:
        with FakeOpenAIServer() as server:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=READ_BOUND_S)) as session:
                return await _events(await _post(session, server, stream=True))

    events = asyncio.run(scenario())
    assert events[-1] == "[DONE]" and all("usage" not in e for e in events[:-1])
    assert events[-2]["choices"][0]["finish_reason"] == "stop"


def test_a_paced_stream_sends_every_piece_in_order() -> None:
    """``stream_pace_s`` and ``stream_pieces``: the answer in exactly N pieces, in order, each read well
    within the bound (a slow-thinking stream that a stall timeout above the pace must not end)."""

    async def scenario() -> list[Any]:
        with FakeOpenAIServer(stream_pace_s=0.2, stream_pieces=5) as server:
            timeout = aiohttp.ClientTimeout(total=READ_BOUND_S, sock_read=READ_BOUND_S)
            async with aiohttp.ClientSession(timeout=timeout) as session:
                return await _events(await _post(session, server, stream=True))

    events = asyncio.run(scenario())
    pieces = [e["choices"][0]["delta"]["content"] for e in events[1:-2]]
    assert len(pieces) == 5 and "".join(pieces) == default_answer(MESSAGES)


def test_a_stalled_stream_sends_nothing_more_and_the_retry_streams_whole() -> None:
    """``stream_stall``: attempt 1 stops after 2 pieces and holds the connection (no byte within the
    watch), attempt 2 of the same prompt streams the whole answer."""

    async def scenario() -> tuple[list[str], list[Any]]:
        stall = {1: 2}
        with FakeOpenAIServer(stream_stall=lambda key, attempt: stall.get(attempt)) as server:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=READ_BOUND_S)) as session:
                first = await _post(session, server, stream=True)
                got: list[str] = []
                while len(got) < 3:  # the role chunk and two pieces
                    line = (await first.content.readline()).decode().strip()
                    if line.startswith("data: "):
                        got.append(line)
                with pytest.raises(asyncio.TimeoutError):
                    while True:  # blank separators may still come; a data line must not
                        line = (await asyncio.wait_for(first.content.readline(), STALL_WATCH_S)).decode()
                        assert not line.startswith("data: "), f"a stalled stream sent {line!r}"
                first.close()
                second = await _events(await _post(session, server, stream=True))
            assert [e.attempt for e in server.entries()] == [1, 2]
            return got, second

    got, second = asyncio.run(scenario())
    pieces = [json.loads(line.removeprefix("data: "))["choices"][0]["delta"]["content"] for line in got[1:]]
    words = [w + " " for w in default_answer(MESSAGES).split(" ")]
    assert pieces == words[:2]
    assert _joined(second[:-1], "content") == default_answer(MESSAGES)


def test_a_fault_on_a_stream_is_a_plain_json_error() -> None:
    """A scripted 429 on a streamed request is answered as OpenAI does before a stream starts: status
    and JSON error body with ``Retry-After``, no event stream."""

    async def scenario() -> tuple[int, str, dict[str, Any]]:
        with FakeOpenAIServer(faults=lambda key, attempt: 429) as server:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=READ_BOUND_S)) as session:
                response = await _post(session, server, stream=True)
                return response.status, response.headers["Retry-After"], await response.json()

    status, retry_after, body = asyncio.run(scenario())
    assert (status, retry_after, body["error"]["type"]) == (429, "1", "rate_limit_error")


def test_litellm_reads_the_stream_and_its_usage() -> None:
    """LiteLLM's own streaming client accepts the fake's events: the same text and usage."""

    async def scenario() -> tuple[str, Any]:
        with FakeOpenAIServer() as server:
            stream = await litellm.acompletion(
                model=f"openai/{MODEL}",
                messages=MESSAGES,
                api_base=server.api_base,
                api_key="sk-fake",
                stream=True,
                stream_options={"include_usage": True},
            )
            text, usage = "", None
            async for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    text += chunk.choices[0].delta.content
                usage = getattr(chunk, "usage", None) or usage
            return text, usage

    text, usage = asyncio.run(scenario())
    assert text == default_answer(MESSAGES)
    assert usage is not None and usage.completion_tokens == len(text.split())


def test_stream_events_of_two_choices_keep_their_index() -> None:
    """``n`` > 1 streams each choice under its own index, each joining to its own text."""
    with FakeOpenAIServer() as server:
        completion = server.completion({"model": MODEL, "n": 2}, MESSAGES, "k", 1)
    events = [event for event, _ in stream_events(completion, include_usage=False)]
    for index in (0, 1):
        text = "".join(
            c["delta"].get("content") or "" for e in events for c in e["choices"] if c["index"] == index
        )
        assert text == completion["choices"][index]["message"]["content"]


def test_a_slow_answer_outlasts_a_short_client_timeout() -> None:
    """``delay_s`` holds each answer (here 5 s): a client giving up after 0.5 s times out, and the
    server logged the request as sent (it is the provider that would bill it)."""

    async def scenario() -> None:
        with FakeOpenAIServer(delay_s=5.0) as server:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=0.5)) as session:
                with pytest.raises(asyncio.TimeoutError):
                    await (await _post(session, server)).json()
            assert [(e.status, e.stream) for e in server.entries()] == [(200, False)]

    asyncio.run(scenario())
