"""The one "ask the model for these prompts" helper every follow-up step uses (scripted model)."""

from __future__ import annotations

import contextlib

import litellm
import pytest

from relreason_dagster.benchmarks.base import StepPrompt
from relreason_dagster.common.tokenizer import count_tokens
from relreason_dagster.llm.ask import NO_RESPONSE, ask_model
from relreason_dagster.llm.registry import ModelEntry
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder


@pytest.fixture(autouse=True)
def scripted():
    register_scripted_provider()
    reset_calls()
    yield
    reset_calls()
    set_responder("asker", None)


def _prompt(i: int, text: str | None = None) -> StepPrompt:
    return StepPrompt(
        prompt_id=f"q{i}",
        sample_id=f"s{i}",
        task="t",
        split="test",
        setting="round1",
        messages=[{"role": "user", "content": text or f"question {i}?"}],
        template_version="v1",
        max_tokens=16,
    )


def test_prompts_are_stored_with_their_kind_and_tokens_then_answered(duck, store):
    seen: list[str] = []

    def answer(messages, params):
        seen.append(messages[-1]["content"])
        if "fail" in messages[-1]["content"]:
            raise litellm.BadRequestError("scripted refusal", model="asker", llm_provider="scripted")
        return "reply to " + messages[-1]["content"]

    set_responder("asker", answer)
    spec = ModelEntry(name="asker", litellm_model="scripted/asker", params={"temperature": 0})
    batch = [_prompt(0), _prompt(1), _prompt(0), _prompt(2, "please fail")]  # q0 twice: asked once

    asked = ask_model(
        spec, batch, benchmark="toy", kind="judge", connect=lambda: contextlib.nullcontext(duck), store=store
    )
    assert asked.replies["q0"].content == "reply to question 0?" and asked.replies["q0"].ok
    assert asked.replies["q2"].content is None and "scripted refusal" in str(asked.replies["q2"].error)
    assert asked.stats.called == 3 and call_count("asker") == 3
    stored = duck.execute(
        "SELECT prompt_id, benchmark, kind, setting, input_tokens FROM raw.prompts ORDER BY prompt_id"
    ).fetchall()
    assert [r[:4] for r in stored] == [(f"q{i}", "toy", "judge", "round1") for i in range(3)]
    assert stored[0][4] == count_tokens(_prompt(0).messages)

    # Asked again: every reply comes from the store or the cache, no call.
    again = ask_model(
        spec, batch, benchmark="toy", kind="judge", connect=lambda: contextlib.nullcontext(duck), store=store
    )
    assert seen.count("question 0?") == 1 and seen.count("question 1?") == 1
    assert again.replies["q1"] == asked.replies["q1"]


def test_an_empty_batch_asks_nothing(duck, store):
    spec = ModelEntry(name="asker", litellm_model="scripted/asker")
    connect = lambda: contextlib.nullcontext(duck)  # noqa: E731
    asked = ask_model(spec, [], benchmark="toy", kind="judge", connect=connect, store=store)
    assert asked.replies == {} and call_count() == 0
    assert NO_RESPONSE == "no response stored"
