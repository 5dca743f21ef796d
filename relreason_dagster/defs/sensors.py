"""The ``models`` dynamic partitions: the union of every models file that a run or UI session registered.

A CLI run may use its own ``RELREASON_MODELS`` file while the UI watches the
repo's ``models.yaml``; each adds its models.  Nothing deletes a partition
that has stored rows (in the lake) or a run in flight, so one session can never
pull a partition from under another's run.
"""

from __future__ import annotations

import dagster as dg

from relreason_dagster import paths
from relreason_dagster.defs.partitions import MODELS_PARTITION, models_partitions
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import enabled_models

_IN_FLIGHT = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


def register_model_partitions(instance: dg.DagsterInstance, names: list[str]) -> list[str]:
    """Add the partitions ``names`` lacks; returns those added.  Never removes one."""
    current = set(instance.get_dynamic_partitions(MODELS_PARTITION))
    added = sorted(set(names) - current)
    if added:
        instance.add_dynamic_partitions(MODELS_PARTITION, added)
    return added


def protected_partitions(instance: dg.DagsterInstance) -> set[str]:
    """Model partitions that must stay: those with stored responses or a run in flight."""
    from relreason_dagster.storage.lake import Lake

    keep: set[str] = set()
    try:
        lake = Lake.default()
        for path in lake.files("responses"):
            folder = path.split("/responses/", 1)[-1].split("/", 1)[0]
            if folder.startswith("model="):
                from urllib.parse import unquote

                keep.add(unquote(folder[len("model=") :]))
    except (OSError, ConfigError):
        pass
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=_IN_FLIGHT)):
        partition = run.tags.get("dagster/partition")
        if partition:
            keep.add(partition)
    return keep


def stale_partitions(instance: dg.DagsterInstance, registered: set[str]) -> list[str]:
    """Partitions no models file registers any more and nothing protects: safe to remove."""
    current = set(instance.get_dynamic_partitions(MODELS_PARTITION))
    return sorted(current - registered - protected_partitions(instance))


@dg.sensor(minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING)
def models_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult | dg.SkipReason:
    """Add this session's models; drop only partitions that are unregistered, empty and idle."""
    try:
        names = set(enabled_models(paths.models_path()))
    except ConfigError as exc:
        return dg.SkipReason(str(exc))
    current = set(context.instance.get_dynamic_partitions(MODELS_PARTITION))
    requests = []
    if names - current:
        requests.append(models_partitions.build_add_request(sorted(names - current)))
    stale = stale_partitions(context.instance, names)
    if stale:
        requests.append(models_partitions.build_delete_request(stale))
    if not requests:
        return dg.SkipReason("model partitions cover models.yaml; none to remove")
    return dg.SensorResult(dynamic_partitions_requests=requests)
