"""A family defined only in the test folder (``tests/toy_family/``) runs end to end once registered.

``registry.register(ToyFamily())`` is the one line a family needs, the line every built-in family
has in ``benchmarks/registry.py``; no other file names the toy family.  The scripted model
``toy-answerer`` answers from the number in each prompt: right for most, a wrong answer for numbers
ending in 2 and an unreadable one for numbers ending in 5, so every expected figure follows from
the generated samples.  The run goes samples -> prompts -> scripted model -> parsed answers -> the
marts every family gets (accuracy, parse rate), with the shared checks reading the toy's bounds.
The toy also declares what the report shows of it (``tests/toy_family/report.py``: a section, a
figure, a table, its closing table), ships a made-up study (``published.csv``) and owns a raw table
(``tables.py``): the report, ``marts.study_reference`` and schema ``raw`` show them, with no file
outside the test folder naming the toy.
"""

from __future__ import annotations

import re

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import get_family, register, unregister
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import isolated_home, rows, scripted_models_yaml
from tests.toy_family.family import ToyFamily

pytestmark = pytest.mark.integration

MODELS_YAML = scripted_models_yaml("toy-answerer", concurrency=4)


def _answer(number: int) -> str:
    if number % 10 == 5:
        return "I would rather not say."
    even = number % 2 == 0
    if number % 10 == 2:
        even = not even
    return "yes" if even else "no"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("toy_family")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, MODELS_YAML)
    register(ToyFamily())
    register_scripted_provider()
    set_responder(
        "toy-answerer",
        lambda messages, params: _answer(int(re.search(r"\d+", messages[-1]["content"]).group())),
    )
    family = get_family("toy")
    numbers = [
        s.input["number"]
        for s in family.generate(profiles.get_profile("smoke", "toy"), profiles.DEFAULT_SEED)
    ]
    yield numbers
    set_responder("toy-answerer", None)
    unregister("toy")
    mp.undo()


def test_a_registered_toy_family_runs_end_to_end(home):
    from relreason_dagster.pipeline import run_models

    numbers = home
    n = len(numbers)
    n_na = sum(k % 10 == 5 for k in numbers)
    n_correct = sum(k % 10 not in (2, 5) for k in numbers)
    assert n == 8 and 0 < n_correct < n  # the profile's size, and a result that is neither 0 nor 1

    reset_calls()
    report = run_models(["toy-answerer"], profile="smoke", benchmarks=["toy"])
    assert report.failures == []
    assert call_count("toy-answerer") == n
    assert rows("SELECT benchmark, count(*) FROM raw.samples GROUP BY 1") == [("toy", n)]
    assert rows("SELECT benchmark, kind, setting, count(*) FROM raw.prompts GROUP BY ALL") == [
        ("toy", "test", "direct", n)
    ]
    statuses = dict(rows("SELECT parse_status, count(*) FROM raw.parsed_answers GROUP BY 1"))
    assert statuses == {"ok": n - n_na, **({"na": n_na} if n_na else {})}
    # The marts every family gets, computed by dbt from the toy's rows.
    assert rows("SELECT benchmark, model, n, n_correct, n_na FROM marts.accuracy") == [
        ("toy", "toy-answerer", n, n_correct, n_na)
    ]
    assert rows("SELECT benchmark, n_ok, n_na, parse_rate FROM marts.parse_rate") == [
        ("toy", n - n_na, n_na, round((n - n_na) / n, 4))
    ]
    # Its study's numbers (tests/toy_family/published.csv, made up) loaded by the prepare job, built by dbt.
    published = "SELECT model, value, keys FROM marts.study_reference WHERE family = 'toy' ORDER BY line"
    assert rows(published) == [
        ("Parity Oracle", 1.0, '{"difficulty": "easy"}'),
        ("Coin Flipper", 0.5, '{"difficulty": "easy"}'),
        ("Shy Model", None, "{}"),
    ]
    # The raw table its tables.py declares, with the column it added later.
    toy_columns = "SELECT column_name FROM information_schema.columns WHERE table_schema = 'raw'"
    assert rows(f"{toy_columns} AND table_name = 'toy_notes' ORDER BY ordinal_position") == [
        ("sample_id",),
        ("note",),
        ("written_at",),
    ]
    # The shared checks ran on the toy's rows with the bounds its checks.py declares.
    checks = {name: passed for name, passed, _ in report.checks}
    for name in ("label_balance_check", "token_length_check", "parse_status_check", "parse_rate_check"):
        assert checks[name] is True, name
        assert report.check_rows[name] > 0, name


def test_a_second_run_asks_nothing(home):
    from relreason_dagster.pipeline import run_models

    reset_calls()
    report = run_models(["toy-answerer"], profile="smoke", benchmarks=["toy"], run_dbt=False)
    assert report.failures == [] and report.total_calls == 0 and call_count("toy-answerer") == 0


def test_the_report_shows_the_toy_section_figure_and_published_rows(home, tmp_path):
    """A family's own report section, figure and study rows reach report.html through the registry."""
    import duckdb

    from relreason_dagster.results.headline import headline_tables
    from relreason_dagster.results.report import build_report

    numbers = home
    n, n_correct = len(numbers), sum(k % 10 not in (2, 5) for k in numbers)
    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        summary = build_report(con, tmp_path / "report")
        closing = {t.title: t for t in headline_tables(con, families=["toy"])}
    finally:
        con.close()
    page = summary.path.read_text()
    assert '<section id="toy"><h2>Toy: is this number even?</h2>' in page
    assert '<a href="#toy">Toy</a>' in page
    assert 'data-figure="toy_accuracy"' in page
    assert (tmp_path / "report" / "toy_accuracy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "toy_accuracy" in summary.tables and 'id="table-toy_accuracy"' in page
    # Our scripted model beside the made-up study's three models, each marked as published.
    compare = page[page.index('id="table-toy_vs_study"') :]
    compare = compare[: compare.index("</table>")]
    assert '<th class="model">toy-answerer</th>' in compare
    for model in ("Parity Oracle", "Coin Flipper", "Shy Model"):
        assert f'{model}<br><span class="pub">(published, Toy Table 1)</span>' in compare
    assert f">{n_correct / n:.3f}" in compare and ">1.000<" in compare and ">0.500<" in compare
    assert ">N/A<" in compare  # the study's empty cell stays empty, never 0
    # The made-up row published.csv marks not comparable is greyed with a dagger, and the footnote says why.
    assert (
        '<td class="published nc" title="' in compare
        and '>0.500<sup class="fn">*</sup><sup class="nc">&dagger;1</sup>' in compare
    )
    table = page[page.index('id="table-toy_vs_study"') :]
    assert "made up: the toy&#x27;s coin flipper was asked other numbers than these</li>" in table
    # Its closing table, printed by a run that covered it.
    rows = closing["marts.accuracy (toy: parity)"].rows
    assert [list(r[:5]) for r in rows] == [["toy-answerer", "parity", "direct", n, n_correct]]
