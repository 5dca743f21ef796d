"""Process environment defaults: telemetry off, nothing calls out, Dagster's home under RELREASON_HOME.

Imported first by the package so every entry point (CLI, `dagster dev`, tests)
gets the same offline settings; values a user already set are kept.
"""

from __future__ import annotations

import json
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
python_logs:
  # Dagster's console logger outside a run's own loggers (a step's process announcing itself at
  # DEBUG) prints from INFO; a run's console is quieter still (WARNING unless `relreason -v`).
  python_log_level: INFO
compute_logs:
  # Step output goes straight to the terminal (CLI progress); the UI shows the structured run log.
  # A private module path, kept: Dagster exports no compute log manager and has no setting that turns
  # capture off (its default tees output through `tail` processes into files); the upgrade test
  # (tests/unit/orchestration/test_dagster_private_api.py) fails when a release moves the class.
  module: dagster._core.storage.noop_compute_log_manager
  class: NoOpComputeLogManager
event_log_storage:
  # Dagster's SQLite event log (same files, <DAGSTER_HOME>/history/runs) with its connections kept open
  # between events: a dbt step's ~900 events no longer open ~1,800 connections (defs/event_log_storage.py).
  # The folder is written out (Dagster's default place in this home): DagsterInstance.from_config(folder)
  # reads this file without DAGSTER_HOME pointing here.
  module: relreason_dagster.defs.event_log_storage
  class: PooledSqliteEventLogStorage
  config:
    base_dir: {event_log_dir}
concurrency:
  pools:
    # The pool `duckdb` (steps that hold the DuckDB file): one step at a time, across all runs.
    default_limit: 1
    granularity: op
  runs:
    # UI backfills over model partitions run this many partitions at once (their model calls hold no pool).
    max_concurrent_runs: 4
"""


def dagster_yaml(dagster_home: Path) -> str:
    """The dagster.yaml relreason writes into ``dagster_home`` (a copied home gets its own on next use)."""
    return DAGSTER_YAML.replace("{event_log_dir}", json.dumps(str(dagster_home / "history" / "runs")))


# `relreason -v` in this process: runs it launches log Dagster's DEBUG lines.  Not an environment
# variable: the launcher puts the level into each run's config, which reaches every step by value.
_verbose = False


def set_verbose(flag: bool) -> None:
    global _verbose
    _verbose = bool(flag)


def verbose() -> bool:
    return _verbose


def apply_offline_env() -> None:
    for key, value in OFFLINE_ENV.items():
        os.environ.setdefault(key, value)


# The DAGSTER_HOME this process set itself (for its child processes, which inherit it): a later call
# for another RELREASON_HOME moves it, while a DAGSTER_HOME the user set is kept.
_dagster_home_set_here: str | None = None


def ensure_dagster_home(relreason_home: Path) -> Path:
    """Point DAGSTER_HOME at ``<RELREASON_HOME>/dagster`` (unless the user set it); write its dagster.yaml."""
    global _dagster_home_set_here
    current = os.environ.get("DAGSTER_HOME")
    chosen = current if current and current != _dagster_home_set_here else None
    from relreason_dagster.common import atomic_files
    from relreason_dagster.common.user_files import user_file

    home = Path(chosen or relreason_home / "dagster").resolve()
    cfg = home / "dagster.yaml"
    fix = f"set {'DAGSTER_HOME' if chosen else 'RELREASON_HOME'} to a folder you can write"
    with user_file(cfg, fix=fix):
        home.mkdir(parents=True, exist_ok=True)
        # Our own file is kept current (whole or not at all: processes starting at once read it); a
        # dagster.yaml the user wrote is left alone.
        old = cfg.read_text() if cfg.exists() else None
        if old is None or (old.startswith("# Written by relreason") and old != dagster_yaml(home)):
            atomic_files.write_text(cfg, dagster_yaml(home))
    os.environ["DAGSTER_HOME"] = str(home)
    if chosen is None:
        _dagster_home_set_here = str(home)
    return home


apply_offline_env()
