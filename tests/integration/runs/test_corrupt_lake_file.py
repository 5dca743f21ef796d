"""One damaged lake file of one model no longer blocks every model.

Before: truncating any response Parquet file made every model's responses unreadable (``raw.responses``
reads all models' files at once, and the gateway's cache look-up reads across models), so a run of
ANOTHER model failed with hundreds of lines of traceback and `relreason report` crashed.  Now the file
is moved aside into ``<lake>/_quarantine/`` with one line saying which file, why and where it went;
`relreason status` lists it, and the next run of its model asks again exactly the prompts it held.

Scripted models (``tests/fakes/scripted_provider.py``, named as such: no real model) count their calls.
"""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest

from relreason_dagster import paths
from relreason_dagster.cli import main
from relreason_dagster.storage.lake import QUARANTINE_DIR, Lake
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls
from tests.pipeline_home import isolated_home, rows, scripted_models_yaml

pytestmark = pytest.mark.integration


def test_a_truncated_file_is_quarantined_and_its_prompts_asked_again(tmp_path, monkeypatch, capfd):
    register_scripted_provider()
    isolated_home(monkeypatch, tmp_path, scripted_models_yaml("first", "other", concurrency=4))
    from relreason_dagster.pipeline import run_models

    report = run_models(["first"], profile="smoke", benchmarks=["relational"], run_dbt=False)
    assert report.failures == []
    lake = Lake.default()
    files = lake.files("responses", {"model": "first"})
    assert files
    damaged = files[0]
    held = set(pq.read_table(damaged, columns=["prompt_id"]).column(0).to_pylist())
    assert held
    with open(damaged, "r+b") as fh:  # what a crash of the disk or a careless copy leaves
        fh.truncate(os.path.getsize(damaged) // 2)

    # ANOTHER model's run: it succeeds, and says in one line what it moved where.
    capfd.readouterr()
    reset_calls()
    report = run_models(["other"], profile="smoke", benchmarks=["relational"], run_dbt=False)
    _out, err = capfd.readouterr()
    assert report.failures == [], report.failures
    assert call_count("other") > 0 and call_count("first") == 0
    lines = [line for line in err.splitlines() if "damaged lake file" in line]
    moved_to = f"{lake.root}/{QUARANTINE_DIR}/{damaged[len(lake.root) + 1 :]}"
    assert len(lines) == 1 and damaged in lines[0] and moved_to in lines[0], lines
    assert "magic bytes" in lines[0] or "Parquet" in lines[0], lines[0]  # why
    assert report.quarantined == lines
    assert os.path.exists(moved_to) and not os.path.exists(damaged)
    assert len(lines[0].splitlines()) == 1 and "Traceback" not in err

    # status lists it; report reads every model's answers again.
    assert main(["status"]) == 0
    out, _err = capfd.readouterr()
    section = out.split("== damaged lake files", 1)[1].split("\n== ", 1)[0]
    assert damaged in section and moved_to in section, section
    assert main(["report", "--out", str(tmp_path / "report")]) == 0
    capfd.readouterr()

    # The first model's next run asks again exactly the prompts the damaged file held.
    reset_calls()
    report = run_models(["first"], profile="smoke", benchmarks=["relational"], run_dbt=False)
    assert report.failures == []
    assert call_count("first") == len(held), (call_count("first"), len(held))
    stored = {p for (p,) in rows("SELECT prompt_id FROM raw.responses WHERE model = 'first'")}
    assert held <= stored
    assert paths.duckdb_path().exists()
