"""The scripted effort model (tests/fakes/scripted_effort.py) through the real gateway: what the budget
sweep test (tests/integration/runs/test_budget_sweep_run.py) relies on, checked on its own.

One spec per level against the fake OpenAI server answering by the script: the server sees each
request's ``reasoning_effort``; the stored answer is the gold one exactly where the script's rule says
so; the stored reasoning and its provider-counted tokens grow with the level; and the right items of a
level include those of the level below (the superset the paired counts rely on).
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.scripted_effort import LEVELS, THINKING_WORDS, WRONG, ScriptedEffort, is_right

N = 40  # prompts: enough that every level's rule picks a different share of them


def _messages(i: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"question {i}: true or false?"}]


def _prompts() -> list[dict]:
    return [{"prompt_id": f"p{i}", "messages": _messages(i), "max_tokens": 32} for i in range(N)]


def _spec(level: str, server: FakeOpenAIServer) -> ModelEntry:
    return ModelEntry(
        name=f"o4@reasoning_effort={level}",
        litellm_model="openai/fake-o4",
        api_base=server.api_base,
        params={"temperature": 1, "reasoning_effort": level},
        max_attempts=1,
    )


def test_answers_and_thinking_follow_the_requested_effort(duck, store: ResponseStore, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    script = ScriptedEffort({_messages(i)[-1]["content"]: f"gold {i}" for i in range(N)})
    with script.server() as server:
        for level in LEVELS:
            stats = run_model(store, _spec(level, server), _prompts())
            assert (stats.called, stats.errors) == (N, 0)
        log = server.entries()
    assert sorted(e.params.get("reasoning_effort") for e in log) == sorted(LEVELS * N)

    got = duck.execute(
        "SELECT model, prompt_id, content, reasoning, reasoning_tokens FROM raw.responses ORDER BY ALL"
    ).fetchall()
    assert len(got) == 3 * N
    right: dict[str, set[str]] = {level: set() for level in LEVELS}
    for model, pid, content, reasoning, tokens in got:
        level = model.rsplit("=", 1)[1]
        i = int(pid[1:])
        expected = f"gold {i}" if is_right(_messages(i), level) else WRONG
        assert content == expected, (model, pid)
        if content != WRONG:
            right[level].add(pid)
        assert tokens == THINKING_WORDS[level] == len(reasoning.split())
    # Each level is right on a superset of the level below, and on more items (not every prompt alike).
    assert right["low"] < right["medium"] < right["high"] < {f"p{i}" for i in range(N)}


def test_a_request_without_a_scripted_level_is_answered_wrong(duck, store: ResponseStore, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    script = ScriptedEffort({_messages(i)[-1]["content"]: f"gold {i}" for i in range(N)})
    with script.server() as server:
        spec = ModelEntry(
            name="plain",
            litellm_model="openai/fake-o4",
            api_base=server.api_base,
            params={"temperature": 1},
            max_attempts=1,
        )
        assert run_model(store, spec, _prompts()).errors == 0
    contents = {row[0] for row in duck.execute("SELECT content FROM raw.responses").fetchall()}
    assert contents == {WRONG}


@pytest.mark.parametrize("level", LEVELS)
def test_thinking_has_the_level_s_length_and_no_answer(level):
    thought = ScriptedEffort({}).thinking(_messages(0), {"reasoning_effort": level})
    assert len(thought.split()) == THINKING_WORDS[level]
    assert "true" not in thought.lower() and "false" not in thought.lower() and "[[" not in thought
