"""Shared set-up of the pipeline tests: an isolated RELREASON_HOME with its own models.yaml, and
read-only queries of the run's DuckDB file."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from relreason_dagster import paths


def isolated_home(mp: pytest.MonkeyPatch, root: Path, models_yaml: str) -> Path:
    """Point RELREASON_HOME, DAGSTER_HOME and RELREASON_MODELS at fresh places under ``root``."""
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("DAGSTER_HOME", raising=False)
    mp.delenv("RELREASON_DUCKDB", raising=False)
    models = root / "models.yaml"
    models.write_text(models_yaml)
    mp.setenv("RELREASON_MODELS", str(models))
    return models


def scripted_models_yaml(*names: str, concurrency: int = 8) -> str:
    """A models.yaml of scripted models (``scripted/<name>``, temperature 0): what the pipeline tests run."""
    entries = "".join(
        f"  - name: {name}\n    litellm_model: scripted/{name}\n    params: {{temperature: 0}}\n"
        f"    concurrency: {concurrency}\n"
        for name in names
    )
    return "models:\n" + entries


def rows(sql: str) -> list[tuple]:
    """The rows of ``sql`` on the current home's DuckDB file, opened read-only (a run may follow)."""
    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def build_only_the_runs_marts(mp: pytest.MonkeyPatch) -> None:
    """Launches of this home build only the dbt models downstream of their families, from the first one
    (``RELREASON_MARTS=run``, ``defs/dbt_scope.py``): for a module whose tests read only their family's
    and the shared marts, where a first full build of every family's marts was most of its set-up."""
    mp.setenv("RELREASON_MARTS", "run")
