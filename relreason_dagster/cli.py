"""The `relreason` command: demo, run, models, selfcontra, kor, sql, samples, export, status, ui, worker.

Bad input ends in one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from relreason_dagster import profiles, settings
from relreason_dagster.errors import ConfigError


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 60) -> str:
    """A plain aligned text table (no extra dependency, readable in CI logs).

    Cells longer than ``max_width`` are cut with "…"; ``max_width`` 0 cuts nothing and keeps a
    cell's line breaks (a multi-line cell takes several lines, still aligned).
    """

    def cell(v: Any) -> list[str]:
        s = "NULL" if v is None else str(v)
        if max_width <= 0:
            return s.split("\n")
        s = s.replace("\n", " ")
        return [s if len(s) <= max_width else s[: max_width - 1] + "…"]

    body = [[cell(v) for v in row] for row in rows]
    widths = [
        max([len(c)] + [len(line) for r in body for line in r[i]]) for i, c in enumerate(columns)
    ]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    sep = "  ".join("-" * w for w in widths)
    out = [line, sep]
    for r in body:
        for k in range(max((len(c) for c in r), default=1)):
            parts = [(c[k] if k < len(c) else "").ljust(w) for c, w in zip(r, widths, strict=True)]
            out.append("  ".join(parts).rstrip())
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)


def _query(sql: str) -> tuple[list[str], list[tuple]]:
    return _query_params(sql, [])


def _query_params(sql: str, params: list[Any]) -> tuple[list[str], list[tuple]]:
    """``sql`` on the results file opened read-only and locked (see ``results/readonly.py``)."""
    from relreason_dagster.results.readonly import open_results, run_query

    con = open_results()
    try:
        return run_query(con, sql, params)
    finally:
        con.close()


def say(line: str) -> None:
    """A progress line on stderr, at once (stdout is the results; during a run it holds dbt's log)."""
    print(line, file=sys.stderr, flush=True)


def _print_report(report: Any, seconds: float) -> None:
    from relreason_dagster.defs.checks import check_state

    for model, c in sorted(report.calls.items()):
        print(
            f"{model}: {c['prompts']} prompts — {c['model_calls']} model calls, "
            f"{c['from_cache'] + c['already_stored']} from the cache, {c['errors']} errors"
        )
    if report.dlm:
        trained = sum(d["trained"] for d in report.dlm.values())
        reused = sum(d["reused"] for d in report.dlm.values())
        print(f"dlm: {len(report.dlm)} tasks — {trained} models trained, {reused} checkpoints reused")
    print(
        f"model calls made: {report.total_calls}; served from the cache: {report.total_cached}; "
        f"{seconds:.0f} s"
    )
    from relreason_dagster.definitions import ALL_ASSET_CHECKS

    gx_checks = {spec.name for c in ALL_ASSET_CHECKS for spec in c.check_specs}
    dbt_tests = [(name, passed) for name, passed, _ in report.checks if name not in gx_checks]
    check_rows = getattr(report, "check_rows", {})
    for name, passed, desc in report.checks:
        if name in gx_checks:
            state = check_state(passed, check_rows.get(name), name in report.warn_checks)
            print(f"check {name}: {state} — {desc}")
    if dbt_tests:
        failed = [name for name, passed in dbt_tests if not passed]
        print(
            f"dbt tests: {len(dbt_tests) - len(failed)} passed, {len(failed)} failed"
            + (f" ({', '.join(failed)})" if failed else "")
            + (f"; log: {report.dbt_log}" if report.dbt_log else "")
        )
    for failure in report.failures:
        print(f"step failed: {failure}", file=sys.stderr)


def _write_report(out: Path) -> str:
    """The run's report.html, so a run ends with something to open; a failure here never fails the run."""
    from relreason_dagster.results.readonly import open_results
    from relreason_dagster.results.report import build_report

    try:
        con = open_results()
        try:
            return str(build_report(con, out, source=str(settings.duckdb_path())).path)
        finally:
            con.close()
    except Exception as exc:  # the results are stored; only the report is missing
        return f"not written ({type(exc).__name__}: {exc}); try relreason report"


def _print_headlines(models: list[str] | None, families: list[str] | None, example: str) -> None:
    """The headline tables of what the run covered, then where to look next."""
    from relreason_dagster.results.headline import headline_tables
    from relreason_dagster.results.readonly import open_results

    con = open_results()
    try:
        tables = headline_tables(con, models=models, families=families)
    finally:
        con.close()
    for table in tables:
        print(f"\n== {table.title} ==")
        print(format_table(table.columns, table.rows))
    home = settings.relreason_home()
    plots = home / "plots"
    print()
    if plots.is_dir() and any(plots.glob("*.png")):
        print(f"plots: {plots} (one PNG per study; the Dagster UI shows them too: relreason ui)")
    report = _write_report(home / "report")
    print(f"report: {report} (open it in a browser; relreason report rewrites it)")
    print(f"next: relreason samples --model {example} --limit 3  (whole prompts and answers; --wrong, --na)")
    print('      relreason sql "SELECT * FROM marts.parse_rate"  (any table; --max-width 0, --json, --csv)')
    print("      relreason export --format parquet  (every mart and the per-sample results as files)")


def cmd_run(args: argparse.Namespace, demo: bool = False) -> int:
    from relreason_dagster.benchmarks.registry import get_family
    from relreason_dagster.dlm.plan import DLM_MODEL
    from relreason_dagster.llm.registry import enabled_models, get_model, require_api_key
    from relreason_dagster.pipeline import run_pipeline

    if demo:
        models = [*enabled_models(settings.models_path()), DLM_MODEL]
    else:
        models = list(dict.fromkeys(args.model))
    benchmarks = [args.benchmark] if getattr(args, "benchmark", None) else None
    train_size = getattr(args, "train_size", None)
    if train_size is not None and DLM_MODEL not in models:
        raise ConfigError(f"--train-size applies to --model {DLM_MODEL} only")
    # Bad input is one line and nothing else: check the cheap things before the first progress line
    # (run_pipeline checks them again, with the rest).
    settings.get_profile(args.profile, "relational")
    for name in benchmarks or []:
        get_family(name)
    for name in models:
        if name != DLM_MODEL:
            require_api_key(get_model(settings.models_path(), name))
    families = benchmarks or settings.profile_families(args.profile)
    say(
        f"relreason: {'demo' if demo else 'run'} of {', '.join(models)} on {', '.join(families)} "
        f"(profile {args.profile}, results in {settings.relreason_home()})"
    )
    say("relreason: loading the pipeline (Dagster definitions, dbt manifest) ...")
    start = time.perf_counter()
    report = run_pipeline(
        models,
        profile=args.profile,
        benchmarks=benchmarks,
        seed=args.seed,
        dlm_train_size=train_size,
        judge=getattr(args, "judge", None),
    )
    say(f"relreason: finished in {time.perf_counter() - start:.0f} s; results:")
    _print_report(report, time.perf_counter() - start)
    if settings.duckdb_path().exists():
        _print_headlines(None if demo else models, None if demo else families, models[0])
    return 1 if report.failures else 0


SUMMARY_COLUMNS = [
    "file",
    "dataset",
    "model",
    "setting",
    "n",
    "accuracy",
    "scr",
    "n_type1",
    "n_type2",
    "n_type3",
    "n_rr",
    "n_ww",
    "skipped",
]


def _writable_db() -> Any:
    import duckdb

    from relreason_dagster.storage.duckdb_io import connect

    path = settings.duckdb_path()
    try:
        return connect(path)
    except duckdb.IOException as exc:
        raise ConfigError(f"cannot write {path} ({str(exc).splitlines()[0]}); is a run writing it?") from None


def cmd_selfcontra(args: argparse.Namespace) -> int:
    """`relreason selfcontra import-annotations|export-annotations`."""
    import json
    from pathlib import Path

    from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_files

    if args.selfcontra_cmd == "import-annotations":
        # An unreadable file is skipped with its reason; the others still import (and are stored).
        batch = read_annotation_files(
            args.files, limit=args.limit, dataset=args.dataset, model=args.model, setting=args.setting
        )
        results = batch.results
        stored = 0
        if results and not args.no_store:
            from relreason_dagster.storage.annotations import store_batch

            con = _writable_db()
            try:
                stored = store_batch(con, batch)
            finally:
                con.close()
        summaries = [
            {"file": Path(r.path).name, **r.summary(), "header": r.header, "columns": r.columns}
            for r in results
        ]
        if args.json:
            print(json.dumps({**batch.as_dict(), "files": summaries}, indent=2, default=str))
        elif results:
            rows = [
                [round(v, 4) if isinstance(v := s_.get(c), float) else v for c in SUMMARY_COLUMNS]
                for s_ in summaries
            ]
            print(format_table(SUMMARY_COLUMNS, rows))
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
                    f"stored {stored} annotated responses in raw.annotations ({settings.duckdb_path()}); "
                    "`relreason selfcontra detect` judges them and rebuilds the marts"
                )
        if not results:
            raise ConfigError(batch.summary_line())
        if not args.json:
            print(batch.summary_line())
        return 0
    if args.selfcontra_cmd == "export-annotations":
        from relreason_dagster.benchmarks.selfcontra.annotations import export_for_annotation

        where = ["a.benchmark = 'selfcontra'", "r.error IS NULL"]
        params: list[Any] = []
        if args.model:
            where.append("a.model = ?")
            params.append(args.model)
        cols, rows = _query_params(
            "SELECT a.prompt_id AS response_id, a.model, a.task AS dataset, a.setting, "
            "json_extract_string(p.messages, '$[0].content') AS question, r.content AS response, "
            "json_extract_string(a.detail, '$.answer') AS predicted, a.correct "
            "FROM raw.parsed_answers a JOIN raw.responses r USING (prompt_id, model) "
            "JOIN raw.prompts p USING (prompt_id) WHERE "
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
    if args.selfcontra_cmd == "detect":
        from relreason_dagster.pipeline import run_detection

        start = time.perf_counter()
        report = run_detection(profile=args.profile, judge=args.judge, limit=args.limit, methods=args.method)
        _print_report(report, time.perf_counter() - start)
        cols, rows = _query(
            "SELECT method, judge, dataset, model, n, n_unparsed, precision, recall, f1 "
            "FROM marts.selfcontra_detection_f1 ORDER BY method, judge, dataset, model"
        )
        print("\n== marts.selfcontra_detection_f1 (judge vs human labels) ==")
        print(format_table(cols, rows))
        return 1 if report.failures else 0
    raise ConfigError(f"unknown selfcontra command {args.selfcontra_cmd!r}")


KOR_COLUMNS = [
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


def cmd_kor(args: argparse.Namespace) -> int:
    """`relreason kor rescore FILE...`: re-score published KOR-Bench evaluation files."""
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
                **{c: getattr(r, c) for c in KOR_COLUMNS if c not in ("disagree", "skipped")},
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
    print(format_table(KOR_COLUMNS, rows))
    for r in results:
        if r.gold_mismatches:
            print(
                f"{Path(r.path).name}: scored against the file's own gold; the dataset now differs on "
                f"items {', '.join(r.gold_mismatches)} (--gold data scores against the dataset)"
            )
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from relreason_dagster.llm.registry import add_model, load_registry

    path = settings.models_path()
    if args.models_cmd == "add":
        params: dict[str, Any] = {}
        for item in args.param or []:
            if "=" not in item:
                raise ConfigError(f"--param {item!r}: expected KEY=VALUE, e.g. --param temperature=0")
            key, value = item.split("=", 1)
            params[key] = _coerce(value)
        add_model(
            path,
            args.name,
            args.litellm_model,
            params=params or None,
            concurrency=args.concurrency,
            api_base=args.api_base,
            api_key_env=args.api_key_env,
        )
        print(
            f"added model {args.name!r} ({args.litellm_model}) to {path}; "
            f"run `relreason run --model {args.name}` to compute its responses only"
        )
        return 0
    registry = load_registry(path)
    rows = [
        (
            s.name,
            s.litellm_model,
            "yes" if s.enabled else "no",
            s.concurrency,
            s.api_key_env or "",
            s.api_base or "",
        )
        for s in registry.values()
    ]
    rows.append(("dlm", "(built in: Differentiable Logic Machine, trained per task)", "yes", 1, "", ""))
    print(format_table(["name", "litellm_model", "enabled", "concurrency", "api_key_env", "api_base"], rows))
    return 0


def _coerce(value: str) -> Any:
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(value.lower(), value)


def _json_value(value: Any) -> Any:
    """A DuckDB value as JSON: dates and decimals as text, the rest as they are."""
    if value is None or isinstance(value, bool | int | float | str | list | dict):
        return value
    return str(value)


def cmd_sql(args: argparse.Namespace) -> int:
    """`relreason sql`: a table (``--max-width 0``: whole cells), or every value as JSON or CSV."""
    import json

    cols, rows = _query(args.query)
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


def cmd_samples(args: argparse.Namespace) -> int:
    """`relreason samples`: whole prompts, responses, gold, parsed answer and score, one sample at a time."""
    import json

    import duckdb

    from relreason_dagster.results.readonly import open_results
    from relreason_dagster.results.samples import format_sample, sample_rows

    outcome = "wrong" if args.wrong else "na" if args.na else None
    con = open_results()
    try:
        found = sample_rows(
            con,
            model=args.model,
            benchmark=args.benchmark,
            task=args.task,
            setting=args.setting,
            outcome=outcome,
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
        print("no samples match; `relreason sql \"SELECT model, benchmark, task, setting, outcome, count(*) "
              "FROM marts.sample_results GROUP BY ALL\"` shows what is stored")
        return 0
    print("\n\n".join(format_sample(row) for row in found))
    print(f"\n({len(found)} sample{'s' if len(found) != 1 else ''})")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """`relreason export`: every mart and the per-sample join, one file each."""
    from pathlib import Path

    from relreason_dagster.results.export import export_results
    from relreason_dagster.results.readonly import open_results

    out = Path(args.out).expanduser() if args.out else settings.relreason_home() / "export"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder (one file per table goes in it)")
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


def cmd_status(args: argparse.Namespace) -> int:
    """`relreason status`: answers stored, recent runs and failed checks first, then the detail.

    It never raises: each section that cannot be read prints one "(unavailable: reason)" line
    (``defs/status.py``); only a bad ``--profile`` is an error, as for every command.
    """
    home = settings.relreason_home_path()
    if not home.is_dir():
        print(
            f"no results yet: RELREASON_HOME={home} does not exist; "
            "run `relreason demo` or `relreason run --model M` first"
        )
        return 0
    settings.get_profile(args.profile, "relational")  # bad input: one line, exit 2
    from relreason_dagster.defs.status import StatusReport, reason
    from relreason_dagster.pipeline import prepare_environment

    try:
        prepare_environment(args.profile)
    except Exception as exc:  # noqa: BLE001 - the sections below say what this leaves unavailable
        print(f"(setting up the Dagster home failed: {reason(exc)})")
    StatusReport(settings.duckdb_path, print, format_table).print_all()
    return 0


def cmd_ui(args: argparse.Namespace) -> int:
    from relreason_dagster.pipeline import prepare_environment

    prepare_environment(args.profile)
    cmd = [
        os.path.join(os.path.dirname(sys.executable), "dagster"),
        "dev",
        "-h",
        "127.0.0.1",
        "-p",
        str(args.port),
        "-w",
        str(settings.REPO_ROOT / "workspace.yaml"),
    ]
    print(f"Dagster UI on http://127.0.0.1:{args.port} (Ctrl-C stops it)")
    # dagster dev ignores SIGINT when inherited as ignored; restore the default for the child.
    proc = subprocess.Popen(cmd, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        return proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        return proc.wait()


def cmd_worker(args: argparse.Namespace) -> int:
    """`relreason worker`: a Celery worker for RELREASON_EXECUTOR=celery runs, on this or another machine."""
    import shutil

    from relreason_dagster.defs.partitions import DUCKDB_QUEUE, MODEL_QUEUE
    from relreason_dagster.pipeline import prepare_environment

    broker = args.broker or os.environ.get("RELREASON_CELERY_BROKER", "")
    if not broker:
        raise ConfigError(
            "relreason worker needs --broker URL or RELREASON_CELERY_BROKER (e.g. redis://host:6379/0)"
        )
    prepare_environment(args.profile)
    celery = os.path.join(os.path.dirname(sys.executable), "celery")
    if not os.path.exists(celery):
        celery = shutil.which("celery") or ""
    if not celery:
        raise ConfigError("relreason worker needs Celery: pip install -e '.[distributed]'")
    queues = [MODEL_QUEUE] if args.models_only else [MODEL_QUEUE, DUCKDB_QUEUE]
    os.environ["RELREASON_CELERY_BROKER"] = broker
    backend = os.environ.get("RELREASON_CELERY_BACKEND") or broker
    # dagster-celery reads worker settings from a module named dagster_celery_config on the path.  A busy
    # worker must not reserve a second step (it would wait behind the first while another worker idles).
    conf_dir = settings.relreason_home() / "celery"  # dagster-celery imports it from PYTHONPATH
    conf_dir.mkdir(parents=True, exist_ok=True)
    (conf_dir / "dagster_celery_config.py").write_text(
        "# Written by `relreason worker`.\nworker_prefetch_multiplier = 1\ntask_acks_late = True\n"
    )
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(conf_dir), os.environ.get("PYTHONPATH")) if p)
    cmd = [
        celery,
        "-A",
        "dagster_celery.app",
        "-b",
        broker,
        "--result-backend",
        backend,
        "worker",
        "-Q",
        ",".join(queues),
        "-n",
        f"{args.name}@%h",
        "-l",
        "WARNING",
        "--without-gossip",
        "--without-mingle",
        # One process that runs one step at a time: the local model is loaded once per worker process.
        "--pool",
        "solo",
    ]
    print(
        f"relreason worker {args.name}: queues {', '.join(queues)} on {broker} (Ctrl-C stops it)", flush=True
    )
    os.execv(cmd[0], cmd)
    return 0  # not reached


def cmd_report(args: argparse.Namespace) -> int:
    """`relreason report`: report.html and its PNGs from what is stored (read-only; a run may go on)."""
    from pathlib import Path

    from relreason_dagster.results.readonly import open_results
    from relreason_dagster.results.report import build_report

    out = Path(args.out).expanduser() if args.out else settings.relreason_home() / "report"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder (report.html and the PNGs go in it)")
    con = open_results()
    try:
        summary = build_report(con, out, max_samples=args.max_samples, source=str(settings.duckdb_path()))
    except OSError as exc:
        raise ConfigError(f"cannot write the report to {out}: {exc.strerror}") from None
    finally:
        con.close()
    print(f"report: {summary.path}")
    print(f"figures: {len(summary.figures)} PNGs in {out}")
    print(f"samples: {summary.samples_shown} of {summary.samples_total} answers embedded")
    return 0


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the fix (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="relreason", description="Measure how well language models reason.")
    sub = parser.add_subparsers(dest="cmd", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument(
            "--profile",
            default=os.environ.get("RELREASON_PROFILE", settings.DEFAULT_PROFILE),
            help="size profile: smoke, paper, or one of the profile file's (default: smoke)",
        )
        p.add_argument(
            "--profile-file",
            default=None,
            metavar="PATH",
            help="YAML file of user profiles (default: $RELREASON_PROFILES, else ./relreason.yaml)",
        )
        p.add_argument("--seed", type=int, default=settings.DEFAULT_SEED)

    demo = sub.add_parser(
        "demo", help="materialize everything at the smoke profile and print the result tables"
    )
    common(demo)
    run = sub.add_parser("run", help="compute models' responses (cached) and the metric tables")
    common(run)
    run.add_argument(
        "--model",
        required=True,
        action="append",
        help="a model of models.yaml, or dlm (the trained baseline); repeat to run several side by side",
    )
    run.add_argument("--benchmark", default=None)
    run.add_argument(
        "--judge",
        default=None,
        help="selfcontra: the models.yaml model that labels Self-Contra (default: the profile's judge)",
    )
    run.add_argument(
        "--train-size",
        type=_positive_int,
        default=None,
        help="dlm only: train on N samples (default: the profile's, i.e. the prompts' few-shot samples)",
    )

    models = sub.add_parser("models", help="list or add models in models.yaml")
    msub = models.add_subparsers(dest="models_cmd", required=True)
    msub.add_parser("list")
    add = msub.add_parser("add")
    add.add_argument("name")
    add.add_argument("litellm_model")
    add.add_argument("--param", action="append", help="generation parameter KEY=VALUE (repeatable)")
    add.add_argument("--concurrency", type=int, default=None)
    add.add_argument("--api-base", default=None)
    add.add_argument("--api-key-env", default=None, help="NAME of the environment variable holding the key")

    sc = sub.add_parser(
        "selfcontra", help="Self-Contra annotations: import human labels, export for labelling"
    )
    scsub = sc.add_subparsers(dest="selfcontra_cmd", required=True)
    imp = scsub.add_parser(
        "import-annotations",
        help="import annotation CSVs (the study's shape) and print accuracy/SCR per file",
    )
    imp.add_argument("files", nargs="+", metavar="FILE")
    imp.add_argument("--limit", type=_positive_int, default=None, help="first N annotated rows of each file")
    imp.add_argument("--json", action="store_true", help="print the per-file summaries as JSON")
    imp.add_argument("--dataset", default=None, help="dataset when the file name does not say it")
    imp.add_argument("--model", default=None, help="model when the file name does not say it")
    imp.add_argument("--setting", default=None, help="zero_answer|zero_reason|few_answer|few_reason")
    imp.add_argument("--no-store", action="store_true", help="only print; do not write raw.annotations")
    det = scsub.add_parser(
        "detect", help="judge stored annotations and selfcontra responses for Self-Contra; print detection F1"
    )
    common(det)
    det.add_argument("--judge", default=None, help="a models.yaml model (default: the profile's judge)")
    det.add_argument("--limit", type=_positive_int, default=None, help="annotated rows judged per file")
    det.add_argument(
        "--method", action="append", choices=["iro", "binary", "fge"], help="repeatable; default: profile"
    )
    exp = scsub.add_parser("export-annotations", help="write selfcontra responses to a CSV for annotation")
    exp.add_argument("out", metavar="OUT.csv")
    exp.add_argument("--model", default=None)

    kor = sub.add_parser("kor", help="KOR-Bench: re-score published evaluation files")
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

    sql = sub.add_parser("sql", help="run a read-only SQL query against the results")
    sql.add_argument("query")
    sql.add_argument(
        "--max-width", type=int, default=60, help="cut table cells at N characters; 0: never (default 60)"
    )
    sql_format = sql.add_mutually_exclusive_group()
    sql_format.add_argument("--json", action="store_true", help="print the rows as a JSON list, uncut")
    sql_format.add_argument("--csv", action="store_true", help="print the rows as CSV, uncut")
    samples = sub.add_parser(
        "samples", help="show whole prompts and responses with gold, parsed answer and score, per sample"
    )
    samples.add_argument("--model", default=None)
    samples.add_argument("--benchmark", default=None)
    samples.add_argument("--task", default=None)
    samples.add_argument("--setting", default=None)
    outcome = samples.add_mutually_exclusive_group()
    outcome.add_argument("--wrong", action="store_true", help="only readable answers that are not right")
    outcome.add_argument("--na", action="store_true", help="only unreadable answers (and refusals)")
    samples.add_argument("--limit", type=_positive_int, default=None, help="at most N samples")
    samples.add_argument("--json", action="store_true", help="print the samples as a JSON list")
    export = sub.add_parser("export", help="write every mart and the per-sample results to files")
    export.add_argument("--format", choices=["csv", "parquet", "jsonl"], default="parquet")
    export.add_argument("--out", default=None, help="folder (default: $RELREASON_HOME/export)")
    status = sub.add_parser("status", help="what is materialized, check results, row counts")
    common(status)
    worker = sub.add_parser(
        "worker", help="run a Celery worker for RELREASON_EXECUTOR=celery (here or on another machine)"
    )
    common(worker)
    worker.add_argument("--broker", default=None, help="broker URL (default: RELREASON_CELERY_BROKER)")
    worker.add_argument("--name", default=f"relreason-{os.getpid()}", help="worker name (unique per machine)")
    worker.add_argument(
        "--models-only",
        action="store_true",
        help="serve model calls only (a machine without the DuckDB file; needs the shared RELREASON_LAKE)",
    )
    ui = sub.add_parser("ui", help="start the Dagster UI on 127.0.0.1")
    common(ui)
    ui.add_argument("--port", type=int, default=3000)
    report = sub.add_parser(
        "report", help="write one self-contained HTML report (tables, a figure per study, samples)"
    )
    report.add_argument(
        "--out", default=None, help="folder for report.html and its PNGs (default: $RELREASON_HOME/report)"
    )
    report.add_argument(
        "--max-samples", type=_positive_int, default=500, help="answers embedded in the sample table"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "profile_file"):  # every process of the run reads this one file (env)
            profiles.use_profile_file(args.profile_file)
        if args.cmd == "demo":
            return cmd_run(args, demo=True)
        if args.cmd == "run":
            return cmd_run(args)
        if args.cmd == "models":
            return cmd_models(args)
        if args.cmd == "sql":
            return cmd_sql(args)
        if args.cmd == "samples":
            return cmd_samples(args)
        if args.cmd == "export":
            return cmd_export(args)
        if args.cmd == "selfcontra":
            return cmd_selfcontra(args)
        if args.cmd == "kor":
            return cmd_kor(args)
        if args.cmd == "status":
            return cmd_status(args)
        if args.cmd == "ui":
            return cmd_ui(args)
        if args.cmd == "worker":
            return cmd_worker(args)
        if args.cmd == "report":
            return cmd_report(args)
    except ConfigError as exc:
        print(f"relreason: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("relreason: interrupted; stored responses are kept, rerun to resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
