"""What `relreason status` prints: a short summary first, then the detail, and never a traceback.

Status is what a user runs when something went wrong, so it has to answer in every state an instance
can be in: no home yet, an empty one, a run going on, a run killed mid-step, a failed step, checks
planned but never evaluated, the DuckDB file held by a writer, a corrupt Dagster instance folder.
Each section is read on its own; one that fails prints a single ``(unavailable: reason)`` line and
the others still answer.  It only reads: no run is released, no table migrated, and the DuckDB file
is read through a reader's copy (``results/readonly.py``), waiting briefly for a writer and then
reading the newest copy (a dbt build can hold the file for minutes; status should not wait).
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# How long status waits for a writer's lock on the DuckDB file before reading the newest copy
# (or, with none, saying it is busy).
LOCK_WAIT_S = 3.0
# Runs listed in the summary.
RECENT_RUNS = 6
# A check execution Dagster has planned but not yet evaluated, by the value of its status (Dagster's
# AssetCheckExecutionRecordStatus is not exported; the value is what its event log stores, and
# tests/unit/orchestration/test_dagster_private_api.py fails if a release renames it).
PLANNED = "PLANNED"

Table = Callable[[Sequence[str], Sequence[Sequence[Any]]], str]


def reason(exc: BaseException) -> str:
    """One line naming what went wrong (the first line of the message, cut at 200 characters)."""
    text = (str(exc).strip().splitlines() or [""])[0]
    line = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return line if len(line) <= 200 else line[:199] + "…"


class _Lazy:
    """A value computed once on first use; a failure is kept and re-raised to every later user."""

    def __init__(self, load: Callable[[], Any]) -> None:
        self._load = load
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None

    def get(self) -> Any:
        if not self._done:
            self._done = True
            try:
                self._value = self._load()
            except Exception as exc:  # noqa: BLE001 - reported by each section that needs it
                self._error = exc
        if self._error is not None:
            raise self._error
        return self._value


class Unavailable(Exception):
    """A section cannot be read, for a reason that needs no exception type in front of it."""


def _when(ts: float | None) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S") if ts else "-"


class StatusReport:
    """The sections of `relreason status`, each printed through ``write`` and guarded on its own."""

    def __init__(self, duckdb_path: Callable[[], Path], write: Callable[[str], None], table: Table) -> None:
        self._duckdb_path = duckdb_path
        self.write = write
        self.table = table
        self.instance = _Lazy(self._instance)
        self.defs = _Lazy(self._defs)
        self._con = _Lazy(self._connect)

    # ------------------------------------------------------------------ sources

    @staticmethod
    def _instance() -> Any:
        import dagster as dg

        return dg.DagsterInstance.get()

    @staticmethod
    def _defs() -> Any:
        from relreason_dagster.defs.build import default_definitions

        return default_definitions()

    def _connect(self) -> Any:
        from relreason_dagster.errors import ConfigError
        from relreason_dagster.results.readonly import open_results

        path = self._duckdb_path()
        if not path.exists():
            raise Unavailable(f"no results yet: {path} does not exist")
        # A copy of the file, like every reader's: status never holds the file a run writes.
        notes: list[str] = []
        try:
            con = open_results(path, wait_s=LOCK_WAIT_S, note=notes.append)
        except ConfigError as exc:
            raise Unavailable(str(exc)) from None
        for line in notes:
            self.write(f"({line.removeprefix('relreason: ')})")
        return con

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self._con.get().close()

    # ------------------------------------------------------------------ printing

    def section(self, title: str, body: Callable[[], list[str]]) -> None:
        """Print ``title`` and the lines of ``body``, or one line saying why they are unavailable."""
        self.write(f"== {title} ==")
        try:
            lines = body()
        except Unavailable as exc:
            lines = [f"({exc})"]
        except Exception as exc:  # noqa: BLE001 - status never raises: the reason is the output
            lines = [f"(unavailable: {reason(exc)})"]
        for line in lines:
            self.write(line)
        self.write("")

    def print_all(self) -> None:
        try:
            self.section("answers stored (test prompts; follow-ups counted apart)", self.answers)
            self.section("served models (an entry answered by more than one model)", self.served)
            self.section("damaged lake files (moved aside; their prompts are asked again)", self.damaged)
            self.section("recent runs", self.recent_runs)
            self.section("last launch: requests sent and possibly-billed timeouts", self.last_launch_sends)
            self.section("failed checks", self.failed_checks)
            self.section("assets", self.assets)
            self.section("checks", self.checks)
            self.section("rows", self.rows)
        finally:
            self.close()

    # ------------------------------------------------------------------ summary

    def _has_kind(self, con: Any) -> bool:
        return bool(
            con.execute(
                "SELECT 1 FROM information_schema.columns WHERE table_schema = 'raw' "
                "AND table_name = 'prompts' AND column_name = 'kind'"
            ).fetchall()
        )

    def answers(self) -> list[str]:
        """Models x benchmarks: answers to test prompts, errors, parsed and readable ones, follow-ups."""
        con = self._con.get()
        from relreason_dagster.benchmarks.registry import baseline_names

        kind = "p.kind" if self._has_kind(con) else "'test'"  # a file from before the kind column
        # The families' baselines (the DLM) answer without a response: their parsed answers count.
        baselines = baseline_names() or [""]
        cur = con.execute(
            f"""
            SELECT r.model, p.benchmark,
                   count(*) FILTER (WHERE {kind} = 'test') AS answers,
                   count(*) FILTER (WHERE {kind} = 'test' AND r.error IS NOT NULL) AS errors,
                   count(a.prompt_id) AS parsed,
                   count(*) FILTER (WHERE a.parse_status = 'ok') AS readable,
                   count(*) FILTER (WHERE {kind} <> 'test') AS follow_ups
            FROM raw.responses r
            JOIN raw.prompts p USING (prompt_id)
            LEFT JOIN raw.parsed_answers a USING (prompt_id, model)
            GROUP BY ALL
            UNION ALL
            SELECT model, benchmark, count(*), 0, count(*), count(*) FILTER (WHERE parse_status = 'ok'), 0
            FROM raw.parsed_answers WHERE model IN ({", ".join("?" * len(baselines))}) GROUP BY ALL
            ORDER BY 1, 2
            """,
            baselines,
        )
        cols = [d[0] for d in cur.description]
        rows = cur.fetchall()
        if not rows:
            return ["(no answers yet: run `relreason run --model M`)"]
        return [self.table(cols, rows)]

    def served(self) -> list[str]:
        """Entries whose current rows more than one served model answered (``results/served_models``):
        an alias that moved to a new snapshot between runs mixes two models under one name."""
        from relreason_dagster.results.served_models import mixed_served

        lines = mixed_served(self._con.get())
        if not lines:
            return ["(none: each entry's answers came from one served model)"]
        return [*lines, "(the marts pool these rows; a new entry name per snapshot keeps them apart)"]

    @staticmethod
    def damaged() -> list[str]:
        """Lake files moved aside as damaged (``storage/lake.py``), and damaged ones not yet moved."""
        from relreason_dagster import paths
        from relreason_dagster.storage.lake import TABLES, Lake

        lake = Lake.open(paths.lake_url())
        lines = [f"{_when(q.at)}  {q.file} ({q.reason}) -> {q.moved_to}" for q in lake.quarantined()]
        for table in TABLES:  # status only reads: these are moved by the next run, report or samples
            for path in lake.files(table):
                why = lake.damage(path)
                if why is not None:
                    lines.append(f"damaged, not yet moved: {path} ({why}); the next relreason run moves it")
        return lines or ["(none)"]

    def recent_runs(self) -> list[str]:
        """The latest Dagster runs: job, partition, status (a killed run's process is named gone)."""
        from relreason_dagster.defs.launcher import process_gone

        records = self.instance.get().get_run_records(limit=RECENT_RUNS)
        if not records:
            return ["(no runs yet)"]
        rows = []
        notes = []
        for record in records:
            run = record.dagster_run
            status = run.status.value
            if not run.is_finished and process_gone(run):
                status += " (process gone)"
            rows.append(
                (
                    run.run_id[:8],
                    run.job_name,
                    run.tags.get("dagster/partition", ""),
                    status,
                    _when(record.start_time),
                    _when(record.end_time),
                )
            )
            if run.status.value == "FAILURE":
                notes.append(f"run {run.run_id[:8]} ({run.job_name}): {self._failure(run.run_id)}")
        out = [self.table(["run", "job", "partition", "status", "started", "ended"], rows)]
        return out + notes[:3]

    def last_launch_sends(self) -> list[str]:
        """Per model, what the last `relreason run`'s runs sent (the gateway's ledger,
        ``storage/sent_requests.py``): requests, and the sends that timed out after they were sent,
        possibly billed at their estimated cost (``llm/possibly_billed.py``)."""
        import dagster as dg

        from relreason_dagster import paths
        from relreason_dagster.defs.launcher import LAUNCH_TAG
        from relreason_dagster.storage import sent_requests
        from relreason_dagster.storage.lake import Lake

        instance = self.instance.get()
        launch = next(
            (
                r.dagster_run.tags[LAUNCH_TAG]
                for r in instance.get_run_records(limit=RECENT_RUNS * 10)
                if LAUNCH_TAG in r.dagster_run.tags
            ),
            None,
        )
        if launch is None:
            return ["(no launch yet)"]
        records = instance.get_run_records(dg.RunsFilter(tags={LAUNCH_TAG: launch}))
        runs = [record.dagster_run.run_id for record in records]
        sent = sent_requests.read_sent(Lake.open(paths.lake_url()), runs)
        if not sent:
            return ["(no model requests in the last launch)"]
        rows = [
            (
                model,
                counts["requests"],
                counts["errors"],
                counts["possibly_billed"],
                f"~${counts['possibly_billed_usd']:.4f}" if counts["possibly_billed_usd"] else "-",
            )
            for model, counts in sorted(sent.items())
        ]
        cols = ["model", "requests", "errors", "possibly billed sends", "estimated USD"]
        return [self.table(cols, rows)]

    def _failure(self, run_id: str) -> str:
        """The first failed step's message, else the run's failure message."""
        import dagster as dg

        try:
            logs = self.instance.get().all_logs(
                run_id, of_type={dg.DagsterEventType.STEP_FAILURE, dg.DagsterEventType.RUN_FAILURE}
            )
        except Exception as exc:  # noqa: BLE001 - one run's log is not worth the section
            return f"(log unavailable: {reason(exc)})"
        from relreason_dagster.defs.run_events import root_cause  # the launch report's reading, too

        for entry in logs:
            event = entry.dagster_event
            if event is not None and event.is_step_failure:
                return f"step {event.step_key} failed: {root_cause(event.event_specific_data.error)}"
        for entry in logs:
            if entry.dagster_event is not None and entry.dagster_event.message:
                return entry.dagster_event.message.strip().splitlines()[0]
        return "failed"

    def _check_states(self) -> list[tuple[str, str, str]]:
        """(asset, check, state) of every check the definitions declare, from its latest execution."""
        from relreason_dagster.common.gx_validation import check_state

        instance = self.instance.get()
        keys = sorted(self.defs.get().resolve_asset_graph().asset_check_keys, key=str)
        latest = instance.event_log_storage.get_latest_asset_check_execution_by_key(keys)
        states = []
        for key in keys:
            record = latest.get(key)
            if record is None:
                state = "never run"
            elif record.status.value == PLANNED:
                state = self._planned_state(instance, record.run_id)
            else:
                evaluation = record.evaluation
                passed = getattr(evaluation, "passed", None)
                severity = getattr(getattr(evaluation, "severity", None), "value", "")
                if passed is None:
                    state = record.status.value.lower()
                elif passed:
                    # A check that examined no rows proved nothing: check_result records it as such.
                    rows_checked = (getattr(evaluation, "metadata", None) or {}).get("rows_checked")
                    state = check_state(True, None if rows_checked is None else int(rows_checked.value))
                else:
                    state = "FAILED (warning)" if severity == "WARN" else "FAILED"
            states.append((key.asset_key.to_user_string(), key.name, state))
        return states

    @staticmethod
    def _planned_state(instance: Any, run_id: str) -> str:
        """A check planned but not evaluated: running, or never evaluated because its run ended."""
        from relreason_dagster.defs.launcher import process_gone

        run = instance.get_run_by_id(run_id)
        if run is None:
            return "planned (run deleted)"
        if not run.is_finished:
            return "planned (process gone)" if process_gone(run) else "running"
        if run.status.value == "FAILURE":
            return f"not evaluated (run {run_id[:8]} failed)"
        return "skipped"

    def failed_checks(self) -> list[str]:
        failed = [(a, c, s) for a, c, s in self._check_states() if s.startswith(("FAILED", "not evaluated"))]
        if not failed:
            return ["(none)"]
        return [self.table(["asset", "check", "state"], failed)]

    # ------------------------------------------------------------------ detail

    def assets(self) -> list[str]:
        instance = self.instance.get()
        keys = sorted(
            self.defs.get().resolve_asset_graph().get_all_asset_keys(), key=lambda k: k.to_user_string()
        )
        rows = []
        for key in keys:
            record = instance.get_latest_materialization_event(key)
            rows.append((key.to_user_string(), _when(record.timestamp) if record else "never"))
        return [self.table(["asset", "last materialized"], rows)]

    def checks(self) -> list[str]:
        return [self.table(["asset", "check", "state"], self._check_states())]

    def rows(self) -> list[str]:
        con = self._con.get()
        cur = con.execute(
            "SELECT 'samples' AS tbl, count(*) AS n FROM raw.samples UNION ALL "
            "SELECT 'prompts', count(*) FROM raw.prompts UNION ALL "
            "SELECT 'responses', count(*) FROM raw.responses UNION ALL "
            "SELECT 'responses with error', count(*) FROM raw.responses WHERE error IS NOT NULL UNION ALL "
            "SELECT 'parsed_answers', count(*) FROM raw.parsed_answers"
        )
        return [self.table([d[0] for d in cur.description], cur.fetchall())]
