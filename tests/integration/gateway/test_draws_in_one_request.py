"""``n: N`` in a model entry: ``--samples K`` asks ⌈K/N⌉ requests per prompt and stores K draws (issue 47).

Against the fake OpenAI server (a scripted stand-in for a provider; its request log is the evidence),
on both transports: a model with ``n: 2`` and prompts asking 4 draws sends 2 requests per prompt,
each carrying ``n: 2``, and stores 4 rows per prompt, one per draw (its own ``sample_index``, the
request hash the draw has without ``n``), the choices' texts in draw order and the request's usage
divided as ``llm/choices.py`` says (prompt tokens and cost on the request's first draw, completion
tokens by text length, totals kept).  A re-run sends nothing, nor does one with another ``n``; a
provider that refuses ``n`` or ignores it gets one request per draw and the same rows.
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.request_key import request_hash
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer, default_answer

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_TEST_N_KEY"
PROMPTS = 3
K = 4


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-n-draws-key-0000")


def _prompts() -> list[dict]:
    return [
        {
            "prompt_id": f"p{i}",
            "messages": [{"role": "user", "content": f"question {i}: is the statement true?"}],
            "max_tokens": 16,
            "benchmark": "toy",
            "samples": K,
        }
        for i in range(PROMPTS)
    ]


def _spec(server: FakeOpenAIServer, transport: str, n: int, **more) -> ModelEntry:
    return ModelEntry(
        name="fake-n",
        litellm_model="openai/fake-n",
        params={"temperature": 0.7},
        concurrency=2,
        api_base=server.api_base,
        api_key_env=KEY_ENV,
        timeout_s=30.0,
        max_attempts=2,
        transport=transport,
        n=n,
        **more,
    )


def _draws(store: ResponseStore) -> dict[tuple[str, int], dict]:
    return store.draws("fake-n")


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_samples_4_with_n_2_sends_2_requests_per_prompt_and_stores_4_draws(tmp_path, transport):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    prompts = _prompts()
    with FakeOpenAIServer() as server:
        spec = _spec(server, transport, n=2)
        stats = run_model(store, spec, prompts, seed=0)
        log = server.entries()
        assert stats.errors == 0 and stats.called == PROMPTS * 2, stats.summary()
        assert len(log) == PROMPTS * 2 and all(e.status == 200 and e.params.get("n") == 2 for e in log)
        per_prompt = {}
        for e in log:
            per_prompt[e.key] = per_prompt.get(e.key, 0) + 1
        assert sorted(per_prompt.values()) == [2] * PROMPTS

        draws = _draws(store)
        assert sorted(draws) == sorted((p["prompt_id"], k) for p in prompts for k in range(K))
        for p in prompts:
            rows = [draws[(p["prompt_id"], k)] for k in range(K)]
            answer = default_answer(p["messages"])
            # Each draw is a choice of its request, in order: choice 0 and 1 of the first, then the second.
            assert [r["content"] for r in rows] == [answer, f"{answer} (choice 1)"] * 2
            for k, r in enumerate(rows):
                assert r["sample_index"] == k and r["error"] is None and r["attempts"] == 1
                assert r["request_hash"] == request_hash(spec, p["messages"], 16, None, k)
            words = len(str(p["messages"][0]["content"]).split())
            # Per request: the prompt's tokens once, on its first draw; completions add up to the request's.
            assert [r["prompt_tokens"] for r in rows] == [words, 0, words, 0]
            request_completion = len(answer.split()) + len(f"{answer} (choice 1)".split())
            assert rows[0]["completion_tokens"] + rows[1]["completion_tokens"] == request_completion
            assert rows[0]["completion_tokens"] < rows[1]["completion_tokens"]  # the longer choice

        server.reset_log()
        again = run_model(store, spec, prompts, seed=0)
        assert again.called == 0 and server.entries() == [], again.summary()
        # Another n re-asks nothing either: each draw's key does not depend on how it was asked.
        other = run_model(store, spec.model_copy(update={"n": 3}), prompts, seed=0)
        single = run_model(store, spec.model_copy(update={"n": 1}), prompts, seed=0)
        assert other.called == single.called == 0 and server.entries() == []


def test_more_draws_later_ask_only_the_new_ones_n_at_a_time(tmp_path):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    with FakeOpenAIServer() as server:
        spec = _spec(server, "direct", n=2)
        first = [{**p, "samples": 1} for p in _prompts()]
        assert run_model(store, spec.model_copy(update={"n": 1}), first, seed=0).called == PROMPTS
        server.reset_log()
        stats = run_model(store, spec, _prompts(), seed=0)
        # Draw 0 is stored; draws 1-3 take one request of n=2 and one of a single draw per prompt.
        assert stats.called == 2 * PROMPTS and stats.skipped == PROMPTS, stats.summary()
        assert sorted(e.params.get("n", 1) for e in server.entries()) == [1] * PROMPTS + [2] * PROMPTS
        assert len(_draws(store)) == PROMPTS * K


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_a_provider_refusing_n_gets_one_request_per_draw(tmp_path, transport):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    with FakeOpenAIServer(reject_params={"n": "parameter"}) as server:
        spec = _spec(server, transport, n=2).model_copy(update={"concurrency": 1})
        stats = run_model(store, spec, _prompts(), seed=0)
        log = server.entries()
    assert stats.errors == 0, stats.summary()
    refused = [e for e in log if e.status == 400]
    assert len(refused) == 1 and refused[0].params.get("n") == 2  # one try, then one draw per request
    assert sorted(e.params.get("n", 1) for e in log if e.status == 200) == [1] * (PROMPTS * K)
    draws = _draws(store)
    assert len(draws) == PROMPTS * K and all(r["error"] is None for r in draws.values())


def test_a_provider_ignoring_n_gets_the_missing_draws_one_per_request(tmp_path):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    with FakeOpenAIServer(ignore_n=True) as server:
        spec = _spec(server, "direct", n=2).model_copy(update={"concurrency": 1})
        stats = run_model(store, spec, _prompts(), seed=0)
        log = server.entries()
    assert stats.errors == 0, stats.summary()
    # The first request asked 2 and got 1: its second draw and every later draw go one per request.
    assert [e.params.get("n", 1) for e in log].count(2) == 1 and len(log) == PROMPTS * K
    draws = _draws(store)
    assert len(draws) == PROMPTS * K and all(r["error"] is None for r in draws.values())
