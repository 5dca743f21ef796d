"""Keep the ``models`` dynamic partitions equal to the enabled models of models.yaml."""

import dagster as dg

from relreason_dagster import settings
from relreason_dagster.defs.partitions import MODELS_PARTITION, models_partitions
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import enabled_models

# Model partitions that do not come from models.yaml (e.g. trained baselines) are never removed.
BUILTIN_MODELS: set[str] = set()


def sync_model_partitions(instance: dg.DagsterInstance, names: list[str]) -> tuple[list[str], list[str]]:
    """Add missing partitions, remove those no longer registered; returns (added, removed)."""
    current = set(instance.get_dynamic_partitions(MODELS_PARTITION))
    wanted = set(names) | (current & BUILTIN_MODELS)
    added = sorted(wanted - current)
    removed = sorted(current - wanted)
    if added:
        instance.add_dynamic_partitions(MODELS_PARTITION, added)
    for name in removed:
        instance.delete_dynamic_partition(MODELS_PARTITION, name)
    return added, removed


@dg.sensor(minimum_interval_seconds=30, default_status=dg.DefaultSensorStatus.RUNNING)
def models_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult | dg.SkipReason:
    try:
        names = list(enabled_models(settings.models_path()))
    except ConfigError as exc:
        return dg.SkipReason(str(exc))
    current = set(context.instance.get_dynamic_partitions(MODELS_PARTITION))
    wanted = set(names) | (current & BUILTIN_MODELS)
    requests = []
    if wanted - current:
        requests.append(models_partitions.build_add_request(sorted(wanted - current)))
    if current - wanted:
        requests.append(models_partitions.build_delete_request(sorted(current - wanted)))
    if not requests:
        return dg.SkipReason("model partitions match models.yaml")
    return dg.SensorResult(dynamic_partitions_requests=requests)
