"""`relreason flenqa import PATH`: FLenQA's own command, registered by the family (see
``benchmarks/command_context.py``).

It reads the study's released dataset (``FLenQA_hf.jsonl`` or its parquet copy), checks every field
of every row against the release's ranges (``dataset.py``, ``release_bounds.py``) and stores the whole
file, written whole or not at all, as ``$RELREASON_HOME/imports/flenqa/FLenQA.jsonl``, or nothing of
it with one line per problem: the ``paper`` profile (``dataset_file: auto``) then
asks the study's exact items instead of generated ones (the import folder's listing is an input of the
samples, so the next run rebuilds them).  Plain argparse and plain Python: importing this module
imports neither Dagster nor a tokenizer.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.command_context import CommandContext

SHOWN_PROBLEMS = 20  # problem lines printed before "… and N more": a broken file is not 12,000 lines


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason flenqa import` (the study's released dataset, for the paper profile)."""
    flenqa = subparsers.add_parser("flenqa", help="FLenQA: import the study's released dataset")
    sub = flenqa.add_subparsers(dest="flenqa_cmd", required=True)
    imp = sub.add_parser(
        "import", help="read FLenQA_hf.jsonl (or its parquet); the paper profile then asks its rows"
    )
    imp.add_argument("path", metavar="PATH")
    imp.set_defaults(handler=functools.partial(import_dataset, context=context))
    context.add_report_option(
        "--flenqa-length",
        apply=_set_length_axis,
        choices=("target", "provider"),
        default="target",
        help="x axis of the FLenQA accuracy figures: the target length (the study's, default) or the "
        "provider-counted prompt_tokens (marts.flenqa_provider_lengths)",
    )


def _set_length_axis(axis: str) -> None:
    """`relreason report --flenqa-length`: the report module loads only when the axis changes."""
    if axis != "target":
        from relreason_dagster.benchmarks.flenqa.report import set_length_axis

        set_length_axis(axis)


def import_dataset(args: argparse.Namespace, context: CommandContext) -> int:
    """Check every row; store the whole file, or nothing of it with one line per problem.

    Why all or nothing: a run asks every stored row, so a file imported "as far as it goes" (a
    truncated download, a row out of the release's ranges) would quietly measure part of the study.
    The previous import, if any, stays as it was.  Exit 0 imported, 1 problems (printed on stderr, at
    most ``SHOWN_PROBLEMS`` then a count), 2 a file that cannot be read at all or written (a full disk,
    a read-only folder: one line, ``common/user_files.py``).
    """
    from relreason_dagster import paths
    from relreason_dagster.benchmarks.flenqa import dataset
    from relreason_dagster.common.atomic_files import atomic_open
    from relreason_dagster.common.user_files import file_error

    checked = dataset.check_file(args.path)
    name = Path(args.path).name
    if checked.problems:
        for problem in checked.problems[:SHOWN_PROBLEMS]:
            print(problem, file=sys.stderr)
        if len(checked.problems) > SHOWN_PROBLEMS:
            print(f"… and {len(checked.problems) - SHOWN_PROBLEMS:,} more", file=sys.stderr)
        print(
            f"{name}: {len(checked.problems):,} problem(s) in {checked.rows_with_problems():,} of "
            f"{checked.n_rows:,} rows; nothing imported (fix them, or download the release again)",
            file=sys.stderr,
        )
        return 1
    cells: Counter[tuple[str, int]] = Counter(
        (facts["task"], facts["length"]) for _, _, facts in checked.rows
    )
    paths.relreason_home()
    target = dataset.imported_path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(target, "w", encoding="utf-8") as handle:
            for _, row, _ in checked.rows:
                handle.write(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n")
    except OSError as exc:  # a full disk, a read-only folder: one line, the earlier import as it was
        raise file_error(
            target, exc, fix="nothing imported; set RELREASON_HOME to a folder you can write"
        ) from None
    tasks = sorted({t for t, _ in cells})
    lengths = sorted({n for _, n in cells})
    print(
        f"imported {len(checked.rows):,} rows from {name} to {target} "
        f"(tasks {', '.join(tasks)}; lengths {', '.join(map(str, lengths))}); "
        f"`relreason run --profile paper` now asks these rows (flenqa dataset_file: auto)"
    )
    return 0
