"""Everything that can be known before a run starts is checked at the door: one line, exit status 2,
and the home exactly as it was (not created when it did not exist).

Before: ``--model nosuch/x`` and ``--model openai/`` started the whole run and stored an error row per
prompt, a ``max_cost`` on a model LiteLLM cannot price failed inside the responses step with a Dagster
traceback, and ``--samples 1000000000`` ran until killed.  A scripted or fake server is never needed:
nothing here may send a request.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from relreason_dagster.benchmarks.base import MAX_LIMIT, MAX_SAMPLES
from relreason_dagster.cli import main

NOWHERE = "http://127.0.0.1:9/v1"  # never asked: nothing here may send a request
MODELS_YAML = f"""\
models:
  - name: local
    litellm_model: local/smollm2-135m
  - name: budgeted-unpriced
    litellm_model: openai/surely-unpriced-model
    api_base: {NOWHERE}
    max_cost: 5
  - name: unknown-provider
    litellm_model: nosuch/x
"""


@pytest.fixture
def env(tmp_path, monkeypatch):
    models = tmp_path / "models.yaml"
    models.write_text(MODELS_YAML)
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RELREASON_MODELS", str(models))
    monkeypatch.delenv("RELREASON_LAKE", raising=False)
    return tmp_path


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def _refused(env: Path, capsys, argv: list[str]) -> str:
    before = _tree(env)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own checks (a bound of --samples) exit from the parser
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert _tree(env) == before  # nothing written: no home, no lake, no Dagster instance
    assert not (env / "home").exists()
    return err


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--model", "nosuch/x"], "LiteLLM cannot route 'nosuch/x'"),
        (["--model", "unknown-provider"], "LiteLLM cannot route 'nosuch/x'"),
        (["--model", "openai/"], "names the provider 'openai' but no model after it; write openai/MODEL"),
        (["--model", "budgeted-unpriced"], "max_cost needs a price"),
        (
            ["--model", "openai/surely-unpriced-model", "-M", f"api_base={NOWHERE}", "-M", "max_cost=5"],
            "max_cost needs a price",
        ),
        (["--model", "local", "--samples", str(MAX_SAMPLES + 1)], f"at most {MAX_SAMPLES:,} draws"),
        (["--model", "local", "--samples", "1000000000"], "ask for fewer"),
        (["--model", "local", "--limit", str(MAX_LIMIT + 1)], "samples per task"),
    ],
)
def test_bad_input_is_one_line_before_anything_is_written(env, capsys, argv, says):
    err = _refused(env, capsys, ["run", "--benchmark", "relational", *argv])
    assert says in err, err


def test_the_same_checks_hold_for_a_dry_run(env, capsys):
    err = _refused(env, capsys, ["run", "--dry-run", "--benchmark", "relational", "--model", "nosuch/x"])
    assert "LiteLLM cannot route" in err


def test_a_judge_is_checked_at_the_door_too(env, capsys):
    """A step model (Self-Contra's judge) is resolved and checked with the benchmark models."""
    err = _refused(
        env, capsys, ["run", "--model", "local", "--benchmark", "selfcontra", "--judge", "budgeted-unpriced"]
    )
    assert "max_cost needs a price" in err


def test_a_dry_run_at_the_bound_counts_draws_without_listing_them(env, capsys):
    """``--samples`` at its bound: each draw is a request (no answer stored), counted, not listed."""
    assert main(["run", "--dry-run", "--benchmark", "relational", "--model", "local"]) == 0
    one = capsys.readouterr().out
    argv = ["run", "--dry-run", "--benchmark", "relational", "--model", "local"]
    assert main([*argv, "--samples", str(MAX_SAMPLES)]) == 0
    many = capsys.readouterr().out

    def row(out: str) -> list[str]:
        return next(line for line in out.splitlines() if line.startswith("local")).split()

    single, drawn = row(one), row(many)
    # model, prompts, requests, stored, calls, input_tokens, max_output_tokens, ...
    assert drawn[1] == single[1]
    for column in (2, 4, 5, 6):
        assert int(drawn[column]) == int(single[column]) * MAX_SAMPLES
    assert not (env / "home").exists()
