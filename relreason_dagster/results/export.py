"""`relreason export`: every mart and the per-sample results as files pandas, DuckDB or a spreadsheet opens.

DuckDB only reads here (the connection is the locked read-only one); Arrow writes the files, so
the export needs no write access to the database and works while nothing else may.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from relreason_dagster.common.atomic_files import atomic_open
from relreason_dagster.common.user_files import user_file
from relreason_dagster.errors import ConfigError

_OUT_FIX = "choose another --out folder or make this one writable"

FORMATS = ("csv", "parquet", "jsonl")


@dataclass(frozen=True)
class Exported:
    """One written file: the relation it holds and how many rows."""

    relation: str
    path: Path
    rows: int


def mart_relations(con: Any) -> list[str]:
    """Every table and view of schema ``marts`` (the per-sample view included), by name."""
    found = con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'marts' ORDER BY table_name"
    ).fetchall()
    return [f"marts.{name}" for (name,) in found]


def _flat(table: pa.Table) -> pa.Table:
    """Nested columns (lists, structs, maps) as JSON text: CSV has no place for them."""
    for i, field in enumerate(table.schema):
        if pa.types.is_nested(field.type):
            text = [None if v is None else json.dumps(v, default=str) for v in table.column(i).to_pylist()]
            table = table.set_column(i, pa.field(field.name, pa.string()), pa.array(text, pa.string()))
    return table


def _write(table: pa.Table, path: Path, fmt: str) -> None:
    """``table`` as ``path``, whole or not at all (``common/atomic_files``): a reader, or the user after
    a full disk, never sees half a file."""
    with user_file(path, fix=_OUT_FIX):
        if fmt == "jsonl":
            with atomic_open(path, "w", encoding="utf-8") as fh:
                for row in table.to_pylist():
                    fh.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
            return
        with atomic_open(path, "wb") as fh:
            if fmt == "parquet":
                import pyarrow.parquet as pq

                pq.write_table(table, fh)
            else:
                import pyarrow.csv as pacsv

                pacsv.write_csv(_flat(table), fh)


def export_results(
    con: Any, out_dir: Path, fmt: str = "parquet"
) -> tuple[list[Exported], list[tuple[str, str]]]:
    """Write each mart (and ``marts.sample_results``) to ``out_dir/<name>.<fmt>``, one file each.

    Returns the files written and the relations skipped with their reason (one unreadable view, e.g.
    over a lake that moved, does not stop the others).
    """
    import duckdb

    if fmt not in FORMATS:
        raise ConfigError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    relations = mart_relations(con)
    if not relations:
        raise ConfigError("no marts to export yet; run `relreason demo` or `relreason run --model M` first")
    with user_file(out_dir, fix=_OUT_FIX):
        out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Exported] = []
    skipped: list[tuple[str, str]] = []
    for relation in relations:
        try:
            table = con.sql(f"SELECT * FROM {relation}").to_arrow_table()
        except duckdb.Error as exc:
            skipped.append((relation, str(exc).strip().splitlines()[0]))
            continue
        path = out_dir / f"{relation.split('.', 1)[1]}.{fmt}"
        _write(table, path, fmt)
        written.append(Exported(relation, path, table.num_rows))
    return written, skipped
