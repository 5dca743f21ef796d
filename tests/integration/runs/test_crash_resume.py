"""SIGKILL a process mid-way through a model partition; the rerun asks only what was not stored.

The child process runs the real pipeline (samples, prompts, model_responses,
parsed_answers) with a scripted model that logs every call it receives to a
file, so the parent knows what was re-asked.  In the run to be killed, the
model stops answering (blocks) at its ``block_at``-th call: the parent kills
a child that is certainly mid-way, however slow or fast the machine is, so
no assertion depends on when the kill lands.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import duckdb
import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[3]

CHILD = textwrap.dedent(
    """
    import hashlib, sys, time
    from tests.fakes.scripted_provider import register_scripted_provider, set_responder

    log_path, block_at = sys.argv[1], int(sys.argv[2])
    calls = 0

    def slow_answer(messages, params):
        global calls
        calls += 1
        text = messages[-1]["content"]
        with open(log_path, "a") as fh:
            fh.write(hashlib.sha256(text.encode()).hexdigest() + "\\n")
        while calls == block_at:  # the run to be killed hangs here until SIGKILL
            time.sleep(1)
        time.sleep(0.02)
        return "P" + str(int(hashlib.sha256(text.encode()).hexdigest(), 16) % 10) + " has father."

    register_scripted_provider()
    set_responder("slow", slow_answer)
    from relreason_dagster.pipeline import run_models
    # relational only: its prompts have distinct texts, so one provider call is one prompt
    report = run_models(["slow"], profile="smoke", benchmarks=["relational"], run_dbt=False)
    print("CALLS", report.total_calls, "FAILURES", len(report.failures))
    """
)

MODELS_YAML = """\
models:
  - name: slow
    litellm_model: scripted/slow
    concurrency: 2
"""


def _env(home: Path, models: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "RELREASON_DUCKDB")}
    env.update(RELREASON_HOME=str(home), RELREASON_MODELS=str(models), PYTHONPATH=str(REPO))
    return env


def _calls(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


def _responses(home: Path) -> list[tuple]:
    con = duckdb.connect(str(home / "relreason.duckdb"), read_only=True)
    try:
        return con.execute(
            "SELECT prompt_id, model, request_hash, content, error FROM raw.responses ORDER BY prompt_id"
        ).fetchall()
    finally:
        con.close()


def _run_child(home: Path, models: Path, log: Path, block_at: int = 0) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(log), str(block_at)],
        cwd=REPO,
        env=_env(home, models),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_sigkill_then_resume_matches_uninterrupted_run(tmp_path):
    models = tmp_path / "models.yaml"
    models.write_text(MODELS_YAML)

    # Uninterrupted reference run.
    ref_home, ref_log = tmp_path / "ref", tmp_path / "ref.log"
    child = _run_child(ref_home, models, ref_log)
    out, _ = child.communicate(timeout=600)
    assert child.returncode == 0, out
    reference = _responses(ref_home)
    n_prompts = len(reference)
    assert n_prompts > 20 and len(_calls(ref_log)) == n_prompts

    # Interrupted run: the model blocks at a third of the calls; SIGKILL it there.
    home, log = tmp_path / "crash", tmp_path / "crash.log"
    block_at = n_prompts // 3
    child = _run_child(home, models, log, block_at=block_at)
    deadline = time.monotonic() + 600  # only a stalled machine takes this long; then the test fails
    while len(_calls(log)) < block_at:
        assert child.poll() is None, child.stdout.read()
        assert time.monotonic() < deadline, "child made no progress"
        time.sleep(0.1)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL

    stored = {row[0] for row in _responses(home)}
    asked_before = len(_calls(log))
    assert asked_before == block_at  # the blocked call was the last one made
    # The first answer is written at once (later ones within 0.1 s); the blocked call never is.
    assert 0 < len(stored) < block_at

    # Resume: only prompts without a stored response are asked again.
    child = _run_child(home, models, log)
    out, _ = child.communicate(timeout=600)
    assert child.returncode == 0, out
    asked_again = _calls(log)[asked_before:]
    assert len(asked_again) == n_prompts - len(stored)
    assert len(set(asked_again)) == len(asked_again)

    # Same rows as the uninterrupted run (content, hash, no error), none twice.
    assert _responses(home) == reference
