"""A hand-made warehouse for mart tests: rows written straight into ``raw.*``, then the real dbt project.

Why one module: a mart test fills the raw tables with rows whose answers it knows, runs the same
``dbt build`` the pipeline runs (seeds, models and their data tests) and reads the marts back; every
such test needs the same three moves, and a copy per test file drifted (some built the whole project,
some a selection).  ``select`` narrows the build to what a test reads (``+marts_x`` builds it and
everything upstream), which is most of a mart test's time.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

from relreason_dagster import paths
from relreason_dagster.defs.dbt_prepare import family_models_env


def insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict[str, Any]] | dict[str, Any]) -> None:
    """Insert rows (dicts of column -> value; one dict for one row) into ``raw.<table>``."""
    for row in [rows] if isinstance(rows, dict) else rows:
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        con.execute(f"INSERT INTO raw.{table} ({names}) VALUES ({marks})", list(row.values()))


def dbt_build(db: Path, work: Path, select: str | None = None) -> None:
    """``dbt build`` of the project against ``db`` (seeds, models, data tests), target and logs in ``work``.

    ``select``: a dbt selection (``+marts_x +marts_y``); None builds everything, as the pipeline does.
    A failed build fails the test with dbt's own output.
    """
    dbt = Path(sys.executable).parent / "dbt"
    project = str(paths.DBT_PROJECT_DIR)
    command = [str(dbt) if dbt.exists() else "dbt", "build", "--quiet", "--project-dir", project]
    if select:
        # cautious: a data test runs only when every model it reads was built (a relationship test
        # from a selected model to one left out would otherwise fail on the missing table).
        command += ["--select", select, "--indirect-selection", "cautious"]
    command += ["--profiles-dir", project, "--target-path", str(work / "target"), "--log-path", str(work)]
    command += ["--vars", json.dumps({"relreason_duckdb": str(db)})]
    env = family_models_env(paths.DBT_PROJECT_DIR)  # the families' own models, linked in
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, check=False, env=env)
    assert done.returncode == 0, done.stdout + done.stderr


def dicts(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    """The rows of a query as dicts (column name -> value)."""
    cursor = con.execute(sql, params or [])
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
