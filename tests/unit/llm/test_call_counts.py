""" "Model calls" means requests sent (issue 37, item 5).

Prompts with identical messages and params are answered by one request; the UI's metadata said
"95 model calls" when the server had received 83 requests.  Shared prompts and cache hits are
counted apart from the calls.
"""

from __future__ import annotations

import json

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls


@pytest.fixture(autouse=True)
def scripted():
    register_scripted_provider()
    reset_calls()
    yield
    reset_calls()


def _prompts(questions: list[str]) -> list[dict]:
    return [
        {"prompt_id": f"p{i}", "messages": json.dumps([{"role": "user", "content": q}]), "max_tokens": 16}
        for i, q in enumerate(questions)
    ]


def _spec(name: str) -> ModelEntry:
    return ModelEntry(name=name, litellm_model="scripted/counted", params={"temperature": 0}, concurrency=4)


def test_identical_prompts_are_one_call_and_counted_as_shared(store):
    prompts = _prompts(["same?", "same?", "same?", "other?", "third?"])
    stats = run_model(store, _spec("m"), prompts)
    assert call_count("counted") == 3
    assert (stats.called, stats.shared, stats.cached, stats.skipped) == (3, 2, 0, 0)
    assert stats.done == stats.total == 5
    assert "3 model calls, 2 prompts sharing an identical call" in stats.summary()

    again = run_model(store, _spec("alias"), prompts)  # another name, same requests: the cache answers
    assert call_count("counted") == 3
    assert (again.called, again.shared, again.cached) == (0, 0, 5)
