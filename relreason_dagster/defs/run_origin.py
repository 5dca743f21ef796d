"""The code location a `relreason run` run says it came from, so the Dagster UI files it like its own runs.

The UI places a run by its remote job origin (the code location and repository it was launched
from): the Overview timeline groups runs by it and drops those without one, and the run page links
the run to its job and offers re-execution through it.  Runs the UI launches get an origin from the
code server; ``dagster.execute_job``, which the launcher used, leaves it empty, so CLI runs were
missing from the timeline.  Here the origin is that of ``workspace.yaml``'s one code location (the
file `relreason ui` hands `dagster dev`), read with Dagster's own workspace loader so its location
name is the one the UI shows, and :func:`execute_job_with_origin` creates the run with it and then
executes it exactly as ``execute_job`` would.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import dagster as dg
from dagster._core.definitions.repository_definition.valid_definitions import SINGLETON_REPOSITORY_NAME
from dagster._core.execution.api import execute_run
from dagster._core.remote_origin import RemoteJobOrigin, RemoteRepositoryOrigin
from dagster._core.workspace.load_target import WorkspaceFileTarget

from relreason_dagster import paths

# A Definitions object is served as one repository of this name (what the UI shows as the repository).
REPOSITORY_NAME = SINGLETON_REPOSITORY_NAME


def workspace_file() -> str:
    """The workspace file `relreason ui` starts `dagster dev` with."""
    return str(paths.REPO_ROOT / "workspace.yaml")


@functools.cache
def repository_origin() -> RemoteRepositoryOrigin | None:
    """The repository of ``workspace.yaml``'s code location, or None without exactly one location.

    Without the file (a copy of the package outside the repository) runs go without an origin, as
    before: they still run, and the UI lists them under Runs, only not on the timeline.
    """
    try:
        origins = WorkspaceFileTarget([workspace_file()]).create_origins()
    except Exception:  # noqa: BLE001 - a missing or unreadable workspace costs the timeline, never a run
        return None
    if len(origins) != 1:
        return None
    return RemoteRepositoryOrigin(code_location_origin=origins[0], repository_name=REPOSITORY_NAME)


def job_origin(job_name: str) -> RemoteJobOrigin | None:
    """The remote origin of job ``job_name`` in the UI's code location."""
    repository = repository_origin()
    return None if repository is None else RemoteJobOrigin(repository_origin=repository, job_name=job_name)


def execute_job_with_origin(
    job: dg.ReconstructableJob,
    *,
    instance: dg.DagsterInstance,
    run_config: Mapping[str, Any],
    tags: Mapping[str, str],
    asset_selection: Sequence[dg.AssetKey],
) -> Any:
    """``dagster.execute_job(job, ...)`` with the run created under its UI code location's origin.

    The same steps as ``execute_job``: the repository's load data baked into the job, the job's own
    tags under the given ones, the job's python origin (for step processes), then ``execute_run``.
    Returns its ``JobExecutionResult`` (``run_id``, ``success``, ``all_events``).
    """
    load_data = job.repository.get_definition().repository_load_data
    job = job.with_repository_load_data(load_data)
    job_def = job.get_definition()
    run = instance.create_run_for_job(
        job_def=job_def,
        run_config=run_config,
        tags={**job_def.run_tags, **tags},
        job_code_origin=job.get_python_origin(),
        repository_load_data=load_data,
        asset_selection=frozenset(asset_selection) if asset_selection else None,
        remote_job_origin=job_origin(job_def.name),
    )
    return execute_run(job, run, instance, raise_on_error=False)
