"""`relreason worker`: a Celery worker for RELREASON_EXECUTOR=celery runs, on this or another machine.

It writes dagster-celery's settings module and then becomes the `celery worker` process (exec).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from relreason_dagster import paths
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.options import add_profile_options
from relreason_dagster.common import atomic_files
from relreason_dagster.common.user_files import user_file
from relreason_dagster.errors import ConfigError


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason worker`."""
    worker = subparsers.add_parser(
        "worker", help="run a Celery worker for RELREASON_EXECUTOR=celery (here or on another machine)"
    )
    worker.set_defaults(handler=cmd_worker)
    add_profile_options(worker)
    worker.add_argument("--broker", default=None, help="broker URL (default: RELREASON_CELERY_BROKER)")
    worker.add_argument("--name", default=f"relreason-{os.getpid()}", help="worker name (unique per machine)")
    worker.add_argument(
        "--models-only",
        action="store_true",
        help="serve model calls only (a machine without the DuckDB file; needs the shared RELREASON_LAKE)",
    )


def cmd_worker(args: argparse.Namespace) -> int:
    """`relreason worker`: a Celery worker for RELREASON_EXECUTOR=celery runs, on this or another machine."""
    import shutil

    from relreason_dagster.defs.partitions import DUCKDB_QUEUE, MODEL_QUEUE
    from relreason_dagster.pipeline import prepare_environment

    broker = args.broker or os.environ.get("RELREASON_CELERY_BROKER", "")
    if not broker:
        raise ConfigError(
            "relreason worker needs --broker URL or RELREASON_CELERY_BROKER (e.g. redis://host:6379/0)"
        )
    prepare_environment(args.profile)
    celery = os.path.join(os.path.dirname(sys.executable), "celery")
    if not os.path.exists(celery):
        celery = shutil.which("celery") or ""
    if not celery:
        raise ConfigError("relreason worker needs Celery: pip install -e '.[distributed]'")
    queues = [MODEL_QUEUE] if args.models_only else [MODEL_QUEUE, DUCKDB_QUEUE]
    os.environ["RELREASON_CELERY_BROKER"] = broker
    # dagster-celery reads worker settings from a module named dagster_celery_config on the path.  A busy
    # worker must not reserve a second step (it would wait behind the first while another worker idles).
    conf_dir = write_celery_config(paths.relreason_home() / "celery")  # imported from PYTHONPATH
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(conf_dir), os.environ.get("PYTHONPATH")) if p)
    cmd = [
        celery,
        "-A",
        "dagster_celery.app",
        "-b",
        broker,
        "--result-backend",  # the broker holds the results too (defs/jobs.py)
        broker,
        "worker",
        "-Q",
        ",".join(queues),
        "-n",
        f"{args.name}@%h",
        "-l",
        "WARNING",
        "--without-gossip",
        "--without-mingle",
        # One process that runs one step at a time: the local model is loaded once per worker process.
        "--pool",
        "solo",
    ]
    print(
        f"relreason worker {args.name}: queues {', '.join(queues)} on {broker} (Ctrl-C stops it)", flush=True
    )
    os.execv(cmd[0], cmd)
    return 0  # not reached


CELERY_CONFIG = "# Written by `relreason worker`.\nworker_prefetch_multiplier = 1\ntask_acks_late = True\n"


def write_celery_config(conf_dir: Path) -> Path:
    """``conf_dir/dagster_celery_config.py``, whole or not at all (a cut module would stop every later
    worker start); a folder that cannot be written is one line.  Returns ``conf_dir``."""
    conf_file = conf_dir / "dagster_celery_config.py"
    with user_file(conf_file, fix="set RELREASON_HOME to a folder you can write"):
        conf_dir.mkdir(parents=True, exist_ok=True)
        atomic_files.write_text(conf_file, CELERY_CONFIG)
    return conf_dir
