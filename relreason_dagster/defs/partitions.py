"""Partitions, defined once: one dynamic partition per registered model (kept in sync by a sensor)."""

import dagster as dg

MODELS_PARTITION = "models"
models_partitions = dg.DynamicPartitionsDefinition(name=MODELS_PARTITION)

# Steps that hold the DuckDB file for their whole run (parsing, checks, dbt) share this pool, limited to
# one slot in dagster.yaml; steps that call models or train write the lake and hold DuckDB only briefly.
DUCKDB_POOL = "duckdb"

# Assets that belong to one benchmark family carry this tag; a run selects them only with their family.
FAMILY_TAG = "relreason/family"


def family_tag(family: str) -> dict[str, str]:
    return {FAMILY_TAG: family}


# With the Celery executor, steps that only need the lake (model calls) go to MODEL_QUEUE; every other
# step goes to Celery's default queue, served by the workers on the machine that holds the DuckDB file.
CELERY_QUEUE_TAG = "dagster-celery/queue"
MODEL_QUEUE = "relreason-models"
DUCKDB_QUEUE = "dagster"
