"""A long `relreason sql` query across a run's dbt step: the run succeeds and builds the marts.

Issue 30 defect 2: a reader held the DuckDB file while it queried, so a dbt build that started
meanwhile failed with "Could not set lock on file" and the run exited 1.  Here a reader (the
`relreason sql` command in its own process) starts a query that runs for hours and is paused
(SIGSTOP) once it is querying, holding whatever it holds; then the run starts.  The run must
succeed and rebuild the marts, and the reader must still be mid-query when the run ends.  The
run uses a scripted model, so it calls nothing.

The same run checks where dbt's files go (defect 10): under ``$RELREASON_HOME/dbt``, never a new
folder in the checkout.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from relreason_dagster import paths
from tests.fakes.scripted_provider import register_scripted_provider, set_responder
from tests.pipeline_home import isolated_home, rows, scripted_models_yaml

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[3]
LONG_READ = "select sum(i) from range(100000000000000) t(i)"  # hours of work: the run ends first


def _open_files(pid: int) -> list[str]:
    fds = Path(f"/proc/{pid}/fd")
    found = []
    for fd in fds.iterdir() if fds.is_dir() else []:
        try:
            found.append(os.readlink(fd))
        except OSError:  # closed meanwhile
            pass
    return found


def _wait_until_querying(reader: subprocess.Popen, home: Path) -> None:
    """Until the reader has the results open (the file itself or a copy of it): it is then querying."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert reader.poll() is None, reader.communicate()
        if any(
            f.startswith(str(home)) and f.endswith(".duckdb") and "/.tmp-" not in f
            for f in _open_files(reader.pid)
        ):
            time.sleep(1.0)  # past opening: DuckDB is working on the query
            return
        time.sleep(0.1)
    pytest.fail("the reader never opened the results")


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to see the reader's open files")
def test_a_long_read_does_not_fail_the_runs_dbt_step(tmp_path, monkeypatch):
    from relreason_dagster.pipeline import LaunchOptions, run_models

    isolated_home(monkeypatch, tmp_path, scripted_models_yaml("steady"))
    # Bounded waits for a lock, so a reader that held the file fails the run in a minute, not 15.
    waits = LaunchOptions(lock_wait_s=60)
    register_scripted_provider()
    set_responder("steady", lambda messages, params: "So the answer is: yes.")
    first = run_models(["steady"], profile="smoke", benchmarks=["relational"], launch=waits)
    assert first.failures == []
    home = paths.relreason_home()

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    reader = subprocess.Popen(
        [sys.executable, "-m", "relreason_dagster.cli", "sql", LONG_READ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_until_querying(reader, home)
        # Paused mid-query: it keeps what it has open and costs no CPU while the run goes on.
        os.kill(reader.pid, signal.SIGSTOP)
        mart_before = rows("SELECT count(*) FROM marts.relational_f1")
        report = run_models(["steady"], profile="smoke", benchmarks=["relational"], rerun=True, launch=waits)
        still_reading = reader.poll() is None
    finally:
        reader.kill()
        out, err = reader.communicate()
    assert still_reading, f"the read ended before the run did: {out} {err}"
    assert report.failures == [], report.failures
    assert rows("SELECT count(*) FROM marts.relational_f1") == mart_before != [(0,)]

    # Each run's dbt build wrote its artifacts and its log under the home (dagster-dbt gives a build
    # one target folder, also its log folder), so none of them went to the checkout.
    builds = sorted((home / "dbt").glob("build-*"))
    assert len(builds) == 2, builds  # one per run
    results = json.loads((builds[-1] / "run_results.json").read_text())
    assert results["results"] and all(r["status"] in ("success", "pass") for r in results["results"])
    assert (builds[-1] / "dbt.log").is_file()
