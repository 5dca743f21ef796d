"""The study's published numbers beside ours in the marts: ``marts.dlm_vs_llm`` gains the study's
Table 1 LLMs from ``marts.study_reference``, on a small hand-made DuckDB built with the real dbt project.

The published rows here are made up (model "Paper LLM (made up)", values 0.25 / 0.125, a DLM at 0.5):
the test is about where the rows go, not about the paper, whose numbers the families' own tests
re-read.
"""

from __future__ import annotations

import re

import duckdb
import pytest

from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dbt_build, dicts
from tests.unit.marts.test_metric_marts import _fill, _write_annotations

PAPER_LLM = "Paper LLM (made up)"


def _reference_row(line: int, task: str, n: int, value: float | None, **extra) -> dict:
    return {
        "family": "relational",
        "source": "Table 1",
        "model": PAPER_LLM,
        "task": task,
        "setting": "nl",
        "split": "iid" if n == 10 else "ood",
        "n": n,
        "metric": "f1",
        "value": value,
        "printed": "" if value is None else f"{100 * value:.2f}",
        "keys": "{}",
        "line": line,
        **extra,
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("study_comparison")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    db = root / "compare.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        _fill(con, _write_annotations(root / "winobias_zero_answer_handmade.csv"))
        rows = [
            _reference_row(2, "HasFather", 10, 0.25),
            _reference_row(3, "HasFather", 20, 0.125),
            _reference_row(4, "IsGrandparent", 10, 0.5),  # a task this home never ran
            _reference_row(5, "HasFather", 10, 0.75, source="Table 2", setting="tv"),  # not Table 1
            _reference_row(6, "HasFather", 10, 0.5, model="DLM", setting="dlm"),  # the study's DLM
        ]
        for row in rows:
            names = ", ".join(row)
            con.execute(
                f"INSERT INTO raw.study_reference ({names}) VALUES ({', '.join('?' for _ in row)})",
                list(row.values()),
            )
    finally:
        con.close()
    dbt_build(db, root, select="+dlm_vs_llm +study_reference")
    read = duckdb.connect(str(db), read_only=True)
    yield read
    read.close()
    mp.undo()


def test_study_reference_mart_holds_the_loaded_rows(built):
    assert built.execute("SELECT count(*), count(value) FROM marts.study_reference").fetchone() == (5, 5)


def test_dlm_vs_llm_puts_the_study_s_table_1_llms_beside_ours(built):
    rows = dicts(built, "SELECT * FROM marts.dlm_vs_llm WHERE task = 'HasFather' ORDER BY published")
    ours, theirs = rows
    assert (ours["model"], ours["published"], ours["source"]) == ("m", False, "relreason")
    assert (theirs["model"], theirs["published"], theirs["source"]) == (PAPER_LLM, True, "Table 1")
    assert (theirs["setting"], theirs["f1_n10"], theirs["f1_n20"]) == (
        "nl",
        0.25,
        0.125,
    )  # n=10 IID, n=20 OOD
    assert theirs["ci_low_n10"] is None and theirs["n_n10"] is None  # printed numbers have no interval
    # The study's DLM is a reference column on every row of its task (not a published LLM row).
    assert (ours["study_dlm_n10"], theirs["study_dlm_n10"], ours["study_dlm_n20"]) == (0.5, 0.5, None)
    # Only tasks this home ran, and only Table 1 (nl prompting): Table 2 is the truth-value prompt.
    published = built.execute("SELECT task, model FROM marts.dlm_vs_llm WHERE published").fetchall()
    assert published == [("HasFather", PAPER_LLM)]


def test_the_report_marks_the_published_columns(built):
    from relreason_dagster.benchmarks.relational.report import dlm_table_html

    page = dlm_table_html(dicts(built, "SELECT * FROM marts.dlm_vs_llm"))
    assert f'<th colspan="2" class="published">{PAPER_LLM}<br><span class="pub">(published, Table 1)' in page
    assert re.search(r'<td class="published[^"]*">25\.00%</td><td class="published[^"]*">12\.50%</td>', page)
