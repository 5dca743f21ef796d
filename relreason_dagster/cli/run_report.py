"""What `relreason run` prints when its runs end: model calls, checks, dbt tests and failures, then
the headline tables, the report and where to look next.

Held apart from the run command because a family's command that launches steps (a judge) prints the
same summary (``CommandContext.print_report``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from relreason_dagster import paths
from relreason_dagster.cli.full_disk import say_no_space
from relreason_dagster.cli.output import format_table


def print_report(report: Any, seconds: float) -> None:
    from relreason_dagster.common.gx_validation import check_state
    from relreason_dagster.storage.disk_space import no_space

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
        say_no_space()
    for model, why in sorted(getattr(report, "answered_nothing", {}).items()):
        print(
            f"relreason: {model} answered nothing: {why}; check its api_base, API key and server "
            "(relreason models list), then run again",
            file=sys.stderr,
        )


def write_report(out: Path, unchanged_since: float | None = None) -> str:
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


def print_headlines(
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
    report = write_report(home / "report", unchanged_since)
    print(f"report: {report} (open it in a browser; relreason report rewrites it)")
    print(f"next: relreason samples --model {example} --limit 3  (whole prompts and answers; --wrong, --na)")
    print('      relreason sql "SELECT * FROM marts.parse_rate"  (any table; --max-width 0, --json, --csv)')
    print("      relreason export --format parquet  (every mart and the per-sample results as files)")
