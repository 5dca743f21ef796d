"""The `relreason` command: demo, run, models, sql, samples, export, status, ui, worker, report, and
each benchmark family's own commands (registered by its ``commands.py``, see :class:`CommandContext`).

Bad input ends in one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from relreason_dagster import env, paths, profiles
from relreason_dagster.benchmarks.base import MAX_LIMIT, MAX_SAMPLES
from relreason_dagster.errors import ConfigError

_STARTED = time.perf_counter()  # the time split `relreason run` prints counts startup from here


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
    widths = [max([len(c)] + [len(line) for r in body for line in r[i]]) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    sep = "  ".join("-" * w for w in widths)
    out = [line, sep]
    for r in body:
        for k in range(max((len(c) for c in r), default=1)):
            parts = [(c[k] if k < len(c) else "").ljust(w) for c, w in zip(r, widths, strict=True)]
            out.append("  ".join(parts).rstrip())
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)


def _query(sql: str, wait_s: float | None = None) -> tuple[list[str], list[tuple]]:
    return _query_params(sql, [], wait_s)


def _query_params(sql: str, params: list[Any], wait_s: float | None = None) -> tuple[list[str], list[tuple]]:
    """``sql`` on the results file opened read-only and locked (see ``results/readonly.py``).

    Damaged lake files are moved aside first (a quick footer check, as every reader does), and a
    query that still fails is asked once more after every page of the lake was read (a file damaged
    inside, not at its end): one bad file must not fail every later query of every model.
    """
    from relreason_dagster.results.readonly import open_results, run_query

    _check_lake()
    for attempt in range(2):
        con = open_results(wait_s=wait_s)
        try:
            return run_query(con, sql, params)
        except ConfigError:
            if attempt or not _check_lake(deep=True):
                raise
        finally:
            con.close()
    raise AssertionError("unreachable")


def say(line: str) -> None:
    """A progress line on stderr, at once (stdout is the results; during a run it holds dbt's log)."""
    print(line, file=sys.stderr, flush=True)


def _print_report(report: Any, seconds: float) -> None:
    from relreason_dagster.common.gx_validation import check_state
    from relreason_dagster.pipeline import no_space

    lake_counted = set(getattr(report, "lake_counted", []))
    for model, c in sorted(report.calls.items()):
        follow_ups, shared = c.get("follow_ups", 0), c.get("shared_prompts", 0)
        prompts = f"{c['prompts']} prompts" if c["prompts"] or model not in lake_counted else ""
        print(
            f"{model}: {prompts}"
            + (f" and {follow_ups} follow-up prompts" if follow_ups else "")
            + (" — " if prompts or follow_ups else "")
            + f"{c['model_calls']} model calls, "
            + (f"{shared} prompts sharing an identical call, " if shared else "")
            + f"{c['from_cache'] + c['already_stored']} from the cache, {c['errors']} errors"
            + (
                f", after waiting {waited:.1f} s for another run of this model"
                if (waited := getattr(report, "waited_s", {}).get(model))
                else ""
            )
            + (" (counted in the lake: a step did not report them)" if model in lake_counted else "")
        )
    for baseline, tasks in report.baselines.items():
        trained = sum(d["trained"] for d in tasks.values())
        reused = sum(d["reused"] for d in tasks.values())
        print(f"{baseline}: {len(tasks)} tasks — {trained} models trained, {reused} checkpoints reused")
    print(
        f"model calls made: {report.total_calls}; served from the cache: {report.total_cached}; "
        f"{seconds:.0f} s"
    )
    gx_checks = set(report.gx_checks)
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
    full_disk = False
    for failure in report.failures:
        if no_space(failure):  # one line for a full disk, not one SQLite or DuckDB error per step
            full_disk = True
        else:
            print(f"step failed: {failure}", file=sys.stderr)
    if full_disk:
        _say_no_space()
    for model, why in sorted(getattr(report, "answered_nothing", {}).items()):
        print(
            f"relreason: {model} answered nothing: {why}; check its api_base, API key and server "
            "(relreason models list), then run again",
            file=sys.stderr,
        )


def _write_report(out: Path, unchanged_since: float | None = None) -> str:
    """The run's report.html, so a run ends with something to open; a failure here never fails the run.

    After a launch that was skipped because nothing changed since the one that finished at
    ``unchanged_since``, a report written after that launch already shows these results (rendering
    its figures takes seconds of the few a skipped launch costs).
    """
    from relreason_dagster.results.readonly import open_results
    from relreason_dagster.results.report import REPORT_NAME, build_report

    written = out / REPORT_NAME
    if unchanged_since is not None and written.is_file() and written.stat().st_mtime >= unchanged_since:
        return str(written)
    try:
        con = open_results()
        try:
            return str(build_report(con, out, source=str(paths.duckdb_path())).path)
        finally:
            con.close()
    except Exception as exc:  # the results are stored; only the report is missing
        return f"not written ({type(exc).__name__}: {exc}); try relreason report"


def _print_headlines(
    models: list[str] | None,
    families: list[str] | None,
    example: str,
    unchanged_since: float | None = None,
) -> None:
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
    home = paths.relreason_home()
    plots = home / "plots"
    print()
    if plots.is_dir() and any(plots.glob("*.png")):
        print(f"plots: {plots} (one PNG per study; the Dagster UI shows them too: relreason ui)")
    report = _write_report(home / "report", unchanged_since)
    print(f"report: {report} (open it in a browser; relreason report rewrites it)")
    print(f"next: relreason samples --model {example} --limit 3  (whole prompts and answers; --wrong, --na)")
    print('      relreason sql "SELECT * FROM marts.parse_rate"  (any table; --max-width 0, --json, --csv)')
    print("      relreason export --format parquet  (every mart and the per-sample results as files)")


def cmd_run(args: argparse.Namespace, demo: bool = False, run_keywords: dict[str, str] | None = None) -> int:
    """`relreason run` / `relreason demo`; ``run_keywords`` are the run options families added
    (``CommandContext.add_run_option``): run_pipeline keyword -> attribute of ``args``."""
    from relreason_dagster.benchmarks.registry import baseline_names
    from relreason_dagster.launch_plan import build_plan
    from relreason_dagster.llm.study_models import registry_models, said_missing_key
    from relreason_dagster.pipeline import run_pipeline

    if demo or not args.model:  # the registry's models; a dry run lists those without a key too
        models = registry_models(paths.models_path(), keep_missing_keys=getattr(args, "dry_run", False))
        models += baseline_names() if demo else []
    else:
        models = list(dict.fromkeys(args.model))
    benchmarks = [args.benchmark] if getattr(args, "benchmark", None) else None
    model_options = _model_options(getattr(args, "model_option", None))
    family_options = {keyword: getattr(args, dest) for keyword, dest in (run_keywords or {}).items()}
    # Bad input is one line and nothing else: the launch is resolved and checked once, here, before the
    # first progress line and before anything is written (launch_plan.py); the runs get it by value.
    # A dry run calls nothing: a registry model without its key is listed (said once), not checked.
    dry = getattr(args, "dry_run", False)
    plan = build_plan(
        [m for m in models if not (dry and said_missing_key(m))],
        profile=args.profile,
        benchmarks=benchmarks,
        seed=args.seed,
        samples=getattr(args, "samples", None),
        limit=getattr(args, "limit", None),
        model_options=model_options,
        dlm_train_size=getattr(args, "train_size", None),
        judge=family_options.get("judge"),  # run_pipeline's keyword too (the plan carries it)
    )
    families = benchmarks or sorted(plan.sections)
    if getattr(args, "dry_run", False):
        return _dry_run(args, models, benchmarks, model_options)
    say(
        f"relreason: {'demo' if demo else 'run'} of {', '.join(models)} on {', '.join(families)} "
        f"(profile {args.profile}, results in {paths.relreason_home()})"
    )
    start = time.perf_counter()
    try:
        report = run_pipeline(
            models,
            plan=plan,
            rerun=args.rerun,
            on_launch=lambda: say("relreason: loading the pipeline (Dagster definitions, dbt manifest) ..."),
            launch=launch_options(args),
            **family_options,
        )
    except Exception as exc:
        if not _report_no_space(exc):
            raise
        return 1
    pipeline_s = time.perf_counter() - start
    if report.unchanged_since is not None:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(report.unchanged_since))
        say(
            f"relreason: nothing changed since the run that finished {when} (same code, settings, "
            "models, stored answers and database), so no run was started; its report and results "
            "follow (--rerun starts the runs anyway)"
        )
    else:
        say(f"relreason: finished in {pipeline_s:.0f} s; results:")
    _print_report(report, pipeline_s)
    if paths.duckdb_path().exists():
        try:
            _print_headlines(
                None if demo else models, None if demo else families, models[0], report.unchanged_since
            )
        except Exception as exc:
            if not _report_no_space(exc):
                raise
            return 1
    total = time.perf_counter() - _STARTED
    say(
        f"relreason: {total:.1f} s in all: startup {start - _STARTED:.1f} s, "
        f"up-to-date check {report.check_seconds:.1f} s, runs {pipeline_s - report.check_seconds:.1f} s, "
        f"results {time.perf_counter() - start - pipeline_s:.1f} s"
    )
    return 1 if report.failures or getattr(report, "answered_nothing", None) else 0


def _dry_run(
    args: argparse.Namespace, models: list[str], benchmarks: list[str] | None, options: dict[str, Any]
) -> int:
    """`relreason run --dry-run`: per model, the prompts, the calls still to make, tokens and cost."""
    from relreason_dagster.dry_run import estimate

    found = estimate(
        models,
        profile=args.profile,
        benchmarks=benchmarks,
        seed=args.seed,
        samples=getattr(args, "samples", None),
        model_options=options or None,
        limit=getattr(args, "limit", None),
    )
    columns = [
        "model",
        "prompts",
        "requests",
        "stored",
        "calls",
        "input_tokens",
        "max_output_tokens",
        "est_cost_usd",
        "note",
    ]
    rows = [
        [
            e.model,
            e.prompts,
            e.requests,
            e.stored,
            e.calls,
            e.input_tokens,
            e.max_output_tokens,
            "unknown" if e.cost_usd is None else f"{e.cost_usd:.4f}",
            e.note,
        ]
        for e in found
    ]
    print(format_table(columns, rows))
    say(
        "relreason: dry run, no model was called; est_cost_usd prices input_tokens and max_output_tokens "
        "(an upper bound) with LiteLLM's offline cost map"
    )
    return 0


def _model_options(items: Sequence[str] | None) -> dict[str, Any]:
    """``-M KEY=VALUE`` options as a dict, each value read as YAML (0.7 a number, low a string)."""
    options: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"-M {item!r}: expected KEY=VALUE, e.g. -M temperature=0 or -M api_base=URL")
        options[key.strip()] = _coerce(value)
    return options


def _check_lake(*, deep: bool = False) -> bool:
    """Move damaged lake files aside (one line each) before a reader's views read every model's files;
    whether any was moved.  ``deep`` reads every page, not only each file's footer."""
    from relreason_dagster.storage.lake import Lake

    if not paths.relreason_home_path().is_dir():
        return False
    return bool(Lake.default().check(deep=deep))


_SAID: set[str] = set()  # lines said once per command, however many steps or readers hit the cause


def _say_no_space() -> None:
    from relreason_dagster.pipeline import no_space_line

    line = f"relreason: {no_space_line()}"
    if line not in _SAID:
        _SAID.add(line)
        print(line, file=sys.stderr)


def _report_no_space(exc: BaseException) -> bool:
    """Print the one line of a full disk if ``exc`` is one (then the caller exits 1); else False."""
    from relreason_dagster.pipeline import no_space

    if not no_space(exc):
        return False
    _say_no_space()
    return True


def _writable_db() -> Any:
    import duckdb

    from relreason_dagster.storage.duckdb_io import connect

    path = paths.duckdb_path()
    try:
        return connect(path)
    except duckdb.IOException as exc:
        raise ConfigError(f"cannot write {path} ({str(exc).splitlines()[0]}); is a run writing it?") from None


def cmd_models(args: argparse.Namespace) -> int:
    from relreason_dagster.benchmarks.registry import baseline_names, get_baseline
    from relreason_dagster.llm.registry import add_model, load_registry

    path = paths.models_path()
    if args.models_cmd == "add" and (args.study or not (args.name and args.litellm_model)):
        from relreason_dagster.llm.study_models import add_study_command

        return add_study_command(path, args.study, args.name)
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
            workers=args.workers,
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
            s.workers,
            s.transport_used,  # how its calls are sent (llm/direct_transport.py): direct or litellm
            s.api_key_env or "",
            s.api_base or "",
        )
        for s in registry.values()
    ]
    for name in baseline_names():
        baseline = get_baseline(name)
        rows.append((name, f"(built in: {baseline.description}, trained per task)", "yes", 1, 1, "-", "", ""))
    headers = "name litellm_model enabled concurrency workers transport api_key_env api_base".split()
    print(format_table(headers, rows))
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

    cols, rows = _query(args.query, args.lock_wait)
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
    _check_lake()
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
        print(
            'no samples match; `relreason sql "SELECT model, benchmark, task, setting, outcome, count(*) '
            'FROM marts.sample_results GROUP BY ALL"` shows what is stored'
        )
        return 0
    print("\n\n".join(format_sample(row) for row in found))
    print(f"\n({len(found)} sample{'s' if len(found) != 1 else ''})")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """`relreason export`: every mart and the per-sample join, one file each."""
    from pathlib import Path

    from relreason_dagster.results.export import export_results
    from relreason_dagster.results.readonly import open_results

    out = Path(args.out).expanduser() if args.out else paths.relreason_home() / "export"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder (one file per table goes in it)")
    _check_lake()
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
    home = paths.relreason_home_path()
    if not home.is_dir():
        print(
            f"no results yet: RELREASON_HOME={home} does not exist; "
            "run `relreason demo` or `relreason run --model M` first"
        )
        return 0
    profiles.profile_families(args.profile)  # bad input: one line, exit 2
    from relreason_dagster.defs.status import StatusReport, reason
    from relreason_dagster.pipeline import prepare_environment

    try:
        prepare_environment(args.profile)
    except Exception as exc:  # noqa: BLE001 - the sections below say what this leaves unavailable
        print(f"(setting up the Dagster home failed: {reason(exc)})")
    StatusReport(paths.duckdb_path, print, format_table).print_all()
    return 0


def cmd_ui(args: argparse.Namespace) -> int:
    from relreason_dagster.pipeline import prepare_environment

    prepare_environment(args.profile)
    # The UI's definitions load in `dagster dev`'s processes: they take the profile (and its file) this
    # command was given as their default, through that child's environment only.
    child_env = {**os.environ, "RELREASON_PROFILE": args.profile}
    chosen = profiles.profile_file()
    if chosen is not None:
        child_env[profiles.PROFILE_FILE_ENV] = str(chosen)
    cmd = [
        os.path.join(os.path.dirname(sys.executable), "dagster"),
        "dev",
        "-h",
        "127.0.0.1",
        "-p",
        str(args.port),
        "-w",
        str(paths.REPO_ROOT / "workspace.yaml"),
    ]
    print(f"Dagster UI on http://127.0.0.1:{args.port} (Ctrl-C stops it)", flush=True)
    return _serve_ui(cmd, child_env)


# How long `dagster dev` gets to stop its webserver, daemon and code servers before SIGKILL.
UI_STOP_WAIT_S = 20.0


def _serve_ui(cmd: list[str], env: dict[str, str] | None = None) -> int:
    """Run `dagster dev` in a process group of its own and stop that whole group when this ends.

    A `kill` of `relreason ui` used to leave the `dagster dev` tree (webserver, daemon, code server)
    running and holding the port; Ctrl-C, SIGTERM and SIGHUP now all stop the group: SIGTERM first,
    then SIGKILL for whatever is left after :data:`UI_STOP_WAIT_S`.
    """

    def restore() -> None:  # dagster dev ignores SIGINT inherited as ignored (a background shell)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(cmd, preexec_fn=restore, start_new_session=True, env=env)

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return proc.wait()
    except KeyboardInterrupt:
        _stop_group(proc)
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc.poll() is None:
            _stop_group(proc)


def _stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the child's process group, then SIGKILL to what is left of it."""
    import contextlib

    for sig, wait_s in ((signal.SIGTERM, UI_STOP_WAIT_S), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
        if not _group_alive(proc.pid):
            return
        if sig == signal.SIGTERM:  # the leader exited; give its children the same time, then kill
            deadline = time.monotonic() + wait_s
            while _group_alive(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if not _group_alive(proc.pid):
                return


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
    # dagster-celery reads worker settings from a module named dagster_celery_config on the path.  A busy
    # worker must not reserve a second step (it would wait behind the first while another worker idles).
    conf_dir = paths.relreason_home() / "celery"  # dagster-celery imports it from PYTHONPATH
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
        "--result-backend",  # the broker holds the results too (defs/jobs.py)
        broker,
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

    out = Path(args.out).expanduser() if args.out else paths.relreason_home() / "report"
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder (report.html and the PNGs go in it)")
    _check_lake()
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


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


def _bounded(most: int, what: str) -> Callable[[str], int]:
    """An argparse ``type``: a positive integer of at most ``most`` (``what`` names the unit)."""

    def check(value: str) -> int:
        number = _positive_int(value)
        if number > most:
            raise argparse.ArgumentTypeError(f"at most {most:,} {what}, got {value}; ask for fewer")
        return number

    return check


def add_profile_options(p: argparse.ArgumentParser) -> None:
    """``--profile``, ``--profile-file`` and ``--seed``: every command that reads a profile takes these."""
    p.add_argument(
        "--profile",
        default=os.environ.get("RELREASON_PROFILE", profiles.DEFAULT_PROFILE),
        help="size profile: smoke, paper, or one of the profile file's (default: smoke)",
    )
    p.add_argument(
        "--profile-file",
        default=None,
        metavar="PATH",
        help="YAML file of user profiles (default: $RELREASON_PROFILES, else ./relreason.yaml)",
    )
    p.add_argument("--seed", type=int, default=profiles.DEFAULT_SEED)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the fix (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)


@dataclass
class CommandContext:
    """What the CLI lends a family's ``commands.py``: the `relreason run` parser and the generic helpers.

    A family folder may hold ``commands.py`` with ``register(subparsers, context)``: it adds the
    family's own subcommands (each sets ``handler``, a function of the parsed arguments returning the
    exit status) and the options of `relreason run` it reads (:meth:`add_run_option`).  So this module
    names no family, and a new family's commands need no edit here.
    """

    run_parser: argparse.ArgumentParser
    # run_pipeline keyword -> attribute of the parsed arguments, for the options families add to `run`.
    run_keywords: dict[str, str] = field(default_factory=dict)

    def add_run_option(self, flag: str, *, keyword: str, **kwargs: Any) -> None:
        """An option of `relreason run` whose value is passed on as ``run_pipeline(keyword=value)``."""
        action = self.run_parser.add_argument(flag, **kwargs)
        self.run_keywords[keyword] = action.dest

    @staticmethod
    def add_profile_options(parser: argparse.ArgumentParser) -> None:
        add_profile_options(parser)

    @staticmethod
    def positive_int(value: str) -> int:
        """An argparse ``type``: a bad value is one line naming the option."""
        return _positive_int(value)

    @staticmethod
    def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 60) -> str:
        return format_table(columns, rows, max_width)

    @staticmethod
    def query(sql: str, params: list[Any]) -> tuple[list[str], list[tuple]]:
        """``sql`` on the results, read-only (a run may be writing them)."""
        return _query_params(sql, params)

    @staticmethod
    def writable_db() -> Any:
        """The results file opened for writing; a running pipeline holding it is one line."""
        return _writable_db()

    @staticmethod
    def print_report(report: Any, seconds: float) -> None:
        """What a pipeline launch did: model calls, checks, dbt tests, failures."""
        _print_report(report, seconds)

    @staticmethod
    def run_steps(family: str, **kwargs: Any) -> Any:
        """``pipeline.run_steps``: launch a family's steps (and the marts) without the benchmark models.

        Lent rather than imported so a family's folder stays below the pipeline and the CLI (the
        pipeline, and Dagster with it, load only when a command launches)."""
        from relreason_dagster.pipeline import run_steps

        return run_steps(family, **kwargs)


def family_command_modules() -> list[ModuleType]:
    """The ``commands`` module of every registered family that has one, in family-name order.

    Found in the family's folder by the registry, like its ``steps.py`` and ``checks.py``: a family
    registered later, e.g. a test's toy family, brings its commands with it.
    """
    from relreason_dagster.benchmarks.registry import family_module, family_names

    return [module for name in family_names() if (module := family_module(name, "commands")) is not None]


def build_parser() -> argparse.ArgumentParser:
    from relreason_dagster.benchmarks.registry import family_names

    families = ", ".join(family_names())
    parser = _Parser(prog="relreason", description="Measure how well language models reason.")
    parser.add_argument("-v", "--verbose", action="store_true", help=_VERBOSE_HELP)
    sub = parser.add_subparsers(dest="cmd", required=True)

    demo = sub.add_parser(
        "demo", help="materialize everything at the smoke profile and print the result tables"
    )
    run = sub.add_parser("run", help="compute models' responses (cached) and the metric tables")
    for launcher in (demo, run):
        launcher.add_argument(
            "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=_VERBOSE_HELP
        )
        add_profile_options(launcher)
        launcher.add_argument(
            "--rerun",
            action="store_true",
            help="start every run even when nothing changed since the last successful one",
        )
        add_launch_options(launcher)
    run.add_argument(
        "--model",
        action="append",
        help="a model of models.yaml, a LiteLLM model string with no entry (openai/gpt-4o-mini: its name "
        "in the results), or a family's trained baseline (dlm); repeat to run several side by side "
        "(default: every enabled model of models.yaml whose key is set)",
    )
    run.add_argument(
        "--benchmark", default=None, help=f"only this family: {families} (default: the profile's families)"
    )
    run.add_argument(
        "--train-size",
        type=_positive_int,
        default=None,
        help="baselines (dlm) only: train on N samples (default: the profile's, i.e. the prompts' few-shot "
        "samples)",
    )
    run.add_argument(
        "--samples",
        type=_bounded(MAX_SAMPLES, "draws per prompt"),
        default=None,
        metavar="K",
        help="ask every prompt K times, each draw stored and scored on its own (pass@k, maj@k; "
        "default: the profile's samples knob, else 1)",
    )
    run.add_argument(
        "-M",
        "--model-option",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="over every model of the run: a models.yaml field (api_base, api_key_env, concurrency, "
        "reasoning, max_cost, rpm, tpm, ...) or a generation param (temperature, reasoning_effort, ...); "
        "repeatable.  A --model with a '/' and no models.yaml entry is a LiteLLM model string",
    )
    run.add_argument(
        "--limit",
        type=_bounded(MAX_LIMIT, "samples per task"),
        default=None,
        metavar="N",
        help="ask only the first N samples of each task (by sample id)",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="call no model: print per model the prompts, calls still to make, tokens and estimated cost",
    )
    context = CommandContext(run_parser=run)
    demo.set_defaults(handler=functools.partial(cmd_run, demo=True))
    run.set_defaults(handler=functools.partial(cmd_run, run_keywords=context.run_keywords))

    models = sub.add_parser("models", help="list or add models in models.yaml")
    msub = models.add_subparsers(dest="models_cmd", required=True)
    msub.add_parser("list").set_defaults(handler=cmd_models)
    add = msub.add_parser("add")
    add.set_defaults(handler=cmd_models)
    add.add_argument("name", nargs="?")
    add.add_argument("litellm_model", nargs="?")
    add.add_argument(
        "--study", help=f"every model a study evaluated: {families} or all"
    )
    add.add_argument("--param", action="append", help="generation parameter KEY=VALUE (repeatable)")
    add.add_argument("--concurrency", type=int, default=None)
    add.add_argument("--api-base", default=None)
    add.add_argument("--api-key-env", default=None, help="NAME of the environment variable holding the key")
    add.add_argument(
        "--workers", type=int, default=None, help="processes sharing the calls (fast remote servers only)"
    )

    for module in family_command_modules():
        module.register(sub, context)

    sql = sub.add_parser("sql", help="run a read-only SQL query against the results")
    sql.set_defaults(handler=cmd_sql)
    sql.add_argument("query")
    sql.add_argument(
        "--max-width", type=int, default=60, help="cut table cells at N characters; 0: never (default 60)"
    )
    add_lock_wait_option(sql)
    sql_format = sql.add_mutually_exclusive_group()
    sql_format.add_argument("--json", action="store_true", help="print the rows as a JSON list, uncut")
    sql_format.add_argument("--csv", action="store_true", help="print the rows as CSV, uncut")
    samples = sub.add_parser(
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
    samples.add_argument("--limit", type=_positive_int, default=None, help="at most N samples")
    samples.add_argument("--json", action="store_true", help="print the samples as a JSON list")
    export = sub.add_parser("export", help="write every mart and the per-sample results to files")
    export.set_defaults(handler=cmd_export)
    export.add_argument("--format", choices=["csv", "parquet", "jsonl"], default="parquet")
    export.add_argument("--out", default=None, help="folder (default: $RELREASON_HOME/export)")
    status = sub.add_parser("status", help="what is materialized, check results, row counts")
    status.set_defaults(handler=cmd_status)
    add_profile_options(status)
    worker = sub.add_parser(
        "worker", help="run a Celery worker for RELREASON_EXECUTOR=celery (here or on another machine)"
    )
    worker.set_defaults(handler=cmd_worker)
    add_profile_options(worker)
    worker.add_argument("--broker", default=None, help="broker URL (default: RELREASON_CELERY_BROKER)")
    worker.add_argument("--name", default=f"relreason-{os.getpid()}", help="worker name (unique per machine)")
    worker.add_argument(
        "--models-only",
        action="store_true",
        help="serve model calls only (a machine without the DuckDB file; needs the shared RELREASON_LAKE)",
    )
    ui = sub.add_parser("ui", help="start the Dagster UI on 127.0.0.1")
    ui.set_defaults(handler=cmd_ui)
    add_profile_options(ui)
    ui.add_argument("--port", type=int, default=3000)
    report = sub.add_parser(
        "report", help="write one self-contained HTML report (tables, a figure per study, samples)"
    )
    report.set_defaults(handler=cmd_report)
    report.add_argument(
        "--out", default=None, help="folder for report.html and its PNGs (default: $RELREASON_HOME/report)"
    )
    report.add_argument(
        "--max-samples", type=_positive_int, default=500, help="answers embedded in the sample table"
    )
    return parser


def _positive_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not number > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {value!r}")
    return number


def add_lock_wait_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--lock-wait",
        type=_positive_float,
        default=None,
        metavar="SECONDS",
        help="how long to wait while another process holds the DuckDB file (default 900)",
    )


def add_launch_options(p: argparse.ArgumentParser) -> None:
    """How a launch runs (not what it computes: none of these changes a result or the launch record)."""
    p.add_argument(
        "--max-runs",
        type=_positive_int,
        default=None,
        metavar="N",
        help="model and DLM task runs kept going at once, each in a process of its own (default 4)",
    )
    p.add_argument(
        "--max-steps",
        type=_positive_int,
        default=None,
        metavar="N",
        help="multiprocess executor: run each step in a process of its own, N of a run at once "
        "(default: a run's steps one after another inside its run's process)",
    )
    p.add_argument(
        "--dlm-workers",
        type=_positive_int,
        default=None,
        metavar="N",
        help="DLM trainings at once on this machine, however many runs start them (default: the CPU count)",
    )
    add_lock_wait_option(p)


def launch_options(args: argparse.Namespace) -> Any:
    """The parsed launch options as the pipeline takes them."""
    from relreason_dagster.pipeline import LaunchOptions

    return LaunchOptions(
        max_runs=getattr(args, "max_runs", None),
        max_steps=getattr(args, "max_steps", None),
        dlm_workers=getattr(args, "dlm_workers", None),
        lock_wait_s=getattr(args, "lock_wait", None),
        verbose=env.verbose(),
    )


_VERBOSE_HELP = "also print Dagster's and LiteLLM's lines below WARNING (a run's DEBUG engine events)"


def use_verbose(verbose: bool) -> None:
    """``-v``: runs started from here log Dagster's DEBUG lines and LiteLLM's INFO to the terminal."""
    env.set_verbose(verbose)
    if verbose:
        os.environ["LITELLM_LOG"] = "INFO"  # read when LiteLLM is first imported (llm/__init__.py)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``argv``, default ``sys.argv``); as the `relreason` command it ends the
    process itself (:func:`exit_without_teardown`), called with ``argv`` it returns the exit code."""
    code = _main(argv)
    if argv is None:
        exit_without_teardown(code)
    return code


def exit_without_teardown(code: int) -> NoReturn:
    """End the process as the interpreter would, less its teardown of every object.

    Why: after a run the heap holds about a million objects (Dagster, dbt, LiteLLM, pandas); Python
    frees them one by one at exit, 3-4 s on 2 cores after the last line was printed.  What exit
    does that matters is kept: non-daemon threads are joined, the at-exit handlers run (logging's
    flush, multiprocessing's reaping of children), stdout and stderr are flushed; then the process ends.
    """
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()  # noqa: SLF001 - what the interpreter runs at exit, in its order
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    _SAID.clear()
    use_verbose(bool(getattr(args, "verbose", False)))
    try:
        if hasattr(args, "profile_file"):  # read here; the runs get the resolved profile by value
            profiles.use_profile_file(args.profile_file)
        return int(args.handler(args))
    except ConfigError as exc:
        print(f"relreason: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("relreason: interrupted; stored responses are kept, rerun to resume", file=sys.stderr)
        return 130
    except Exception as exc:  # a full disk is one line in every command, not a SQLite traceback
        if _report_no_space(exc):
            return 1
        raise
    finally:
        profiles.forget_profile_file()


if __name__ == "__main__":
    sys.exit(main())
