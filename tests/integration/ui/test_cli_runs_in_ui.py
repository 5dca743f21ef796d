"""Runs of `relreason run` show in the Dagster UI where its own runs do (issue 37, item 6).

The UI's Overview timeline places a run by its remote job origin (code location and repository) and
drops runs without one; CLI runs had none, so only UI-launched runs showed there.  A toy-family run
goes through the launcher (``run_pipeline``, in-process executor, scripted model), then the test
loads ``workspace.yaml``'s code location as `dagster dev` does (a code server process) and asks
Dagster's GraphQL layer the UI's own questions: the timeline's query for finished runs, whose rows
the UI keys by (job, repository, location) and keeps only when the workspace has that job; and a
job's Runs tab, which filters on the repository label tag.
"""

from __future__ import annotations

import time

import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.registry import register, unregister
from tests.fakes.scripted_provider import register_scripted_provider, set_responder
from tests.pipeline_home import isolated_home, scripted_models_yaml
from tests.toy_family.family import ToyFamily

pytestmark = pytest.mark.integration

# The webserver's CompletedRunTimelineQuery (dagster_webserver's bundled ui-core useRunsForTimeline.tsx),
# its fragments inlined: the fields the timeline reads to place a run.
TIMELINE_QUERY = """
query CompletedRunTimelineQuery($completedFilter: RunsFilter!, $limit: Int!, $cursor: String) {
  completed: runsOrError(filter: $completedFilter, limit: $limit, cursor: $cursor) {
    __typename
    ... on Runs {
      results {
        id
        pipelineName
        status
        startTime
        endTime
        updateTime
        repositoryOrigin { id repositoryName repositoryLocationName }
      }
    }
  }
}
"""
# The rows the timeline can draw: one per job of each repository of each loaded code location.
WORKSPACE_QUERY = """
query {
  workspaceOrError {
    __typename
    ... on Workspace {
      locationEntries {
        name
        locationOrLoadError {
          __typename
          ... on RepositoryLocation { name repositories { name pipelines { name } } }
        }
      }
    }
  }
}
"""
# A job's Runs tab (and its row in the Jobs list): runs filtered by job name and the repository label tag.
# The label Dagster files runs of workspace.yaml's code location under (repository@location).
REPOSITORY_LABEL = "__repository__@relreason_dagster.definitions:defs"
JOB_RUNS_QUERY = """
query JobRuns($filter: RunsFilter!) {
  runsOrError(filter: $filter) { __typename ... on Runs { results { id } } }
}
"""


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory):
    """The run ids a toy-family `run_pipeline` launched, in a fresh home (which stays set for the test)."""
    from relreason_dagster.pipeline import run_models

    root = tmp_path_factory.mktemp("cli_runs_in_ui")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, scripted_models_yaml("toy-answerer", concurrency=4))
    register(ToyFamily())
    register_scripted_provider()
    set_responder("toy-answerer", lambda messages, params: "yes")
    try:
        started = time.time()
        report = run_models(["toy-answerer"], profile="smoke", benchmarks=["toy"], run_dbt=False)
        assert report.failures == []
        run_ids = [run["run_id"] for run in report.runs]
        assert {run["job"] for run in report.runs} >= {"prepare", "model_work"}
        yield run_ids, started
    finally:
        set_responder("toy-answerer", None)
        unregister("toy")
        mp.undo()


def test_cli_runs_carry_the_workspace_code_location(cli_runs):
    import dagster as dg
    from dagster._core.workspace.load_target import WorkspaceFileTarget

    (location,) = WorkspaceFileTarget([str(paths.REPO_ROOT / "workspace.yaml")]).create_origins()
    run_ids, _ = cli_runs
    with dg.DagsterInstance.get() as instance:
        for run_id in run_ids:
            run = instance.get_run_by_id(run_id)
            origin = run.remote_job_origin
            assert origin is not None, run.job_name
            assert origin.location_name == location.location_name
            assert origin.repository_origin.repository_name == "__repository__"
            assert origin.job_name == run.job_name
            assert origin.repository_origin.get_label() == REPOSITORY_LABEL
            assert run.tags["relreason/profile"] == "smoke" and run.tags["relreason/benchmarks"] == "toy"


def test_the_uis_timeline_and_job_runs_tab_list_the_cli_runs(cli_runs):
    import dagster as dg
    from dagster_graphql.test.utils import define_out_of_process_context, execute_dagster_graphql

    run_ids, started = cli_runs
    with (
        dg.DagsterInstance.get() as instance,
        define_out_of_process_context(str(paths.REPO_ROOT / "workspace.yaml"), None, instance) as context,
    ):
        workspace = execute_dagster_graphql(context, WORKSPACE_QUERY).data["workspaceOrError"]
        rows = set()
        for entry in workspace["locationEntries"]:
            location = entry["locationOrLoadError"]
            assert location["__typename"] == "RepositoryLocation", entry
            for repository in location["repositories"]:
                rows |= {(job["name"], repository["name"], entry["name"]) for job in repository["pipelines"]}

        variables = {
            "completedFilter": {
                "statuses": ["SUCCESS", "FAILURE", "CANCELED"],
                "updatedAfter": started - 1,
                "updatedBefore": time.time() + 1,
            },
            "limit": 500,
            "cursor": None,
        }
        completed = execute_dagster_graphql(context, TIMELINE_QUERY, variables).data["completed"]
        assert completed["__typename"] == "Runs"
        by_id = {run["id"]: run for run in completed["results"]}
        assert set(run_ids) <= set(by_id)
        for run_id in run_ids:
            run = by_id[run_id]
            origin = run["repositoryOrigin"]
            assert origin is not None, run  # the timeline drops a run without one
            key = (run["pipelineName"], origin["repositoryName"], origin["repositoryLocationName"])
            assert key in rows, (key, sorted(rows))  # the row the timeline draws the run in

            label = {"key": ".dagster/repository", "value": REPOSITORY_LABEL}
            tab_filter = {"pipelineName": run["pipelineName"], "tags": [label]}
            tab = execute_dagster_graphql(context, JOB_RUNS_QUERY, {"filter": tab_filter}).data["runsOrError"]
            assert run_id in {r["id"] for r in tab["results"]}, run["pipelineName"]
