"""``stream: true`` on a model entry, the parts that need no server: the entry's fields and their checks,
the request hash (which leaves ``stream`` out), what each transport puts on the wire, and reading a
server-sent event stream back into the ``chat.completion`` it carries (``llm/transports/sse.py``).

Against the fake OpenAI server, both transports: ``tests/integration/gateway/test_streaming_entries.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.draw_plan import Work
from relreason_dagster.llm.provider_errors import MalformedReply, ProviderError, error_kind
from relreason_dagster.llm.registry import STREAM_TIMEOUT_S, ModelEntry, parse_registry, resolve_model
from relreason_dagster.llm.replies import read_body
from relreason_dagster.llm.request_key import request_hash
from relreason_dagster.llm.transports.direct import DirectTransport
from relreason_dagster.llm.transports.litellm import LiteLLMTransport
from relreason_dagster.llm.transports.sse import EventStream
from tests.fakes.openai_server import FakeOpenAIServer, stream_events

BASE = "http://127.0.0.1:8000/v1"
MESSAGES = [{"role": "user", "content": "Is the statement true?"}]


def _registry(**kw: Any) -> dict[str, Any]:
    return {"models": [{"name": "m", "litellm_model": "openai/x", "api_base": BASE, **kw}]}


def _spec(**kw: Any) -> ModelEntry:
    return parse_registry(_registry(**kw), "models.yaml")["m"]


def test_stream_is_an_entry_field_with_a_stall_timeout_and_a_longer_default_ceiling():
    plain = _spec()
    assert (plain.stream, plain.stall_timeout_s, plain.timeout_s) == (False, 60.0, 120.0)
    streamed = _spec(stream=True)
    assert (streamed.stream, streamed.timeout_s) == (True, STREAM_TIMEOUT_S)
    # An entry's own ceiling is kept, short or long; the stall timeout is the entry's when it names one.
    assert _spec(stream=True, timeout_s=30, stall_timeout_s=2).timeout_s == 30
    assert _spec(stream=True, stall_timeout_s=2.5).stall_timeout_s == 2.5
    assert _spec(timeout_s=30).timeout_s == 30


@pytest.mark.parametrize(
    "entry,message",
    [
        (
            {"params": {"stream": True}},
            r"models\[0\]\.params\.stream: not allowed in params; set the "
            r"entry's stream: true instead",
        ),
        ({"stream": "yes"}, r"models\[0\]\.stream: expected true or false, got 'yes'"),
        ({"stall_timeout_s": 0}, r"models\[0\]\.stall_timeout_s: expected a positive number of seconds"),
        ({"stall_timeout_s": -1.5}, r"models\[0\]\.stall_timeout_s: expected a positive number of seconds"),
    ],
)
def test_a_bad_stream_setting_is_one_line(entry, message):
    with pytest.raises(ConfigError, match=message):
        parse_registry(_registry(**entry), "models.yaml")


def test_a_local_model_does_not_stream():
    data = {"models": [{"name": "m", "litellm_model": "local/some.gguf", "stream": True}]}
    with pytest.raises(ConfigError, match=r"models\[0\]\.stream: a local model answers in this process"):
        parse_registry(data, "models.yaml")


def test_stream_can_be_switched_on_from_the_command_line(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text(f"models:\n  - name: m\n    litellm_model: openai/x\n    api_base: {BASE}\n")
    spec = resolve_model(path, "m", {"stream": True, "stall_timeout_s": 5})
    assert (spec.stream, spec.stall_timeout_s) == (True, 5)
    with pytest.raises(ConfigError, match=r"-M stream: expected true or false"):
        resolve_model(path, "m", {"stream": "sometimes"})


def test_the_request_hash_leaves_stream_out():
    """A streamed and a non-streamed answer to one request are the same answer: one hash, so a stored
    answer is not asked again when ``stream`` is switched on (nor the timeouts changed)."""
    plain = _spec()
    streamed = _spec(stream=True, stall_timeout_s=3, timeout_s=900)
    for sample in (0, 2):
        assert request_hash(plain, MESSAGES, 64, sample_index=sample) == request_hash(
            streamed, MESSAGES, 64, sample_index=sample
        )
    # ... and the hash still tells requests apart (a changed param is another request).
    assert request_hash(plain, MESSAGES, 64) != request_hash(_spec(params={"temperature": 0.5}), MESSAGES, 64)


def _work(spec: ModelEntry) -> Work:
    return Work(request_hash(spec, MESSAGES, 16), MESSAGES, {"max_tokens": 16}, ["p0"])


def test_the_direct_transport_asks_for_a_stream_with_usage_only_when_the_entry_streams():
    for stream in (False, True):
        spec = _spec(stream=stream)
        transport = DirectTransport(spec, None)
        body = json.loads(transport.request(_work(spec), 1))
        assert ("stream" in body, "stream_options" in body) == (stream, stream)
        if stream:
            assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
        # The non-streamed send is the class's own method, untouched; the streamed one is chosen once.
        assert (transport.send.__func__ is DirectTransport.send) is not stream


def test_the_litellm_transport_asks_for_a_stream_with_usage_only_when_the_entry_streams(monkeypatch):
    monkeypatch.setattr(LiteLLMTransport, "quiet_kwargs", {})
    for stream in (False, True):
        spec = _spec(stream=stream, transport="litellm")
        kwargs = LiteLLMTransport(spec, None).request(_work(spec), 1)
        assert kwargs.get("stream") is (True if stream else None)
        assert kwargs.get("stream_options") == ({"include_usage": True} if stream else None)


def _completion(**server_kw: Any) -> dict[str, Any]:
    with FakeOpenAIServer(**server_kw) as server:
        return server.completion({"model": "fake", "n": 2}, MESSAGES, "k", 1)


def _sse(completion: dict[str, Any], include_usage: bool = True) -> bytes:
    events = [event for event, _ in stream_events(completion, include_usage)]
    # UTF-8 as servers send it (not \u escapes), so a cut can fall inside a character.
    lines = [b"data: " + json.dumps(event, ensure_ascii=False).encode("utf-8") + b"\n\n" for event in events]
    return b"".join(lines) + b"data: [DONE]\n\n"


def test_a_stream_read_in_any_pieces_is_the_completion_it_streams():
    """Cut anywhere (even inside a multi-byte character), the events make the body the non-streamed
    call gets: each choice's text and thinking, finish_reason, usage, id and model."""
    completion = _completion(reasoning={"*": "field"}, responder=lambda m: "réponse: vrai — true")
    data = _sse(completion)
    expected = read_body(completion, 0.0, 1)
    inside = {i for i, byte in enumerate(data) if byte >= 0x80}  # every cut within a character
    assert inside
    for cut in sorted(inside | set(range(0, len(data) + 1, 97))):
        events = EventStream()
        events.feed(data[:cut])
        events.feed(data[cut:])
        body = events.body()
        assert body["choices"] == completion["choices"]
        assert (body["usage"], body["id"], body["model"]) == (completion["usage"], completion["id"], "fake")
    assert read_body(body, 0.0, 1) == expected


def test_keep_alive_comments_crlf_and_a_missing_done_are_read():
    completion = _completion()
    events = [event for event, _ in stream_events(completion, include_usage=True)]
    data = b": keep-alive\r\n\r\n" + b"".join(
        b"event: message\r\ndata: " + json.dumps(e).encode() + b"\r\n\r\n" for e in events
    )
    stream = EventStream()
    stream.feed(data)  # no [DONE]: every choice's finish_reason makes it complete
    assert stream.body()["choices"] == completion["choices"]


def test_a_stream_without_usage_has_no_counts():
    body = EventStream()
    body.feed(_sse(_completion(), include_usage=False))
    outcome = read_body(body.body(), 0.0, 1)
    assert outcome.content and outcome.prompt_tokens is None and outcome.completion_tokens is None


def test_a_stream_cut_short_is_malformed():
    data = _sse(_completion())
    cut = data[: data.index(b'"finish_reason": "stop"')]
    stream = EventStream()
    stream.feed(cut[: cut.rindex(b"\n\n") + 2])
    with pytest.raises(MalformedReply, match=r"stream cut after \d+ events, without \[DONE\]"):
        stream.body()


@pytest.mark.parametrize(
    "error,kind",
    [({"message": "slow down", "code": 429}, "rate_limit"), ({"message": "engine died"}, "server_error")],
)
def test_an_error_event_is_a_provider_error(error, kind):
    stream = EventStream()
    with pytest.raises(ProviderError) as raised:
        stream.feed(b"data: " + json.dumps({"error": error}).encode() + b"\n\n")
    assert error_kind(raised.value) == kind and error["message"] in str(raised.value)


def test_an_event_that_is_not_json_is_malformed():
    with pytest.raises(MalformedReply, match="stream event that is not JSON"):
        EventStream().feed(b"data: <html>\n\n")
