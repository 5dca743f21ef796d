"""A fresh Dagster home opened by several processes at once ends up with sound databases.

Dagster stamps each SQLite database's schema version when it creates it; without
the lock in ``defs/instance.ensure_instance`` two processes starting on a new home both
stamp, and that home fails on every later open ("more than one head present").
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

OPEN_HOME = (
    "import sys\n"
    "from pathlib import Path\n"
    "from relreason_dagster.defs.instance import ensure_instance\n"
    "import dagster as dg\n"
    "ensure_instance(Path(sys.argv[1]))\n"
    "with dg.DagsterInstance.get() as instance:\n"
    "    instance.get_runs(limit=1)\n"
)


def _versions(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("select count(*) from alembic_version").fetchone()[0]
    finally:
        con.close()


def test_processes_opening_a_new_home_at_once_stamp_each_database_once(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
    for attempt in range(3):
        home = tmp_path / f"home{attempt}"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_HOME, str(home)], env=env, stderr=subprocess.PIPE, text=True
            )
            for _ in range(3)
        ]
        errors = [p.communicate()[1] for p in procs]
        assert all(p.returncode == 0 for p in procs), errors
        dagster_home = home / "dagster"
        dbs = sorted(dagster_home.rglob("*.db"))
        assert {db.name for db in dbs} >= {"runs.db", "index.db", "schedules.db"}
        assert {str(db.relative_to(dagster_home)): _versions(db) for db in dbs} == {
            str(db.relative_to(dagster_home)): 1 for db in dbs
        }
        assert (dagster_home / ".storage-ready").exists()


def test_an_existing_home_is_not_opened_again(tmp_path, monkeypatch):
    from relreason_dagster.defs.instance import ensure_instance

    monkeypatch.setenv("DAGSTER_HOME", "")  # recorded, so the value the call sets is undone after
    monkeypatch.delenv("DAGSTER_HOME")
    home = ensure_instance(tmp_path / "home")
    runs_db = home / "history" / "runs.db"
    runs_db.unlink()  # the marker, not the files, says the creation is done
    ensure_instance(tmp_path / "home")
    assert not runs_db.exists()
