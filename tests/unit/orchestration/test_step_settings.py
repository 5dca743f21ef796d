"""The generic step options of a run: the step model (``--judge``) and per-run knob overrides.

The rule that names a step's model is ``launch_plan.step_model`` (the one place of it); a run's
settings read its answer from the launch's plan, or, in a run from the UI, from the plan its step
builds with ``build_plan``.
"""

from __future__ import annotations

import pytest

from relreason_dagster.benchmarks.registry import family_steps
from relreason_dagster.defs.resources import RunSettings
from relreason_dagster.errors import ConfigError
from relreason_dagster.launch_plan import build_plan, step_model
from relreason_dagster.profiles import get_profile
from tests.fakes.scripted_provider import register_scripted_provider
from tests.pipeline_home import isolated_home, scripted_models_yaml
from tests.profile_files import use_profiles


def _across(family: str, name: str = "selfcontra_detections_fge"):
    (step,) = [s for s in family_steps(family) if s.stage == "across_models" and s.name == name]
    return step


def test_the_step_model_is_the_run_option_else_the_knob_the_step_names(tmp_path, monkeypatch):
    use_profiles(monkeypatch, tmp_path / "p.yaml", {"it-steps": {"selfcontra": {"judge": "from-profile"}}})
    step = _across("selfcontra")
    section = get_profile("it-steps", "selfcontra")
    assert step_model("selfcontra", step, section, None) == "from-profile"
    assert step_model("selfcontra", step, section, "cli") == "cli"
    use_profiles(monkeypatch, tmp_path / "p.yaml", {"it-steps": {"selfcontra": {}}})
    with pytest.raises(ConfigError, match=r"names no model for selfcontra_detections_fge.*'judge'"):
        step_model("selfcontra", step, get_profile("it-steps", "selfcontra"), None)
    with pytest.raises(ConfigError, match=r"names no model for selfcontra_detections_"):
        build_plan([], profile="it-steps", steps_over_stored=True)  # the plan applies the same rule


def test_a_step_with_its_own_rule_names_its_model_per_method(tmp_path, monkeypatch):
    """Self-Contra judges each detection method with the model its profile's ``judges`` names for it
    (§4.1: GPT-4, binary GPT-4-turbo), else ``judge``; a run's ``--judge`` still judges every method.
    A run's settings (here a run from the UI, which builds its plan in the step) ask what the plan says."""
    isolated_home(monkeypatch, tmp_path, scripted_models_yaml("j", "turbo", "cli"))
    register_scripted_provider()
    judges = {"judge": "j", "judges": {"binary": "turbo"}}
    use_profiles(monkeypatch, tmp_path / "p.yaml", {"it-steps": {"selfcontra": judges}})
    settings = RunSettings(profile="it-steps")
    named = {}
    for method in ("iro", "binary", "fge"):
        step = _across("selfcontra", f"selfcontra_detections_{method}")
        named[method] = settings.step_model_name("selfcontra", step)
        assert settings.step_spec("selfcontra", step).name == named[method]  # resolved, as asked
    assert named == {"iro": "j", "binary": "turbo", "fge": "j"}
    plan = build_plan([], profile="it-steps", steps_over_stored=True)
    assert {s: m for s, m in plan.step_models.items() if s.startswith("selfcontra_detections_")} == {
        f"selfcontra_detections_{method}": name for method, name in named.items()
    }
    cli = RunSettings(profile="it-steps", step_model="cli")
    assert cli.step_spec("selfcontra", _across("selfcontra", "selfcontra_detections_binary")).name == "cli"


def test_overrides_change_single_knobs_of_one_family(tmp_path, monkeypatch):
    use_profiles(
        monkeypatch, tmp_path / "p.yaml", {"it-steps": {"selfcontra": {"detect_limit": 5, "judge": "j"}}}
    )
    overrides = {"selfcontra": {"detect_limit": 2}}
    profile = RunSettings(profile="it-steps", overrides=overrides).profile_for("selfcontra")
    assert profile.values().detect_limit == 2 and profile.values().judge == "j"
    assert RunSettings(profile="it-steps").profile_for("selfcontra").values().detect_limit == 5
    # The plan carries them laid over the sections: a launch's runs read the changed knob too.
    plan = build_plan([], profile="it-steps", overrides=overrides)
    assert RunSettings.from_plan(plan).profile_for("selfcontra").values().detect_limit == 2


def test_a_launchs_resolved_sections_are_all_a_step_reads(tmp_path, monkeypatch):
    """A step process gets the profile by value: with the launch's plan set, no profile file is read
    (the file that defined the profile is gone, and the name alone would be an unknown profile)."""
    path = use_profiles(
        monkeypatch,
        tmp_path / "p.yaml",
        {"it-steps": {"extends": "smoke", "selfcontra": {"detect_limit": 3}}},
    )
    settings = RunSettings.from_plan(build_plan([], profile="it-steps"))
    path.unlink()
    monkeypatch.delenv("RELREASON_PROFILES")
    assert settings.profile_for("selfcontra").values().detect_limit == 3
    assert "selfcontra" in settings.family_names()
    with pytest.raises(ConfigError, match="unknown profile 'it-steps'"):
        RunSettings(profile="it-steps").profile_for("selfcontra")


def test_a_launch_of_a_baseline_only_names_its_step_models_by_the_same_rule(tmp_path, monkeypatch):
    """A launch of no LLM resolves no step model (nothing new to judge); a judge step of its runs still
    names its model by ``step_model``'s rule, and resolves it only if it has something to ask."""
    profile = {"it-steps": {"extends": "smoke", "selfcontra": {"judge": "j"}}}
    use_profiles(monkeypatch, tmp_path / "p.yaml", profile)
    plan = build_plan(["dlm"], profile="it-steps")
    assert plan.step_models == {} and plan.step_specs == ()
    settings = RunSettings.from_plan(plan)
    assert settings.step_model_name("selfcontra", _across("selfcontra")) == "j"
