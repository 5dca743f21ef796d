"""The report's side-by-side tables: a family's comparison mart (our models and the study's published
ones, long rows) pivoted with models as columns, the published ones marked, on hand-made marts.

The published values are made up ("Paper model A/B"): the test is about the pivot and the marking.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from relreason_dagster.benchmarks.base import Comparison
from relreason_dagster.results import report, report_tables

SPEC = Comparison(
    key="demo_vs_study",
    title="Demo beside the study",
    mart="marts.demo_vs_study",
    note="made-up rows",
    footnote="Protocol: the study used other samples.",
    first=("second", "first"),
)


def _row(task, model, published, metric, value, source="relreason", **extra):
    return {
        "task": task,
        "split": None,  # named by no row: not a column of the report's table
        "model": model,
        "published": published,
        "source": source,
        "metric": metric,
        "value": value,
        "ci_low": None if published else value - 0.1,
        "ci_high": None if published else value + 0.1,
        "n": None if published else 20,
        "note": None,
        **extra,
    }


ROWS = [
    _row("first", "zeta", False, "acc", 0.5),
    _row("first", "alpha", False, "acc", 0.25),
    _row("first", "Paper model B", True, "acc", 0.875, source="Table 10"),
    _row("first", "Paper model A", True, "acc", None, source="Table 2", note="N/A in the paper: too long"),
    _row("second", "alpha", False, "acc", 0.75),
    _row("second", "alpha", False, "scr", 0.125),
    _row("second", "Paper model B", True, "acc", 0.5, source="Table 2"),  # one column, two tables
]


@pytest.fixture
def con(tmp_path):
    c = duckdb.connect(str(tmp_path / "compare.duckdb"))
    c.execute("CREATE SCHEMA marts")
    yield c
    c.close()


def _mart(con, rows):
    con.register("_rows", pa.Table.from_pylist(rows))
    con.execute("CREATE TABLE marts.demo_vs_study AS SELECT * FROM _rows")
    con.unregister("_rows")


def test_a_comparison_whose_mart_is_not_built_is_not_shown(con):
    assert report_tables.comparison_tables(con, (SPEC,)) == []


def test_models_become_columns_ours_first_the_study_s_marked(con):
    _mart(con, ROWS)
    [table] = report_tables.comparison_tables(con, (SPEC,))
    assert table.row_keys == ("task", "metric")  # the convention's keys, metric added, split dropped
    assert [(c.model, c.published, c.source) for c in table.columns] == [
        ("alpha", False, None),
        ("zeta", False, None),
        ("Paper model B", True, "Table 2, Table 10"),  # the study's in the order the mart gives them
        ("Paper model A", True, "Table 2"),
    ]
    assert [keys for keys, _ in table.rows] == [("second", "acc"), ("second", "scr"), ("first", "acc")]
    cells = dict(table.rows)[("first", "acc")]
    alpha, paper_b, paper_a = (cells[c] for c in (table.columns[0], table.columns[2], table.columns[3]))
    assert (alpha.value, alpha.low, alpha.n) == (0.25, pytest.approx(0.15), 20)
    assert (paper_b.value, paper_b.low, paper_b.n) == (0.875, None, 0)
    assert paper_a.value is None and paper_a.note == "N/A in the paper: too long"


def test_the_html_marks_published_columns_and_keeps_the_footnote(con):
    _mart(con, ROWS)
    [table] = report_tables.comparison_tables(con, (SPEC,))
    page = report.comparison_html(table)
    assert '<th class="model">alpha</th>' in page
    published_b = 'Paper model B<br><span class="pub">(published, Table 2, Table 10)</span></th>'
    assert f'<th class="model published">{published_b}' in page
    assert '<td class="published">0.875</td>' in page
    assert 'title="N/A in the paper: too long">N/A<sup class="fn">*</sup>' in page  # N/A is not 0
    assert "Protocol: the study used other samples." in page
    assert page.count("<tr>") == 1 + 3  # header and three rows


def test_a_query_comparison_reads_when_its_relations_exist(con):
    spec = Comparison(
        key="q",
        title="q",
        sql="SELECT * FROM marts.demo_vs_study WHERE metric = 'acc'",
        needs=("marts.demo_vs_study",),
        where="NOT published",
    )
    assert report_tables.comparison_tables(con, (spec,)) == []
    _mart(con, ROWS)
    [table] = report_tables.comparison_tables(con, (spec,))
    assert [c.model for c in table.columns] == ["alpha", "zeta"] and table.row_keys == ("task",)


def test_a_model_two_tables_print_for_the_same_row_gets_a_column_per_table(con):
    _mart(con, [*ROWS, _row("first", "Paper model A", True, "acc", 0.25, source="Table 4")])
    [table] = report_tables.comparison_tables(con, (SPEC,))
    published = [(c.model, c.source) for c in table.columns if c.published]
    assert published == [
        ("Paper model B", "Table 2, Table 10"),
        ("Paper model A", "Table 2"),
        ("Paper model A", "Table 4"),
    ]


def test_a_pair_that_is_not_like_with_like_is_greyed_and_footnoted(con):
    """Rows carrying ``comparable`` / ``why_not``: a false cell (ours or the study's) is greyed with a
    numbered dagger and the table lists each reason once; a true one reads as before."""
    why_ours = "1 sample per point where the study pools 300"
    why_theirs = "the study's pool is items relreason cannot rebuild"
    rows = [
        {**r, "comparable": True, "why_not": None}
        for r in ROWS
        if not (r["task"] == "first" and r["model"] in ("alpha", "Paper model B"))
    ]
    rows += [
        _row("first", "alpha", False, "acc", 0.25, comparable=False, why_not=why_ours),
        _row(
            "first",
            "Paper model B",
            True,
            "acc",
            0.875,
            source="Table 10",
            comparable=False,
            why_not=why_theirs,
        ),
        _row("third", "alpha", False, "acc", 0.5, comparable=False, why_not=why_ours),
    ]
    _mart(con, rows)
    [table] = report_tables.comparison_tables(con, (SPEC,))
    assert "comparable" not in table.row_keys and "why_not" not in table.row_keys
    cells = dict(table.rows)[("first", "acc")]
    assert {c.model: cells[c].comparable for c in table.columns if c in cells} == {
        "alpha": False,
        "zeta": True,
        "Paper model B": False,
        "Paper model A": True,
    }
    page = report.comparison_html(table)
    assert '<td class="nc" title="not comparable: 1 sample per point' in page  # ours, greyed
    assert '<td class="published nc" title="not comparable: the study&#x27;s pool' in page
    assert page.count('&dagger;1</sup><span class="n">') == 2 and page.count("&dagger;2</sup></td>") == 1
    assert f'<li><sup class="nc">&dagger;1</sup> {why_ours}</li>' in page  # each reason once
    assert page.count("<li>") == 2


def test_a_comparison_without_the_columns_renders_as_before(con):
    _mart(con, ROWS)
    [table] = report_tables.comparison_tables(con, (SPEC,))
    page = report.comparison_html(table)
    assert 'nc"' not in page and "&dagger;" not in page and "not comparable" not in page
