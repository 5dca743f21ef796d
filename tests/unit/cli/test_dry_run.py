"""`relreason run --dry-run`: no model is called, nothing is written, per-model tokens and cost are printed.

The model is served by the fake OpenAI server (a scripted stand-in for a provider): a call would show
in its log.  ``openai/gpt-4o-mini`` is in LiteLLM's offline cost map, ``openai/fake-unpriced`` is not.
"""

from __future__ import annotations

import pytest

from relreason_dagster.cli import main
from relreason_dagster.dry_run import estimate
from relreason_dagster.launch_plan import LaunchPlan, build_plan
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline_home import isolated_home


def _one_flenqa_sample(samples: int | None = None, options: dict | None = None) -> LaunchPlan:
    """The dry-run plan of gpt-4o-mini on FLenQA smoke, one sample per task (``--limit 1``)."""
    return build_plan(
        ["openai/gpt-4o-mini"],
        profile="smoke",
        benchmarks=["flenqa"],
        samples=samples,
        limit=1,
        model_options=options,
        dry_run=True,
    )


def test_dry_run_calls_nothing_and_prints_tokens_and_cost(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    mp = pytest.MonkeyPatch()
    try:
        isolated_home(mp, tmp_path, "models:\n")
        with FakeOpenAIServer() as server:
            argv = ["run", "--dry-run", "--profile", "smoke", "--benchmark", "flenqa", "--limit", "1"]
            argv += ["--samples", "2", "-M", f"api_base={server.api_base}"]
            argv += ["--model", "openai/gpt-4o-mini", "--model", "openai/fake-unpriced"]
            assert main(argv) == 0
            assert server.entries() == []
        out = capsys.readouterr().out
        written = [p for p in (tmp_path / "home").rglob("*") if p.is_file()]
        assert written == []  # no lake, no database: nothing was written
        lines = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("openai/")}
        priced, unpriced = lines["openai/gpt-4o-mini"], lines["openai/fake-unpriced"]
        assert float(priced[7]) > 0 and unpriced[7] == "unknown"
        assert int(priced[5]) > 0 and int(priced[6]) > 0  # input tokens, output budget
        found = {e.model: e for e in estimate(_one_flenqa_sample(2, {"api_base": "http://127.0.0.1:9/v1"}))}
        one = estimate(_one_flenqa_sample())[0]
        # Two draws ask each prompt twice (identical prompt texts share a request).
        assert found["openai/gpt-4o-mini"].calls == 2 * one.calls
        assert found["openai/gpt-4o-mini"].prompts == one.prompts
        # With n: 2 both draws of a prompt are one request: the calls and input tokens of one draw.
        options = {"api_base": "http://127.0.0.1:9/v1", "n": 2}
        paired = estimate(_one_flenqa_sample(2, options))[0]
        assert paired.calls == one.calls and paired.input_tokens == one.input_tokens
        assert paired.requests == found["openai/gpt-4o-mini"].requests
    finally:
        mp.undo()
