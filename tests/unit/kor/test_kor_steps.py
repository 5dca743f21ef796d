"""KOR self-correction as a pure step: what it asks given stored answers and replies, and its rows."""

from __future__ import annotations

import json

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.base import Profile, Reply
from relreason_dagster.benchmarks.kor import prompts as kor_prompts
from relreason_dagster.benchmarks.kor.family import MIXED_TASK, KorFamily
from relreason_dagster.benchmarks.kor.profile_schema import Knobs
from relreason_dagster.benchmarks.kor.steps import SelfCorrection
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.ask import run_step


def _stored(n: int = 2, correct: bool = False) -> dict[str, list[dict]]:
    family = KorFamily()
    profile = profiles.get_profile("smoke", "kor")
    samples = [s for s in family.generate(profile, profiles.DEFAULT_SEED) if s.task != MIXED_TASK][:n]
    base = []
    for sample in samples:
        (prompt,) = [p for p in family.build_prompts([sample], profile) if p.setting == kor_prompts.ZERO_SHOT]
        row = sample.row()
        row |= {
            "prompt_id": prompt.prompt_id,
            "parse_status": "ok",
            "correct": correct,
            "detail": json.dumps({"reason": "mismatch"}),
            "content": "[[wrong]]",
            "messages": json.dumps(prompt.messages),
            "max_tokens": prompt.max_tokens,
        }
        base.append(row)
    return {"base": base}


def _profile(rounds: int, context_tokens: int = 4096) -> Profile:
    return Profile("t", {"self_correction_rounds": rounds, "context_tokens": context_tokens}, knobs=Knobs)


def _gold_reply(stored, prompt) -> Reply:
    sample_row = next(r for r in stored["base"] if r["sample_id"] == prompt.sample_id)
    return Reply(f"the answer is {json.loads(sample_row['gold'])}")


def test_rounds_are_asked_one_batch_at_a_time_until_nothing_is_new():
    step, stored, profile = SelfCorrection(), _stored(), _profile(3)
    replies: dict[str, Reply] = {}
    first = step.prompts(stored, profile, "m", replies)
    assert [p.setting for p in first] == ["round1", "round1"]
    assert first[0].messages[-1]["content"] == kor_prompts.FOLLOW_UP
    # One question stays wrong, the other is corrected in round 1.
    replies[first[0].prompt_id] = Reply("[[still wrong]]")
    replies[first[1].prompt_id] = _gold_reply(stored, first[1])
    second = step.prompts(stored, profile, "m", replies)
    new = [p for p in second if p.prompt_id not in replies]
    assert [p.setting for p in new] == ["round2"]
    assert [t["role"] for t in new[0].messages] == ["user", "assistant", "user", "assistant", "user"]
    replies[new[0].prompt_id] = Reply(None, "RateLimitError: slow down")
    assert [p for p in step.prompts(stored, profile, "m", replies) if p.prompt_id not in replies] == []
    out = step.rows(stored, profile, "m", replies)
    by_round = [(r["round"], r["parse_status"], r["correct"]) for r in out.rows]
    assert sorted(by_round, key=str) == sorted(
        [(0, "ok", False), (1, "ok", False), (2, "error", None), (0, "ok", False), (1, "ok", True)], key=str
    )
    assert out.replace_where == "model = ?" and out.replace_params == ["m"]
    assert out.summary["corrected_per_round"] == {"1": 1} and out.summary["wrong_at_round_0"] == 2
    # Each round links to the one before it.
    round2 = next(r for r in out.rows if r["round"] == 2)
    assert round2["parent_prompt_id"] == first[0].prompt_id


def test_prompt_ids_are_stable_and_model_specific():
    step, stored, profile = SelfCorrection(), _stored(1), _profile(1)
    a = step.prompts(stored, profile, "m", {})
    assert a == step.prompts(stored, profile, "m", {})
    assert a[0].prompt_id != step.prompts(stored, profile, "other", {})[0].prompt_id


def test_right_answers_and_zero_rounds_ask_nothing():
    step = SelfCorrection()
    assert step.prompts(_stored(correct=True), _profile(3), "m", {}) == []
    stored = _stored()
    assert step.prompts(stored, _profile(0), "m", {}) == []
    assert [r["round"] for r in step.rows(stored, _profile(0), "m", {}).rows] == [0, 0]


def test_a_long_conversation_resends_only_the_last_answer():
    step, stored = SelfCorrection(), _stored(1)
    (p,) = step.prompts(stored, _profile(1, context_tokens=1), "m", {})
    assert len(p.messages) == 3 and p.messages[1]["role"] == "assistant"
    assert step.rows(stored, _profile(1, 1), "m", {p.prompt_id: Reply("[[x]]")}).rows[1]["history"] == "last"


def test_bad_round_count_is_one_line():
    with pytest.raises(ConfigError, match="0..5"):
        SelfCorrection().prompts(_stored(1), _profile(9), "m", {})


def test_run_step_drives_the_rounds_with_any_asker():
    """The loop the Dagster asset uses, with a dict as the model: stubborn answers, every round asked."""
    step, stored, profile = SelfCorrection(), _stored(), _profile(3)
    batches: list[list[str]] = []

    def ask(batch):
        batches.append(sorted(p.setting for p in batch))
        return {p.prompt_id: Reply("[[still wrong]]") for p in batch}

    out = run_step(step, stored, profile, "m", ask)
    assert batches == [["round1", "round1"], ["round2", "round2"], ["round3", "round3"]]
    assert sorted(r["round"] for r in out.rows) == [0, 0, 1, 1, 2, 2, 3, 3]
