"""Readers on a home without results create nothing and say, in one line, what is missing.

Issue 30 defect 10: `relreason sql` on a missing home created an empty home and said "no results
yet" even when a lake with answers was there.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pyarrow as pa
import pytest

from relreason_dagster.cli import main
from relreason_dagster.defs.dbt import prune_build_folders
from relreason_dagster.storage.lake import Lake


@pytest.fixture
def env(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    for name in ("RELREASON_LAKE", "RELREASON_DUCKDB"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def _one_line_error(capsys, args: list[str]) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _store_answer(lake_url: Path, model: str) -> None:
    Lake.open(lake_url).append(
        "responses",
        pa.table(
            {
                "prompt_id": ["p1"],
                "model": [model],
                "benchmark": ["relational"],
                "content": ["yes"],
                "created_at": pa.array([datetime(2026, 1, 1)], pa.timestamp("us")),
            }
        ),
    )


@pytest.mark.parametrize("command", [["sql", "select 1"], ["samples"]])
def test_a_missing_home_is_named_and_not_created(env, capsys, command):
    err = _one_line_error(capsys, command)
    assert f"RELREASON_HOME={env / 'home'} does not exist" in err
    assert "relreason run --model M" in err
    assert not (env / "home").exists()


def test_a_lake_without_results_file_says_how_to_rebuild(env, capsys, monkeypatch):
    lake = env / "shared-lake"
    _store_answer(lake, "gpt/x 1")  # a name that needs quoting in its folder
    monkeypatch.setenv("RELREASON_LAKE", str(lake))
    err = _one_line_error(capsys, ["sql", "select 1"])
    assert f"the lake {lake} holds answers of gpt/x 1" in err
    assert "relreason run --model gpt/x 1`" in err and "without asking the models again" in err
    assert not (env / "home").exists()


def test_a_deleted_results_file_beside_its_lake(env, capsys):
    home = env / "home"
    _store_answer(home / "lake", "m1")
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    err = _one_line_error(capsys, ["sql", "select count(*) from raw.responses"])
    assert f"no results yet at {home / 'relreason.duckdb'}" in err and "relreason run --model m1`" in err
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before  # nothing made


def test_dbt_build_folders_are_bounded(tmp_path):
    root = tmp_path / "dbt"
    for i in range(6):
        (root / f"build-2026010{i}-000000-run{i}").mkdir(parents=True)
    (root / "other").mkdir()
    prune_build_folders(root, 2)
    assert sorted(p.name for p in root.iterdir()) == [
        "build-20260104-000000-run4",
        "build-20260105-000000-run5",
        "other",
    ]
