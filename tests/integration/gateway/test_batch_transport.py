"""The batch transport through ``gateway.run_model`` against the fake provider's Batch API (issue 54).

The fake OpenAI server (tests/fakes/openai_server.py) is a scripted stand-in for a provider: it answers
batch lines with the same scripted answers it gives live calls, and a batch moves only when the test
says so (``batch_complete_after_retrieves``, ``advance_batch``, ``expire_batch``, ``complete_batch``),
so nothing here depends on the clock.  The request hash includes the ``api_base``, so a live run and a
batch run that must be interchangeable use servers on the same port.
"""

from __future__ import annotations

from typing import Any

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.transports.batch import batch_call_cost
from relreason_dagster.storage import batch_jobs
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer, prompt_key

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_TEST_BATCH_KEY"
KEY = "sk-batch-Hq2Lm9Xv4Pw7Rt1Yb3Nc"
# A model LiteLLM's cost map prices live and in batches (half), served by the fake.
MODEL = "openai/gpt-4o-mini"
# Fast polling and gathering for tests: intervals only, no assertion on how long anything takes.
KNOBS = {"batch_poll_s": 0.01, "batch_poll_cap_s": 0.05, "batch_gather_s": 0.05}


def _prompts(n: int = 5) -> list[dict[str, Any]]:
    return [
        {
            "prompt_id": f"p{i}",
            "messages": [{"role": "user", "content": f"Is statement {i} true?"}],
            "max_tokens": 16,
            "benchmark": "toy",
        }
        for i in range(n)
    ]


def _spec(api_base: str, transport: str = "batch", **kw: Any) -> ModelEntry:
    return ModelEntry(
        name="batched",
        litellm_model=MODEL,
        params={"temperature": 0},
        api_base=api_base,
        api_key_env=KEY_ENV,
        max_attempts=3,
        transport=transport,
        **kw,
    )


def _run(store: ResponseStore, spec: ModelEntry, prompts: list[dict[str, Any]], **knobs: Any):
    return run_model(store, spec, prompts, backoff_base_s=0.001, extra_kwargs={**KNOBS, **knobs})


def _stored(row: dict[str, Any]) -> tuple:
    return (
        row["request_hash"],
        row["content"],
        row["finish_reason"],
        row["prompt_tokens"],
        row["completion_tokens"],
        row["error"],
    )


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)


def test_one_job_holds_every_request_and_its_rows_are_a_live_runs(tmp_path):
    """(a) All requests in one job, no live call; stored rows equal a live run's; batch price; a
    second run makes no call and submits no job."""
    prompts = _prompts()
    live_store = ResponseStore(Lake.open(tmp_path / "live"))
    with FakeOpenAIServer() as live_server:
        live_stats = run_model(
            live_store, _spec(live_server.api_base, "litellm"), prompts, backoff_base_s=0.001
        )
        port = live_server.port
    assert live_stats.called == 5
    live_rows = live_store.latest("batched")

    store = ResponseStore(Lake.open(tmp_path / "batch"))
    with FakeOpenAIServer(port=port, batch_complete_after_retrieves=2) as server:
        spec = _spec(server.api_base)
        stats = _run(store, spec, prompts)
        assert server.live_chat_calls() == 0
        assert len(server.api_calls("batches.create")) == 1
        assert len(server.batch_lines()) == 5
        assert stats.called == 5 and stats.errors == 0 and stats.pending == 0
        rows = store.latest("batched")
        assert set(rows) == set(live_rows) == {p["prompt_id"] for p in prompts}
        for pid, row in rows.items():
            assert _stored(row) == _stored(live_rows[pid]), pid
            assert row["content"], pid
            expected = batch_call_cost(MODEL, row["prompt_tokens"], row["completion_tokens"])
            assert expected is not None and row["cost_usd"] == pytest.approx(expected)
            # The batch price is below the live one (gpt-4o-mini: half).
            assert row["cost_usd"] == pytest.approx(live_rows[pid]["cost_usd"] / 2)

        jobs = batch_jobs.jobs_of(store.lake, "batched", open_only=False)
        assert [j.state for j in jobs] == [batch_jobs.COLLECTED]
        assert sorted(jobs[0].custom_ids) == sorted(r["request_hash"] for r in rows.values())
        assert jobs[0].job_id == server.batch_ids()[0] and jobs[0].expected_cost_usd

        again = _run(store, spec, prompts)
        assert again.called == 0 and again.skipped == 5
        assert len(server.api_calls("batches.create")) == 1 and server.live_chat_calls() == 0
        assert store.count("batched") == 5


def test_a_job_left_running_is_collected_by_the_next_run(tmp_path):
    """(b) A ``--no-wait`` run submits and ends with its prompts pending (no rows, no errors); the next
    run finds the job in the home, collects it and submits nothing."""
    prompts = _prompts()
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    with FakeOpenAIServer() as server:
        first = _run(store, _spec(server.api_base, batch_wait=False), prompts)
        assert first.pending == 5 and first.errors == 0 and first.called == 0
        assert store.count("batched") == 0
        assert "5 prompts pending in batch jobs" in first.summary()
        (job,) = batch_jobs.jobs_of(store.lake, "batched")
        assert job.job_id == server.batch_ids()[0] and len(job.custom_ids) == 5
        assert batch_jobs.status_lines(store.lake)[1].startswith(
            f"  batched (openai) {job.job_id}: 5 requests"
        )

        server.complete_batch(job.job_id)  # the provider ran it meanwhile
        second = _run(store, _spec(server.api_base), prompts)
        assert second.called == 5 and second.errors == 0 and second.pending == 0
        assert server.batch_ids() == [job.job_id], "no new job"
        assert server.live_chat_calls() == 0
        assert store.count("batched") == 5
        assert [j.state for j in batch_jobs.jobs_of(store.lake, "batched", open_only=False)] == ["collected"]
        assert batch_jobs.jobs_of(store.lake, "batched") == []


def _failing_job(tmp_path, fallback: str):
    """A job of 10 lines in which 3 fail with a 500 (their first time) and 2 expire; then a waiting run."""
    prompts = _prompts(10)
    keys = [prompt_key(p["messages"]) for p in prompts]
    failing = set(keys[:3])
    seen: set[str] = set()

    def fault(custom_id: str, key: str) -> int | None:
        if key in failing and key not in seen:
            seen.add(key)
            return 500
        return None

    store = ResponseStore(Lake.open(tmp_path / "lake"))
    server = FakeOpenAIServer(batch_line_fault=fault, batch_complete_after_retrieves=2)
    server.start()
    _run(store, _spec(server.api_base, batch_wait=False), prompts)
    (first,) = server.batch_ids()
    server.advance_batch(first, 8)  # lines 0..7 run (3 of them fail), 8 and 9 never do
    server.expire_batch(first)
    stats = _run(store, _spec(server.api_base, batch_fallback=fallback), prompts)
    return server, store, stats, prompts, keys, first


def test_failed_and_expired_lines_are_asked_again_and_answered_once(tmp_path):
    """(c) 3 failed and 2 expired lines go into the next job; every prompt is answered exactly once."""
    server, store, stats, prompts, keys, first = _failing_job(tmp_path, "batch")
    try:
        assert stats.errors == 0 and stats.pending == 0 and stats.called == 10
        ids = server.batch_ids()
        assert len(ids) == 2 and ids[0] == first
        again = {line.key for line in server.batch_lines() if line.batch_id == ids[1]}
        assert again == set(keys[:3]) | set(keys[8:])
        assert server.live_chat_calls() == 0
        rows = store.latest("batched")
        assert store.count("batched") == 10 and all(
            r["error"] is None and r["content"] for r in rows.values()
        )
        answered = [line.key for line in server.batch_lines() if line.outcome != "failed"]
        assert sorted(answered) == sorted(keys), "each prompt answered once by the provider"
    finally:
        server.stop()


def test_the_live_fallback_asks_failed_and_expired_lines_live(tmp_path):
    """``batch_fallback: live``: the same 5 lines are asked as live calls, no second job."""
    server, store, stats, prompts, keys, first = _failing_job(tmp_path, "live")
    try:
        assert server.batch_ids() == [first]
        assert server.live_chat_calls() == 5
        assert sorted(e.key for e in server.entries()) == sorted(keys[:3] + keys[8:])
        assert store.count("batched") == 10 and stats.errors == 0
        rows = store.latest("batched")
        live_ids = {p["prompt_id"] for p in prompts[:3] + prompts[8:]}
        for pid, row in rows.items():
            price = batch_call_cost(MODEL, row["prompt_tokens"], row["completion_tokens"])
            if pid in live_ids:
                assert row["cost_usd"] == pytest.approx(2 * price), pid  # a live call, at the live price
            else:
                assert row["cost_usd"] == pytest.approx(price), pid
    finally:
        server.stop()


def test_a_400_line_is_stored_as_a_live_400_is_and_requests_split_at_the_line_limit(tmp_path):
    """A line failing with a non-retryable 400 becomes the same error row as a live call's; a run over
    the provider's line limit is split into several jobs (``batch_max_lines``, the fake's limit)."""
    prompts = _prompts(7)
    bad = prompt_key(prompts[0]["messages"])
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    with FakeOpenAIServer(
        batch_line_fault=lambda _cid, key: 400 if key == bad else None,
        batch_complete_after_retrieves=2,
        batch_max_lines=3,
    ) as server:
        stats = _run(store, _spec(server.api_base), prompts, batch_max_lines=3)
        assert len(server.batch_ids()) == 3  # 3 + 3 + 1 lines
        assert stats.errors == 1 and stats.error_kinds == {"bad_request": 1}
        rows = store.latest("batched")
        assert rows["p0"]["error"].startswith("bad_request") and rows["p0"]["attempts"] == 1
        assert sum(1 for line in server.batch_lines() if line.key == bad) == 1, "a 400 is not asked again"
        assert server.live_chat_calls() == 0


def test_an_entry_that_cannot_batch_is_refused_with_the_providers_named():
    spec = _spec("http://127.0.0.1:9").model_copy(update={"litellm_model": "hosted_vllm/x"})
    with pytest.raises(ValueError, match="batch jobs need one of openai"):
        run_model(ResponseStore(Lake.open("memory://nowhere")), spec, _prompts(1), key_checked=True)
