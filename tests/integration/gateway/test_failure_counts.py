"""The run summary counts every failed call of every step, and a model that answered nothing fails the run.

Before: a KOR run printed "1 errors" when 16 calls had failed (the self-correction step's errors were
not added to the model's line), and a run in which every call failed (refused connection, 401)
exited 0.  Here:

* ``refuser`` (a scripted model, no real one) answers every KOR question wrongly and refuses every
  self-correction follow-up with a 400 error: the summary's error count equals the refusals the
  provider made (counted by the scripted provider), and its call count every call made.
* ``nowhere`` points at a port nothing listens on: every call fails with a refused connection, and
  `relreason run` exits 1 with one line naming the model and why.
"""

from __future__ import annotations

import socket

import litellm
import pytest

from relreason_dagster.benchmarks.kor import prompts as kor_prompts
from relreason_dagster.cli import main
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import isolated_home, scripted_models_yaml
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration


def test_self_correction_errors_are_counted_with_the_models_calls(tmp_path, monkeypatch, capfd):
    isolated_home(monkeypatch, tmp_path, scripted_models_yaml("refuser", concurrency=4))
    use_profiles(monkeypatch, tmp_path / "profiles.yaml", {"smoke": {"kor": {"self_correction_rounds": 1}}})
    refused = 0

    def refuser(messages, params):
        nonlocal refused
        if messages[-1]["content"] == kor_prompts.FOLLOW_UP:
            refused += 1
            raise litellm.BadRequestError(
                message="scripted refusal of a follow-up", model="refuser", llm_provider="scripted"
            )
        return "[[no idea]]"

    register_scripted_provider()
    set_responder("refuser", refuser)
    reset_calls()
    from relreason_dagster.pipeline import run_models

    report = run_models(["refuser"], profile="smoke", benchmarks=["kor"], run_dbt=False)
    assert refused > 1, "no follow-up was asked: the test shows nothing"
    counts = report.calls["refuser"]
    assert counts["errors"] == refused, counts
    assert counts["model_calls"] == call_count("refuser"), counts
    assert counts["follow_ups"] == refused, counts
    from relreason_dagster.cli.run_report import print_report

    capfd.readouterr()
    print_report(report, 1.0)
    out, _err = capfd.readouterr()
    assert f"{refused} errors" in out.splitlines()[0], out


def _closed_port() -> int:
    with socket.socket() as sock:  # bound, never listening, then closed: connections are refused
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_a_run_where_the_model_answered_nothing_exits_non_zero(tmp_path, monkeypatch, capfd):
    models = (
        "models:\n  - name: nowhere\n    litellm_model: openai/fake-nowhere\n"
        f"    api_base: http://127.0.0.1:{_closed_port()}/v1\n    api_key_env: RELREASON_FAKE_KEY\n"
        "    concurrency: 4\n    max_attempts: 1\n    timeout_s: 5\n"
    )
    isolated_home(monkeypatch, tmp_path, models)
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    capfd.readouterr()
    code = main(["run", "--model", "nowhere", "--benchmark", "relational", "--profile", "smoke"])
    out, err = capfd.readouterr()
    assert code == 1, out + err
    lines = [line for line in err.splitlines() if "answered nothing" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("relreason: nowhere answered nothing: all 36 of its calls failed"), lines
    assert "connection" in lines[0].lower(), lines[0]
    assert "nowhere: 36 prompts — 36 model calls, 0 from the cache, 36 errors" in out, out
