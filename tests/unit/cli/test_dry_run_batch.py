"""`relreason run --dry-run --batch`: both prices per model, the batch one from LiteLLM's batch rates.

``openai/gpt-4o-mini`` is in LiteLLM's offline cost map with ``*_cost_per_token_batches`` (half its live
rates); ``hosted_vllm/...`` runs no batch jobs, so ``--batch`` leaves it live with one line.
"""

from __future__ import annotations

import pytest

from relreason_dagster.cli import main
from relreason_dagster.llm.transports.batch import batch_call_cost
from tests.pipeline_home import isolated_home


def test_dry_run_with_batch_prints_the_live_and_the_batch_price(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    mp = pytest.MonkeyPatch()
    try:
        isolated_home(mp, tmp_path, "models:\n")
        argv = ["run", "--dry-run", "--batch", "--profile", "smoke", "--benchmark", "flenqa", "--limit", "1"]
        argv += ["-M", "api_base=http://127.0.0.1:9/v1"]
        argv += ["--model", "openai/gpt-4o-mini", "--model", "hosted_vllm/served"]
        assert main(argv) == 0
        captured = capsys.readouterr()
        out = captured.out + captured.err
    finally:
        mp.undo()
    header = next(line.split() for line in out.splitlines() if line.startswith("model"))
    assert header[7:9] == ["est_cost_usd", "est_batch_cost_usd"]
    rows = {
        line.split()[0]: line.split()
        for line in out.splitlines()
        if line.startswith(("openai/gpt-4o-mini ", "hosted_vllm/served "))
    }
    priced = rows["openai/gpt-4o-mini"]
    live, batch = float(priced[7]), float(priced[8])
    # Printed to 4 decimals: the batch price is half the live one within that rounding.
    assert live > 0 and batch == pytest.approx(live / 2, abs=1e-4) and batch < live
    expected = batch_call_cost("openai/gpt-4o-mini", int(priced[5]), int(priced[6]))
    assert batch == pytest.approx(expected, abs=5e-5)
    assert rows["hosted_vllm/served"][8] == "-"
    assert "relreason: hosted_vllm/served runs live: hosted_vllm runs no batch jobs" in out
