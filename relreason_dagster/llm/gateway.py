"""The gateway: send prompts to one model (through its transport) and store every outcome.

This module drives a run (:func:`run_model`, and :func:`run_slice` in a worker process); what it
uses lives beside it: the cache key (``request_key.py``), the requests a run makes
(``draw_plan.py``), provider errors and backoff (``provider_errors.py``), reading a reply
(``replies.py``), group commit (``lake_writer.py``), the counters and progress lines
(``run_stats.py``), a run's shares for its worker processes (``worker_shares.py``), the stored row
(``response_row.py``) and the ways of sending a request (``transports/``).

* **Transports, one row.**  How a request is sent is the model entry's ``transport``, a name in
  ``transports/table.py``: ``direct`` (one pooled aiohttp session to an OpenAI-compatible
  ``api_base``, ~0.2 ms of CPU per call where LiteLLM spends 2–4 ms) or ``litellm``.  The gateway
  holds one :class:`~relreason_dagster.llm.transports.protocol.Transport` per run and never asks
  which: everything around the call (cache key, plan, retries, rate limits, budget, draws, storage)
  is shared, so the stored row, the request hash and the error kinds are the same whichever
  transport sent it.

Design choices, and why:

* **Content-addressed cache.**  Every request has a ``request_hash`` (LiteLLM
  model string + canonical effective params + api_base + exact messages).  A
  prompt whose row for this model already has that hash and no error is
  skipped; one whose hash has a successful row under *any* model name is
  copied (``from_cache``) without a call.  Re-running a pipeline therefore
  costs nothing, and changing a param re-asks only what it changes.
* **Persist as answers arrive, outside the DuckDB file.**  Finished calls are
  appended to the Parquet lake (``storage/responses.py``) in small groups
  (group commit), so a killed run loses only the calls in flight and the next
  run resumes where it stopped; no model call ever waits for the DuckDB lock.
  At the end a run merges its own small files into one per partition.
* **Our own retries.**  LiteLLM and the OpenAI SDK are told not to retry
  (``num_retries=0``, ``max_retries=0``) so attempts are counted in one place,
  stored in ``attempts``, and bounded by ``max_attempts``.  Backoff is
  exponential with full jitter (spreads a burst of 429s) and never shorter
  than the server's ``Retry-After``.  Provider errors never escape
  :func:`run_model`; after the last attempt the error is stored as a row.
* **Retries go first.**  ``concurrency`` workers take work from one queue: a
  request whose wait (Retry-After or backoff) has ended is sent before any
  request not yet tried.  A waiting request holds no worker (it is a timer),
  so the others keep the model busy meanwhile; with one semaphore per call
  instead, a retry queued behind every untried prompt and waited ~40 s for
  a 1 s Retry-After.
* **A malformed reply is a provider error.**  A 200 whose body cannot be
  decoded (not UTF-8, not JSON) or breaks the protocol (no ``choices``, an
  empty list, a choice without a message) is sent once more (a proxy or an
  overloaded server sends these transiently, but the provider may have billed
  it, so never ``max_attempts`` times: ``provider_errors.RETRY_RULES``), then
  stored as a ``malformed_reply`` error row; the other prompts carry on.  A reply whose message has
  ``content: null`` is a well-formed empty answer (a model that spent its
  ``max_tokens`` on hidden reasoning, say) and is stored as ``""`` with its
  ``finish_reason``: the parsers give it a parse status, like any answer.
* **Paid once, across processes.**  A run holds its model's claim
  (``storage/claims.py``, an OS file lock) from looking at what is stored
  until its answers are written, so a second run of the same model waits,
  prints one line saying so, then finds the answers and asks only the rest.
  Different models hold different claims and run side by side; a run's
  ``workers:`` processes work under their parent's claim.
* **No key is stored.**  Every text taken from the provider (errors,
  answers, finish reasons) passes through ``llm/redaction.py`` before it is
  stored or reported: a provider that echoes the API key in a 401 leaves
  ``[redacted OPENAI_API_KEY]`` in the lake, not the key.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

# LiteLLM is imported on the first call (litellm_overhead.litellm_module), after
# relreason_dagster/llm/__init__.py has set its offline environment defaults.
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm import litellm_overhead, possibly_billed, rejected_params
from relreason_dagster.llm import workers as worker_processes
from relreason_dagster.llm.choices import choice_views, refuses_n, split_usage
from relreason_dagster.llm.draw_plan import Work, bundle, plan_requests, sort_key, work_size, work_tokens
from relreason_dagster.llm.lake_writer import DEFAULT_FLUSH_INTERVAL_S, LakeWriter
from relreason_dagster.llm.provider_errors import (
    DEFAULT_BACKOFF_BASE_S,
    DEFAULT_BACKOFF_CAP_S,
    RETRY_AFTER_CAP_S,
    backoff_delay,
    error_kind,
    error_text,
    retry_after_seconds,
    retry_rule,
    sends_allowed,
)
from relreason_dagster.llm.rate_limits import RateLimiter
from relreason_dagster.llm.redaction import redactor_for
from relreason_dagster.llm.registry import ModelEntry, api_key, require_api_key
from relreason_dagster.llm.replies import Outcome
from relreason_dagster.llm.response_row import OutcomeRows, copied_row
from relreason_dagster.llm.run_stats import ProgressFn, RunStats, add_counters, counters
from relreason_dagster.llm.transports.protocol import Deferred
from relreason_dagster.llm.transports.table import transport_for
from relreason_dagster.llm.worker_shares import slice_payloads
from relreason_dagster.storage import sent_requests
from relreason_dagster.storage.claims import model_claim
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore

# The lake partition of a prompt row that names no benchmark (direct callers of run_model).
_UNKNOWN_BENCHMARK = "unknown"
# The request ledger (storage/sent_requests.py) is rewritten at most this often while a run sends.
_LEDGER_EVERY_S = 1.0


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


@dataclass
class _Job:
    """A request on its way and the attempts made so far.

    ``works``: the draws it answers, one, or several of one prompt asked at once with ``n``
    (``draw_plan.bundle``).  ``request`` is what the transport sends (``Transport.request``: LiteLLM's
    kwargs, the direct transport's encoded body, ...).
    """

    works: list[Work]
    request: Any
    attempts: int = 0

    @property
    def work(self) -> Work:
        """The first draw: its messages and params are every draw's."""
        return self.works[0]


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class _Runner:
    """State of one run_model call (kept on an object so helpers stay small)."""

    def __init__(
        self,
        store: ResponseStore,
        spec: ModelEntry,
        progress: ProgressFn | None,
        backoff_base_s: float,
        backoff_cap_s: float,
        rng: random.Random,
        extra_kwargs: dict[str, Any] | None,
        flush_interval_s: float = DEFAULT_FLUSH_INTERVAL_S,
        ledger: str | None = None,
    ) -> None:
        self.store = store
        # The Dagster run whose request ledger this run keeps (None: none kept), this run's file in it,
        # and when it was last written.
        self.ledger = ledger
        self.ledger_writer = sent_requests.new_writer()
        self.ledger_written = 0.0
        self.writer = LakeWriter(store, flush_interval_s)
        self.benchmarks: dict[str, str] = {}
        self.spec = spec
        self.progress = progress
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.rng = rng
        self.extra_kwargs = extra_kwargs or {}
        self.api_key = api_key(spec)  # set: checked at the door (launch_plan.build_plan)
        self.stats = RunStats(model=spec.name, transport=spec.transport_used)
        # How this run sends (the entry's ``transport``, transports/table.py); opened by _drive in the
        # process and loop that send, so a run whose answers are all stored opens nothing.
        self.transport = transport_for(spec, self.api_key, self.extra_kwargs)
        self.transport.lake = store.lake
        self.total = 0
        self.redact = redactor_for(spec)
        self.rows = OutcomeRows(
            spec.name, spec.litellm_model, self.redact, self.writer.add, _UNKNOWN_BENCHMARK
        )
        self.limiter = (
            RateLimiter(spec.rpm, spec.tpm) if self.transport.rate_limited else RateLimiter(None, None)
        )
        # USD spent by this model's calls, stored ones included (``max_cost``; set by _answer).
        self.spent = 0.0
        # Draws one request may ask (the entry's ``n``); 1 once the provider refused or ignored it, and
        # for an in-process model (llm/local_provider.py answers one choice: a try would be wasted).
        self.choices = 1 if spec.provider == "local" else spec.n

    def _over_budget(self) -> bool:
        return self.spec.max_cost is not None and self.spent >= self.spec.max_cost

    def _stop_for_budget(self, first: list[Work], fresh: Any) -> None:
        """Count ``first`` and every request not yet sent as stopped by the budget (once, with a line)."""
        stopped = [work for works in (first, *fresh) for work in works]
        self.stats.budget_stopped += sum(len(w.prompt_ids) for w in stopped)
        self.stats.spent_usd = self.spent
        self._notice(
            f"{self.spec.name}: max_cost ${self.spec.max_cost:g} reached (${self.spent:.4f} spent); "
            f"{sum(len(w.prompt_ids) for w in stopped)} prompts not asked, the answers so far are kept"
        )
        self._report()

    def _notice(self, line: str) -> None:
        """One line for the user: through the progress printer's log when there is one, else stderr."""
        log = getattr(self.progress, "log", None)
        if callable(log):
            log(line)
        else:
            print(line, file=sys.stderr, flush=True)

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self.stats.done, self.total, self.stats)
        if self.ledger is not None and time.monotonic() - self.ledger_written >= _LEDGER_EVERY_S:
            self._record_sent()

    def _record_sent(self) -> None:
        """Write what this run has sent to its ledger (``storage/sent_requests.py``): the launch's count
        of this run's calls when its step cannot report them.  Never fails the run: a ledger that
        cannot be written (a full disk) leaves the step's own report."""
        if self.ledger is None:
            return
        self.ledger_written = time.monotonic()
        counts = {
            "requests": self.stats.called,
            "errors": self.stats.errors,
            "answers": self.stats.answered,
            "error": self.stats.error_text,
            "possibly_billed": self.stats.possibly_billed,
            "possibly_billed_usd": self.stats.possibly_billed_usd,
        }
        try:
            sent_requests.write_sent(self.store.lake, self.ledger, self.spec.name, self.ledger_writer, counts)
        except OSError:
            pass

    def _billed_before(self) -> float:
        """Earlier runs' possibly-billed estimates of this model (``sent_requests.billed_estimate``);
        0 when the ledgers cannot be read (the stored calls' cost still counts)."""
        try:
            return sent_requests.billed_estimate(self.store.lake, self.spec.name)
        except OSError:
            return 0.0

    def _existing(self, works: dict[str, Work]) -> tuple[set[tuple[str, str]], dict[str, dict[str, Any]]]:
        """(prompt id, hash) pairs already stored OK for this model; OK rows of these hashes under any name.

        Two lake scans in all, whatever the number of prompts.
        """
        stored = self.store.stored_ok(self.spec.name)
        done = {(pid, h) for h, w in works.items() for pid in w.prompt_ids if (pid, h) in stored}
        return done, self.store.successes(list(works))

    def _copy_from_cache(self, pairs: list[tuple[str, str]], hits: dict[str, dict[str, Any]]) -> None:
        """Store cache hits for this model in one write: (prompt_id, request_hash) pairs.

        A copy costs nothing: its ``cost_usd`` is 0 where the original's price is known, else null.
        """
        if not pairs:
            return
        created = _now()
        rows = [
            copied_row(
                prompt_id,
                h,
                hits[h],
                model=self.spec.name,
                benchmark=self.benchmarks.get(prompt_id, _UNKNOWN_BENCHMARK),
                created=created,
            )
            for prompt_id, h in pairs
        ]
        self.writer.write(rows)

    def _request(self, works: list[Work]) -> Any:
        """What the transport sends for ``works`` (built once: a retry sends the same).

        Several draws are one request asking ``n`` choices; ``n`` is not in the request hash (each
        draw's hash is the one it has alone, ``draw_plan.bundle``).
        """
        return self.transport.request(works[0], len(works))

    async def _attempt(self, job: _Job) -> float | list[_Job] | None:
        """Send ``job`` once.  None: its outcome is stored; a number: the seconds to wait before the next
        try; a list: requests to send instead (its draws one per request, when ``n`` was refused)."""
        if self.limiter.active:
            extra = (len(job.works) - 1) * int(job.work.params.get("max_tokens") or 0)
            slot = await self.limiter.acquire(work_tokens(job.work) + extra)
        else:
            slot = None
        job.attempts += 1
        self.stats.attempts += 1
        start = time.monotonic()
        try:
            try:
                reply: Any = await self.transport.send(job.request)  # bounded in time by the transport
            except Deferred:  # its answer comes later (a batch job left running): nothing stored
                self.stats.pending += sum(len(w.prompt_ids) for w in job.works)
                return None
            finally:
                self.limiter.release(slot)
            read = self.transport.read
            latency = time.monotonic() - start
            if len(job.works) == 1:
                outcomes = [read(reply, latency, job.attempts, self.spec)]
            else:
                views = choice_views(reply)
                outcomes = split_usage([read(v, latency, job.attempts, self.spec) for v in views])
        except Exception as exc:  # noqa: BLE001 - every provider error becomes a stored row
            latency = time.monotonic() - start
            if len(job.works) > 1 and refuses_n(str(exc)):
                return self._one_per_request(job.works, f"refused n={len(job.works)}")
            kind = error_kind(exc)
            if retry_rule(kind).possibly_billed:  # sent, and not answered in time: maybe billed
                self._possibly_billed(job)
            # How many sends this kind may cost is the retry table's (provider_errors.RETRY_RULES).
            if job.attempts >= sends_allowed(kind, self.spec.max_attempts, self.spec.timeout_retries):
                error = error_text(kind, exc, self.redact)
                kind, error = rejected_params.relabel(
                    kind, error, str(exc), self.spec.name, self.spec.params, job.work.params
                )
                for i, work in enumerate(job.works):
                    failed = Outcome(None, None, None, None, latency, job.attempts, error, kind)
                    self._finish(work, failed, call=i == 0)
                return None
            delay = backoff_delay(job.attempts, self.backoff_base_s, self.backoff_cap_s, self.rng)
            wait = retry_after_seconds(exc)
            if wait is not None:
                delay = max(delay, min(wait, RETRY_AFTER_CAP_S))
            return delay
        # Outside the try: a store that fails stops the run.
        for i, (work, outcome) in enumerate(zip(job.works, outcomes, strict=False)):
            self._finish(work, outcome, call=i == 0)
        if len(outcomes) < len(job.works):  # fewer choices than asked: the provider ignores n
            return self._one_per_request(
                job.works[len(outcomes) :], f"answered {len(outcomes)} of n={len(job.works)}"
            )
        return None

    def _possibly_billed(self, job: _Job) -> None:
        """Count one send of ``job`` that timed out after it was sent: possibly billed, at the most it
        can cost (``llm/possibly_billed.py``), which the spent total (``max_cost``) includes."""
        self.stats.possibly_billed += 1
        cost = possibly_billed.estimate_usd(self.spec, job.work, len(job.works))
        if cost:
            self.stats.possibly_billed_usd += cost
            self.spent += cost
            self.stats.spent_usd = self.spent

    def _one_per_request(self, works: list[Work], why: str) -> list[_Job]:
        """Ask ``works`` one draw per request, and every later request of the run too (once, a line)."""
        if self.choices > 1:
            self.choices = 1
            self._notice(
                f"{self.spec.name}: the provider {why} (several draws in one request); asking one draw "
                "per request instead (set n: 1 in models.yaml to skip this try)"
            )
        return [_Job([work], self._request([work])) for work in works]

    async def _drive(self, to_call: list[list[Work]]) -> None:
        """Send every request, at most ``concurrency`` at a time, a retry whose wait ended first.

        Workers take a ready retry before fresh work; a request that must wait
        is a timer that puts it back on the ready queue, so no worker sleeps
        while there is something to send.  A worker leaves when nothing is
        fresh, ready or waiting; whoever scheduled a wait stays until it is done.
        """
        loop = asyncio.get_running_loop()
        fresh = iter(to_call)
        ready: collections.deque[_Job] = collections.deque()
        timers: list[asyncio.TimerHandle] = []
        wake = asyncio.Event()
        waiting = 0

        def wait_over(job: _Job) -> None:
            nonlocal waiting
            waiting -= 1
            ready.append(job)
            wake.set()  # every change of ``waiting`` wakes idle workers, so none is left behind

        async def worker() -> None:
            nonlocal waiting
            while True:
                if ready:
                    job = ready.popleft()
                else:
                    works = next(fresh, None)
                    if works is not None and self._over_budget():
                        self._stop_for_budget(works, fresh)
                        works = None
                    if works is None:
                        if not waiting:
                            return
                        wake.clear()
                        await wake.wait()
                        continue
                    if len(works) > self.choices:  # n refused meanwhile: one draw per request
                        ready.extend(_Job([w], self._request([w])) for w in works[1:])
                        wake.set()
                        works = works[:1]
                    job = _Job(works, self._request(works))
                delay = await self._attempt(job)
                if delay is None:
                    continue
                if isinstance(delay, list):
                    ready.extend(delay)
                    wake.set()
                    continue
                waiting += 1
                if delay <= 0:
                    wait_over(job)
                else:
                    timers.append(loop.call_later(delay, wait_over, job))

        n_workers = max(1, min(self.transport.in_flight(), len(to_call)))
        tasks: list[asyncio.Task[None]] = []
        try:
            await self.transport.open()
            tasks = [asyncio.create_task(worker()) for _ in range(n_workers)]
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                failure = task.exception()
                if failure is not None:  # a store that failed: stop rather than lose answers
                    raise failure
        finally:
            for handle in timers:
                handle.cancel()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.transport.close()

    async def _drive_in_workers(self, to_call: list[list[Work]], n: int) -> None:
        """Send the calls from ``n`` processes (``llm/workers.py``), each every n-th request.

        The model's concurrency is shared out, so the total in flight stays
        ``spec.concurrency``; the workers' counts add up into this run's stats
        (and its progress lines), and their files join this run's for compaction.
        """
        payloads = slice_payloads(
            to_call,
            n,
            spec=self.spec,
            spent=self.spent,
            common={
                "lake_url": self.store.lake.url,
                "extra_kwargs": self.extra_kwargs,
                "backoff_s": (self.backoff_base_s, self.backoff_cap_s),
                "flush_interval_s": self.writer.interval_s,
            },
            benchmarks=self.benchmarks,
            unknown_benchmark=_UNKNOWN_BENCHMARK,
            rng=self.rng,
        )
        loop = asyncio.get_running_loop()
        self.stats.workers = n
        snapshots: list[dict[str, Any]] = [{} for _ in range(n)]

        def progress(k: int, snapshot: dict[str, Any]) -> None:
            snapshots[k] = snapshot
            add_counters(self.stats, snapshots)
            self._report()

        started = worker_processes.start(payloads, run_slice)
        try:
            results = await asyncio.gather(
                *(
                    loop.run_in_executor(
                        None,
                        worker_processes.collect,
                        worker,
                        lambda snapshot, k=worker.index: loop.call_soon_threadsafe(progress, k, snapshot),
                    )
                    for worker in started
                )
            )
        finally:
            worker_processes.stop(started)
        for k, result in enumerate(results):
            snapshots[k] = result
            self.writer.files.extend(result.get("files", []))
        add_counters(self.stats, snapshots)
        self._report()
        failures = [
            f"worker {k}: {self.redact(r['failure'])}" for k, r in enumerate(results) if r.get("failure")
        ]
        if failures:
            raise RuntimeError(
                f"{self.spec.name}: {len(failures)} of {n} gateway workers failed ({'; '.join(failures)}); "
                "the answers they stored are kept, and running again asks only the rest"
            )

    def _finish(self, work: Work, outcome: Outcome, call: bool = True) -> None:
        """Store ``work``'s outcome and count it; ``call``: the first draw its request answered."""
        self.rows.store(work, outcome, self.benchmarks, _now())
        if outcome.cost_usd is not None:
            self.spent += outcome.cost_usd
            self.stats.spent_usd = self.spent
        # One request, whatever number of identical prompts (or draws, with n) it answers.
        self.stats.called += 1 if call else 0
        self.stats.shared += len(work.prompt_ids) - 1
        self.stats.work_done += work_size(work)
        if outcome.error is not None:
            self.stats.errors += len(work.prompt_ids)
            kind = outcome.kind or "error"
            self.stats.error_kinds[kind] = self.stats.error_kinds.get(kind, 0) + len(work.prompt_ids)
            if self.stats.error_text is None:
                self.stats.error_text = self.redact((outcome.error.strip().splitlines() or [""])[0])
        else:
            self.stats.answered += len(work.prompt_ids)
        self._report()

    async def run(self, prompts: Sequence[dict[str, Any]]) -> RunStats:
        start = time.monotonic()
        works = plan_requests(self.spec, prompts)
        self.benchmarks = {
            str(p["prompt_id"]): str(p.get("benchmark") or _UNKNOWN_BENCHMARK) for p in prompts
        }
        self.total = sum(len(w.prompt_ids) for w in works.values())
        self.stats.total = self.total
        # From looking at what is stored until this run's answers are written: no other run of this
        # model looks meanwhile, so none pays again for what this one is asking.
        async with model_claim(self.store.lake, self.spec.name, self._notice) as waited:
            self.stats.waited_s = waited
            self.stats.claimed_at = time.time()
            try:
                await self._answer(works)
            finally:
                self._record_sent()  # the final count, also of a run that failed
        self.stats.seconds = time.monotonic() - start
        return self.stats

    async def _answer(self, works: dict[str, Work]) -> None:
        """Skip what is stored, copy cache hits, call the model for the rest, merge this run's files."""
        if self.spec.max_cost is not None:
            if not litellm_overhead.price_known(self.spec.litellm_model):
                raise ConfigError(
                    f"model {self.spec.name!r}: max_cost needs a price, and LiteLLM's cost map has none for "
                    f"{self.spec.litellm_model}; remove max_cost or use a model LiteLLM can price"
                )
            # Stored calls' cost, and the estimates of earlier runs' possibly-billed sends (their ledgers).
            self.spent = self.store.spent(self.spec.name) + self._billed_before()
            self.stats.spent_usd = self.spent
        done, hits = self._existing(works)
        to_call: list[Work] = []
        cache_pairs: list[tuple[str, str]] = []
        for h, work in works.items():
            pending = [pid for pid in work.prompt_ids if (pid, h) not in done]
            self.stats.skipped += len(work.prompt_ids) - len(pending)
            if not pending:
                continue
            if h in hits:
                cache_pairs.extend((pid, h) for pid in pending)
            else:
                to_call.append(
                    Work(h, work.messages, work.params, pending, work.sample_index, work.size, work.group)
                )
        self._copy_from_cache(cache_pairs, hits)
        self.stats.cached += len(cache_pairs)
        self._report()
        if to_call:
            to_call.sort(key=lambda w: sort_key(w.messages))
            self.stats.work_total = sum(work_size(w) for w in to_call)
            requests = bundle(to_call, self.choices)
            try:
                n_workers = min(self.transport.processes(), len(requests), self.transport.in_flight())
                if n_workers > 1:
                    await self._drive_in_workers(requests, n_workers)
                else:
                    await self._drive(requests)
            finally:
                self.writer.flush()  # whatever finished is kept, even on cancellation
        self.writer.compact()


async def run_model_async(
    store: ResponseStore,
    spec: ModelEntry,
    prompts: Sequence[dict[str, Any]],
    *,
    progress: ProgressFn | None = None,
    backoff_base_s: float = DEFAULT_BACKOFF_BASE_S,
    backoff_cap_s: float = DEFAULT_BACKOFF_CAP_S,
    seed: int | None = None,
    extra_kwargs: dict[str, Any] | None = None,
    ledger: str | None = None,
) -> RunStats:
    """Async form of :func:`run_model`, for callers that already run an event loop."""
    runner = _Runner(
        store,
        spec,
        progress,
        backoff_base_s,
        backoff_cap_s,
        random.Random(seed),
        extra_kwargs,
        ledger=ledger,
    )
    return await runner.run(prompts)


def run_model(
    store: ResponseStore,
    spec: ModelEntry,
    prompts: Sequence[dict[str, Any]],
    *,
    progress: ProgressFn | None = None,
    backoff_base_s: float = DEFAULT_BACKOFF_BASE_S,
    backoff_cap_s: float = DEFAULT_BACKOFF_CAP_S,
    seed: int | None = None,
    extra_kwargs: dict[str, Any] | None = None,
    key_checked: bool = False,
    ledger: str | None = None,
) -> RunStats:
    """Answer ``prompts`` with ``spec``'s model and store one row per prompt in the lake.

    ``prompts``: dicts with ``prompt_id``, ``messages`` (list or JSON string),
    ``max_tokens`` and optionally ``benchmark`` (the lake partition) and
    ``params`` (the study's generation params, on top of the model's; in the
    cache key).  Provider errors are stored, not raised; a missing API key is a
    ConfigError before any call, unless the caller ``key_checked`` it already (a pipeline step: its
    launch checked each key once).  ``backoff_*`` and ``seed`` (jitter)
    exist so tests can make retries fast and reproducible; ``extra_kwargs``
    go to every ``litellm.acompletion`` call but not into the cache key.
    ``ledger`` (a Dagster run's id) keeps the count of requests sent under that run
    (``storage/sent_requests.py``), for the launch's summary when the step cannot report it.
    Works from sync code and from inside a running event loop (it then runs
    on a helper thread).
    """
    if not key_checked:
        require_api_key(spec)
    coro_kwargs = dict(
        progress=progress,
        backoff_base_s=backoff_base_s,
        backoff_cap_s=backoff_cap_s,
        seed=seed,
        extra_kwargs=extra_kwargs,
        ledger=ledger,
    )
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        in_loop = False
    else:
        in_loop = True
    if not in_loop:
        # Not inside the ``except``: an error raised anew there (asyncio.wait_for re-raises LiteLLM's)
        # would get the RuntimeError as its context in place of its own chain, where
        # provider_errors reads whether a timeout happened before the request was sent.
        return asyncio.run(run_model_async(store, spec, prompts, **coro_kwargs))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(run_model_async(store, spec, prompts, **coro_kwargs))).result()


def run_slice(payload: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A gateway worker's share of a run (``llm/workers.py``): send its requests, store the outcomes.

    ``payload`` comes from ``worker_shares.slice_payloads``; ``send`` gets the
    worker's counters after every finished request.  Returns the counters, the
    files written and ``failure`` (one line, or None): a failed store ends the
    slice, and what was written before it is still reported, so nothing is lost.
    """
    spec: ModelEntry = payload["spec"]
    base_s, cap_s = payload["backoff_s"]
    runner = _Runner(
        ResponseStore(Lake.open(payload["lake_url"])),
        spec,
        lambda _done, _total, stats: send(counters(stats)),
        base_s,
        cap_s,
        random.Random(payload["seed"]),
        payload["extra_kwargs"],
        payload["flush_interval_s"],
    )
    runner.benchmarks = payload["benchmarks"]

    async def drive() -> None:
        try:
            await runner._drive(payload["works"])
        finally:
            runner.writer.flush()

    failure = None
    try:
        asyncio.run(drive())
    except Exception as exc:  # noqa: BLE001 - the parent raises it for the whole run
        failure = runner.redact(f"{type(exc).__name__}: {exc}")
    return {**counters(runner.stats), "files": runner.writer.files, "failure": failure}
