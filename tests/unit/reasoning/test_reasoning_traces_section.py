"""The report's "Reasoning traces" section on a hand-made DuckDB file (no run): shown only when some model
has a trace, with the two reasoning marts' tables and every family's ``TRACE_FIGURES``, found through the
registry (a toy FigureSpec set on one family's report module).  The acceptance test after real runs is
tests/integration/families/test_reasoning_traces_report.py."""

from __future__ import annotations

import duckdb
import pytest

from relreason_dagster.benchmarks.base import FigureSpec
from relreason_dagster.benchmarks.flenqa import report as flenqa_report
from relreason_dagster.benchmarks.plotting import no_data, plt
from relreason_dagster.results import report
from relreason_dagster.results.figures import trace_figures
from relreason_dagster.results.reasoning_traces import models_with_traces, section_body


def _draw(rows_by_mart):
    fig, ax = plt().subplots(1, 1, figsize=(3, 2))
    no_data(ax, f"{len(rows_by_mart['marts.reasoning_accuracy'])} rows")
    return fig


TOY = FigureSpec(
    name="toy_trace",
    asset_name="toy_trace_figure",
    study="flenqa",
    title="Toy trace figure",
    caption="A test's toy figure.",
    marts=("marts.reasoning_accuracy",),
    draw=_draw,
    hint="relreason run",
)


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("CREATE SCHEMA raw; CREATE SCHEMA marts")
    con.execute("CREATE TABLE raw.responses (model VARCHAR, error VARCHAR, reasoning VARCHAR)")
    con.execute(
        "INSERT INTO raw.responses VALUES ('plain', NULL, NULL), ('plain', NULL, '  '),"
        " ('failed', 'timeout', 'thinking'), ('thinker', NULL, 'Let me think.')"
    )
    con.execute(
        "CREATE TABLE marts.reasoning_correlation AS SELECT 'kor' AS benchmark, 'thinker' AS model,"
        " 'tokenizer' AS reasoning_tokens_source, 6 AS answered, 4 AS n_correct, 2 AS n_na,"
        " 0.6667 AS accuracy, 40.0 AS median_reasoning_tokens, 5.0 AS median_tokens_correct,"
        " 300.0 AS median_tokens_wrong, -1.0 AS spearman_rho, 0.0 AS spearman_p"
    )
    con.execute(
        "CREATE TABLE marts.reasoning_accuracy AS SELECT * FROM (VALUES"
        " ('kor', 'thinker', 'tokenizer', 0, 0, 64, '0-63', 4, 4, 0, 1.0, 0.51, 1.0, 5.0),"
        " ('kor', 'thinker', 'tokenizer', 2, 256, 1024, '256-1023', 2, 0, 2, 0.0, 0.0, 0.66, 300.0))"
        " AS t(benchmark, model, reasoning_tokens_source, bin, bin_low, bin_high, bin_label, answered,"
        " n_correct, n_na, accuracy, ci_low, ci_high, median_reasoning_tokens)"
    )
    yield con
    con.close()


def test_only_models_with_a_trace_on_an_answered_response(con):
    assert models_with_traces(con) == ["thinker"]
    assert models_with_traces(duckdb.connect()) == []


def test_trace_figures_are_collected_through_the_registry(monkeypatch):
    assert TOY not in trace_figures()
    monkeypatch.setattr(flenqa_report, "TRACE_FIGURES", (TOY,), raising=False)
    assert TOY in trace_figures()


def test_the_section_has_both_tables_and_the_figures(con, tmp_path, monkeypatch):
    monkeypatch.setattr(flenqa_report, "TRACE_FIGURES", (TOY,), raising=False)
    summary = report.ReportSummary(path=tmp_path / "report.html")
    html = report._traces_section(con, tmp_path, summary)
    assert html.startswith('<section id="reasoning-traces"><h2>Reasoning traces</h2>')
    assert 'id="table-reasoning-correlation"' in html and 'id="table-reasoning-accuracy"' in html
    assert "256-1023" in html and "<b>0.000</b>" in html  # p = 0 < 0.05, in bold
    assert 'id="figure-toy_trace"' in html and [p.name for p in summary.figures] == [TOY.file_name]
    assert "Models with reasoning traces: thinker." in section_body(con, ["thinker"])


def test_no_section_without_traces(con, tmp_path, monkeypatch):
    monkeypatch.setattr(flenqa_report, "TRACE_FIGURES", (TOY,), raising=False)
    con.execute("UPDATE raw.responses SET reasoning = NULL")
    summary = report.ReportSummary(path=tmp_path / "report.html")
    assert report._traces_section(con, tmp_path, summary) == "" and summary.figures == []
