"""The Self-Contra marts of the study's Tables 4, 5, 6 and 10 and §2.4, on hand-made annotations.

Builds the real dbt project on a DuckDB file holding annotations imported by the real reader (section-2
files for the correlation points, a section-3 file with a split and finer-grained categories, and a
second annotator's file of the same responses) and FGE verdicts with known probe answers, then checks
every mart against numbers computed here in plain Python (scipy for the correlation's p-value, a
coincidence-matrix implementation of Krippendorff's alpha).
"""

from __future__ import annotations

import csv
import datetime as dt
import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.selfcontra.annotation_store import annotation_id, store_import
from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_csv
from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dbt_build

# Section-2 points: (dataset, setting, model) -> (n_correct, n_self_contra) of 10 annotated responses.
POINTS = {
    ("winobias", "zero_answer", "mA"): (5, 4),
    ("winobias", "few_answer", "mA"): (8, 2),
    ("winogrande", "zero_answer", "mA"): (6, 3),
    ("winogrande", "few_answer", "mA"): (7, 3),
    ("winobias", "zero_answer", "mB"): (4, 6),
    ("winobias", "few_answer", "mB"): (9, 1),
    ("winogrande", "zero_answer", "mB"): (5, 2),
    ("winogrande", "few_answer", "mB"): (6, 5),
    ("winobias", "zero_reason", "mA"): (6, 1),
    ("winobias", "few_reason", "mA"): (7, 4),
    ("winobias", "zero_reason", "mB"): (3, 5),
    ("winobias", "few_reason", "mB"): (8, 3),
}
# The section-3 file: (accuracy, self-contra, type cell, finer cell).
SECTION3 = [
    ("1", "0", "rr", ""),
    ("1", "0", "rr", "evidence missing"),
    ("0", "1", "rw", "evidence missing"),
    ("0", "1", "rw", "incomplete reasoning"),
    ("0", "1", "rw", "evidence missing"),
    ("1", "1", "wr", "begging question"),
    ("1", "1", "wr", "begging question & questionable cause"),
    ("1", "1", "wr", "questionable cause"),
    ("1", "1", "3", "self-contradictory"),
    ("0", "0", "ww", "begging question"),
    ("0", "0", "ww", ""),
    ("1", "0", "rr", ""),
]
# A second annotator of the same twelve responses: the self-contra flags it sets.
SECOND_FLAGS = ["0", "1", "1", "1", "0", "1", "1", "0", "1", "0", "0", "0"]
# FGE probe answers on the twelve section-3 responses: qc, bq, wck, sc (None = unreadable).
PROBES = [
    (False, False, False, False),
    (False, True, False, False),
    (False, False, False, False),
    (True, False, False, False),
    (False, False, False, None),
    (False, True, False, False),
    (True, True, False, False),
    (False, False, False, False),
    (False, False, False, True),
    (False, True, False, False),
    (False, False, False, False),
    (True, False, False, True),
]
CATEGORY = {
    "qc": "questionable_cause",
    "bq": "begging_the_question",
    "wck": "wrong_context_knowledge",
    "sc": "self_contradictory",
}


def _write(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _section2_file(root: Path, dataset: str, setting: str, model: str) -> Path:
    n_correct, n_sc = POINTS[(dataset, setting, model)]
    rows = [
        [
            f"Question: {dataset} {setting} {model} {i}?",
            f"Answer: a{i}",
            str(int(i < n_correct)),
            str(int(i < n_sc)),
        ]
        for i in range(10)
    ]
    return _write(
        root / f"{dataset}_{setting}_{model}.csv", ["question", "result", "acc", "self-contra"], rows
    )


def _section3_rows() -> list[list[str]]:
    return [[f"Question: s3 {i}?", f"Answer: b{i}", *cells] for i, cells in enumerate(SECTION3)]


@pytest.fixture(scope="module")
def marts(tmp_path_factory):
    root = tmp_path_factory.mktemp("selfcontra_marts")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    db = root / "selfcontra.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        for dataset, setting, model in POINTS:
            store_import(con, read_annotation_csv(_section2_file(root, dataset, setting, model)))
        header = ["prompt", "result", "accuracy", "self-contra", "type", "finer-grained"]
        first = _write(root / "winobias_anti_test_gpt3.5.csv", header, _section3_rows())
        store_import(con, read_annotation_csv(first))
        second_rows = [row[:3] + [flag] for row, flag in zip(_section3_rows(), SECOND_FLAGS, strict=True)]
        second = _write(root / "annotator2.csv", header[:4], second_rows)
        store_import(
            con,
            read_annotation_csv(
                second, dataset="winobias", split="anti_test", model="gpt3.5", setting="few_answer"
            ),
        )
        now = dt.datetime(2026, 1, 1)
        for i, probes in enumerate(PROBES):
            con.execute(
                "INSERT INTO raw.detections VALUES (?, 'fge', 'scripted_judge', 'annotation', ?, 'winobias', "
                "'gpt3.5', 'few_answer', ?, NULL, NULL, NULL, ?, ?)",
                [
                    f"d{i}",
                    annotation_id(first.name, i + 1),
                    "unparsed" if None in probes else "ok",
                    json.dumps(dict(zip(CATEGORY, probes, strict=True))),
                    now,
                ],
            )
    finally:
        con.close()
    dbt_build(db, root)
    read = duckdb.connect(str(db), read_only=True)
    yield read
    read.close()
    mp.undo()


def _dicts(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def test_scr_keeps_the_section3_split_apart(marts) -> None:
    rows = _dicts(marts, "SELECT * FROM marts.selfcontra_scr WHERE split IS NOT NULL")
    assert [(r["dataset"], r["split"], r["model"], r["setting"], r["n"]) for r in rows] == [
        ("winobias", "anti_test", "gpt3.5", "few_answer", 12)
    ]
    assert rows[0]["n_self_contra"] == sum(r[1] == "1" for r in SECTION3) == 7
    assert marts.execute("SELECT count(*) FROM marts.selfcontra_scr WHERE split IS NULL").fetchone() == (
        len(POINTS),
    )


def test_categories_give_table5_and_table10_numbers(marts) -> None:
    rows = {
        r["category"]: r
        for r in _dicts(marts, "SELECT * FROM marts.selfcontra_categories WHERE split = 'anti_test'")
    }
    # Only the reference file has categories (the second annotator's file names none).
    n_sc, n_type1, n_type2 = 7, 3, 3
    em = rows["evidence_missing"]
    assert (em["n_cases"], em["n_self_contra_cases"], em["n_type_cases"], em["n_of_type"]) == (
        3,
        2,
        2,
        n_type1,
    )
    assert em["share_of_self_contra"] == round(2 / n_sc, 4)
    assert em["share_of_type"] == round(2 / n_type1, 4)
    assert em["share_of_all"] == round(3 / 12, 4)
    bq = rows["begging_the_question"]
    assert (bq["n_cases"], bq["n_self_contra_cases"], bq["n_type_cases"], bq["n_of_type"]) == (
        3,
        2,
        2,
        n_type2,
    )
    qc = rows["questionable_cause"]
    assert qc["share_of_type"] == round(2 / n_type2, 4) and qc["category_type"] == "type2"
    sc = rows["self_contradictory"]
    assert sc["category_type"] == "type3" and sc["share_of_type"] == 1.0
    assert {r["type3_share_of_self_contra"] for r in rows.values()} == {round(1 / n_sc, 4)}


def _pearson_p(points: list[tuple[float, float]]) -> tuple[float, float]:
    stats = pytest.importorskip("scipy.stats")
    result = stats.pearsonr([p[0] for p in points], [p[1] for p in points])
    return float(result[0]), float(result[1])


def test_correlation_per_model_and_answer_order_with_p_value(marts) -> None:
    rows = {
        (r["model"], r["answer_order"]): r
        for r in _dicts(marts, "SELECT * FROM marts.selfcontra_correlation")
    }
    points = {key: (c / 10, s / 10) for key, (c, s) in POINTS.items()}
    groups = {
        ("all", "all"): list(points.values()),
        ("all", "answer"): [v for k, v in points.items() if k[1].endswith("answer")],
        ("all", "reason"): [v for k, v in points.items() if k[1].endswith("reason")],
        ("mA", "all"): [v for k, v in points.items() if k[2] == "mA"],
        ("mB", "answer"): [v for k, v in points.items() if k[2] == "mB" and k[1].endswith("answer")],
    }
    for key, group in groups.items():
        r, p = _pearson_p(group)
        assert rows[key]["n_points"] == len(group), key
        assert rows[key]["pearson_r"] == pytest.approx(r, abs=1e-4), key
        assert rows[key]["p_value"] == pytest.approx(p, abs=1e-5), key
    # Two reason-first points per model: no test (p needs at least 3 points).
    assert rows[("mA", "reason")]["n_points"] == 2 and rows[("mA", "reason")]["p_value"] is None
    # The section-3 file's point is not one of them.
    assert "gpt3.5" not in {model for model, _ in rows}


def test_p_value_series_matches_scipy_for_every_df(tmp_path: Path) -> None:
    """The mart's t-distribution series, run on its own for df 1..40 and several t."""
    stats = pytest.importorskip("scipy.stats")
    sql = (paths.PACKAGE_ROOT / "benchmarks/selfcontra/dbt/marts/selfcontra_correlation.sql").read_text()
    start = sql.index("angles as (")
    end = sql.index("select t.model")
    body = "with tested as (select * from cases), " + sql[start:end]
    con = duckdb.connect()
    cases = [(f"m{df}_{t}", "all", df, float(t)) for df in range(1, 41) for t in (0.3, 1.0, 2.5, -4.0)]
    con.execute("CREATE TABLE cases (model VARCHAR, answer_order VARCHAR, df BIGINT, t DOUBLE)")
    con.executemany("INSERT INTO cases VALUES (?, ?, ?, ?)", cases)
    got = dict(con.execute(body + " select model, p_value from p").fetchall())
    for model, _, df, t in cases:
        assert got[model] == pytest.approx(2 * stats.t.sf(abs(t), df), abs=1e-9), (df, t)


def _alpha(pairs: list[tuple[str, str]]) -> float:
    """Krippendorff's alpha, nominal, two coders: from the coincidence matrix, as the textbook builds it."""
    coincidence: Counter[tuple[str, str]] = Counter()
    for a, b in pairs:
        coincidence[(a, b)] += 1
        coincidence[(b, a)] += 1
    n_c: Counter[str] = Counter()
    for (c, _), count in coincidence.items():
        n_c[c] += count
    n = sum(n_c.values())
    observed = sum(count for (c, k), count in coincidence.items() if c != k)
    expected = sum(n_c[c] * n_c[k] for c in n_c for k in n_c if c != k) / (n - 1)
    return 1 - observed / expected


def test_human_detection_and_krippendorff_alpha_from_two_annotation_files(marts) -> None:
    reference = [r[1] for r in SECTION3]
    tp = sum(a == "1" and b == "1" for a, b in zip(reference, SECOND_FLAGS, strict=True))
    fp = sum(a == "0" and b == "1" for a, b in zip(reference, SECOND_FLAGS, strict=True))
    fn = sum(a == "1" and b == "0" for a, b in zip(reference, SECOND_FLAGS, strict=True))
    (human,) = _dicts(marts, "SELECT * FROM marts.selfcontra_detection_f1 WHERE method = 'human'")
    assert (human["judge"], human["dataset"], human["split"], human["model"]) == (
        "annotator2.csv",
        "winobias",
        "anti_test",
        "gpt3.5",
    )
    assert (human["n"], human["tp"], human["fp"], human["fn"]) == (12, tp, fp, fn)
    assert human["f1"] == round(2 * tp / (2 * tp + fp + fn), 4)

    agreement = {r["annotation"]: r for r in _dicts(marts, "SELECT * FROM marts.selfcontra_agreement")}
    assert set(agreement) == {"self_contra", "type", "finer_grained"}
    sc = agreement["self_contra"]
    assert (sc["reference_source"], sc["other_source"], sc["n_units"]) == (
        "winobias_anti_test_gpt3.5.csv",
        "annotator2.csv",
        12,
    )
    assert sc["krippendorff_alpha"] == pytest.approx(
        _alpha(list(zip(reference, SECOND_FLAGS, strict=True))), abs=1e-4
    )
    assert sc["agreement"] == round(sum(a == b for a, b in zip(reference, SECOND_FLAGS, strict=True)) / 12, 4)
    # The second file names no category: it disagrees wherever the first names one.
    assert agreement["finer_grained"]["n_disagree"] == sum(bool(r[3]) for r in SECTION3)


def test_fge_probes_per_category_f1(marts) -> None:
    rows = {r["category"]: r for r in _dicts(marts, "SELECT * FROM marts.selfcontra_category_detection")}
    section = read_annotation_csv_rows()
    for i, probe in enumerate(CATEGORY):
        category = CATEGORY[probe]
        flagged = [p[i] for p in PROBES]
        actual = [category in cats or (probe == "sc" and type_ == "type3") for cats, type_ in section]
        tp = sum(bool(f) and a for f, a in zip(flagged, actual, strict=True))
        fp = sum(bool(f) and not a for f, a in zip(flagged, actual, strict=True))
        fn = sum(not f and a for f, a in zip(flagged, actual, strict=True))
        row = rows[category]
        assert (row["tp"], row["fp"], row["fn"], row["n_unparsed"]) == (
            tp,
            fp,
            fn,
            sum(f is None for f in flagged),
        ), category
        expected = None if tp + fn == 0 else round(2 * tp / (2 * tp + fp + fn), 4)
        assert row["f1"] == expected, category
    assert rows["wrong_context_knowledge"]["f1"] is None  # no such case in the data: Table 6's "-"


def read_annotation_csv_rows() -> list[tuple[list[str], str]]:
    """(categories, type) of the section-3 rows as the reader reads them (the marts' human labels)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        header = ["prompt", "result", "accuracy", "self-contra", "type", "finer-grained"]
        path = _write(Path(tmp) / "winobias_anti_test_gpt3.5.csv", header, _section3_rows())
        return [(row.categories, row.type) for row in read_annotation_csv(path).rows]
