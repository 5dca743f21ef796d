"""A launch's "model calls" are the requests its runs sent: the fake server's request log says how many.

Before (issue 53, defect 4): the launch corrected its steps' counts with the lake's rows, so

* a model entry with ``n: 4`` and ``--samples 4`` reported 144 calls for the 36 requests it sent (one
  request stores four draw rows), and
* a launch that found every answer stored by a concurrent launch of the same model, without waiting
  for it (its step saw that launch's complete pass and asked nothing), reported that launch's 36 rows
  as its own calls: 36 model calls for 0 requests.

Now the gateway keeps its own count of requests per Dagster run (``storage/sent_requests.py``) and the
launch reads back only its own runs' counts.  Both runs go against a fake OpenAI server (named as such:
a scripted stand-in for a provider) whose log of requests is the evidence.

The concurrent launch is made deterministic: launch A runs first, then launch B, whose start time is
set back to before A stored anything (``pipeline._utc_now``, the only thing about B's timing a count
can read).  That is the interleaving of two terminals where B started first and reached its model step
after A had finished.
"""

from __future__ import annotations

import datetime

import pytest

from relreason_dagster import pipeline
from relreason_dagster.cli.run_report import print_report
from relreason_dagster.pipeline import run_models
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline_home import isolated_home

pytestmark = pytest.mark.integration

MODEL = "counted"
KEY_ENV = "RELREASON_TEST_COUNTED_KEY"


def _models_yaml(api_base: str, n: int = 1) -> str:
    return f"""\
models:
  - name: {MODEL}
    litellm_model: openai/fake-counted
    api_base: {api_base}
    api_key_env: {KEY_ENV}
    params: {{temperature: 0.7}}
    concurrency: 4
    timeout_s: 600
    max_attempts: 2
    n: {n}
"""


def _summary_line(report, capfd) -> str:
    capfd.readouterr()
    print_report(report, 1.0)
    out, _err = capfd.readouterr()
    return next(line for line in out.splitlines() if line.startswith(f"{MODEL}:"))


def test_n_4_with_samples_4_counts_requests_not_draws(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv(KEY_ENV, "sk-counted-0000")
    with FakeOpenAIServer() as server:
        isolated_home(monkeypatch, tmp_path, _models_yaml(server.api_base, n=4))
        report = run_models([MODEL], profile="smoke", benchmarks=["relational"], samples=4, run_dbt=False)
        log = server.entries()
    assert report.failures == [], report.failures
    prompts = len({e.key for e in log})
    assert prompts > 0 and len(log) == prompts and all(e.params.get("n") == 4 for e in log)  # one each
    stored = ResponseStore.default().draws(MODEL)
    assert len(stored) == 4 * len(log)  # four draw rows per request: what the count must not read
    assert report.calls[MODEL]["model_calls"] == len(log), report.calls
    assert MODEL not in report.lake_counted
    assert f"{len(log)} model calls" in _summary_line(report, capfd)


def test_a_launch_that_finds_another_launchs_answers_counts_no_call(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv(KEY_ENV, "sk-counted-0000")
    with FakeOpenAIServer() as server:
        isolated_home(monkeypatch, tmp_path, _models_yaml(server.api_base))
        before_a = pipeline._utc_now() - datetime.timedelta(seconds=1)
        first = run_models([MODEL], profile="smoke", benchmarks=["relational"], run_dbt=False)
        asked_by_a = len(server.entries())
        assert first.failures == [] and first.calls[MODEL]["model_calls"] == asked_by_a > 0
        server.reset_log()
        # Launch B began before A stored its answers; its model step came after A's ended.
        monkeypatch.setattr(pipeline, "_utc_now", lambda: before_a)
        second = run_models([MODEL], profile="smoke", benchmarks=["relational"], run_dbt=False, rerun=True)
        log = server.entries()
    assert second.failures == [], second.failures
    assert log == []  # B sent nothing
    counts = second.calls[MODEL]
    assert counts["model_calls"] == 0 and counts["already_stored"] == asked_by_a, counts
    assert MODEL not in second.lake_counted and second.answered_nothing == {}
    line = _summary_line(second, capfd)
    assert "0 model calls" in line and "counted in the lake" not in line, line
