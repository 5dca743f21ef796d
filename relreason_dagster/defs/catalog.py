"""Every asset and asset check the pipeline defines, listed once.

Read by the Definitions (``defs/build.py``), by :func:`defs.jobs.job_order`, which orders the jobs by
the asset graph, and by `relreason run` (the names of the checks it reports).  A list of its own so that
the jobs can read the asset graph without importing the Definitions that are built from the jobs.
"""

from __future__ import annotations

from relreason_dagster.defs.assets import model_responses, parsed_answers, prompts, samples
from relreason_dagster.defs.baseline_assets import BASELINE_ASSETS
from relreason_dagster.defs.checks import ALL_CHECKS
from relreason_dagster.defs.dbt import relreason_dbt_models
from relreason_dagster.defs.figure_assets import FIGURE_ASSETS
from relreason_dagster.defs.model_sweeps import model_sweeps
from relreason_dagster.defs.steps import STEP_ASSETS
from relreason_dagster.defs.study_reference import published_numbers

ALL_ASSETS = [
    samples,
    prompts,
    published_numbers,
    model_sweeps,
    model_responses,
    parsed_answers,
    *(asset for pair in BASELINE_ASSETS.values() for asset in pair),
    relreason_dbt_models,
    *FIGURE_ASSETS,
    *STEP_ASSETS.values(),
]

ALL_ASSET_CHECKS = list(ALL_CHECKS)
