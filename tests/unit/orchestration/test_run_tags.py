"""Runs say what they were, in the UI, and nothing else by default (issue 37, item 6).

CLI runs had no code-location label, so the UI's Runs tab of a job and the overview missed them,
and they carried seven tag pills; runs launched from the UI carried no profile or benchmarks.
"""

from __future__ import annotations

from relreason_dagster import profiles
from relreason_dagster.defs.launcher import PlannedRun, run_tags_for
from relreason_dagster.pipeline import _run_tags

VISIBLE = {"relreason/profile", "relreason/models", "relreason/benchmarks"}


def _visible(tags: dict[str, str]) -> set[str]:
    """Tag keys the UI shows as pills (Dagster hides ``.dagster/``; ``dagster/`` ones are its own)."""
    return {k for k in tags if not k.startswith((".dagster/", "dagster/"))}


def test_cli_runs_carry_profile_models_and_benchmarks():
    tags = _run_tags(["m1", "m2"], ["flenqa", "kor"], "smoke", "run")
    planned = PlannedRun("model_work", "m1", ())
    run_tags = run_tags_for(planned, tags)
    assert _visible(run_tags) == VISIBLE
    assert run_tags["relreason/models"] == "m1,m2" and run_tags["dagster/partition"] == "m1"
    # The code location's label is Dagster's to set, from the run's origin (test_run_origin.py).
    assert ".dagster/repository" not in run_tags


def test_ui_runs_carry_profile_and_benchmarks(monkeypatch):
    monkeypatch.setenv("RELREASON_PROFILE", "smoke")
    from relreason_dagster.defs.build import build_definitions

    defs = build_definitions("in_process")
    for name in ("prepare", "model_work", "add_model", "judge", "marts"):
        tags = dict(defs.resolve_job_def(name).tags)
        assert tags["relreason/profile"] == "smoke", name
        assert set(tags["relreason/benchmarks"].split(",")) == set(profiles.profile_families("smoke"))
        partitioned = name in ("model_work", "add_model")
        assert ("relreason/models" in tags) is not partitioned  # a partition names its model itself
        assert _visible(tags) <= VISIBLE
