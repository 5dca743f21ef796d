"""`relreason kor rescore FILE...`: KOR-Bench's own command, registered by the family (see ``cli.py``).

Plain argparse and plain Python: importing this module imports neither Dagster nor the scorer.
"""

from __future__ import annotations

import argparse
import functools
from typing import TYPE_CHECKING, Any

from relreason_dagster import settings
from relreason_dagster.errors import ConfigError

if TYPE_CHECKING:
    from relreason_dagster.cli import CommandContext

RESCORE_COLUMNS = [
    "model",
    "category",
    "mode",
    "n",
    "accuracy",
    "file_accuracy",
    "agreement",
    "disagree",
    "skipped",
]


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason kor rescore` (the published evaluation files, scored again by our scorer)."""
    kor = subparsers.add_parser("kor", help="KOR-Bench: re-score published evaluation files")
    korsub = kor.add_subparsers(dest="kor_cmd", required=True)
    res = korsub.add_parser(
        "rescore", help="score evaluation_<model>_<category>_<mode>.jsonl.json files; compare with is_correct"
    )
    res.add_argument("files", nargs="+", metavar="FILE")
    res.add_argument("--mode", choices=["official", "robust"], default="official")
    res.add_argument(
        "--data", default=None, help="official KOR-Bench folder (default: $RELREASON_REFERENCE_DIR/korbench)"
    )
    res.add_argument(
        "--gold", choices=["file", "data"], default="file", help="gold recorded in the file or the dataset's"
    )
    res.add_argument("--json", action="store_true", help="per-file results with every disagreement as JSON")
    res.set_defaults(handler=functools.partial(rescore, context=context))


def rescore(args: argparse.Namespace, context: CommandContext) -> int:
    """One row per file: our accuracy, the file's own, and how often the two verdicts agree."""
    import dataclasses
    import json
    from pathlib import Path

    from relreason_dagster.benchmarks.kor.scoring import rescore_file

    data = Path(args.data) if args.data else settings.reference_dir() / "korbench"
    results = []
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            raise ConfigError(f"no such evaluation file: {path}")
        results.append(rescore_file(path, data, mode=args.mode, gold_source=args.gold))
    if args.json:
        payload = [
            {
                "file": Path(r.path).name,
                **{c: getattr(r, c) for c in RESCORE_COLUMNS if c not in ("disagree", "skipped")},
                "gold_source": r.gold_source,
                "disagreements": [dataclasses.asdict(d) for d in r.disagreements],
                "gold_mismatches": list(r.gold_mismatches),
                "skipped": [list(s) for s in r.skipped],
                "reasons": r.reasons,
            }
            for r in results
        ]
        print(json.dumps(payload, indent=2, default=str))
        return 0
    rows = [
        [
            r.model,
            r.category,
            r.mode,
            r.n,
            round(r.accuracy, 4),
            round(r.file_accuracy, 4),
            round(r.agreement, 4),
            len(r.disagreements),
            len(r.skipped),
        ]
        for r in results
    ]
    print(context.format_table(RESCORE_COLUMNS, rows))
    for r in results:
        if r.gold_mismatches:
            print(
                f"{Path(r.path).name}: scored against the file's own gold; the dataset now differs on "
                f"items {', '.join(r.gold_mismatches)} (--gold data scores against the dataset)"
            )
    return 0
