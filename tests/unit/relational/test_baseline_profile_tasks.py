"""The UI's "Materialize all" trains only the profile's baseline tasks (issue 37, item 4).

The DLM's partitions are every relational task, so "Materialize all" under the smoke profile trained
seven tasks the demo never trained, with the model partitions queued behind them.  A task outside
the profile's ``dlm_tasks`` now materializes as skipped, without training or touching the results.
"""

from __future__ import annotations

import dagster as dg

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import baseline_family, get_baseline
from relreason_dagster.defs.baseline_assets import BASELINE_ASSETS, _outside_profile
from relreason_dagster.defs.resources import DuckDBFile, RunSettings


def test_only_the_profiles_tasks_are_trained():
    baseline, family = get_baseline("dlm"), baseline_family("dlm")
    smoke_tasks = baseline.tasks(profiles.get_profile("smoke", family))
    others = [
        t for t in BASELINE_ASSETS["dlm"][0].partitions_def.get_partition_keys() if t not in smoke_tasks
    ]
    assert smoke_tasks and others
    smoke = RunSettings(profile="smoke")
    assert all(_outside_profile(baseline, family, t, smoke) is None for t in smoke_tasks)
    assert all("nothing trained" in (_outside_profile(baseline, family, t, smoke) or "") for t in others)


def test_a_task_outside_the_profile_materializes_as_skipped(tmp_path):
    checkpoints, answers = BASELINE_ASSETS["dlm"]
    baseline, family = get_baseline("dlm"), baseline_family("dlm")
    task = next(
        t
        for t in checkpoints.partitions_def.get_partition_keys()
        if t not in baseline.tasks(profiles.get_profile("smoke", family))
    )
    database = tmp_path / "results.duckdb"
    result = dg.materialize(
        [checkpoints, answers],
        partition_key=task,
        resources={
            "duckdb": DuckDBFile(database=str(database)),
            "run_settings": RunSettings(profile="smoke"),
        },
        selection=[checkpoints, answers],
        raise_on_error=True,
    )
    assert result.success
    metadata = {
        m.asset_key.to_user_string(): {k: v.value for k, v in m.metadata.items()}
        for m in result.asset_materializations_for_node(checkpoints.op.name)
        + result.asset_materializations_for_node(answers.op.name)
    }
    assert (
        metadata["dlm_checkpoints"]["trained"] == 0
        and "nothing trained" in metadata["dlm_checkpoints"]["skipped"]
    )
    assert metadata["dlm_answers"]["rows"] == 0
    assert not database.exists()  # neither step opened the results
