"""A judge step whose model's key is not set is not run at all (issue 57: "one line and no judge step").

``launch_plan.build_plan`` names such steps (``left_out_steps``) and says why in one line; the launcher
leaves their assets out of every run it plans, so no step of theirs starts (an asset that asked nothing
would still show as materialized in the UI and the summary).
"""

from __future__ import annotations

from relreason_dagster.defs.jobs import job_order
from relreason_dagster.defs.launcher import plan_runs

JUDGE_STEPS = (
    "selfcontra_detections_iro",
    "selfcontra_detections_binary",
    "selfcontra_detections_fge",
    "selfcontra_evidence_probe",
)


def _planned(exclude: tuple[str, ...]) -> set[str]:
    jobs = list(job_order())
    runs = plan_runs(jobs, {"model_work": ["m"]}, ["selfcontra"], skip_unfed=False, exclude=exclude)
    return {key.to_user_string() for run in runs for key in run.asset_keys}


def test_left_out_judge_steps_are_in_no_planned_run_and_the_rest_still_is():
    every = _planned(())
    assert set(JUDGE_STEPS) <= every  # the test's premise: these are assets a launch runs
    left = _planned(JUDGE_STEPS)
    assert left.isdisjoint(JUDGE_STEPS), left & set(JUDGE_STEPS)
    assert left == every - set(JUDGE_STEPS)  # the step after them (asks nothing) and the marts still run
