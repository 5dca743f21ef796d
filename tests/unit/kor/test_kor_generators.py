"""Every KOR-Bench generator is called the same way and refuses an unknown rule or level the same way.

``items.py`` calls all five with ``generate(rule_id, n, seed, level)``.  A generator that grew a
signature of its own, or raised its own error type for a profile's typo (a ``KeyError`` traceback
instead of the one-line ``ConfigError`` the CLI prints), would break that caller or that promise.
"""

from __future__ import annotations

import inspect
from types import ModuleType

import pytest

from relreason_dagster.benchmarks.kor import ciphers, counterfactual, items, logic, operations, puzzles
from relreason_dagster.benchmarks.kor.generate import LEVELS
from relreason_dagster.errors import ConfigError

MODULES: dict[str, ModuleType] = {
    "operation": operations,
    "cipher": ciphers,
    "puzzle": puzzles,
    "logic": logic,
    "counterfactual": counterfactual,
}
CATEGORIES = sorted(MODULES)

_POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
SHARED = [
    ("rule_id", _POSITIONAL, inspect.Parameter.empty),
    ("n", _POSITIONAL, inspect.Parameter.empty),
    ("seed", _POSITIONAL, inspect.Parameter.empty),
    ("level", _POSITIONAL, 1),
]


def test_every_generated_category_is_checked_here() -> None:
    assert set(MODULES) == set(items.GENERATORS)


@pytest.mark.parametrize("category", CATEGORIES)
def test_one_signature(category: str) -> None:
    params = list(inspect.signature(MODULES[category].generate).parameters.values())
    assert [(p.name, p.kind, p.default) for p in params[:4]] == SHARED
    for extra in params[4:]:  # a family's own options: keyword-only, with a default
        assert extra.kind is inspect.Parameter.VAR_KEYWORD or (
            extra.kind is inspect.Parameter.KEYWORD_ONLY and extra.default is not inspect.Parameter.empty
        ), f"{category}: {extra}"


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_shared_call_generates(category: str) -> None:
    rule_id = items.GENERATORS[category][0][0]
    for level in LEVELS:
        made = MODULES[category].generate(rule_id, 2, 3, level)
        assert len(made) == 2
        assert made == MODULES[category].generate(rule_id, 2, 3, level)  # same arguments, same items


@pytest.mark.parametrize("category", CATEGORIES)
def test_unknown_rule_is_one_line_config_error_naming_the_known_rules(category: str) -> None:
    known = items.GENERATORS[category][0]
    with pytest.raises(ConfigError) as info:
        MODULES[category].generate("no-such-rule", 0, 0)  # refused before any item is drawn
    assert str(info.value) == f"unknown generated {category} rule 'no-such-rule'; known: {', '.join(known)}"


@pytest.mark.parametrize("category", CATEGORIES)
def test_unknown_level_is_one_line_config_error(category: str) -> None:
    rule_id = items.GENERATORS[category][0][0]
    with pytest.raises(ConfigError) as info:
        MODULES[category].generate(rule_id, 0, 0, max(LEVELS) + 1)
    assert str(info.value) == f"{category} level must be one of 1, 2, 3, got {max(LEVELS) + 1}"
