"""What the report shows of FLenQA: accuracy vs input length with the label bias (a figure drawn with
``plot.py``), accuracy by length pooled over tasks, and our models beside the study's published ones.

Found by name (``registry.family_sections``, ``family_headlines``); ``results/`` renders it without
knowing the family.
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
from relreason_dagster.benchmarks.flenqa.generate import BENCHMARK
from relreason_dagster.benchmarks.flenqa.plot import draw_accuracy_vs_length, draw_label_bias


def draw_flenqa(rows_by_mart: dict[str, Rows]) -> Any:
    """Accuracy vs input length per task (the study's Figure 1) and the label bias vs length."""
    plt = plotting.plt()
    acc = rows_by_mart["marts.flenqa_accuracy_by_length"]
    bias = rows_by_mart["marts.flenqa_label_bias"]
    tasks = sorted({r["task"] for r in acc})
    n_panels = max(1, len(tasks)) + 1
    ncols = 2
    nrows = (n_panels + 1) // 2
    fig, axes = plt.subplots(nrows, ncols, figsize=(plotting.WIDTH_IN, 2.7 * nrows + 0.5), squeeze=False)
    flat = list(axes.flat)
    colors = plotting.model_colors([r["model"] for r in acc + bias])
    if tasks:
        draw_accuracy_vs_length(flat[: len(tasks)], acc, colors)
    else:
        plotting.no_data(flat[0], "No FLenQA answers yet:\nrun `relreason run --model M --benchmark flenqa`.")
    bias_ax = flat[max(1, len(tasks))]
    if bias:
        draw_label_bias(bias_ax, bias, colors)
    else:
        plotting.no_data(bias_ax, "No FLenQA label bias yet.")
    for ax in flat[max(1, len(tasks)) + 1 :]:
        ax.set_visible(False)
    bottom = plotting.legend_below(fig, flat, ncol=3)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


FIGURES = (
    FigureSpec(
        name="flenqa_accuracy_vs_length",
        asset_name="flenqa_length_plot",
        study=BENCHMARK,
        title="FLenQA: accuracy vs input length, and label bias",
        caption='Accuracy per task vs the padded input length ("min" = key paragraphs only) with 95% '
        'Wilson bands, one line per model and prompt; the last panel is the share of "False" answers '
        "(the truth is 50%, dotted line), refusals as x on a dotted line.",
        marts=("marts.flenqa_accuracy_by_length", "marts.flenqa_label_bias"),
        draw=draw_flenqa,
        hint=f"relreason run --model M --benchmark {BENCHMARK}",
    ),
)

LENGTH_TABLE = ReportTable(
    key="flenqa",
    title="FLenQA: accuracy by input length",
    note="Pooled over the three tasks; length 0 is the minimal text (key paragraphs only); 95% Wilson "
    "interval (marts.flenqa_accuracy_by_length).",
    marts=("marts.flenqa_accuracy_by_length",),
    row_keys=("setting", "length"),
    sql="SELECT setting, length, model, sum(n_correct) AS k, sum(n) AS n "
    "FROM marts.flenqa_accuracy_by_length GROUP BY ALL ORDER BY setting, length",
    counts=True,
)

VS_STUDY = Comparison(
    key="flenqa_vs_study",
    title="FLenQA: our models beside the study's (Appendix C, Table 1)",
    mart="marts.flenqa_vs_study",
    note="Accuracy per task and prompt on the minimal text (key paragraphs only); columns marked "
    "published are the study's models as its Appendix C Table 1 prints them (marts.flenqa_vs_study).",
    footnote="Protocol: the study prints numbers only for the minimal text (the padded lengths are in "
    "its figures alone), so that is the one grid where ours and its meet; the padded lengths are in the "
    "figure and table above.",
)


SECTIONS = (
    ReportSection(
        key=BENCHMARK,
        title="FLenQA: same task, more tokens",
        label="FLenQA",
        order=20,
        figures=FIGURES,
        tables=(LENGTH_TABLE,),
        comparisons=(VS_STUDY,),
    ),
)

HEADLINES = (
    HeadlineTable(
        "marts.flenqa_accuracy_by_length (FLenQA, Figure 1; length 0 = key paragraphs only)",
        "SELECT model, task, setting, length, n, mean_input_tokens, accuracy, ci_low, ci_high "
        "FROM marts.flenqa_accuracy_by_length ORDER BY model, task, setting, length",
    ),
    HeadlineTable(
        "marts.flenqa_label_bias (FLenQA: share of False answers vs the true 50%, refusals)",
        "SELECT model, setting, length, n, n_true, n_false, n_refused, false_share, refusal_rate "
        "FROM marts.flenqa_label_bias ORDER BY model, setting, length",
    ),
)
