"""Self-Contra's own commands, registered by the family (see ``cli/context.py``).

`relreason selfcontra import-annotations|export-annotations|detect` move human labels in and out and
run the judge alone; `relreason run --judge M` picks the model that labels a run's responses.
Importing this module imports no Dagster: ``detect`` launches through the pipeline only when it runs,
by ``CommandContext.run_steps``, which the CLI lends (a family's folder imports neither cli nor pipeline).
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.selfcontra.detection import METHODS
from relreason_dagster.errors import ConfigError

if TYPE_CHECKING:
    from relreason_dagster.cli import CommandContext

SUMMARY_COLUMNS = [
    "file",
    "dataset",
    "split",
    "model",
    "setting",
    "n",
    "n_correct",
    "n_self_contra",
    "n_type1",
    "n_type2",
    "n_type3",
    "n_rr",
    "n_ww",
    "n_flag_conflicts",
    "skipped",
]


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason selfcontra ...` and the `--judge` option of `relreason run`."""
    context.add_run_option(
        "--judge",
        keyword="judge",
        default=None,
        help="selfcontra: the models.yaml model that labels Self-Contra (default: the profile's judge)",
    )
    sc = subparsers.add_parser(
        "selfcontra", help="Self-Contra annotations: import human labels, export for labelling"
    )
    scsub = sc.add_subparsers(dest="selfcontra_cmd", required=True)
    imp = scsub.add_parser(
        "import-annotations",
        help="import annotation CSVs (the study's shape) and print per-file counts (rates: selfcontra_scr)",
    )
    imp.add_argument("files", nargs="+", metavar="FILE")
    imp.add_argument(
        "--limit", type=context.positive_int, default=None, help="first N annotated rows of each file"
    )
    imp.add_argument("--json", action="store_true", help="print the per-file summaries as JSON")
    imp.add_argument("--dataset", default=None, help="dataset when the file name does not say it")
    imp.add_argument("--model", default=None, help="model when the file name does not say it")
    imp.add_argument("--setting", default=None, help="zero_answer|zero_reason|few_answer|few_reason")
    imp.add_argument("--split", default=None, help="anti_test|pro_test|... if the file name does not say it")
    imp.add_argument("--no-store", action="store_true", help="only print; do not write raw.annotations")
    imp.set_defaults(handler=functools.partial(import_annotations, context=context))
    det = scsub.add_parser(
        "detect", help="judge stored annotations and selfcontra responses for Self-Contra; print detection F1"
    )
    context.add_profile_options(det)
    det.add_argument("--judge", default=None, help="a models.yaml model (default: the profile's judge)")
    det.add_argument(
        "--limit", type=context.positive_int, default=None, help="annotated rows judged per file"
    )
    det.add_argument("--method", action="append", choices=list(METHODS), help="repeatable; default: profile")
    det.set_defaults(handler=functools.partial(detect, context=context))
    exp = scsub.add_parser("export-annotations", help="write selfcontra responses to a CSV for annotation")
    exp.add_argument("out", metavar="OUT.csv")
    exp.add_argument("--model", default=None)
    exp.set_defaults(handler=functools.partial(export_annotations, context=context))


def import_annotations(args: argparse.Namespace, context: CommandContext) -> int:
    """Human-labelled CSVs into ``raw.annotations``, with per-file counts as a check.

    Counts only (annotated, correct, Self-Contra, per type): the rates are computed once, in SQL
    (``marts.selfcontra_scr``), which the next `dbt build` fills from the stored rows.
    """
    import json

    from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_files

    # An unreadable file is skipped with its reason; the others still import (and are stored).
    batch = read_annotation_files(
        args.files,
        limit=args.limit,
        dataset=args.dataset,
        model=args.model,
        setting=args.setting,
        split=args.split,
    )
    results = batch.results
    stored = 0
    if results and not args.no_store:
        from relreason_dagster.benchmarks.selfcontra.annotation_store import store_batch

        con = context.writable_db()
        try:
            stored = store_batch(con, batch)
        finally:
            con.close()
    summaries = [
        {"file": Path(r.path).name, **r.summary(), "header": r.header, "columns": r.columns} for r in results
    ]
    if args.json:
        print(json.dumps({**batch.as_dict(), "files": summaries}, indent=2, default=str))
    elif results:
        rows = [
            [round(v, 4) if isinstance(v := s_.get(c), float) else v for c in SUMMARY_COLUMNS]
            for s_ in summaries
        ]
        print(context.format_table(SUMMARY_COLUMNS, rows))
        for r in results:
            if r.inference:
                print(f"{Path(r.path).name}: column roles from content: {'; '.join(r.inference)}")
            reasons: dict[str, int] = {}
            for skipped in r.skipped:
                reasons[skipped.reason] = reasons.get(skipped.reason, 0) + 1
            for reason, count in sorted(reasons.items()):
                print(f"{Path(r.path).name}: skipped {count} row(s): {reason}")
        if not args.no_store:
            print(
                f"stored {stored} annotated responses in raw.annotations ({paths.duckdb_path()}); "
                "`relreason selfcontra detect` judges them and rebuilds the marts"
            )
    if not results:
        raise ConfigError(batch.summary_line())
    if not args.json:
        print(batch.summary_line())
    return 0


# The item's WinoBias stereotype and split (anti_test, pro_test, ...), as int_selfcontra_answers derives
# it: exported with each response so labels read back keep pro and anti apart.
EXPORT_SPLIT_SQL = (
    "CASE WHEN a.task = 'winobias' THEN json_extract_string(s.variant, '$.stereotype') || '_' || "
    "json_extract_string(s.variant, '$.source_split') END"
)


def export_annotations(args: argparse.Namespace, context: CommandContext) -> int:
    """Our own stored responses as a CSV in the study's annotation shape, to be labelled by hand."""
    from relreason_dagster.benchmarks.selfcontra.annotations import export_for_annotation

    where = ["a.benchmark = 'selfcontra'", "r.error IS NULL"]
    params: list[Any] = []
    if args.model:
        where.append("a.model = ?")
        params.append(args.model)
    cols, rows = context.query(
        "SELECT a.prompt_id AS response_id, a.model, a.task AS dataset, a.setting, "
        f"{EXPORT_SPLIT_SQL} AS split, "
        "json_extract_string(p.messages, '$[0].content') AS question, r.content AS response, "
        "json_extract_string(a.detail, '$.answer') AS predicted, a.correct "
        "FROM raw.parsed_answers a JOIN raw.responses r USING (prompt_id, model) "
        "JOIN raw.prompts p USING (prompt_id) LEFT JOIN raw.samples s ON s.sample_id = a.sample_id WHERE "
        + " AND ".join(where)
        + " ORDER BY a.model, a.prompt_id",
        params,
    )
    records = [dict(zip(cols, row, strict=True)) for row in rows]
    if not records:
        raise ConfigError(
            "no selfcontra responses to export; run `relreason run --model M --benchmark selfcontra`"
        )
    count = export_for_annotation(records, Path(args.out))
    print(
        f"wrote {count} responses to {args.out}; fill in accuracy, self-contra, type, finer-grained and "
        "import it with `relreason selfcontra import-annotations`"
    )
    return 0


def detect(args: argparse.Namespace, context: CommandContext) -> int:
    """Only the judge (no benchmark model is called), then the marts; prints detection F1 per method."""
    import time

    # The options override single knobs of the profile's selfcontra section, for this run only.
    overrides: dict[str, Any] = {}
    if args.limit is not None:
        overrides["detect_limit"] = args.limit
    if args.method:
        overrides["detect_methods"] = list(args.method)
    start = time.perf_counter()
    report = context.run_steps("selfcontra", profile=args.profile, step_model=args.judge, overrides=overrides)
    context.print_report(report, time.perf_counter() - start)
    cols, rows = context.query(
        "SELECT method, judge, dataset, split, setting, model, n, n_unparsed, precision, recall, f1 "
        "FROM marts.selfcontra_detection_f1 "
        "ORDER BY method, judge, dataset, split NULLS FIRST, setting, model",
        [],
    )
    print("\n== marts.selfcontra_detection_f1 (judge vs human labels) ==")
    print(context.format_table(cols, rows))
    return 1 if report.failures else 0
