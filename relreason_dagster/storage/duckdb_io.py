"""Reading and writing the DuckDB file: idempotent upserts of row dicts, reads as dicts.

Writes go through Arrow (one bulk insert per call) because per-row inserts
dominate the pipeline's overhead at 10k+ prompts.

DuckDB lets one process write a file and then locks every other process out,
readers included.  relreason keeps every connection short (model calls write
the lake, not this file), and every open here waits for a conflicting lock to
go away instead of failing.  Readers (`relreason sql`, `samples`, `report`,
`status`) open the file only for the moment it takes to copy it
(``storage/read_copy.py``), so a writer here waits at most for one such copy.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from relreason_dagster.storage.schema import ensure_schema

# How long an open waits for another process's lock (RELREASON_LOCK_WAIT_S); dbt on the paper
# profile holds the file for a few minutes at most.
DEFAULT_LOCK_WAIT_S = 900.0


def is_lock_conflict(exc: BaseException) -> bool:
    """Whether a DuckDB error says another process holds the file's lock."""
    text = str(exc)
    return "Could not set lock" in text or "Conflicting lock" in text


def lock_wait_s() -> float:
    """How long an open waits for another process's lock: ``RELREASON_LOCK_WAIT_S`` or the default."""
    return float(os.environ.get("RELREASON_LOCK_WAIT_S", DEFAULT_LOCK_WAIT_S))


def open_duckdb(path: str | Path, *, read_only: bool = False, wait_s: float | None = None) -> Any:
    """``duckdb.connect`` that waits (with jittered backoff) while another process holds the lock."""
    wait = lock_wait_s() if wait_s is None else wait_s
    deadline = time.monotonic() + wait
    delay = 0.02
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            if not is_lock_conflict(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 1.0)


@contextlib.contextmanager
def duckdb_session(path: str | Path, *, read_only: bool = False) -> Iterator[Any]:
    """A short connection: opened when the lock is free, closed (lock released) at the end."""
    con = open_duckdb(path, read_only=read_only)
    try:
        yield con
    finally:
        con.close()


def connect(path: str | Path, *, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the DuckDB file (creating the raw schema when writable).

    A failure after the open closes the connection: a handle left open would hold
    the file's lock for the rest of this process (dbt, in a child, then fails with
    "Could not set lock on file" naming our own pid).
    """
    con = open_duckdb(path, read_only=read_only)
    try:
        if not read_only:
            ensure_schema(con)
    except BaseException:
        con.close()
        raise
    return con


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
