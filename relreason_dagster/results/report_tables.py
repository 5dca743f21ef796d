"""The HTML report's result tables: one row per benchmark slice, one column per model, each cell a value
with its 95% interval; and the comparison tables, where the study's published models are columns too.

Each table (``benchmarks.base.ReportTable``) is a query on the marts returning long rows (row keys,
``model``, ``value``, ``low``, ``high``, ``n``); :func:`pivot` turns them wide, models as columns, the
way a results table in a paper reads.  Pooled rates (accuracy over a benchmark's tasks) come with
their Wilson interval computed from the pooled counts; per-slice values keep the mart's own interval.
The overview tables every family shares are here; a family's own are declared in its ``report.py``
and found through the registry, so nothing here knows a family.  A comparison
(``benchmarks.base.Comparison``) reads a ``<family>_vs_study`` mart, whose ``published`` rows become
columns marked with the paper's table; its optional ``comparable`` / ``why_not`` columns go into each
cell, so the page can mark a pair that is not like with like.  (The plain-text tables a run prints at
its end are ``results/headline.py``'s.)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from relreason_dagster.benchmarks.base import COMPARABILITY_COLUMNS, Comparison, ReportTable
from relreason_dagster.results.figures import existing_tables, report_sections

WideTable = ReportTable  # the name this module used before tables moved into the families


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float | None, float | None]:
    """95% Wilson score interval of ``k`` successes in ``n`` (the marts' ``wilson_low/high`` macros)."""
    if not n:
        return None, None
    p = k / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    denom = 1 + z * z / n
    return (centre - half) / denom, (centre + half) / denom


# The tables of every family's rows, shown in the report's overview.
OVERVIEW_TABLES: tuple[ReportTable, ...] = (
    ReportTable(
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
    ReportTable(
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
    # Issue 55, item 3: the answers a token or thinking budget stopped, which count as N/A or wrong as
    # the study scores them; on a small budget they can be most of the N/A, and no other table says so.
    ReportTable(
        key="cut",
        title="Answers cut by the token or thinking budget",
        note="Share of answers the budget stopped (finish_reason length, or thinking with no answer after "
        "it; macros/cut.sql), pooled over the benchmark's tasks and settings; each is scored as it was "
        "parsed (N/A or wrong), so the accuracy above already counts it.  95% Wilson interval; "
        "cut / answers (marts.accuracy n_cut / n).",
        marts=("marts.accuracy",),
        row_keys=("benchmark",),
        sql="SELECT benchmark, model, sum(n_cut) AS k, sum(n) AS n FROM marts.accuracy "
        "GROUP BY ALL ORDER BY benchmark",
        counts=True,
        fraction=True,
    ),
)


def all_tables() -> tuple[ReportTable, ...]:
    """The overview tables, then every registered family's section tables, in section order."""
    return OVERVIEW_TABLES + tuple(t for section in report_sections() for t in section.tables)


@dataclass
class Cell:
    value: float | None
    low: float | None
    high: float | None
    n: int
    note: str | None = None
    # A comparison's cell: false when it does not stand beside the other side like with like (other
    # items, another pool or count per point), with the one-line reason; None when the rows do not say.
    comparable: bool | None = None
    why_not: str | None = None
    k: int | None = None  # the count of a ``fraction`` table's cell (shown as k/n)


@dataclass
class PivotedTable:
    """A pivoted table: ``rows`` of (row key values, {model: Cell})."""

    spec: ReportTable
    models: list[str]
    rows: list[tuple[tuple[Any, ...], dict[str, Cell]]]


def row_sort(values: tuple[Any, ...], first: tuple[str, ...] = (), last: tuple[str, ...] = ()) -> tuple:
    """Sort key of a row: values in ``first`` in that order (a study's task order), those in ``last``
    at the end (an "overall" row), numbers by value, everything else by its text."""
    out = []
    for v in values:
        if v in first:
            out.append((0, first.index(v), ""))
        elif v in last:
            out.append((2, last.index(v), ""))
        else:
            out.append((1, v if isinstance(v, int | float) else 0, str(v)))
    return tuple(out)


def _records(con: Any, sql: str) -> list[dict[str, Any]]:
    cur = con.execute(sql)
    columns = [d[0] for d in cur.description]
    return [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]


def pivot(spec: ReportTable, records: list[dict[str, Any]]) -> PivotedTable:
    """Long rows -> one row per row key, one Cell per model (models sorted, ``last_models`` at the end)."""
    models = sorted({r["model"] for r in records}, key=lambda m: (m in spec.last_models, m))
    table: dict[tuple[Any, ...], dict[str, Cell]] = {}
    for r in records:
        if spec.counts:
            k, n = int(r["k"] or 0), int(r["n"] or 0)
            low, high = wilson(k, n)
            cell = Cell(k / n if n else None, low, high, n, k=k if spec.fraction else None)
        else:
            cell = Cell(r["value"], r["low"], r["high"], int(r["n"] or 0))
        table.setdefault(tuple(r[k] for k in spec.row_keys), {})[r["model"]] = cell
    rows = sorted(table.items(), key=lambda item: row_sort(item[0], spec.first, spec.last))
    return PivotedTable(spec, models, rows)


def wide_tables(con: Any, tables: tuple[ReportTable, ...] | None = None) -> list[PivotedTable]:
    """Every table (default: :func:`all_tables`) whose marts exist and hold rows (an empty one is left
    out, not shown blank)."""
    present = existing_tables(con)
    out = []
    for spec in all_tables() if tables is None else tables:
        if not all(m in present for m in spec.marts):
            continue
        records = _records(con, spec.sql)
        if records:
            out.append(pivot(spec, records))
    return out


# --- the study beside ours ---------------------------------------------------------------------------

# The columns of a comparison mart after its row keys (the convention every <family>_vs_study follows),
# and, optional after them, whether the row is like with like (``benchmarks.base.COMPARABILITY_COLUMNS``).
COMPARISON_COLUMNS = (
    "model",
    "published",
    "source",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "note",
    *COMPARABILITY_COLUMNS,
)


@dataclass(frozen=True)
class Column:
    """A model column: ours (``published`` false) or the study's, with the table it was printed in."""

    model: str
    published: bool
    source: str | None


@dataclass
class ComparisonTable:
    spec: Comparison
    row_keys: tuple[str, ...]
    columns: list[Column]
    rows: list[tuple[tuple[Any, ...], dict[Column, Cell]]]


def comparison_keys(spec: Comparison, columns: list[str], records: list[dict[str, Any]]) -> tuple[str, ...]:
    """The row keys: the declared ones, else the mart's columns before ``model`` (the convention);
    ``metric`` joins them when the rows hold more than one; a key that is null on every row is
    dropped."""
    if spec.row_keys and all(k in columns for k in spec.row_keys):
        keys = spec.row_keys
    else:
        keys = tuple(columns[: columns.index("model")]) if "model" in columns else ()
        keys = tuple(k for k in keys if k not in COMPARISON_COLUMNS)
    if "metric" not in keys and len({r.get("metric") for r in records}) > 1:
        keys = (*keys, "metric")
    # A key no row fills (a split neither the study nor we name) would be an empty column: left out.
    return tuple(k for k in keys if any(r.get(k) is not None for r in records))


def _natural(text: str) -> tuple[Any, ...]:
    """Table 2 before Table 10: digit runs compare as numbers."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", text))


def pivot_comparison(spec: Comparison, columns: list[str], records: list[dict[str, Any]]) -> ComparisonTable:
    """Long comparison rows -> one row per key, one Cell per model column; our models first (sorted,
    ``last_models`` at their end), then the study's in the order the rows give them.

    A published model printed in several of the study's tables is one column (its header names them
    all) unless two of those tables print a number for the same row: then each table is a column.
    """
    keys = comparison_keys(spec, columns, records)
    seen: dict[tuple[str, str | None], None] = {}
    for r in records:
        if r.get("published"):
            seen.setdefault((str(r["model"]), r.get("source")))
    cells_of: dict[tuple[tuple[Any, ...], str], set[str | None]] = {}
    for r in records:
        if r.get("published"):
            cells_of.setdefault((tuple(r.get(k) for k in keys), str(r["model"])), set()).add(r.get("source"))
    split = {model for (_, model), sources in cells_of.items() if len(sources) > 1}
    merged: dict[str, list[str]] = {}
    for model, source in seen:
        if model not in split:
            merged.setdefault(model, []).append(str(source or "the study"))

    def column_of(r: dict[str, Any]) -> Column:
        model = str(r["model"])
        if not r.get("published"):
            return Column(model, False, None)
        if model in merged:
            return Column(model, True, ", ".join(sorted(merged[model], key=_natural)))
        return Column(model, True, r.get("source"))

    ours: set[Column] = set()
    theirs: dict[Column, None] = {}
    table: dict[tuple[Any, ...], dict[Column, Cell]] = {}
    for r in records:
        column = column_of(r)
        if column.published:
            theirs.setdefault(column)
        else:
            ours.add(column)
        n = r.get("n")
        comparable = r.get("comparable")
        cell = Cell(
            r.get("value"),
            r.get("ci_low"),
            r.get("ci_high"),
            int(n or 0),
            r.get("note"),
            None if comparable is None else bool(comparable),
            r.get("why_not"),
        )
        table.setdefault(tuple(r.get(k) for k in keys), {})[column] = cell
    mine = sorted(ours, key=lambda c: (c.model in spec.last_models, c.model))
    rows = sorted(table.items(), key=lambda item: row_sort(item[0], spec.first, spec.last))
    return ComparisonTable(spec, keys, [*mine, *theirs], rows)


def comparison_tables(con: Any, specs: tuple[Comparison, ...]) -> list[ComparisonTable]:
    """The comparisons whose relations exist and hold rows (one another helper's mart may come later)."""
    present = existing_tables(con)
    out = []
    for spec in specs:
        if not spec.relations or not all(r in present for r in spec.relations):
            continue
        cur = con.execute(spec.query())
        columns = [d[0] for d in cur.description]
        records = [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
        if records and "model" in columns:
            out.append(pivot_comparison(spec, columns, records))
    return out
