"""Generated KOR-Bench Counterfactual items: reproducible, self-contained, every gold re-read from its story.

The gold letter must name the option that the story states (found again by
:func:`counterfactual.read_story_answer` from the story and question texts alone), the real-life
letter the real fact, and the two must differ; the project's scorers must accept the gold and
reject every other letter.  No reference folder is needed: the story is the item's rule text.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest

from relreason_dagster.benchmarks.kor import counterfactual as cf
from relreason_dagster.benchmarks.kor.generate import LEVELS
from relreason_dagster.benchmarks.kor.scoring import score_official, score_robust
from relreason_dagster.errors import ConfigError

SEEDS = range(50)
_FORMAT_RE = re.compile(
    r"^In [A-Z][a-z]+, [^\n]+\?\nOptions: A\. [^#\n]+##B\. [^#\n]+##C\. [^#\n]+##D\. [^#\n]+\n"
    + re.escape(cf.INSTRUCTION)
    + "$"
)


def _items() -> list[cf.GeneratedCounterfactualItem]:
    return [
        item
        for rule_id in cf.RULES
        for level in LEVELS
        for seed in SEEDS
        for item in cf.generate(rule_id, 1, seed, level)
    ]


ITEMS = _items()


def _slot(item: cf.GeneratedCounterfactualItem) -> cf.FactSlot:
    return next(slot for slot in cf.RULES[item.rule_id].slots if slot.key == item.params["slot"])


def test_regenerating_gives_identical_items() -> None:
    for rule_id in cf.RULES:
        for level in LEVELS:
            first = cf.generate(rule_id, 6, 42, level)
            assert first == cf.generate(rule_id, 6, 42, level)
            assert first[:2] == cf.generate(rule_id, 2, 42, level)
            assert first != cf.generate(rule_id, 6, 43, level)


def test_questions_use_the_official_format() -> None:
    for item in ITEMS:
        assert _FORMAT_RE.match(item.question), item.question


def test_letters_point_at_the_story_and_real_answers() -> None:
    for item in ITEMS:
        options = cf.parse_options(item.question)
        assert list(options) == list("ABCD") and len(set(options.values())) == 4
        gold, real = item.gold[2:-2], item.real_life_answer[2:-2]
        assert gold != real
        assert options[gold] == item.params["story_answer"]
        assert options[real] == item.params["real_answer"]
        slot = _slot(item)
        assert options[real].casefold() == slot.real.casefold()
        assert options[gold].casefold() in {v.casefold() for v in slot.fictional}


def test_every_gold_is_reread_from_the_story() -> None:
    for item in ITEMS:
        assert cf.read_story_answer(item.rule, item.question) == item.gold, (item.rule, item.question)


def test_golds_pass_the_scorers_and_other_letters_fail() -> None:
    for item in ITEMS:
        kor = item.as_kor_item()
        assert score_robust(item.gold, kor)[0] is True, item
        assert score_official(item.gold, kor) is True, item
        for letter in "ABCD":
            if f"[[{letter}]]" != item.gold:
                assert score_robust(f"[[{letter}]]", kor)[0] is False
                assert score_official(f"[[{letter}]]", kor) is False
        # is_real_life, as the official evaluation computes it: the response against real_life_answer.
        assert score_official(item.real_life_answer, kor, gold=kor.real_life_answer) is True
        assert score_official(item.gold, kor, gold=kor.real_life_answer) is False


def test_stories_hold_the_stated_number_of_altered_facts() -> None:
    for item in ITEMS:
        level, world = item.level, item.params["world"]
        lines = item.rule.split("\n")
        assert lines[0] == f"This story takes place in the world of {world}."
        assert len(item.params["facts"]) == level + 1 == len(set(item.params["facts"]))
        slots = {slot.key: slot for slot in cf.RULES[item.rule_id].slots}
        for key in item.params["facts"]:
            matching = [
                line
                for line in lines
                if world in line
                and any(
                    slots[key].sentence.format(world=world, value=v) == line for v in slots[key].fictional
                )
            ]
            assert len(matching) == 1, (key, item.rule)
        remark = (
            f"(Visitors from other worlds expect {_slot(item).real} here, but in {world} they are wrong.)"
        )
        # Only level 3 names the real answer, in a remark right after the asked fact.
        assert (remark in lines) == (level == 3), item.rule
        if level == 3:
            asked = lines[lines.index(remark) - 1]
            assert item.params["story_answer"].casefold() in asked.casefold()
        assert ("neighbouring realm" in item.rule) == (level == 3)


def test_answer_letters_are_spread_over_the_options() -> None:
    golds = Counter(item.gold for item in ITEMS)
    reals = Counter(item.real_life_answer for item in ITEMS)
    assert set(golds) == set(reals) == {"[[A]]", "[[B]]", "[[C]]", "[[D]]"}
    assert min(golds.values()) > len(ITEMS) / 8


def test_fact_tables_are_big_enough_and_items_self_contained() -> None:
    slots = [slot for rule in cf.RULES.values() for slot in rule.slots]
    assert len(slots) >= 20 and len({slot.key for slot in slots}) == len(slots)
    item = cf.generate("2", 1, 9, 2)[0]
    kor = item.as_kor_item()
    assert kor.category == "counterfactual"
    assert kor.idx == "gen-2-9-0"
    assert kor.rule == item.rule and kor.rule.startswith("This story takes place")
    assert kor.rule_title == cf.RULES["2"].title
    assert kor.real_life_answer == item.real_life_answer


def test_unknown_rule_or_level_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="known: 1, 2, 3, 4, 5"):
        cf.generate("0", 1, 0)
    with pytest.raises(ConfigError, match="level"):
        cf.generate("1", 1, 0, level=0)
