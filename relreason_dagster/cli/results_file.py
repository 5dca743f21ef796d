"""How commands reach the results file: read-only and locked for readers, a writable connection for
the few that write, and the lake checked first.

Held apart from the commands so every reader (``sql``, ``samples``, ``export``, ``report``, the
headline tables after a run, a family's command) moves damaged lake files aside the same way.
"""

from __future__ import annotations

from typing import Any

from relreason_dagster import paths
from relreason_dagster.errors import ConfigError


def query(sql: str, wait_s: float | None = None) -> tuple[list[str], list[tuple]]:
    """:func:`query_params` without parameters (`relreason sql`)."""
    return query_params(sql, [], wait_s)


def query_params(sql: str, params: list[Any], wait_s: float | None = None) -> tuple[list[str], list[tuple]]:
    """``sql`` on the results file opened read-only and locked (see ``results/readonly.py``).

    Damaged lake files are moved aside first (a quick footer check, as every reader does), and a
    query that still fails is asked once more after every page of the lake was read (a file damaged
    inside, not at its end): one bad file must not fail every later query of every model.
    """
    from relreason_dagster.results.readonly import open_results, run_query

    check_lake()
    for attempt in range(2):
        con = open_results(wait_s=wait_s)
        try:
            return run_query(con, sql, params)
        except ConfigError:
            if attempt or not check_lake(deep=True):
                raise
        finally:
            con.close()
    raise AssertionError("unreachable")


def check_lake(*, deep: bool = False) -> bool:
    """Move damaged lake files aside (one line each) before a reader's views read every model's files;
    whether any was moved.  ``deep`` reads every page, not only each file's footer."""
    from relreason_dagster.storage.lake import Lake

    if not paths.relreason_home_path().is_dir():
        return False
    return bool(Lake.default().check(deep=deep))


def writable_db() -> Any:
    """The results file opened for writing; a run holding its lock is one line, not a DuckDB traceback."""
    import duckdb

    from relreason_dagster.storage.duckdb_io import connect

    path = paths.duckdb_path()
    try:
        return connect(path)
    except duckdb.IOException as exc:
        raise ConfigError(f"cannot write {path} ({str(exc).splitlines()[0]}); is a run writing it?") from None
