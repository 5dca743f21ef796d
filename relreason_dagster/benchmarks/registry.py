"""The benchmark families the pipeline knows, by name."""

from __future__ import annotations

from relreason_dagster.benchmarks.base import BenchmarkFamily
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.kor.family import KorFamily
from relreason_dagster.benchmarks.relational.family import RelationalFamily
from relreason_dagster.benchmarks.selfcontra.family import SelfContraFamily
from relreason_dagster.errors import ConfigError

FAMILIES: dict[str, BenchmarkFamily] = {
    "relational": RelationalFamily(),
    "flenqa": FlenqaFamily(),
    "selfcontra": SelfContraFamily(),
    "kor": KorFamily(),
}


def family_names() -> list[str]:
    return sorted(FAMILIES)


def get_family(name: str) -> BenchmarkFamily:
    """The family registered as ``name``; an unknown one is a one-line ConfigError."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ConfigError(f"unknown benchmark {name!r}; known: {', '.join(family_names())}") from None
