"""The generic step options of a run: the step model (``--judge``) and per-run knob overrides."""

from __future__ import annotations

import json

import pytest

from relreason_dagster.benchmarks.registry import family_steps
from relreason_dagster.defs.resources import RunSettings
from relreason_dagster.errors import ConfigError
from tests.profile_files import use_profiles


def _across(family: str, name: str = "selfcontra_detections_fge"):
    (step,) = [s for s in family_steps(family) if s.stage == "across_models" and s.name == name]
    return step


def test_the_step_model_is_the_run_option_else_the_knob_the_step_names(tmp_path, monkeypatch):
    use_profiles(monkeypatch, tmp_path / "p.yaml", {"it-steps": {"selfcontra": {"judge": "from-profile"}}})
    step = _across("selfcontra")
    assert RunSettings(profile="it-steps").model_for_step("selfcontra", step) == "from-profile"
    assert RunSettings(profile="it-steps", step_model="cli").model_for_step("selfcontra", step) == "cli"
    use_profiles(monkeypatch, tmp_path / "p.yaml", {"it-steps": {"selfcontra": {}}})
    with pytest.raises(ConfigError, match=r"names no model for selfcontra_detections_fge.*'judge'"):
        RunSettings(profile="it-steps").model_for_step("selfcontra", step)


def test_a_step_with_its_own_rule_names_its_model_per_method(tmp_path, monkeypatch):
    """Self-Contra judges each detection method with the model its profile's ``judges`` names for it
    (§4.1: GPT-4, binary GPT-4-turbo), else ``judge``; a run's ``--judge`` still judges every method."""
    judges = {"judge": "j", "judges": {"binary": "turbo"}}
    use_profiles(monkeypatch, tmp_path / "p.yaml", {"it-steps": {"selfcontra": judges}})
    settings = RunSettings(profile="it-steps")
    named = {
        m: settings.model_for_step("selfcontra", _across("selfcontra", f"selfcontra_detections_{m}"))
        for m in ("iro", "binary", "fge")
    }
    assert named == {"iro": "j", "binary": "turbo", "fge": "j"}
    cli = RunSettings(profile="it-steps", step_model="cli")
    assert cli.model_for_step("selfcontra", _across("selfcontra", "selfcontra_detections_binary")) == "cli"


def test_overrides_change_single_knobs_of_one_family(tmp_path, monkeypatch):
    use_profiles(
        monkeypatch, tmp_path / "p.yaml", {"it-steps": {"selfcontra": {"detect_limit": 5, "judge": "j"}}}
    )
    overrides = json.dumps({"selfcontra": {"detect_limit": 2}})
    profile = RunSettings(profile="it-steps", overrides=overrides).profile_for("selfcontra")
    assert profile.values().detect_limit == 2 and profile.values().judge == "j"
    assert RunSettings(profile="it-steps").profile_for("selfcontra").values().detect_limit == 5


def test_a_launchs_resolved_sections_are_all_a_step_reads(tmp_path, monkeypatch):
    """A step process gets the profile by value: with ``sections`` set, no profile file is read (the
    file that defined the profile is gone, and the name alone would be an unknown profile)."""
    from relreason_dagster.pipeline import resolved_sections

    path = use_profiles(
        monkeypatch,
        tmp_path / "p.yaml",
        {"it-steps": {"extends": "smoke", "selfcontra": {"detect_limit": 3}}},
    )
    sections = resolved_sections("it-steps")
    path.unlink()
    monkeypatch.delenv("RELREASON_PROFILES")
    settings = RunSettings(profile="it-steps", sections=sections)
    assert settings.profile_for("selfcontra").values().detect_limit == 3
    assert "selfcontra" in settings.family_names()
    with pytest.raises(ConfigError, match="unknown profile 'it-steps'"):
        RunSettings(profile="it-steps").profile_for("selfcontra")
