"""`relreason run --batch` end to end against the fake provider's Batch API (issue 54, acceptance 1 and 2).

The fake OpenAI server (tests/fakes/openai_server.py) is a scripted stand-in for a provider: a batch line
gets the answer a live call of the same messages gets, and a batch moves only when the test says so
(``batch_complete_after_retrieves``, ``complete_batch``).  The request hash includes the ``api_base``,
so the live and the batch home use servers on the same port: their answers are interchangeable.

* A KOR smoke run with ``--batch``: every request in batch jobs (0 live chat calls), the marts equal a
  live run's row for row, each answer priced at the batch rates, and a re-run makes 0 calls and submits
  0 jobs.
* kill -9 of the CLI once its job is submitted: the next ``relreason run --batch`` submits none of
  those requests again and collects the same job.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from relreason_dagster.cli import main
from relreason_dagster.llm.transports.batch import batch_call_cost
from relreason_dagster.storage import batch_jobs
from relreason_dagster.storage.lake import Lake
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline_home import isolated_home

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[3]
KEY_ENV = "RELREASON_FAKE_BATCH_KEY"
MODEL = "mini"
PRICED = "openai/gpt-4o-mini"  # priced live and in batches by LiteLLM's offline cost map
RUN = ["--model", MODEL, "--benchmark", "kor", "--profile", "smoke"]
# Fast polling: intervals only, nothing here asserts how long anything takes.
FAST = {
    "RELREASON_BATCH_POLL_S": "0.05",
    "RELREASON_BATCH_POLL_CAP_S": "0.2",
    "RELREASON_BATCH_GATHER_S": "0.2",
}


def _models_yaml(api_base: str) -> str:
    return (
        f"models:\n  - name: {MODEL}\n    litellm_model: {PRICED}\n    api_base: {api_base}\n"
        f"    api_key_env: {KEY_ENV}\n    params: {{temperature: 0}}\n    concurrency: 4\n"
    )


def _marts(home: Path) -> dict[str, tuple[int, str]]:
    """(rows, md5 of the sorted rows) of every KOR mart, columns of cost and time left out."""
    con = duckdb.connect(str(home / "relreason.duckdb"), read_only=True)
    try:
        names = [
            n
            for (n,) in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'marts' "
                "AND table_name LIKE 'kor%' ORDER BY 1"
            ).fetchall()
        ]
        out = {}
        for name in names:
            columns = [
                c
                for (c,) in con.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_schema = 'marts' "
                    f"AND table_name = '{name}' ORDER BY ordinal_position"
                ).fetchall()
                if not any(word in c for word in ("cost", "latency", "created", "_at", "seconds"))
            ]
            rows = con.execute(f"SELECT {', '.join(columns)} FROM marts.{name}").fetchall()
            digest = hashlib.md5("\n".join(sorted(map(str, rows))).encode()).hexdigest()
            out[name] = (len(rows), digest)
        return out
    finally:
        con.close()


def _answers(home: Path) -> list[tuple]:
    con = duckdb.connect(str(home / "relreason.duckdb"), read_only=True)
    try:
        return con.execute(
            "SELECT prompt_id, request_hash, content, finish_reason, prompt_tokens, completion_tokens, "
            "error, cost_usd FROM raw.responses ORDER BY prompt_id, request_hash"
        ).fetchall()
    finally:
        con.close()


def _cli_run(tmp_path: Path, name: str, api_base: str, extra: list[str], monkeypatch) -> Path:
    """`relreason run` in this process, in the home ``tmp_path / name``."""
    mp = pytest.MonkeyPatch()
    (tmp_path / name).mkdir(exist_ok=True)
    try:
        isolated_home(mp, tmp_path / name, _models_yaml(api_base))
        for key, value in FAST.items():
            mp.setenv(key, value)
        assert main(["run", *RUN, *extra]) == 0
    finally:
        mp.undo()
    return tmp_path / name / "home"


# Three whole launches (live, batch, re-run): a few minutes idle, 15 at load 10 beside two test suites.
@pytest.mark.timeout(1800)
def test_a_kor_smoke_run_in_batches_equals_a_live_run(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-fake")
    with FakeOpenAIServer() as live:
        live_home = _cli_run(tmp_path, "live", live.api_base, [], monkeypatch)
        port = live.port
        assert live.live_chat_calls() > 0
    with FakeOpenAIServer(port=port, batch_complete_after_retrieves=2) as server:
        home = _cli_run(tmp_path, "batch", server.api_base, ["--batch"], monkeypatch)
        assert server.live_chat_calls() == 0
        jobs = server.batch_ids()
        assert jobs and len(server.batch_lines()) == sum(
            len(j.custom_ids) for j in batch_jobs.all_jobs(Lake.open(home / "lake"))
        )
        assert _marts(home) == _marts(live_home)
        live_rows = {r[:7]: r[7] for r in _answers(live_home)}
        batch_rows = _answers(home)
        assert {r[:7] for r in batch_rows} == set(live_rows)
        for row in batch_rows:
            assert row[7] == pytest.approx(batch_call_cost(PRICED, row[4], row[5]))
            assert row[7] < live_rows[row[:7]]
        # Again: nothing to ask, nothing to submit.
        _cli_run(tmp_path, "batch", server.api_base, ["--batch", "--rerun"], monkeypatch)
        assert server.batch_ids() == jobs and server.live_chat_calls() == 0


@pytest.mark.timeout(1800)
def test_kill_9_after_the_job_is_submitted_then_the_next_run_collects_it(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-fake")
    with FakeOpenAIServer() as server:
        models = tmp_path / "models.yaml"
        models.write_text(_models_yaml(server.api_base))
        env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "RELREASON_DUCKDB")}
        env.update(RELREASON_HOME=str(tmp_path / "home"), RELREASON_MODELS=str(models), PYTHONPATH=str(REPO))
        env.update(FAST)
        stderr_path = tmp_path / "stderr.txt"
        with open(stderr_path, "wb") as stderr:
            cli = subprocess.Popen(
                [sys.executable, "-m", "relreason_dagster.cli", "run", *RUN, "--batch"],
                cwd=REPO,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
            try:
                lake = Lake.open(tmp_path / "home" / "lake")
                deadline = time.monotonic() + 600
                while not (server.batch_ids() and batch_jobs.jobs_of(lake, MODEL)):
                    assert cli.poll() is None, stderr_path.read_text()[-3000:]
                    assert time.monotonic() < deadline, "no batch job was submitted"
                    time.sleep(0.2)
                cli.send_signal(signal.SIGKILL)
                cli.wait(timeout=60)
            finally:
                if cli.poll() is None:
                    cli.kill()
                    cli.wait()
        (first,) = server.batch_ids()
        (record,) = batch_jobs.jobs_of(lake, MODEL)
        assert record.job_id == first and record.custom_ids
        server.complete_batch(first)  # the provider ran it while no process waited
        # KOR's self-correction rounds are asked after the first answers: their jobs end by themselves.
        server.batches.complete_after_retrieves = 2
        time.sleep(2.0)  # the killed launch's watchdog ends its run processes (test_orphan_processes)

        mp = pytest.MonkeyPatch()
        try:
            isolated_home(mp, tmp_path, _models_yaml(server.api_base))
            for key, value in FAST.items():
                mp.setenv(key, value)
            assert main(["run", *RUN, "--batch"]) == 0
        finally:
            mp.undo()
        # Nothing of the first job was submitted again; it is collected; no live call.
        again = {line.custom_id for line in server.batch_lines() if line.batch_id != first}
        assert not again & set(record.custom_ids)
        assert [j.state for j in batch_jobs.jobs_of(lake, MODEL, open_only=False) if j.job_id == first] == [
            batch_jobs.COLLECTED
        ]
        assert batch_jobs.jobs_of(lake, MODEL) == []
        assert server.live_chat_calls() == 0
        stored = {r[1] for r in _answers(tmp_path / "home") if r[6] is None}
        assert set(record.custom_ids) <= stored
