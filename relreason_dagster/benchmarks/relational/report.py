"""What the report shows of the relational study: F1 by task and setting, the study's Table 1 (LLMs with
nl prompting vs the DLM) as a figure and as a table, and our models beside the study's published ones.

Found by name (``registry.family_sections``, ``family_headlines``); ``results/`` renders it without
knowing the family.  The DLM baseline is this family's (``RelationalFamily.baselines``), so the
figures and Table 1 place it: last, in black, in the ``nl`` panel of its split.
"""

from __future__ import annotations

import html
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
from relreason_dagster.benchmarks.relational.generate import BENCHMARK
from relreason_dagster.benchmarks.relational.tasks import TASKS

DLM = "dlm"  # the baseline model this family trains (RelationalFamily.baselines)
DLM_COLOR = (0.1, 0.1, 0.1)
# The per-sample score of a relational answer is F1 over its cells: a sample view shows it even when
# tp = fp = fn = 0 (nothing to find, nothing claimed).
CELL_SCORED = True


def _task_key(task: str) -> tuple[int, str]:
    return (TASKS.index(task) if task in TASKS else len(TASKS), task)


def _colors(models: list[str]) -> dict[str, Any]:
    return plotting.model_colors(models, fixed={DLM: DLM_COLOR})


def draw_relational(rows_by_mart: dict[str, Rows]) -> Any:
    """F1 per task, one panel per split x prompt setting, one bar per model, 95% bootstrap whiskers.

    The DLM's rows (setting ``dlm``) are drawn in the ``nl`` panel of their split: that is the
    comparison the study makes (its Table 1), and a panel of its own would be empty but for it.
    """
    plt = plotting.plt()
    rows = [
        {**r, "setting": "nl"} if r["model"] == DLM and r["setting"] == DLM else r
        for r in rows_by_mart["marts.relational_f1"]
    ]
    split_order = {"iid": 0, "ood": 1}
    panels = sorted(
        {(r["split"], r["setting"]) for r in rows}, key=lambda p: (split_order.get(p[0], 2), p[1])
    )
    if not panels:
        fig, ax = plt.subplots(figsize=(plotting.WIDTH_IN, 2.4))
        plotting.no_data(
            ax, "No relational results yet: run `relreason run --model M --benchmark relational`."
        )
        return fig
    ncols = min(2, len(panels))
    nrows = (len(panels) + ncols - 1) // ncols
    tasks = sorted({r["task"] for r in rows}, key=_task_key)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(plotting.WIDTH_IN, 0.25 * len(tasks) * nrows + 1.3 * nrows + 0.6),
        squeeze=False,
        sharex=True,
    )
    models = sorted({r["model"] for r in rows}, key=lambda m: (m == DLM, m))
    colors = _colors(models)
    for ax, (split, setting) in zip(axes.flat, panels, strict=False):
        panel = [r for r in rows if r["split"] == split and r["setting"] == setting]
        plotting.hbars(
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
        dlm = " (+ DLM)" if any(r["model"] == DLM for r in panel) else ""
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
    bottom = plotting.legend_below(fig, axes.flat)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


def _is_published(row: dict[str, Any]) -> bool:
    return bool(row.get("published"))


def _series_label(row: dict[str, Any]) -> str:
    if row["model"] == DLM:
        return "DLM (ours)"
    if _is_published(row):
        return f"{row['model']} (published, {row.get('source') or 'the study'})"
    return f"{row['model']} (nl)"


def draw_dlm_vs_llm(rows_by_mart: dict[str, Rows]) -> Any:
    """The study's Table 1 as a dot plot: each LLM (nl prompting), our DLM and the study's DLM, per task.

    The study's own LLMs (rows marked ``published``) are hollow squares beside ours.
    """
    plt = plotting.plt()
    rows = rows_by_mart["marts.dlm_vs_llm"]
    if not rows:
        fig, ax = plt.subplots(figsize=(plotting.WIDTH_IN, 2.4))
        plotting.no_data(
            ax, "No DLM vs LLM rows yet: run `relreason run --model dlm --model M --benchmark relational`."
        )
        return fig
    tasks = sorted({r["task"] for r in rows}, key=_task_key)
    series = sorted({(r["model"], _is_published(r)) for r in rows}, key=lambda s: (s[0] == DLM, s[1], s[0]))
    colors = _colors([m for m, _ in series])
    fig, axes = plt.subplots(
        1, 2, figsize=(plotting.WIDTH_IN, 0.32 * len(tasks) + 1.9), sharey=True, squeeze=False
    )
    offsets = {s: (i - (len(series) - 1) / 2) * min(0.18, 0.8 / len(series)) for i, s in enumerate(series)}
    for ax, (suffix, label) in zip(axes[0], (("n10", "IID, n = 10"), ("n20", "OOD, n = 20")), strict=True):
        for model, published in series:
            points = [
                r
                for r in rows
                if r["model"] == model and _is_published(r) == published and r.get(f"f1_{suffix}") is not None
            ]
            if not points:
                continue
            ax.errorbar(
                [r[f"f1_{suffix}"] for r in points],
                [tasks.index(r["task"]) + offsets[(model, published)] for r in points],
                xerr=plotting.error_bars(points, f"f1_{suffix}", f"ci_low_{suffix}", f"ci_high_{suffix}"),
                fmt="s" if published else "o",
                markerfacecolor="none" if published else colors[model],
                color=colors[model],
                markersize=5,
                elinewidth=0.9,
                capsize=2,
                label=_series_label(points[0]),
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
    bottom = plotting.legend_below(fig, axes[0])
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}%"


def dlm_table_html(rows: list[dict[str, Any]]) -> str:
    """``marts.dlm_vs_llm`` shaped like the study's Table 1: a row per task, n = 10 / n = 20 per model.

    As in the study, the best LLM of a column pair is marked (red) and the best of all systems boxed;
    the study's own LLMs (rows marked ``published``) are columns of their own, marked as published.
    """
    if not rows:
        return (
            '<p class="empty">No DLM vs LLM rows yet: run '
            f"<code>relreason run --model {DLM} --model M --benchmark {BENCHMARK}</code>.</p>"
        )
    tasks = sorted({r["task"] for r in rows}, key=_task_key)
    columns = sorted(
        {(r["model"], _is_published(r)) for r in rows}, key=lambda c: (c[0] == DLM and not c[1], c[1], c[0])
    )
    by = {(r["task"], r["model"], _is_published(r)): r for r in rows}
    sources = {(r["model"], True): r.get("source") for r in rows if _is_published(r)}
    study = {r["task"]: r for r in rows}

    def head(column: tuple[str, bool]) -> str:
        model, published = column
        if published:
            source = _e(sources.get(column) or "the study")
            label = f'{_e(model)}<br><span class="pub">(published, {source})</span>'
            return f'<th colspan="2" class="published">{label}</th>'
        return f'<th colspan="2">{"DLM (ours)" if model == DLM else _e(model)}</th>'

    top = "".join(head(c) for c in columns) + '<th colspan="2">DLM (the study)</th>'
    sub = "<th>n=10</th><th>n=20</th>" * (len(columns) + 1)
    body = []
    for task in tasks:
        best = []
        for suffix in ("n10", "n20"):
            llm = [by[(task, *c)].get(f"f1_{suffix}") for c in columns if c[0] != DLM and (task, *c) in by]
            llm = [v for v in llm if v is not None]
            ours = by.get((task, DLM, False), {}).get(f"f1_{suffix}")
            every = [v for v in (*llm, ours) if v is not None]
            best.append((max(llm) if llm else None, max(every) if every else None))
        row = [f'<td class="key">{_e(task)}</td>']
        for model, published in columns:
            r = by.get((task, model, published), {})
            for i, suffix in enumerate(("n10", "n20")):
                value = r.get(f"f1_{suffix}")
                classes = ["published"] if published else []
                if value is not None and model != DLM and value == best[i][0] and len(columns) > 2:
                    classes.append("best-llm")
                if value is not None and value == best[i][1]:
                    classes.append("best")
                low, high = r.get(f"ci_low_{suffix}"), r.get(f"ci_high_{suffix}")
                ci = f'<br><span class="ci">[{_pct(low)}, {_pct(high)}]</span>' if low is not None else ""
                row.append(f'<td class="{" ".join(classes)}">{_pct(value)}{ci}</td>')
        row.append(f'<td class="study">{_pct(study[task].get("study_dlm_n10"))}</td>')
        row.append(f'<td class="study">{_pct(study[task].get("study_dlm_n20"))}</td>')
        body.append("<tr>" + "".join(row) + "</tr>")
    return (
        '<div class="table" id="table-dlm"><h3>Table 1: LLMs with nl prompting vs the DLM</h3>'
        '<p class="note">F1 at n = 10 (IID) and n = 20 (OOD) with 95% bootstrap intervals; the DLM pools '
        'every trained seed. <span class="best-llm">Red</span>: best LLM; <span class="best">boxed</span>: '
        "best of all; columns marked <em>published</em> are the study's own LLMs as its Table 1 prints "
        "them (no interval), and the last pair is the study's DLM for reference (marts.dlm_vs_llm).</p>"
        f'<div class="scroll"><table class="headline paired"><thead><tr><th rowspan="2">Task</th>{top}</tr>'
        f"<tr>{sub}</tr></thead><tbody>{''.join(body)}</tbody></table></div></div>"
    )


def dlm_section_html(rows_by_mart: dict[str, Rows]) -> str:
    return dlm_table_html(rows_by_mart["marts.dlm_vs_llm"])


FIGURES = (
    FigureSpec(
        name="relational_f1",
        asset_name="relational_f1_plot",
        study=BENCHMARK,
        title="Relational reasoning: F1 by task and setting",
        caption="Mean per-sample F1 per task, one panel per split (IID n = 10, OOD n = 20) and prompt "
        "setting, one bar per model; whiskers are 95% bootstrap intervals over samples.",
        marts=("marts.relational_f1",),
        draw=draw_relational,
        hint=f"relreason run --model M --benchmark {BENCHMARK}",
    ),
    FigureSpec(
        name="dlm_vs_llm",
        asset_name="dlm_vs_llm_plot",
        study=BENCHMARK,
        title="DLM vs LLMs (the study's Table 1)",
        caption="F1 with standard nl prompting for each LLM next to the DLM trained on the same few-shot "
        "samples (pooled over seeds), with 95% bootstrap intervals; hollow squares are the study's "
        "LLMs as published, red diamonds the study's DLM.",
        marts=("marts.dlm_vs_llm",),
        draw=draw_dlm_vs_llm,
        hint=f"relreason run --model {DLM} --model M --benchmark {BENCHMARK}",
    ),
)

F1_TABLE = ReportTable(
    key="relational_f1",
    title="Relational reasoning: mean per-sample F1",
    note="Per task, split (IID n = 10, OOD n = 20) and prompt setting; 95% bootstrap interval over "
    "samples (marts.relational_f1).",
    marts=("marts.relational_f1",),
    row_keys=("task", "split", "setting"),
    sql="SELECT task, split, setting, model, f1 AS value, ci_low AS low, ci_high AS high, n "
    "FROM marts.relational_f1",
    first=TASKS,
    last_models=(DLM,),
)

VS_STUDY = Comparison(
    key="relational_vs_study",
    title="Relational reasoning: our models beside the study's (Tables 1-3)",
    mart="marts.relational_vs_study",
    note="F1 per task, split (IID n = 10, OOD n = 20) and prompting; columns marked published are the "
    "study's models as its tables print them (marts.relational_vs_study).",
    footnote="Protocol: the study scores 10 IID and 10 OOD test samples per task, with 10 few-shot "
    "examples (one with chain of thought), so one sample moves its F1 by about ten points; ours come "
    "from this run's generated samples, with 95% bootstrap intervals.",
    first=TASKS,
    last_models=(DLM,),
)

SECTIONS = (
    ReportSection(
        key=BENCHMARK,
        title="Relational reasoning: LLMs vs a differentiable logic machine",
        label="Relational",
        order=10,
        figures=FIGURES,
        html=dlm_section_html,
        html_marts=("marts.dlm_vs_llm",),
        tables=(F1_TABLE,),
        comparisons=(VS_STUDY,),
    ),
)

HEADLINES = (
    HeadlineTable(
        "marts.relational_f1",
        "SELECT model, task, split, setting, n, n_na, n_error, f1, ci_low, ci_high "
        "FROM marts.relational_f1 ORDER BY model, task, split, setting",
    ),
    HeadlineTable(
        "marts.dlm_vs_llm (Table 1: nl prompting vs DLM)",
        "SELECT task, model, source, f1_n10, ci_low_n10, ci_high_n10, f1_n20, ci_low_n20, ci_high_n20, "
        "n_seeds, study_dlm_n10, study_dlm_n20 FROM marts.dlm_vs_llm",
    ),
    HeadlineTable(
        "marts.relational_symbolic_scr (relational CoT: stated facts checked against the knowledge base)",
        "SELECT model, task, split, n, n_checked, symbolic_scr, n_type1, n_type2, n_type3, n_rr, n_ww, "
        "n_unchecked, n_claims, n_false_claims FROM marts.relational_symbolic_scr "
        "ORDER BY model, task, split",
    ),
)
