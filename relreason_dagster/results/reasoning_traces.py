"""The report's "Reasoning traces" section: accuracy against reasoning tokens, and the families' figures
of what the traces show.

Family-agnostic, like the A-vs-B section: the tables read ``marts.reasoning_correlation`` and
``marts.reasoning_accuracy``, which every family's answers feed, and the figures are whatever the
registered families declare as ``TRACE_FIGURES`` in their ``report.py`` (``results/figures.py``,
:func:`~relreason_dagster.results.figures.trace_figures`).  The section is there only when some model
has a reasoning trace: for a run of models that do not reason it would be a page of empty panels.
"""

from __future__ import annotations

from typing import Any

from relreason_dagster.results.figures import existing_tables, read_marts
from relreason_dagster.results.html_cells import escape as _e
from relreason_dagster.results.html_cells import number as _num

ANCHOR = "reasoning-traces"
TITLE = "Reasoning traces"
ACCURACY = "marts.reasoning_accuracy"
CORRELATION = "marts.reasoning_correlation"
# Below this p-value a correlation is printed in bold (one test per family x model, not adjusted).
ALPHA = 0.05


def _tokens(value: Any) -> str:
    return "—" if value is None else f"{float(value):,.0f}"


def models_with_traces(con: Any) -> list[str]:
    """The models with at least one answered response carrying a reasoning trace (draw 0 or any draw)."""
    present = existing_tables(con)
    found: set[str] = set()
    traced = "error IS NULL AND trim(coalesce(reasoning, '')) <> ''"
    for table in ("raw.responses", "raw.response_draws"):
        if table in present:
            rows = con.execute(f"SELECT DISTINCT model FROM {table} WHERE {traced}").fetchall()
            found.update(m for (m,) in rows)
    return sorted(found)


def _table(head: list[str], rows: list[list[str]]) -> str:
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="scroll"><table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def correlation_html(rows: list[dict[str, Any]]) -> str:
    """Per family x model: how long it thought on right and on wrong answers, and Spearman's rho."""
    out = []
    for r in rows:
        p = r["spearman_p"]
        sure = p is not None and p < ALPHA
        out.append(
            [
                _e(r["benchmark"]),
                f"<b>{_e(r['model'])}</b>",
                _e(r["answered"]),
                _num(r["accuracy"]),
                _tokens(r["median_tokens_correct"]),
                _tokens(r["median_tokens_wrong"]),
                _num(r["spearman_rho"]),
                f"<b>{_num(p)}</b>" if sure else _num(p),
                _e(r["reasoning_tokens_source"]),
            ]
        )
    head = [
        "benchmark",
        "model",
        "answers with a trace",
        "accuracy",
        "median tokens, right",
        "median tokens, wrong",
        "Spearman ρ",
        "p",
        "tokens counted by",
    ]
    return (
        '<div class="table" id="table-reasoning-correlation"><h3>Does longer thinking go with right answers?'
        "</h3><p class=\"note\">Spearman's rank correlation between an answer's reasoning tokens and whether "
        "it is right (ρ &gt; 0: longer thinking on the right ones); p by the t-distribution with n − 2 "
        f"degrees of freedom, bold below {ALPHA} (one test per row, not adjusted). <i>provider</i>: the "
        "provider's reasoning-token count; <i>tokenizer</i>: the trace counted with the project's tokenizer "
        "(another vocabulary than the model's: an approximation).  From "
        f"<code>{CORRELATION}</code>.</p>" + _table(head, out) + "</div>"
    )


def accuracy_html(rows: list[dict[str, Any]]) -> str:
    """Accuracy per reasoning-token bin: one row per family x bin, one column per model."""
    models = sorted({r["model"] for r in rows})
    keys = sorted({(r["benchmark"], r["bin"], r["bin_label"]) for r in rows})
    cells = {(r["benchmark"], r["bin"], r["model"]): r for r in rows}
    out = []
    for benchmark, bin_, label in keys:
        row = [_e(benchmark), _e(label)]
        for model in models:
            cell = cells.get((benchmark, bin_, model))
            if cell is None:
                row.append('<span class="na">–</span>')
                continue
            row.append(
                f'{_num(cell["accuracy"])} <span class="ci">[{_num(cell["ci_low"], 2)}, '
                f'{_num(cell["ci_high"], 2)}]</span> <span class="sub">n={_e(cell["answered"])}</span>'
            )
        out.append(row)
    head = ["benchmark", "reasoning tokens", *models]
    return (
        '<div class="table" id="table-reasoning-accuracy"><h3>Accuracy by reasoning tokens</h3>'
        '<p class="note">Answers whose response has a reasoning trace, binned by its reasoning tokens on '
        "fixed log-spaced edges (0, 64, 256, 1024, 4096, 16384), the same for every model and benchmark; "
        "accuracy with its 95% Wilson interval; unreadable and incomplete answers count as wrong.  From "
        f"<code>{ACCURACY}</code>.</p>" + _table(head, out) + "</div>"
    )


def section_body(con: Any, traced: list[str]) -> str:
    """The section's text and tables (the figures are drawn by the report, as every figure is)."""
    marts = read_marts(con, [CORRELATION, ACCURACY])
    intro = (
        f"<p>Models with reasoning traces: {_e(', '.join(traced))}.  Each family's analyses of the trace "
        "(its <code>source = 'trace'</code> rows) are in its own marts; here is what every family shares: "
        "how much the model thought and whether that went with right answers.  No answer is ever read from "
        "the thinking: a reply that is all reasoning is an incomplete answer (N/A).</p>"
    )
    if not marts[CORRELATION] and not marts[ACCURACY]:
        return intro + (
            '<p class="empty">No reasoning marts yet: run <code>relreason run</code> (its dbt build '
            "makes them).</p>"
        )
    return intro + correlation_html(marts[CORRELATION]) + accuracy_html(marts[ACCURACY])
