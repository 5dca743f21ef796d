"""`relreason samples`: whole prompts and answers with gold, parsed answer and score, one sample at a
time (the per-sample join, ``marts.sample_results``)."""

from __future__ import annotations

import argparse
from typing import Any

from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.options import positive_int
from relreason_dagster.cli.results_file import check_lake
from relreason_dagster.errors import ConfigError


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason samples`."""
    from relreason_dagster.benchmarks.registry import family_names

    families = ", ".join(family_names())
    samples = subparsers.add_parser(
        "samples", help="show whole prompts and responses with gold, parsed answer and score, per sample"
    )
    samples.set_defaults(handler=cmd_samples)
    samples.add_argument("--model", default=None)
    samples.add_argument("--benchmark", default=None, help=f"only this family: {families}")
    samples.add_argument("--task", default=None)
    samples.add_argument("--setting", default=None)
    outcome = samples.add_mutually_exclusive_group()
    outcome.add_argument("--wrong", action="store_true", help="only readable answers that are not right")
    outcome.add_argument("--na", action="store_true", help="only unreadable answers (and refusals)")
    samples.add_argument(
        "--cut",
        action="store_true",
        help="only answers the token or thinking budget stopped (finish_reason length, or thinking only)",
    )
    samples.add_argument("--limit", type=positive_int, default=None, help="at most N samples")
    samples.add_argument("--json", action="store_true", help="print the samples as a JSON list")


def cmd_samples(args: argparse.Namespace) -> int:
    """`relreason samples`: whole prompts, responses, gold, parsed answer and score, one sample at a time."""
    import json

    import duckdb

    from relreason_dagster.results.readonly import open_results
    from relreason_dagster.results.samples import format_sample, sample_rows

    outcome = "wrong" if args.wrong else "na" if args.na else None
    check_lake()
    con = open_results()
    try:
        found = sample_rows(
            con,
            model=args.model,
            benchmark=args.benchmark,
            task=args.task,
            setting=args.setting,
            outcome=outcome,
            cut=args.cut,
            limit=args.limit,
        )
    except duckdb.CatalogException:
        raise ConfigError(
            "no per-sample results (marts.sample_results) yet; run `relreason run --model M` first"
        ) from None
    except duckdb.Error as exc:
        raise ConfigError(f"cannot read the samples: {str(exc).strip().splitlines()[0]}") from None
    finally:
        con.close()
    if args.json:
        print(json.dumps(found, indent=2, ensure_ascii=False, default=str))
        return 0
    if not found:
        print(
            'no samples match; `relreason sql "SELECT model, benchmark, task, setting, outcome, count(*) '
            'FROM marts.sample_results GROUP BY ALL"` shows what is stored'
        )
        return 0
    print("\n\n".join(format_sample(row) for row in found))
    print(f"\n({len(found)} sample{'s' if len(found) != 1 else ''})")
    return 0
