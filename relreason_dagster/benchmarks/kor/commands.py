"""`relreason kor rescore FILE...` and `relreason kor rescore-mixed FILE...`: KOR-Bench's own commands,
registered by the family (see ``cli/context.py``).

Plain argparse and plain Python: importing this module imports neither Dagster nor the scorer.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relreason_dagster import paths
from relreason_dagster.errors import ConfigError

if TYPE_CHECKING:
    from relreason_dagster.cli import CommandContext

RESCORE_COLUMNS = [
    "model",
    "category",
    "mode",
    "n",
    "accuracy",
    "real_life_rate",
    "table2",
    "table2_real_life",
    "file_accuracy",
    "agreement",
    "disagree",
    "skipped",
]
MISSING = "-"


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason kor rescore` (the published evaluation files, scored again by our scorer)."""
    kor = subparsers.add_parser("kor", help="KOR-Bench: re-score published evaluation files")
    korsub = kor.add_subparsers(dest="kor_cmd", required=True)
    res = korsub.add_parser(
        "rescore", help="score evaluation_<model>_<category>_<mode>.jsonl.json files; compare with is_correct"
    )
    res.add_argument("files", nargs="+", metavar="FILE")
    res.add_argument(
        "--mode",
        choices=["official", "paper", "robust"],
        default="official",
        help="official: the released files' verdicts; paper: as Table 2 was scored; robust: ours",
    )
    res.add_argument(
        "--data", default=None, help="official KOR-Bench folder (default: $RELREASON_REFERENCE_DIR/korbench)"
    )
    res.add_argument(
        "--gold", choices=["file", "data"], default="file", help="gold recorded in the file or the dataset's"
    )
    res.add_argument("--json", action="store_true", help="per-file results with every disagreement as JSON")
    res.set_defaults(handler=functools.partial(rescore, context=context))
    mix = korsub.add_parser(
        "rescore-mixed",
        help="score evaluation_<model>_mixed_<setting>.jsonl.json files (0923_mixed) as kor_mixed does; "
        "beside Table 3",
    )
    mix.add_argument("files", nargs="+", metavar="FILE")
    mix.add_argument(
        "--data", default=None, help="official KOR-Bench folder (default: $RELREASON_REFERENCE_DIR/korbench)"
    )
    mix.add_argument(
        "--gold", choices=["file", "data"], default="file", help="gold recorded in the file or the dataset's"
    )
    mix.add_argument("--json", action="store_true", help="the rows as JSON")
    mix.set_defaults(handler=functools.partial(rescore_mixed, context=context))


def _rows(results: list[Any]) -> list[dict[str, Any]]:
    """One row per file, then per model and prompt mode an ``overall`` row (correct ÷ items of its files).

    Each row carries Table 2's value beside it (``published.csv``; None until that file exists).
    """
    from relreason_dagster.benchmarks.kor.scoring.table2 import table2_value

    rows: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[Any]] = {}
    for r in results:
        groups.setdefault((r.model, r.prompt_mode), []).append(r)
        rows.append(
            {
                "file": Path(r.path).name,
                "model": r.model,
                "category": r.category,
                "prompt_mode": r.prompt_mode,
                "mode": r.mode,
                "n": r.n,
                "correct": r.correct,
                "accuracy": r.accuracy,
                "real_life_rate": r.real_life_rate,
                "file_accuracy": r.file_accuracy,
                "agreement": r.agreement,
                "disagree": len(r.disagreements),
                "skipped": len(r.skipped),
                "result": r,
            }
        )
    for (model, prompt_mode), members in groups.items():
        n = sum(r.n for r in members)
        rows.append(
            {
                "file": None,
                "model": model,
                "category": "overall",
                "prompt_mode": prompt_mode,
                "mode": members[0].mode,
                "n": n,
                "correct": sum(r.correct for r in members),
                "accuracy": sum(r.correct for r in members) / n if n else 0.0,
                "real_life_rate": None,
                "file_accuracy": sum(r.file_correct for r in members) / n if n else 0.0,
                "agreement": sum(r.agreement * r.n for r in members) / n if n else 0.0,
                "disagree": sum(len(r.disagreements) for r in members),
                "skipped": sum(len(r.skipped) for r in members),
                "categories": sorted(r.category for r in members),
                "result": None,
            }
        )
    for row in rows:
        row["table2"] = table2_value(row["model"], row["category"], "accuracy", row["prompt_mode"])
        row["table2_real_life"] = (
            table2_value(row["model"], row["category"], "real_life_ratio", row["prompt_mode"])
            if row["category"] == "counterfactual"
            else None
        )
    return rows


def _cell(value: Any) -> Any:
    if value is None:
        return MISSING
    return round(value, 4) if isinstance(value, float) else value


def rescore(args: argparse.Namespace, context: CommandContext) -> int:
    """One row per file and an ``overall`` row per model: the mode's accuracy, the counterfactual
    real-life ratio, Table 2's values beside them, the file's own accuracy and item agreement."""
    import dataclasses
    import json

    from relreason_dagster.benchmarks.kor.scoring import rescore_file

    data = Path(args.data) if args.data else paths.reference_dir() / "korbench"
    results = []
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            raise ConfigError(f"no such evaluation file: {path}")
        results.append(rescore_file(path, data, mode=args.mode, gold_source=args.gold))
    rows = _rows(results)
    if args.json:
        payload = []
        for row in rows:
            r = row.pop("result")
            if r is not None:
                row |= {
                    "gold_source": r.gold_source,
                    "disagreements": [dataclasses.asdict(d) for d in r.disagreements],
                    "gold_mismatches": list(r.gold_mismatches),
                    "skipped_records": [list(s) for s in r.skipped],
                    "reasons": r.reasons,
                }
            payload.append(row)
        print(json.dumps(payload, indent=2, default=str))
        return 0
    print(context.format_table(RESCORE_COLUMNS, [[_cell(row[c]) for c in RESCORE_COLUMNS] for row in rows]))
    for r in results:
        if r.gold_mismatches:
            print(
                f"{Path(r.path).name}: scored against the file's own gold; the dataset now differs on "
                f"items {', '.join(r.gold_mismatches)} (--gold data scores against the dataset)"
            )
    if all(row["table2"] is None for row in rows):
        print("table2: no Table 2 values found (relreason_dagster/benchmarks/kor/published.csv)")
    return 0


MIXED_COLUMNS = [
    "model",
    "setting",
    "n",
    "accuracy",
    "table3_accuracy",
    "pass_rate",
    "table3_pass_rate",
    "diff_points",
    "pooled_pass_rate",
    "file_pass_rate",
    "agreement",
    "skipped",
]


def mixed_rows(scores: list[Any]) -> list[dict[str, Any]]:
    """One row per file and an ``overall`` row per model with all three settings, Table 3 beside each.

    ``pass_rate`` is Table 3's reading (mean over records of each record's share right, as
    ``marts.kor_mixed``); ``pooled_pass_rate`` counts questions; ``diff_points`` = ours - printed, in
    points (Multi-R: Table 3 prints its accuracy as the one value).
    """
    from relreason_dagster.benchmarks.kor.mixed_release import overall
    from relreason_dagster.benchmarks.kor.scoring.table2 import published_value

    def table3(model: str, setting: str, metric: str) -> float | None:
        if setting == "Multi-R" and metric == "pass_rate":
            metric = "accuracy"  # one question per record: the printed single value
        return published_value("Table 3", model, "mixed", metric, setting)

    rows: list[dict[str, Any]] = []
    by_model: dict[str, list[Any]] = {}
    for s in scores:
        by_model.setdefault(s.model, []).append(s)
        rows.append(
            {
                "model": s.model,
                "setting": s.setting,
                "n": s.n,
                "accuracy": s.accuracy,
                "pass_rate": s.pass_rate,
                "pooled_pass_rate": s.pooled_pass_rate,
                "file_pass_rate": s.file_pass_rate,
                "agreement": s.agreement,
                "skipped": len(s.skipped),
            }
        )
    for model, members in by_model.items():
        total = overall(members)
        if total is not None:
            rows.append(
                {"model": model, "setting": "overall", "n": sum(m.n for m in members), **total}
                | {"agreement": None, "skipped": sum(len(m.skipped) for m in members)}
            )
    for row in rows:
        row["table3_accuracy"] = table3(row["model"], row["setting"], "accuracy")
        row["table3_pass_rate"] = table3(row["model"], row["setting"], "pass_rate")
        printed = row["table3_pass_rate"]
        row["diff_points"] = None if printed is None else round(100 * (row["pass_rate"] - printed), 2) or 0.0
    return rows


def rescore_mixed(args: argparse.Namespace, context: CommandContext) -> int:
    """Released mixed files judged by the family's parse; per-record and pooled pass rates, Table 3's."""
    import json

    from relreason_dagster.benchmarks.kor.mixed_release import score_file

    data = Path(args.data) if args.data else paths.reference_dir() / "korbench"
    scores = []
    for name in args.files:
        path = Path(name)
        if not path.is_file():
            raise ConfigError(f"no such evaluation file: {path}")
        scores.append(score_file(path, data, gold_source=args.gold))
    rows = mixed_rows(scores)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(context.format_table(MIXED_COLUMNS, [[_cell(row[c]) for c in MIXED_COLUMNS] for row in rows]))
    return 0
