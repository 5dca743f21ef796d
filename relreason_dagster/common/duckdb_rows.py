"""Row dicts in and out of an open DuckDB connection: idempotent upserts, replacements, reads as dicts.

Writes go through Arrow (one bulk insert per call) because per-row inserts
dominate the pipeline's overhead at 10k+ prompts.

Here in ``common/``, apart from ``storage/duckdb_io.py`` (which opens the file and creates the raw schema
from the registered families' tables): a family storing its own rows (Self-Contra's annotations) takes
the connection it is given and needs only these functions, not the storage layer and the registry
behind its schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import duckdb
import pyarrow as pa


def upsert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: Sequence[dict[str, Any]]) -> int:
    """INSERT OR REPLACE rows (matched by name) into ``raw.<table>``; returns how many."""
    if not rows:
        return 0
    arrow = pa.Table.from_pylist(list(rows))
    con.register("_relreason_rows", arrow)
    try:
        con.execute(f"INSERT OR REPLACE INTO raw.{table} BY NAME SELECT * FROM _relreason_rows")
    finally:
        con.unregister("_relreason_rows")
    return len(rows)


def replace_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    rows: Sequence[dict[str, Any]],
    where: str,
    params: Sequence[Any] = (),
) -> int:
    """Delete the rows matching ``where`` and insert ``rows``, in one transaction."""
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(f"DELETE FROM raw.{table} WHERE {where}", list(params))
        upsert_rows(con, table, rows)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return len(rows)


def fetch_dicts(con: duckdb.DuckDBPyConnection, sql: str, params: Iterable[Any] = ()) -> list[dict[str, Any]]:
    cur = con.execute(sql, list(params))
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]


def markdown_table(rows: Sequence[dict[str, Any]], limit: int = 30) -> str:
    """A small Markdown table for Dagster metadata and CLI output."""
    if not rows:
        return "_(no rows)_"
    cols = list(rows[0])
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in rows[:limit]:
        lines.append("| " + " | ".join("" if row[c] is None else str(row[c]) for c in cols) + " |")
    if len(rows) > limit:
        lines.append(f"\n_{len(rows) - limit} more rows_")
    return "\n".join(lines)
