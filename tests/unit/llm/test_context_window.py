"""A model's context window (its entry's, else LiteLLM's, else unknown) and the prompts that do not fit
it with their max_tokens (issue 56 item 3).  Nothing here calls a model."""

from __future__ import annotations

import json

from relreason_dagster import profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily, prompt_budgets
from relreason_dagster.common.tokenizer import chat_prompt_tokens_many
from relreason_dagster.llm.context_window import (
    FROM_ENTRY,
    FROM_LITELLM,
    UNKNOWN,
    context_window,
    split_too_long,
)
from relreason_dagster.llm.litellm_overhead import litellm_module
from relreason_dagster.llm.registry import ModelEntry


def test_the_entry_window_wins_over_litellm():
    spec = ModelEntry(name="m", litellm_model="openai/gpt-4o-mini", context_window=16000)
    assert context_window(spec) == (16000, FROM_ENTRY)


def test_litellm_max_input_tokens_when_the_entry_names_none():
    expected = litellm_module().get_model_info(model="openai/gpt-4o-mini")["max_input_tokens"]
    assert expected  # the offline cost map knows it
    spec = ModelEntry(name="m", litellm_model="openai/gpt-4o-mini")
    assert context_window(spec) == (expected, FROM_LITELLM)


def test_a_model_litellm_does_not_map_has_no_window():
    spec = ModelEntry(name="m", litellm_model="openai/surely-not-a-mapped-model-xyz")
    assert context_window(spec) == (None, UNKNOWN)


def _row(prompt_id: str, text: str, max_tokens: int) -> dict:
    return {
        "prompt_id": prompt_id,
        "benchmark": "b",
        "messages": json.dumps([{"role": "user", "content": text}]),
        "max_tokens": max_tokens,
    }


def test_split_leaves_out_exactly_the_prompts_over_the_window_with_their_reply():
    short, long = "Is the sky blue?", " ".join(f"word{i}" for i in range(3000))
    tokens = chat_prompt_tokens_many([[{"role": "user", "content": long}]])[0]
    window = tokens + 100
    rows = [_row("a", short, 64), _row("b", long, 99), _row("c", long, 101)]
    kept, left = split_too_long(rows, window)
    assert [r["prompt_id"] for r in kept] == ["a", "b"]  # b needs tokens + 99 <= window
    assert [(r["prompt_id"], needed) for r, needed in left] == [("c", tokens + 101)]
    # The model's params.max_tokens caps the reply as the request sends it (request_key.effective_params).
    kept, left = split_too_long(rows, window, cap=50)
    assert left == [] and len(kept) == 3


def test_flenqa_budgets_bound_every_generated_prompt_of_their_length():
    """The door's per-length need (profile only) is never below a generated prompt's tokens + reply."""
    section = {"n_base": 2, "lengths": [250, 1000], "paddings": ["duplicate", "different"], "minimal": False}
    profile = Profile("t", section, profiles.family_knobs("flenqa"))
    family = FlenqaFamily()
    budgets = prompt_budgets(profile)
    prompts = family.build_prompts(family.generate(profile, 0), profile)
    counts = chat_prompt_tokens_many([p.messages for p in prompts])
    worst: dict[int, int] = {}
    lengths = {s.sample_id: int(s.variant["length"]) for s in family.generate(profile, 0)}
    for prompt, tokens in zip(prompts, counts, strict=True):
        length = lengths[prompt.sample_id]
        worst[length] = max(worst.get(length, 0), tokens + int(prompt.max_tokens))
    assert set(worst) == set(budgets) == {250, 1000}
    for length, need in worst.items():
        # An upper bound, and not a loose one: within a few hundred tokens (the template's bytes).
        assert need <= budgets[length] <= need + 600, (length, need, budgets[length])
