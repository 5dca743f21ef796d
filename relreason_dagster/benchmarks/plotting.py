"""Shared matplotlib helpers for the families' report figures (``report.py`` in each family folder).

A family draws its own figures (it knows what its marts mean); what every figure shares is here: the
fixed size (8 in at 100 dpi, 800 px: narrow enough for the Dagster UI's metadata view, wide enough to
read in the report), a stable colour per model, the panel that says why it is empty, interval
whiskers, grouped horizontal bars and one legend under the panels.  ``results/figures.py`` renders
the figures to PNG; nothing here knows a family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Rows = list[dict[str, Any]]
WIDTH_IN = 8.0
DPI = 100


def plt() -> Any:
    """``matplotlib.pyplot`` on the Agg backend (no display: figures are written to PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


def model_colors(models: Sequence[str], fixed: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A stable colour per model (sorted names over tab10); ``fixed`` pins some (a baseline's black)."""
    palette = plt().get_cmap("tab10").colors
    pinned = dict(fixed or {})
    others = sorted(m for m in set(models) if m not in pinned)
    colors = {m: palette[i % len(palette)] for i, m in enumerate(others)}
    colors.update(pinned)
    return colors


def no_data(ax: Any, message: str) -> None:
    """An empty panel that says why it is empty (instead of a blank or a crash)."""
    ax.set_xticks([])
    ax.set_yticks([])
    for side in ax.spines.values():
        side.set_color("#bbbbbb")
        side.set_linestyle((0, (4, 3)))
    ax.text(
        0.5,
        0.5,
        message,
        ha="center",
        va="center",
        fontsize=9,
        color="#666666",
        wrap=True,
        transform=ax.transAxes,
    )


def error_bars(rows: Rows, value: str, low: str, high: str) -> list[list[float]]:
    """Error-bar lengths below and above ``value`` (0 where the interval is missing)."""
    below, above = [], []
    for r in rows:
        v = r.get(value) or 0.0
        below.append(max(0.0, v - r[low]) if r.get(low) is not None else 0.0)
        above.append(max(0.0, r[high] - v) if r.get(high) is not None else 0.0)
    return [below, above]


def hbars(
    ax: Any,
    rows: Rows,
    groups: list[str],
    series: list[str],
    series_of: Callable,
    group_of: Callable,
    value: str,
    low: str,
    high: str,
    colors: dict[str, Any],
    labels: dict[str, str] | None = None,
) -> None:
    """Horizontal bars: one row per group, one bar per series within it, with interval whiskers."""
    height = 0.8 / max(1, len(series))
    for i, name in enumerate(series):
        points = [r for r in rows if series_of(r) == name]
        if not points:  # an empty bar container would put a wrongly coloured entry in the legend
            continue
        y = [groups.index(group_of(r)) + (i - (len(series) - 1) / 2) * height for r in points]
        ax.barh(
            y,
            [r.get(value) or 0.0 for r in points],
            height=height * 0.92,
            color=colors.get(name),
            xerr=error_bars(points, value, low, high),
            error_kw={"elinewidth": 0.8, "capsize": 1.5},
            label=(labels or {}).get(name, name),
        )
        # A tick at each bar's end: a score of 0 is a result, not a missing bar.
        ax.scatter([r.get(value) or 0.0 for r in points], y, marker="|", s=40, color=colors.get(name))
    ax.set_yticks(range(len(groups)), groups)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.grid(axis="x", alpha=0.3)


def legend_below(fig: Any, axes: Sequence[Any], ncol: int = 4) -> float:
    """One legend for the whole figure under the panels; returns the bottom margin it needs."""
    seen: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            seen.setdefault(label, handle)
    if not seen:
        return 0.0
    ncol = min(ncol, len(seen))
    fig.legend(list(seen.values()), list(seen), loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    return 0.04 + 0.035 * ((len(seen) + ncol - 1) // ncol)
