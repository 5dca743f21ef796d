"""The origin CLI runs are created under names the UI's code location (issue 37, item 6).

The Overview timeline keys a run by (job, repository, code location) and keeps it only when the
loaded workspace has that job; the names come from ``workspace.yaml`` through Dagster's loader, and
without that file a run still starts, only without an origin.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dagster._core.workspace.load_target import WorkspaceFileTarget

from relreason_dagster import paths
from relreason_dagster.defs import run_origin
from relreason_dagster.defs.launcher import REPOSITORY_LABEL


@pytest.fixture
def fresh_origin():
    run_origin.repository_origin.cache_clear()
    yield
    run_origin.repository_origin.cache_clear()


def test_job_origin_names_the_workspace_location_and_the_label_runs_are_filed_under(fresh_origin):
    (location,) = WorkspaceFileTarget([str(paths.REPO_ROOT / "workspace.yaml")]).create_origins()
    origin = run_origin.job_origin("model_work")
    assert origin is not None
    assert origin.job_name == "model_work"
    assert origin.location_name == location.location_name == "relreason_dagster.definitions:defs"
    assert origin.repository_origin.repository_name == "__repository__"
    assert origin.repository_origin.get_label() == REPOSITORY_LABEL  # the Runs tab's filter


def test_without_a_workspace_file_runs_get_no_origin(fresh_origin, monkeypatch, tmp_path: Path):
    monkeypatch.setattr(paths, "REPO_ROOT", tmp_path)
    assert run_origin.job_origin("prepare") is None
    (tmp_path / "workspace.yaml").write_text("load_from: []\n")  # no location: nothing to file runs under
    run_origin.repository_origin.cache_clear()
    assert run_origin.job_origin("prepare") is None
