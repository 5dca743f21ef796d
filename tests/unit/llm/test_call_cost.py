"""A call's price read once per model gives exactly LiteLLM's own price (``litellm_overhead.call_cost``).

Why: the gateway prices every answer; asking LiteLLM each time cost ~0.1 ms of CPU per call, so a model
priced per token is priced from its two rates.  Those must give the same float LiteLLM gives, and a
model whose price is more than tokens × rate (tiers above a context size) must still be asked.
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm import litellm_overhead

COUNTS = [(0, 0), (1, 0), (0, 1), (17, 3), (513, 2), (99_999, 12_345), (250_000, 60_000)]


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "deepseek/deepseek-chat"])
def test_rates_give_litellm_price(model):
    assert litellm_overhead._token_rates(model) is not None
    for prompt, completion in COUNTS:
        assert litellm_overhead.call_cost(model, prompt, completion) == litellm_overhead._litellm_cost(
            model, prompt, completion
        )


def test_tiered_price_is_asked_of_litellm():
    model = "gemini/gemini-2.5-pro"  # priced higher above 200k prompt tokens
    assert litellm_overhead._token_rates(model) is None
    for prompt, completion in COUNTS:
        assert litellm_overhead.call_cost(model, prompt, completion) == litellm_overhead._litellm_cost(
            model, prompt, completion
        )


def test_unknown_counts_or_price_cost_nothing_known():
    assert litellm_overhead.call_cost("openai/gpt-4o-mini", None, 3) is None
    assert litellm_overhead.call_cost("hosted_vllm/my-own-model", 10, 3) is None
