"""What every KOR-Bench item generator shares: its call, its difficulty levels and its errors.

Each generator module (``operations``, ``ciphers``, ``puzzles``, ``logic``, ``counterfactual``)
exposes ``generate(rule_id, n, seed, level=1)``: ``n`` items of one rule, the same items for the
same arguments.  A module may add keyword-only options with defaults (a cipher's fixed key, a
puzzle's grid size), so ``items.py`` and the tests call all five the same way.  An unknown rule or
level is a :class:`~relreason_dagster.errors.ConfigError` with one line naming what is known, so
a profile's typo reads the same whichever category it is in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from relreason_dagster.errors import ConfigError

LEVELS = (1, 2, 3)
"""Difficulty levels; each generator says what a level changes (operand size, formula depth, ...)."""


class Generate(Protocol):
    """The shared signature of every generator module's ``generate``."""

    def __call__(self, rule_id: str, n: int, seed: int, level: int = 1) -> Sequence[Any]: ...


def check_rule(category: str, rule_id: str, known: Iterable[str]) -> None:
    """Raise a one-line ``ConfigError`` naming the known rules when ``rule_id`` is not one of them."""
    known = list(known)
    if rule_id not in known:
        raise ConfigError(f"unknown generated {category} rule {rule_id!r}; known: {', '.join(known)}")


def check_level(category: str, level: int) -> None:
    """Raise a one-line ``ConfigError`` when ``level`` is not one of :data:`LEVELS`."""
    if level not in LEVELS:
        raise ConfigError(f"{category} level must be one of {', '.join(map(str, LEVELS))}, got {level!r}")
