"""The Dagster home of a RELREASON_HOME, with its databases created safely."""

from __future__ import annotations

import fcntl
from pathlib import Path

import dagster as dg

from relreason_dagster.common import atomic_files
from relreason_dagster.env import ensure_dagster_home

STORAGE_READY = ".storage-ready"


def ensure_instance(relreason_home: Path) -> Path:
    """Point DAGSTER_HOME under ``relreason_home`` (``env.ensure_dagster_home``) and create its databases.

    Why the care: each of Dagster's SQLite databases stamps its schema version when
    it is created, and two processes opening the same fresh home at once (a
    `relreason run` and a `relreason status`, or the UI's webserver and daemon) both
    stamp it. The table then has two heads, and every later open of that database
    fails with "more than one head present", for good. An exclusive lock around the
    first open, and a marker after it, make the creation happen once; later
    commands pay one stat.
    """
    home = ensure_dagster_home(relreason_home)
    marker = home / STORAGE_READY
    if marker.exists():
        return home
    with open(home / ".storage.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            with dg.DagsterInstance.from_config(str(home)):
                pass
            note = "Dagster's databases here were created under .storage.lock (relreason)\n"
            atomic_files.write_text(marker, note)
    return home
