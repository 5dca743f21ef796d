"""What one launch of the pipeline did (:class:`PipelineReport`), and its model-call counts corrected
from the requests its runs sent (the gateway's own count, kept in the lake).

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
    # Model -> when (epoch seconds) its responses step took the model's claim (kept in the record; the
    # calls are counted by the requests sent, storage/sent_requests.py, not by rows stored since then).
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


def count_from_lake(
    report: PipelineReport, models: list[str], since: datetime.datetime | None = None
) -> None:
    """Correct the report's call counts from the requests its runs sent, as the gateway recorded them
    in the lake (``storage/sent_requests.py``), never from the rows the lake holds.

    The counts come from the steps' Dagster events; a step that failed, or whose event could not be
    written (a full disk), reports nothing although its calls were made.  The gateway keeps its own
    count per Dagster run beside the lake, so the requests of this launch's runs are known whatever
    their events say: not the rows another launch of the same model stored meanwhile (whether or
    not this one waited for it), nor one row per draw of a request asking ``n`` draws.  A model whose
    requests in this launch got no answer at all is recorded in ``answered_nothing``.

    ``since`` is no longer read: which requests are this launch's is said by its runs, not by a time.
    """
    import pyarrow as pa

    from relreason_dagster.storage import sent_requests
    from relreason_dagster.storage.lake import Lake

    del since
    runs = [str(run["run_id"]) for run in report.runs if run.get("run_id")]
    try:
        lake = Lake.default()
        sent = sent_requests.read_sent(lake, runs)
        sent_requests.forget_old(lake, keep=runs)
    except (OSError, pa.ArrowException):  # a lake that cannot be read leaves the events' count
        return
    for model in dict.fromkeys(models):
        ledger = sent.get(model)
        if ledger is None:  # no request sent by any of this launch's runs
            continue
        entries = [c for key, c in report.calls.items() if key == model or key.startswith(f"{model} (")]
        calls = sum(c["model_calls"] for c in entries)
        errors = sum(c["errors"] for c in entries)
        if ledger["requests"] > calls or ledger["errors"] > errors:
            counts = report.calls.setdefault(model, no_calls())
            counts["model_calls"] += max(0, ledger["requests"] - calls)
            counts["errors"] += max(0, ledger["errors"] - errors)
            report.lake_counted.append(model)
        if ledger["requests"] and ledger["errors"] and not ledger["answers"]:
            report.answered_nothing[model] = (
                f"all {ledger['requests']} of its calls failed, e.g. {ledger['error']}"
                if ledger["requests"] > 1
                else f"its one call failed: {ledger['error']}"
            )
