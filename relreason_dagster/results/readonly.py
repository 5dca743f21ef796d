"""Read-only access to the results file: what `relreason sql`, `samples` and `export` query through.

Opening the DuckDB file with ``read_only=True`` stops writes to that file only; DuckDB can still
write files (``COPY ... TO``, ``EXPORT DATABASE``) and attach other databases read-write.  Two locks
close that:

* file system access is switched off, except for reading the lake folder that ``raw.responses``
  (a view over Parquet files) needs, and the configuration is locked so a query cannot switch it
  back on;
* only reading statements run (SELECT, EXPLAIN, PRAGMA, CALL): DuckDB allows writes inside the
  allowed lake folder, so ``COPY`` and ``ATTACH`` are refused before they execute.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from relreason_dagster import settings
from relreason_dagster.errors import ConfigError

# Statement kinds that only read; everything else (COPY, EXPORT, ATTACH, CREATE, SET, LOAD...) is refused.
READ_STATEMENTS = frozenset({"SELECT", "EXPLAIN", "PRAGMA", "CALL"})
_PARQUET_SOURCE = re.compile(r"read_parquet\(\s*'((?:[^']|'')*)'", re.IGNORECASE)


def _error_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def view_read_dirs(con: Any) -> list[str]:
    """The folders the database's views read Parquet from (the lake), as DuckDB prefixes.

    Read from the views themselves, so a lake moved with RELREASON_LAKE after the file was written is
    still the one allowed.
    """
    found: list[str] = []
    for (sql,) in con.execute("SELECT sql FROM duckdb_views() WHERE NOT internal").fetchall():
        for pattern in _PARQUET_SOURCE.findall(sql or ""):
            pattern = pattern.replace("''", "'")
            cut = min(
                (i for i in (pattern.find("*"), pattern.find("?"), pattern.find("[")) if i >= 0),
                default=len(pattern),
            )
            folder = pattern[:cut].rsplit("/", 1)[0] + "/"
            if folder not in found:
                found.append(folder)
    return found


def lock_down(con: Any) -> None:
    """Refuse file access outside the views' Parquet folders, and lock the configuration."""
    dirs = view_read_dirs(con)
    if any("://" in d for d in dirs):  # a remote lake: its filesystem extension must load before the lock
        try:
            con.execute("LOAD httpfs")
        except Exception:  # noqa: BLE001 - the query itself then fails with DuckDB's one-line reason
            pass
    if dirs:
        con.execute("SET allowed_directories = ?", [dirs])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")


def open_results(path: Path | None = None) -> Any:
    """The results file opened read-only and locked down; a missing file or a held lock is one line."""
    import duckdb

    from relreason_dagster.storage.duckdb_io import open_duckdb

    path = path or settings.duckdb_path()
    if not path.exists():
        raise ConfigError(
            f"no results yet at {path}; run `relreason demo` or `relreason run --model M` first"
        )
    try:  # waits while a run's short write (or dbt build) holds the file
        con = open_duckdb(path, read_only=True)
    except duckdb.IOException as exc:
        raise ConfigError(
            f"cannot open {path} read-only ({_error_line(exc)}); set RELREASON_LOCK_WAIT_S to wait longer"
        ) from None
    try:
        lock_down(con)
    except Exception:
        con.close()
        raise
    return con


def run_query(con: Any, sql: str, params: list[Any] | None = None) -> tuple[list[str], list[tuple]]:
    """Run ``sql`` (one or more reading statements); the last one's columns and rows.

    A writing statement or a DuckDB error is a :class:`ConfigError` of one line; nothing runs when any
    statement of ``sql`` would write.
    """
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise ConfigError(f"SQL error: {_error_line(exc)}") from None
    if not statements:
        raise ConfigError("SQL error: no statement given")
    for statement in statements:
        kind = str(statement.type).rsplit(".", 1)[-1]
        if kind not in READ_STATEMENTS:
            raise ConfigError(
                f"refused: results are read-only here ({kind} statement); "
                "`relreason export` writes files, `relreason run` writes results"
            )
    try:
        cur = None
        for i, statement in enumerate(statements):
            last = i == len(statements) - 1
            cur = con.execute(statement.query, (params or []) if last else [])
        if cur is None or cur.description is None:
            return [], []
        return [d[0] for d in cur.description], cur.fetchall()
    except duckdb.Error as exc:
        raise ConfigError(f"SQL error: {_error_line(exc)}") from None
