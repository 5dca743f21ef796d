"""The report's generic sections over every family: "A vs B" (paired comparisons) and repeated sampling.

Family-agnostic: they read ``marts.paired_comparisons`` and ``marts.pass_at_k``, which every family's
answers feed, so a new family's models are compared with no code here.  A section shows only when it
has something to say: two models on shared prompts, or a run of ``--samples K`` with K > 1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from relreason_dagster.results.figures import read_marts
from relreason_dagster.results.html_cells import escape as _e
from relreason_dagster.results.html_cells import number as _num

PAIRED = "marts.paired_comparisons"
SAMPLING = "marts.pass_at_k"
# A difference whose Holm-adjusted p-value is below this is marked as significant.
ALPHA = 0.05


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def paired_html(rows: list[dict[str, Any]]) -> str:
    """Every model pair per cell: who wins on the same prompts, by how much, and how surely."""
    out = []
    for r in rows:
        sure = r["p_holm"] is not None and r["p_holm"] < ALPHA
        diff = r["difference"] or 0
        winner = r["model_a"] if diff > 0 else r["model_b"] if diff < 0 else "—"
        out.append(
            [
                _e(f"{r['benchmark']} / {r['task']} / {r['split']} / {r['setting']}"),
                f"<b>{_e(r['model_a'])}</b> vs <b>{_e(r['model_b'])}</b>",
                _e(r["n"]),
                f"{_num(r['accuracy_a'])} vs {_num(r['accuracy_b'])}",
                _e(f"{r['a_only']} / {r['b_only']}"),
                _num(r["p_value"]),
                f"<b>{_num(r['p_holm'])}</b>" if sure else _num(r["p_holm"]),
                f"{_num(r['f1_difference'])} [{_num(r['f1_ci_low'])}, {_num(r['f1_ci_high'])}]",
                _e(winner if sure else "not shown"),
            ]
        )
    head = [
        "cell",
        "A vs B",
        "shared prompts",
        "accuracy A vs B",
        "only A / only B right",
        "McNemar p",
        "Holm p",
        "F1 A − B [95% paired bootstrap]",
        f"better (Holm p < {ALPHA})",
    ]
    return (
        "<p>Each pair of models on the prompts both answered (draw 0), per cell.  McNemar's exact test "
        "uses only the prompts one model got right and the other wrong; Holm's adjustment is over every "
        "row of this table.</p>" + _table(head, out)
    )


def sampling_html(rows: list[dict[str, Any]]) -> str:
    """Per cell: pass@1 over the draws, pass@k, maj@k and agreement, intervals clustered by prompt."""
    out = [
        [
            _e(f"{r['benchmark']} / {r['task']} / {r['split']} / {r['setting']}"),
            f"<b>{_e(r['model'])}</b>",
            _e(f"{r['n_prompts']} × {r['k']}"),
            f"{_num(r['pass_at_1'])} [{_num(r['ci_low'])}, {_num(r['ci_high'])}]",
            f"{_num(r['pass_at_k'])} [{_num(r['pass_at_k_ci_low'])}, {_num(r['pass_at_k_ci_high'])}]",
            f"{_num(r['maj_at_k'])} [{_num(r['maj_at_k_ci_low'])}, {_num(r['maj_at_k_ci_high'])}]",
            _num(r["agreement"]),
        ]
        for r in rows
    ]
    head = ["cell", "model", "prompts × k", "pass@1", "pass@k", "maj@k", "agreement"]
    return (
        "<p>Every prompt asked k times (<code>relreason run --samples K</code>).  Intervals treat the k "
        "draws of a prompt as one cluster.</p>" + _table(head, out)
    )


def generic_sections(con: Any) -> list[tuple[str, str, str]]:
    """``(anchor, title, html)`` of the generic sections that have rows to show."""
    marts = read_marts(con, [PAIRED, SAMPLING])
    found: list[tuple[str, str, Callable[[list[dict[str, Any]]], str], list[dict[str, Any]]]] = [
        ("a-vs-b", "A vs B", paired_html, marts[PAIRED]),
        ("sampling", "Repeated sampling", sampling_html, [r for r in marts[SAMPLING] if (r["k"] or 1) > 1]),
    ]
    return [(anchor, title, render(rows)) for anchor, title, render, rows in found if rows]
