"""Read-only access to the results: what `relreason sql`, `samples`, `report`, `export` and `status`
query through.

Read-only is a property of the connection, not of the statements it is given: a check of statement
kinds was bypassed (``EXPLAIN ANALYZE COPY ... TO '<lake>/responses/...'`` wrote forged answers
into the lake).  The connection a reader gets

* is an in-memory DuckDB with the results attached ``READ_ONLY``, and what is attached is the
  reader's own copy of the file (``storage/read_copy.py``): the file a run writes is neither open
  nor locked while a query runs, and the copy cannot be written either;
* reads the lake (``raw.responses``) of the results' own home (:func:`home_lake_glob`, not the path
  stored in the view) through pyarrow datasets registered from Python, listed at each open, so DuckDB
  itself needs no file access at all: ``enable_external_access`` is off with no allowed folder
  (no ``COPY TO``, ``EXPORT``, ``ATTACH`` of a file, ``INSTALL``/``LOAD``, file-reading table
  function), it has no temp directory (the one folder DuckDB would still allow), and the
  configuration is locked so no statement can turn either back on.

A statement may still create temporary tables and views: they live in the reader's memory and end
with it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from relreason_dagster import paths
from relreason_dagster.errors import ConfigError

# Where a prepared copy records the lake tables its views read: relation, lake table, files (a glob).
SOURCES_TABLE = "relreason_read.lake_sources"
_SOURCE_PREFIX = "relreason_lake_"


def _error_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


# ---------------------------------------------------------------------------------------- the copy


def _call_end(sql: str, start: int) -> int:
    """The index just past the parenthesis that closes the call whose "(" is at ``start``."""
    depth, i, quote = 0, start, ""
    while i < len(sql):
        ch = sql[i]
        if quote:
            if ch == quote:
                if i + 1 < len(sql) and sql[i + 1] == quote:  # a doubled quote inside a literal
                    i += 1
                else:
                    quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced parentheses")


def _leading_literal(text: str) -> str:
    """The SQL string literal ``text`` starts with ('' inside it read as '), or "" when none."""
    if not text.startswith("'"):
        return ""
    chars, i = [], 1
    while i < len(text):
        if text[i] == "'":
            if text[i + 1 : i + 2] != "'":
                break
            i += 1
        chars.append(text[i])
        i += 1
    return "".join(chars)


def _lake_table(glob: str) -> str | None:
    """``responses`` for ``<lake>/responses/**/*.parquet``; None for a glob of another shape."""
    from relreason_dagster.storage.lake import TABLES

    head, sep, _ = glob.partition("/**/")
    table = head.rsplit("/", 1)[-1] if sep else ""
    return table if table in TABLES else None


def swap_lake_sources(sql: str) -> tuple[str, list[tuple[str, str, str]]]:
    """``sql`` with each ``read_parquet('<lake>/<table>/**/*.parquet', ...)`` replaced by a
    relation the reader registers; the (relation, table, glob) of each.  Other calls stay."""
    lower = sql.lower()
    out, found, pos = [], [], 0
    while (at := lower.find("read_parquet(", pos)) >= 0:
        open_at = at + len("read_parquet")
        try:
            end = _call_end(sql, open_at)
        except ValueError:  # not a call DuckDB wrote: leave the view as it is
            break
        args = sql[open_at + 1 : end - 1].lstrip()
        table = _lake_table(glob := _leading_literal(args))
        if table is None:  # not the lake: left as it is (reading it is refused like any file access)
            out.append(sql[pos:end])
            pos = end
            continue
        relation = _SOURCE_PREFIX + table
        out.append(sql[pos:at] + f'"temp".main."{relation}"')
        found.append((relation, table, glob))
        pos = end
    out.append(sql[pos:])
    return "".join(out), found


def prepare_copy(con: Any) -> None:
    """Point the copy's views over lake Parquet at relations the reader registers from Python."""
    from relreason_dagster.storage.lake import TABLES

    views = con.execute(
        "SELECT schema_name, view_name, sql FROM duckdb_views()"
        " WHERE NOT internal AND database_name = current_database() AND sql ILIKE '%read_parquet(%'"
    ).fetchall()
    con.execute("CREATE SCHEMA IF NOT EXISTS relreason_read")
    con.execute(
        f"CREATE OR REPLACE TABLE {SOURCES_TABLE} (relation VARCHAR, lake_table VARCHAR, files VARCHAR)"
    )
    for _schema, _name, sql in views:
        new_sql, sources = swap_lake_sources(sql)
        if not sources:
            continue
        for relation, table, glob in sources:
            con.register(relation, TABLES[table].empty_table())  # so the new view binds
            con.execute(f"INSERT INTO {SOURCES_TABLE} VALUES (?, ?, ?)", [relation, table, glob])
        con.execute(new_sql.replace("CREATE VIEW", "CREATE OR REPLACE VIEW", 1))


# ---------------------------------------------------------------------------------------- the lake


def lake_dataset(glob: str, table: str) -> Any:
    """The Parquet files ``glob`` names as a pyarrow dataset with the lake table's columns.

    The same files DuckDB's ``read_parquet(glob, union_by_name = true, hive_partitioning = false)``
    read (every ``*.parquet`` below the table's folder, the schema file included); a file lacking a
    newer column reads it as null.  A lake that does not exist (yet) is an empty table.
    """
    import pyarrow.dataset as pads
    import pyarrow.fs as pafs

    from relreason_dagster.storage.lake import TABLES, Lake

    schema = TABLES[table]
    base = glob.partition("/**/")[0]
    if "://" in base:
        lake = Lake.open(base.rsplit("/", 1)[0])
        fs, folder = lake.fs, f"{lake.root}/{table}"
    else:
        fs, folder = pafs.LocalFileSystem(), base
        if not Path(folder).is_dir():
            return schema.empty_table()
    files = [
        info.path
        for info in fs.get_file_info(pafs.FileSelector(folder, recursive=True, allow_not_found=True))
        if info.type == pafs.FileType.File and info.path.endswith(".parquet")
    ]
    return pads.dataset(files, schema=schema, format="parquet", filesystem=fs)


# ---------------------------------------------------------------------------------------- opening


def results_path() -> Path:
    """Where the results file is, without creating ``RELREASON_HOME`` (a reader creates nothing)."""
    return paths.relreason_home_path() / paths.DUCKDB_NAME


def _lake_models(lake: Path) -> list[str]:
    from urllib.parse import unquote

    folder = lake / "responses"
    if not folder.is_dir():
        return []
    return sorted(
        unquote(p.name.partition("=")[2])
        for p in folder.iterdir()
        if p.is_dir() and p.name.startswith("model=") and any(p.rglob("*.parquet"))
    )


def missing_results(path: Path) -> str:
    """One line saying what is missing when ``path`` does not exist, and the command that fixes it."""
    home = paths.relreason_home_path()
    lake_url = os.environ.get("RELREASON_LAKE") or str(home / "lake")  # paths.lake_url's default
    models = [] if "://" in lake_url else _lake_models(Path(lake_url).expanduser())
    if models:
        runs = " ".join(f"--model {m}" for m in models)
        return (
            f"no results yet at {path}, but the lake {lake_url} holds answers of {', '.join(models)}: "
            f"`relreason run {runs}` (with the profile and benchmarks that made them) rebuilds it from "
            "the stored answers without asking the models again"
        )
    if path.parent == home and not home.is_dir():
        return (
            f"no results yet: RELREASON_HOME={home} does not exist; "
            "run `relreason demo` or `relreason run --model M` first"
        )
    return f"no results yet at {path}; run `relreason demo` or `relreason run --model M` first"


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def open_results(
    path: Path | None = None, *, wait_s: float | None = None, note: Callable[[str], None] = _say
) -> Any:
    """A read-only connection to the results (see the module docstring); a problem is one line.

    While a run writes the file, this reads the newest earlier copy after a few seconds and says
    through ``note`` how old it is; with no copy yet it waits up to ``wait_s`` (`relreason sql
    --lock-wait S`; default ``duckdb_io.DEFAULT_LOCK_WAIT_S``).
    """
    import duckdb

    from relreason_dagster.storage.duckdb_io import is_lock_conflict
    from relreason_dagster.storage.read_copy import read_copy

    path = path or results_path()
    if not path.exists():
        raise ConfigError(missing_results(path))
    for attempt in range(3):
        try:
            copy = read_copy(path, prepare_copy, wait_s=wait_s)
        except duckdb.IOException as exc:
            if is_lock_conflict(exc):
                raise ConfigError(
                    f"{path} is held by another process (a run writing, or dbt building); try again "
                    "when it ends, or pass --lock-wait SECONDS to wait longer"
                ) from None
            raise ConfigError(f"cannot read {path}: {_error_line(exc)}") from None
        except duckdb.Error as exc:
            raise ConfigError(f"cannot read {path}: {_error_line(exc)}") from None
        except OSError as exc:  # copying it: no space left, a folder that cannot be written
            raise ConfigError(f"cannot copy {path} to read it: {exc.strerror or exc}") from None
        try:
            con = _connect_copy(copy.path, copy.catalog, path)
            break
        except duckdb.IOException as exc:  # the copy was replaced and removed meanwhile: take the new one
            if attempt == 2:
                raise ConfigError(f"cannot read the copy of {path}: {_error_line(exc)}") from None
    if copy.stale_since is not None:
        note(
            "relreason: a run is writing the results; these are as of "
            f"{time.strftime('%H:%M:%S', time.localtime(copy.stale_since))} (ask again when it ends)"
        )
    return con


def home_lake_glob(results: Path, table: str) -> str:
    """The files of lake ``table`` that belong with the results file ``results``.

    The lake the writers use now (``RELREASON_LAKE``, else ``lake/`` beside the file), not the path
    the view was written with: a home copied or moved elsewhere keeps the old home's absolute path
    in its views until a run rebuilds them, and must not read the old home's answers meanwhile.
    """
    url = os.environ.get("RELREASON_LAKE") or str(results.parent / "lake")  # paths.lake_url's rule
    if "://" in url:
        return f"{url.rstrip('/')}/{table}/**/*.parquet"
    return f"{Path(url).expanduser().resolve()}/{table}/**/*.parquet"


def _connect_copy(copy: Path, catalog: str, copy_of: Path) -> Any:
    import duckdb

    # No temp directory: DuckDB's default (``<cwd>/.tmp``) is a folder that file access stays allowed to
    # after external access is off, so `relreason sql` run from a lake folder wrote Parquet there.
    con = duckdb.connect(":memory:", config={"temp_directory": ""})
    try:
        con.execute(f'ATTACH ? AS "{catalog}" (READ_ONLY)', [str(copy)])
        has_sources = con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? "
            "AND schema_name || '.' || table_name = ?",
            [catalog, SOURCES_TABLE],
        ).fetchone()[0]
        sources = (
            con.execute(f'SELECT relation, lake_table, files FROM "{catalog}".{SOURCES_TABLE}').fetchall()
            if has_sources
            else []
        )
        for relation, table, _written in sources:
            glob = home_lake_glob(copy_of, table)
            try:
                con.register(relation, lake_dataset(glob, table))
            except OSError as exc:  # pyarrow's errors of a lake it cannot list are OSErrors
                raise ConfigError(f"cannot read the lake at {glob}: {_error_line(exc)}") from None
        con.execute(f'USE "{catalog}"')
        con.execute("SET python_enable_replacements = false")  # no Python variable read as a table
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


# ---------------------------------------------------------------------------------------- queries

_REFUSED = ("PermissionException",)
_READ_ONLY_HINTS = ("read-only mode", "configuration has been locked", "disabled by configuration")


def run_query(con: Any, sql: str, params: list[Any] | None = None) -> tuple[list[str], list[tuple]]:
    """Run ``sql`` (one or more statements); the last one's columns and rows.

    Whatever writes is refused by the connection itself; that refusal, like any DuckDB error, is a
    :class:`ConfigError` of one line.
    """
    import duckdb

    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise ConfigError(f"SQL error: {_error_line(exc)}") from None
    if not statements:
        raise ConfigError("SQL error: no statement given")
    try:
        cur = None
        for i, statement in enumerate(statements):
            last = i == len(statements) - 1
            cur = con.execute(statement.query, (params or []) if last else [])
        if cur is None or cur.description is None:
            return [], []
        return [d[0] for d in cur.description], cur.fetchall()
    except duckdb.Error as exc:
        line = _error_line(exc)
        if type(exc).__name__ in _REFUSED or any(h in line for h in _READ_ONLY_HINTS):
            raise ConfigError(
                f"refused: results are read-only here ({line}); "
                "`relreason export` writes files, `relreason run` writes results"
            ) from None
        raise ConfigError(f"SQL error: {line}") from None
