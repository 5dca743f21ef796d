"""The report's figures, one per study, drawn with matplotlib from the dbt marts.

Each :class:`FigureSpec` names the marts it reads and a ``draw`` function from their rows to a
matplotlib figure.  :func:`render` is the one rendering path: the Dagster figure assets
(``defs/figure_assets.py``) and ``relreason report`` both call it, so the PNG in the UI's metadata
and the one in the HTML report are the same picture.  A panel whose mart is empty (or not built
yet) says so instead of failing: a report of a relational-only run still renders every figure.

Sizes are fixed at 8 x ~5 inches at 100 dpi (800 px wide): narrow enough for the Dagster UI's
metadata view, wide enough to read in the report.
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.flenqa.plot import draw_accuracy_vs_length, draw_label_bias

Rows = list[dict[str, Any]]
WIDTH_IN = 8.0
DPI = 100
# The relational tasks in the study's order (its Table 1), not alphabetical.
TASK_ORDER = (
    "HasFather",
    "HasSister",
    "IsGrandparent",
    "IsUncle",
    "IsMGUncle",
    "4-Connectivity",
    "6-Connectivity",
    "1-Outdegree",
    "2-Outdegree",
)
KOR_CATEGORIES = ("operation", "logic", "cipher", "puzzle", "counterfactual", "overall")


@dataclass(frozen=True)
class FigureSpec:
    """One figure: where its PNG goes, what it shows, which marts it reads and how it is drawn."""

    name: str  # file stem under plots/ and report/
    asset_name: str  # the Dagster asset that materializes it
    study: str  # the report section it belongs to
    title: str
    caption: str
    marts: tuple[str, ...]  # "marts.<table>", read whole
    draw: Callable[[dict[str, Rows]], Any]  # rows per mart -> matplotlib Figure
    hint: str  # what to run when there is no data yet

    @property
    def file_name(self) -> str:
        return f"{self.name}.png"


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def model_colors(models: Sequence[str]) -> dict[str, Any]:
    """A stable colour per model (sorted names over tab10); the DLM is always black."""
    plt = _plt()
    palette = plt.get_cmap("tab10").colors
    others = sorted(m for m in set(models) if m != "dlm")
    colors = {m: palette[i % len(palette)] for i, m in enumerate(others)}
    colors["dlm"] = (0.1, 0.1, 0.1)
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


def _err(rows: Rows, value: str, low: str, high: str) -> list[list[float]]:
    """Error-bar lengths below and above ``value`` (0 where the interval is missing)."""
    below, above = [], []
    for r in rows:
        v = r.get(value) or 0.0
        below.append(max(0.0, v - r[low]) if r.get(low) is not None else 0.0)
        above.append(max(0.0, r[high] - v) if r.get(high) is not None else 0.0)
    return [below, above]


def _task_key(task: str) -> tuple[int, str]:
    return (TASK_ORDER.index(task) if task in TASK_ORDER else len(TASK_ORDER), task)


def _hbars(
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
            xerr=_err(points, value, low, high),
            error_kw={"elinewidth": 0.8, "capsize": 1.5},
            label=(labels or {}).get(name, name),
        )
        # A tick at each bar's end: a score of 0 is a result, not a missing bar.
        ax.scatter([r.get(value) or 0.0 for r in points], y, marker="|", s=40, color=colors.get(name))
    ax.set_yticks(range(len(groups)), groups)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.05)
    ax.grid(axis="x", alpha=0.3)


def _legend_below(fig: Any, axes: Sequence[Any], ncol: int = 4) -> float:
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


# --- relational ------------------------------------------------------------------------------------


def draw_relational(rows_by_mart: dict[str, Rows]) -> Any:
    """F1 per task, one panel per split x prompt setting, one bar per model, 95% bootstrap whiskers.

    The DLM's rows (setting ``dlm``) are drawn in the ``nl`` panel of their split: that is the
    comparison the study makes (its Table 1), and a panel of its own would be empty but for it.
    """
    plt = _plt()
    rows = [
        {**r, "setting": "nl"} if r["model"] == "dlm" and r["setting"] == "dlm" else r
        for r in rows_by_mart["marts.relational_f1"]
    ]
    split_order = {"iid": 0, "ood": 1}
    panels = sorted(
        {(r["split"], r["setting"]) for r in rows}, key=lambda p: (split_order.get(p[0], 2), p[1])
    )
    if not panels:
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 2.4))
        no_data(ax, "No relational results yet: run `relreason run --model M --benchmark relational`.")
        return fig
    ncols = min(2, len(panels))
    nrows = (len(panels) + ncols - 1) // ncols
    tasks = sorted({r["task"] for r in rows}, key=_task_key)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(WIDTH_IN, 0.25 * len(tasks) * nrows + 1.3 * nrows + 0.6),
        squeeze=False,
        sharex=True,
    )
    models = sorted({r["model"] for r in rows}, key=lambda m: (m == "dlm", m))
    colors = model_colors(models)
    for ax, (split, setting) in zip(axes.flat, panels, strict=False):
        panel = [r for r in rows if r["split"] == split and r["setting"] == setting]
        _hbars(
            ax,
            panel,
            tasks,
            models,
            lambda r: r["model"],
            lambda r: r["task"],
            "f1",
            "ci_low",
            "ci_high",
            colors,
        )
        dlm = " (+ DLM)" if any(r["model"] == "dlm" for r in panel) else ""
        ax.set_title(
            f"{split.upper()} ({'n = 10' if split == 'iid' else 'n = 20'}) · {setting}{dlm}", fontsize=10
        )
        ax.tick_params(labelsize=8)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for col in range(ncols):  # the lowest panel of each column carries the x axis
        ax = [a for a in axes[:, col] if a.get_visible()][-1]
        ax.xaxis.set_tick_params(labelbottom=True)
        ax.set_xlabel("mean per-sample F1")
    bottom = _legend_below(fig, axes.flat)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


def draw_dlm_vs_llm(rows_by_mart: dict[str, Rows]) -> Any:
    """The study's Table 1 as a dot plot: each LLM (nl prompting), our DLM and the study's DLM, per task."""
    plt = _plt()
    rows = rows_by_mart["marts.dlm_vs_llm"]
    if not rows:
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 2.4))
        no_data(
            ax, "No DLM vs LLM rows yet: run `relreason run --model dlm --model M --benchmark relational`."
        )
        return fig
    tasks = sorted({r["task"] for r in rows}, key=_task_key)
    models = sorted({r["model"] for r in rows}, key=lambda m: (m == "dlm", m))
    colors = model_colors(models)
    fig, axes = plt.subplots(1, 2, figsize=(WIDTH_IN, 0.32 * len(tasks) + 1.9), sharey=True, squeeze=False)
    offsets = {m: (i - (len(models) - 1) / 2) * 0.18 for i, m in enumerate(models)}
    for ax, (suffix, label) in zip(axes[0], (("n10", "IID, n = 10"), ("n20", "OOD, n = 20")), strict=True):
        for model in models:
            points = [r for r in rows if r["model"] == model and r.get(f"f1_{suffix}") is not None]
            if not points:
                continue
            ax.errorbar(
                [r[f"f1_{suffix}"] for r in points],
                [tasks.index(r["task"]) + offsets[model] for r in points],
                xerr=_err(points, f"f1_{suffix}", f"ci_low_{suffix}", f"ci_high_{suffix}"),
                fmt="o",
                color=colors[model],
                markersize=5,
                elinewidth=0.9,
                capsize=2,
                label="DLM (ours)" if model == "dlm" else f"{model} (nl)",
            )
        study = {r["task"]: r.get(f"study_dlm_{suffix}") for r in rows}
        ys = [tasks.index(t) for t, v in study.items() if v is not None]
        ax.scatter(
            [v for v in study.values() if v is not None],
            ys,
            marker="D",
            facecolors="none",
            edgecolors="#d62728",
            s=40,
            linewidths=1.2,
            label="DLM (the study's Table 1)",
            zorder=3,
        )
        ax.set_yticks(range(len(tasks)), tasks)
        ax.set_xlim(-0.03, 1.05)
        ax.set_title(label, fontsize=10)
        ax.set_xlabel("F1")
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=8)
    axes[0][0].invert_yaxis()
    bottom = _legend_below(fig, axes[0])
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


# --- FLenQA ----------------------------------------------------------------------------------------


def draw_flenqa(rows_by_mart: dict[str, Rows]) -> Any:
    """Accuracy vs input length per task (the study's Figure 1) and the label bias vs length."""
    plt = _plt()
    acc = rows_by_mart["marts.flenqa_accuracy_by_length"]
    bias = rows_by_mart["marts.flenqa_label_bias"]
    tasks = sorted({r["task"] for r in acc})
    n_panels = max(1, len(tasks)) + 1
    ncols = 2
    nrows = (n_panels + 1) // 2
    fig, axes = plt.subplots(nrows, ncols, figsize=(WIDTH_IN, 2.7 * nrows + 0.5), squeeze=False)
    flat = list(axes.flat)
    colors = model_colors([r["model"] for r in acc + bias])
    if tasks:
        draw_accuracy_vs_length(flat[: len(tasks)], acc, colors)
    else:
        no_data(flat[0], "No FLenQA answers yet:\nrun `relreason run --model M --benchmark flenqa`.")
    bias_ax = flat[max(1, len(tasks))]
    if bias:
        draw_label_bias(bias_ax, bias, colors)
    else:
        no_data(bias_ax, "No FLenQA label bias yet.")
    for ax in flat[max(1, len(tasks)) + 1 :]:
        ax.set_visible(False)
    bottom = _legend_below(fig, flat, ncol=3)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


# --- KOR-Bench -------------------------------------------------------------------------------------


def draw_kor(rows_by_mart: dict[str, Rows]) -> Any:
    """Accuracy per category (bars, 95% Wilson whiskers) and accuracy after each self-correction round."""
    plt = _plt()
    acc = rows_by_mart["marts.kor_accuracy"]
    rounds = [r for r in rows_by_mart["marts.kor_self_correction"] if r["category"] == "overall"]
    fig, (ax_cat, ax_round) = plt.subplots(
        1, 2, figsize=(WIDTH_IN, 3.6), gridspec_kw={"width_ratios": [3, 2]}
    )
    colors = model_colors([r["model"] for r in acc + rounds])
    if acc:
        series = sorted({(r["model"], r["source"], r["setting"]) for r in acc})
        palette = {s: colors[s[0]] for s in series}
        hatches = ["", "//", "..", "xx"]
        categories = [c for c in KOR_CATEGORIES if any(r["category"] == c for r in acc)]
        width = 0.8 / len(series)
        for i, key in enumerate(series):
            points = [r for r in acc if (r["model"], r["source"], r["setting"]) == key]
            x = [categories.index(r["category"]) + (i - (len(series) - 1) / 2) * width for r in points]
            ax_cat.bar(
                x,
                [r["accuracy"] for r in points],
                width=width * 0.92,
                color=palette[key],
                hatch=hatches[i % len(hatches)] if len({s[0] for s in series}) < len(series) else "",
                yerr=_err(points, "accuracy", "ci_low", "ci_high"),
                error_kw={"elinewidth": 0.8, "capsize": 1.5},
                label=f"{key[0]} · {key[1]} · {key[2]}",
                edgecolor="white",
                linewidth=0.5,
            )
        ax_cat.set_xticks(range(len(categories)), categories, rotation=20, fontsize=8)
        ax_cat.set_ylim(0, 1.05)
        ax_cat.set_ylabel("accuracy")
        ax_cat.grid(axis="y", alpha=0.3)
    else:
        no_data(ax_cat, "No KOR-Bench answers yet:\nrun `relreason run --model M --benchmark kor`.")
    ax_cat.set_title("accuracy by category", fontsize=10)
    if rounds:
        for key in sorted({(r["model"], r["source"]) for r in rounds}):
            points = sorted((r for r in rounds if (r["model"], r["source"]) == key), key=lambda r: r["round"])
            x = [r["round"] for r in points]
            ax_round.plot(
                x,
                [r["accuracy"] for r in points],
                marker="o",
                color=colors[key[0]],
                label=f"{key[0]} · {key[1]} (self-correction)",
            )
            ax_round.fill_between(
                x,
                [r["ci_low"] for r in points],
                [r["ci_high"] for r in points],
                color=colors[key[0]],
                alpha=0.15,
            )
        ax_round.set_xticks(sorted({r["round"] for r in rounds}))
        ax_round.set_xlabel("round (0 = zero-shot answer)")
        ax_round.set_ylim(-0.02, 1.05)
        ax_round.grid(alpha=0.3)
    else:
        no_data(ax_round, "No self-correction rounds yet\n(profile knob self_correction_rounds).")
    ax_round.set_title("self-correction: accuracy after each round", fontsize=10)
    bottom = _legend_below(fig, [ax_cat, ax_round], ncol=2)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


# --- Self-Contra -----------------------------------------------------------------------------------


def _scatter_acc_scr(
    ax: Any, rows: Rows, scr: str, scr_low: str, scr_high: str, acc_low: str, acc_high: str, by: str
) -> None:
    """Accuracy vs SCR: colour = dataset, marker = setting, whiskers = 95% Wilson intervals."""
    plt = _plt()
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
            xerr=_err([r], scr, scr_low, scr_high),
            yerr=_err([r], "accuracy", acc_low, acc_high),
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
    plt = _plt()
    human = rows_by_mart["marts.selfcontra_scr"]
    judged = rows_by_mart["marts.selfcontra_judged"]
    detection = rows_by_mart["marts.selfcontra_detection_f1"]
    fig = plt.figure(figsize=(WIDTH_IN, 6.2))
    grid = fig.add_gridspec(2, 2, height_ratios=[3, 2])
    ax_h, ax_j, ax_d = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[0, 1]), fig.add_subplot(grid[1, :])
    if human:
        _scatter_acc_scr(
            ax_h, human, "scr", "scr_ci_low", "scr_ci_high", "accuracy_ci_low", "accuracy_ci_high", "model"
        )
    else:
        no_data(ax_h, "No human-labelled annotations yet:\n`relreason selfcontra import-annotations FILE`.")
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
        no_data(ax_j, "No judged responses yet:\nrun `relreason run --model M --benchmark selfcontra`.")
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
        no_data(ax_d, "No detection scores yet: they need human labels and `relreason selfcontra detect`.")
    ax_d.set_title("Self-Contra detection F1 per method (vs human labels)", fontsize=10)
    bottom = _legend_below(fig, [ax_h, ax_j, ax_d], ncol=3)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


FIGURES: tuple[FigureSpec, ...] = (
    FigureSpec(
        name="relational_f1",
        asset_name="relational_f1_plot",
        study="relational",
        title="Relational reasoning: F1 by task and setting",
        caption="Mean per-sample F1 per task, one panel per split (IID n = 10, OOD n = 20) and prompt "
        "setting, one bar per model; whiskers are 95% bootstrap intervals over samples.",
        marts=("marts.relational_f1",),
        draw=draw_relational,
        hint="relreason run --model M --benchmark relational",
    ),
    FigureSpec(
        name="dlm_vs_llm",
        asset_name="dlm_vs_llm_plot",
        study="relational",
        title="DLM vs LLMs (the study's Table 1)",
        caption="F1 with standard nl prompting for each LLM next to the DLM trained on the same few-shot "
        "samples (pooled over seeds), with 95% bootstrap intervals; red diamonds are the study's DLM.",
        marts=("marts.dlm_vs_llm",),
        draw=draw_dlm_vs_llm,
        hint="relreason run --model dlm --model M --benchmark relational",
    ),
    FigureSpec(
        name="flenqa_accuracy_vs_length",
        asset_name="flenqa_length_plot",
        study="flenqa",
        title="FLenQA: accuracy vs input length, and label bias",
        caption='Accuracy per task vs the padded input length ("min" = key paragraphs only) with 95% '
        'Wilson bands, one line per model and prompt; the last panel is the share of "False" answers '
        "(the truth is 50%, dotted line), refusals as x on a dotted line.",
        marts=("marts.flenqa_accuracy_by_length", "marts.flenqa_label_bias"),
        draw=draw_flenqa,
        hint="relreason run --model M --benchmark flenqa",
    ),
    FigureSpec(
        name="kor_accuracy",
        asset_name="kor_plot",
        study="kor",
        title="KOR-Bench: accuracy by category and self-correction",
        caption="Accuracy per rule category and overall (robust scorer) with 95% Wilson whiskers; right: "
        "accuracy after each self-correction round (round 0 = zero-shot), overall.",
        marts=("marts.kor_accuracy", "marts.kor_self_correction"),
        draw=draw_kor,
        hint="relreason run --model M --benchmark kor",
    ),
    FigureSpec(
        name="selfcontra",
        asset_name="selfcontra_plot",
        study="selfcontra",
        title="Self-Contra: accuracy vs Self-Contra rate, and detection",
        caption="Accuracy vs SCR per dataset (colour) and setting (marker), from human labels (left) and "
        "from the judge on our models' responses (right), 95% Wilson whiskers; below: how well each "
        "detection method finds the human-labelled Self-Contra responses (F1).",
        marts=("marts.selfcontra_scr", "marts.selfcontra_judged", "marts.selfcontra_detection_f1"),
        draw=draw_selfcontra,
        hint="relreason run --model M --benchmark selfcontra",
    ),
)


def get_figure(name: str) -> FigureSpec:
    for spec in FIGURES:
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
    plt = _plt()
    fig = spec.draw({m: list(rows_by_mart.get(m, [])) for m in spec.marts})
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, facecolor="white")
    plt.close(fig)
    return buffer.getvalue()


def render(spec: FigureSpec, con: Any, out_dir: Path | None = None) -> tuple[bytes, dict[str, int]]:
    """Draw ``spec`` from the marts on ``con``; write ``out_dir/<name>.png`` when given.

    Returns the PNG and the row count per mart (what the asset's metadata and the report show).
    """
    rows = read_marts(con, spec.marts)
    png = render_rows(spec, rows)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / spec.file_name).write_bytes(png)
    return png, {m: len(r) for m, r in rows.items()}
