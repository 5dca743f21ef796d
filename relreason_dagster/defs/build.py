"""Building the Definitions (assets, checks, jobs, sensor, resources), and the job a step's process rebuilds.

The one place the Definitions are put together: ``definitions.py`` exposes the object `dagster dev`
loads, `relreason status` reads the same one, and every step's process rebuilds its job here
(:func:`job_for`, the launcher's reconstructable target).  It sits above ``defs/jobs.py``, which
defines the jobs and orders them from the asset list (``defs/catalog.py``) without importing it.
"""

from __future__ import annotations

import functools

import dagster as dg

from relreason_dagster.defs.catalog import ALL_ASSET_CHECKS, ALL_ASSETS
from relreason_dagster.defs.jobs import build_jobs
from relreason_dagster.defs.resources import build_resources
from relreason_dagster.defs.sensors import models_sensor


def build_definitions(executor: str | None = None) -> dg.Definitions:
    """The definitions with every job on ``executor`` (default: ``RELREASON_EXECUTOR``)."""
    return dg.Definitions(
        assets=ALL_ASSETS,
        asset_checks=ALL_ASSET_CHECKS,
        jobs=build_jobs(executor),
        sensors=[models_sensor],
        resources=build_resources(),
    )


@functools.cache
def default_definitions() -> dg.Definitions:
    """The definitions on the configured executor, built once per process (``definitions.defs``)."""
    return build_definitions()


def job_for(name: str, executor: str) -> dg.JobDefinition:
    """The resolved job ``name`` with ``executor``: what each step's process rebuilds (reconstructable).

    Resources read the environment (RELREASON_HOME), which a test or a long-lived
    process may change between runs, so the cache is keyed by it too.
    """
    from relreason_dagster import paths

    return _job_for(name, executor, str(paths.duckdb_path()), str(paths.models_path()))


@functools.cache
def _job_for(name: str, executor: str, duckdb_path: str, models_path: str) -> dg.JobDefinition:
    return build_definitions(executor).resolve_job_def(name)


def reconstructable_job(name: str, executor: str) -> dg.ReconstructableJob:
    return dg.build_reconstructable_job(__name__, "job_for", reconstructable_args=(name, executor))
