"""`relreason sql QUERY`: any read-only query on the results, as a table, JSON or CSV."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.options import add_lock_wait_option
from relreason_dagster.cli.output import format_table
from relreason_dagster.cli.results_file import query


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason sql`."""
    sql = subparsers.add_parser("sql", help="run a read-only SQL query against the results")
    sql.set_defaults(handler=cmd_sql)
    sql.add_argument("query")
    sql.add_argument(
        "--max-width", type=int, default=60, help="cut table cells at N characters; 0: never (default 60)"
    )
    add_lock_wait_option(sql)
    sql_format = sql.add_mutually_exclusive_group()
    sql_format.add_argument("--json", action="store_true", help="print the rows as a JSON list, uncut")
    sql_format.add_argument("--csv", action="store_true", help="print the rows as CSV, uncut")


def _json_value(value: Any) -> Any:
    """A DuckDB value as JSON: dates and decimals as text, the rest as they are."""
    if value is None or isinstance(value, bool | int | float | str | list | dict):
        return value
    return str(value)


def cmd_sql(args: argparse.Namespace) -> int:
    """`relreason sql`: a table (``--max-width 0``: whole cells), or every value as JSON or CSV."""
    import json

    cols, rows = query(args.query, args.lock_wait)
    if args.json:
        records = [{c: _json_value(v) for c, v in zip(cols, row, strict=True)} for row in rows]
        print(json.dumps(records, indent=2, ensure_ascii=False, default=str))
    elif args.csv:
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        if cols:
            writer.writerow(cols)
        writer.writerows(rows)
    else:
        print(format_table(cols, rows, max_width=args.max_width) if cols else "(no result set)")
    return 0
