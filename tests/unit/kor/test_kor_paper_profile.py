"""KOR-Bench's ``paper`` profile: chat models zero-shot, base models three-shot, 1,000 mixed records each.

The kind comes from models.yaml (``kind: chat`` is the default, ``kind: base`` a pretrained model);
the family decides what a kind is asked (``KorFamily.asks``), the model-call asset filters by it.
"""

from __future__ import annotations

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.kor import mixed
from relreason_dagster.benchmarks.kor import prompts as kor_prompts
from relreason_dagster.benchmarks.kor.family import KorFamily, data_dir
from relreason_dagster.benchmarks.kor.profile_schema import Knobs
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import parse_registry


def test_model_kind_in_models_yaml() -> None:
    specs = parse_registry(
        {
            "models": [
                {"name": "c", "litellm_model": "openai/c"},
                {"name": "b", "litellm_model": "openai/b", "kind": "base"},
            ]
        },
        "models.yaml",
    )
    assert (specs["c"].kind, specs["b"].kind) == ("chat", "base")
    with pytest.raises(
        ConfigError, match=r"models\[0\]\.kind: expected 'chat', 'base' or 'reasoning', got 'instruct'"
    ):
        parse_registry({"models": [{"name": "x", "litellm_model": "openai/x", "kind": "instruct"}]}, "m.yaml")


def test_paper_profile_asks_chat_zero_shot_and_base_three_shot() -> None:
    family = KorFamily()
    paper = profiles.get_profile("paper", "kor")
    zero, three = kor_prompts.ZERO_SHOT, kor_prompts.THREE_SHOT
    assert [family.asks(paper, "chat", s) for s in (zero, three)] == [True, False]
    assert [family.asks(paper, "base", s) for s in (zero, three)] == [False, True]
    # App. F.2: the puzzle questions with their trick go to chat models.
    trick = kor_prompts.TRICK
    assert (family.asks(paper, "chat", trick), family.asks(paper, "base", trick)) == (True, False)
    # §6.4 / App. K: each kind is asked its own setting once more with the rule withheld.
    zero_only, three_only = kor_prompts.ZERO_SHOT_ONLY_QUESTIONS, kor_prompts.THREE_SHOT_ONLY_QUESTIONS
    assert [family.asks(paper, "chat", s) for s in (zero_only, three_only)] == [True, False]
    assert [family.asks(paper, "base", s) for s in (zero_only, three_only)] == [False, True]
    for kind in ("chat", "base"):  # the complex-task settings are not restricted by kind
        assert all(family.asks(paper, kind, s) for s in mixed.SHAPES)
    # Both settings stay selectable: a profile without settings_by_kind asks every kind everything.
    both = Profile("mine", {**paper.params, "settings_by_kind": {}}, knobs=Knobs)
    assert all(family.asks(both, k, s) for k in ("chat", "base") for s in (zero, three))
    smoke = profiles.get_profile("smoke", "kor")
    assert family.asks(smoke, "base", zero)


def test_a_reasoning_model_is_asked_what_chat_models_are() -> None:
    """``kind: reasoning`` (a chat model that thinks first) is prompted as chat unless a profile names it."""
    family = KorFamily()
    paper = profiles.get_profile("paper", "kor")
    for setting in (kor_prompts.ZERO_SHOT, kor_prompts.THREE_SHOT, kor_prompts.TRICK):
        assert family.asks(paper, "reasoning", setting) == family.asks(paper, "chat", setting)
    named = Profile(
        "mine",
        {
            **paper.params,
            "settings_by_kind": {"chat": [kor_prompts.ZERO_SHOT], "reasoning": [kor_prompts.THREE_SHOT]},
        },
        knobs=Knobs,
    )
    assert [family.asks(named, "reasoning", s) for s in (kor_prompts.ZERO_SHOT, kor_prompts.THREE_SHOT)] == [
        False,
        True,
    ]


def test_settings_by_kind_errors_are_one_line() -> None:
    family = KorFamily()
    for by_kind, message in (
        ({"instruct": ["zero_shot"]}, "kind 'instruct' unknown"),
        ({"base": ["three_shot"]}, r"settings_by_kind\.base: \['three_shot'\] not in the profile's settings"),
    ):
        profile = Profile("p", {"settings": ["zero_shot"], "settings_by_kind": by_kind}, knobs=Knobs)
        with pytest.raises(ConfigError, match=message):
            family.build_prompts([], profile)


def test_paper_profile_takes_all_1000_records_of_each_mixed_setting() -> None:
    paper = profiles.get_profile("paper", "kor")
    assert paper.values().mixed == {"Multi-Q": 1000, "Multi-R": 1000, "Multi-RQ": 1000}
    folder = data_dir(paper)
    if not folder.is_dir():
        pytest.skip(f"KOR-Bench reference data not found under {folder}")
    for setting in mixed.SHAPES:
        records = mixed.official_records(folder, setting, 1000)
        assert len(records) == 1000 and len({r.record_id for r in records}) == 1000
