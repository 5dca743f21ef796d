"""One launch, one plan: `relreason run`, its `--dry-run`, the runs it starts and a run started from the
UI's launchpad all work from the same ``LaunchPlan``, compared here field by field.

* the CLI's: what ``cmd_run`` hands ``run_pipeline`` (replaced by a stand-in that keeps it);
* the dry run's: what ``cmd_run`` hands ``dry_run.estimate`` (likewise);
* the runs': that plan as run config (``RunSettings.from_plan``), through Dagster's config system, as a
  step reads it back;
* the UI's: the definitions' default run settings with a launchpad override of the same options,
  through Dagster's config system, resolved as the model step resolves it (``build_plan`` in the step).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import dagster as dg
import pytest

from relreason_dagster import dry_run, pipeline
from relreason_dagster.cli import main
from relreason_dagster.defs.resources import RunSettings, build_resources
from relreason_dagster.errors import ConfigError
from relreason_dagster.launch_plan import LaunchPlan, build_plan
from tests.fakes.scripted_provider import register_scripted_provider
from tests.pipeline_home import isolated_home, scripted_models_yaml

MODEL = "plan-m"
JUDGE = "plan-judge"
ARGS = ["--profile", "smoke", "--benchmark", "selfcontra", "--samples", "2", "--limit", "3"]
ARGS += ["--judge", JUDGE, "-M", "temperature=0.5", "--seed", "7"]
# The same options as a launchpad's run config of the definitions' run_settings resource.
LAUNCHPAD = {
    "profile": "smoke",
    "benchmarks": ["selfcontra"],
    "samples": 2,
    "limit": 3,
    "step_model": JUDGE,
    "model_options": {"temperature": 0.5},
    "seed": 7,
}


@pytest.fixture
def home(tmp_path, monkeypatch):
    isolated_home(monkeypatch, tmp_path, scripted_models_yaml(MODEL, JUDGE))
    register_scripted_provider()
    monkeypatch.delenv("RELREASON_PROFILE", raising=False)
    monkeypatch.delenv("RELREASON_PROFILES", raising=False)
    return tmp_path


def _cli_plan(monkeypatch, *extra: str) -> LaunchPlan:
    """The plan `relreason run --model MODEL ARGS` hands run_pipeline (or, ``--dry-run``, estimate)."""
    seen: list[LaunchPlan] = []

    def launch(plan: LaunchPlan, **_: Any) -> None:
        seen.append(plan)
        raise ConfigError("stopped by the test")

    def estimate(plan: LaunchPlan) -> list[Any]:
        seen.append(plan)
        return []

    monkeypatch.setattr(pipeline, "run_pipeline", launch)
    monkeypatch.setattr(dry_run, "estimate", estimate)
    code = main(["run", "--model", MODEL, *ARGS, *extra])
    assert code == (0 if "--dry-run" in extra else 2)
    (plan,) = seen
    return plan


def _step_plan(resource: RunSettings, run_config: dict[str, Any]) -> LaunchPlan:
    """The plan a model step of a run with ``run_config`` reads (``RunSettings.launch_plan``, as the
    model step asks for its partition's model), the resource configured by Dagster itself."""
    seen: list[LaunchPlan] = []

    @dg.asset
    def reads_the_plan(run_settings: RunSettings) -> None:
        seen.append(run_settings.launch_plan((MODEL,)))

    config = {"resources": {"run_settings": {"config": run_config}}}
    result = dg.materialize([reads_the_plan], resources={"run_settings": resource}, run_config=config)
    assert result.success
    (plan,) = seen
    return plan


def _differences(one: LaunchPlan, other: LaunchPlan) -> list[str]:
    return [f.name for f in dataclasses.fields(LaunchPlan) if getattr(one, f.name) != getattr(other, f.name)]


def test_the_cli_the_dry_run_the_runs_and_the_launchpad_resolve_one_plan(home, monkeypatch):
    cli = _cli_plan(monkeypatch)
    # What the plan holds is what was asked: not a vacuous comparison of empty plans.
    assert cli.models == (MODEL,) and [s.name for s in cli.specs] == [MODEL]
    assert cli.specs[0].params["temperature"] == 0.5 and cli.judge == JUDGE
    assert (cli.samples, cli.limit, cli.seed, cli.families) == (2, 3, 7, ("selfcontra",))
    assert [s.name for s in cli.step_specs] == [JUDGE] and set(cli.step_models.values()) == {JUDGE}
    assert cli.sections["selfcontra"] and cli.registry is not None

    dry = _cli_plan(monkeypatch, "--dry-run")
    assert _differences(cli, dry) == []

    carried = RunSettings.from_plan(cli)
    runs = _step_plan(carried, carried.model_dump())
    assert _differences(cli, runs) == []

    ui = _step_plan(build_resources()["run_settings"], LAUNCHPAD)
    assert _differences(cli, ui) == []


def test_the_run_config_is_typed_and_unset_is_none(home):
    """No JSON strings: the plan's parts are nested config (lists, dicts), and an option not given is
    None, not a 0 that could be mistaken for a value."""
    plan = _a_launchs_plan()
    config = RunSettings.from_plan(plan).model_dump()
    assert config["samples"] is None and config["limit"] is None and config["dlm_train_size"] is None
    assert config["step_model"] == JUDGE and config["model_options"] == {}
    launch = config["launch"]
    assert isinstance(launch["sections"]["selfcontra"], dict)
    assert isinstance(launch["specs"][0], dict) and launch["specs"][0]["name"] == MODEL
    assert isinstance(launch["registry"], dict)


def _a_launchs_plan() -> LaunchPlan:
    return build_plan([MODEL], profile="smoke", benchmarks=["selfcontra"], judge=JUDGE)
