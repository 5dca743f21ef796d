"""The studies' published numbers as an asset: every registered family's ``published.csv`` in
``raw.study_reference`` (dbt's ``marts.study_reference`` and the families' comparison marts read it).

It sits in the ``prepare`` job, so every run (and ``make demo``) loads it; a family's rows are re-read
only when its file's bytes changed (``raw.built_from`` keeps each file's key), so a run that changed
nothing pays a hash of a few small files.
"""

from typing import Any

import dagster as dg

from relreason_dagster.benchmarks.registry import published_files
from relreason_dagster.common.duckdb_rows import fetch_dicts, markdown_table
from relreason_dagster.defs.partitions import DUCKDB_POOL
from relreason_dagster.defs.resources import DuckDBFile
from relreason_dagster.storage import built_from
from relreason_dagster.storage import study_reference as reference
from relreason_dagster.storage.schema import ensure_schema

ASSET = "published_numbers"


def load_study_reference(con: Any) -> dict[str, Any]:
    """Bring ``raw.study_reference`` up to date with the registered families' files; what it did."""
    files = published_files()
    keys = {family: reference.file_key(path) for family, path in files.items()}
    kept = built_from.unchanged(
        con, ASSET, keys, f"SELECT count(*) FROM raw.{reference.TABLE} WHERE family = ?"
    )
    todo = [family for family in files if family not in kept]
    read = reference.published_rows({family: files[family] for family in todo})
    built_from.forget(con, ASSET, todo)
    for family in todo:
        reference.store_family(con, family, read[family])
    built_from.record(con, ASSET, {family: (keys[family], len(read[family])) for family in todo})
    dropped = reference.drop_other_families(con, sorted(files))
    gone = [
        part
        for (part,) in con.execute("SELECT part FROM raw.built_from WHERE asset = ?", [ASSET]).fetchall()
        if part not in files
    ]
    built_from.forget(con, ASSET, gone)
    return {"read": sorted(todo), "kept": sorted(kept), "dropped_rows": dropped}


@dg.asset(
    name=ASSET,
    group_name="inputs",
    pool=DUCKDB_POOL,
    description="The studies' published numbers: every registered family's published.csv "
    "(raw.study_reference), re-read when a file changes.",
)
def published_numbers(context: dg.AssetExecutionContext, duckdb: DuckDBFile) -> dg.MaterializeResult:
    with duckdb.get_connection() as con:
        ensure_schema(con)
        done = load_study_reference(con)
        summary = fetch_dicts(
            con,
            f"SELECT family, source, count(*) AS cells, count(value) AS numbers FROM raw.{reference.TABLE}"
            " GROUP BY ALL ORDER BY ALL",
        )
    return dg.MaterializeResult(
        metadata={
            "rows": sum(r["cells"] for r in summary),
            "read": dg.MetadataValue.json(done["read"]),
            "kept": dg.MetadataValue.json(done["kept"]),
            "dropped_rows": done["dropped_rows"],
            "per_source": dg.MetadataValue.md(markdown_table(summary, limit=60)),
        }
    )
