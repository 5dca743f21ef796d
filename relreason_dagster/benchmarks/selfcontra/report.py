"""What the report shows of Self-Contra: accuracy vs Self-Contra rate and detection F1 (a figure), the
judged rate of our models as a table, and our models beside the study's published ones.

Found by name (``registry.family_sections``, ``family_headlines``); ``results/`` renders it without
knowing the family.
"""

from __future__ import annotations

from collections import defaultdict
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
from relreason_dagster.benchmarks.selfcontra.family import BENCHMARK


def _scatter_acc_scr(
    ax: Any, rows: Rows, scr: str, scr_low: str, scr_high: str, acc_low: str, acc_high: str, by: str
) -> None:
    """Accuracy vs SCR: colour = dataset, marker = setting, whiskers = 95% Wilson intervals."""
    plt = plotting.plt()
    datasets = sorted({r["dataset"] for r in rows})
    settings = sorted({r["setting"] for r in rows})
    palette = plt.get_cmap("tab10").colors
    markers = ["o", "s", "^", "D", "v", "P"]
    for r in rows:
        if r.get(scr) is None or r.get("accuracy") is None:
            continue
        ax.errorbar(
            r[scr],
            r["accuracy"],
            xerr=plotting.error_bars([r], scr, scr_low, scr_high),
            yerr=plotting.error_bars([r], "accuracy", acc_low, acc_high),
            fmt=markers[settings.index(r["setting"]) % len(markers)],
            color=palette[datasets.index(r["dataset"]) % len(palette)],
            markersize=6,
            elinewidth=0.7,
            capsize=1.5,
            alpha=0.85,
            label=f"{r['dataset']} · {r['setting']}",
        )
        ax.annotate(
            r[by],
            (r[scr], r["accuracy"]),
            fontsize=6,
            xytext=(3, 3),
            textcoords="offset points",
            color="#555555",
        )
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.1)
    ax.set_xlabel("Self-Contra rate (SCR)")
    ax.set_ylabel("accuracy")
    ax.grid(alpha=0.3)


def draw_selfcontra(rows_by_mart: dict[str, Rows]) -> Any:
    """Accuracy vs SCR (human labels; the judge) per dataset x setting, and detection F1 per method."""
    plt = plotting.plt()
    human = rows_by_mart["marts.selfcontra_scr"]
    # the answer's verdicts, as the study judged them (a trace's are in the table, by source)
    judged = [r for r in rows_by_mart["marts.selfcontra_judged"] if r.get("source", "answer") == "answer"]
    detection = rows_by_mart["marts.selfcontra_detection_f1"]
    fig = plt.figure(figsize=(plotting.WIDTH_IN, 6.2))
    grid = fig.add_gridspec(2, 2, height_ratios=[3, 2])
    ax_h, ax_j, ax_d = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1]), fig.add_subplot(grid[1, :])
    if human:
        _scatter_acc_scr(
            ax_h, human, "scr", "scr_ci_low", "scr_ci_high", "accuracy_ci_low", "accuracy_ci_high", "model"
        )
    else:
        plotting.no_data(
            ax_h, "No human-labelled annotations yet:\n`relreason selfcontra import-annotations FILE`."
        )
    ax_h.set_title("human labels (study's annotations)", fontsize=10)
    if judged:
        _scatter_acc_scr(
            ax_j,
            judged,
            "judged_scr",
            "scr_ci_low",
            "scr_ci_high",
            "accuracy_ci_low",
            "accuracy_ci_high",
            "model",
        )
    else:
        plotting.no_data(
            ax_j, "No judged responses yet:\nrun `relreason run --model M --benchmark selfcontra`."
        )
    ax_j.set_title("our models, labelled by the judge", fontsize=10)
    if detection:
        keys = sorted({(r["judge"], r["dataset"]) for r in detection})
        methods = sorted({r["method"] for r in detection})
        palette = plt.get_cmap("tab10").colors
        width = 0.8 / len(keys)
        for i, key in enumerate(keys):
            points = [r for r in detection if (r["judge"], r["dataset"]) == key]
            # several judged models of one dataset: their mean F1, each point drawn over it
            means = defaultdict(list)
            for r in points:
                means[r["method"]].append(r["f1"] or 0.0)
            x = [methods.index(m) + (i - (len(keys) - 1) / 2) * width for m in means]
            ax_d.bar(
                x,
                [sum(v) / len(v) for v in means.values()],
                width=width * 0.92,
                color=palette[i % len(palette)],
                label=f"judge {key[0]} · {key[1]}",
            )
        ax_d.set_xticks(range(len(methods)), methods)
        ax_d.set_ylim(0, 1.05)
        ax_d.set_ylabel("detection F1")
        ax_d.grid(axis="y", alpha=0.3)
    else:
        plotting.no_data(
            ax_d, "No detection scores yet: they need human labels and `relreason selfcontra detect`."
        )
    ax_d.set_title("Self-Contra detection F1 per method (vs human labels)", fontsize=10)
    bottom = plotting.legend_below(fig, [ax_h, ax_j, ax_d], ncol=3)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


TYPE_ORDER = (
    ("n_rr", "RR"),
    ("n_type1", "Type1"),
    ("n_type2", "Type2"),
    ("n_type3", "Type3"),
    ("n_ww", "WW"),
)


def draw_selfcontra_types(rows_by_mart: dict[str, Rows]) -> Any:
    """Frequency of the reasoning types per dataset and model, zero- and few-shot combined (Figs. 3-4).

    One panel per dataset (with its split when a section-3 file names one); bars are the share of the
    annotated responses of each type, so models labelled on different numbers of responses compare.
    """
    plt = plotting.plt()
    rows = rows_by_mart["marts.selfcontra_scr"]
    if not rows:
        fig, ax = plt.subplots(figsize=(plotting.WIDTH_IN, 2.6))
        plotting.no_data(
            ax, "No human-labelled annotations yet:\n`relreason selfcontra import-annotations FILE`."
        )
        return fig
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        panel = r["dataset"] + (f" ({r['split']})" if r.get("split") else "")
        for column, _ in TYPE_ORDER:
            counts[(panel, r["model"])][column] += int(r.get(column) or 0)
    panels = sorted({panel for panel, _ in counts})
    every_model = sorted({model for _, model in counts})  # one colour per model across the panels
    fig, axes = plt.subplots(1, len(panels), figsize=(plotting.WIDTH_IN, 3.0), squeeze=False, sharey=True)
    palette = plt.get_cmap("tab10").colors
    for ax, panel in zip(axes[0], panels, strict=True):
        models = sorted(model for p, model in counts if p == panel)
        width = 0.8 / len(models)
        for i, model in enumerate(models):
            by_type = counts[(panel, model)]
            total = sum(by_type.values()) or 1
            x = [k + (i - (len(models) - 1) / 2) * width for k in range(len(TYPE_ORDER))]
            ax.bar(
                x,
                [by_type[column] / total for column, _ in TYPE_ORDER],
                width=width * 0.92,
                color=palette[every_model.index(model) % len(palette)],
                label=model,
            )
        ax.set_xticks(range(len(TYPE_ORDER)), [label for _, label in TYPE_ORDER], fontsize=8)
        ax.set_title(panel, fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("share of annotated responses")
    bottom = plotting.legend_below(fig, list(axes[0]), ncol=4)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


FIGURES = (
    FigureSpec(
        name="selfcontra",
        asset_name="selfcontra_plot",
        study=BENCHMARK,
        title="Self-Contra: accuracy vs Self-Contra rate, and detection",
        caption="Accuracy vs SCR per dataset (colour) and setting (marker), from human labels (left) and "
        "from the judge on our models' responses (right), 95% Wilson whiskers; below: how well each "
        "detection method finds the human-labelled Self-Contra responses (F1).",
        marts=("marts.selfcontra_scr", "marts.selfcontra_judged", "marts.selfcontra_detection_f1"),
        draw=draw_selfcontra,
        hint=f"relreason run --model M --benchmark {BENCHMARK}",
    ),
    FigureSpec(
        name="selfcontra_types",
        asset_name="selfcontra_types_plot",
        study=BENCHMARK,
        title="Self-Contra: frequency of reasoning types (the study's Figures 3-4)",
        caption="Share of the human-labelled responses that are RR, Type1 (right reasoning, wrong answer), "
        "Type2 (wrong reasoning, right answer), Type3 (self-contradictory reasoning) and WW, per dataset "
        "and model, zero- and few-shot combined as in the study's figures (marts.selfcontra_scr).",
        marts=("marts.selfcontra_scr",),
        draw=draw_selfcontra_types,
        hint="relreason selfcontra import-annotations FILE",
    ),
)

JUDGED_TABLE = ReportTable(
    key="selfcontra",
    title="Self-Contra: judged Self-Contra rate of our models",
    note="Share of responses the judge labels self-contradictory, per dataset, setting, detection "
    "method and source (the answer, or a reasoning model's trace); 95% Wilson interval "
    "(marts.selfcontra_judged).",
    marts=("marts.selfcontra_judged",),
    row_keys=("dataset", "split", "setting", "method", "judge", "source"),
    sql="SELECT dataset, split, setting, method, judge, source, model, judged_scr AS value, "
    "scr_ci_low AS low, scr_ci_high AS high, n_judged AS n FROM marts.selfcontra_judged",
)

VS_STUDY = Comparison(
    key="selfcontra_vs_study",
    title="Self-Contra: our models beside the study's (Tables 2, 8 and 6)",
    mart="marts.selfcontra_vs_study",
    note="Accuracy and Self-Contra rate (scr) per dataset, setting, split and labelling method, and "
    "detection f1 on Few-shot (A) responses; columns marked published are the study's models as its "
    "Tables 2 (answer first), 8 (reason first; dataset all: its Average) and 6 print them "
    "(marts.selfcontra_vs_study).",
    footnote="Protocol: Tables 2 and 8 are the anti-stereotype WinoBias test items, labelled by people, "
    "50 per point; a row of ours stands beside them like with like only on the study's items "
    "(items: study), anti_test, 50 per point and human labels (comparable, why_not); rows of a judge "
    "method (iro, binary, fge) are the judge's labels, an estimate only as good as the judge (Table 6).",
)


SECTIONS = (
    ReportSection(
        key=BENCHMARK,
        title="Self-Contra: self-contradictory reasoning",
        label="Self-Contra",
        order=40,
        figures=FIGURES,
        tables=(JUDGED_TABLE,),
        comparisons=(VS_STUDY,),
    ),
)

HEADLINES = (
    HeadlineTable(
        "marts.selfcontra_judged (Self-Contra: accuracy and SCR as labelled by the judge)",
        "SELECT model, dataset, split, setting, method, judge, source, n, n_cut, accuracy, n_judged, "
        "judged_scr, scr_ci_low, scr_ci_high, n_type1, n_type2, n_type3 FROM marts.selfcontra_judged "
        "ORDER BY model, dataset, split NULLS FIRST, setting, source",
    ),
)
