"""`relreason flenqa import PATH`: FLenQA's own command, registered by the family (see ``cli/context.py``).

It reads the study's released dataset (``FLenQA_hf.jsonl`` or its parquet copy), reports what it
could not use row by row, and stores the usable rows as
``$RELREASON_HOME/imports/flenqa/FLenQA.jsonl``: the ``paper`` profile (``dataset_file: auto``) then
asks the study's exact items instead of generated ones (the import folder's listing is an input of the
samples, so the next run rebuilds them).  Plain argparse and plain Python: importing this module
imports neither Dagster nor a tokenizer.
"""

from __future__ import annotations

import argparse
import functools
import json
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relreason_dagster.cli import CommandContext

SHOWN_SKIPS = 20


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason flenqa import` (the study's released dataset, for the paper profile)."""
    flenqa = subparsers.add_parser("flenqa", help="FLenQA: import the study's released dataset")
    sub = flenqa.add_subparsers(dest="flenqa_cmd", required=True)
    imp = sub.add_parser(
        "import", help="read FLenQA_hf.jsonl (or its parquet); the paper profile then asks its rows"
    )
    imp.add_argument("path", metavar="PATH")
    imp.set_defaults(handler=functools.partial(import_dataset, context=context))


def import_dataset(args: argparse.Namespace, context: CommandContext) -> int:
    """Check every row, store the usable ones, print what was kept and each row skipped with why."""
    from relreason_dagster import paths
    from relreason_dagster.benchmarks.flenqa import dataset

    rows = dataset.read_rows(args.path)
    kept: list[dict[str, Any]] = []
    skipped: list[dataset.Skipped] = []
    cells: Counter[tuple[str, int]] = Counter()
    for number, row in enumerate(rows, start=1):
        facts, reason = dataset._check(row)
        if facts is None or row is None:
            skipped.append(dataset.Skipped(number, reason or "unreadable"))
            continue
        kept.append(row)
        cells[(facts["task"], facts["length"])] += 1
    if not kept:
        first = skipped[0] if skipped else "the file is empty"
        print(f"{args.path}: no usable FLenQA row ({len(skipped)} skipped; first: {first}); nothing imported")
        return 1
    paths.relreason_home()
    target = dataset.imported_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as handle:
        for row in kept:
            handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    tasks = sorted({t for t, _ in cells})
    lengths = sorted({n for _, n in cells})
    print(
        f"imported {len(kept)} of {len(rows)} rows from {Path(args.path).name} to {target} "
        f"(tasks {', '.join(tasks)}; lengths {', '.join(map(str, lengths))}); "
        f"`relreason run --profile paper` now asks these rows (flenqa dataset_file: auto)"
    )
    for skip in skipped[:SHOWN_SKIPS]:
        print(f"skipped {skip}")
    if len(skipped) > SHOWN_SKIPS:
        print(f"skipped {len(skipped) - SHOWN_SKIPS} more rows (same checks)")
    return 0
