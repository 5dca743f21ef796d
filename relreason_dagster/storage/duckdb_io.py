"""Opening the DuckDB file: waiting out another process's lock, creating the raw schema.

What goes through a connection once open (upserts of row dicts, reads as dicts) is in
``common/duckdb_rows.py``.

DuckDB lets one process write a file and then locks every other process out,
readers included.  relreason keeps every connection short (model calls write
the lake, not this file), and every open here waits for a conflicting lock to
go away instead of failing.  Readers (`relreason sql`, `samples`, `report`,
`status`) open the file only for the moment it takes to copy it
(``storage/read_copy.py``), so a writer here waits at most for one such copy.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb

from relreason_dagster.storage.schema import ensure_schema

# How long an open waits for another process's lock unless told (`relreason sql --lock-wait S`, a run's
# DuckDB resource ``lock_wait_s``); dbt on the paper profile holds the file for a few minutes at most.
DEFAULT_LOCK_WAIT_S = 900.0


def is_lock_conflict(exc: BaseException) -> bool:
    """Whether a DuckDB error says another process holds the file's lock."""
    text = str(exc)
    return "Could not set lock" in text or "Conflicting lock" in text


def open_duckdb(path: str | Path, *, read_only: bool = False, wait_s: float | None = None) -> Any:
    """``duckdb.connect`` that waits (with jittered backoff) while another process holds the lock."""
    wait = DEFAULT_LOCK_WAIT_S if wait_s is None else wait_s
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
def duckdb_session(
    path: str | Path, *, read_only: bool = False, wait_s: float | None = None
) -> Iterator[Any]:
    """A short connection: opened when the lock is free (waiting up to ``wait_s``), closed at the end."""
    con = open_duckdb(path, read_only=read_only, wait_s=wait_s)
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
