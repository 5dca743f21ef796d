"""Registering a family: one ``register`` line, or an installed ``relreason.families`` entry point
(every process, child processes too, imports those when the registry loads)."""

from __future__ import annotations

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks import registry
from relreason_dagster.errors import ConfigError


def test_a_family_from_outside_the_package_brings_its_folder(monkeypatch):
    from importlib.metadata import EntryPoint

    point = EntryPoint("toy", "tests.toy_family.family:ToyFamily", registry.ENTRY_POINT_GROUP)
    monkeypatch.setattr(registry, "entry_points", lambda group: [point] if group == point.group else [])
    try:
        assert registry.register_installed() == ["toy"]
        assert "toy" in registry.family_names()
        # Its folder's profiles.yaml and checks.py are found by name, as for the built-in families.
        assert profiles.get_profile("smoke", "toy").params["n"] == 8
        assert registry.family_quality("toy").token_ranges == {"direct": (5, 64)}
        assert registry.family_steps("toy") == () and registry.family_checks("toy") == ()
    finally:
        registry.unregister("toy")
    assert "toy" not in profiles.profile_families("smoke")


def test_a_bad_entry_is_one_line():
    with pytest.raises(
        ConfigError, match=r"family entry point 'tests\.nowhere:Nope' \(relreason\.families\): cannot load"
    ):
        registry.load_family("tests.nowhere:Nope")


def test_the_dlm_baseline_is_declared_by_its_family():
    assert registry.baseline_family("dlm") == "relational"
    with pytest.raises(ConfigError, match="gpt"):
        registry.baseline_family("gpt")
