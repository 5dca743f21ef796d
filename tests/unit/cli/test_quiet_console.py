"""A run started by relreason prints no Dagster DEBUG line, unless ``-v`` (issue 37, item 9).

`make demo` printed ``dagster - DEBUG - ... STEP_WORKER_STARTED - Executing step "..." in
subprocess.`` once per step: the multiprocess executor's step process announces itself through a
console logger built from the instance (``python_logs`` in the dagster.yaml relreason writes), not
from the run config's.  The test runs a two-step job on the multiprocess executor, as the pipeline
does, in a process of its own whose stderr it reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from relreason_dagster import paths
from relreason_dagster.defs.launcher import console_logs

JOB = """
import json
import sys
import dagster as dg
from relreason_dagster.env import ensure_dagster_home


@dg.op
def first() -> int:
    print("first step ran", file=sys.stderr, flush=True)
    return 1


@dg.op
def second(value: int) -> None:
    print(f"second step got {value}", file=sys.stderr, flush=True)


@dg.job(executor_def=dg.multiprocess_executor)
def two_steps():
    second(first())


if __name__ == "__main__":
    from pathlib import Path

    ensure_dagster_home(Path(sys.argv[1]))
    with dg.DagsterInstance.get() as instance:
        result = dg.execute_job(
            dg.reconstructable(two_steps), instance=instance, run_config=json.loads(sys.argv[2])
        )
    sys.exit(0 if result.success else 1)
"""


def _run(tmp_path: Path, verbose: bool) -> str:
    script = tmp_path / "two_steps.py"
    script.write_text(JOB)
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(paths.REPO_ROOT), env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "home"), json.dumps(console_logs(verbose))],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "first step ran" in done.stderr and "second step got 1" in done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("verbose", [False, True])
def test_debug_lines_only_with_verbose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verbose: bool
) -> None:
    output = _run(tmp_path, verbose)
    debug = [line for line in output.splitlines() if " - DEBUG - " in line]
    if verbose:
        assert debug  # the same job does print them when asked to: the quiet case is not vacuous
    else:
        assert debug == []
