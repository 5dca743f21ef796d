"""The origin CLI runs are created under names the UI's code location (issue 37, item 6).

The Overview timeline keys a run by (job, repository, code location) and keeps it only when the
loaded workspace has that job; the location's name comes from ``workspace.yaml``, and without that
file (or its name) a run still starts, only without an origin.  A job's Runs tab filters on the
repository label Dagster stores with a run created under an origin.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from relreason_dagster import paths
from relreason_dagster.defs import run_origin

LOCATION = "relreason_dagster.definitions:defs"
LABEL = f"__repository__@{LOCATION}"


@pytest.fixture
def fresh_origin():
    run_origin.location_name.cache_clear()
    yield
    run_origin.location_name.cache_clear()


def test_the_location_name_is_the_one_dagsters_workspace_loader_gives_the_ui(fresh_origin):
    # Dagster's loader (private; what `dagster dev` reads workspace.yaml with) is the reference here.
    from dagster._core.workspace.load_target import WorkspaceFileTarget

    (location,) = WorkspaceFileTarget([str(paths.REPO_ROOT / "workspace.yaml")]).create_origins()
    assert run_origin.location_name() == location.location_name == LOCATION


def test_job_origin_names_the_workspace_location_and_the_label_runs_are_filed_under(fresh_origin):
    origin = run_origin.job_origin("model_work")
    assert origin is not None
    assert origin.job_name == "model_work"
    assert origin.location_name == LOCATION
    assert origin.repository_origin.repository_name == "__repository__"
    assert origin.repository_origin.get_label() == LABEL  # the Runs tab's filter


def test_a_run_created_under_the_origin_is_stored_with_the_label(fresh_origin):
    @dg.op
    def noop() -> None:
        return None

    @dg.job
    def tiny() -> None:
        noop()

    with dg.instance_for_test() as instance:
        filed = instance.create_run_for_job(job_def=tiny, remote_job_origin=run_origin.job_origin("tiny"))
        instance.create_run_for_job(job_def=tiny)  # no origin: no label
        found = instance.get_runs(filters=dg.RunsFilter(job_name="tiny", tags={".dagster/repository": LABEL}))
        assert [run.run_id for run in found] == [filed.run_id]


def test_without_a_workspace_file_or_a_location_name_runs_get_no_origin(
    fresh_origin, monkeypatch, tmp_path: Path
):
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path)
    assert run_origin.job_origin("prepare") is None
    (tmp_path / "workspace.yaml").write_text("load_from: []\n")  # no location: nothing to file runs under
    run_origin.location_name.cache_clear()
    assert run_origin.job_origin("prepare") is None
    unnamed = "load_from:\n  - python_module:\n      module_name: relreason_dagster.definitions\n"
    (tmp_path / "workspace.yaml").write_text(unnamed)
    run_origin.location_name.cache_clear()
    assert run_origin.job_origin("prepare") is None
