"""What one launch of the pipeline did (:class:`PipelineReport`), and its model-call counts corrected
from the lake.

Held below the pipeline because it is plain data: the pipeline fills it from Dagster's events, the
launch record (``storage/launch_record.py``) stores it, and the CLI prints it; none of those needs
Dagster to read it.
"""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PipelineReport:
    """What one `relreason run` did: model calls per model, failed steps and checks."""

    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    dbt_log: str = ""
    # baseline model -> task -> trained / reused checkpoints (a family's non-LLM baseline: the DLM)
    baselines: dict[str, dict[str, dict[str, int]]] = field(default_factory=dict)
    warn_checks: set[str] = field(default_factory=set)  # checks of severity WARN: a failure is a warning
    check_rows: dict[str, int] = field(default_factory=dict)  # rows each check examined (0: skipped)
    runs: list[dict[str, Any]] = field(default_factory=list)  # job, partition, run id, success, seconds
    concurrent: list[list[str]] = field(default_factory=list)  # run labels launched together
    # Set when nothing changed since a recorded launch (storage/launch_record.py): its end time; the
    # report is that launch's, and no run was started.
    unchanged_since: float | None = None
    gx_checks: list[str] = field(default_factory=list)  # the checks that are GX checks, not dbt tests
    check_seconds: float = 0.0  # time spent deciding whether anything changed
    # Models whose counts the lake corrected (a step that failed or could not report its calls).
    lake_counted: list[str] = field(default_factory=list)
    # Models that made calls in this launch and got no answer to any: model -> why, in a few words.
    answered_nothing: dict[str, str] = field(default_factory=dict)
    # Model -> when (epoch seconds) its responses step took the model's claim, after waiting for
    # another launch of it: the lake's rows from before are that launch's.
    claimed_at: dict[str, float] = field(default_factory=dict)
    waited_s: dict[str, float] = field(default_factory=dict)  # model -> seconds it waited for that launch
    # One line per damaged lake file moved aside before the launch (storage/lake.py).
    quarantined: list[str] = field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        """Every run succeeded and no model call ended in an error (a launch retries those)."""
        return (
            not self.failures
            and all(run["success"] for run in self.runs)
            and not any(c.get("errors") for c in self.calls.values())
            and not self.answered_nothing
        )

    def to_record(self) -> dict[str, Any]:
        """The report as JSON-able values, for the launch record."""
        record = dataclasses.asdict(self)
        record["warn_checks"] = sorted(self.warn_checks)
        for key in ("unchanged_since", "check_seconds"):
            record.pop(key)
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> PipelineReport:
        report = cls(**{f.name: record[f.name] for f in dataclasses.fields(cls) if f.name in record})
        report.checks = [tuple(check) for check in report.checks]  # type: ignore[misc]
        report.warn_checks = set(report.warn_checks)
        return report

    @property
    def total_calls(self) -> int:
        return sum(c.get("model_calls", 0) for c in self.calls.values())

    @property
    def total_cached(self) -> int:
        return sum(c.get("from_cache", 0) + c.get("already_stored", 0) for c in self.calls.values())


def no_calls() -> dict[str, int]:
    return {"prompts": 0, "model_calls": 0, "from_cache": 0, "already_stored": 0, "errors": 0}


def count_from_lake(report: PipelineReport, models: list[str], since: datetime.datetime) -> None:
    """Correct the report's call counts from the lake, which holds a row for every call of every step.

    The counts come from the steps' Dagster events; a step that failed, or whose event could not be
    written (a full disk), reports nothing although its calls were made and stored.  A model whose
    calls in this launch all failed is recorded in ``answered_nothing``.  A model whose step waited
    for another launch of it is counted from when it took over: what the other launch stored while
    this one waited are that launch's calls.
    """
    import pyarrow as pa

    from relreason_dagster.storage.responses import ResponseStore

    store = ResponseStore.default()
    found: dict[str, dict[str, Any]] = {}
    try:
        for model in dict.fromkeys(models):
            claimed = report.claimed_at.get(model)
            start = since
            if claimed is not None:
                took_over = datetime.datetime.fromtimestamp(claimed, datetime.UTC).replace(tzinfo=None)
                start = max(since, took_over)
            found |= store.calls_since([model], start)
    except (OSError, pa.ArrowException):  # a lake that cannot be read leaves the events' count
        return
    for model, lake in found.items():
        entries = [c for key, c in report.calls.items() if key == model or key.startswith(f"{model} (")]
        calls = sum(c["model_calls"] for c in entries)
        errors = sum(c["errors"] for c in entries)
        if lake["calls"] > calls or lake["errors"] > errors:
            counts = report.calls.setdefault(model, no_calls())
            counts["model_calls"] += max(0, lake["calls"] - calls)
            counts["errors"] += max(0, lake["errors"] - errors)
            report.lake_counted.append(model)
        if lake["calls"] and lake["errors"] == lake["calls"]:
            report.answered_nothing[model] = (
                f"all {lake['calls']} of its calls failed, e.g. {lake['error']}"
                if lake["calls"] > 1
                else f"its one call failed: {lake['error']}"
            )
