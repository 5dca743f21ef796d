"""SIGKILL a process mid-way through a model partition; the rerun asks only what was not stored.

The child process runs the real pipeline (samples, prompts, model_responses,
parsed_answers) with a scripted model that answers slowly and logs every call
it receives to a file, so the parent knows when to kill and what was re-asked.
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

REPO = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent(
    """
    import hashlib, sys, time
    from tests.fakes.scripted_provider import register_scripted_provider, set_responder

    log_path = sys.argv[1]

    def slow_answer(messages, params):
        text = messages[-1]["content"]
        with open(log_path, "a") as fh:
            fh.write(hashlib.sha256(text.encode()).hexdigest() + "\\n")
        time.sleep(0.15)
        return "P" + str(int(hashlib.sha256(text.encode()).hexdigest(), 16) % 10) + " has father."

    register_scripted_provider()
    set_responder("slow", slow_answer)
    from relreason_dagster.pipeline import run_pipeline
    # relational only: its prompts have distinct texts, so one provider call is one prompt
    report = run_pipeline(["slow"], profile="smoke", benchmarks=["relational"], run_dbt=False)
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


def _run_child(home: Path, models: Path, log: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(log)],
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

    # Interrupted run: SIGKILL once a third of the calls have been made.
    home, log = tmp_path / "crash", tmp_path / "crash.log"
    child = _run_child(home, models, log)
    deadline = time.monotonic() + 300
    while len(_calls(log)) < n_prompts // 3:
        assert child.poll() is None, child.stdout.read()
        assert time.monotonic() < deadline, "child made no progress"
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=60)
    assert child.returncode == -signal.SIGKILL

    stored = {row[0] for row in _responses(home)}
    asked_before = len(_calls(log))
    assert 0 < len(stored) < n_prompts

    # Resume: only prompts without a stored response are asked again.
    child = _run_child(home, models, log)
    out, _ = child.communicate(timeout=600)
    assert child.returncode == 0, out
    asked_again = _calls(log)[asked_before:]
    assert len(asked_again) == n_prompts - len(stored)
    assert len(set(asked_again)) == len(asked_again)

    # Same rows as the uninterrupted run (content, hash, no error), none twice.
    assert _responses(home) == reference
