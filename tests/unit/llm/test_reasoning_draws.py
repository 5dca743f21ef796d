"""Reasoning kept apart from the answer, and repeated draws: the gateway against the fake OpenAI server.

The fake server (tests/fakes/openai_server.py) answers ``fake-o`` with ``reasoning_content`` and a
reasoning token count, and ``fake-r1`` with a ``<think>`` block inline, as the two kinds of reasoning
model do.  Its thinking names "true" and "false", so a parser that saw it would find an answer there.
"""

from __future__ import annotations

import json

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.litellm_overhead import call_cost
from relreason_dagster.llm.reasoning import split_reasoning
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.replies import read_reply
from relreason_dagster.llm.request_key import request_hash
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer, default_answer

QUESTION = [{"role": "user", "content": "Is the sky blue? Answer True or False."}]


def test_a_k1_request_hashes_exactly_as_before_draws_existed():
    """Draw 0 keeps the hash every stored answer has: a literal from the code before sample_index, so
    adding draws never invalidates a user's cache (a new key field here would change this digest)."""
    spec = ModelEntry(
        name="m",
        litellm_model="openai/gpt-4o-mini",
        params={"temperature": 0.7},
        api_base="http://127.0.0.1:9/v1",
    )
    before = "c74f0ec55cf9ce16d575cbbc3b2ec0e97ddf16091c5f2f6f1cc6a5f262b0433c"
    assert request_hash(spec, QUESTION, 64, {"top_p": 1.0}) == before
    assert request_hash(spec, QUESTION, 64, {"top_p": 1.0}, sample_index=0) == before
    draws = {request_hash(spec, QUESTION, 64, {"top_p": 1.0}, sample_index=k) for k in range(3)}
    assert len(draws) == 3


def test_reasoning_params_are_part_of_the_cache_key():
    plain = ModelEntry(name="m", litellm_model="openai/o4-mini")
    effort = ModelEntry(name="m", litellm_model="openai/o4-mini", params={"reasoning_effort": "low"})
    budget = ModelEntry(
        name="m",
        litellm_model="anthropic/claude-x",
        params={"thinking": {"type": "enabled", "budget_tokens": 1024}},
    )
    budget2 = ModelEntry(
        name="m",
        litellm_model="anthropic/claude-x",
        params={"thinking": {"type": "enabled", "budget_tokens": 2048}},
    )
    assert request_hash(plain, QUESTION, 64) != request_hash(effort, QUESTION, 64)
    assert request_hash(budget, QUESTION, 64) != request_hash(budget2, QUESTION, 64)


@pytest.mark.parametrize(
    ("text", "mode", "answer", "thinking"),
    [
        ("<think>maybe true</think>\n\nFalse", None, "False", "maybe true"),
        ("  <THINK>\nhmm\n</think>True", None, "True", "hmm"),
        ("<think>ran out of tokens, true?", None, "", "ran out of tokens, true?"),
        ("weighing it: true</think>\nFalse", None, "weighing it: true</think>\nFalse", None),
        ("weighing it: true</think>\nFalse", "think_tags", "False", "weighing it: true"),
        ("<think>x</think>False", "none", "<think>x</think>False", None),
        ("plain True", "think_tags", "", "plain True"),  # the template opened it, it never closed
        ("", None, "", None),
    ],
)
def test_split_reasoning(text, mode, answer, thinking):
    assert split_reasoning(text, mode) == (answer, thinking)


def _prompts(n: int, samples: int = 1) -> list[dict]:
    return [
        {
            "prompt_id": f"p{i}",
            "messages": [{"role": "user", "content": f"question {i}: true or false?"}],
            "max_tokens": 32,
            "samples": samples,
        }
        for i in range(n)
    ]


def _spec(name: str, server: FakeOpenAIServer, **kw) -> ModelEntry:
    return ModelEntry(
        name=name,
        litellm_model=f"openai/{name}",
        api_base=server.api_base,
        params={"temperature": 0.7, **kw.pop("params", {})},
        max_attempts=1,
        **kw,
    )


def test_reasoning_models_both_ways_and_three_draws_each(duck, store: ResponseStore, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeOpenAIServer(reasoning={"fake-o": "field", "fake-r1": "think_tags"}) as server:
        for name in ("fake-o", "fake-r1"):
            stats = run_model(store, _spec(name, server, params={"reasoning_effort": "low"}), _prompts(4, 3))
            assert (stats.total, stats.called, stats.errors) == (12, 12, 0)
        log = server.entries()
        server.reset_log()
        # A second run stores nothing new and calls nothing.
        again = run_model(store, _spec("fake-o", server, params={"reasoning_effort": "low"}), _prompts(4, 3))
        assert (again.called, again.skipped, len(server.entries())) == (0, 12, 0)
    # 3 distinct calls per prompt and model: draws are never merged into one cached answer.
    assert len(log) == 24
    assert all(e.params.get("reasoning_effort") == "low" for e in log)
    got = duck.execute(
        "SELECT model, prompt_id, sample_index, content, reasoning, reasoning_tokens, cost_usd"
        " FROM raw.response_draws ORDER BY ALL"
    ).fetchall()
    assert len(got) == 24
    for model, pid, k, content, reasoning, tokens, cost in got:
        assert k in (0, 1, 2)
        assert content == default_answer([{"role": "user", "content": f"question {pid[1:]}: true or false?"}])
        assert "<think>" not in content and "true" not in content and reasoning
        assert "true" in reasoning and "false" in reasoning
        assert (tokens is not None and tokens > 0) == (model == "fake-o")
        assert cost is None  # the fake models have no price: null, never a made-up zero
    # raw.responses stays one row per prompt and model: draw 0, as before draws existed.
    assert duck.execute("SELECT count(*), max(sample_index) FROM raw.responses").fetchone() == (8, 0)


def test_more_draws_later_asks_only_the_new_ones(duck, store: ResponseStore, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeOpenAIServer() as server:
        spec = _spec("plain", server)
        run_model(store, spec, _prompts(2, 1))
        more = run_model(store, spec, _prompts(2, 3))
        assert (more.called, more.skipped) == (4, 2)
        assert len(server.entries()) == 6


def test_a_reply_with_reasoning_content_keeps_its_answer_clean():
    """LiteLLM's fields as a provider fills them, read by the gateway's reply handler alone."""

    class Obj:
        def __init__(self, **kw):
            self.__dict__.update(kw)

    reply = Obj(
        choices=[
            Obj(
                message=Obj(content="<think>also inline</think>True", reasoning_content="from the field"),
                finish_reason="stop",
            )
        ],
        usage=Obj(prompt_tokens=10, completion_tokens=30, completion_tokens_details=Obj(reasoning_tokens=25)),
    )
    outcome = read_reply(reply, 0.1, 1, ModelEntry(name="x", litellm_model="openai/gpt-4o-mini"))
    assert outcome.content == "True"
    assert outcome.reasoning == "from the field\n\nalso inline"
    assert outcome.reasoning_tokens == 25
    # gpt-4o-mini is in LiteLLM's offline cost map: a positive price, the same one LiteLLM computes.
    assert outcome.cost_usd is not None and outcome.cost_usd > 0
    assert outcome.cost_usd == call_cost("openai/gpt-4o-mini", 10, 30)
    assert call_cost("openai/no-such-model-anywhere", 10, 30) is None
    assert json.dumps(outcome.cost_usd)
