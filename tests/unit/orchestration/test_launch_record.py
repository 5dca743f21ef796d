"""The launch fingerprint changes with every input of a launch and with nothing else.

A skipped launch is only correct if whatever could change its results changes the fingerprint: the
stored data (lake, DuckDB file, checkpoints), the settings (environment, model registry, reference
data) and the launch itself.  What a launch writes but never reads (the HTML report, logs, the
Dagster run history, the record) must not, or a second identical launch would always run.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from relreason_dagster.storage import fingerprints, launch_record

KEY = {"command": "run", "models": ["m"], "profile": "smoke"}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for name in ("lake/responses/model=m/part-0.parquet", "relreason.duckdb", "dlm/HasFather/seed0.pt"):
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_bytes(b"stored")
    models = tmp_path / "models.yaml"
    models.write_text("models:\n  - name: m\n    litellm_model: scripted/m\n")
    reference = tmp_path / "reference"
    (reference / "kor").mkdir(parents=True)
    (reference / "kor" / "rules.json").write_text("[]")
    for name in [n for n in os.environ if n.startswith("RELREASON_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("RELREASON_HOME", str(home))
    monkeypatch.setenv("RELREASON_MODELS", str(models))
    monkeypatch.setenv("RELREASON_REFERENCE_DIR", str(reference))
    return home


def _append(path: Path, data: bytes = b"+") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as f:
        f.write(data)


def test_what_a_launch_only_writes_leaves_the_fingerprint_alone(home):
    first = launch_record.fingerprint(KEY)
    assert first is not None and launch_record.fingerprint(KEY) == first
    for written in ("report/report.html", "logs/dbt.log", "dagster/storage/runs.db"):
        _append(home / written)
    launch_record.write_record(first, {"runs": []}, 1.0)
    assert launch_record.fingerprint(KEY) == first
    assert launch_record.read_record() == {"fingerprint": first, "finished": 1.0, "report": {"runs": []}}


@pytest.mark.parametrize(
    "change",
    [
        "lake file",
        "new lake file",
        "duckdb file",
        "checkpoint",
        "environment",
        "model registry",
        "reference data",
        "code",
        "launch",
    ],
)
def test_every_input_changes_the_fingerprint(home, change, monkeypatch, tmp_path):
    key = dict(KEY)
    code = tmp_path / "code"
    _append(code / "family" / "parse.py", b"ANSWER = 1\n")
    roots = [*fingerprints.code_roots(), code]
    monkeypatch.setattr(fingerprints, "code_roots", lambda: roots)
    first = launch_record.fingerprint(key)
    if change == "lake file":
        _append(home / "lake/responses/model=m/part-0.parquet")
    elif change == "new lake file":
        _append(home / "lake/responses/model=m/part-1.parquet", b"stored")
    elif change == "duckdb file":
        _append(home / "relreason.duckdb")
    elif change == "checkpoint":
        _append(home / "dlm/HasFather/seed0.pt")
    elif change == "environment":
        monkeypatch.setenv("RELREASON_MAX_CONCURRENT_RUNS", "1")
    elif change == "model registry":
        _append(Path(os.environ["RELREASON_MODELS"]), b"    params: {temperature: 0}\n")
    elif change == "reference data":
        _append(Path(os.environ["RELREASON_REFERENCE_DIR"]) / "kor" / "more.json", b"[]")
    elif change == "code":
        _append(code / "family" / "parse.py", b"ANSWER = 2\n")
    else:
        key["models"] = ["m", "dlm"]
    assert launch_record.fingerprint(key) != first


def test_a_lake_outside_the_home_is_listed_and_a_remote_one_always_runs(home, tmp_path, monkeypatch):
    lake = tmp_path / "shared_lake"
    _append(lake / "responses" / "part-0.parquet", b"stored")
    monkeypatch.setenv("RELREASON_LAKE", str(lake))
    first = launch_record.fingerprint(KEY)
    _append(lake / "responses" / "part-0.parquet")
    assert launch_record.fingerprint(KEY) != first
    monkeypatch.setenv("RELREASON_LAKE", "s3://bucket/relreason")
    assert launch_record.fingerprint(KEY) is None


def test_an_unreadable_record_is_no_record(home):
    assert launch_record.read_record() is None
    (home / launch_record.RECORD_NAME).write_text("{not json")
    assert launch_record.read_record() is None
