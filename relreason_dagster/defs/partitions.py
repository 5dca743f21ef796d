"""Partitions, defined once: one dynamic partition per registered model (kept in sync by a sensor)."""

import dagster as dg

MODELS_PARTITION = "models"
models_partitions = dg.DynamicPartitionsDefinition(name=MODELS_PARTITION)

# Every asset that writes the DuckDB file runs in this pool; dagster.yaml limits pools to 1 slot.
DUCKDB_POOL = "duckdb"
