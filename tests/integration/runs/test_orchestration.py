"""The pipeline as users run it: `relreason run` in its own process, the default multiprocess executor.

* Two models run at the same time (the fake server holds every request until both models have
  asked, so overlap is observed, not timed) and store the same rows as one after the other.
* While a run is calling a model, `relreason sql` and `relreason status` answer from other
  processes, with growing counts and never a lock error.

The models are real LiteLLM ``openai/...`` entries against a local fault-free fake OpenAI server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[3]


def models_yaml(api_base: str, names: list[str], concurrency: int = 4, workers: int = 1) -> str:
    entries = "".join(
        f"""  - name: {name}
    litellm_model: openai/fake-{name}
    api_base: {api_base}
    api_key_env: RELREASON_TEST_FAKE_KEY
    params: {{temperature: 0}}
    concurrency: {concurrency}
    workers: {workers}
    timeout_s: 300
"""
        for name in names
    )
    return "models:\n" + entries


def env_for(root: Path, models: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "RELREASON_DUCKDB", "RELREASON_LAKE")
    }
    env.update(
        RELREASON_HOME=str(root / "home"),
        RELREASON_MODELS=str(models),
        RELREASON_TEST_FAKE_KEY="sk-test",
        RELREASON_EXECUTOR="multiprocess",
        PYTHONPATH=str(REPO),
    )
    env.update(extra)
    return env


def relreason(args: list[str], env: dict[str, str], timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "relreason_dagster.cli", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def lake_rows(home: Path, sql: str) -> list[tuple]:
    """Rows straight from the lake's Parquet files (every stored version, not the latest-row view)."""
    glob = str(home / "lake" / "responses" / "**" / "*.parquet")
    con = duckdb.connect()
    try:
        return con.execute(sql.replace("LAKE", f"read_parquet('{glob}', union_by_name = true)")).fetchall()
    finally:
        con.close()


def db_rows(home: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(home / "relreason.duckdb"), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


RUN = ["run", "--profile", "smoke", "--benchmark", "relational"]


# Four whole runs (two at once, then one after the other): 191 s in CI beside the other xdist worker;
# 1200 s keeps that within a fifth (tests/timeout_budget.py).
@pytest.mark.timeout(1200)
def test_two_models_run_at_the_same_time_and_store_what_one_after_the_other_does(tmp_path):
    with FakeOpenAIServer(delay_s=0.05, meet_models=2, meet_timeout_s=180) as server:
        models = tmp_path / "models.yaml"
        models.write_text(models_yaml(server.api_base, ["alpha", "beta"]))
        together = env_for(tmp_path / "together", models)
        done = relreason([*RUN, "--model", "alpha", "--model", "beta"], together)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.met.is_set(), "the two models' requests never were in flight at the same time"
        assert "model_work[alpha] and model_work[beta]" in done.stderr and "at the same time" in done.stderr

        # One after the other, in a fresh home: the in-process executor runs one run at a time, so the
        # server must not wait for a second model.
        server.meet_models = 0
        apart = env_for(tmp_path / "apart", models, RELREASON_EXECUTOR="in_process")
        one = relreason([*RUN, "--model", "alpha", "--model", "beta"], apart)
        assert one.returncode == 0, one.stdout + one.stderr
        assert "at the same time" not in one.stderr

    home_t, home_a = tmp_path / "together" / "home", tmp_path / "apart" / "home"
    query = (
        "SELECT model, prompt_id, request_hash, content, error FROM raw.responses ORDER BY model, prompt_id"
    )
    together_rows, apart_rows = db_rows(home_t, query), db_rows(home_a, query)
    assert len(together_rows) > 40 and together_rows == apart_rows
    # Nothing stored twice in the lake itself: one row per (model, prompt).
    assert lake_rows(home_t, "SELECT count(*), count(DISTINCT (model, prompt_id)) FROM LAKE") == [
        (len(together_rows), len(together_rows))
    ]
    marts = "SELECT * FROM marts.relational_f1 ORDER BY ALL"
    assert db_rows(home_t, marts) == db_rows(home_a, marts)


def test_a_model_with_workers_runs_in_the_pipeline(tmp_path):
    """``workers: 2`` inside a Dagster step process: every prompt asked and stored once, retries included."""
    with FakeOpenAIServer(delay_s=0.02, rate_limit_fraction=0.1, retry_after_s=0, seed=5) as server:
        models = tmp_path / "models.yaml"
        models.write_text(models_yaml(server.api_base, ["split"], concurrency=8, workers=2))
        done = relreason([*RUN, "--model", "split"], env_for(tmp_path, models))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "36 calls, 0 cached, 0 errors · 2 worker processes" in done.stderr, done.stderr[-3000:]
        asked = {entry.key for entry in server.entries()}
    home = tmp_path / "home"
    rows = db_rows(home, "SELECT count(*), count(DISTINCT prompt_id), count(error) FROM raw.responses")
    assert rows[0][0] == rows[0][1] == len(asked) > 20 and rows[0][2] == 0, rows
    assert lake_rows(home, "SELECT count(*) FROM LAKE") == [(rows[0][0],)]


def test_sql_and_status_answer_during_a_run(tmp_path):
    """The server pauses the run twice mid-way (after 5, then 10 answers): readers see each count.

    The pauses are the server's gate, not a race between a slow model and the readers, so a busy
    machine makes the test slower, never different.
    """
    pauses = (5, 10)
    with FakeOpenAIServer() as server:
        server.allow(pauses[0])
        models = tmp_path / "models.yaml"
        models.write_text(models_yaml(server.api_base, ["slowpoke"], concurrency=1))
        env = env_for(tmp_path, models)
        run = subprocess.Popen(
            [sys.executable, "-m", "relreason_dagster.cli", *RUN, "--model", "slowpoke"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        counts: list[int] = []
        deadline = time.monotonic() + 900  # only a stalled machine gets here; then the test fails
        try:
            for i, pause in enumerate(pauses):
                while not counts or counts[-1] < pause:
                    assert run.poll() is None, run.stdout.read()
                    assert time.monotonic() < deadline, f"the run never reached {pause} answers: {counts}"
                    answer = relreason(["sql", "select count(*) as n from raw.responses"], env, timeout=300)
                    if answer.returncode == 2 and "no results yet" in answer.stderr:
                        time.sleep(0.5)  # before the run created the DuckDB file
                        continue
                    assert answer.returncode == 0, answer.stderr
                    assert "lock" not in answer.stderr.lower()
                    counts.append(int(answer.stdout.split("\n")[2].strip()))
                assert counts[-1] == pause  # the run is held at the gate: no more answers than allowed
                status = relreason(["status"], env, timeout=300)
                assert status.returncode == 0, status.stderr
                assert "Traceback" not in status.stderr and "== rows ==" in status.stdout
                server.allow(pauses[i + 1] if i + 1 < len(pauses) else None)
            out, _ = run.communicate(timeout=900)
        finally:
            if run.poll() is None:
                run.kill()
        assert run.returncode == 0, out
    total = db_rows(tmp_path / "home", "SELECT count(*) FROM raw.responses")[0][0]
    assert total > pauses[-1] and set(pauses) <= set(counts), counts
    assert counts == sorted(counts)
