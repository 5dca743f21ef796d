"""Drawing FLenQA's accuracy-vs-length figure with matplotlib (no display needed)."""

from __future__ import annotations

import io
from collections import defaultdict
from pathlib import Path
from typing import Any


def plot_accuracy_vs_length(rows: list[dict[str, Any]], path: Path) -> bytes:
    """One panel per task, one line per model x prompt with 95% CI bands; writes ``path``, returns the PNG.

    ``rows`` are ``marts.flenqa_accuracy_by_length`` rows; length 0 (the minimal text) is drawn
    at the position of the shortest text, labelled "min".
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tasks = sorted({r["task"] for r in rows}) or ["(no FLenQA answers yet)"]
    lengths = sorted({int(r["length"]) for r in rows})
    xpos = {length: i for i, length in enumerate(lengths)}
    fig, axes = plt.subplots(1, len(tasks), figsize=(4.2 * len(tasks), 3.6), sharey=True, squeeze=False)
    series: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        series[(r["task"], r["model"], r["setting"])].append(r)
    for ax, task in zip(axes[0], tasks, strict=True):
        for (t, model, setting), points in sorted(series.items()):
            if t != task:
                continue
            points.sort(key=lambda r: int(r["length"]))
            x = [xpos[int(r["length"])] for r in points]
            line = ax.plot(x, [r["accuracy"] for r in points], marker="o", label=f"{model} / {setting}")[0]
            ax.fill_between(
                x,
                [r["ci_low"] for r in points],
                [r["ci_high"] for r in points],
                color=line.get_color(),
                alpha=0.15,
            )
        ax.set_title(task)
        ax.set_xticks(range(len(lengths)), ["min" if n == 0 else str(n) for n in lengths])
        ax.set_xlabel("input tokens (target)")
        ax.set_ylim(-0.02, 1.02)
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("accuracy")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=min(4, len(labels)), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.12 if handles else 0, 1, 1))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    png = buffer.getvalue()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
    return png
