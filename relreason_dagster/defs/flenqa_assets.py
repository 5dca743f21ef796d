"""FLenQA's figure: accuracy vs input length per model and task (the study's Figure 1), as a PNG asset.

It reads the dbt mart ``marts.flenqa_accuracy_by_length`` after ``dbt build`` and
writes ``$RELREASON_HOME/plots/flenqa_accuracy_vs_length.png``; the same image is
embedded in the asset's metadata so the Dagster UI shows it.
"""

import base64

import dagster as dg

from relreason_dagster import settings
from relreason_dagster.benchmarks.flenqa.plot import plot_accuracy_vs_length
from relreason_dagster.defs.partitions import DUCKDB_POOL, family_tag
from relreason_dagster.defs.resources import DuckDBFile
from relreason_dagster.storage.duckdb_io import fetch_dicts

PLOT_NAME = "flenqa_accuracy_vs_length.png"


@dg.asset(
    group_name="metrics",
    pool=DUCKDB_POOL,
    deps=[dg.AssetKey(["marts", "flenqa_accuracy_by_length"])],
    tags=family_tag("flenqa"),
    description="PNG of FLenQA accuracy vs input length per model and task (the study's Figure 1).",
)
def flenqa_length_plot(context: dg.AssetExecutionContext, duckdb: DuckDBFile):
    with duckdb.get_connection() as con:
        exists = con.execute(
            "SELECT count(*) FROM information_schema.tables"
            " WHERE table_schema = 'marts' AND table_name = 'flenqa_accuracy_by_length'"
        ).fetchone()[0]
        rows = fetch_dicts(con, "SELECT * FROM marts.flenqa_accuracy_by_length") if exists else []
    path = settings.relreason_home() / "plots" / PLOT_NAME
    png = plot_accuracy_vs_length(rows, path)
    encoded = base64.b64encode(png).decode("ascii")
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(path)),
            "rows": len(rows),
            "models": sorted({r["model"] for r in rows}),
            "plot": dg.MetadataValue.md(f"![accuracy vs length](data:image/png;base64,{encoded})"),
        }
    )
