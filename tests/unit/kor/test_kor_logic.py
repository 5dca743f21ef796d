"""Generated KOR-Bench Logic items: reproducible, self-contained, every gold re-derived independently.

Each stored gold is recomputed by :func:`logic.solve_question`, which reads only the question text
(its own recursive-descent parser, Venn-region models for arguments, resolution for bundles), and
every gold must pass the project's scorers against itself while a wrong answer fails.  No reference
folder is needed: the items carry their own rule texts.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

import pytest

from relreason_dagster.benchmarks.kor import logic
from relreason_dagster.benchmarks.kor.generate import LEVELS
from relreason_dagster.benchmarks.kor.scoring import score_official, score_robust
from relreason_dagster.errors import ConfigError

SEEDS = range(50)


def _items() -> list[logic.GeneratedLogicItem]:
    return [
        item
        for rule_id in logic.RULES
        for level in LEVELS
        for seed in SEEDS
        for item in logic.generate(rule_id, 1, seed, level)
    ]


ITEMS = _items()


def _wrong_answers(item: logic.GeneratedLogicItem) -> list[str]:
    """Answers that must be rejected: the other truth value / options / verdict, a changed row list."""
    inner = item.gold[2:-2]
    if item.rule_id == "1":
        return ["[[F]]" if inner == "T" else "[[T]]"]
    if item.rule_id == "2":
        return [f"[[{letter}]]" for letter in "ABC" if letter != inner]
    if item.rule_id == "3":
        rows = [int(r) for r in inner.split(",")]
        size = 2 ** item.params["n_vars"]
        missing = next(r for r in range(size) if r not in rows)
        return [
            "[[" + ",".join(map(str, rows[1:] or [missing])) + "]]",
            "[[" + ",".join(map(str, sorted([*rows, missing]))) + "]]",
        ]
    if item.rule_id == "4":
        return ["[[No]]" if inner == "Yes" else "[[Yes]]"]
    return ["[[Broken]]" if inner == "Coherent" else "[[Coherent]]"]


def test_regenerating_gives_identical_items() -> None:
    for rule_id in logic.RULES:
        for level in LEVELS:
            first = logic.generate(rule_id, 6, 123, level)
            assert first == logic.generate(rule_id, 6, 123, level)
            assert first[:3] == logic.generate(rule_id, 3, 123, level)
            assert first != logic.generate(rule_id, 6, 124, level)


def test_every_gold_is_rederived_from_the_question_text() -> None:
    for item in ITEMS:
        assert logic.solve_question(item.rule_id, item.question) == item.gold, item


def test_golds_pass_the_scorers_and_wrong_answers_fail() -> None:
    for item in ITEMS:
        kor = item.as_kor_item()
        assert score_robust(item.gold, kor)[0] is True, item
        assert score_official(item.gold, kor) is True, item
        assert score_robust(f"Working it out ... so the answer is {item.gold}", kor)[0] is True
        for wrong in _wrong_answers(item):
            assert score_robust(wrong, kor)[0] is False, (item, wrong)
            assert score_official(wrong, kor) is False, (item, wrong)


def test_items_are_self_contained_kor_items() -> None:
    item = logic.generate("3", 1, 5, 2)[0]
    kor = item.as_kor_item()
    assert kor.category == "logic"
    assert kor.idx == "gen-3-5-0"
    assert kor.rule == logic.RULES["3"].text == item.rule
    assert kor.rule_title == logic.RULES["3"].title == item.title
    assert kor.answer == item.gold and kor.real_life_answer is None
    for rule in logic.RULES.values():
        assert rule.text and rule.title and "[[" in rule.text


def test_golds_are_balanced_across_answer_classes() -> None:
    """The class is drawn before the question, so no rule has a constant or near-constant answer."""
    for rule_id in ("1", "2", "4", "5"):
        counts = Counter(item.gold for item in ITEMS if item.rule_id == rule_id)
        expected = 3 if rule_id == "2" else 2
        assert len(counts) == expected, counts
        assert min(counts.values()) >= len(SEEDS) * len(LEVELS) / expected / 2, counts


def test_levels_grow_the_questions() -> None:
    def variables(item: logic.GeneratedLogicItem) -> int:
        return len(set(re.findall(r"[pq]\d", item.question)))

    for rule_id in ("1", "2", "3", "5"):
        by_level = {
            level: max(variables(i) for i in ITEMS if i.rule_id == rule_id and i.level == level)
            for level in LEVELS
        }
        assert by_level[1] < by_level[2] < by_level[3], (rule_id, by_level)
    premises = {
        level: {i.question.count("Premise ") for i in ITEMS if i.rule_id == "4" and i.level == level}
        for level in LEVELS
    }
    assert premises == {1: {2}, 2: {3}, 3: {4}}


def test_row_numbers_follow_the_rule_examples() -> None:
    """The rule's own examples: over p1, p2, p3, F T T is row 3 and T F F is row 4."""
    assert logic.row_values(3, 3) == (False, True, True)
    assert logic.row_values(4, 3) == (True, False, False)
    rule_text = logic.RULES["3"].text
    assert "number 3 (binary 011)" in rule_text and "number 4 (binary 100)" in rule_text


def test_brute_force_validity_finds_exactly_the_fifteen_classical_moods() -> None:
    """Without existential import exactly 15 figure-mood combinations are valid (AAA-1 ... IAI-4);
    the set-model search must find those and no others."""
    valid = {
        (figure, "".join(forms))
        for figure, ((a, b), (c, d)) in logic._FIGURES.items()
        for forms in itertools.product("AEIO", repeat=3)
        if logic._argument_valid([(forms[0], a, b), (forms[1], c, d)], (forms[2], 0, 1), 3)
    }
    assert valid == {
        (1, "AAA"), (1, "EAE"), (1, "AII"), (1, "EIO"),
        (2, "EAE"), (2, "AEE"), (2, "EIO"), (2, "AOO"),
        (3, "IAI"), (3, "AII"), (3, "OAO"), (3, "EIO"),
        (4, "AEE"), (4, "IAI"), (4, "EIO"),
    }  # fmt: skip


def test_checker_reads_rule_notation() -> None:
    question = "Formula: (p1=::>p2)<+>~(p2=p1)\nVariables: p1, p2\n"
    # rows FF, FT, TF, TT: implication T,T,F,T; ~iff F,T,T,F; xor T,F,T,T.
    assert logic.solve_question("3", question) == "[[0,2,3]]"
    assert logic.solve_question("2", "Formula: p1||~p1\nVariables: p1, p2\n") == "[[A]]"
    assert logic.solve_question("2", "Formula: p1&~p1\nVariables: p1\n") == "[[B]]"
    argument = "Premise 1: a >> b\nPremise 2: b >> c\nConclusion: a <> c\n"
    assert logic.solve_question("4", argument) == "[[No]]"  # the a's may not exist
    bundles = "Catalogue:\nB1 = {q1}\nB2 = {-q1, q2}\nB3 = {-q2}\n"
    assert logic.solve_question("5", bundles) == "[[Broken]]"
    with pytest.raises(ValueError):
        logic.solve_question("1", "Formula: p1&&p2\nAssignment: p1 is T, p2 is T\n")


def test_unknown_rule_or_level_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="known: 1, 2, 3, 4, 5"):
        logic.generate("9", 1, 0)
    with pytest.raises(ConfigError, match="level"):
        logic.generate("1", 1, 0, level=4)
