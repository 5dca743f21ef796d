"""dbt's connect waits out a reader's short hold of the DuckDB file instead of failing the run.

Readers hold the file only while copying it (storage/read_copy.py), but a dbt build that starts in
that moment used to fail at once with "Could not set lock on file".  The project's profile gives
dbt-duckdb connect retries; this drives dbt-duckdb's own connect with the profile's ``retries``
while another process holds the file read-only for two seconds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from relreason_dagster import paths

HOLD = (
    "import duckdb, sys, time; con = duckdb.connect(sys.argv[1], read_only=True); "
    "print('ready', flush=True); time.sleep(float(sys.argv[2]))"
)


def _profile() -> dict[str, Any]:
    profiles = yaml.safe_load((paths.DBT_PROJECT_DIR / "profiles.yml").read_text())
    return profiles["relreason"]["outputs"]["local"]


def _connect_while_held(db: Path, hold_s: float, retries: dict[str, Any] | None) -> tuple[Any, int | None]:
    """dbt-duckdb's connect, started while a reader holds ``db``; the connection and whether the
    reader had let go by then (its exit status, None while it still held the file)."""
    from dbt.adapters.duckdb.credentials import DuckDBCredentials
    from dbt.adapters.duckdb.environments import Environment

    creds = DuckDBCredentials.from_dict(
        {"database": db.stem, "schema": "main", "path": str(db), **({"retries": retries} if retries else {})}
    )
    reader = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db), str(hold_s)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert reader.stdout.readline().strip() == "ready"
        con = Environment.initialize_db(creds)
        return con, reader.poll()
    finally:
        reader.kill()
        reader.wait()


def test_dbt_waits_for_a_reader_instead_of_failing(tmp_path):
    db = tmp_path / "relreason.duckdb"
    duckdb.connect(str(db)).close()
    with pytest.raises(duckdb.IOException, match="lock"):  # what a build met before the retries
        _connect_while_held(db, 30.0, None)
    retries = _profile()["retries"]
    con, reader_exit = _connect_while_held(db, 2.0, retries)
    con.close()
    assert reader_exit is not None  # the connect came once the reader had let go
    assert retries["connect_attempts"] >= 6  # 2**k s apart: waits of up to a minute and more
