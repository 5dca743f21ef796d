"""The studies' published numbers: each registered family's ``published.csv`` read into
``raw.study_reference`` (storage/study_reference.py) and kept up to date by the ``published_numbers``
asset's loader (defs/study_reference.py), on a temporary DuckDB file.

The toy family (``tests/toy_family/``) ships a CSV of made-up numbers; it is registered here the way
any family is, so the loader is shown to find a file in a folder it has never heard of.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from relreason_dagster.benchmarks.base import PUBLISHED_COLUMNS
from relreason_dagster.benchmarks.registry import family_published, published_files, register, unregister
from relreason_dagster.errors import ConfigError
from relreason_dagster.storage import study_reference as reference
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.schema import ensure_schema
from tests.toy_family.family import ToyFamily

TOY_CSV = Path(__file__).resolve().parents[2] / "toy_family" / "published.csv"
HEADER = ",".join(PUBLISHED_COLUMNS)


@pytest.fixture
def toy():
    register(ToyFamily())
    yield "toy"
    unregister("toy")


@pytest.fixture
def con(tmp_path):
    c = duckdb.connect(str(tmp_path / "ref.duckdb"))
    ensure_schema(c, Lake.open(tmp_path / "lake"))
    yield c
    c.close()


def _write(path: Path, *lines: str) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_registry_finds_a_family_s_csv_in_its_folder(toy):
    assert family_published("toy") == TOY_CSV
    assert published_files()["toy"] == TOY_CSV


def test_rows_keep_numbers_nulls_and_extra_keys():
    rows = reference.read_published("toy", TOY_CSV)
    assert [(r["model"], r["value"], r["printed"]) for r in rows] == [
        ("Parity Oracle", 1.0, "100.0"),
        ("Coin Flipper", 0.5, "50.0"),
        ("Shy Model", None, "N/A"),  # an N/A cell is null, never 0
    ]
    first = rows[0]
    assert (first["n"], first["length"], first["category"], first["line"]) == (8, None, None, 2)
    assert json.loads(first["keys"]) == {"difficulty": "easy"}
    assert json.loads(rows[2]["keys"]) == {}


def test_comparability_is_read_into_its_own_columns_not_the_keys(tmp_path):
    path = _write(
        tmp_path / "published.csv",
        HEADER + ",comparable,why_not,difficulty",
        "toy,T1,a,,,,,,,,,,acc,0.5,50,,,,easy",
        "toy,T1,b,,,,,,,,,,acc,0.5,50,,false,the study's pool is other items,hard",
    )
    rows = reference.read_published("toy", path)
    assert [(r["comparable"], r["why_not"]) for r in rows] == [
        (True, None),
        (False, "the study's pool is other items"),
    ]
    assert [json.loads(r["keys"]) for r in rows] == [{"difficulty": "easy"}, {"difficulty": "hard"}]


def test_a_misprint_is_its_own_column_with_evidence_and_not_comparable(con, tmp_path, monkeypatch):
    """``misprint`` (empty: false) is read into its own column, never a key, and stored."""
    from relreason_dagster.defs import study_reference as asset

    path = _write(
        tmp_path / "published.csv",
        HEADER + ",comparable,why_not,misprint",
        "toy,T1,a,,,,,,,,,,acc,0.5,50,,,,",
        "toy,T1,b,,,,,,,,,,acc,0.2,20,the total gives 0.25,false,misprint: printed 20,true",
    )
    rows = reference.read_published("toy", path)
    assert [(r["misprint"], r["comparable"], r["keys"]) for r in rows] == [
        (False, True, "{}"),
        (True, False, "{}"),
    ]
    monkeypatch.setattr(asset, "published_files", lambda: {"toy": path})
    asset.load_study_reference(con)
    stored = con.execute(
        "SELECT model, misprint, comparable FROM raw.study_reference ORDER BY line"
    ).fetchall()
    assert stored == [("a", False, True), ("b", True, False)]


@pytest.mark.parametrize(
    ("lines", "says"),
    [
        (["family,source,model"], "header must start with"),
        ([HEADER, "toy,T1,m,acc,0.5,50,"], "fields for"),
        ([HEADER, "toy,T1,m,,,,,,ten,,,,acc,0.5,50,"], "n 'ten' is not a whole number"),
        ([HEADER, "toy,T1,m,,,,,,,,,,acc,50%,50%,"], "value '50%' is not a number"),
        ([HEADER, "toy,T1,,,,,,,,,,,acc,0.5,50,"], "model is empty"),
        ([HEADER, "kor,T1,m,,,,,,,,,,acc,0.5,50,"], "family 'kor' in the file of family 'toy'"),
        ([HEADER + ",note"], "a name of its own"),
        ([HEADER + ",comparable,why_not", "toy,T1,m,,,,,,,,,,acc,0.5,50,,maybe,"], "must be true, false"),
        ([HEADER + ",comparable,why_not", "toy,T1,m,,,,,,,,,,acc,0.5,50,,false,"], "say in one line why"),
        ([HEADER + ",comparable,why_not", "toy,T1,m,,,,,,,,,,acc,0.5,50,,true,x"], "on a comparable row"),
        ([HEADER + ",misprint", "toy,T1,m,,,,,,,,,,acc,0.5,50,,yes"], "misprint 'yes' must be true"),
        ([HEADER + ",misprint", "toy,T1,m,,,,,,,,,,acc,0.5,50,,true"], "give the evidence there"),
        ([HEADER + ",misprint", "toy,T1,m,,,,,,,,,,acc,0.5,50,total says 0.4,true"], "set comparable false"),
    ],
)
def test_a_malformed_file_is_one_line_naming_the_fix(tmp_path, lines, says):
    path = _write(tmp_path / "published.csv", *lines)
    with pytest.raises(ConfigError, match=says) as err:
        reference.read_published("toy", path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)


def test_loading_replaces_a_family_s_rows_only_when_its_file_changed(con, tmp_path, monkeypatch):
    from relreason_dagster.defs import study_reference as asset

    path = _write(tmp_path / "published.csv", HEADER, "toy,T1,m,,,,,,,,,,acc,0.5,50,")
    monkeypatch.setattr(asset, "published_files", lambda: {"toy": path})
    assert asset.load_study_reference(con)["read"] == ["toy"]
    assert con.execute("SELECT model, value FROM raw.study_reference").fetchall() == [("m", 0.5)]
    assert asset.load_study_reference(con) == {"read": [], "kept": ["toy"], "dropped_rows": 0}
    _write(path, HEADER, "toy,T1,m,,,,,,,,,,acc,0.25,25,", "toy,T1,m2,,,,,,,,,,acc,,N/A,")
    assert asset.load_study_reference(con)["read"] == ["toy"]
    assert con.execute("SELECT model, value FROM raw.study_reference ORDER BY line").fetchall() == [
        ("m", 0.25),
        ("m2", None),
    ]
    # A family that no longer ships a file (or is no longer registered) leaves no rows behind.
    monkeypatch.setattr(asset, "published_files", lambda: {})
    assert asset.load_study_reference(con)["dropped_rows"] == 2
    assert con.execute("SELECT count(*) FROM raw.study_reference").fetchone() == (0,)
    records = con.execute("SELECT count(*) FROM raw.built_from WHERE asset = ?", [asset.ASSET]).fetchone()
    assert records == (0,)


def test_every_registered_family_s_file_reads():
    """The families' own files (once they ship one) follow the format: a slip fails here, not in a run."""
    for family, path in published_files().items():
        rows = reference.read_published(family, path)
        assert rows, path
