"""The fake OpenAI server's Batch API, driven by LiteLLM's real batch calls (issue 54, item 4).

The fake (tests/fakes/openai_server.py, a scripted stand-in for a provider) must serve the files and
batches endpoints in the shapes LiteLLM 1.110 accepts for an ``openai/...`` model with an
``api_base`` (``acreate_file`` / ``acreate_batch`` / ``aretrieve_batch`` / ``afile_content`` /
``acancel_batch``, through the OpenAI SDK), or a batch transport tested against it would prove
nothing.  Every test here goes through those calls, not through the fake's Python API, except where
the test plays the provider's clock (``complete_batch``, ``advance_batch``, ``expire_batch``).
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402

from tests.fakes.openai_server import FakeOpenAIServer, default_answer, prompt_key  # noqa: E402

pytestmark = pytest.mark.integration

MODEL = "fake-batch"
KEY = "sk-fake-batch-key"


def _messages(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"Is statement {i} true?"}]


def _line(custom_id: str, i: int, **params: Any) -> dict[str, Any]:
    body = {"model": MODEL, "messages": _messages(i), **params}
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}


def _jsonl(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8")


def _kw(server: FakeOpenAIServer) -> dict[str, Any]:
    return {"custom_llm_provider": "openai", "api_base": server.api_base, "api_key": KEY}


async def _submit(server: FakeOpenAIServer, lines: list[dict[str, Any]]) -> tuple[Any, Any]:
    """Upload ``lines`` and create a batch of them, as a batch transport would."""
    data = _jsonl(lines)
    uploaded = await litellm.acreate_file(file=("requests.jsonl", data), purpose="batch", **_kw(server))
    batch = await litellm.acreate_batch(
        completion_window="24h",
        endpoint="/v1/chat/completions",
        input_file_id=uploaded.id,
        metadata={"run": "test"},
        **_kw(server),
    )
    return uploaded, batch


def _counts(batch: Any) -> tuple[int, int, int]:
    """A batch's ``request_counts`` as (total, completed, failed)."""
    return batch.request_counts.total, batch.request_counts.completed, batch.request_counts.failed


async def _records(server: FakeOpenAIServer, file_id: str | None) -> dict[str, dict[str, Any]]:
    """A batch output or error file, by ``custom_id`` (an empty dict for no file)."""
    if file_id is None:
        return {}
    content = await litellm.afile_content(file_id=file_id, **_kw(server))
    records = [json.loads(line) for line in content.content.decode("utf-8").splitlines()]
    by_id = {record["custom_id"]: record for record in records}
    assert len(by_id) == len(records), "one line per request"
    return by_id


def test_batch_is_answered_as_live_calls_are_and_makes_no_live_call() -> None:
    """Upload, create (validating), retrieve (in_progress), complete, retrieve (completed), read the
    output file: one line per request keyed by custom_id, each answer the one a live call gets."""
    reasoning = {MODEL: "field"}

    async def scenario() -> None:
        with FakeOpenAIServer(reasoning=reasoning) as server:
            lines = [_line(f"req-{i}", i, temperature=0) for i in range(5)]
            uploaded, batch = await _submit(server, lines)
            assert uploaded.purpose == "batch" and uploaded.bytes == len(_jsonl(lines))
            assert batch.status == "validating" and batch.input_file_id == uploaded.id
            assert batch.endpoint == "/v1/chat/completions" and batch.completion_window == "24h"
            assert batch.metadata == {"run": "test"}

            first = await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))
            assert first.status == "in_progress" and first.output_file_id is None
            server.complete_batch(batch.id)
            done = await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))
            assert done.status == "completed" and done.error_file_id is None
            assert _counts(done) == (5, 5, 0)
            assert done.completed_at is not None and done.in_progress_at is not None

            output = await _records(server, done.output_file_id)
            assert set(output) == {f"req-{i}" for i in range(5)}
            input_back = await litellm.afile_content(file_id=uploaded.id, **_kw(server))
            assert input_back.content == _jsonl(lines), "file content is the upload, byte for byte"

            # No chat call reached the server: the batch is all submissions and reads.
            assert server.live_chat_calls() == 0 and server.entries() == []
            kinds = [call.kind for call in server.api_calls()]
            assert kinds[:2] == ["files.create", "batches.create"] and kinds.count("batches.create") == 1
            assert {line.custom_id for line in server.batch_lines()} == set(output)
            assert all(line.params == {"temperature": 0} for line in server.batch_lines())

        with FakeOpenAIServer(reasoning=reasoning) as live:
            for i in range(5):
                reply = await litellm.acompletion(
                    model=f"openai/{MODEL}", messages=_messages(i), temperature=0, **_kw(live)
                )
                record = output[f"req-{i}"]
                assert record["error"] is None and record["id"].startswith("batch_req_")
                assert record["response"]["status_code"] == 200
                body = record["response"]["body"]
                assert body["object"] == "chat.completion" and body["id"] == reply.id
                message = body["choices"][0]["message"]
                assert message["content"] == reply.choices[0].message.content == default_answer(_messages(i))
                assert message["reasoning_content"] == reply.choices[0].message.reasoning_content
                assert body["usage"]["completion_tokens"] == reply.usage.completion_tokens
                assert body["usage"]["prompt_tokens"] == reply.usage.prompt_tokens

    asyncio.run(scenario())


def test_a_batch_completes_by_itself_at_the_nth_retrieve() -> None:
    """``batch_complete_after_retrieves=3``: retrieves 1 and 2 find it in progress, the 3rd completed."""

    async def scenario() -> list[str]:
        with FakeOpenAIServer(batch_complete_after_retrieves=3) as server:
            _, batch = await _submit(server, [_line("a", 1), _line("b", 2)])
            return [(await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))).status for _ in "1234"]

    assert asyncio.run(scenario()) == ["in_progress", "in_progress", "completed", "completed"]


def test_failed_and_expired_lines_go_to_the_error_file() -> None:
    """Lines the test marks as failed carry the provider's HTTP error; lines not run when the window
    ends are ``batch_expired``; answered lines are in the output file, and each request is in exactly
    one of the two files."""
    fail = {"req-1": 500, "req-2": 429, "req-3": 400}

    async def scenario() -> None:
        with FakeOpenAIServer(batch_line_fault=lambda custom_id, key: fail.get(custom_id)) as server:
            lines = [_line(f"req-{i}", i) for i in range(10)]
            _, batch = await _submit(server, lines)
            server.advance_batch(batch.id, 7)  # req-0 .. req-6 run; req-7 .. req-9 never do
            partial = await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))
            assert partial.status == "in_progress" and partial.request_counts.completed == 4
            server.expire_batch(batch.id)
            ended = await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))
            assert ended.status == "expired" and ended.expired_at is not None
            assert _counts(ended) == (10, 4, 6)
            output = await _records(server, ended.output_file_id)
            errors = await _records(server, ended.error_file_id)
            assert set(output) == {"req-0", "req-4", "req-5", "req-6"}
            assert set(errors) == {"req-1", "req-2", "req-3", "req-7", "req-8", "req-9"}
            for custom_id, status in fail.items():
                record = errors[custom_id]
                assert record["error"] is None and record["response"]["status_code"] == status
                assert record["response"]["body"]["error"]["message"]
            for custom_id in ("req-7", "req-8", "req-9"):
                assert errors[custom_id]["response"] is None
                assert errors[custom_id]["error"]["code"] == "batch_expired"
            # The server's own log: 7 lines ran (4 answered, 3 failed), keyed by prompt as live calls are.
            ran = server.batch_lines()
            assert [line.outcome for line in ran].count("failed") == 3 and len(ran) == 7
            assert {line.key for line in ran} == {prompt_key(_messages(i)) for i in range(7)}
            assert server.live_chat_calls() == 0

    asyncio.run(scenario())


def test_cancel_ends_the_batch_and_lines_not_run_are_cancelled() -> None:
    """``acancel_batch``: ``cancelling`` at once, ``cancelled`` at the next retrieve, answered lines
    kept, the rest ``batch_cancelled``; cancelling an ended batch is refused (400, not retried by the SDK)."""

    async def scenario() -> None:
        with FakeOpenAIServer() as server:
            _, batch = await _submit(server, [_line(f"req-{i}", i) for i in range(4)])
            await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))
            server.advance_batch(batch.id, 1)
            cancelling = await litellm.acancel_batch(batch_id=batch.id, **_kw(server))
            assert cancelling.status == "cancelling" and cancelling.cancelling_at is not None
            cancelled = await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))
            assert cancelled.status == "cancelled" and cancelled.cancelled_at is not None
            assert set(await _records(server, cancelled.output_file_id)) == {"req-0"}
            errors = await _records(server, cancelled.error_file_id)
            assert {cid: r["error"]["code"] for cid, r in errors.items()} == {
                f"req-{i}": "batch_cancelled" for i in (1, 2, 3)
            }
            with pytest.raises(Exception, match="Cannot cancel a batch with status 'cancelled'") as refused:
                await litellm.acancel_batch(batch_id=batch.id, **_kw(server))
            assert getattr(refused.value, "status_code", None) == 400
            assert [c.status for c in server.api_calls("batches.cancel")] == [200, 400]

    asyncio.run(scenario())


def test_an_invalid_input_file_fails_validation_as_openai_reports_it() -> None:
    """A duplicate custom_id, a line for another url, a line that is not JSON and two models: the batch
    is created, then found ``failed`` with one ``errors.data`` entry per problem; nothing is run."""
    good = [_line("a", 1), _line("a", 2), {**_line("b", 3), "url": "/v1/embeddings"}, _line("c", 4)]
    good[3]["body"]["model"] = "another-model"
    data = _jsonl(good) + b"{not json\n"

    async def scenario() -> None:
        with FakeOpenAIServer() as server:
            uploaded = await litellm.acreate_file(file=("bad.jsonl", data), purpose="batch", **_kw(server))
            endpoint = "/v1/chat/completions"
            batch = await litellm.acreate_batch(
                completion_window="24h", endpoint=endpoint, input_file_id=uploaded.id, **_kw(server)
            )
            assert batch.status == "validating"
            failed = await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))
            assert failed.status == "failed" and failed.failed_at is not None
            found = sorted((e.code, e.line) for e in failed.errors.data)
            expected = [("duplicate_custom_id", 2), ("url_mismatch", 3), ("invalid_json_line", 5)]
            assert found == sorted([*expected, ("model_mismatch", None)])
            assert failed.output_file_id is None and failed.error_file_id is None
            assert server.batch_lines() == []
            with pytest.raises(Exception, match="No such File object: file-missing"):
                await litellm.acreate_batch(
                    completion_window="24h",
                    endpoint="/v1/chat/completions",
                    input_file_id="file-missing",
                    **_kw(server),
                )

    asyncio.run(scenario())


def test_limits_and_output_order_are_the_tests_to_set() -> None:
    """A batch over ``batch_max_lines`` fails ``too_many_tasks``, an upload over ``batch_max_bytes`` is
    refused, and ``batch_reverse_output`` writes results out of input order (keyed by custom_id)."""

    async def scenario() -> None:
        with FakeOpenAIServer(batch_max_lines=3, batch_max_bytes=2000, batch_reverse_output=True) as server:
            _, too_many = await _submit(server, [_line(f"r{i}", i) for i in range(4)])
            failed = await litellm.aretrieve_batch(batch_id=too_many.id, **_kw(server))
            assert failed.status == "failed" and [e.code for e in failed.errors.data] == ["too_many_tasks"]
            big = _jsonl([_line(f"r{i}", i, stop=["x" * 100]) for i in range(3)] * 4)
            with pytest.raises(Exception, match="File is too large"):
                await litellm.acreate_file(file=("big.jsonl", big), purpose="batch", **_kw(server))
            _, batch = await _submit(server, [_line(f"r{i}", i) for i in range(3)])
            server.complete_batch(batch.id)
            done = await litellm.aretrieve_batch(batch_id=batch.id, **_kw(server))
            content = await litellm.afile_content(file_id=done.output_file_id, **_kw(server))
            order = [json.loads(line)["custom_id"] for line in content.content.decode().splitlines()]
            assert order == ["r2", "r1", "r0"]

    asyncio.run(scenario())
