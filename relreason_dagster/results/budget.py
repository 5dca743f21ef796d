"""The report's "Thinking budget" section: per study, accuracy against reasoning tokens along each swept
model's levels (issue 55, item 2).

Family-agnostic, like the "Reasoning traces" section: every registered family may have a
``marts.<family>_budget`` mart (its ``dbt/marts``, built by ``macros/budget.sql``, one shape for all), and
a figure is drawn for each one that has rows.  Rows exist only for the variants of a ``sweep:`` entry
(``raw.model_sweeps``), so without a sweep the section is left out: a page of empty panels would say
nothing.  The figure pools the study's own axis (lengths, categories, tasks) per base model x level,
weighting each cell by its answers; the mart keeps them apart, with the intervals and paired tests.
"""

from __future__ import annotations

from typing import Any

from relreason_dagster.benchmarks.base import FigureSpec, Rows
from relreason_dagster.benchmarks.plotting import WIDTH_IN, model_colors, no_data, plt
from relreason_dagster.benchmarks.registry import family_sections
from relreason_dagster.results.figures import ordered_families, read_marts
from relreason_dagster.results.html_cells import escape as _e

ANCHOR = "thinking-budget"
TITLE = "Thinking budget"
HINT = "add a sweep: to a models.yaml entry (reasoning_effort: [low, medium, high]) and run it"


def mart_of(family: str) -> str:
    """The budget mart of ``family`` (it may have none: then it reads as no rows)."""
    return f"marts.{family}_budget"


def pooled(rows: Rows) -> dict[str, list[dict[str, Any]]]:
    """Per base model, its levels in rank order with accuracy, mean reasoning tokens and cut share pooled
    over the study's axis (each cell weighted by its answers, n)."""
    cells: dict[tuple[str, int], dict[str, Any]] = {}
    for r in rows:
        n = r["n"] or 0
        cell = cells.setdefault(
            (r["base_model"], r["level_rank"]),
            {"level": r["level"], "param": r["param"], "n": 0, "score": 0.0, "tokens": 0.0, "cut": 0},
        )
        cell["n"] += n
        cell["score"] += (r["accuracy"] or 0.0) * n
        cell["tokens"] += (r["mean_reasoning_tokens"] or 0.0) * n
        cell["cut"] += r["n_cut"] or 0
    out: dict[str, list[dict[str, Any]]] = {}
    for (base, rank), c in sorted(cells.items()):
        if not c["n"]:
            continue
        out.setdefault(base, []).append(
            {
                "rank": rank,
                "level": c["level"],
                "param": c["param"],
                "n": c["n"],
                "accuracy": c["score"] / c["n"],
                "reasoning_tokens": c["tokens"] / c["n"],
                "cut_share": c["cut"] / c["n"],
            }
        )
    return out


def draw(mart: str) -> Any:
    """A ``FigureSpec.draw`` for ``mart``: one line per base model through its levels, accuracy against
    mean reasoning tokens; each point's size grows with its cut share, which its label prints."""

    def _draw(rows_by_mart: dict[str, Rows]) -> Any:
        pyplot = plt()
        fig, ax = pyplot.subplots(1, 1, figsize=(WIDTH_IN, 4.2))
        rows = rows_by_mart.get(mart, [])
        lines = pooled(rows)
        if not lines:
            no_data(ax, f"No sweep answered yet: {HINT}.")
            return fig
        metric = "F1" if {r.get("metric") for r in rows} == {"f1"} else "accuracy"
        colors = model_colors(list(lines))
        for base, points in lines.items():
            xs = [p["reasoning_tokens"] for p in points]
            ys = [p["accuracy"] for p in points]
            ax.plot(xs, ys, "-", color=colors[base], label=f"{base} ({points[0]['param']})", zorder=2)
            ax.scatter(
                xs,
                ys,
                s=[30 + 400 * p["cut_share"] for p in points],
                color=colors[base],
                edgecolors="black",
                linewidths=[1.5 if p["cut_share"] > 0 else 0.3 for p in points],
                zorder=3,
            )
            for p in points:
                cut = f", cut {p['cut_share']:.0%}" if p["cut_share"] > 0 else ""
                ax.annotate(
                    f"{p['level']}{cut}",
                    (p["reasoning_tokens"], p["accuracy"]),
                    textcoords="offset points",
                    xytext=(6, 6),
                    fontsize=8,
                )
        spread = [p["reasoning_tokens"] for points in lines.values() for p in points]
        if min(spread) > 0 and max(spread) / min(spread) > 20:
            ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.05)
        ax.set_xlabel("mean reasoning tokens per answer")
        ax.set_ylabel(metric)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
        fig.tight_layout()
        return fig

    return _draw


def _label(family: str) -> str:
    labels = [section.label for section in family_sections(family)]
    return labels[0] if labels else family


def budget_figures() -> tuple[FigureSpec, ...]:
    """One figure per registered family, in report order, each reading its ``<family>_budget`` mart."""
    specs = []
    for family in ordered_families():
        label = _label(family)
        specs.append(
            FigureSpec(
                name=f"{family}_budget",
                asset_name=f"{family}_budget_figure",
                study=family,
                title=f"{label}: accuracy against reasoning tokens, by level",
                caption=(
                    "One line per swept model through its levels (each point labelled with its level); "
                    "accuracy and mean reasoning tokens per answer over every draw, pooled over the "
                    "study's own axis; a point's size grows with the share of answers the token or "
                    "thinking budget cut, printed beside it.  Intervals and the paired tests between "
                    f"adjacent levels: {mart_of(family)}."
                ),
                marts=(mart_of(family),),
                draw=draw(mart_of(family)),
                hint=HINT,
            )
        )
    return tuple(specs)


def swept_figures(con: Any) -> list[FigureSpec]:
    """The budget figures whose mart has rows: none when no sweep ran (the section is then left out)."""
    specs = budget_figures()
    rows = read_marts(con, [m for spec in specs for m in spec.marts])
    return [spec for spec in specs if any(rows[m] for m in spec.marts)]


def section_intro(specs: list[FigureSpec]) -> str:
    """The section's text above its figures."""
    marts = ", ".join(f"<code>{_e(mart_of(spec.study))}</code>" for spec in specs)
    return (
        "<p>The variants of a <code>sweep:</code> entry (<code>&lt;name&gt;@&lt;param&gt;=&lt;level&gt;"
        "</code>) answered the same items at each level of the swept parameter.  Per study: how much they "
        "thought and how often they were right, and how many answers the budget stopped.  Each mart "
        "also holds the study's own axis, accuracy with its 95% interval clustered by item, mean answer "
        "tokens and the exact McNemar test between adjacent levels on the same items (Holm-adjusted over "
        f"each base model's tests): {marts}.</p>"
    )
