"""The gateway switches off LiteLLM work relreason does not use, and only that.

Why these tests: the savings rest on two behaviours of the installed LiteLLM
(a registered price short-cuts its cost lookup; a call with ``fallbacks`` set
schedules no success-logging task).  An upgrade that changes either must fail
here, not silently bring the cost back or, worse, drop a user's callbacks.
"""

from __future__ import annotations

import asyncio
from typing import Any

import litellm
import pytest
from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

from relreason_dagster.llm import litellm_overhead


def test_unknown_model_is_priced_at_zero_once():
    model = "openai/relreason-test-unpriced-model"
    with pytest.raises(Exception):  # noqa: B017 - LiteLLM's "not mapped" error has no public class
        litellm.get_model_info(model=model)
    assert litellm_overhead.price_unknown_model_at_zero(model) is True
    info = litellm.get_model_info(model=model)
    assert info["input_cost_per_token"] == 0.0 and info["output_cost_per_token"] == 0.0
    assert litellm_overhead.price_unknown_model_at_zero(model) is False  # once per process


def test_known_model_keeps_its_price():
    model = "gpt-4o-mini"
    before = litellm.get_model_info(model=model)["input_cost_per_token"]
    assert before > 0
    assert litellm_overhead.price_unknown_model_at_zero(model) is False
    assert litellm.get_model_info(model=model)["input_cost_per_token"] == before


def test_quiet_kwargs_only_without_success_callbacks(monkeypatch):
    monkeypatch.setattr(litellm, "callbacks", [])
    monkeypatch.setattr(litellm, "success_callback", [])
    monkeypatch.setattr(litellm, "_async_success_callback", [])
    assert litellm_overhead.quiet_kwargs() == {"fallbacks": []}
    monkeypatch.setattr(litellm, "success_callback", ["langfuse"])
    assert litellm_overhead.quiet_kwargs() == {}


def _success_logs_enqueued(monkeypatch, **extra: Any) -> tuple[str, int]:
    """Content of one mocked ``acompletion`` and how many success-logging coroutines LiteLLM enqueued."""
    enqueued: list[Any] = []

    def record(async_coroutine: Any) -> None:
        enqueued.append(async_coroutine)
        async_coroutine.close()  # never run: only the count matters

    monkeypatch.setattr(GLOBAL_LOGGING_WORKER, "ensure_initialized_and_enqueue", record)

    async def call() -> str:
        response = await litellm.acompletion(
            model="openai/relreason-test-quiet",
            messages=[{"role": "user", "content": "hi"}],
            mock_response="hello",
            num_retries=0,
            **extra,
        )
        for _ in range(20):  # the enqueue happens in a task LiteLLM spawns after returning
            await asyncio.sleep(0.005)
        return response.choices[0].message.content

    return asyncio.run(call()), len(enqueued)


def test_empty_fallbacks_skip_success_logging_and_nothing_else(monkeypatch):
    content, logged = _success_logs_enqueued(monkeypatch)
    assert (content, logged) == ("hello", 1)  # the control: LiteLLM logs a plain call
    content, logged = _success_logs_enqueued(monkeypatch, **litellm_overhead.quiet_kwargs())
    assert (content, logged) == ("hello", 0)
