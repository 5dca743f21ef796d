"""What the report shows of the toy family: a section with its own figure, a table and its made-up
"study" beside the scripted model, found by name like every family's ``report.py``.

Nothing outside ``tests/toy_family/`` knows any of this: the report renders it because the toy is
registered (``tests/integration/families/test_toy_family.py``).  The toy has no comparison mart in dbt, so its
comparison is a query over the shared marts (``marts.accuracy``, ``marts.study_reference``).
"""

from __future__ import annotations

from typing import Any

from relreason_dagster.benchmarks import plotting
from relreason_dagster.benchmarks.base import (
    Comparison,
    FigureSpec,
    HeadlineTable,
    ReportSection,
    ReportTable,
    Rows,
)
from tests.toy_family.family import BENCHMARK


def draw_toy(rows_by_mart: dict[str, Rows]) -> Any:
    """Accuracy per model (bars, 95% Wilson whiskers) and the made-up published numbers (diamonds)."""
    plt = plotting.plt()
    ours = [r for r in rows_by_mart["marts.accuracy"] if r["benchmark"] == BENCHMARK]
    theirs = [
        r
        for r in rows_by_mart["marts.study_reference"]
        if r["family"] == BENCHMARK and r["value"] is not None
    ]
    fig, ax = plt.subplots(figsize=(plotting.WIDTH_IN, 2.6))
    if not ours and not theirs:
        plotting.no_data(ax, "No toy answers yet: run `relreason run --model M --benchmark toy`.")
        return fig
    names = [r["model"] for r in ours] + [r["model"] for r in theirs]
    colors = plotting.model_colors(names)
    ax.barh(
        [names.index(r["model"]) for r in ours],
        [r["accuracy"] for r in ours],
        color=[colors[r["model"]] for r in ours],
        xerr=plotting.error_bars(ours, "accuracy", "ci_low", "ci_high"),
        label="our models",
    )
    ax.scatter(
        [r["value"] for r in theirs],
        [names.index(r["model"]) for r in theirs],
        marker="D",
        facecolors="none",
        edgecolors="#d62728",
        label="published (made up)",
    )
    ax.set_yticks(range(len(names)), names)
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("accuracy")
    bottom = plotting.legend_below(fig, [ax], ncol=2)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


FIGURES = (
    FigureSpec(
        name="toy_accuracy",
        asset_name="toy_plot",
        study=BENCHMARK,
        title="Toy: parity accuracy",
        caption="Accuracy of each model on the parity questions, beside the toy's made-up published numbers.",
        marts=("marts.accuracy", "marts.study_reference"),
        draw=draw_toy,
        hint=f"relreason run --model M --benchmark {BENCHMARK}",
    ),
)

ACCURACY = ReportTable(
    key="toy_accuracy",
    title="Toy: accuracy per setting",
    note="Share of right parity answers (marts.accuracy).",
    marts=("marts.accuracy",),
    row_keys=("task", "setting"),
    sql=f"SELECT task, setting, model, n_correct AS k, n FROM marts.accuracy WHERE benchmark = '{BENCHMARK}'",
    counts=True,
)

VS_STUDY = Comparison(
    key="toy_vs_study",
    title="Toy: our models beside the toy's made-up study",
    row_keys=("task", "setting"),
    sql=f"""
        SELECT task, setting, model, false AS published, 'relreason' AS source, 'accuracy' AS metric,
               accuracy AS value, ci_low, ci_high, n, NULL AS note, true AS comparable, NULL AS why_not
        FROM marts.accuracy WHERE benchmark = '{BENCHMARK}'
        UNION ALL
        SELECT task, setting, model, true, source, metric, value, NULL, NULL, NULL, note, comparable, why_not
        FROM marts.study_reference WHERE family = '{BENCHMARK}'
    """,
    needs=("marts.accuracy", "marts.study_reference"),
    note="Accuracy; the published columns are the toy's made-up table (tests/toy_family/published.csv).",
    footnote="Protocol: the toy's study is made up for the test; it asks the same questions.",
)

SECTIONS = (
    ReportSection(
        key=BENCHMARK,
        title="Toy: is this number even?",
        label="Toy",
        order=90,
        figures=FIGURES,
        tables=(ACCURACY,),
        comparisons=(VS_STUDY,),
    ),
)

HEADLINES = (
    HeadlineTable(
        "marts.accuracy (toy: parity)",
        "SELECT model, task, setting, n, n_correct, accuracy FROM marts.accuracy "
        f"WHERE benchmark = '{BENCHMARK}'",
    ),
)
