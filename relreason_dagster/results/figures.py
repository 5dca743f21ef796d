"""The report's figures: whatever the registered families declare in their report sections, rendered
to PNG from the dbt marts.

A family declares each figure (``benchmarks.base.FigureSpec``: the marts it reads and its ``draw``
function) in its own ``report.py``; this module knows no family.  :func:`render` is the one rendering
path: the Dagster figure assets (``defs/figure_assets.py``) and ``relreason report`` both call it, so
the PNG in the UI's metadata and the one in the HTML report are the same picture.  A mart not built
yet reads as no rows, and every family's ``draw`` says so on its panel instead of failing: a report of
a relational-only run still renders every figure.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.base import FigureSpec, ReportSection, Rows
from relreason_dagster.benchmarks.plotting import DPI, WIDTH_IN, no_data, plt
from relreason_dagster.benchmarks.registry import family_names, family_sections, family_trace_figures
from relreason_dagster.common import atomic_files
from relreason_dagster.common.user_files import user_file

__all__ = [
    "DPI",
    "FIGURES",
    "WIDTH_IN",
    "FigureSpec",
    "all_figures",
    "empty_reason",
    "existing_tables",
    "get_figure",
    "ordered_families",
    "read_marts",
    "render",
    "render_rows",
    "report_sections",
    "trace_figures",
]


def _order(name: str) -> int:
    return min((section.order for section in family_sections(name)), default=100)


def ordered_families() -> list[str]:
    """The registered families in report order: by their first section's ``order``, then by name."""
    return sorted(family_names(), key=lambda name: (_order(name), name))


def report_sections() -> list[ReportSection]:
    """Every registered family's report sections, in their declared order (then by family name)."""
    found = [
        (section.order, name, i, section)
        for name in family_names()
        for i, section in enumerate(family_sections(name))
    ]
    return [section for *_, section in sorted(found, key=lambda f: f[:3])]


def all_figures() -> tuple[FigureSpec, ...]:
    """Every figure of the registered families' sections, in section order."""
    return tuple(spec for section in report_sections() for spec in section.figures)


def trace_figures() -> tuple[FigureSpec, ...]:
    """Every registered family's ``TRACE_FIGURES`` (the report's "Reasoning traces" section), in report
    order.  Not in :func:`all_figures`: they are drawn only when some model has reasoning traces."""
    return tuple(spec for name in ordered_families() for spec in family_trace_figures(name))


# The figures of the families registered when this module was imported (the Dagster assets are built
# from it); a family registered later is in :func:`all_figures`, which the report reads.
FIGURES: tuple[FigureSpec, ...] = all_figures()


def get_figure(name: str) -> FigureSpec:
    for spec in all_figures():
        if name in (spec.name, spec.asset_name):
            return spec
    raise KeyError(name)


def existing_tables(con: Any) -> set[str]:
    """``schema.table`` of every table and view in the DuckDB file."""
    return {
        f"{s}.{t}"
        for s, t in con.execute("SELECT table_schema, table_name FROM information_schema.tables").fetchall()
    }


def read_marts(con: Any, marts: Sequence[str]) -> dict[str, Rows]:
    """Every row of each mart as dicts; a mart dbt has not built yet reads as no rows."""
    present = existing_tables(con)
    out: dict[str, Rows] = {}
    for mart in marts:
        if mart not in present:
            out[mart] = []
            continue
        cur = con.execute(f"SELECT * FROM {mart}")
        columns = [d[0] for d in cur.description]
        out[mart] = [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
    return out


def render_rows(spec: FigureSpec, rows_by_mart: dict[str, Rows]) -> bytes:
    """The PNG of ``spec`` drawn from ``rows_by_mart`` (a missing mart counts as empty)."""
    pyplot = plt()
    fig = spec.draw({m: list(rows_by_mart.get(m, [])) for m in (*spec.marts, *spec.axis_marts)})
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, facecolor="white")
    pyplot.close(fig)
    return buffer.getvalue()


def empty_reason(spec: FigureSpec, con: Any, counts: dict[str, int]) -> str | None:
    """Why ``spec`` is empty when its family was answered: its declared ``empty`` line (the profile of
    the stored answers has no such configuration; which one has), or None when it has rows, declares
    nothing, or the family has no answers yet (then ``draw``'s own "no answers yet" panel says what to
    run)."""
    if not spec.empty or any(counts.values()) or "raw.parsed_answers" not in existing_tables(con):
        return None
    (answered,) = con.execute(
        "SELECT count(*) FROM raw.parsed_answers WHERE benchmark = ?", [spec.study]
    ).fetchone()
    return spec.empty if answered else None


def render_note(spec: FigureSpec, message: str) -> bytes:
    """A one-panel PNG that says ``message`` (an empty figure's reason), in the figures' size."""
    import textwrap

    pyplot = plt()
    fig, ax = pyplot.subplots(1, 1, figsize=(WIDTH_IN, 2.2))
    no_data(ax, "\n".join(textwrap.wrap(message, 95)))
    ax.set_title(spec.title, fontsize=10)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, facecolor="white")
    pyplot.close(fig)
    return buffer.getvalue()


def render(spec: FigureSpec, con: Any, out_dir: Path | None = None) -> tuple[bytes, dict[str, int]]:
    """Draw ``spec`` from the marts on ``con``; write ``out_dir/<name>.png`` when given.

    Returns the PNG and the row count per mart (what the asset's metadata and the report show).  A
    figure that is empty although its family was answered says why (:func:`empty_reason`).
    """
    rows = read_marts(con, spec.marts)
    counts = {m: len(r) for m, r in rows.items()}
    reason = empty_reason(spec, con, counts)
    png = (
        render_note(spec, reason)
        if reason
        else render_rows(spec, {**rows, **read_marts(con, spec.axis_marts)})
    )
    if out_dir is not None:
        with user_file(out_dir / spec.file_name, fix="make its folder writable"):
            out_dir.mkdir(parents=True, exist_ok=True)
            atomic_files.write_bytes(out_dir / spec.file_name, png)  # whole or not at all
    return png, counts
