"""The door answers before the engines load: a refused launch and `--help` import none of Dagster,
dagster-dbt, dbt, Great Expectations or LiteLLM (issue 58, item 2).

Why check imports, not seconds: those imports are what made a typo wait 5-10 s (LiteLLM alone
3-8 s on 2 cores), and which modules a process loaded does not depend on how busy the machine is.
The seconds are measured in ``tests/perf/bench_first_call.py`` (the door section), never asserted.
Each case runs in a fresh interpreter: this test process has long since imported all of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("dagster", "dagster_dbt", "dbt", "great_expectations", "litellm", "sympy")
NOWHERE = "http://127.0.0.1:9/v1"  # never asked: nothing here may send a request

SCRIPT = r"""
import contextlib, io, json, sys
from relreason_dagster.cli import main
err, out = io.StringIO(), io.StringIO()
with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:  # argparse's --help and its bounds exit from the parser
        code = exc.code
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(HEAVY_NAMES))
print(json.dumps({"code": code, "err": err.getvalue(), "out": out.getvalue()[:200], "heavy": heavy}))
""".replace("HEAVY_NAMES", repr(HEAVY))


def _door(tmp_path: Path, *argv: str) -> dict:
    models = tmp_path / "models.yaml"
    models.write_text(
        "models:\n  - name: local\n    litellm_model: local/smollm2-135m\n"
        f"  - name: priced\n    litellm_model: openai/gpt-4o-mini\n    api_base: {NOWHERE}\n"
        "    api_key_env: DOOR_TEST_KEY\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELREASON_")}
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        RELREASON_HOME=str(tmp_path / "home"),
        RELREASON_MODELS=str(models),
        DOOR_TEST_KEY="not-a-key",
    )
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["run", "--model", "nosuch/x"], "LiteLLM cannot route 'nosuch/x'"),
        (
            [
                "run",
                "--model",
                "openai/surely-unpriced-model",
                "-M",
                f"api_base={NOWHERE}",
                "-M",
                "max_cost=5",
            ],
            "max_cost needs a price",
        ),
        (["run", "--model", "local", "--samples", "1000000000"], "ask for fewer"),
        (["run", "--model", "nosuch-model"], "nosuch-model"),
        (["run", "--model", "local", "--benchmark", "nosuch"], "nosuch"),
    ],
)
def test_a_refused_launch_loads_no_engine(tmp_path, argv, says):
    found = _door(tmp_path, *argv)
    assert found["code"] == 2
    assert found["err"].count("\n") == 1 and says in found["err"], found["err"]
    assert found["heavy"] == [], f"the door imported {found['heavy']}"
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["demo", "--help"], ["status", "--help"]])
def test_help_loads_no_engine(tmp_path, argv):
    found = _door(tmp_path, *argv)
    assert found["code"] == 0 and "usage: relreason" in found["out"]
    assert found["heavy"] == [], f"--help imported {found['heavy']}"


PLAN_SCRIPT = r"""
import json, sys
from relreason_dagster.launch_plan import build_plan
plan = build_plan(["priced"], benchmarks=["kor"])
heavy = sorted({name.split(".")[0] for name in sys.modules} & set(HEAVY_NAMES))
print(json.dumps({"specs": [spec.litellm_model for spec in plan.specs], "heavy": heavy}))
""".replace("HEAVY_NAMES", repr(HEAVY))


def test_a_known_provider_passes_the_door_without_litellm(tmp_path):
    """The other side: a launch of ``openai/...`` passes every door check (provider, key) without
    importing LiteLLM; the run imports it where it calls."""
    _door(tmp_path, "--help")  # writes models.yaml
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELREASON_")}
    env.update(PYTHONPATH=str(REPO_ROOT), RELREASON_MODELS=str(tmp_path / "models.yaml"), DOOR_TEST_KEY="x")
    done = subprocess.run(
        [sys.executable, "-c", PLAN_SCRIPT],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"specs": ["openai/gpt-4o-mini"], "heavy": []}
