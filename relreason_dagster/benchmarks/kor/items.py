"""The KOR-Bench items of a run: official ones from the data folder, or fresh generated ones.

Both sources give the same thing, a :class:`PoolItem` — a :class:`~.data.KorItem` (rule text,
question, raw gold) plus the three solved examples of the same rule that the three-shot prompt
shows — so prompts, parsing and marts never ask where an item came from.

Generated items: Logic and Counterfactual carry their own rule text (our words), so they need no
reference data at all.  Operation, Cipher and Puzzle generators produce fresh instances of the
*official* rules, so they are shown the official rule text (read from the data folder at run time,
never copied); without the folder those three categories are skipped and reported.  A cipher rule
gets one random key per rule and seed, with the rule text rewritten for it where
:meth:`~.ciphers.CipherFamily.render_rule` can; otherwise the official key, so text and answers
always agree.  The three-shot examples of a generated rule are three more items of the same rule
text; a counterfactual story is written per item, so generated counterfactual items have none (no
three-shot prompt) rather than examples about worlds the prompt never describes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from relreason_dagster.benchmarks.kor import ciphers, counterfactual, logic, operations, puzzles
from relreason_dagster.benchmarks.kor.data import (
    CATEGORIES,
    KorItem,
    KorRule,
    load_category,
    load_rules,
    load_three_shot,
)
from relreason_dagster.errors import ConfigError

N_SHOTS = 3
SELF_CONTAINED = ("logic", "counterfactual")


@dataclass(frozen=True)
class PoolItem:
    """One question of a run with its source and the solved examples of its rule."""

    item: KorItem
    source: str  # official | generated
    shots: tuple[tuple[str, str], ...] = ()
    params: dict = field(default_factory=dict)


def _int_key(value: str) -> tuple[int, str]:
    return (int(value), value) if value.isdigit() else (10**9, value)


def _chosen(available: list[str], wanted: list[str] | None, category: str, source: str) -> list[str]:
    if wanted is None:
        return sorted(available, key=_int_key)
    unknown = [r for r in wanted if r not in available]
    if unknown:
        raise ConfigError(
            f"kor {source} {category} rules {unknown} unknown; "
            f"known: {', '.join(sorted(available, key=_int_key))}"
        )
    return list(wanted)


def official_items(
    data_dir: Path, categories: list[str], rules: dict[str, list[str] | None], per_rule: int
) -> list[PoolItem]:
    """The first ``per_rule`` questions (by idx) of each chosen rule, with its official examples."""
    out: list[PoolItem] = []
    for category in categories:
        items = load_category(data_dir, category)
        shots = load_three_shot(data_dir, category)
        by_rule: dict[str, list[KorItem]] = {}
        for item in sorted(items.values(), key=lambda i: _int_key(i.idx)):
            by_rule.setdefault(item.rule_id, []).append(item)
        for rule_id in _chosen(list(by_rule), rules.get(category), category, "official"):
            for item in by_rule[rule_id][:per_rule]:
                out.append(PoolItem(item, "official", tuple(shots.get(rule_id, ())[:N_SHOTS])))
    return out


# --------------------------------------------------------------------------- generated

# Every category's module generates with one call, ``generate(rule_id, n, seed, level)``
# (generate.py); these wrappers add what the official data supplies (rule text, title) and
# give a generated cipher rule one key per rule and seed.
Generator = Callable[[str, int, int, int, "KorRule | None"], list[KorItem]]


def _gen_operation(rule_id: str, n: int, seed: int, level: int, rule: KorRule | None) -> list[KorItem]:
    assert rule is not None
    return [
        replace(it.as_kor_item(), rule=rule.text, rule_title=rule.title)
        for it in operations.generate(rule_id, n, seed, level)
    ]


def _gen_cipher(rule_id: str, n: int, seed: int, level: int, rule: KorRule | None) -> list[KorItem]:
    assert rule is not None
    family = ciphers.FAMILIES[rule_id]
    rng = random.Random(f"kor-cipher-key:{rule_id}:{seed}")
    key = family.random_key(rng)
    text = family.render_rule(rule.text, key)
    if text is None:  # no renderer: the official key keeps the official text true
        key, text = family.official_key(rule.text), rule.text
    return [
        KorItem(
            category="cipher",
            idx=f"gen-{rule_id}-{seed}-{it.index}",
            rule_id=rule_id,
            question=it.question,
            answer=it.answer,
            rule=text,
            rule_title=rule.title,
            subcategory=it.direction,
        )
        for it in ciphers.generate(rule_id, n, seed, level, key=key)
    ]


def _gen_puzzle(rule_id: str, n: int, seed: int, level: int, rule: KorRule | None) -> list[KorItem]:
    assert rule is not None
    return [
        KorItem(
            category="puzzle",
            idx=f"gen-{rule_id}-{it.seed}",
            rule_id=rule_id,
            question=it.question,
            answer=it.gold,
            rule=rule.text,
            rule_title=rule.title,
        )
        for it in puzzles.generate(rule_id, n, seed, level)
    ]


def _gen_self_contained(module) -> Generator:  # type: ignore[no-untyped-def]
    def generate(rule_id: str, n: int, seed: int, level: int, rule: KorRule | None) -> list[KorItem]:
        return [it.as_kor_item() for it in module.generate(rule_id, n, seed, level)]

    return generate


GENERATORS: dict[str, tuple[list[str], Generator]] = {
    "operation": (list(operations.RULES), _gen_operation),
    "cipher": (list(ciphers.FAMILIES), _gen_cipher),
    "puzzle": (list(puzzles.RULES), _gen_puzzle),
    "logic": (list(logic.RULES), _gen_self_contained(logic)),
    "counterfactual": (list(counterfactual.RULES), _gen_self_contained(counterfactual)),
}


def generated_items(
    data_dir: Path | None,
    categories: list[str],
    rules: dict[str, list[str] | None],
    per_rule: int,
    seed: int,
    level: int = 1,
) -> tuple[list[PoolItem], list[str]]:
    """``per_rule`` fresh questions of each chosen rule, plus three more as its three-shot examples.

    Returns the items and the categories skipped because they need official rule text and
    ``data_dir`` is missing.
    """
    out: list[PoolItem] = []
    skipped: list[str] = []
    for category in categories:
        available, generate = GENERATORS[category]
        official_rules: dict[str, KorRule] = {}
        if category not in SELF_CONTAINED:
            if data_dir is None or not data_dir.is_dir():
                skipped.append(category)
                continue
            official_rules = load_rules(data_dir, category)
        for rule_id in _chosen(available, rules.get(category), category, "generated"):
            made = generate(rule_id, per_rule + N_SHOTS, seed, level, official_rules.get(rule_id))
            for item in made[:per_rule]:
                # Examples only where they follow the very rule text shown: a counterfactual item's
                # story is its own, so its extra items (other worlds) cannot be its examples.
                shots = tuple((it.question, it.answer) for it in made[per_rule:] if it.rule == item.rule)
                out.append(PoolItem(item, "generated", shots, {"level": level}))
    return out, skipped


def check_categories(categories: list[str]) -> list[str]:
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise ConfigError(f"kor categories {unknown} unknown; known: {', '.join(CATEGORIES)}")
    return categories
