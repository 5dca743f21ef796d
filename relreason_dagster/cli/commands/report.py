"""`relreason report`: report.html and its PNGs from what is stored (read-only; a run may go on)."""

from __future__ import annotations

import argparse
from typing import Any

from relreason_dagster import paths
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.options import positive_int
from relreason_dagster.cli.results_file import check_lake
from relreason_dagster.errors import ConfigError


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason report`."""
    report = subparsers.add_parser(
        "report", help="write one self-contained HTML report (tables, a figure per study, samples)"
    )
    report.set_defaults(handler=cmd_report)
    report.add_argument(
        "--out", default=None, help="folder for report.html and its PNGs (default: $RELREASON_HOME/report)"
    )
    report.add_argument(
        "--max-samples", type=positive_int, default=500, help="answers embedded in the sample table"
    )
    applied = []
    for flag, kwargs, apply in context.report_options:  # the families' own options
        applied.append((report.add_argument(flag, **kwargs).dest, apply))
    report.set_defaults(report_option_hooks=applied)


def cmd_report(args: argparse.Namespace) -> int:
    """`relreason report`: report.html and its PNGs from what is stored (read-only; a run may go on)."""
    from pathlib import Path

    from relreason_dagster.results.readonly import open_results
    from relreason_dagster.results.report import build_report

    for dest, apply in args.report_option_hooks:
        apply(getattr(args, dest))
    out = Path(args.out).expanduser() if args.out else paths.relreason_home() / "report"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder (report.html and the PNGs go in it)")
    check_lake()
    con = open_results()
    try:
        summary = build_report(con, out, max_samples=args.max_samples, source=str(paths.duckdb_path()))
    except OSError as exc:
        raise ConfigError(f"cannot write the report to {out}: {exc.strerror}") from None
    finally:
        con.close()
    print(f"report: {summary.path}")
    print(f"figures: {len(summary.figures)} PNGs in {out}")
    print(f"samples: {summary.samples_shown} of {summary.samples_total} answers embedded")
    return 0
