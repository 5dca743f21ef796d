"""Set-based scoring shared by every benchmark family.

The study scores with F1 over positive cells because positives are rare; a
family turns its parsed answer into a set of cells and calls ``score_cells`` so
that tp/fp/fn land in ``raw.parsed_answers``.  Those counts are what parsing
found; F1 is a metric, computed once, in SQL (dbt ``int_answer_scores``).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from relreason_dagster.benchmarks.base import Parsed


def set_f1(pred: set[Hashable], gold: set[Hashable]) -> tuple[int, int, int, float]:
    """``(tp, fp, fn, f1)`` of a predicted set against the gold set; F1 is 1.0 when both are empty.

    For evaluation without a database (DLM experiments, benchmarks); nothing the pipeline stores or
    reports uses its F1.  ``tests/unit/marts/test_metric_marts.py`` keeps it equal to the mart's.
    """
    tp = len(pred & gold)
    fp = len(pred - gold)
    fn = len(gold - pred)
    denominator = 2 * tp + fp + fn
    f1 = 1.0 if denominator == 0 else 2 * tp / denominator
    return tp, fp, fn, f1


def score_cells(
    pred: set[Hashable],
    gold: set[Hashable],
    n_cells: int,
    parsed: Any,
    detail: dict[str, Any] | None = None,
) -> Parsed:
    """A readable answer: cell counts against the gold set, ``correct`` iff the sets are equal."""
    tp, fp, fn, _ = set_f1(pred, gold)
    return Parsed(
        parse_status="ok",
        parsed=parsed,
        tp=tp,
        fp=fp,
        fn=fn,
        pred_pos=len(pred),
        n_cells=n_cells,
        correct=pred == gold,
        detail=dict(detail or {}),
    )


def unreadable(gold: set[Hashable], n_cells: int, detail: dict[str, Any] | None = None) -> Parsed:
    """An unreadable answer (the study's N/A): nothing predicted, every gold cell missed."""
    return Parsed(
        parse_status="na",
        parsed=None,
        tp=0,
        fp=0,
        fn=len(gold),
        pred_pos=0,
        n_cells=n_cells,
        correct=False,
        detail=dict(detail or {}),
    )
