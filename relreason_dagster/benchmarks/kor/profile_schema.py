"""The knobs a KOR-Bench profile may set: each one's type and default, declared once.

``relreason_dagster.profiles`` checks every kor section (built-in ``profiles.yaml`` and the user's
file) against :class:`Knobs`; a knob a section leaves out (or sets to null) reads as the default here.
Rule ids are strings (``"17"``), as in the official data; ``rules: {}`` means every rule.
``max_tokens`` is one cap or one per setting (a setting it leaves out gets ``DEFAULT_MAX_TOKENS``).
"""

from __future__ import annotations

from pydantic import Field

from relreason_dagster.benchmarks.base import FamilyKnobs
from relreason_dagster.benchmarks.kor.data import CATEGORIES
from relreason_dagster.benchmarks.kor.prompts import ZERO_SHOT

DEFAULT_MAX_TOKENS = 1024
DEFAULT_CONTEXT_TOKENS = 4096


class Knobs(FamilyKnobs):
    """A kor section: where the questions come from, which rules and settings, the follow-up steps."""

    source: str = "auto"  # official | generated | auto (official when the data folder exists)
    data_dir: str = "korbench/data"  # relative to the reference folder (null: this default)
    categories: list[str] = Field(default_factory=lambda: list(CATEGORIES))
    rules: dict[str, list[str]] = Field(default_factory=dict)
    generated_rules: dict[str, list[str]] = Field(default_factory=dict)
    questions_per_rule: int = 10
    level: int = 1
    settings: list[str] = Field(default_factory=lambda: [ZERO_SHOT])
    settings_by_kind: dict[str, list[str]] = Field(default_factory=dict)
    mixed: dict[str, int] = Field(default_factory=dict)
    self_correction_rounds: int = 0
    stepwise: bool = False
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    max_tokens: int | dict[str, int] = DEFAULT_MAX_TOKENS
    # The study's released evaluation files (relative to the reference folder): its models beside ours in
    # §5's marts (released.py); null reads none.
    released_dir: str | None = None
