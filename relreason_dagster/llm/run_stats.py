"""What a gateway run counts, the line a user sees at its end, and its progress lines.

Why a module of its own: the counters are read by the CLI, the Dagster assets (their metadata), the
``ask`` helper and the gateway's worker processes (whose snapshots add up into their parent's), none
of which needs the machinery that makes the calls.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

ProgressFn = Callable[[int, int, "RunStats"], None]


@dataclass
class RunStats:
    """What one :func:`run_model` did; ``summary()`` is the line a user sees."""

    model: str
    total: int = 0
    # Requests sent: one per distinct request, however many prompts share it and however many draws
    # (``n``) it asks; a retry is the same request.  This, never a count of stored rows, is a run's
    # "model calls".
    called: int = 0
    # Prompts answered by another prompt's identical request in this run: no request of their own.
    shared: int = 0
    cached: int = 0
    skipped: int = 0
    errors: int = 0
    # Rows stored with an answer by this run's requests (a draw, a prompt sharing a request: one each),
    # and one stored error's text: what says a model that was called answered nothing, and why.
    answered: int = 0
    error_text: str | None = None
    seconds: float = 0.0
    attempts: int = 0
    error_kinds: dict[str, int] = field(default_factory=dict)
    # Characters of the prompts that need a call, and of those answered: the ETA weights by
    # size because a 3k-token prompt costs a local model ten times a 300-token one.
    work_total: int = 0
    work_done: int = 0
    # Processes that made the calls (``workers:``; 1 = the run's own).
    workers: int = 1
    # Seconds this run waited for another run of the same model to finish its calls.
    waited_s: float = 0.0
    # When (epoch seconds) this run took the model's claim: what the lake holds from before is another
    # run's work, not this one's calls.
    claimed_at: float | None = None
    # Requests not sent because the model's ``max_cost`` was reached (stored rows are kept; a run
    # with a higher budget asks them), and the USD the model's stored calls cost (None: no budget).
    budget_stopped: int = 0
    # Prompts whose answer is still to come from a batch job this run left running (``--no-wait``):
    # not stored, not errors; the next run collects them.
    pending: int = 0
    spent_usd: float | None = None
    # How the calls were sent: a name in llm/transports/table.py ("direct", "litellm", ...); "" when unknown.
    transport: str = ""
    # Sends that timed out after they were sent (the provider may have finished and billed them:
    # provider_errors.RETRY_RULES), and the most they can have cost (llm/possibly_billed.py; 0 when the
    # model has no price), which spent_usd and max_cost include.
    possibly_billed: int = 0
    possibly_billed_usd: float = 0.0

    @property
    def done(self) -> int:
        return self.called + self.shared + self.cached + self.skipped + self.budget_stopped

    def summary(self) -> str:
        line = (
            f"{self.model}: {self.total} prompts — {self.called} model calls, "
            + (f"{self.shared} prompts sharing an identical call, " if self.shared else "")
            + f"{self.cached + self.skipped} from cache/already stored, {self.errors} errors"
        )
        if self.error_kinds:
            line += " (" + ", ".join(f"{k} {v}" for k, v in sorted(self.error_kinds.items())) + ")"
        if self.workers > 1:
            line += f" from {self.workers} worker processes"
        if self.transport and self.called:
            line += f" over the {self.transport} transport"
        line += f" in {self.seconds:.1f} s"
        if self.waited_s > 0:
            line += f", {self.waited_s:.1f} s of it waiting for another run of this model"
        if self.possibly_billed:
            sends = "send" if self.possibly_billed == 1 else "sends"
            usd = self.possibly_billed_usd
            estimate = f"~${usd:.4f} estimated" if usd else "no price known"
            line += f"; {self.possibly_billed} timed-out {sends} possibly billed ({estimate})"
        if self.budget_stopped:
            line += (
                f"; stopped at its max_cost (${self.spent_usd or 0:.4f} spent): {self.budget_stopped} "
                "prompts not asked, raise max_cost and run again to ask them"
            )
        if self.pending:
            line += (
                f"; {self.pending} prompts pending in batch jobs left running (not stored): "
                "`relreason run` again collects them, `relreason status` lists the jobs"
            )
        return line


def fmt_duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def fmt_rate(rate: float) -> str:
    """Prompts per second, or seconds per prompt when slower than one a second (local models)."""
    if rate <= 0:
        return "? prompts/s"
    return f"{rate:.1f} prompts/s" if rate >= 1 else f"{1 / rate:.1f} s/prompt"


class ProgressPrinter:
    """Default progress: one line per ~10 % of the prompts or per 10 s, with rate and ETA.

    Rate and ETA count only prompts that needed a call, since cached ones
    finish instantly and would make the ETA meaningless.
    """

    def __init__(
        self,
        log: Callable[[str], None] | None = None,
        every_fraction: float = 0.1,
        every_s: float = 10.0,
    ) -> None:
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.every_fraction = every_fraction
        self.every_s = every_s
        self._start = time.monotonic()
        self._last_time = self._start
        self._last_done = -1

    def __call__(self, done: int, total: int, stats: RunStats) -> None:
        now = time.monotonic()
        step = max(1, int(total * self.every_fraction))
        finished = done >= total
        if not finished and done - self._last_done < step and now - self._last_time < self.every_s:
            return
        if done == self._last_done:
            return
        self._last_done, self._last_time = done, now
        elapsed = now - self._start
        # Rate of prompts that needed a call (cached ones finish instantly), so the ETA stays honest.
        rate = (stats.called + stats.shared) / elapsed if elapsed > 0 else 0.0
        remaining = total - done
        if stats.work_done > 0 and stats.work_total > stats.work_done:
            eta = fmt_duration(elapsed * (stats.work_total - stats.work_done) / stats.work_done)
        elif stats.work_total and stats.work_done >= stats.work_total:
            eta = "0s"
        else:
            eta = fmt_duration(remaining / rate) if rate > 0 else "?"
        pct = 100.0 * done / total if total else 100.0
        workers = f" · {stats.workers} worker processes" if stats.workers > 1 else ""
        self.log(
            f"{stats.model}: {done}/{total} ({pct:.0f}%) · {fmt_rate(rate)} · ETA {eta} · "
            f"{stats.called} calls, {stats.cached + stats.skipped} cached, {stats.errors} errors{workers}"
        )


def counters(stats: RunStats) -> dict[str, Any]:
    return {
        "called": stats.called,
        "shared": stats.shared,
        "errors": stats.errors,
        "answered": stats.answered,
        "error_text": stats.error_text,
        "attempts": stats.attempts,
        "work_done": stats.work_done,
        "budget_stopped": stats.budget_stopped,
        "error_kinds": dict(stats.error_kinds),
        "possibly_billed": stats.possibly_billed,
        "possibly_billed_usd": stats.possibly_billed_usd,
    }


def add_counters(stats: RunStats, snapshots: list[dict[str, Any]]) -> None:
    """A run's call counters as the sum of its workers' latest :func:`counters` snapshots."""
    stats.called = sum(s.get("called", 0) for s in snapshots)
    stats.shared = sum(s.get("shared", 0) for s in snapshots)
    stats.errors = sum(s.get("errors", 0) for s in snapshots)
    stats.answered = sum(s.get("answered", 0) for s in snapshots)
    stats.error_text = next((s["error_text"] for s in snapshots if s.get("error_text")), None)
    stats.attempts = sum(s.get("attempts", 0) for s in snapshots)
    stats.work_done = sum(s.get("work_done", 0) for s in snapshots)
    stats.budget_stopped = sum(s.get("budget_stopped", 0) for s in snapshots)
    stats.possibly_billed = sum(s.get("possibly_billed", 0) for s in snapshots)
    stats.possibly_billed_usd = sum(s.get("possibly_billed_usd", 0.0) for s in snapshots)
    kinds: dict[str, int] = {}
    for s in snapshots:
        for kind, count in s.get("error_kinds", {}).items():
            kinds[kind] = kinds.get(kind, 0) + count
    stats.error_kinds = kinds
