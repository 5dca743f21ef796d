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
    # The models this run's launch resolved; a run from the UI (no launch) takes every model of its
    # models.yaml, so a sweep run there is described too.
    rows = sweep_rows(run_settings.launched_specs())
    with duckdb.get_connection() as con:
        ensure_schema(con)
        upsert_rows(con, ASSET, rows)
    return dg.MaterializeResult(
        metadata={"rows": len(rows), "variants": dg.MetadataValue.md(markdown_table(rows, limit=60))}
    )
