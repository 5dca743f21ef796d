"""Process environment defaults: telemetry off, nothing calls out, Dagster's home under RELREASON_HOME.

Imported first by the package so every entry point (CLI, `dagster dev`, tests)
gets the same offline settings; values a user already set are kept.
"""

from __future__ import annotations

import os
from pathlib import Path

OFFLINE_ENV = {
    "DAGSTER_DISABLE_TELEMETRY": "1",
    "DBT_SEND_ANONYMOUS_USAGE_STATS": "False",
    "DO_NOT_TRACK": "1",
    "GX_ANALYTICS_ENABLED": "False",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}

DAGSTER_YAML = """\
# Written by relreason: no telemetry, one DuckDB-holding step at a time, model partitions side by side.
telemetry:
  enabled: false
compute_logs:
  # Step output goes straight to the terminal (CLI progress); the UI shows the structured run log.
  module: dagster._core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager
concurrency:
  pools:
    # The pool `duckdb` (steps that hold the DuckDB file): one step at a time, across all runs.
    default_limit: 1
    granularity: op
  runs:
    # UI backfills over model partitions run this many partitions at once (their model calls hold no pool).
    max_concurrent_runs: 4
"""


def apply_offline_env() -> None:
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


def ensure_dagster_home(relreason_home: Path) -> Path:
    """Point DAGSTER_HOME at ``<RELREASON_HOME>/dagster`` (unless set) and write its dagster.yaml."""
    home = Path(os.environ.get("DAGSTER_HOME") or relreason_home / "dagster").resolve()
    home.mkdir(parents=True, exist_ok=True)
    cfg = home / "dagster.yaml"
    # Our own file is kept current; a dagster.yaml the user wrote is left alone.
    if not cfg.exists() or (
        cfg.read_text().startswith("# Written by relreason") and cfg.read_text() != DAGSTER_YAML
    ):
        cfg.write_text(DAGSTER_YAML)
    os.environ["DAGSTER_HOME"] = str(home)
    _create_storage_once(home)
    return home


STORAGE_READY = ".storage-ready"


def _create_storage_once(home: Path) -> None:
    """Create the instance's databases in one process at a time, once per home.

    Why: each of Dagster's SQLite databases stamps its schema version when it is
    created, and two processes creating the same fresh home at once (a `relreason
    run` and a `relreason status`, or the UI's webserver and daemon) both stamp
    it. The table then has two heads and every later open of that database fails
    with "more than one head present", for good. An exclusive lock around the
    first open, and a marker after it, make the creation happen once; later
    commands pay one stat.
    """
    marker = home / STORAGE_READY
    if marker.exists():
        return
    import fcntl

    import dagster as dg

    with open(home / ".storage.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():
            return
        with dg.DagsterInstance.from_config(str(home)):
            pass
        marker.write_text("Dagster's databases here were created under .storage.lock (relreason env.py)\n")


apply_offline_env()
