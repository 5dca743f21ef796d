"""The real SmolLM2-135M through LiteLLM's ``local/`` provider (slow: loads and runs the model)."""

from __future__ import annotations

import litellm
import pytest

from relreason_dagster.common.tokenizer import DEFAULT_TOKENIZER, count_tokens, resolve_gguf
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.local_provider import register_local_provider
from relreason_dagster.llm.registry import ModelEntry

pytestmark = pytest.mark.e2e

MESSAGES = [{"role": "user", "content": "What is the capital of France? Answer in one word."}]


@pytest.fixture(scope="module", autouse=True)
def local():
    register_local_provider()


def test_packaged_gguf_is_found():
    path = resolve_gguf("smollm2-135m")
    assert path.name.endswith(".gguf") and path.stat().st_size > 50_000_000


def test_short_prompt_answers():
    response = litellm.completion(
        model="local/smollm2-135m", messages=MESSAGES, temperature=0, seed=0, max_tokens=16, num_retries=0
    )
    content = response.choices[0].message.content
    assert content and content.strip()
    assert response.usage.prompt_tokens == count_tokens(MESSAGES)
    assert 0 < response.usage.completion_tokens <= 16
    assert response.choices[0].finish_reason in {"stop", "length"}


def test_temperature_zero_with_seed_is_deterministic():
    def ask() -> str:
        response = litellm.completion(
            model="local/smollm2-135m",
            messages=[{"role": "user", "content": "Write a sentence about rivers."}],
            temperature=0,
            seed=0,
            max_tokens=24,
        )
        return response.choices[0].message.content

    assert ask() == ask()


def test_gguf_path_model_string():
    path = resolve_gguf("smollm2-135m")
    response = litellm.completion(
        model=f"local/{path}", messages=MESSAGES, temperature=0, seed=0, max_tokens=4
    )
    assert response.choices[0].message.content is not None


def test_count_tokens():
    assert count_tokens("hello world") > 0
    assert count_tokens(["hello", "world"]) == count_tokens("hello") + count_tokens("world")
    assert count_tokens("") == 0
    # chat messages include the template: more tokens than the bare text
    assert count_tokens(MESSAGES, DEFAULT_TOKENIZER) > count_tokens(MESSAGES[0]["content"])


def test_too_long_prompt_is_stored_as_context_length_exceeded(duck, store):
    spec = ModelEntry(
        name="smol-tiny-ctx",
        litellm_model="local/smollm2-135m",
        params={"temperature": 0, "seed": 0, "max_tokens": 8, "n_ctx": 256},
        concurrency=1,
    )
    long_text = "The quick brown fox jumps over the lazy dog. " * 60  # ~600 tokens > 256
    prompts = [
        {"prompt_id": "short", "messages": MESSAGES, "max_tokens": 8},
        {"prompt_id": "long", "messages": [{"role": "user", "content": long_text}], "max_tokens": 8},
    ]
    stats = run_model(store, spec, prompts)
    assert stats.called == 2 and stats.errors == 1
    rows = dict(
        duck.execute(
            "SELECT prompt_id, coalesce(error, content) FROM raw.responses ORDER BY prompt_id"
        ).fetchall()
    )
    assert rows["long"].startswith("context_length_exceeded: ")
    assert "256" in rows["long"]
    assert rows["short"].strip()
    attempts = duck.execute("SELECT attempts FROM raw.responses WHERE prompt_id = 'long'").fetchone()[0]
    assert attempts == 1
    # The served model of a local answer is the GGUF file that gave it (no fingerprint); none for the error.
    served = dict(duck.execute("SELECT prompt_id, served_model FROM raw.responses").fetchall())
    assert served == {"short": resolve_gguf("smollm2-135m").name, "long": None}
    assert duck.execute("SELECT count(system_fingerprint) FROM raw.responses").fetchone() == (0,)
