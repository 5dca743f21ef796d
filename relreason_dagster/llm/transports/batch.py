"""The ``batch`` transport: a run's requests go to the provider as batch jobs (about half the price, 24 h).

Why a transport and not a second gateway: everything around a call stays the gateway's (request hash,
plan, retries by kind, storage, budget, draws), so a batch answer is stored under the same request hash,
in the same row, as a live call's, and batch, live and resumed runs are interchangeable.  What differs is
only *when* a reply comes back, which the protocol's ``send`` already hides behind an ``await``:

* :meth:`BatchTransport.send` files the request as one JSONL line (``custom_id`` = its request hash) and
  awaits a future.  The gateway lets every request of the run wait at once (:meth:`in_flight`), so once
  no new line has been filed for ``gather_s`` the pending lines are submitted, split at the provider's
  limits (:data:`LIMITS`), through LiteLLM's batch API (``acreate_file`` + ``acreate_batch``).
* Each job is written to the home (``storage/batch_jobs.py``) as soon as the provider accepted it,
  before anyone waits; one poller retrieves the open jobs with a growing interval and, when one ends,
  reads its output and error files (``afile_content``) and resolves each line's future: an answered
  line with its ``chat.completion`` body (read by ``replies.read_body``, priced at the batch rates), a
  failed line by raising what a live call with that status raises (``provider_errors.status_error``;
  a 400 is stored as an error row, a 5xx or 429 is asked again), an expired or cancelled line as
  ``batch_unanswered`` (never run, so not billed: asked again up to ``max_attempts``).  A line asked
  again is filed in the next job, or sent live when the entry's ``batch_fallback`` is ``live``.
* :meth:`open` reads this model's jobs still open (a killed CLI's, a ``--no-wait`` run's, the Dagster
  UI's): a request in one of them awaits that job instead of being submitted again.
* ``batch_wait: false`` (``relreason run --no-wait``): once the jobs are submitted (and those already
  ended are collected), every request still waiting raises :class:`Deferred`, which the gateway counts
  as pending and does not store: the next run collects the jobs.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relreason_dagster.llm import litellm_overhead
from relreason_dagster.llm.draw_plan import work_tokens
from relreason_dagster.llm.provider_errors import BATCH_UNANSWERED, ProviderError, status_error
from relreason_dagster.llm.replies import Outcome, read_body, read_reply
from relreason_dagster.llm.transports.batch_limits import BATCH_PROVIDERS, LIMITS, batch_provider
from relreason_dagster.llm.transports.protocol import Deferred, Transport
from relreason_dagster.llm.transports.table import BATCH, transport_class
from relreason_dagster.storage import batch_jobs
from relreason_dagster.storage.batch_jobs import ENDED, JobRecord

if TYPE_CHECKING:
    from relreason_dagster.llm.draw_plan import Work
    from relreason_dagster.llm.registry import ModelEntry

# The chat endpoint every line asks (LiteLLM translates it for the providers that name it otherwise).
ENDPOINT = "/v1/chat/completions"
# Polling: first interval, growth, ceiling (seconds).  A real job takes minutes to hours, so a run
# asks the provider a few hundred times a day at most; tests set ``batch_poll_s`` in extra_kwargs.
POLL_S = 10.0
POLL_GROWTH = 1.5
POLL_CAP_S = 300.0
# How long no new line may be filed before the pending lines are submitted: the gateway files a run's
# requests in one go, and the retries of a job's failed lines within a few backoffs.
GATHER_S = 2.0
# The key a batch line's body is marked with (kept by ``choices.choice_views``' copies), so ``read``
# prices it at the batch rates and a live fallback's body (the direct transport's dict) at the live ones.
BATCH_MARK = "_relreason_batch_line"
# Knobs read from extra_kwargs (tests'), never sent in a line.
_KNOBS = ("batch_poll_s", "batch_poll_cap_s", "batch_gather_s", "batch_max_lines", "batch_max_bytes")
# The same knobs from the environment, for a whole `relreason run` against a test's fake provider (the
# poll and gather intervals; a user has no reason to set them).
_ENV = {
    "batch_poll_s": "RELREASON_BATCH_POLL_S",
    "batch_poll_cap_s": "RELREASON_BATCH_POLL_CAP_S",
    "batch_gather_s": "RELREASON_BATCH_GATHER_S",
}


def can_batch(spec: ModelEntry) -> bool:
    """Whether LiteLLM's batch API serves ``spec``'s provider (``relreason run --batch`` asks only these)."""
    return batch_provider(spec.litellm_model) is not None


def batch_call_cost(
    litellm_model: str, prompt_tokens: int | None, completion_tokens: int | None
) -> float | None:
    """What a batch line cost by LiteLLM's batch prices (``input/output_cost_per_token_batches``; half
    the live price where the map has none); None when the model has no price or the counts are unknown."""
    if prompt_tokens is None or completion_tokens is None or not litellm_overhead.price_known(litellm_model):
        return None
    litellm = litellm_overhead.litellm_module()
    from litellm.cost_calculator import batch_cost_calculator

    usage = litellm.Usage(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
    )
    try:
        prompt_cost, completion_cost = batch_cost_calculator(usage, litellm_model)
    except Exception:  # noqa: BLE001 - a price LiteLLM cannot compute is unknown, not a failed run
        return None
    return prompt_cost + completion_cost


def live_transport_name(spec: ModelEntry) -> str:
    """The transport the entry would use live (``batch_fallback: live``)."""
    return spec.model_copy(update={"transport": None, "batch": False}).transport_used


@dataclass
class BatchRequest:
    """One line of a job, and what a live send of the same request needs (the fallback)."""

    custom_id: str
    line: dict[str, Any]
    size: int
    work: Work
    n: int


@dataclass
class _Job:
    """A job this run knows: its record and the futures awaiting its lines."""

    record: JobRecord
    waiters: dict[str, list[asyncio.Future[Any]]]
    results: dict[str, Any] | None = None
    # Whether a request of this run awaited a line of it.
    touched: bool = False


class BatchTransport(Transport):
    """LiteLLM's batch API for one model's run (module docstring)."""

    name = BATCH

    def __init__(self, spec: ModelEntry, api_key: str | None, extra_kwargs: dict[str, Any]) -> None:
        super().__init__(spec, api_key, extra_kwargs)
        provider = batch_provider(spec.litellm_model)
        if provider is None:
            raise ValueError(
                f"model {spec.name!r}: {spec.provider or 'this provider'} has no batch API LiteLLM can use; "
                f"batch jobs need one of {', '.join(BATCH_PROVIDERS)}"
            )
        self.provider = provider
        knobs = {k: os.environ[_ENV[k]] for k in _ENV if os.environ.get(_ENV[k])}
        knobs.update({k: extra_kwargs[k] for k in _KNOBS if k in extra_kwargs})
        self.body_extra = {k: v for k, v in extra_kwargs.items() if k not in _KNOBS}
        self.poll_s = float(knobs.get("batch_poll_s", POLL_S))
        self.poll_cap_s = float(knobs.get("batch_poll_cap_s", max(POLL_CAP_S, self.poll_s)))
        self.gather_s = float(knobs.get("batch_gather_s", GATHER_S))
        default_lines, default_bytes = LIMITS[provider]
        self.max_lines = int(knobs.get("batch_max_lines", default_lines))
        self.max_bytes = int(knobs.get("batch_max_bytes", default_bytes))
        self.wait = spec.batch_wait
        self.fallback_live = spec.batch_fallback == "live"
        # custom_id -> the job (known to this run) that holds it and whose result is still to come.
        self.held: dict[str, _Job] = {}
        self.jobs: list[_Job] = []
        # Lines filed and not yet submitted, and their futures.
        self.pending: list[tuple[BatchRequest, asyncio.Future[Any]]] = []
        self.filed = 0
        # custom_ids whose line failed or expired in a job: asked again (live with the fallback).
        self.asked_again: set[str] = set()
        self.live: Transport | None = None
        self.live_opened = False
        self.flusher: asyncio.Task[None] | None = None
        self.poller: asyncio.Task[None] | None = None
        self.told = False

    # -- protocol ------------------------------------------------------------------------------

    def in_flight(self) -> int:
        """Every request of the run waits at once: they are lines of the same jobs."""
        return sys.maxsize

    def processes(self) -> int:
        """One process holds a run's jobs (its lines' futures live in it)."""
        return 1

    rate_limited = False

    async def open(self) -> None:
        """Pick up this model's jobs still open in the home (any process's)."""
        if self.lake is None:
            return
        for record in batch_jobs.jobs_of(self.lake, self.spec.name):
            job = _Job(record, {})
            self.jobs.append(job)
            for custom_id in record.custom_ids:
                self.held.setdefault(custom_id, job)
        if self.jobs:
            ids = ", ".join(j.record.job_id for j in self.jobs)
            self._note(
                f"{self.spec.name}: {len(self.jobs)} batch job(s) from an earlier run still open ({ids}); "
                "their requests are awaited, not sent again"
            )

    def request(self, work: Work, n: int) -> BatchRequest:
        body: dict[str, Any] = dict(work.params)
        body.update(self.body_extra)
        body.update(model=_wire_model(self.spec.litellm_model), messages=work.messages)
        if n > 1:
            body["n"] = n
        line = {"custom_id": work.request_hash, "method": "POST", "url": ENDPOINT, "body": body}
        size = len(json.dumps(line, separators=(",", ":")).encode("utf-8")) + 1
        return BatchRequest(work.request_hash, line, size, work, n)

    async def send(self, request: BatchRequest) -> Any:
        custom_id = request.custom_id
        if self.fallback_live and custom_id in self.asked_again:
            return await self._send_live(request)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        job = self.held.get(custom_id)
        if job is not None:
            if job.results is not None:  # ended and read: its line's result now
                self._resolve_one(job, custom_id, future)
            else:
                job.waiters.setdefault(custom_id, []).append(future)
                job.touched = True
                self._start_poller()
                if not self.wait:
                    self._schedule_flush()  # a --no-wait run still ends once it has looked
        else:
            self.pending.append((request, future))
            self.filed += 1
            self._schedule_flush()
        return await future

    @staticmethod
    def read(reply: Any, latency: float, attempts: int, spec: ModelEntry | None = None) -> Outcome:
        """A batch line's body at the batch price; a live fallback's reply as its transport reads it."""
        if not isinstance(reply, dict):
            return read_reply(reply, latency, attempts, spec)
        outcome = read_body(reply, latency, attempts, spec)
        if spec is not None and reply.get(BATCH_MARK):
            outcome.cost_usd = batch_call_cost(
                spec.litellm_model, outcome.prompt_tokens, outcome.completion_tokens
            )
        return outcome

    async def close(self) -> None:
        for task in (self.flusher, self.poller):
            if task is not None and not task.done():
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, Exception):  # noqa: BLE001 - closing
                    pass
        if self.live is not None and self.live_opened:
            await self.live.close()
        self._settle_untouched()
        # A job whose results this run read is collected (lines no request of this run asked are dropped:
        # their prompts changed since; a later run asks them anew).
        for job in self.jobs:
            if job.results is not None and job.record.state != batch_jobs.COLLECTED:
                job.record.state = batch_jobs.COLLECTED
                self._save(job.record)

    def _settle_untouched(self) -> None:
        """An open job none of whose lines this run awaited because every one is stored (a run killed
        after collecting it, before marking it): marked collected, so it is not listed as open for
        ever.  A job with a line not stored stays open for the run that asks it."""
        untouched = [j for j in self.jobs if j.results is None and not j.touched]
        if not untouched or self.lake is None:
            return
        from relreason_dagster.storage.responses import ResponseStore

        stored = ResponseStore(self.lake).successes([h for j in untouched for h in j.record.custom_ids])
        for job in untouched:
            if all(h in stored for h in job.record.custom_ids):
                job.record.state = batch_jobs.COLLECTED
                self._save(job.record)

    # -- submitting ------------------------------------------------------------------------------

    def _schedule_flush(self) -> None:
        if self.flusher is None or self.flusher.done():
            self.flusher = asyncio.get_running_loop().create_task(self._flush_when_quiet())

    async def _flush_when_quiet(self) -> None:
        """Submit what is pending once no line was filed for ``gather_s``; then, without waiting, defer."""
        while True:
            seen = self.filed
            await asyncio.sleep(self.gather_s)
            if self.filed == seen:
                break
        if self.pending:
            batch, self.pending = self.pending, []
            await self._submit(batch)
        if not self.wait:
            await self._poll_once()
            self._defer_waiting()

    def _chunks(
        self, batch: list[tuple[BatchRequest, asyncio.Future[Any]]]
    ) -> list[list[tuple[BatchRequest, asyncio.Future[Any]]]]:
        """``batch`` split at the provider's limits on lines and bytes."""
        chunks: list[list[tuple[BatchRequest, asyncio.Future[Any]]]] = [[]]
        size = 0
        for item in batch:
            if chunks[-1] and (len(chunks[-1]) >= self.max_lines or size + item[0].size > self.max_bytes):
                chunks.append([])
                size = 0
            chunks[-1].append(item)
            size += item[0].size
        return [c for c in chunks if c]

    async def _submit(self, batch: list[tuple[BatchRequest, asyncio.Future[Any]]]) -> None:
        litellm = litellm_overhead.litellm_module()
        created: list[JobRecord] = []
        for chunk in self._chunks(batch):
            data = "".join(json.dumps(r.line, separators=(",", ":")) + "\n" for r, _ in chunk).encode("utf-8")
            try:
                uploaded = await litellm.acreate_file(
                    file=(f"{self.spec.name}-requests.jsonl", data), purpose="batch", **self._kw()
                )
                job_obj = await litellm.acreate_batch(
                    completion_window="24h",
                    endpoint=ENDPOINT,
                    input_file_id=uploaded.id,
                    metadata={"relreason_model": self.spec.name[:500]},
                    **self._kw(),
                )
            except Exception as exc:  # noqa: BLE001 - each line fails as a live call would
                for _, future in chunk:
                    if not future.done():
                        future.set_exception(exc)
                continue
            record = JobRecord(
                model=self.spec.name,
                provider=self.provider,
                job_id=str(job_obj.id),
                input_file_id=str(uploaded.id),
                custom_ids=[r.custom_id for r, _ in chunk],
                created=time.time(),
                state=str(getattr(job_obj, "status", None) or "submitted"),
                expected_cost_usd=self._expected_cost([r for r, _ in chunk]),
            )
            self._save(record)  # in the home before anyone waits on it
            job = _Job(record, {}, touched=True)
            for request, future in chunk:
                job.waiters.setdefault(request.custom_id, []).append(future)
                self.held[request.custom_id] = job
            self.jobs.append(job)
            created.append(record)
        if created and self.wait:
            self._start_poller()
        if created:
            ids = ", ".join(r.job_id for r in created)
            lines = sum(len(r.custom_ids) for r in created)
            then = "waiting for the results" if self.wait else "not waiting (--no-wait)"
            self._note(
                f"{self.spec.name}: {lines} requests submitted as batch job(s) {ids}; {then}. The jobs are "
                "kept in the home: `relreason run` again collects them, `relreason status` lists them"
            )

    def _expected_cost(self, requests: list[BatchRequest]) -> float | None:
        """The jobs' price if every line used its prompt (chars / 4) and its whole ``max_tokens``."""
        prompt = sum(work_tokens(r.work) - int(r.work.params.get("max_tokens") or 0) for r in requests)
        completion = sum(int(r.work.params.get("max_tokens") or 0) * r.n for r in requests)
        return batch_call_cost(self.spec.litellm_model, max(0, prompt), completion)

    # -- collecting ------------------------------------------------------------------------------

    def _start_poller(self) -> None:
        if self.poller is None or self.poller.done():
            self.poller = asyncio.get_running_loop().create_task(self._poll())

    async def _poll(self) -> None:
        """Retrieve the awaited jobs until none is left, the interval growing to ``poll_cap_s``."""
        interval = self.poll_s
        while any(job.results is None and job.waiters for job in self.jobs):
            if not self.told:
                self.told = True
                ids = [j.record.job_id for j in self.jobs if j.results is None and j.waiters]
                self._note(
                    f"{self.spec.name}: waiting on batch job(s) {', '.join(ids)} (up to 24 h); stopping "
                    "leaves them running: `relreason run` again collects them, `relreason status` shows them"
                )
            await self._poll_once()
            await asyncio.sleep(interval)
            interval = min(self.poll_cap_s, interval * POLL_GROWTH)

    async def _poll_once(self) -> None:
        """Retrieve each awaited job once; collect those that ended."""
        for job in list(self.jobs):
            if job.results is not None or not job.waiters:
                continue
            try:
                obj = await litellm_overhead.litellm_module().aretrieve_batch(
                    batch_id=job.record.job_id, **self._kw()
                )
            except Exception as exc:  # noqa: BLE001 - a failed look is tried again at the next poll
                self._note(
                    f"{self.spec.name}: could not retrieve batch job {job.record.job_id}: {exc!s:.200}"
                )
                continue
            status = str(getattr(obj, "status", "") or "")
            if status and status != job.record.state:
                job.record.state = status
                job.record.output_file_id = getattr(obj, "output_file_id", None)
                job.record.error_file_id = getattr(obj, "error_file_id", None)
                if status in ENDED:
                    job.record.ended = time.time()
                    errors = getattr(getattr(obj, "errors", None), "data", None) or []
                    if errors:
                        job.record.note = "; ".join(
                            f"{getattr(e, 'code', '')}: {getattr(e, 'message', '')}" for e in errors
                        )[:500]
                self._save(job.record)
            if status in ENDED:
                await self._collect(job)

    async def _collect(self, job: _Job) -> None:
        """Read an ended job's files and resolve every line's future."""
        results: dict[str, Any] = {}
        for file_id in (job.record.output_file_id, job.record.error_file_id):
            if not file_id:
                continue
            try:
                content = await litellm_overhead.litellm_module().afile_content(file_id=file_id, **self._kw())
            except Exception as exc:  # noqa: BLE001 - read again at the next poll
                self._note(f"{self.spec.name}: could not read batch file {file_id}: {exc!s:.200}")
                return
            for raw in content.content.decode("utf-8").splitlines():
                if raw.strip():
                    record = json.loads(raw)
                    results[str(record.get("custom_id"))] = record
        job.results = results
        for custom_id, futures in list(job.waiters.items()):
            for future in futures:
                self._resolve_one(job, custom_id, future)
        job.waiters.clear()

    def _resolve_one(self, job: _Job, custom_id: str, future: asyncio.Future[Any]) -> None:
        """Give ``future`` its line's result: the body, or the error a live call would raise."""
        assert job.results is not None
        if self.held.get(custom_id) is job:
            del self.held[custom_id]  # a second send of this request is a new line (or live)
        if future.done():
            return
        record = job.results.get(custom_id)
        response = record.get("response") if isinstance(record, dict) else None
        if isinstance(response, dict) and response.get("status_code") == 200:
            body = response.get("body")
            if isinstance(body, dict):
                body = {**body, BATCH_MARK: True}
            future.set_result(body)
            return
        self.asked_again.add(custom_id)
        if isinstance(response, dict):
            status = int(response.get("status_code") or 500)
            body = json.dumps(response.get("body")).encode("utf-8")
            future.set_exception(status_error(status, body, {}))
        elif isinstance(record, dict) and isinstance(record.get("error"), dict):
            code = record["error"].get("code") or "batch_error"
            message = record["error"].get("message") or ""
            future.set_exception(ProviderError(BATCH_UNANSWERED, f"batch line {code}: {message}"))
        elif job.record.state == "failed":
            future.set_exception(
                ProviderError("bad_request", f"batch job {job.record.job_id} failed: {job.record.note or ''}")
            )
        else:
            future.set_exception(
                ProviderError(
                    BATCH_UNANSWERED, f"batch job {job.record.job_id} ({job.record.state}) has no result"
                )
            )

    def _defer_waiting(self) -> None:
        """``--no-wait``: every request still waiting ends as pending (its job is in the home)."""
        for job in self.jobs:
            if job.results is not None:
                continue
            for futures in job.waiters.values():
                for future in futures:
                    if not future.done():
                        future.set_exception(Deferred(job.record.job_id))
            job.waiters.clear()

    # -- helpers -----------------------------------------------------------------------------------

    async def _send_live(self, request: BatchRequest) -> Any:
        if self.live is None:
            self.live = transport_class(live_transport_name(self.spec))(
                self.spec, self.api_key, self.body_extra
            )
        if not self.live_opened:
            self.live_opened = True
            await self.live.open()
        return await self.live.send(self.live.request(request.work, request.n))

    def _kw(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"custom_llm_provider": self.provider}
        if self.spec.api_base:
            kw["api_base"] = self.spec.api_base
        if self.api_key:
            kw["api_key"] = self.api_key
        return kw

    def _save(self, record: JobRecord) -> None:
        if self.lake is not None:
            batch_jobs.write_job(self.lake, record)

    def _note(self, line: str) -> None:
        print(line, file=sys.stderr, flush=True)


def _wire_model(litellm_model: str) -> str:
    """The model a line names: the LiteLLM string without its provider prefix."""
    return litellm_model.split("/", 1)[1] if "/" in litellm_model else litellm_model
