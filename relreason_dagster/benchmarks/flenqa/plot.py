"""Drawing FLenQA's panels with matplotlib: accuracy vs input length (the study's Figure 1) and label bias.

The panels are drawn onto axes the caller owns, so the report's FLenQA figure
(``report.py``'s ``draw_flenqa``) lays them out with the rest; colours are per model and the
line style says the prompt (solid: direct, dashed: chain of thought).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

LINE_STYLES = {"direct": "-", "cot": "--"}
# The study's panel order: positions as they sit in the text, then the two irrelevant paddings.
PANEL_ORDER = {"first": 0, "middle": 1, "last": 2, "similar": 0, "different": 1}


# What a figure's x axis counts: the target length (the study's axis, evenly spaced) or the provider's
# own count of the prompts (marts.flenqa_provider_lengths: each model's mean prompt_tokens per target).
LENGTH_AXES = ("target", "provider")
TARGET_LABEL = "input tokens (target)"
PROVIDER_LABEL = "prompt tokens (provider-counted, mean per model)"


def _length_ticks(lengths: list[int]) -> list[str]:
    return ["min" if n == 0 else str(n) for n in lengths]


def provider_x(rows: list[dict[str, Any]]) -> dict[tuple[str, int], float]:
    """``{(model, target length): mean provider-counted prompt tokens}`` from
    ``marts.flenqa_provider_lengths`` rows (cells whose replies reported no count are left out)."""
    return {
        (r["model"], int(r["length"])): float(r["mean_provider_tokens"])
        for r in rows
        if r.get("mean_provider_tokens") is not None
    }


def _x(
    points: list[dict[str, Any]],
    model: str,
    xpos: dict[int, int],
    provider: dict[tuple[str, int], float] | None,
) -> tuple[list[dict[str, Any]], list[float]]:
    """The points a line can draw and their x: the target's evenly spaced slot, or (``provider``) the model's
    provider-counted mean at that target (points without one are left out)."""
    if provider is None:
        return points, [float(xpos[int(r["length"])]) for r in points]
    kept = [r for r in points if (model, int(r["length"])) in provider]
    return kept, [provider[(model, int(r["length"]))] for r in kept]


def _x_axis(
    ax: Any, lengths: list[int], provider: dict[tuple[str, int], float] | None, fontsize: int = 8
) -> None:
    """Ticks and label of the x axis: the targets' slots ("min" first), or the provider's counts."""
    if provider is None:
        ax.set_xticks(range(len(lengths)), _length_ticks(lengths), fontsize=fontsize)
        ax.set_xlabel(TARGET_LABEL, fontsize=8)
    else:
        ax.tick_params(axis="x", labelsize=fontsize)
        ax.set_xlabel(PROVIDER_LABEL, fontsize=8)


def draw_accuracy_vs_length(
    axes: Sequence[Any],
    rows: list[dict[str, Any]],
    colors: dict[str, Any],
    provider: dict[tuple[str, int], float] | None = None,
) -> None:
    """One panel per task (sorted, one axis each), one line per model x prompt with 95% CI bands.

    ``rows`` are ``marts.flenqa_accuracy_by_length`` rows; length 0 (the minimal text) is drawn at
    the first position and labelled "min", and lengths are evenly spaced (the study's axis).  With
    ``provider`` (:func:`provider_x`) each point sits at its model's provider-counted length instead.
    """
    tasks = sorted({r["task"] for r in rows})
    lengths = sorted({int(r["length"]) for r in rows})
    xpos = {length: i for i, length in enumerate(lengths)}
    series: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        series[(r["task"], r["model"], r["setting"])].append(r)
    for ax, task in zip(axes, tasks, strict=True):
        for (t, model, setting), points in sorted(series.items()):
            if t != task:
                continue
            points.sort(key=lambda r: int(r["length"]))
            points, x = _x(points, model, xpos, provider)
            color = colors.get(model)
            ax.plot(
                x,
                [r["accuracy"] for r in points],
                marker="o",
                markersize=4,
                color=color,
                linestyle=LINE_STYLES.get(setting, ":"),
                label=f"{model} · {setting}",
            )
            ax.fill_between(
                x, [r["ci_low"] for r in points], [r["ci_high"] for r in points], color=color, alpha=0.12
            )
        ax.set_title(task, fontsize=10)
        _x_axis(ax, lengths, provider)
        ax.set_ylabel("accuracy", fontsize=8)
        ax.set_ylim(-0.02, 1.02)
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
        ax.grid(alpha=0.3)


def draw_label_bias(ax: Any, rows: list[dict[str, Any]], colors: dict[str, Any]) -> None:
    """Share of "False" among answered questions vs length (truth: 50%); refusal rate as dotted x.

    ``rows`` are ``marts.flenqa_label_bias`` rows (per model x prompt x length).
    """
    lengths = sorted({int(r["length"]) for r in rows})
    xpos = {length: i for i, length in enumerate(lengths)}
    series: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        series[(r["model"], r["setting"])].append(r)
    for (model, setting), points in sorted(series.items()):
        points.sort(key=lambda r: int(r["length"]))
        answered = [r for r in points if r.get("false_share") is not None]
        x = [xpos[int(r["length"])] for r in answered]
        color = colors.get(model)
        ax.plot(
            x,
            [r["false_share"] for r in answered],
            marker="s",
            markersize=4,
            color=color,
            linestyle=LINE_STYLES.get(setting, ":"),
            label=f"{model} · {setting}",
        )
        ax.fill_between(
            x,
            [r["false_ci_low"] for r in answered],
            [r["false_ci_high"] for r in answered],
            color=color,
            alpha=0.12,
        )
        ax.plot(
            [xpos[int(r["length"])] for r in points],
            [r["refusal_rate"] for r in points],
            marker="x",
            markersize=4,
            color=color,
            linestyle=(0, (1, 2)),
            linewidth=1,
            alpha=0.8,
        )
    ax.set_title('label bias: share of "False" answers (x: refusals)', fontsize=10)
    ax.set_xticks(range(len(lengths)), _length_ticks(lengths), fontsize=8)
    ax.set_xlabel("input tokens (target)", fontsize=8)
    ax.set_ylabel("share", fontsize=8)
    ax.set_ylim(-0.02, 1.02)
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    ax.grid(alpha=0.3)


def draw_figure_panels(
    axes: Sequence[Any],
    rows: list[dict[str, Any]],
    group: str | None,
    colors: dict[str, Any],
    provider: dict[tuple[str, int], float] | None = None,
) -> None:
    """One of the study's figures: accuracy vs length, one panel per value of ``group`` (None: one panel),
    one line per model x prompt with its 95% band, lengths evenly spaced as the study draws them.

    ``rows`` are a ``marts.flenqa_figureN`` mart's rows (padded lengths only); ``provider``: as in
    :func:`draw_accuracy_vs_length`.
    """
    values = sorted({r[group] for r in rows}, key=lambda v: (PANEL_ORDER.get(v, 9), v)) if group else [None]
    lengths = sorted({int(r["length"]) for r in rows})
    xpos = {length: i for i, length in enumerate(lengths)}
    for ax, value in zip(axes, values, strict=False):
        series: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        for r in rows:
            if group is None or r[group] == value:
                series[(r["model"], r["setting"])].append(r)
        for (model, setting), points in sorted(series.items()):
            points.sort(key=lambda r: int(r["length"]))
            points, x = _x(points, model, xpos, provider)
            color = colors.get(model)
            ax.plot(
                x,
                [r["accuracy"] for r in points],
                marker="o",
                markersize=4,
                color=color,
                linestyle=LINE_STYLES.get(setting, ":"),
                label=f"{model} · {setting}",
            )
            ax.fill_between(
                x, [r["ci_low"] for r in points], [r["ci_high"] for r in points], color=color, alpha=0.12
            )
        ax.set_title(f"{group} {value}" if group else "accuracy vs input length", fontsize=10)
        _x_axis(ax, lengths, provider)
        ax.set_ylabel("accuracy", fontsize=8)
        ax.set_ylim(-0.02, 1.02)
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
        ax.grid(alpha=0.3)


def pool_reasoning_rows(
    rows: list[dict[str, Any]],
) -> dict[tuple[str, str, str], dict[int, dict[str, float]]]:
    """``marts.flenqa_reasoning_length`` rows pooled over tasks and positions: per (padding, model,
    setting) and length, the mean reasoning tokens (weighted by the answers with a trace) and the
    accuracy (by the answers).

    The minimal text (padding 'none', length 0) is the start of every padding's line, as in the study's
    figures; a padding with only the minimal text has no panel of its own.
    """
    cells: dict[tuple[str, str, str, int], dict[str, float]] = defaultdict(
        lambda: {"tokens": 0.0, "n_tokens": 0.0, "correct": 0.0, "n": 0.0}
    )
    paddings = sorted(
        {r["padding"] for r in rows if r["padding"] != "none"}, key=lambda v: (PANEL_ORDER.get(v, 9), v)
    )
    for r in rows:
        for padding in paddings if r["padding"] == "none" else [r["padding"]]:
            cell = cells[(padding, r["model"], r["setting"], int(r["length"]))]
            if r["mean_reasoning_tokens"] is not None:
                cell["tokens"] += float(r["mean_reasoning_tokens"]) * int(r["n_with_trace"])
                cell["n_tokens"] += int(r["n_with_trace"])
            cell["correct"] += int(r["n_correct"])
            cell["n"] += int(r["n"])
    out: dict[tuple[str, str, str], dict[int, dict[str, float]]] = defaultdict(dict)
    for (padding, model, setting, length), c in cells.items():
        out[(padding, model, setting)][length] = {
            "mean_tokens": c["tokens"] / c["n_tokens"] if c["n_tokens"] else float("nan"),
            "accuracy": c["correct"] / c["n"] if c["n"] else float("nan"),
        }
    return out


def draw_reasoning_vs_length(axes: Sequence[Any], rows: list[dict[str, Any]], colors: dict[str, Any]) -> None:
    """One panel per padding: mean reasoning tokens vs input length (left axis, solid markers) and the
    accuracy (right axis, faint squares on a dotted line), one colour per model, line style per prompt.

    ``rows`` are ``marts.flenqa_reasoning_length`` rows; lengths evenly spaced, 0 drawn as "min".
    """
    pooled = pool_reasoning_rows(rows)
    paddings = sorted({p for p, _, _ in pooled}, key=lambda v: (PANEL_ORDER.get(v, 9), v))
    lengths = sorted({int(r["length"]) for r in rows})
    xpos = {length: i for i, length in enumerate(lengths)}
    for ax, padding in zip(axes, paddings, strict=False):
        right = ax.twinx()
        for (p, model, setting), by_length in sorted(pooled.items()):
            if p != padding:
                continue
            points = sorted(by_length.items())
            x = [xpos[length] for length, _ in points]
            color = colors.get(model)
            ax.plot(
                x,
                [v["mean_tokens"] for _, v in points],
                marker="o",
                markersize=4,
                color=color,
                linestyle=LINE_STYLES.get(setting, ":"),
                label=f"{model} · {setting}",
            )
            right.plot(
                x,
                [v["accuracy"] for _, v in points],
                marker="s",
                markersize=3,
                color=color,
                linestyle=(0, (1, 2)),
                linewidth=1,
                alpha=0.6,
            )
        ax.set_title(f"padding {padding}", fontsize=10)
        ax.set_xticks(range(len(lengths)), _length_ticks(lengths), fontsize=7)
        ax.set_xlabel("input tokens (target)", fontsize=8)
        ax.set_ylabel("mean reasoning tokens", fontsize=8)
        ax.set_ylim(bottom=0)
        right.set_ylabel("accuracy (squares, dotted)", fontsize=8)
        right.set_ylim(-0.02, 1.02)
        ax.grid(alpha=0.3)
