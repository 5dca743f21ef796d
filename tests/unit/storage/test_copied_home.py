"""A results home copied to a new folder reads its own lake (issue 37, item 2).

``raw.responses`` is a view whose SQL holds the lake's absolute path.  After ``cp -r`` of a home,
`relreason sql` in the copy read the *old* home's lake: answers stored there later showed up in the
copy, and answers stored in the copy did not.
"""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from relreason_dagster import paths
from relreason_dagster.cli import main
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.schema import ensure_schema


def _answer(lake: Path, model: str) -> None:
    Lake.open(lake).append(
        "responses",
        pa.table(
            {
                "prompt_id": [f"p-{model}"],
                "model": [model],
                "benchmark": ["relational"],
                "content": ["yes"],
                "created_at": pa.array([datetime(2026, 1, 1)], pa.timestamp("us")),
            }
        ),
    )


def _models(capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["sql", "select model from raw.responses order by model", "--json"]) == 0
    return [row["model"] for row in json.loads(capsys.readouterr().out)]


@pytest.fixture
def first_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("RELREASON_LAKE", "RELREASON_DUCKDB"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "first"
    home.mkdir()
    con = duckdb.connect(str(home / paths.DUCKDB_NAME))
    try:
        ensure_schema(con, Lake.open(home / "lake"))  # what a run leaves: the view names home/lake
    finally:
        con.close()
    _answer(home / "lake", "stored-before-copy")
    return home


def test_sql_in_a_copied_home_reads_only_the_copys_lake(first_home, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RELREASON_HOME", str(first_home))
    assert _models(capsys) == ["stored-before-copy"]  # leaves a read copy in the home, copied too

    copy = tmp_path / "elsewhere" / "copy"
    shutil.copytree(first_home, copy)
    _answer(first_home / "lake", "only-in-first")
    _answer(copy / "lake", "only-in-copy")

    monkeypatch.setenv("RELREASON_HOME", str(copy))
    assert _models(capsys) == ["only-in-copy", "stored-before-copy"]

    # A model stored after that query shows at once; the first home going away changes nothing.
    shutil.rmtree(first_home)
    _answer(copy / "lake", "new-model")
    assert _models(capsys) == ["new-model", "only-in-copy", "stored-before-copy"]


def test_a_moved_home_reads_its_lake(first_home, tmp_path, monkeypatch, capsys):
    moved = tmp_path / "moved"
    first_home.rename(moved)
    monkeypatch.setenv("RELREASON_HOME", str(moved))
    assert _models(capsys) == ["stored-before-copy"]
