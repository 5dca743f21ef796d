"""The sweep variants a launch runs, as an asset: ``raw.model_sweeps`` (llm/sweeps.py builds the rows).

Why an asset of the ``prepare`` job: that job runs once per launch, before any model partition, and
already writes the launch's other inputs to the DuckDB file; model partitions write only the lake.  The
rows are upserted, never deleted: a variant a later launch does not run keeps its row, as its stored
answers stay too, so the budget marts can still tell its level.
"""

import dagster as dg

from relreason_dagster.common.duckdb_rows import markdown_table, upsert_rows
from relreason_dagster.defs.partitions import DUCKDB_POOL
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.llm.sweeps import sweep_rows
from relreason_dagster.storage.schema import ensure_schema

ASSET = "model_sweeps"


def launch_specs(run_settings: RunSettings) -> list:
    """The models this run's launch resolved; a run from the UI (no launch) takes every model of its
    models.yaml, so a sweep run there is described too."""
    import json

    from relreason_dagster.llm.registry import ModelEntry, load_registry

    if run_settings.launch_specs:
        return [ModelEntry(**record) for record in json.loads(run_settings.launch_specs)]
    return list(load_registry(run_settings.models_path()).values())


@dg.asset(
    name=ASSET,
    group_name="inputs",
    pool=DUCKDB_POOL,
    description="The sweep variants the launch runs (models.yaml `sweep:`): each variant's base model, "
    "swept parameter, level and the level's rank (raw.model_sweeps).",
)
def model_sweeps(
    context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings
) -> dg.MaterializeResult:
    rows = sweep_rows(launch_specs(run_settings))
    with duckdb.get_connection() as con:
        ensure_schema(con)
        upsert_rows(con, ASSET, rows)
    return dg.MaterializeResult(
        metadata={"rows": len(rows), "variants": dg.MetadataValue.md(markdown_table(rows, limit=60))}
    )
