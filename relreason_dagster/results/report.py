"""`relreason report`: one self-contained HTML file with an overview, a section per study and a
filterable per-sample section.

What a study's section holds (its figures, tables, a block of its own such as the relational Table 1,
and its numbers beside the study's published ones) is declared by the family in its ``report.py``
(``benchmarks.base.ReportSection``) and found through the registry: this module renders whatever the
registered families declare and knows none of them.

Self-contained means it opens from a mail attachment or a laptop without network: the figures are
PNG data URIs (also written beside it as files), the style and the few lines of filtering script are
inline, nothing is fetched.  Everything is read from the DuckDB file (marts and
``marts.sample_results``), so the report shows what is stored, whichever runs stored it.
"""

from __future__ import annotations

import base64
import html
import json
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.base import ReportSection
from relreason_dagster.common import atomic_files
from relreason_dagster.common.user_files import user_file
from relreason_dagster.results import budget
from relreason_dagster.results.comparisons import generic_sections
from relreason_dagster.results.figures import (
    empty_reason,
    existing_tables,
    read_marts,
    render,
    report_sections,
    trace_figures,
)
from relreason_dagster.results.reasoning_traces import ANCHOR as TRACES_ANCHOR
from relreason_dagster.results.reasoning_traces import TITLE as TRACES_TITLE
from relreason_dagster.results.reasoning_traces import models_with_traces, section_body
from relreason_dagster.results.report_tables import (
    OVERVIEW_TABLES,
    Cell,
    ComparisonTable,
    PivotedTable,
    comparison_tables,
    wide_tables,
)

DEFAULT_MAX_SAMPLES = 500
REPORT_NAME = "report.html"
OUT_FIX = "choose another --out folder or make this one writable"


@dataclass
class ReportSummary:
    """What was written: the HTML file, the PNGs beside it, how many samples it embeds of how many."""

    path: Path
    figures: list[Path] = field(default_factory=list)
    samples_shown: int = 0
    samples_total: int = 0
    tables: list[str] = field(default_factory=list)


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _cell_html(cell: Cell | None) -> str:
    if cell is None or cell.value is None:
        return '<td class="na">–</td>'
    interval = (
        f' <span class="ci">[{_num(cell.low, 2)}, {_num(cell.high, 2)}]</span>'
        if cell.low is not None
        else ""
    )
    count = f"{cell.k}/{cell.n}" if cell.k is not None else f"n={cell.n}"
    return f'<td title="n = {cell.n}">{_num(cell.value)}{interval}<span class="n">{count}</span></td>'


def table_html(table: PivotedTable, fold_over: int | None = None) -> str:
    """A headline as an HTML table: row keys, then one column per model.

    With ``fold_over``, a table of more rows starts folded (a click shows it): a study section
    reads figure first, and a 36-row table would push the next figure off the screen.
    """
    spec = table.spec
    head = "".join(f"<th>{_e(k)}</th>" for k in spec.row_keys) + "".join(
        f'<th class="model">{_e(m)}</th>' for m in table.models
    )
    body = []
    for keys, cells in table.rows:
        body.append(
            "<tr>"
            + "".join(f'<td class="key">{_e(v)}</td>' for v in keys)
            + "".join(_cell_html(cells.get(m)) for m in table.models)
            + "</tr>"
        )
    grid = (
        f'<div class="scroll"><table class="headline"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
    if fold_over is not None and len(table.rows) > fold_over:
        grid = f"<details><summary>Show the table ({len(table.rows)} rows)</summary>{grid}</details>"
    return (
        f'<div class="table" id="table-{spec.key}"><h3>{_e(spec.title)}</h3>'
        f'<p class="note">{_e(spec.note)}</p>{grid}</div>'
    )


NOT_COMPARABLE = "not comparable"


def _comparison_cell(cell: Cell | None, published: bool, reasons: dict[str, int] | None = None) -> str:
    """One cell of a comparison.  A cell whose row says it is not like with like (``comparable`` false)
    is greyed (class ``nc``) and carries a dagger numbered after its ``why_not`` line, which the table's
    footnote lists (``reasons`` maps each line to its number, filled as the cells are drawn)."""
    classes = ["published"] if published else []
    if cell is None:
        return f'<td class="{" ".join([*classes, "na"])}">–</td>'
    titles = [cell.note] if cell.note else []
    dagger = ""
    if cell.comparable is False:
        why = cell.why_not or "the rows give no reason"
        number = reasons.setdefault(why, len(reasons) + 1) if reasons is not None else 0
        classes.append("nc")
        titles.append(f"{NOT_COMPARABLE}: {why}")
        dagger = f'<sup class="nc">&dagger;{number or ""}</sup>'
    note = f' title="{_e("; ".join(titles))}"' if titles else ""
    mark = '<sup class="fn">*</sup>' if cell.note and published else ""
    if cell.value is None:  # the paper prints no number here (N/A): the note says why
        return f'<td class="{" ".join([*classes, "na"])}"{note}>N/A{mark}{dagger}</td>'
    interval = (
        f' <span class="ci">[{_num(cell.low, 2)}, {_num(cell.high, 2)}]</span>'
        if cell.low is not None
        else ""
    )
    n = f'<span class="n">n={cell.n}</span>' if cell.n else ""
    return f'<td class="{" ".join(classes)}"{note}>{_num(cell.value)}{interval}{mark}{dagger}{n}</td>'


def not_comparable_footnote(reasons: dict[str, int]) -> str:
    """The table's list of why its greyed cells are not like with like, one numbered line each."""
    if not reasons:
        return ""
    lines = "".join(
        f'<li><sup class="nc">&dagger;{number}</sup> {_e(why)}</li>'
        for why, number in sorted(reasons.items(), key=lambda item: item[1])
    )
    return (
        '<div class="footnote nc-note"><span class="nc">Greyed cells with &dagger; are '
        f"{NOT_COMPARABLE}</span>: the number stands on other items or another pool than the one "
        f"beside it, so the two are not like with like.<ol>{lines}</ol></div>"
    )


def comparison_html(table: ComparisonTable, fold_over: int | None = None) -> str:
    """Our models and the study's side by side: row keys, our model columns, then the study's published
    models (header class ``published``, labelled with the table they were printed in).  Cells whose rows
    say they are not comparable are greyed and footnoted with the reason, not shown as equals."""
    spec = table.spec

    def head(column: Any) -> str:
        if column.published:
            source = _e(column.source or "the study")
            return (
                f'<th class="model published">{_e(column.model)}<br>'
                f'<span class="pub">(published, {source})</span></th>'
            )
        return f'<th class="model">{_e(column.model)}</th>'

    header = "".join(f"<th>{_e(k)}</th>" for k in table.row_keys) + "".join(head(c) for c in table.columns)
    reasons: dict[str, int] = {}
    body = [
        "<tr>"
        + "".join(f'<td class="key">{_e(v)}</td>' for v in keys)
        + "".join(_comparison_cell(cells.get(c), c.published, reasons) for c in table.columns)
        + "</tr>"
        for keys, cells in table.rows
    ]
    grid = (
        f'<div class="scroll"><table class="headline compare"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
    if fold_over is not None and len(table.rows) > fold_over:
        grid = f"<details><summary>Show the table ({len(table.rows)} rows)</summary>{grid}</details>"
    notes = any(cell.note for _, cells in table.rows for c, cell in cells.items() if c.published)
    footnote = [
        *(['<span class="fn">*</span> the study\'s cell has a note (hover it).'] if notes else []),
        *([_e(spec.footnote)] if spec.footnote else []),
    ]
    foot = f'<p class="footnote">{" ".join(footnote)}</p>' if footnote else ""
    return (
        f'<div class="table comparison" id="table-{spec.key}"><h3>{_e(spec.title)}</h3>'
        f'<p class="note">{_e(spec.note)}</p>{grid}{not_comparable_footnote(reasons)}{foot}</div>'
    )


def _figure_html(spec: Any, png: bytes, counts: dict[str, int], empty: str | None = None) -> str:
    data = base64.b64encode(png).decode("ascii")
    rows = ", ".join(f"{m}: {n} rows" for m, n in counts.items())
    why = f'<span class="empty">Empty: {_e(empty)}</span> ' if empty else ""
    return (
        f'<figure class="plot" id="figure-{spec.name}"><h3>{_e(spec.title)}</h3>'
        f'<img src="data:image/png;base64,{data}" alt="{_e(spec.title)}" data-figure="{spec.name}">'
        f'<figcaption>{why}{_e(spec.caption)} <span class="src">Source: {_e(rows)}; file '
        f"<code>{spec.file_name}</code>; asset <code>{spec.asset_name}</code>.</span></figcaption></figure>"
    )


# --- samples ---------------------------------------------------------------------------------------


def select_samples(con: Any, cap: int) -> tuple[list[dict[str, Any]], int]:
    """At most ``cap`` rows of ``marts.sample_results``, spread evenly over model x benchmark, and the total.

    Embedding every answer of a paper-sized run would make a file of hundreds of MB; an even
    spread keeps every model and benchmark visible (``relreason samples`` prints them all).
    """
    from relreason_dagster.results.samples import VIEW, sample_rows

    if VIEW not in existing_tables(con):
        return [], 0
    groups = con.execute(
        f"SELECT model, benchmark, count(*) FROM {VIEW} GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    total = sum(n for _, _, n in groups)
    if total <= cap:
        return sample_rows(con), total
    rows: list[dict[str, Any]] = []
    left = cap
    for i, (model, benchmark, n) in enumerate(sorted(groups, key=lambda g: g[2])):
        quota = min(n, left // (len(groups) - i))  # small groups first: their unused share goes to the rest
        rows.extend(sample_rows(con, model=model, benchmark=benchmark, limit=quota))
        left -= quota
    rows.sort(key=lambda r: (r["model"], r["benchmark"], r["task"], r["setting"], r["split"]))
    return rows, total


# Characters of one answer (or its thinking, gold, parsed value) and of one prompt message the page
# holds; the rest is cut with its full length shown.  Why: the page embeds up to --max-samples rows, and
# a model that rambles 8 MB per reply made a 423 MB report no browser opens; `relreason samples` prints
# every text whole.  A prompt gets more room than an answer: FLenQA's longest prompts (3000 tokens) fit.
TEXT_SHOWN = 4_000
MESSAGE_SHOWN = 16_000


def samples_command(row: dict[str, Any], *, json_output: bool = False) -> str:
    """The ``relreason samples`` command that prints ``row``'s texts whole (its model, benchmark, task
    and setting; ``--json`` where the plain output itself collapses the text, as for the thinking)."""
    parts = ["relreason", "samples"]
    for key in ("model", "benchmark", "task", "setting"):
        if row.get(key) is not None:
            parts += [f"--{key}", shlex.quote(str(row[key]))]
    return " ".join([*parts, *(["--json"] if json_output else [])])


def cut_html(text: str, row: dict[str, Any], shown: int = TEXT_SHOWN, *, json_output: bool = False) -> str:
    """``text`` escaped for HTML, cut after ``shown`` characters with its full length and the command
    that prints it whole."""
    if len(text) <= shown:
        return _e(text)
    return (
        f'{_e(text[:shown])}<span class="cut">… [cut here: {len(text):,} characters in all; '
        f"<code>{_e(samples_command(row, json_output=json_output))}</code> prints the whole text]</span>"
    )


def _messages_html(messages: Any, row: dict[str, Any]) -> str:
    if not isinstance(messages, list):
        return '<p class="empty">No prompt: a baseline model reads the sample\'s input itself.</p>'
    parts = []
    for message in messages:
        role = message.get("role", "?") if isinstance(message, dict) else "?"
        content = message.get("content", "") if isinstance(message, dict) else message
        text = cut_html(str(content), row, MESSAGE_SHOWN)
        parts.append(f'<div class="msg"><span class="role">{_e(role)}</span><pre>{text}</pre></div>')
    return "".join(parts)


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _sample_row_html(row: dict[str, Any], index: int, cells_scored: set[str]) -> str:
    from relreason_dagster.results.samples import reasoning_size, score_text

    outcome = row.get("outcome") or "?"
    messages = row.get("messages")
    n_messages = len(messages) if isinstance(messages, list) else 0
    prompt_chars = sum(len(str(m.get("content", ""))) for m in messages) if isinstance(messages, list) else 0
    response = row.get("response")
    if response is None:
        response = f"(no response: {row['response_error']})" if row.get("response_error") else "(no text)"
    thinking = ""
    if row.get("reasoning"):  # a reasoning model's thinking, collapsed: the answer is what was parsed
        thinking = (
            f"<details><summary>reasoning ({_e(reasoning_size(row))})</summary>"
            f'<pre class="resp">{cut_html(str(row["reasoning"]), row, json_output=True)}</pre></details>'
        )
    attrs = " ".join(f'data-{k}="{_e(row.get(k))}"' for k in ("model", "benchmark", "task", "outcome"))
    summary = (
        f"{n_messages} message{'s' if n_messages != 1 else ''}, {prompt_chars} chars" if n_messages else "—"
    )
    # Who answered, as the provider named it (an alias's snapshot): shown under the entry's name.
    served = f"served by {_e(row['served_model'])}<br>" if row.get("served_model") else ""
    return (
        f'<tr class="sample" {attrs}><td class="idx">{index}</td>'
        f'<td><b>{_e(row.get("model"))}</b><br><span class="sub">{served}'
        f"{_e(row.get('benchmark'))} / {_e(row.get('task'))}"
        f"<br>{_e(row.get('setting'))} · {_e(row.get('split'))}</span></td>"
        f'<td><span class="badge {_e(outcome)}">{_e(outcome)}</span><br><span class="sub">'
        f"{_e(score_text(row, cells_scored))}</span></td>"
        f"<td><details><summary>{summary}</summary>{_messages_html(messages, row)}</details></td>"
        f'<td>{thinking}<pre class="resp">{cut_html(str(response), row)}</pre></td>'
        f'<td><pre class="gold">{cut_html(_json_text(row.get("gold")), row)}</pre></td>'
        f'<td><pre class="gold">{cut_html(_json_text(row.get("parsed")), row)}</pre><span class="sub">'
        f"{_e(row.get('parse_status'))}</span></td></tr>"
    )


def _options(values: set[str], label: str, key: str) -> str:
    opts = "".join(f'<option value="{_e(v)}">{_e(v)}</option>' for v in sorted(values))
    return f'<label>{label} <select data-filter="{key}"><option value="">all</option>{opts}</select></label>'


def samples_html(rows: list[dict[str, Any]], total: int, cap: int) -> str:
    if not rows:
        return (
            '<p class="empty">No answers stored yet: run <code>relreason demo</code> or '
            "<code>relreason run</code>.</p>"
        )
    shown = (
        f"all {total} answers"
        if len(rows) == total
        else f"{len(rows)} of {total} answers (at most {cap}, spread over models and benchmarks; "
        "<code>relreason samples</code> prints every one)"
    )
    filters = "".join(
        _options({str(r.get(k)) for r in rows}, label, k)
        for k, label in (
            ("model", "Model"),
            ("benchmark", "Benchmark"),
            ("task", "Task"),
            ("outcome", "Outcome"),
        )
    )
    from relreason_dagster.results.samples import cell_scored

    scored = cell_scored()
    body = "".join(_sample_row_html(r, i + 1, scored) for i, r in enumerate(rows))
    return (
        f'<p class="note">This report embeds {shown}; a text longer than {TEXT_SHOWN:,} characters '
        f"(a prompt message: {MESSAGE_SHOWN:,}) is cut, with its length and the command that prints it "
        "whole. "
        "Outcome: <b>correct</b> (exactly right), <b>wrong</b> "
        "(readable, not exactly right), <b>na</b> (unreadable or refused), <b>error</b> (no answer).</p>"
        f'<div class="filters">{filters}<span id="sample-count" class="count"></span></div>'
        '<div class="scroll"><table id="samples"><thead><tr><th>#</th><th>model / task</th>'
        "<th>outcome / score</th><th>prompt</th><th>response</th><th>gold</th><th>parsed</th></tr></thead>"
        f"<tbody>{body}</tbody></table></div>"
    )


# --- page ------------------------------------------------------------------------------------------


STYLE = """
:root { --ink:#1f2328; --muted:#656d76; --line:#d0d7de; --soft:#f6f8fa; --accent:#0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink);
       margin: 0; background: #fff; }
header { background: #24292f; color: #fff; padding: 22px 32px 16px; }
header h1 { margin: 0 0 4px; font-size: 24px; font-weight: 600; }
header p { margin: 2px 0; color: #c9d1d9; }
header code { color: #fff; }
nav { position: sticky; top: 0; background: #fff; border-bottom: 1px solid var(--line); padding: 8px 32px;
      z-index: 2; }
nav a { margin-right: 18px; color: var(--accent); text-decoration: none; font-weight: 500; }
main { max-width: 1180px; margin: 0 auto; padding: 8px 32px 48px; }
section { margin-top: 28px; }
h2 { font-size: 20px; border-bottom: 1px solid var(--line); padding-bottom: 6px; }
h3 { font-size: 15px; margin: 18px 0 4px; }
.note, figcaption { color: var(--muted); font-size: 13px; margin: 2px 0 8px; }
.src { display: block; font-size: 12px; }
.empty { color: var(--muted); font-style: italic; }
.warn { border: 1px solid #d4a72c; background: #fff8c5; border-radius: 6px; padding: 8px 14px; margin: 12px 0;
        font-size: 14px; }
.warn ul { margin: 4px 0 0; padding-left: 20px; }
.stats { display: flex; gap: 12px; flex-wrap: wrap; margin: 12px 0; }
.stat { border: 1px solid var(--line); border-radius: 6px; padding: 8px 14px; background: var(--soft); }
.stat b { display: block; font-size: 18px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
table.headline td { font-variant-numeric: tabular-nums; white-space: nowrap; }
table.headline td.key { color: var(--muted); }
table.headline th.model { text-align: right; }
table.headline td:not(.key) { text-align: right; }
.ci { color: var(--muted); font-size: 11px; margin-left: 4px; }
.n { display: none; }
td.na { color: #aaa; }
table.paired th { text-align: center; }
table.paired td:not(.key) { text-align: center; }
details > summary { cursor: pointer; color: var(--accent); margin: 4px 0; }
td.best-llm, span.best-llm { color: #cf222e; font-weight: 600; }
td.best, span.best { outline: 2px solid #8c959f; outline-offset: -3px; background: #eaeef2; }
td.study { color: var(--muted); font-style: italic; }
th.published { background: #fff8c5; }
td.published { background: #fffbdd; }
.pub { display: block; font-weight: 400; font-size: 11px; color: var(--muted); }
sup.fn, span.fn { color: #9a6700; }
td.nc, td.published.nc { color: #8c959f; background: #eef0f2; }
sup.nc, span.nc { color: #6e7781; font-weight: 600; }
.nc-note ol { margin: 2px 0 0; padding-left: 18px; list-style: none; }
.footnote { color: var(--muted); font-size: 12px; margin: 4px 0 12px; }
figure.plot { margin: 16px 0 24px; }
figure.plot img { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
.filters { display: flex; gap: 14px; align-items: center; flex-wrap: wrap; margin: 8px 0; }
.filters select { font: inherit; padding: 2px 4px; }
.count { color: var(--muted); }
#samples { width: 100%; table-layout: fixed; }
#samples th:nth-child(1) { width: 40px; } #samples th:nth-child(2) { width: 150px; }
#samples th:nth-child(3) { width: 150px; } #samples th:nth-child(4) { width: 180px; }
#samples th:nth-child(6), #samples th:nth-child(7) { width: 140px; }
#samples pre { white-space: pre-wrap; word-break: break-word; margin: 0; font-size: 12px; max-height: 220px;
               overflow: auto; background: var(--soft); padding: 4px 6px; border-radius: 4px; }
.msg .role { font-size: 11px; text-transform: uppercase; color: var(--muted); }
.msg pre { max-height: 300px; }
.cut { display: block; color: var(--muted); font-style: italic; margin-top: 4px; }
.sub { color: var(--muted); font-size: 12px; }
.idx { color: var(--muted); }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.badge.correct { background: #dafbe1; color: #116329; } .badge.wrong { background: #ffebe9; color: #a40e26; }
.badge.na { background: #fff8c5; color: #7d4e00; } .badge.error { background: #eaeef2; color: #57606a; }
footer { color: var(--muted); font-size: 12px; margin-top: 40px; }
"""

# Filtering by the rows' data- attributes: the only script, inline, no library.
SCRIPT = """
(function () {
  var selects = document.querySelectorAll('select[data-filter]');
  var rows = document.querySelectorAll('#samples tr.sample');
  var count = document.getElementById('sample-count');
  function apply() {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = true;
      selects.forEach(function (s) { if (s.value && row.dataset[s.dataset.filter] !== s.value) ok = false; });
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    if (count) count.textContent = shown + ' of ' + rows.length + ' rows shown';
  }
  selects.forEach(function (s) { s.addEventListener('change', apply); });
  apply();
})();
"""


def _stats(con: Any) -> list[tuple[str, Any]]:
    present = existing_tables(con)
    out: list[tuple[str, Any]] = []
    if "marts.sample_results" in present:
        models, benchmarks, answers = con.execute(
            "SELECT count(DISTINCT model), count(DISTINCT benchmark), count(*) FROM marts.sample_results"
        ).fetchone()
        out += [("models", models), ("benchmarks", benchmarks), ("scored answers", answers)]
    if "raw.samples" in present:
        out.append(("samples", con.execute("SELECT count(*) FROM raw.samples").fetchone()[0]))
    if "marts.study_reference" in present:
        (published,) = con.execute("SELECT count(value) FROM marts.study_reference").fetchone()
        if published:
            out.append(("published numbers (the studies')", published))
    return out


def served_warning_html(con: Any) -> str:
    """A warning naming each entry whose answers more than one served model gave, with its rows per
    model (``results/served_models.py``); "" when every entry had one."""
    from relreason_dagster.results.served_models import mixed_served

    lines = mixed_served(con)
    if not lines:
        return ""
    items = "".join(f"<li>{_e(line)}</li>" for line in lines)
    return (
        '<div class="warn" id="served-models"><b>Several served models under one name.</b> '
        "The provider answered these entries' rows with more than one model (an alias moved to a new "
        f"snapshot between runs, say); their numbers pool the models.<ul>{items}</ul></div>"
    )


def _models(con: Any) -> list[str]:
    if "marts.sample_results" not in existing_tables(con):
        return []
    return [
        m for (m,) in con.execute("SELECT DISTINCT model FROM marts.sample_results ORDER BY 1").fetchall()
    ]


def model_params() -> dict[str, dict[str, Any]]:
    """Each registered model's ``params`` as ``models.yaml`` sets them now, for a section's ``html``.

    Read when the report is drawn: the stored responses do not record their params.  A report never
    fails on the registry: an unreadable one gives no models (a section then says they are unknown).
    """
    from relreason_dagster import paths
    from relreason_dagster.llm.registry import load_registry

    try:
        specs = load_registry(paths.models_path())
    except Exception:  # noqa: BLE001 - see the docstring
        return {}
    return {name: dict(spec.params) for name, spec in specs.items()}


def _section_html(
    section: ReportSection, con: Any, figures: list[str], tables: dict[str, PivotedTable]
) -> str:
    parts = [f'<section id="{_e(section.key)}"><h2>{_e(section.title)}</h2>', *figures]
    if section.html is not None:
        parts.append(section.html(read_marts(con, section.html_marts), model_params()))
    parts += [
        table_html(tables[t.key], fold_over=section.fold_over) for t in section.tables if t.key in tables
    ]
    parts += [
        comparison_html(c, fold_over=section.fold_over) for c in comparison_tables(con, section.comparisons)
    ]
    parts.append("</section>")
    return "".join(parts)


def _traces_section(con: Any, out_dir: Path, summary: ReportSummary) -> str:
    """The "Reasoning traces" section (its figures drawn and listed in ``summary``), or "" when no
    model has a reasoning trace."""
    traced = models_with_traces(con)
    if not traced:
        return ""
    drawn = []
    for spec in trace_figures():
        png, counts = render(spec, con, out_dir)
        summary.figures.append(out_dir / spec.file_name)
        drawn.append(_figure_html(spec, png, counts, empty_reason(spec, con, counts)))
    return (
        f'<section id="{TRACES_ANCHOR}"><h2>{_e(TRACES_TITLE)}</h2>'
        f"{section_body(con, traced)}{''.join(drawn)}</section>"
    )


def _budget_section(con: Any, out_dir: Path, summary: ReportSummary) -> str:
    """The "Thinking budget" section (one figure per study whose budget mart has rows, drawn and listed
    in ``summary``), or "" when no sweep ran."""
    specs = budget.swept_figures(con)
    if not specs:
        return ""
    drawn = []
    for spec in specs:
        png, counts = render(spec, con, out_dir)
        summary.figures.append(out_dir / spec.file_name)
        drawn.append(_figure_html(spec, png, counts))
    return (
        f'<section id="{budget.ANCHOR}"><h2>{_e(budget.TITLE)}</h2>'
        f"{budget.section_intro(specs)}{''.join(drawn)}</section>"
    )


def build_report(
    con: Any, out_dir: Path, *, max_samples: int = DEFAULT_MAX_SAMPLES, source: str = ""
) -> ReportSummary:
    """Write ``out_dir/report.html`` and the figures' PNGs beside it, from the marts on ``con``."""
    with user_file(out_dir, fix=OUT_FIX):
        out_dir.mkdir(parents=True, exist_ok=True)
    summary = ReportSummary(path=out_dir / REPORT_NAME)
    sections = report_sections()
    tables = {t.spec.key: t for t in wide_tables(con)}
    summary.tables = list(tables)
    figures: dict[str, list[str]] = {}
    for section in sections:
        for spec in section.figures:
            png, counts = render(spec, con, out_dir)
            summary.figures.append(out_dir / spec.file_name)
            empty = empty_reason(spec, con, counts)
            figures.setdefault(section.key, []).append(_figure_html(spec, png, counts, empty))
    samples, total = select_samples(con, max_samples)
    summary.samples_shown, summary.samples_total = len(samples), total

    overview = [table_html(tables[t.key]) for t in OVERVIEW_TABLES if t.key in tables]
    parts = [
        '<section id="overview"><h2>Overview</h2>'
        + '<div class="stats">'
        + "".join(f'<div class="stat"><b>{_e(v)}</b>{_e(k)}</div>' for k, v in _stats(con))
        + "</div>"
        + served_warning_html(con)
        + ("".join(overview) or '<p class="empty">No metric marts yet: run <code>relreason demo</code>.</p>')
        + "</section>"
    ]
    parts += [_section_html(section, con, figures.get(section.key, []), tables) for section in sections]
    traces = _traces_section(con, out_dir, summary)
    parts += [traces] if traces else []
    budgets = _budget_section(con, out_dir, summary)
    parts += [budgets] if budgets else []
    generic = generic_sections(con)
    parts += [f'<section id="{_e(a)}"><h2>{_e(title)}</h2>{body}</section>' for a, title, body in generic]
    parts.append(
        f'<section id="samples-section"><h2>Samples</h2>{samples_html(samples, total, max_samples)}</section>'
    )
    links = [
        ("overview", "Overview"),
        *((s.key, s.label) for s in sections),
        *([(TRACES_ANCHOR, TRACES_TITLE)] if traces else []),
        *([(budget.ANCHOR, budget.TITLE)] if budgets else []),
        *((anchor, title) for anchor, title, _ in generic),
        ("samples-section", "Samples"),
    ]
    nav = "".join(f'<a href="#{_e(anchor)}">{_e(label)}</a>' for anchor, label in links)
    models = _models(con)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>relreason report</title><style>{STYLE}</style></head><body>"
        "<header><h1>relreason: how well do language models reason?</h1>"
        f"<p>Models: {_e(', '.join(models) or 'none yet')}</p>"
        f"<p>Generated {when} from <code>{_e(source)}</code>. Intervals are 95%.</p></header>"
        f"<nav>{nav}</nav><main>{''.join(parts)}"
        "<footer>Written by <code>relreason report</code>; the figures are also PNG files beside this page "
        "and Dagster assets (group <code>report</code>).</footer></main>"
        f"<script>{SCRIPT}</script></body></html>"
    )
    with user_file(summary.path, fix=OUT_FIX):  # whole or not at all: a full disk leaves the old page
        atomic_files.write_text(summary.path, page)
    return summary
