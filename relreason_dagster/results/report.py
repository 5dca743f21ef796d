"""`relreason report`: one self-contained HTML file with the headline tables, a figure per study,
the DLM vs LLM table and a filterable per-sample section.

Self-contained means it opens from a mail attachment or a laptop without network: the figures are
PNG data URIs (also written beside it as files), the style and the few lines of filtering script are
inline, nothing is fetched.  Everything is read from the DuckDB file (marts and
``marts.sample_results``), so the report shows what is stored, whichever runs stored it.
"""

from __future__ import annotations

import base64
import html
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason_dagster.results.figures import FIGURES, TASK_ORDER, existing_tables, render
from relreason_dagster.results.report_tables import Cell, PivotedTable, wide_tables

DEFAULT_MAX_SAMPLES = 500
REPORT_NAME = "report.html"
STUDIES = (
    ("relational", "Relational reasoning: LLMs vs a differentiable logic machine"),
    ("flenqa", "FLenQA: same task, more tokens"),
    ("kor", "KOR-Bench: knowledge-orthogonal reasoning"),
    ("selfcontra", "Self-Contra: self-contradictory reasoning"),
)
# Headline tables shown in each study's section (the rest go to the overview).
STUDY_TABLES = {
    "relational": ("relational_f1",),
    "flenqa": ("flenqa",),
    "kor": ("kor",),
    "selfcontra": ("selfcontra",),
}


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
    return f'<td title="n = {cell.n}">{_num(cell.value)}{interval}<span class="n">n={cell.n}</span></td>'


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


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.2f}%"


def dlm_table_html(rows: list[dict[str, Any]]) -> str:
    """``marts.dlm_vs_llm`` shaped like the study's Table 1: a row per task, n = 10 / n = 20 per model.

    As in the study, the best LLM of a column pair is marked (red) and the best of all systems boxed.
    """
    if not rows:
        return (
            '<p class="empty">No DLM vs LLM rows yet: run '
            "<code>relreason run --model dlm --model M --benchmark relational</code>.</p>"
        )
    tasks = sorted(
        {r["task"] for r in rows}, key=lambda t: (TASK_ORDER.index(t) if t in TASK_ORDER else 99, t)
    )
    models = sorted({r["model"] for r in rows}, key=lambda m: (m == "dlm", m))
    by = {(r["task"], r["model"]): r for r in rows}
    study = {r["task"]: r for r in rows}
    top = (
        "".join(f'<th colspan="2">{"DLM (ours)" if m == "dlm" else _e(m)}</th>' for m in models)
        + '<th colspan="2">DLM (the study)</th>'
    )
    sub = "<th>n=10</th><th>n=20</th>" * (len(models) + 1)
    body = []
    for task in tasks:
        cells = []
        for suffix in ("n10", "n20"):
            llm = [by[(task, m)].get(f"f1_{suffix}") for m in models if m != "dlm" and (task, m) in by]
            llm = [v for v in llm if v is not None]
            every = [*llm, *([by[(task, "dlm")].get(f"f1_{suffix}")] if (task, "dlm") in by else [])]
            every = [v for v in every if v is not None]
            cells.append((max(llm) if llm else None, max(every) if every else None))
        row = [f'<td class="key">{_e(task)}</td>']
        for m in models:
            r = by.get((task, m), {})
            for i, suffix in enumerate(("n10", "n20")):
                value = r.get(f"f1_{suffix}")
                classes = []
                if value is not None and m != "dlm" and value == cells[i][0] and len(models) > 2:
                    classes.append("best-llm")
                if value is not None and value == cells[i][1]:
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
        "best of all; the last pair is the study's DLM for reference (marts.dlm_vs_llm).</p>"
        f'<div class="scroll"><table class="headline dlm"><thead><tr><th rowspan="2">Task</th>{top}</tr>'
        f"<tr>{sub}</tr></thead><tbody>{''.join(body)}</tbody></table></div></div>"
    )


def _figure_html(spec: Any, png: bytes, counts: dict[str, int]) -> str:
    data = base64.b64encode(png).decode("ascii")
    rows = ", ".join(f"{m}: {n} rows" for m, n in counts.items())
    return (
        f'<figure class="plot" id="figure-{spec.name}"><h3>{_e(spec.title)}</h3>'
        f'<img src="data:image/png;base64,{data}" alt="{_e(spec.title)}" data-figure="{spec.name}">'
        f'<figcaption>{_e(spec.caption)} <span class="src">Source: {_e(rows)}; file '
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


def _messages_html(messages: Any) -> str:
    if not isinstance(messages, list):
        return '<p class="empty">No prompt: the DLM reads the sample\'s truth-value matrices.</p>'
    parts = []
    for message in messages:
        role = message.get("role", "?") if isinstance(message, dict) else "?"
        content = message.get("content", "") if isinstance(message, dict) else message
        parts.append(f'<div class="msg"><span class="role">{_e(role)}</span><pre>{_e(content)}</pre></div>')
    return "".join(parts)


def _json_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _sample_row_html(row: dict[str, Any], index: int) -> str:
    from relreason_dagster.results.samples import score_text

    outcome = row.get("outcome") or "?"
    messages = row.get("messages")
    n_messages = len(messages) if isinstance(messages, list) else 0
    prompt_chars = sum(len(str(m.get("content", ""))) for m in messages) if isinstance(messages, list) else 0
    response = row.get("response")
    if response is None:
        response = f"(no response: {row['response_error']})" if row.get("response_error") else "(no text)"
    attrs = " ".join(f'data-{k}="{_e(row.get(k))}"' for k in ("model", "benchmark", "task", "outcome"))
    summary = (
        f"{n_messages} message{'s' if n_messages != 1 else ''}, {prompt_chars} chars" if n_messages else "—"
    )
    return (
        f'<tr class="sample" {attrs}><td class="idx">{index}</td>'
        f'<td><b>{_e(row.get("model"))}</b><br><span class="sub">'
        f"{_e(row.get('benchmark'))} / {_e(row.get('task'))}"
        f"<br>{_e(row.get('setting'))} · {_e(row.get('split'))}</span></td>"
        f'<td><span class="badge {_e(outcome)}">{_e(outcome)}</span><br><span class="sub">'
        f"{_e(score_text(row))}</span></td>"
        f"<td><details><summary>{summary}</summary>{_messages_html(messages)}</details></td>"
        f'<td><pre class="resp">{_e(response)}</pre></td>'
        f'<td><pre class="gold">{_e(_json_text(row.get("gold")))}</pre></td>'
        f'<td><pre class="gold">{_e(_json_text(row.get("parsed")))}</pre><span class="sub">'
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
    body = "".join(_sample_row_html(r, i + 1) for i, r in enumerate(rows))
    return (
        f'<p class="note">This report embeds {shown}. Outcome: <b>correct</b> (exactly right), <b>wrong</b> '
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
table.dlm th { text-align: center; }
table.dlm td:not(.key) { text-align: center; }
details > summary { cursor: pointer; color: var(--accent); margin: 4px 0; }
td.best-llm, span.best-llm { color: #cf222e; font-weight: 600; }
td.best, span.best { outline: 2px solid #8c959f; outline-offset: -3px; background: #eaeef2; }
td.study { color: var(--muted); font-style: italic; }
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
    return out


def _models(con: Any) -> list[str]:
    if "marts.sample_results" not in existing_tables(con):
        return []
    return [
        m for (m,) in con.execute("SELECT DISTINCT model FROM marts.sample_results ORDER BY 1").fetchall()
    ]


def build_report(
    con: Any, out_dir: Path, *, max_samples: int = DEFAULT_MAX_SAMPLES, source: str = ""
) -> ReportSummary:
    """Write ``out_dir/report.html`` and the figures' PNGs beside it, from the marts on ``con``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = ReportSummary(path=out_dir / REPORT_NAME)
    tables = {t.spec.key: t for t in wide_tables(con)}
    summary.tables = list(tables)
    figures: dict[str, list[str]] = {}
    for spec in FIGURES:
        png, counts = render(spec, con, out_dir)
        summary.figures.append(out_dir / spec.file_name)
        figures.setdefault(spec.study, []).append(_figure_html(spec, png, counts))
    dlm_rows = []
    if "marts.dlm_vs_llm" in existing_tables(con):
        cur = con.execute("SELECT * FROM marts.dlm_vs_llm")
        columns = [d[0] for d in cur.description]
        dlm_rows = [dict(zip(columns, r, strict=True)) for r in cur.fetchall()]
    samples, total = select_samples(con, max_samples)
    summary.samples_shown, summary.samples_total = len(samples), total

    in_studies = {key for keys in STUDY_TABLES.values() for key in keys}
    overview = [table_html(t) for key, t in tables.items() if key not in in_studies]
    sections = [
        '<section id="overview"><h2>Overview</h2>'
        + '<div class="stats">'
        + "".join(f'<div class="stat"><b>{_e(v)}</b>{_e(k)}</div>' for k, v in _stats(con))
        + "</div>"
        + ("".join(overview) or '<p class="empty">No metric marts yet: run <code>relreason demo</code>.</p>')
        + "</section>"
    ]
    for study, title in STUDIES:
        parts = [f'<section id="{study}"><h2>{_e(title)}</h2>']
        parts += figures.get(study, [])
        if study == "relational":
            parts.append(dlm_table_html(dlm_rows))
        parts += [table_html(tables[k], fold_over=12) for k in STUDY_TABLES[study] if k in tables]
        parts.append("</section>")
        sections.append("".join(parts))
    sections.append(
        f'<section id="samples-section"><h2>Samples</h2>{samples_html(samples, total, max_samples)}</section>'
    )
    nav = "".join(
        f'<a href="#{anchor}">{label}</a>'
        for anchor, label in (
            ("overview", "Overview"),
            ("relational", "Relational"),
            ("flenqa", "FLenQA"),
            ("kor", "KOR-Bench"),
            ("selfcontra", "Self-Contra"),
            ("samples-section", "Samples"),
        )
    )
    models = _models(con)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>relreason report</title><style>{STYLE}</style></head><body>"
        "<header><h1>relreason: how well do language models reason?</h1>"
        f"<p>Models: {_e(', '.join(models) or 'none yet')}</p>"
        f"<p>Generated {when} from <code>{_e(source)}</code>. Intervals are 95%.</p></header>"
        f"<nav>{nav}</nav><main>{''.join(sections)}"
        "<footer>Written by <code>relreason report</code>; the figures are also PNG files beside this page "
        "and Dagster assets (group <code>report</code>).</footer></main>"
        f"<script>{SCRIPT}</script></body></html>"
    )
    summary.path.write_text(page, encoding="utf-8")
    return summary
