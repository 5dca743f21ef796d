"""`relreason status`: what is materialized, recent runs, failed checks and row counts."""

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
    return 0
