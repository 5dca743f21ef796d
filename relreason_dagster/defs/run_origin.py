"""The code location a `relreason run` run says it came from, so the Dagster UI files it like its own runs.

The UI places a run by its remote job origin (the code location and repository it was launched
from): the Overview timeline groups runs by it and drops those without one, and the run page links
the run to its job and offers re-execution through it.  Runs the UI launches get an origin from the
code server; ``dagster.execute_job``, which the launcher used, leaves it empty, so CLI runs were
missing from the timeline.  Here the origin names ``workspace.yaml``'s one code location (the file
`relreason ui` hands `dagster dev`) by the ``location_name`` that file gives it, and the repository
by the name Dagster serves a Definitions object under; :func:`execute_job_with_origin` creates the
run with it and then executes it exactly as ``execute_job`` would.  The UI and the daemon find a
run's code location by these names alone, so the origin is Dagster's by-name kind
(``RegisteredCodeLocationOrigin``); Dagster files the run under the repository label
(``<repository>@<location>``) that the job's Runs tab filters on.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg
import yaml

# Private Dagster API, kept (tests/unit/orchestration/test_dagster_private_api.py fails with the names
# when a release moves them): no public API creates a run under a code location's origin -
# ``dagster.execute_job`` leaves it empty and takes none - so the run is created with
# ``DagsterInstance.create_run_for_job`` and executed by ``execute_run``, the function ``execute_job``
# ends with; the origin's types are not exported either.
from dagster._core.execution.api import execute_run
from dagster._core.remote_origin import RegisteredCodeLocationOrigin, RemoteJobOrigin, RemoteRepositoryOrigin

from relreason_dagster import paths


def workspace_file() -> str:
    """The workspace file `relreason ui` starts `dagster dev` with."""
    return str(paths.REPO_ROOT / "workspace.yaml")


@functools.cache
def location_name() -> str | None:
    """The ``location_name`` of ``workspace.yaml``'s one code location, or None.

    Without the file (a copy of the package outside the repository), with other than one location,
    or with a location that names itself no name, runs go without an origin, as before: they still
    run, and the UI lists them under Runs, only not on the timeline.
    """
    try:
        (entry,) = yaml.safe_load(Path(workspace_file()).read_text(encoding="utf-8"))["load_from"]
        ((_, target),) = entry.items()  # python_module: {...}, python_file: {...}, ...
        name = target.get("location_name")
    except Exception:  # noqa: BLE001 - a missing or unreadable workspace costs the timeline, never a run
        return None
    return name if isinstance(name, str) and name else None


@functools.cache
def repository_name() -> str:
    """The name a code location serves its Definitions object under: the repository the UI shows.

    Any Definitions object has it (the code location's own is not loaded for it); the job's
    reconstructable repository does not, as it wraps the one job under a name of its own.
    """
    return dg.Definitions().get_repository_def().name


def job_origin(job_name: str) -> RemoteJobOrigin | None:
    """The remote origin of job ``job_name`` in the UI's code location."""
    location = location_name()
    if location is None:
        return None
    repository = RemoteRepositoryOrigin(
        code_location_origin=RegisteredCodeLocationOrigin(location), repository_name=repository_name()
    )
    return repository.get_job_origin(job_name)


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
