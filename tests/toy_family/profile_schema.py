"""The toy family's profile knobs: each one's type and default."""

from relreason_dagster.benchmarks.base import FamilyKnobs


class Knobs(FamilyKnobs):
    n: int = 8
    max_tokens: int = 8
