"""What the report shows of FLenQA: the study's Figures 1, 3, 4/16, 5 and 7 (each from the mart that
pools what the study pooled, drawn with ``plot.py``), accuracy per task over the whole grid, the §7
dependence tests, and our models beside the study's published ones.

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
from relreason_dagster.benchmarks.flenqa.plot import (
    LENGTH_AXES,
    draw_accuracy_vs_length,
    draw_figure_panels,
    draw_label_bias,
    draw_reasoning_vs_length,
    provider_x,
)
from relreason_dagster.errors import ConfigError

PROVIDER_MART = "marts.flenqa_provider_lengths"
NO_PROVIDER_COUNTS = (
    "No provider-counted lengths yet: no FLenQA reply reported usage.prompt_tokens\n"
    "(marts.flenqa_provider_lengths); draw against the target length instead."
)
# The x axis of the FLenQA accuracy figures in this process: "target" (the study's) unless the report
# was asked for "provider" (`relreason report --flenqa-length provider`).  A process-wide setting because
# a FigureSpec's ``draw`` takes the marts' rows only; the provider-axis figure asset names its axis itself.
_axis = {"length": "target"}


def set_length_axis(axis: str) -> None:
    """Draw the FLenQA accuracy figures against ``axis`` ("target" or "provider") from now on."""
    if axis not in LENGTH_AXES:
        raise ConfigError(f"FLenQA length axis {axis!r}: use {' or '.join(LENGTH_AXES)}")
    _axis["length"] = axis


def length_axis() -> str:
    """The axis :func:`set_length_axis` chose ("target" by default)."""
    return _axis["length"]


def _provider(rows_by_mart: dict[str, Rows], axis: str | None) -> dict[tuple[str, int], float] | None:
    """The provider-counted x of every (model, length), or None to draw against the target."""
    if (axis or length_axis()) != "provider":
        return None
    return provider_x(list(rows_by_mart.get(PROVIDER_MART, [])))


def draw_flenqa(rows_by_mart: dict[str, Rows], axis: str | None = None) -> Any:
    """Accuracy vs input length per task (the study's Figure 1) and the label bias vs length; ``axis``:
    what the accuracy panels' x counts (None: :func:`length_axis`)."""
    plt = plotting.plt()
    provider = _provider(rows_by_mart, axis)
    acc = rows_by_mart["marts.flenqa_accuracy_by_length"]
    bias = rows_by_mart["marts.flenqa_label_bias"]
    tasks = sorted({r["task"] for r in acc})
    n_panels = max(1, len(tasks)) + 1
    ncols = 2
    nrows = (n_panels + 1) // 2
    fig, axes = plt.subplots(nrows, ncols, figsize=(plotting.WIDTH_IN, 2.7 * nrows + 0.5), squeeze=False)
    flat = list(axes.flat)
    colors = plotting.model_colors([r["model"] for r in acc + bias])
    if tasks and provider == {}:
        plotting.no_data(flat[0], NO_PROVIDER_COUNTS)
        for ax in flat[1 : len(tasks)]:
            ax.set_visible(False)
    elif tasks:
        draw_accuracy_vs_length(flat[: len(tasks)], acc, colors, provider)
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


def _study_figure(mart: str, group: str | None) -> Any:
    """A drawer of one of the study's figures from its mart: a panel per ``group`` value."""

    def draw(rows_by_mart: dict[str, Rows]) -> Any:
        plt = plotting.plt()
        rows = rows_by_mart[mart]
        n_panels = max(1, len({r[group] for r in rows})) if group else 1
        fig, axes = plt.subplots(1, n_panels, figsize=(plotting.WIDTH_IN, 3.2), squeeze=False)
        flat = list(axes.flat)
        provider = _provider(rows_by_mart, None)
        if rows and provider == {}:
            plotting.no_data(flat[0], NO_PROVIDER_COUNTS)
        elif rows:
            draw_figure_panels(flat, rows, group, plotting.model_colors([r["model"] for r in rows]), provider)
        else:
            plotting.no_data(
                flat[0], "No FLenQA answers yet:\nrun `relreason run --model M --benchmark flenqa`."
            )
        bottom = plotting.legend_below(fig, flat, ncol=3)
        fig.tight_layout(rect=(0, bottom, 1, 1))
        return fig

    return draw


def draw_label_bias_figure(rows_by_mart: dict[str, Rows]) -> Any:
    """The study's Figure 7 (all models: Figure 17): share of "False" answers and refusals vs length."""
    plt = plotting.plt()
    bias = rows_by_mart["marts.flenqa_label_bias"]
    fig, axes = plt.subplots(1, 1, figsize=(plotting.WIDTH_IN, 3.2), squeeze=False)
    ax = axes[0][0]
    if bias:
        draw_label_bias(ax, bias, plotting.model_colors([r["model"] for r in bias]))
    else:
        plotting.no_data(ax, "No FLenQA label bias yet.")
    bottom = plotting.legend_below(fig, [ax], ncol=3)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


def draw_reasoning_length(rows_by_mart: dict[str, Rows]) -> Any:
    """Reasoning tokens and accuracy vs input length, a panel per padding; a "no traces" panel when no
    model's answers show reasoning."""
    plt = plotting.plt()
    rows = rows_by_mart["marts.flenqa_reasoning_length"]
    n_panels = max(1, len({r["padding"] for r in rows if r["padding"] != "none"}))
    fig, axes = plt.subplots(1, n_panels, figsize=(plotting.WIDTH_IN, 3.4), squeeze=False)
    flat = list(axes.flat)
    if rows:
        draw_reasoning_vs_length(flat, rows, plotting.model_colors([r["model"] for r in rows]))
    else:
        plotting.no_data(
            flat[0],
            "No reasoning traces: no model's FLenQA answers show reasoning tokens.\n"
            "Run a reasoning model: relreason run --model M --benchmark flenqa.",
        )
    bottom = plotting.legend_below(fig, flat, ncol=3)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


_HINT = f"relreason run --model M --benchmark {BENCHMARK}"
_BANDS = "one line per model (solid: direct, dashed: CoT) with its 95% Wilson band; "

STUDY_FIGURES = (
    FigureSpec(
        name="flenqa_figure1",
        asset_name="flenqa_figure1_plot",
        study=BENCHMARK,
        title="FLenQA, the study's Figure 1: accuracy vs input length",
        caption="Key paragraphs at random places in similar and different padding, the three tasks "
        "pooled (600 answers a point at the paper profile); " + _BANDS + "marts.flenqa_figure1.",
        marts=("marts.flenqa_figure1",),
        axis_marts=(PROVIDER_MART,),
        draw=_study_figure("marts.flenqa_figure1", None),
        hint=_HINT,
    ),
    FigureSpec(
        name="flenqa_figure3",
        asset_name="flenqa_figure3_plot",
        study=BENCHMARK,
        title="FLenQA, the study's Figure 3: duplicate padding",
        caption="The padding is the key paragraphs again, alternating; the three tasks pooled (300 a point "
        "at the paper profile); " + _BANDS + "marts.flenqa_figure3.",
        marts=("marts.flenqa_figure3",),
        axis_marts=(PROVIDER_MART,),
        draw=_study_figure("marts.flenqa_figure3", None),
        hint=_HINT,
        empty="The stored FLenQA answers have no duplicate padding: their profile pads with other text only "
        "(smoke: different padding, random positions). The paper profile has it: relreason run --model M "
        "--benchmark flenqa --profile paper.",
    ),
    FigureSpec(
        name="flenqa_figure4",
        asset_name="flenqa_figure4_plot",
        study=BENCHMARK,
        title="FLenQA, the study's Figures 4 and 16: position of the adjacent key paragraphs",
        caption="Key paragraphs adjacent, first, in the middle or last; similar and different padding and "
        "the three tasks pooled (600 a point at the paper profile); " + _BANDS + "marts.flenqa_figure4.",
        marts=("marts.flenqa_figure4",),
        axis_marts=(PROVIDER_MART,),
        draw=_study_figure("marts.flenqa_figure4", "position"),
        hint=_HINT,
        empty="The stored FLenQA answers have no adjacent key paragraphs placed first, in the middle or "
        "last: "
        "their profile places them at random only (smoke). The paper profile has all four positions: "
        "relreason run --model M --benchmark flenqa --profile paper.",
    ),
    FigureSpec(
        name="flenqa_figure5",
        asset_name="flenqa_figure5_plot",
        study=BENCHMARK,
        title="FLenQA, the study's Figure 5: similar vs different padding",
        caption="Key paragraphs at random places; one panel per padding, the three tasks pooled (300 a point "
        "at the paper profile); " + _BANDS + "marts.flenqa_figure5.",
        marts=("marts.flenqa_figure5",),
        axis_marts=(PROVIDER_MART,),
        draw=_study_figure("marts.flenqa_figure5", "padding"),
        hint=_HINT,
    ),
    FigureSpec(
        name="flenqa_label_bias",
        asset_name="flenqa_label_bias_plot",
        study=BENCHMARK,
        title="FLenQA, the study's Figure 7: label bias and refusals",
        caption='Share of "False" among answered questions vs length (the truth is 50%, dotted line) with '
        "95% Wilson bands; refusals (neither word) as x on a dotted line (marts.flenqa_label_bias).",
        marts=("marts.flenqa_label_bias",),
        draw=draw_label_bias_figure,
        hint=_HINT,
    ),
)

FIGURES = STUDY_FIGURES + (
    FigureSpec(
        name="flenqa_accuracy_vs_length",
        asset_name="flenqa_length_plot",
        study=BENCHMARK,
        title="FLenQA: accuracy per task over the whole grid, and label bias",
        caption="Not one of the study's figures: accuracy per task, every padding and position pooled, "
        'vs the padded input length ("min" = key paragraphs only) with 95% '
        'Wilson bands, one line per model and prompt; the last panel is the share of "False" answers '
        "(the truth is 50%, dotted line), refusals as x on a dotted line.",
        marts=("marts.flenqa_accuracy_by_length", "marts.flenqa_label_bias"),
        axis_marts=(PROVIDER_MART,),
        draw=draw_flenqa,
        hint=f"relreason run --model M --benchmark {BENCHMARK}",
    ),
    FigureSpec(
        name="flenqa_accuracy_vs_provider_length",
        asset_name="flenqa_provider_length_plot",
        study=BENCHMARK,
        title="FLenQA: accuracy per task against the provider-counted input length",
        caption="The figure above with each point at its model's mean provider-reported prompt_tokens for "
        "that target length (marts.flenqa_provider_lengths) instead of the target: the same prompts are a "
        "different length in each model's tokenizer.  A prompt holds the question and instructions too, so "
        "its count is above the target even in relreason's tokenizer.",
        marts=("marts.flenqa_accuracy_by_length", "marts.flenqa_label_bias"),
        axis_marts=(PROVIDER_MART,),
        draw=lambda rows_by_mart: draw_flenqa(rows_by_mart, axis="provider"),
        hint=f"relreason run --model M --benchmark {BENCHMARK}",
    ),
)

# Collected by the report's "Reasoning traces" section (results/), not FLenQA's own section.
TRACE_FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        name="flenqa_reasoning_length",
        asset_name="flenqa_reasoning_length_plot",
        study=BENCHMARK,
        title="FLenQA: does a reasoning model think longer as the input grows?",
        caption="Mean reasoning tokens (the provider's count, else the trace counted with the profile's "
        'tokenizer) vs the padded input length, one panel per padding (the minimal text, "min", '
        "starts every line), one colour per model, solid direct / dashed CoT; faint squares on a dotted "
        "line: the accuracy (right axis); tasks and positions pooled (marts.flenqa_reasoning_length).",
        marts=("marts.flenqa_reasoning_length",),
        draw=draw_reasoning_length,
        hint="relreason run --model M --benchmark flenqa (M a reasoning model)",
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
        "marts.flenqa_figure1 (FLenQA, the study's Figure 1: random placement, similar and different "
        "padding, three tasks pooled)",
        "SELECT model, setting, length, n, mean_input_tokens, accuracy, ci_low, ci_high "
        "FROM marts.flenqa_figure1 ORDER BY model, setting, length",
    ),
    HeadlineTable(
        "marts.flenqa_cot_dependence (FLenQA §7: incorrect CoT answers vs answer-first and incomplete "
        "coverage, Fisher's exact p)",
        "SELECT model, source, length, factor, n, n_exposed, wrong_rate_exposed, wrong_rate_unexposed, "
        "p_value FROM marts.flenqa_cot_dependence ORDER BY model, source, factor, length",
    ),
    HeadlineTable(
        "marts.flenqa_label_bias (FLenQA: share of False answers vs the true 50%, refusals)",
        "SELECT model, setting, length, n, n_true, n_false, n_refused, false_share, refusal_rate "
        "FROM marts.flenqa_label_bias ORDER BY model, setting, length",
    ),
)
