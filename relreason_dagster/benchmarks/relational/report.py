"""What the report shows of the relational study: F1 by task and setting, the study's Table 1 (LLMs with
nl prompting vs the DLM) as a figure and as a table, and our models beside the study's published ones.

Found by name (``registry.family_sections``, ``family_headlines``); ``results/`` renders it without
knowing the family.  The DLM baseline is this family's (``RelationalFamily.baselines``), so the
figures and Table 1 place it: last, in black, in the ``nl`` panel of its split.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

from relreason_dagster.benchmarks import plotting
from relreason_dagster.benchmarks.base import (
    Comparison,
    FigureSpec,
    HeadlineTable,
    ReportSection,
    Rows,
)
from relreason_dagster.benchmarks.relational.generate import BENCHMARK
from relreason_dagster.benchmarks.relational.tasks import TASKS

DLM = "dlm"  # the baseline model this family trains (RelationalFamily.baselines)
DLM_COLOR = (0.1, 0.1, 0.1)
DLM_OTHER_COLOR = (0.55, 0.55, 0.55)  # the DLM under another recipe than the default (study-protocol)
# The per-sample score of a relational answer is F1 over its cells: a sample view shows it even when
# tp = fp = fn = 0 (nothing to find, nothing claimed).
CELL_SCORED = True


def _task_key(task: str) -> tuple[int, str]:
    return (TASKS.index(task) if task in TASKS else len(TASKS), task)


def _colors(models: list[str]) -> dict[str, Any]:
    fixed = {m: DLM_COLOR if m == DLM else DLM_OTHER_COLOR for m in models if m.startswith(DLM)}
    return plotting.model_colors(models, fixed=fixed)


def draw_relational(rows_by_mart: dict[str, Rows]) -> Any:
    """F1 per task, one panel per split x prompt setting, one bar per model, 95% bootstrap whiskers.

    The DLM's rows (setting ``dlm``) are drawn in the ``nl`` panel of their split: that is the
    comparison the study makes (its Table 1), and a panel of its own would be empty but for it.
    """
    plt = plotting.plt()
    rows = [
        {**r, "setting": "nl", "model": _dlm_label(r["setting"])} if r["model"] == DLM else r
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
    models = sorted({r["model"] for r in rows}, key=lambda m: (m.startswith(DLM), m))
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
        dlm = " (+ DLM)" if any(r["model"].startswith(DLM) for r in panel) else ""
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


def _dlm_label(setting: str) -> str:
    """The DLM's name in a figure: ``dlm`` for the default recipes, ``dlm (study-protocol)`` for another."""
    if setting == DLM:
        return DLM
    return f"{DLM} ({setting.removeprefix(DLM + '_').replace('_', '-')})"


def _is_published(row: dict[str, Any]) -> bool:
    return bool(row.get("published"))


def _series_label(row: dict[str, Any]) -> str:
    if row["model"].startswith(DLM):
        return f"DLM (ours, {row.get('recipe') or 'default recipe'})"
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
    rows = [{**r, "model": _dlm_label(r["setting"])} if r["model"] == DLM else r for r in rows]
    series = sorted(
        {(r["model"], _is_published(r)) for r in rows}, key=lambda s: (s[0].startswith(DLM), s[1], s[0])
    )
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


NOT_SET = "not set (provider default)"


def model_temperatures(model_params: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Each registered model's temperature as ``models.yaml`` sets it (``model_params``: the report's
    ``params`` of every registered model, read when the report is drawn).

    The study states no decoding parameters (README); relreason sends a model's ``params`` as they are
    in the registry, and a model without ``temperature`` there runs at its provider's default.  The
    stored responses do not record their params, so this is the registry's current value: a model
    whose entry changed since its answers were stored shows the new value.
    """
    return {
        name: str(params["temperature"]) if "temperature" in params else NOT_SET
        for name, params in model_params.items()
    }


def _temperature(model: str, temperatures: dict[str, str]) -> str:
    return temperatures.get(model, "unknown (not in models.yaml)")


def _dlm_header(row: dict[str, Any]) -> str:
    """A DLM column's header: which recipe its numbers come from."""
    recipe = row.get("recipe") or "default recipe"
    kind = "the study's protocol" if row.get("setting") != DLM else "default"
    return f'DLM (ours)<br><span class="pub">{_e(kind)}: {_e(recipe)}</span>'


def dlm_table_html(rows: list[dict[str, Any]], temperatures: dict[str, str] | None = None) -> str:
    """``marts.dlm_vs_llm`` shaped like the study's Table 1: a row per task, n = 10 / n = 20 per model.

    As in the study, the best LLM of a column pair is marked (red) and the best of all systems boxed;
    the study's own LLMs (rows marked ``published``) are columns of their own, marked as published.
    The DLM has a column per recipe (its header names it), an LLM's header its temperature (from
    ``temperatures``, :func:`model_temperatures`; a model not in it reads unknown), and an LLM cell
    whose every answer was incomplete reads N/A, as in the study.
    """
    if not rows:
        return (
            '<p class="empty">No DLM vs LLM rows yet: run '
            f"<code>relreason run --model {DLM} --model M --benchmark {BENCHMARK}</code>.</p>"
        )
    temperatures = temperatures or {}
    tasks = sorted({r["task"] for r in rows}, key=_task_key)
    columns = sorted(
        {(r["model"], r.get("setting") or "", _is_published(r)) for r in rows},
        key=lambda c: (c[0] == DLM and not c[2], c[2], c[0], c[1]),
    )
    by = {(r["task"], r["model"], r.get("setting") or "", _is_published(r)): r for r in rows}
    first = {(r["model"], r.get("setting") or "", _is_published(r)): r for r in rows}
    study = {r["task"]: r for r in rows}

    def head(column: tuple[str, str, bool]) -> str:
        model, _, published = column
        row = first[column]
        if published:
            source = _e(row.get("source") or "the study")
            label = f'{_e(model)}<br><span class="pub">(published, {source})</span>'
            return f'<th colspan="2" class="published">{label}</th>'
        if model == DLM:
            return f'<th colspan="2">{_dlm_header(row)}</th>'
        temperature = _e(_temperature(model, temperatures))
        return f'<th colspan="2">{_e(model)}<br><span class="pub">temperature {temperature}</span></th>'

    top = "".join(head(c) for c in columns) + '<th colspan="2">DLM (the study)</th>'
    sub = "<th>n=10</th><th>n=20</th>" * (len(columns) + 1)
    body = []
    for task in tasks:
        best = []
        for suffix in ("n10", "n20"):
            llm = [by[(task, *c)].get(f"f1_{suffix}") for c in columns if c[0] != DLM and (task, *c) in by]
            llm = [v for v in llm if v is not None]
            ours = [by[(task, *c)].get(f"f1_{suffix}") for c in columns if c[0] == DLM and (task, *c) in by]
            every = [v for v in (*llm, *ours) if v is not None]
            best.append((max(llm) if llm else None, max(every) if every else None))
        row = [f'<td class="key">{_e(task)}</td>']
        for model, setting, published in columns:
            r = by.get((task, model, setting, published), {})
            for i, suffix in enumerate(("n10", "n20")):
                value = r.get(f"f1_{suffix}")
                classes = ["published"] if published else []
                if value is not None and model != DLM and value == best[i][0] and len(columns) > 2:
                    classes.append("best-llm")
                if value is not None and value == best[i][1]:
                    classes.append("best")
                share = r.get(f"incomplete_share_{suffix}")
                if value is None and share == 1:  # every answer incomplete: the study's N/A
                    row.append('<td class="na" title="every answer incomplete">N/A</td>')
                    continue
                low, high = r.get(f"ci_low_{suffix}"), r.get(f"ci_high_{suffix}")
                ci = f'<br><span class="ci">[{_pct(low)}, {_pct(high)}]</span>' if low is not None else ""
                inc = f'<br><span class="n">incomplete {_pct(share)}</span>' if share else ""
                row.append(f'<td class="{" ".join(classes)}">{_pct(value)}{ci}{inc}</td>')
        row.append(f'<td class="study">{_pct(study[task].get("study_dlm_n10"))}</td>')
        row.append(f'<td class="study">{_pct(study[task].get("study_dlm_n20"))}</td>')
        body.append("<tr>" + "".join(row) + "</tr>")
    return (
        '<div class="table" id="table-dlm"><h3>Table 1: LLMs with nl prompting vs the DLM</h3>'
        '<p class="note">F1 at n = 10 (IID) and n = 20 (OOD) with 95% bootstrap intervals; the DLM pools '
        "every trained seed, one column per training recipe (its header names the recipe: the default, "
        "and the study's stated protocol where the profile trains it; dlm/README.md). N/A: every answer "
        "of the cell was incomplete (the study's rule); otherwise the share of incomplete answers is "
        'printed under the number. <span class="best-llm">Red</span>: best LLM; <span class="best">'
        "boxed</span>: best of all; columns marked <em>published</em> are the study's own LLMs as its "
        "Table 1 prints them (no interval), and the last pair is the study's DLM for reference "
        "(marts.dlm_vs_llm).</p>"
        f'<div class="scroll"><table class="headline paired"><thead><tr><th rowspan="2">Task</th>{top}</tr>'
        f"<tr>{sub}</tr></thead><tbody>{''.join(body)}</tbody></table></div></div>"
    )


def _grid_html(
    key_names: tuple[str, ...],
    keys: list[tuple[str, ...]],
    heads: list[str],
    models: list[str],
    by: dict[tuple[str, ...], dict[str, Any]],
    cell: Callable[[dict[str, Any] | None], str],
) -> str:
    """A row per key (task, split, ...), a column per model, each cell drawn by ``cell`` from the row of
    ``by[(*key, model)]`` (None where the model has none); folded under a summary beyond 12 rows.

    The per-cell F1 table and the RQ difference tables share this shape; only their cells differ."""
    body = "".join(
        "<tr>"
        + "".join(f'<td class="key">{_e(v)}</td>' for v in key)
        + "".join(cell(by.get((*key, m))) for m in models)
        + "</tr>"
        for key in keys
    )
    names = "".join(f"<th>{_e(name)}</th>" for name in key_names)
    grid = (
        f'<div class="scroll"><table class="headline"><thead><tr>{names}{"".join(heads)}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>"
    )
    if len(keys) > 12:
        grid = f"<details><summary>Show the table ({len(keys)} rows)</summary>{grid}</details>"
    return grid


def _f1_cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return '<td class="na">–</td>'
    if r.get("na_cell"):
        return f'<td class="na" title="all {_e(r.get("n"))} answers incomplete">N/A</td>'
    ci = (
        f' <span class="ci">[{r["ci_low"]:.2f}, {r["ci_high"]:.2f}]</span>'
        if r.get("ci_low") is not None
        else ""
    )
    share = r.get("incomplete_share") or 0.0
    return (
        f'<td title="n = {_e(r.get("n"))}">{r["f1"]:.3f}{ci}'
        f'<span class="n">incomplete {100 * share:.0f}% · n={_e(r.get("n"))}</span></td>'
    )


def f1_table_html(rows: list[dict[str, Any]], temperatures: dict[str, str] | None = None) -> str:
    """``marts.relational_f1``: a row per task x split x setting, a column per model; each cell its F1
    with the 95% interval, the share of incomplete answers beside it, or N/A (the study's rule)."""
    if not rows:
        return ""
    temperatures = temperatures or {}
    models = sorted({r["model"] for r in rows}, key=lambda m: (m == DLM, m))
    by = {(r["task"], r["split"], r["setting"], r["model"]): r for r in rows}
    keys = sorted(
        {(r["task"], r["split"], r["setting"]) for r in rows}, key=lambda k: (_task_key(k[0]), k[1], k[2])
    )

    def head(model: str) -> str:
        if model == DLM:
            return '<th class="model">dlm<br><span class="pub">trained, no decoding</span></th>'
        temperature = _e(_temperature(model, temperatures))
        return f'<th class="model">{_e(model)}<br><span class="pub">temperature {temperature}</span></th>'

    grid = _grid_html(("task", "split", "setting"), keys, [head(m) for m in models], models, by, _f1_cell)
    return (
        '<div class="table" id="table-relational_f1"><h3>Relational reasoning: mean per-sample F1</h3>'
        '<p class="note">Per task, split (IID n = 10, OOD n = 20) and setting, 95% bootstrap interval over '
        "samples, and the share of incomplete answers (cut at max_tokens, over the context window, or "
        "without a complete output). N/A: every answer of the cell was incomplete, the study's N/A (not "
        "0). The DLM's settings are its training recipes (dlm: the default; dlm_study_protocol: the "
        "study's protocol). The temperature is the model's in models.yaml: the study states none "
        "(marts.relational_f1).</p>"
        f"{grid}</div>"
    )


def _diff_cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return '<td class="na">–</td>'
    if r.get("diff") is None:
        side = "both" if r.get("na_a") and r.get("na_b") else ("a" if r.get("na_a") else "b")
        return f'<td class="na" title="N/A: every answer of side {side} incomplete">N/A</td>'
    return (
        f"<td>{100 * r['diff']:+.1f}"
        f' <span class="ci">[{100 * r["ci_low"]:+.1f}, {100 * r["ci_high"]:+.1f}]</span>'
        f'<span class="n">n={_e(r.get("n_pairs"))} pairs</span></td>'
    )


def rq_diff_html(key: str, title: str, note: str, rows: list[dict[str, Any]]) -> str:
    """``relational_rq2`` / ``rq3``: a row per task x split, a column per model, each cell the paired
    difference in F1 points with its bootstrap interval (N/A where a side's answers were all incomplete)."""
    if not rows:
        return ""
    models = sorted({r["model"] for r in rows})
    by = {(r["task"], r["split"], r["model"]): r for r in rows}
    keys = sorted({(r["task"], r["split"]) for r in rows}, key=lambda k: (_task_key(k[0]), k[1]))
    heads = [f'<th class="model">{_e(m)}</th>' for m in models]
    grid = _grid_html(("task", "split"), keys, heads, models, by, _diff_cell)
    head = f'<div class="table" id="table-{key}"><h3>{_e(title)}</h3><p class="note">{_e(note)}</p>'
    return f"{head}{grid}</div>"


def rq1_html(rows: list[dict[str, Any]]) -> str:
    """``relational_rq1``: per model, setting and split, the rank correlation of F1 with program size."""
    if not rows:
        return ""
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for r in rows:
        groups.setdefault((r["model"], r["setting"], r["split"]), r)

    def corr(value: Any) -> str:
        return "–" if value is None else f"{value:+.2f}"

    body = "".join(
        f'<tr><td class="key">{_e(m)}</td><td class="key">{_e(st)}</td><td class="key">{_e(sp)}</td>'
        f"<td>{corr(r.get('rank_corr'))}</td><td>{corr(r.get('rank_corr_inlined'))}</td>"
        f"<td>{_e(r.get('n_tasks'))}</td></tr>"
        for (m, st, sp), r in sorted(groups.items(), key=lambda item: (item[0][0] == DLM, item[0]))
    )
    return (
        '<div class="table" id="table-relational_rq1"><h3>RQ1: F1 against the size of the ground-truth '
        'program</h3><p class="note">Spearman rank correlation between a model\'s F1 and the number of '
        "predicates in each task's ground-truth program (formulas (2)-(10); inlined: invented predicates "
        "replaced by their definitions), over the tasks that are not N/A. The study finds F1 falls on "
        "tasks with more predicates: a negative correlation (marts.relational_rq1, one row per task).</p>"
        '<div class="scroll"><table class="headline"><thead><tr><th>model</th><th>setting</th>'
        "<th>split</th><th>rank corr.</th><th>rank corr. (inlined)</th><th>tasks</th></tr></thead>"
        f"<tbody>{body}</tbody></table></div></div>"
    )


def dlm_section_html(rows_by_mart: dict[str, Rows], model_params: dict[str, dict[str, Any]]) -> str:
    by_model = model_temperatures(model_params)
    return "".join(
        (
            dlm_table_html(rows_by_mart["marts.dlm_vs_llm"], by_model),
            f1_table_html(rows_by_mart.get("marts.relational_f1", []), by_model),
            rq1_html(rows_by_mart.get("marts.relational_rq1", [])),
            rq_diff_html(
                "relational_rq2",
                "RQ2: truth-value minus natural-language prompting (F1 points)",
                "F1(tv) − F1(nl) over the samples both settings answered, with a paired 95% bootstrap "
                "interval; N/A where every answer of one side was incomplete, as the study leaves such "
                "cells out of its Table 2 (marts.relational_rq2).",
                rows_by_mart.get("marts.relational_rq2", []),
            ),
            rq_diff_html(
                "relational_rq3",
                "RQ3: chain-of-thought minus standard prompting (F1 points)",
                "F1(nl_cot) − F1(nl) over the samples both settings answered, with a paired 95% bootstrap "
                "interval (the study's CoT prompts show one example, its standard prompts ten); N/A where "
                "every answer of one side was incomplete (marts.relational_rq3).",
                rows_by_mart.get("marts.relational_rq3", []),
            ),
        )
    )


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
        html_marts=(
            "marts.dlm_vs_llm",
            "marts.relational_f1",
            "marts.relational_rq1",
            "marts.relational_rq2",
            "marts.relational_rq3",
        ),
        comparisons=(VS_STUDY,),
    ),
)

HEADLINES = (
    HeadlineTable(
        "marts.relational_f1",
        "SELECT model, task, split, setting, n, n_na, n_cut, n_error, f1, ci_low, ci_high, na_cell, "
        "incomplete_share, f1_complete_answers FROM marts.relational_f1 ORDER BY model, task, split, setting",
    ),
    HeadlineTable(
        "marts.dlm_vs_llm (Table 1: nl prompting vs DLM)",
        "SELECT task, model, setting, recipe, source, f1_n10, ci_low_n10, ci_high_n10, f1_n20, ci_low_n20, "
        "ci_high_n20, n_seeds, study_dlm_n10, study_dlm_n20 FROM marts.dlm_vs_llm",
    ),
    HeadlineTable(
        "marts.relational_symbolic_scr (relational CoT: stated facts checked against the knowledge base)",
        "SELECT model, task, split, source, n, n_checked, symbolic_scr, n_type1, n_type2, n_type3, n_rr, "
        "n_ww, n_unchecked, n_claims, n_false_claims FROM marts.relational_symbolic_scr "
        "ORDER BY model, task, split, source",
    ),
)
