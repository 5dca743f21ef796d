"""The one Definitions object that `workspace.yaml` and the CLI load (assets, checks, jobs, sensor)."""

from __future__ import annotations

import dagster as dg

from relreason_dagster.defs.assets import model_responses, parsed_answers, prompts, samples
from relreason_dagster.defs.baseline_assets import BASELINE_ASSETS
from relreason_dagster.defs.checks import ALL_CHECKS
from relreason_dagster.defs.dbt import relreason_dbt_models
from relreason_dagster.defs.figure_assets import FIGURE_ASSETS
from relreason_dagster.defs.resources import build_resources
from relreason_dagster.defs.sensors import models_sensor
from relreason_dagster.defs.steps import STEP_ASSETS
from relreason_dagster.defs.study_reference import published_numbers

ALL_ASSETS = [
    samples,
    prompts,
    published_numbers,
    model_responses,
    parsed_answers,
    *(asset for pair in BASELINE_ASSETS.values() for asset in pair),
    relreason_dbt_models,
    *FIGURE_ASSETS,
    *STEP_ASSETS.values(),
]

ALL_ASSET_CHECKS = list(ALL_CHECKS)


def build_definitions(executor: str | None = None) -> dg.Definitions:
    """The definitions with every job on ``executor`` (default: ``RELREASON_EXECUTOR``)."""
    from relreason_dagster.defs.jobs import build_jobs

    return dg.Definitions(
        assets=ALL_ASSETS,
        asset_checks=ALL_ASSET_CHECKS,
        jobs=build_jobs(executor),
        sensors=[models_sensor],
        resources=build_resources(),
    )


defs = build_definitions()
