"""`relreason status`: what is materialized, recent runs, failed checks, row counts and batch jobs."""

from __future__ import annotations

import argparse
from typing import Any

from relreason_dagster import paths, profiles
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.options import add_profile_options
from relreason_dagster.cli.output import format_table


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason status`."""
    status = subparsers.add_parser("status", help="what is materialized, check results, row counts")
    status.set_defaults(handler=cmd_status)
    add_profile_options(status)


def cmd_status(args: argparse.Namespace) -> int:
    """`relreason status`: answers stored, recent runs and failed checks first, then the detail.

    It never raises: each section that cannot be read prints one "(unavailable: reason)" line
    (``defs/status.py``); only a bad ``--profile`` is an error, as for every command.
    """
    home = paths.relreason_home_path()
    if not home.is_dir():
        print(
            f"no results yet: RELREASON_HOME={home} does not exist; "
            "run `relreason demo` or `relreason run --model M` first"
        )
        return 0
    profiles.profile_families(args.profile)  # bad input: one line, exit 2
    from relreason_dagster.defs.status import StatusReport, reason
    from relreason_dagster.pipeline import prepare_environment

    try:
        prepare_environment(args.profile)
    except Exception as exc:  # noqa: BLE001 - the sections below say what this leaves unavailable
        print(f"(setting up the Dagster home failed: {reason(exc)})")
    StatusReport(paths.duckdb_path, print, format_table).print_all()
    _print_batch_jobs()
    return 0


def _print_batch_jobs() -> None:
    """Each batch job a run submitted (``storage/batch_jobs.py``): model, provider, requests, state, age,
    expected cost; open ones first.  Nothing when no run used batch jobs."""
    import os

    from relreason_dagster.defs.status import reason

    if not os.environ.get("RELREASON_LAKE") and not (paths.relreason_home_path() / "lake").exists():
        return
    try:
        from relreason_dagster.storage.batch_jobs import status_lines
        from relreason_dagster.storage.lake import Lake

        lines = status_lines(Lake.default())
    except Exception as exc:  # noqa: BLE001 - status never raises
        print(f"batch jobs: (unavailable: {reason(exc)})")
        return
    if lines:
        print()
        for line in lines:
            print(line)
        if not lines[0].startswith("batch jobs: 0 open"):
            print("  (`relreason run` again collects the open jobs' results)")
