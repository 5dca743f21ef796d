"""Issue 56 acceptance 1: `relreason run --benchmark flenqa --profile long --dry-run` of a model with a
128k window lists every length to 128k with its calls and cost, and no model is called.

The user's profile file narrows ``long`` (a user profile named like a built-in one extends it) to one
task, two base instances and one position, so the test generates 60 texts, not 7,200; the lengths,
paddings and settings are the built-in profile's.  The model is a models.yaml entry pointing at the
fake OpenAI server (a scripted stand-in: a call would show in its log) with LiteLLM's price of gpt-4o.
Its window is 131,072 tokens: a 128,000-token text plus the instructions and the CoT budget does not
fit a window of exactly 128,000.
"""

from __future__ import annotations

import pytest

from relreason_dagster.cli import main
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline_home import isolated_home

LENGTHS = [250, 500, 1000, 2000, 3000, 8000, 16000, 32000, 64000, 128000]

PROFILE_FILE = """long:
  flenqa:
    tasks: [MonoRel]
    n_base: 2
    positions: [random]
"""


def _models_yaml(api_base: str) -> str:
    return (
        "models:\n  - name: long-window\n    litellm_model: openai/gpt-4o\n"
        f"    api_base: {api_base}\n    context_window: 131072\n"
    )


@pytest.mark.timeout(600)
def test_long_dry_run_lists_every_length_with_calls_and_cost(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    profile_file = tmp_path / "relreason.yaml"
    profile_file.write_text(PROFILE_FILE)
    monkeypatch.setenv("RELREASON_PROFILES", str(profile_file))
    mp = pytest.MonkeyPatch()
    try:
        with FakeOpenAIServer() as server:
            isolated_home(mp, tmp_path, _models_yaml(server.api_base))
            argv = [
                "run",
                "--dry-run",
                "--profile",
                "long",
                "--benchmark",
                "flenqa",
                "--model",
                "long-window",
            ]
            assert main(argv) == 0
            assert server.entries() == []
    finally:
        mp.undo()
    out = capsys.readouterr().out
    table = [line.split() for line in out.splitlines()]
    model = next(row for row in table if row[:1] == ["long-window"])
    groups = {" ".join(row[:3]): row[3:] for row in table if row[:2] == ["flenqa", "length"]}
    assert sorted(int(label.split()[-1]) for label in groups) == LENGTHS
    for length in LENGTHS:
        # prompts, requests, stored, calls, input_tokens, max_output_tokens, est_cost_usd
        prompts, calls, tokens, cost = (float(groups[f"flenqa length {length}"][i]) for i in (0, 3, 4, 6))
        assert prompts == 2 * 3 * 2  # 2 instances x 3 paddings x (direct, cot), one position
        assert cost > 0
        # At 250 tokens the key paragraphs alone are the text in every padding: one request serves three.
        assert calls == (prompts / 3 if length == 250 else prompts)
        assert 0.95 * length * calls < tokens < (1.05 * length + 300) * calls
    minimal = next(row for row in table if row[:2] == ["flenqa", "minimal"])
    assert int(minimal[2]) == 2 * 2  # the key paragraphs alone (the baseline), listed apart
    # The groups split the model's own figures.  The minimal texts are the 250-token texts (at 250 tokens
    # the key paragraphs alone are the text), so their requests are the 250 group's too: each group
    # counts them, the model's row once.
    assert int(minimal[5]) == int(groups["flenqa length 250"][3])
    assert sum(int(r[0]) for r in [*groups.values(), minimal[2:]]) == int(model[1])  # prompts
    for column in (3, 4, 5):  # calls, input_tokens, max_output_tokens
        assert sum(int(r[column]) for r in groups.values()) == int(model[1 + column])
    assert sum(float(r[6]) for r in groups.values()) == pytest.approx(float(model[7]), abs=1e-3)
    costs = {length: float(groups[f"flenqa length {length}"][6]) for length in LENGTHS}
    assert costs[128000] > 100 * costs[250]
