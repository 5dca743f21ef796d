"""A report of a model that answers 8 MB per reply stays readable: long texts are cut, with their length
and the `relreason samples` command that prints them whole.

Before: every embedded answer was inlined whole, so 8 MB replies made a 423 MB report.html no browser
opens.  Here the per-sample mart holds scripted long replies (8 MiB answers, thinking and a multi-turn
prompt that quotes an earlier reply, as KOR's self-correction rounds do) beside ordinary ones; no
pipeline runs (tests/unit/results/test_figures.py builds reports the same way).
"""

from __future__ import annotations

import json

import duckdb
import pytest

from relreason_dagster.results import report
from relreason_dagster.results.samples import format_sample, sample_rows

LONG = 8 * 2**20  # characters of one scripted long reply


@pytest.fixture
def con(tmp_path):
    c = duckdb.connect(str(tmp_path / "results.duckdb"))
    c.execute("CREATE SCHEMA marts")
    c.execute("CREATE SCHEMA raw")
    yield c
    c.close()


def _row(i: int, response: str, reasoning: str | None, prompt: str) -> dict:
    return {
        "model": "rambler",
        "benchmark": "kor",
        "task": "cipher",
        "setting": "zero-shot",
        "split": "test",
        "sample_id": f"s{i}",
        "prompt_id": f"p{i}",
        "messages": json.dumps(
            [{"role": "user", "content": "Decode it."}, {"role": "assistant", "content": prompt}]
        ),
        "response": response,
        "reasoning": reasoning,
        "reasoning_tokens": None,
        "response_error": None,
        "finish_reason": "length",
        "input_tokens": 10,
        "completion_tokens": 2,
        "gold": '"ABC"',
        "parsed": '"ABC"' if i == 0 else "null",
        "parse_status": "ok",
        "correct": i == 0,
        "tp": None,
        "fp": None,
        "fn": None,
        "f1": None,
        "outcome": "correct" if i == 0 else "na",
        "detail": None,
    }


def _store(con, rows: list[dict]) -> None:
    import pyarrow as pa

    con.register("_rows", pa.Table.from_pylist(rows))
    con.execute("CREATE OR REPLACE TABLE marts.sample_results AS SELECT * FROM _rows")
    con.unregister("_rows")


def test_eight_megabyte_replies_make_a_report_under_20_mb_that_says_what_was_cut(con, tmp_path):
    long_reply = "<b>" + "x" * (LONG - 7) + " ABC</b>"  # markup too: escaping must not undo the cut
    rows = [_row(0, "ABC", None, "short")] + [
        _row(i, long_reply, "t" * LONG, long_reply) for i in range(1, 4)
    ]
    _store(con, rows)
    summary = report.build_report(con, tmp_path / "out", max_samples=50)
    size = summary.path.stat().st_size
    assert size < 20 * 2**20, f"report.html is {size / 2**20:.0f} MB"
    page = summary.path.read_text()
    assert page.count('<tr class="sample"') == 4  # every answer is still there, cut
    assert f"{LONG:,} characters in all" in page  # the full length, shown
    assert page.count("characters in all") == 3 * 3  # each long reply: answer, thinking, quoted in the prompt
    command = "relreason samples --model rambler --benchmark kor --task cipher --setting zero-shot"
    assert f"<code>{command}</code> prints the whole text" in page
    assert f"<code>{command} --json</code> prints the whole text" in page  # thinking: only --json has it all
    assert '<pre class="resp">ABC</pre>' in page  # a short answer is whole, with no note
    assert "<b>xxx" not in page and "&lt;b&gt;xxx" in page  # still escaped
    # The command the page names prints the answer whole.
    [whole] = [r for r in sample_rows(con, model="rambler", task="cipher") if r["sample_id"] == "s1"]
    assert long_reply in format_sample(whole)


def test_a_text_at_the_limit_is_whole():
    row = {"model": "m", "benchmark": "b", "task": "t", "setting": "s"}
    assert report.cut_html("y" * report.TEXT_SHOWN, row) == "y" * report.TEXT_SHOWN
    cut = report.cut_html("y" * (report.TEXT_SHOWN + 1), row)
    assert cut.startswith("y" * report.TEXT_SHOWN + '<span class="cut">')
    assert f"{report.TEXT_SHOWN + 1:,} characters in all" in cut


def test_the_samples_command_quotes_what_a_shell_would_split():
    row = {"model": "my model", "benchmark": "kor", "task": "it's", "setting": None}
    assert (
        report.samples_command(row)
        == "relreason samples --model 'my model' --benchmark kor --task 'it'\"'\"'s'"
    )
