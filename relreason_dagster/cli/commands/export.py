"""`relreason export`: every mart and the per-sample results written to files (csv, parquet, jsonl)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from relreason_dagster import paths
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.output import format_table
from relreason_dagster.cli.results_file import check_lake
from relreason_dagster.errors import ConfigError


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason export`."""
    export = subparsers.add_parser("export", help="write every mart and the per-sample results to files")
    export.set_defaults(handler=cmd_export)
    export.add_argument("--format", choices=["csv", "parquet", "jsonl"], default="parquet")
    export.add_argument("--out", default=None, help="folder (default: $RELREASON_HOME/export)")


def cmd_export(args: argparse.Namespace) -> int:
    """`relreason export`: every mart and the per-sample join, one file each."""
    from pathlib import Path

    from relreason_dagster.results.export import export_results
    from relreason_dagster.results.readonly import open_results

    out = Path(args.out).expanduser() if args.out else paths.relreason_home() / "export"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder (one file per table goes in it)")
    check_lake()
    con = open_results()
    try:
        written, skipped = export_results(con, out, args.format)
    except OSError as exc:
        raise ConfigError(f"cannot write to {out}: {exc.strerror or exc}") from None
    finally:
        con.close()
    print(format_table(["table", "rows", "file"], [(e.relation, e.rows, str(e.path)) for e in written], 0))
    for relation, reason in skipped:
        print(f"skipped {relation}: {reason}", file=sys.stderr)
    return 0
