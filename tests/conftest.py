"""Shared fixtures: a temporary DuckDB with the ``raw`` schema."""

from __future__ import annotations

import os

# Before anything imports LiteLLM: no price-map download, no telemetry.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import duckdb  # noqa: E402
import pytest  # noqa: E402

from relreason_dagster.storage.schema import ensure_schema  # noqa: E402


@pytest.fixture
def duck(tmp_path):
    """A DuckDB connection on a fresh file with schema ``raw`` created."""
    con = duckdb.connect(str(tmp_path / "test.duckdb"))
    ensure_schema(con)
    yield con
    con.close()
