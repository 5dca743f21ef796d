"""Self-Contra's data-quality bounds (the shared checks read them; it has no check of its own)."""

from __future__ import annotations

from relreason_dagster.benchmarks.base import FamilyCheck, QualityBounds

QUALITY = QualityBounds(
    # Share of items whose answer is the first-named candidate: the built-in generator is balanced by
    # construction, the study's datasets are roughly balanced.
    label_balance={"*": (0.2, 0.8), "generated": (0.5, 0.5)},
    # Zero-shot Wino questions are one sentence; few-shot ones carry six demonstrations.
    token_ranges={
        "zero_answer": (20, 512),
        "zero_reason": (20, 512),
        "few_answer": (200, 4096),
        "few_reason": (200, 4096),
    },
)

CHECKS: tuple[FamilyCheck, ...] = ()
