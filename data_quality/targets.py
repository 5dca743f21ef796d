"""The bounds the shared data-quality suites enforce, looked up in the family that declares them.

Each family states its bounds in its own folder (``benchmarks/<family>/checks.py``: ``QUALITY``, a
``QualityBounds``): label balance per task, input tokens per prompt setting, the least parse rate.
A benchmark no registered family claims gets the permissive defaults.
"""

from __future__ import annotations

from relreason_dagster.benchmarks.base import QualityBounds
from relreason_dagster.benchmarks.registry import FAMILIES, family_quality

# The least share of readable answers (ok / (ok + na)) per model when a family sets none.
MIN_PARSE_RATE = QualityBounds().min_parse_rate


def quality(benchmark: str) -> QualityBounds:
    return family_quality(benchmark) if benchmark in FAMILIES else QualityBounds()


def has_labels(benchmark: str) -> bool:
    """Whether the family's golds are labels whose balance is checked (KOR's answers are not)."""
    return quality(benchmark).label_balance is not None


def label_bounds(benchmark: str, task: str) -> tuple[float, float]:
    """(min, max) positive share of gold cells for ``task``: its own bounds, else the family's ``*``."""
    family = quality(benchmark).label_balance or {}
    return family.get(task, family.get("*", (0.0, 1.0)))


def token_range(benchmark: str, setting: str) -> tuple[int, int]:
    """(min, max) input tokens of a prompt in ``setting``."""
    return quality(benchmark).token_ranges.get(setting, (1, 10**9))


def min_parse_rate(benchmark: str) -> float:
    return quality(benchmark).min_parse_rate


def parse_statuses(benchmark: str) -> tuple[str, ...] | None:
    """The parse statuses the family declares (None: any), plus the pipeline's ``error``."""
    declared = getattr(FAMILIES.get(benchmark), "parse_statuses", None)
    return None if declared is None else (*declared, "error")
