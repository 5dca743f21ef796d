"""The knobs a relational profile may set: each one's type and default, declared once.

``relreason_dagster.profiles`` checks every relational section (built-in ``profiles.yaml`` and the
user's file) against :class:`Knobs`; a knob a section leaves out (or sets to null) reads as the default
here.  ``dlm_*`` knobs size the DLM baseline (``dlm/plan.py``): ``dlm_tasks`` null is every task,
``dlm_train_size`` null the stored few-shot samples, ``dlm_recipe`` null each task's default recipe.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from relreason_dagster.benchmarks.base import FamilyKnobs
from relreason_dagster.benchmarks.reasoning_source import DEFAULT, ReasoningSource
from relreason_dagster.benchmarks.relational.family_tree import DEFAULT_VARIANT

# The study's prompt settings, the knob's default (prompts.py reads them from here).
SETTINGS = ("nl", "nl_cot", "tv")


class Knobs(FamilyKnobs):
    """A relational section: sample counts per split, graph sizes, prompt settings, the DLM's plan."""

    n_fewshot: int = 10
    n_fewshot_cot: int = 1
    n_iid: int = 10
    n_ood: int = 10
    n_train_nodes: int = 10
    n_ood_nodes: int = 20
    settings: list[str] = Field(default_factory=lambda: list(SETTINGS))
    # Per-split restriction of ``settings`` (the smoke profile skips the longest OOD prompts).
    split_settings: dict[str, list[str]] = Field(default_factory=dict)
    max_tokens: int = 512
    family_tree_variant: str = DEFAULT_VARIANT
    dlm_tasks: list[str] | None = None
    dlm_seeds: list[int] = Field(default_factory=lambda: [0])
    dlm_train_size: int | None = None
    dlm_overrides: dict[str, Any] = Field(default_factory=dict)
    dlm_recipe: str | None = None
    dlm_recipes: list[str] | None = None
    dlm_recipe_overrides: dict[str, dict[str, Any] | None] | None = None  # recipe -> its overrides
    # Which text the symbolic CoT check reads: the answer, the reasoning trace, or both (auto: both for a
    # model with traces, the answer otherwise; benchmarks/reasoning_source.py).
    reasoning_source: ReasoningSource = DEFAULT
