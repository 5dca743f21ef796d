"""`relreason status` answers in every state an instance can be in, summary first, never a traceback.

States built here: no home, an empty home, a corrupt Dagster instance folder, the DuckDB file held
by a writer in another process, a run whose step failed (its check planned, never evaluated), and a
run in progress that is then killed with SIGKILL.  The run states come from small ad-hoc jobs on the
home's real Dagster instance that reuse a real asset and check name (``samples`` /
``label_balance_check``), so status reads them exactly as it would read the pipeline's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from relreason_dagster.cli import main

SUMMARY = ["== answers stored", "== recent runs ==", "== failed checks ==", "== assets ==", "== checks =="]
# A generous limit for a subprocess to reach a state; the tests never assert how fast anything is.
WAIT_S = 240.0


@pytest.fixture
def home(tmp_path, monkeypatch):
    """RELREASON_HOME under the test's folder (not created), no inherited DAGSTER_HOME."""
    path = tmp_path / "home"
    monkeypatch.setenv("RELREASON_HOME", str(path))
    # status sets these for its process (as every command does); set here so they are undone after.
    for name in ("DAGSTER_HOME", "RELREASON_DUCKDB", "RELREASON_PROFILE"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    return path


def _status(capsys) -> str:
    code = main(["status"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.out + captured.err
    return captured.out


def _assert_summary_first(out: str) -> None:
    where = [out.index(title) for title in SUMMARY]
    assert where == sorted(where), out


def _section(out: str, title: str) -> str:
    start = out.index(f"== {title}")
    end = out.find("\n== ", start + 1)
    return out[start : end if end >= 0 else None]


def test_no_home_says_so_and_creates_nothing(home, capsys):
    out = _status(capsys)
    assert "does not exist" in out and "relreason run" in out
    assert not home.exists()


def test_empty_home_prints_every_section(home, capsys):
    home.mkdir()
    out = _status(capsys)
    _assert_summary_first(out)
    assert "no results yet" in _section(out, "answers stored")
    assert "(no runs yet)" in _section(out, "recent runs")
    assert "(none)" in _section(out, "failed checks")
    assert "label_balance_check" in _section(out, "checks") and "never run" in _section(out, "checks")


def test_corrupt_instance_folder_leaves_the_answers_readable(home, capsys):
    from relreason_dagster import paths
    from relreason_dagster.storage.duckdb_io import connect

    home.mkdir()
    connect(paths.duckdb_path()).close()  # an empty results file with the raw schema
    dagster_home = home / "dagster"
    dagster_home.mkdir()
    # A dagster.yaml the user wrote (relreason leaves it alone), broken; and a database that is not one.
    (dagster_home / "dagster.yaml").write_text("storage: [unclosed\n  - : :\n")
    out = _status(capsys)
    _assert_summary_first(out)
    assert "(no answers yet" in _section(out, "answers stored")
    for title in ("recent runs", "failed checks", "assets", "checks"):
        assert "(unavailable: " in _section(out, title)
    assert "parsed_answers" in _section(out, "rows")

    (dagster_home / "dagster.yaml").unlink()
    (dagster_home / "history").mkdir()
    (dagster_home / "history" / "runs.db").write_bytes(b"not a sqlite database\0" * 64)
    out = _status(capsys)
    assert "(unavailable: " in _section(out, "recent runs")
    assert "parsed_answers" in _section(out, "rows")


def test_duckdb_file_held_by_a_writer(home, capsys):
    from relreason_dagster import paths
    from relreason_dagster.storage.duckdb_io import connect

    home.mkdir()
    path = paths.duckdb_path()
    connect(path).close()
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
            "time.sleep(600)",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().strip() == "ready"
        out = _status(capsys)
    finally:
        writer.kill()
        writer.wait()
    _assert_summary_first(out)
    assert "held by another process" in _section(out, "answers stored")
    assert "held by another process" in _section(out, "rows")
    assert "(no runs yet)" in _section(out, "recent runs")


def _fake_pipeline_job(fail: bool) -> str:
    """Source of a job on asset ``samples`` with check ``label_balance_check``: it fails, or it waits."""
    from relreason_dagster.defs.launcher import HOST_TAG, PID_TAG

    body = "raise RuntimeError('boom: the samples step failed')" if fail else "time.sleep(600)"
    return textwrap.dedent(
        f"""
        import os, socket, time
        import dagster as dg

        @dg.asset(name="samples")
        def samples():
            {body}

        @dg.asset_check(asset="samples", name="label_balance_check")
        def label_balance_check():
            return dg.AssetCheckResult(passed=True)

        dg.materialize(
            [samples, label_balance_check],
            instance=dg.DagsterInstance.get(),
            raise_on_error=False,
            tags={{{PID_TAG!r}: str(os.getpid()), {HOST_TAG!r}: socket.gethostname()}},
        )
        """
    )


def _dagster_env(home: Path) -> dict[str, str]:
    from relreason_dagster.defs.instance import ensure_instance

    return {**os.environ, "DAGSTER_HOME": str(ensure_instance(home))}


def test_failed_step_and_its_planned_check(home, capsys):
    home.mkdir()
    env = _dagster_env(home)
    subprocess.run([sys.executable, "-c", _fake_pipeline_job(fail=True)], env=env, check=True, timeout=WAIT_S)
    out = _status(capsys)
    _assert_summary_first(out)
    runs = _section(out, "recent runs")
    assert "FAILURE" in runs and "step samples failed:" in runs and "boom" in runs
    failed = _section(out, "failed checks")
    assert "label_balance_check" in failed and "not evaluated" in failed


def test_run_in_progress_then_killed(home, capsys):
    import dagster as dg

    home.mkdir()
    env = _dagster_env(home)
    run = subprocess.Popen([sys.executable, "-c", _fake_pipeline_job(fail=False)], env=env)
    try:
        instance = dg.DagsterInstance.from_config(env["DAGSTER_HOME"])
        deadline = time.monotonic() + WAIT_S
        started = False
        while time.monotonic() < deadline and run.poll() is None:
            runs = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
            if runs and any(
                e.dagster_event and e.dagster_event.is_step_start for e in instance.all_logs(runs[0].run_id)
            ):
                started = True
                break
            time.sleep(0.5)
        assert started, "the fake run never started"
        out = _status(capsys)
        _assert_summary_first(out)
        assert "STARTED" in _section(out, "recent runs")
        assert "(process gone)" not in out
        assert "running" in _section(out, "checks")
    finally:
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
    out = _status(capsys)
    assert "STARTED (process gone)" in _section(out, "recent runs")
    assert "planned (process gone)" in _section(out, "checks")
