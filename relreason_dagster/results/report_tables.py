"""The HTML report's result tables: one row per benchmark slice, one column per model, each cell a value
with its 95% interval.

Each :class:`WideTable` is a query on the marts returning long rows (row keys, ``model``, ``value``,
``low``, ``high``, ``n``); :func:`pivot` turns them wide, models as columns, the way a results
table in a paper reads.  Pooled rates (accuracy over a benchmark's tasks) come with their Wilson
interval computed from the pooled counts; per-slice values keep the mart's own interval.
(The plain-text tables a run prints at its end are ``results/headline.py``'s.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from relreason_dagster.results.figures import TASK_ORDER, existing_tables


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float | None, float | None]:
    """95% Wilson score interval of ``k`` successes in ``n`` (the marts' ``wilson_low/high`` macros)."""
    if not n:
        return None, None
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denom = 1 + z * z / n
    return (centre - half) / denom, (centre + half) / denom


@dataclass(frozen=True)
class WideTable:
    """A report table: its title, what the numbers are, the marts it needs and its long-form query."""

    key: str
    title: str
    note: str
    marts: tuple[str, ...]
    row_keys: tuple[str, ...]
    sql: str
    counts: bool = False  # the query returns k (successes) and n; the interval is Wilson over them


WIDE_TABLES: tuple[WideTable, ...] = (
    WideTable(
        key="accuracy",
        title="Accuracy per benchmark and prompt setting",
        note="Share of exactly right answers pooled over the slice's tasks (unreadable answers count as "
        "wrong), 95% Wilson interval; n = answers.",
        marts=("marts.accuracy",),
        row_keys=("benchmark", "split", "setting"),
        sql="SELECT benchmark, split, setting, model, sum(n_correct) AS k, sum(n) AS n FROM marts.accuracy "
        "GROUP BY ALL ORDER BY benchmark, split, setting",
        counts=True,
    ),
    WideTable(
        key="relational_f1",
        title="Relational reasoning: mean per-sample F1",
        note="Per task, split (IID n = 10, OOD n = 20) and prompt setting; 95% bootstrap interval over "
        "samples (marts.relational_f1).",
        marts=("marts.relational_f1",),
        row_keys=("task", "split", "setting"),
        sql="SELECT task, split, setting, model, f1 AS value, ci_low AS low, ci_high AS high, n "
        "FROM marts.relational_f1",
    ),
    WideTable(
        key="flenqa",
        title="FLenQA: accuracy by input length",
        note="Pooled over the three tasks; length 0 is the minimal text (key paragraphs only); 95% Wilson "
        "interval (marts.flenqa_accuracy_by_length).",
        marts=("marts.flenqa_accuracy_by_length",),
        row_keys=("setting", "length"),
        sql="SELECT setting, length, model, sum(n_correct) AS k, sum(n) AS n "
        "FROM marts.flenqa_accuracy_by_length GROUP BY ALL ORDER BY setting, length",
        counts=True,
    ),
    WideTable(
        key="kor",
        title="KOR-Bench: accuracy by category",
        note="Robust scorer, per question source and prompt setting; 95% Wilson interval "
        "(marts.kor_accuracy).",
        marts=("marts.kor_accuracy",),
        row_keys=("source", "setting", "category"),
        sql="SELECT source, setting, category, model, accuracy AS value, ci_low AS low, ci_high AS high, n "
        "FROM marts.kor_accuracy",
    ),
    WideTable(
        key="selfcontra",
        title="Self-Contra: judged Self-Contra rate of our models",
        note="Share of responses the judge labels self-contradictory, per dataset, setting and detection "
        "method; 95% Wilson interval (marts.selfcontra_judged).",
        marts=("marts.selfcontra_judged",),
        row_keys=("dataset", "setting", "method", "judge"),
        sql="SELECT dataset, setting, method, judge, model, judged_scr AS value, scr_ci_low AS low, "
        "scr_ci_high AS high, n_judged AS n FROM marts.selfcontra_judged",
    ),
    WideTable(
        key="parse_rate",
        title="Parse rate per benchmark",
        note="Share of responses the parser could read (ok / answered), pooled over tasks and settings; "
        "provider errors are not answers; 95% Wilson interval (marts.parse_rate).",
        marts=("marts.parse_rate",),
        row_keys=("benchmark",),
        sql="SELECT benchmark, model, sum(n_ok) AS k, sum(n_ok + n_na + n_refused) AS n "
        "FROM marts.parse_rate GROUP BY ALL ORDER BY benchmark",
        counts=True,
    ),
)


@dataclass
class Cell:
    value: float | None
    low: float | None
    high: float | None
    n: int


@dataclass
class PivotedTable:
    """A pivoted table: ``rows`` of (row key values, {model: Cell})."""

    spec: WideTable
    models: list[str]
    rows: list[tuple[tuple[Any, ...], dict[str, Cell]]]


def _model_key(model: str) -> tuple[bool, str]:
    return (model == "dlm", model)


def _row_sort(values: tuple[Any, ...]) -> tuple[Any, ...]:
    # Relational tasks in the study's order, KOR's "overall" last, everything else as is.
    out = []
    for v in values:
        if v in TASK_ORDER:
            out.append((0, TASK_ORDER.index(v), ""))
        elif v == "overall":
            out.append((2, 0, ""))
        else:
            out.append((1, v if isinstance(v, int | float) else 0, str(v)))
    return tuple(out)


def pivot(spec: WideTable, records: list[dict[str, Any]]) -> PivotedTable:
    """Long rows -> one row per row key, one Cell per model (models sorted, the DLM last)."""
    models = sorted({r["model"] for r in records}, key=_model_key)
    table: dict[tuple[Any, ...], dict[str, Cell]] = {}
    for r in records:
        if spec.counts:
            k, n = int(r["k"] or 0), int(r["n"] or 0)
            low, high = wilson(k, n)
            cell = Cell(k / n if n else None, low, high, n)
        else:
            cell = Cell(r["value"], r["low"], r["high"], int(r["n"] or 0))
        table.setdefault(tuple(r[k] for k in spec.row_keys), {})[r["model"]] = cell
    return PivotedTable(spec, models, sorted(table.items(), key=lambda item: _row_sort(item[0])))


def wide_tables(con: Any) -> list[PivotedTable]:
    """Every table whose marts exist and hold rows (an empty one is left out, not shown blank)."""
    present = existing_tables(con)
    out = []
    for spec in WIDE_TABLES:
        if not all(m in present for m in spec.marts):
            continue
        cur = con.execute(spec.sql)
        columns = [d[0] for d in cur.description]
        records = [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
        if records:
            out.append(pivot(spec, records))
    return out
