"""The report's figures, headline tables and HTML, on small hand-made marts in a temporary DuckDB.

No pipeline runs here (tests/e2e/test_report_browser.py does that): the marts are created with the
columns dbt gives them and a few rows whose values are known, so each assertion can say what the
figure or the table must show.
"""

from __future__ import annotations

import io
import re

import duckdb
import pytest

from relreason_dagster.benchmarks.relational.report import draw_relational
from relreason_dagster.results import figures, report, report_tables
from relreason_dagster.results.figures import FIGURES, render, render_rows

PNG = b"\x89PNG\r\n\x1a\n"


def _size(png: bytes) -> tuple[int, int]:
    from PIL import Image

    return Image.open(io.BytesIO(png)).size


@pytest.fixture
def con(tmp_path):
    c = duckdb.connect(str(tmp_path / "results.duckdb"))
    c.execute("CREATE SCHEMA marts")
    c.execute("CREATE SCHEMA raw")
    yield c
    c.close()


def _table(con, name: str, rows: list[dict]) -> None:
    """marts.<name> from dict rows (column types inferred by DuckDB from the values)."""
    import pyarrow as pa

    con.register("_rows", pa.Table.from_pylist(rows))
    con.execute(f"CREATE OR REPLACE TABLE marts.{name} AS SELECT * FROM _rows")
    con.unregister("_rows")


RELATIONAL = [
    {
        "model": m,
        "task": t,
        "split": sp,
        "setting": st,
        "n": 4,
        "n_na": 0,
        "n_error": 0,
        "f1": f1,
        "ci_low": max(0.0, f1 - 0.2),
        "ci_high": min(1.0, f1 + 0.2),
        "f1_micro": f1,
    }
    for m, f1 in (("alpha", 0.8), ("beta", 0.3))
    for t in ("HasFather", "IsUncle")
    for sp, st in (("iid", "nl"), ("iid", "tv"), ("ood", "nl"))
] + [
    {
        "model": "dlm",
        "task": "HasFather",
        "split": sp,
        "setting": "dlm",
        "n": 4,
        "n_na": 0,
        "n_error": 0,
        "f1": 1.0,
        "ci_low": 1.0,
        "ci_high": 1.0,
        "f1_micro": 1.0,
    }
    for sp in ("iid", "ood")
]
DLM_VS_LLM = [
    {
        "task": "HasFather",
        "model": m,
        "setting": s,
        "f1_n10": v,
        "ci_low_n10": v - 0.1,
        "ci_high_n10": v,
        "n_n10": 4,
        "f1_n20": v / 2,
        "ci_low_n20": 0.0,
        "ci_high_n20": v,
        "n_n20": 4,
        "n_seeds": None,
        "seed_sd_n10": None,
        "seed_sd_n20": None,
        "study_dlm_n10": 1.0,
        "study_dlm_n20": 1.0,
    }
    for m, s, v in (("alpha", "nl", 0.8), ("beta", "nl", 0.3), ("dlm", "dlm", 1.0))
]
FLENQA_LEN = [
    {
        "model": "alpha",
        "task": t,
        "setting": s,
        "length": n,
        "n": 10,
        "n_correct": 7,
        "mean_input_tokens": n,
        "accuracy": 0.7,
        "ci_low": 0.4,
        "ci_high": 0.9,
    }
    for t in ("MonoRel", "PIR")
    for s in ("direct", "cot")
    for n in (0, 250, 1000)
]
FLENQA_BIAS = [
    {
        "model": "alpha",
        "setting": "direct",
        "length": n,
        "n": 10,
        "n_true": 4,
        "n_false": 5,
        "n_refused": 1,
        "gold_false_share": 0.5,
        "false_share": 5 / 9,
        "false_bias": 5 / 9 - 0.5,
        "false_ci_low": 0.3,
        "false_ci_high": 0.8,
        "refusal_rate": 0.1,
        "refusal_ci_low": 0.0,
        "refusal_ci_high": 0.4,
    }
    for n in (0, 250, 1000)
]
KOR_ACC = [
    {
        "model": "alpha",
        "source": "official",
        "setting": "zero_shot",
        "category": c,
        "n": 5,
        "n_correct": 2,
        "n_na": 0,
        "accuracy": 0.4,
        "ci_low": 0.1,
        "ci_high": 0.8,
        "official_accuracy": 0.4,
    }
    for c in ("logic", "cipher", "overall")
]
KOR_ROUNDS = [
    {
        "model": "alpha",
        "source": "official",
        "category": "overall",
        "round": k,
        "n": 5,
        "n_correct": 2 + k,
        "accuracy": (2 + k) / 5,
        "ci_low": 0.1,
        "ci_high": 0.9,
        "n_corrected": k,
        "correction_rate": None,
    }
    for k in (0, 1, 2)
]
SC_JUDGED = [
    {
        "model": "alpha",
        "dataset": "generated",
        "split": None,
        "selection": "generated",
        "setting": s,
        "method": "fge",
        "judge": "j",
        "source": "answer",
        "n": 4,
        "accuracy": 0.75,
        "accuracy_ci_low": 0.3,
        "accuracy_ci_high": 0.95,
        "n_judged": 4,
        "judged_scr": 0.25,
        "scr_ci_low": 0.05,
        "scr_ci_high": 0.7,
        "n_type1": 1,
        "n_type2": 0,
        "n_type3": 0,
    }
    for s in ("zero_answer", "few_answer")
]
ACCURACY = [
    {
        "benchmark": "flenqa",
        "model": "alpha",
        "task": t,
        "split": "test",
        "setting": "direct",
        "n": 10,
        "n_correct": k,
        "n_na": cut,
        "n_cut": cut,
        "accuracy": k / 10,
        "ci_low": 0.0,
        "ci_high": 1.0,
    }
    for t, k, cut in (("MonoRel", 7, 2), ("PIR", 3, 1))
]
ALL_MARTS = {
    "relational_f1": RELATIONAL,
    "dlm_vs_llm": DLM_VS_LLM,
    "flenqa_accuracy_by_length": FLENQA_LEN,
    "flenqa_label_bias": FLENQA_BIAS,
    "kor_accuracy": KOR_ACC,
    "kor_self_correction": KOR_ROUNDS,
    "selfcontra_judged": SC_JUDGED,
    "accuracy": ACCURACY,
}


@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.name)
def test_every_figure_draws_a_no_data_panel_from_empty_marts(spec):
    png = render_rows(spec, {})
    assert png[:8] == PNG
    width, height = _size(png)
    assert width == figures.WIDTH_IN * figures.DPI  # narrow enough for the Dagster UI's metadata dialog
    assert 150 < height < 1000


@pytest.mark.parametrize("spec", FIGURES, ids=lambda s: s.name)
def test_every_figure_draws_from_its_marts_and_writes_its_file(spec, con, tmp_path):
    for name, rows in ALL_MARTS.items():
        _table(con, name, rows)
    png, counts = render(spec, con, tmp_path / "plots")
    assert (tmp_path / "plots" / spec.file_name).read_bytes() == png
    assert set(counts) == set(spec.marts)
    for mart, n in counts.items():
        assert n == len(ALL_MARTS.get(mart.removeprefix("marts."), [])), mart
    assert _size(png)[0] == 800
    # Drawn data is not the empty panel: the two images differ.
    assert png != render_rows(spec, {}) or not any(counts.values())


def test_a_missing_mart_reads_as_no_rows(con):
    rows = figures.read_marts(con, ["marts.relational_f1", "marts.nothing_here"])
    assert rows == {"marts.relational_f1": [], "marts.nothing_here": []}


def test_the_dlm_is_drawn_in_the_nl_panel_not_a_panel_of_its_own():
    fig = draw_relational({"marts.relational_f1": RELATIONAL})
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert titles == ["IID (n = 10) · nl (+ DLM)", "IID (n = 10) · tv", "OOD (n = 20) · nl (+ DLM)"]
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["alpha", "beta", "dlm"]  # one entry per model, nothing empty


def test_wilson_matches_the_marts_macro():
    low, high = report_tables.wilson(7, 10)
    assert (round(low, 4), round(high, 4)) == (0.3968, 0.8922)
    assert report_tables.wilson(0, 0) == (None, None)


def test_tables_pool_counts_and_puts_models_in_columns(con):
    _table(con, "accuracy", ACCURACY + [{**ACCURACY[0], "model": "beta", "n_correct": 10, "accuracy": 1.0}])
    tables = {t.spec.key: t for t in report_tables.wide_tables(con)}
    # marts that do not exist are left out, not shown blank; the cut share reads marts.accuracy too
    assert list(tables) == ["accuracy", "cut"]
    table = tables["accuracy"]
    assert table.models == ["alpha", "beta"]
    [(keys, cells)] = table.rows
    assert keys == ("flenqa", "test", "direct")
    assert cells["alpha"].value == pytest.approx(0.5) and cells["alpha"].n == 20  # (7 + 3) / 20
    assert (cells["alpha"].low, cells["alpha"].high) == report_tables.wilson(10, 20)
    assert cells["beta"].value == 1.0 and cells["beta"].n == 10
    # The answers a budget cut (issue 55, item 3): 2 + 1 of alpha's 20, shown as a count, not only a share.
    [(keys, cut)] = tables["cut"].rows
    assert keys == ("flenqa",)
    assert (cut["alpha"].k, cut["alpha"].n, cut["alpha"].value) == (3, 20, pytest.approx(0.15))
    assert (cut["alpha"].low, cut["alpha"].high) == report_tables.wilson(3, 20)
    assert '<span class="n">3/20</span>' in report.table_html(tables["cut"])
    assert '<span class="n">n=20</span>' in report.table_html(table)  # other tables keep n=


def _samples(con, n_per_model: int, models=("alpha", "beta")) -> None:
    rows = []
    for m in models:
        for i in range(n_per_model):
            rows.append(
                {
                    "model": m,
                    "benchmark": "flenqa",
                    "task": "PIR",
                    "setting": "direct",
                    "split": "test",
                    "sample_id": f"s{i}",
                    "prompt_id": f"p{i}",
                    "messages": '[{"role": "user", "content": "Is <b>this</b> true?"}]',
                    "response": "</pre><script>alert(1)</script> True" if i == 0 else "False",
                    "response_error": None,
                    "finish_reason": "stop",
                    "input_tokens": 10,
                    "completion_tokens": 2,
                    "gold": '"true"',
                    "parsed": '"true"' if i == 0 else '"false"',
                    "parse_status": "ok",
                    "correct": i == 0,
                    "tp": None,
                    "fp": None,
                    "fn": None,
                    "f1": 1.0 if i == 0 else 0.0,
                    "outcome": "correct" if i == 0 else "wrong",
                    "detail": None,
                }
            )
    _table(con, "sample_results", rows)


def test_sample_cap_spreads_over_models(con):
    _samples(con, 5)
    rows, total = report.select_samples(con, 4)
    assert total == 10
    assert sorted(r["model"] for r in rows) == ["alpha", "alpha", "beta", "beta"]
    rows, total = report.select_samples(con, 500)
    assert (len(rows), total) == (10, 10)


def test_report_is_one_self_contained_file_with_escaped_model_text(con, tmp_path):
    for name, rows in ALL_MARTS.items():
        _table(con, name, rows)
    _samples(con, 3)
    summary = report.build_report(con, tmp_path / "out", max_samples=4, source="test.duckdb")
    page = summary.path.read_text()
    assert summary.path.name == "report.html"
    assert [p.name for p in summary.figures] == [s.file_name for s in FIGURES]
    assert all(p.read_bytes()[:8] == PNG for p in summary.figures)
    assert page.count('src="data:image/png;base64,') == len(FIGURES)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)  # nothing fetched from anywhere
    assert (summary.samples_shown, summary.samples_total) == (4, 6)
    assert page.count('<tr class="sample"') == 4
    assert "4 of 6 answers (at most 4" in page
    # Model text is data, never markup: the response's script tag arrives escaped.
    assert "<script>alert(1)</script>" not in page
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt; True" in page
    assert "Is &lt;b&gt;this&lt;/b&gt; true?" in page
    # Table 1: a row per task, the DLM and the study's DLM as the last column pairs.
    assert "DLM (ours)" in page and "DLM (the study)" in page and "100.00%" in page
    for option in ('value="alpha"', 'value="correct"', 'value="wrong"', 'value="PIR"'):
        assert option in page


def test_report_of_an_empty_home_says_so(con, tmp_path):
    summary = report.build_report(con, tmp_path / "out")
    page = summary.path.read_text()
    assert "No answers stored yet" in page
    assert page.count("<img ") == len(FIGURES)  # every figure still renders (its no-data panel)
    assert summary.samples_total == 0


def test_figure_asset_puts_the_png_in_its_metadata(con, tmp_path, monkeypatch):
    import dagster as dg

    from relreason_dagster.defs.figure_assets import FIGURE_ASSETS
    from relreason_dagster.defs.resources import DuckDBFile

    _table(con, "kor_accuracy", KOR_ACC)
    _table(con, "kor_self_correction", KOR_ROUNDS)
    con.close()
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    [asset] = [a for a in FIGURE_ASSETS if a.key == dg.AssetKey("kor_plot")]
    result = dg.materialize(
        [asset],
        resources={"duckdb": DuckDBFile(database=str(tmp_path / "results.duckdb"))},
        selection=[asset.key],
    )
    assert result.success
    [event] = result.get_asset_materialization_events()
    meta = event.materialization.metadata
    assert meta["rows"].value == len(KOR_ACC) + len(KOR_ROUNDS)
    assert meta["plot"].value.count("](data:image/png;base64,") == 1
    assert (tmp_path / "home" / "plots" / "kor_accuracy.png").read_bytes()[:8] == PNG
    deps = {d.asset_key for d in asset.specs_by_key[asset.key].deps}
    assert deps == {dg.AssetKey(["marts", "kor_accuracy"]), dg.AssetKey(["marts", "kor_self_correction"])}


def test_an_empty_figure_of_an_answered_family_says_which_profile_has_its_configuration(con, tmp_path):
    """After the smoke demo FLenQA is answered but has no duplicate padding: Figure 3 says that, and
    which profile has it, in its PNG and its caption, instead of "no answers yet"."""
    spec = figures.get_figure("flenqa_figure3")
    assert spec.empty and "paper" in spec.empty
    con.execute("CREATE TABLE marts.flenqa_figure3 (model VARCHAR, length INTEGER)")
    con.execute("CREATE TABLE raw.parsed_answers (prompt_id VARCHAR, model VARCHAR, benchmark VARCHAR)")
    assert figures.empty_reason(spec, con, {"marts.flenqa_figure3": 0}) is None  # nothing answered yet
    con.execute("INSERT INTO raw.parsed_answers VALUES ('p', 'm', 'flenqa')")
    assert figures.empty_reason(spec, con, {"marts.flenqa_figure3": 0}) == spec.empty
    assert figures.empty_reason(spec, con, {"marts.flenqa_figure3": 3}) is None  # rows: drawn as always
    png, counts = render(spec, con)
    assert png.startswith(PNG) and counts == {"marts.flenqa_figure3": 0}
    assert png != render_rows(spec, {"marts.flenqa_figure3": []})  # not the "no answers yet" panel
    page = report.build_report(con, tmp_path / "report").path.read_text()
    figure = page[page.index('id="figure-flenqa_figure3"') :]
    assert figure[: figure.index("</figure>")].count('<span class="empty">Empty: The stored FLenQA') == 1
