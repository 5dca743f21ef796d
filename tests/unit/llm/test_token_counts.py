"""Counting many prompts at once gives each prompt's own count, whatever thread counted it."""

from __future__ import annotations

import random

from relreason_dagster.common import tokenizer
from relreason_dagster.common.tokenizer import chat_prompt_tokens, chat_prompt_tokens_many

WORDS = ["Alice", "is", "the", "mother", "of", "Bob.", "∀x", "Ünïcode", "42", "\n", "<|im_end|>", "edge(3,7)"]


def _prompts(n: int) -> list[list[dict[str, str]]]:
    rng = random.Random(7)
    out = []
    for i in range(n):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 400)))
        messages = [{"role": "user", "content": f"Question {i}: {words}"}]
        if i % 3 == 0:
            messages.insert(0, {"role": "system", "content": "Answer with one word."})
        out.append(messages)
    return out


def test_a_threaded_batch_counts_as_one_prompt_at_a_time():
    prompts = _prompts(300)
    assert len(prompts) > tokenizer._THREADED_BATCH  # the threaded path is the one under test
    expected = [chat_prompt_tokens(m) for m in prompts]
    assert chat_prompt_tokens_many(prompts) == expected
    assert len(set(expected)) > 50  # distinct prompts, so a shifted or reordered result would show


def test_small_and_empty_batches():
    prompts = _prompts(5)
    assert chat_prompt_tokens_many(prompts) == [chat_prompt_tokens(m) for m in prompts]
    assert chat_prompt_tokens_many([]) == []
