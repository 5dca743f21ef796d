"""The gateway: send prompts to one model through LiteLLM and store every outcome.

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
* **A malformed reply is a provider error.**  A 200 whose body breaks the
  protocol (no ``choices``, an empty list, a choice without a message) is
  retried like a 5xx, within ``max_attempts`` (a proxy or an overloaded
  server sends these transiently), then stored as a ``malformed_reply``
  error row; the other prompts carry on.  A reply whose message has
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
import dataclasses
import email.utils
import hashlib
import json
import random
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import litellm

# Importing this module ran relreason_dagster/llm/__init__.py first, which set
# LiteLLM's offline environment defaults before the import above.
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm import rejected_params
from relreason_dagster.llm import workers as worker_processes
from relreason_dagster.llm.rate_limits import CHARS_PER_TOKEN, RateLimiter, share
from relreason_dagster.llm.reasoning import split_reasoning
from relreason_dagster.llm.redaction import Redactor, redactor_for
from relreason_dagster.llm.registry import ModelSpec, require_api_key
from relreason_dagster.storage.claims import model_claim
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore

litellm.suppress_debug_info = True
litellm.telemetry = False

ProgressFn = Callable[[int, int, "RunStats"], None]

DEFAULT_BACKOFF_BASE_S = 0.5
DEFAULT_BACKOFF_CAP_S = 30.0
# A server asking for more than this is treated as asking for this much;
# waiting an hour inside a pipeline step helps nobody.
RETRY_AFTER_CAP_S = 300.0
# Slack on top of timeout_s before we abandon a call LiteLLM failed to time out.
_HARD_TIMEOUT_SLACK_S = 5.0
_ERROR_MAX_CHARS = 500

# Group commit: a finished response is written _FLUSH_DELAY_S after it arrives,
# or when the interval since the last write ends if that is later.  With real
# models (calls take seconds) that is "as it arrives"; with a zero-latency
# provider it batches thousands of rows per second into a few files.  A killed
# run loses at most the calls in flight plus this much.
DEFAULT_FLUSH_INTERVAL_S = 0.1
_FLUSH_MAX_ROWS = 2000
# Why not write at once: the write runs on the event loop, and written between an
# answer and the next request it delayed every request by the write's ~2 ms
# (at one request in flight: 0.955 of the ideal rate).  A short delay lets the
# worker send its next request first and the write happen while that one waits.
_FLUSH_DELAY_S = 0.02
# The lake partition of a prompt row that names no benchmark (direct callers of run_model).
_UNKNOWN_BENCHMARK = "unknown"


# ---------------------------------------------------------------------------
# Request identity
# ---------------------------------------------------------------------------


def effective_params(
    spec: ModelSpec, max_tokens: int | None, study: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The generation params actually sent: ``spec.params``, the study's on top, max_tokens capped.

    ``study`` is what a study states it ran with (a profile's ``generation`` knob, e.g. FLenQA's
    paper profile: temperature 0, top-p 0): it wins over the model's own settings, since the
    protocol is the study's, and being in the params it is part of the cache key.
    The prompt's own ``max_tokens`` wins unless the model's ``params.max_tokens``
    is smaller (a cap), so a small model is not asked for 2048 tokens it
    cannot use, while a big model keeps the benchmark's budget.
    """
    params = {**spec.params, **(study or {})}
    if spec.provider == "local" and spec.context_window and "n_ctx" not in params:
        params["n_ctx"] = spec.context_window  # in-process models load with this context size
    cap = params.get("max_tokens")
    if max_tokens is not None and cap is not None:
        params["max_tokens"] = min(int(max_tokens), int(cap))
    elif max_tokens is not None:
        params["max_tokens"] = int(max_tokens)
    return params


def _canonical_messages(messages: Any) -> list[dict[str, Any]]:
    """Messages as a list (raw.prompts stores them as a JSON string)."""
    if isinstance(messages, (str, bytes)):
        messages = json.loads(messages)
    if not isinstance(messages, list):
        raise TypeError(f"messages must be a list of chat messages, got {type(messages).__name__}")
    return messages


def _hash_payload(
    litellm_model: str, params: dict[str, Any], api_base: str | None, messages: list, sample_index: int = 0
) -> str:
    payload: dict[str, Any] = {
        "model": litellm_model,
        "params": params,
        "api_base": api_base,
        "messages": messages,
    }
    if sample_index:
        # Draw k > 0 of a repeated-sampling run is a request of its own.  Draw 0 hashes exactly as every
        # request did before draws existed, so stored answers (everyone's cache) stay valid at K = 1.
        payload["sample_index"] = int(sample_index)
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_hash(
    spec: ModelSpec,
    messages: Any,
    max_tokens: int | None,
    study: Mapping[str, Any] | None = None,
    sample_index: int = 0,
) -> str:
    """The cache key of one request: what determines the answer, nothing else.

    The model *name* is deliberately absent: two registry names for the same
    LiteLLM model and params share answers.  ``sample_index`` tells the draws
    of one prompt apart (``--samples K``); draw 0 is the request as it always was.
    """
    return _hash_payload(
        spec.litellm_model,
        effective_params(spec, max_tokens, study),
        spec.api_base,
        _canonical_messages(messages),
        sample_index,
    )


# ---------------------------------------------------------------------------
# Statistics and progress
# ---------------------------------------------------------------------------


@dataclass
class RunStats:
    """What one :func:`run_model` did; ``summary()`` is the line a user sees."""

    model: str
    total: int = 0
    called: int = 0  # requests sent (one per distinct request, however many prompts share it)
    # Prompts answered by another prompt's identical request in this run: no request of their own.
    shared: int = 0
    cached: int = 0
    skipped: int = 0
    errors: int = 0
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
    # Requests not sent because the model's ``max_cost`` was reached (stored rows are kept; a run
    # with a higher budget asks them), and the USD the model's stored calls cost (None: no budget).
    budget_stopped: int = 0
    spent_usd: float | None = None

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
        line += f" in {self.seconds:.1f} s"
        if self.waited_s > 0:
            line += f", {self.waited_s:.1f} s of it waiting for another run of this model"
        if self.budget_stopped:
            line += (
                f"; stopped at its max_cost (${self.spent_usd or 0:.4f} spent): {self.budget_stopped} "
                "prompts not asked, raise max_cost and run again to ask them"
            )
        return line


def _fmt_duration(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def _fmt_rate(rate: float) -> str:
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
            eta = _fmt_duration(elapsed * (stats.work_total - stats.work_done) / stats.work_done)
        elif stats.work_total and stats.work_done >= stats.work_total:
            eta = "0s"
        else:
            eta = _fmt_duration(remaining / rate) if rate > 0 else "?"
        pct = 100.0 * done / total if total else 100.0
        workers = f" · {stats.workers} worker processes" if stats.workers > 1 else ""
        self.log(
            f"{stats.model}: {done}/{total} ({pct:.0f}%) · {_fmt_rate(rate)} · ETA {eta} · "
            f"{stats.called} calls, {stats.cached + stats.skipped} cached, {stats.errors} errors{workers}"
        )


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


class MalformedReply(Exception):
    """A 200 reply that breaks the chat-completions protocol (no choices, a choice without a message)."""


# What LiteLLM raises (as a 500) for some replies it cannot read: named as malformed, not as a server error.
_LITELLM_MALFORMED_MARKERS = ("response with no 'choices'", "Invalid response object")


def _status_code(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    try:
        return int(code) if code is not None else None
    except (TypeError, ValueError):
        return None


def classify_error(exc: BaseException) -> tuple[str, bool]:
    """``(kind, retryable)`` for an exception raised by ``litellm.acompletion``.

    Order matters: LiteLLM's ContextWindowExceededError is a BadRequestError,
    and its Timeout is an APIConnectionError.
    """
    if isinstance(exc, MalformedReply):
        return "malformed_reply", True
    if isinstance(exc, litellm.InternalServerError):
        text = str(exc)
        if any(marker in text for marker in _LITELLM_MALFORMED_MARKERS):
            return "malformed_reply", True
    checks: list[tuple[type[BaseException], str, bool]] = [
        (litellm.ContextWindowExceededError, "context_length_exceeded", False),
        (litellm.ContentPolicyViolationError, "content_policy", False),
        (litellm.RateLimitError, "rate_limit", True),
        (litellm.Timeout, "timeout", True),
        (asyncio.TimeoutError, "timeout", True),
        (litellm.APIConnectionError, "connection_error", True),
        (litellm.ServiceUnavailableError, "server_error", True),
        (litellm.InternalServerError, "server_error", True),
        (litellm.BadGatewayError, "server_error", True),
        (litellm.AuthenticationError, "authentication", False),
        (litellm.PermissionDeniedError, "permission_denied", False),
        (litellm.NotFoundError, "not_found", False),
        (litellm.UnprocessableEntityError, "bad_request", False),
        (litellm.BadRequestError, "bad_request", False),
    ]
    for cls, kind, retryable in checks:
        if isinstance(exc, cls):
            return kind, retryable
    code = _status_code(exc)
    if code == 429:
        return "rate_limit", True
    if code == 408:
        return "timeout", True
    if code is not None and code >= 500:
        return "server_error", True
    if code is not None and 400 <= code < 500:
        return "bad_request", False
    if isinstance(exc, (ConnectionError, OSError)):
        return "connection_error", True
    return "error", False


def _headers_of(exc: BaseException) -> list[Any]:
    found = []
    for candidate in (
        getattr(exc, "headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "litellm_response_headers", None),
    ):
        if candidate:
            found.append(candidate)
    return found


def retry_after_seconds(exc: BaseException) -> float | None:
    """The server's requested wait from ``Retry-After`` / ``retry-after-ms``, if any."""
    for headers in _headers_of(exc):
        try:
            lowered = {str(k).lower(): str(v) for k, v in dict(headers).items()}
        except (TypeError, ValueError):
            continue
        if "retry-after-ms" in lowered:
            try:
                return max(0.0, float(lowered["retry-after-ms"]) / 1000.0)
            except ValueError:
                pass
        value = lowered.get("retry-after")
        if value is None:
            continue
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            continue
        if when is not None:
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
            return max(0.0, (when - datetime.now(UTC)).total_seconds())
    return None


def _error_text(kind: str, exc: BaseException, redact: Redactor | None = None) -> str:
    """The stored error: kind, then the message on one line, keys redacted before it is shortened."""
    message = " ".join(str(exc).split()) or type(exc).__name__
    if redact is not None:
        message = redact(message) or ""
    if len(message) > _ERROR_MAX_CHARS:
        message = message[: _ERROR_MAX_CHARS - 3] + "..."
    return f"{kind}: {message}"


def backoff_delay(attempt: int, base_s: float, cap_s: float, rng: random.Random) -> float:
    """Full-jitter exponential backoff: uniform in [0, min(cap, base * 2**(attempt-1))]."""
    return rng.uniform(0.0, min(cap_s, base_s * (2 ** (attempt - 1))))


# ---------------------------------------------------------------------------
# LiteLLM's per-call work that relreason does not use
# ---------------------------------------------------------------------------

_zero_price_lock = threading.Lock()
_zero_priced: set[str] = set()
# Models LiteLLM's cost map does not know (their zero price above is ours, not a price).
_unpriced: set[str] = set()


def price_known(litellm_model: str) -> bool:
    """Whether LiteLLM's offline cost map has a price for this model (not our stand-in zero)."""
    price_unknown_model_at_zero(litellm_model)
    return litellm_model not in _unpriced


def call_cost(litellm_model: str, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
    """What one call cost in USD by LiteLLM's cost map; None when the price or the counts are unknown.

    Never a made-up zero: a self-hosted or local model has no price, and its cost is null, not 0.
    """
    if prompt_tokens is None or completion_tokens is None or not price_known(litellm_model):
        return None
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=litellm_model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # noqa: BLE001 - a price LiteLLM cannot compute is an unknown price
        return None
    return float(prompt_cost) + float(completion_cost)


def price_unknown_model_at_zero(litellm_model: str) -> bool:
    """Register a zero price for a model LiteLLM cannot price; True if this call registered it.

    Why: LiteLLM prices every response, and relreason never reads the price (it
    stores token counts).  For a model missing from LiteLLM's cost map (a local
    GGUF, a self-hosted vLLM, the fake test server) each call tried to
    generalise the name to a known model, failed, and recorded the failure:
    the largest single part of LiteLLM's per-call CPU.  Registered at zero, the
    lookup is one dict hit.  A model LiteLLM knows keeps its real price, so
    LiteLLM's own spend tracking (and any callback a user adds) stays right.
    Checked once per model per process; the check itself costs one failed lookup.
    """
    with _zero_price_lock:
        if litellm_model in _zero_priced:
            return False
        _zero_priced.add(litellm_model)
        try:
            litellm.get_model_info(model=litellm_model)
            return False
        except Exception:  # noqa: BLE001 - LiteLLM raises a bare Exception subclass for "not mapped"
            pass
        _unpriced.add(litellm_model)
        provider = litellm_model.split("/", 1)[0] if "/" in litellm_model else "openai"
        litellm.register_model(
            {
                litellm_model: {
                    "input_cost_per_token": 0.0,
                    "output_cost_per_token": 0.0,
                    "litellm_provider": provider,
                    "mode": "chat",
                }
            },
            add_to_provider_model_sets=False,  # a price, not a new name for provider resolution
        )
        return True


def _success_callbacks_registered() -> bool:
    """Whether anyone asked LiteLLM to report successful calls (relreason itself never does)."""
    return bool(litellm.callbacks or litellm.success_callback or litellm._async_success_callback)


def _quiet_kwargs() -> dict[str, Any]:
    """Per-call kwargs that switch off LiteLLM's success logging when nobody listens to it.

    Why: after every answer LiteLLM schedules a task that builds its standard
    logging payload (prices the response again, copies the messages) for the
    success callbacks, even when there are none: about a tenth of its per-call
    CPU.  LiteLLM skips that task for a call made with ``fallbacks`` set (so the
    parent of a fallback chain is not logged twice); an empty list changes
    nothing else (``[] or litellm.model_fallbacks`` is the same no-fallback
    route, and ``fallbacks`` is a LiteLLM param, never sent to the provider).
    With a success callback registered (a user's Langfuse, say) nothing is
    switched off.  ``tests/unit/test_gateway_litellm_quiet.py`` checks the
    installed LiteLLM still behaves so.
    """
    return {} if _success_callbacks_registered() else {"fallbacks": []}


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


@dataclass
class _Work:
    """One distinct request; several prompt ids may share it (identical messages)."""

    request_hash: str
    messages: list
    params: dict[str, Any]
    prompt_ids: list[str]
    # Which draw of its prompts this request is (``--samples K``): 0 .. K-1.
    sample_index: int = 0


@dataclass
class _Job:
    """A request on its way: the attempts made so far and when the last one ended (for the stats)."""

    work: _Work
    kwargs: dict[str, Any]
    attempts: int = 0


@dataclass
class _Outcome:
    content: str | None
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    attempts: int
    error: str | None
    kind: str | None = None
    reasoning: str | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None


def _sort_key(messages: list) -> str:
    """Sort by content so prompts with a shared prefix (few-shot blocks) are adjacent."""
    return "\x00".join(
        f"{m.get('role', '')}\x01{m.get('content', '')}" for m in messages if isinstance(m, dict)
    )


def _size(work: _Work) -> int:
    return 1 + sum(len(str(m.get("content", ""))) for m in work.messages if isinstance(m, dict))


def _tokens(work: _Work) -> int:
    """What a request may count against a tokens-per-minute limit: its prompt (chars / 4) and max_tokens."""
    return _size(work) // CHARS_PER_TOKEN + int(work.params.get("max_tokens") or 0)


def _samples(prompt: Mapping[str, Any]) -> int:
    """How many draws a prompt asks for (``samples``, default 1)."""
    value = prompt.get("samples") or 1
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"samples must be a positive integer, got {value!r}")
    return value


def _plan(spec: ModelSpec, prompts: Sequence[dict[str, Any]]) -> dict[str, _Work]:
    """Group prompts by request hash (one call serves identical requests).

    A prompt with ``samples: K`` is K requests, one per draw, each with its own hash: draws are never
    merged, so K draws at temperature > 0 are K answers, not one cached K times.
    """
    works: dict[str, _Work] = {}
    seen_ids: dict[tuple[str, int], str] = {}
    for prompt in prompts:
        prompt_id = str(prompt["prompt_id"])
        messages = _canonical_messages(prompt["messages"])
        params = effective_params(spec, prompt.get("max_tokens"), prompt.get("params"))
        for k in range(_samples(prompt)):
            h = _hash_payload(spec.litellm_model, params, spec.api_base, messages, k)
            previous = seen_ids.get((prompt_id, k))
            if previous is not None:  # the same prompt id twice: the last one wins
                if previous == h:
                    continue
                works[previous].prompt_ids.remove(prompt_id)
                if not works[previous].prompt_ids:
                    del works[previous]
            seen_ids[(prompt_id, k)] = h
            work = works.get(h)
            if work is None:
                works[h] = _Work(h, messages, params, [prompt_id], k)
            else:
                work.prompt_ids.append(prompt_id)
    return works


def _content_text(content: Any) -> str:
    """An answer's text: ``None`` is an empty answer, a list of parts is the text of its parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts = []
        for part in content:
            text = part.get("text") if isinstance(part, dict) else getattr(part, "text", part)
            if text is not None:
                parts.append(text if isinstance(text, str) else json.dumps(text, default=str))
        return "".join(parts)
    return json.dumps(content, default=str)


def _count(value: Any) -> int | None:
    """A token count as stored (int32), or None when the provider sent something else."""
    if isinstance(value, bool):
        return None
    try:
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return count if 0 <= count < 2**31 else None


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class _Writer:
    """Buffered appends to the lake with a bounded delay (group commit); remembers its own files."""

    def __init__(self, store: ResponseStore, interval_s: float) -> None:
        self.store = store
        self.interval_s = interval_s
        self.rows: list[tuple] = []
        self.last_flush = float("-inf")
        self.timer: asyncio.TimerHandle | None = None
        self.files: list[str] = []
        self.failure: BaseException | None = None

    @property
    def statements(self) -> int:
        return len(self.files)

    def add(self, row: tuple) -> None:
        if self.failure is not None:  # a timed flush failed: stop the run rather than lose rows
            raise self.failure
        self.rows.append(row)
        if len(self.rows) >= _FLUSH_MAX_ROWS:
            self.flush()
        elif self.timer is None:
            wait = max(self.last_flush + self.interval_s - time.monotonic(), _FLUSH_DELAY_S)
            self.timer = asyncio.get_running_loop().call_later(wait, self._timed_flush)

    def _timed_flush(self) -> None:
        self.timer = None
        try:
            self.flush()
        except Exception as exc:  # noqa: BLE001 - re-raised from add()/the final flush
            self.failure = exc

    def flush(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.failure is not None:
            raise self.failure
        if not self.rows:
            return
        rows, self.rows = self.rows, []
        self.files.extend(self.store.append(rows))
        self.last_flush = time.monotonic()

    def compact(self) -> None:
        """One file per partition for this run's answers (many small files slow every reader)."""
        self.files = self.store.compact(self.files)


class _Runner:
    """State of one run_model call (kept on an object so helpers stay small)."""

    def __init__(
        self,
        store: ResponseStore,
        spec: ModelSpec,
        progress: ProgressFn | None,
        backoff_base_s: float,
        backoff_cap_s: float,
        rng: random.Random,
        extra_kwargs: dict[str, Any] | None,
        flush_interval_s: float = DEFAULT_FLUSH_INTERVAL_S,
    ) -> None:
        self.store = store
        self.writer = _Writer(store, flush_interval_s)
        self.benchmarks: dict[str, str] = {}
        self.spec = spec
        self.progress = progress
        self.backoff_base_s = backoff_base_s
        self.backoff_cap_s = backoff_cap_s
        self.rng = rng
        self.extra_kwargs = extra_kwargs or {}
        self.api_key = require_api_key(spec)
        # In-process llama.cpp cannot hang on a network and cannot be interrupted
        # (a cancelled call keeps computing and holds the model's lock), so it gets
        # no hard timeout; remote calls get one in case the client's own fails.
        self.hard_timeout = None if spec.provider == "local" else spec.timeout_s + _HARD_TIMEOUT_SLACK_S
        self.stats = RunStats(model=spec.name)
        self.total = 0
        self.quiet_kwargs = _quiet_kwargs()
        self.redact = redactor_for(spec)
        self.limiter = RateLimiter(spec.rpm, spec.tpm)
        # USD spent by this model's calls, stored ones included (``max_cost``; set by _answer).
        self.spent = 0.0

    def _over_budget(self) -> bool:
        return self.spec.max_cost is not None and self.spent >= self.spec.max_cost

    def _stop_for_budget(self, first: _Work, fresh: Any) -> None:
        """Count ``first`` and every request not yet sent as stopped by the budget (once, with a line)."""
        stopped = [first, *fresh]
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

    def _existing(self, works: dict[str, _Work]) -> tuple[set[tuple[str, str]], dict[str, dict[str, Any]]]:
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
        rows = []
        for prompt_id, h in pairs:
            hit = hits[h]
            rows.append(
                (
                    prompt_id,
                    self.spec.name,
                    self.benchmarks.get(prompt_id, _UNKNOWN_BENCHMARK),
                    h,
                    hit["litellm_model"],
                    hit["content"],
                    hit["finish_reason"],
                    hit["prompt_tokens"],
                    hit["completion_tokens"],
                    hit["latency_s"],
                    0,
                    None,
                    True,
                    created,
                    bool(hit.get("sanitized")),  # the copy was changed exactly as its source was
                    hit.get("reasoning"),
                    hit.get("reasoning_tokens"),
                    hit.get("sample_index") or 0,
                    None if hit.get("cost_usd") is None else 0.0,
                )
            )
        self.writer.files.extend(self.store.append(rows))

    def _store(self, work: _Work, outcome: _Outcome) -> None:
        created = _now()
        for i, prompt_id in enumerate(work.prompt_ids):
            self.writer.add(
                (
                    prompt_id,
                    self.spec.name,
                    self.benchmarks.get(prompt_id, _UNKNOWN_BENCHMARK),
                    work.request_hash,
                    self.spec.litellm_model,
                    self.redact(outcome.content),
                    self.redact(outcome.finish_reason),
                    outcome.prompt_tokens,
                    outcome.completion_tokens,
                    outcome.latency_s,
                    outcome.attempts,
                    self.redact(outcome.error),
                    i > 0 and outcome.error is None,
                    created,
                    False,  # set by the store when the text had to change
                    self.redact(outcome.reasoning),
                    outcome.reasoning_tokens,
                    work.sample_index,
                    # One call answered every prompt id of the request: its cost is the first row's.
                    outcome.cost_usd if i == 0 or outcome.cost_usd is None else 0.0,
                )
            )

    def _call_kwargs(self, work: _Work) -> dict[str, Any]:
        kwargs: dict[str, Any] = dict(self.quiet_kwargs)
        kwargs.update(work.params)
        kwargs.update(self.extra_kwargs)
        kwargs.update(
            model=self.spec.litellm_model,
            messages=work.messages,
            timeout=self.spec.timeout_s,
            num_retries=0,
            max_retries=0,
        )
        if self.spec.api_base:
            kwargs["api_base"] = self.spec.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        return kwargs

    async def _attempt(self, job: _Job) -> float | None:
        """Send ``job`` once.  None: its outcome is stored; else the seconds to wait before the next try."""
        await self.limiter.acquire(_tokens(job.work))
        job.attempts += 1
        self.stats.attempts += 1
        start = time.monotonic()
        try:
            response = await asyncio.wait_for(litellm.acompletion(**job.kwargs), self.hard_timeout)
            outcome = self._success(response, time.monotonic() - start, job.attempts, self.spec)
        except Exception as exc:  # noqa: BLE001 - every provider error becomes a stored row
            latency = time.monotonic() - start
            kind, retryable = classify_error(exc)
            if not retryable or job.attempts >= self.spec.max_attempts:
                error = _error_text(kind, exc, self.redact)
                kind, error = rejected_params.relabel(
                    kind, error, str(exc), self.spec.name, self.spec.params, job.work.params
                )
                self._finish(job.work, _Outcome(None, None, None, None, latency, job.attempts, error, kind))
                return None
            delay = backoff_delay(job.attempts, self.backoff_base_s, self.backoff_cap_s, self.rng)
            wait = retry_after_seconds(exc)
            if wait is not None:
                delay = max(delay, min(wait, RETRY_AFTER_CAP_S))
            return delay
        self._finish(job.work, outcome)  # outside the try: a store that fails stops the run
        return None

    async def _drive(self, to_call: list[_Work]) -> None:
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
                    work = next(fresh, None)
                    if work is not None and self._over_budget():
                        self._stop_for_budget(work, fresh)
                        work = None
                    if work is None:
                        if not waiting:
                            return
                        wake.clear()
                        await wake.wait()
                        continue
                    job = _Job(work, self._call_kwargs(work))
                delay = await self._attempt(job)
                if delay is None:
                    continue
                waiting += 1
                if delay <= 0:
                    wait_over(job)
                else:
                    timers.append(loop.call_later(delay, wait_over, job))

        n_workers = max(1, min(self.spec.concurrency, len(to_call)))
        tasks = [asyncio.create_task(worker()) for _ in range(n_workers)]
        try:
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

    async def _drive_in_workers(self, to_call: list[_Work], n: int) -> None:
        """Send the calls from ``n`` processes (``llm/workers.py``), each every n-th request.

        The model's concurrency is shared out, so the total in flight stays
        ``spec.concurrency``; the workers' counts add up into this run's stats
        (and its progress lines), and their files join this run's for compaction.
        """
        total = self.spec.concurrency
        payloads = []
        for k in range(n):
            works = to_call[k::n]
            payloads.append(
                {
                    "lake_url": self.store.lake.url,
                    "spec": dataclasses.replace(
                        self.spec,
                        concurrency=total // n + (1 if k < total % n else 0),
                        workers=1,
                        rpm=share(self.spec.rpm, n, k),
                        tpm=share(self.spec.tpm, n, k),
                        # Each process gets an equal share of what is left of the budget.
                        max_cost=None
                        if self.spec.max_cost is None
                        else max(self.spec.max_cost - self.spent, 0.0) / n,
                    ),
                    "works": works,
                    "benchmarks": {
                        pid: self.benchmarks.get(pid, _UNKNOWN_BENCHMARK)
                        for work in works
                        for pid in work.prompt_ids
                    },
                    "extra_kwargs": self.extra_kwargs,
                    "backoff_s": (self.backoff_base_s, self.backoff_cap_s),
                    "seed": self.rng.randrange(2**32),
                    "flush_interval_s": self.writer.interval_s,
                }
            )
        loop = asyncio.get_running_loop()
        self.stats.workers = n
        snapshots: list[dict[str, Any]] = [{} for _ in range(n)]

        def progress(k: int, snapshot: dict[str, Any]) -> None:
            snapshots[k] = snapshot
            self._add_counters(snapshots)
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
        self._add_counters(snapshots)
        self._report()
        failures = [
            f"worker {k}: {self.redact(r['failure'])}" for k, r in enumerate(results) if r.get("failure")
        ]
        if failures:
            raise RuntimeError(
                f"{self.spec.name}: {len(failures)} of {n} gateway workers failed ({'; '.join(failures)}); "
                "the answers they stored are kept, and running again asks only the rest"
            )

    def _add_counters(self, snapshots: list[dict[str, Any]]) -> None:
        """This run's call counters as the sum of its workers' latest snapshots."""
        self.stats.called = sum(s.get("called", 0) for s in snapshots)
        self.stats.shared = sum(s.get("shared", 0) for s in snapshots)
        self.stats.errors = sum(s.get("errors", 0) for s in snapshots)
        self.stats.attempts = sum(s.get("attempts", 0) for s in snapshots)
        self.stats.work_done = sum(s.get("work_done", 0) for s in snapshots)
        self.stats.budget_stopped = sum(s.get("budget_stopped", 0) for s in snapshots)
        kinds: dict[str, int] = {}
        for s in snapshots:
            for kind, count in s.get("error_kinds", {}).items():
                kinds[kind] = kinds.get(kind, 0) + count
        self.stats.error_kinds = kinds

    @staticmethod
    def _success(response: Any, latency: float, attempts: int, spec: ModelSpec | None = None) -> _Outcome:
        """The outcome of a 200 reply; :class:`MalformedReply` when it carries no message to store.

        ``content: null`` is an empty answer (stored as ``""``); content given as a list of parts
        is stored as the text of its parts; token counts that are not numbers are stored as null.
        A reasoning model's thinking goes to ``reasoning``, never into ``content`` (the answer the
        parsers read): LiteLLM's ``reasoning_content`` when it has one, else a ``<think>`` block
        split off the text (``llm/reasoning.py``).
        """
        choices = getattr(response, "choices", None)
        if not isinstance(choices, (list, tuple)) or not choices:
            raise MalformedReply(
                "200 reply with no choices" if choices is None else f"200 reply with choices={choices!r:.80}"
            )
        choice = choices[0]
        message = getattr(choice, "message", None)
        if message is None:
            raise MalformedReply("200 reply whose first choice has no message")
        usage = getattr(response, "usage", None)
        finish_reason = getattr(choice, "finish_reason", None)
        content = _content_text(getattr(message, "content", None))
        reasoning = getattr(message, "reasoning_content", None)
        reasoning = _content_text(reasoning) if reasoning is not None else None
        inline_answer, inline = split_reasoning(content, spec.reasoning if spec is not None else None)
        if inline is not None:
            content = inline_answer
            reasoning = inline if not reasoning else f"{reasoning}\n\n{inline}"
        elif reasoning:
            content = content.lstrip()  # LiteLLM's own split of a <think> block leaves its blank lines
        details = getattr(usage, "completion_tokens_details", None)
        prompt_tokens = _count(getattr(usage, "prompt_tokens", None))
        completion_tokens = _count(getattr(usage, "completion_tokens", None))
        return _Outcome(
            content=content,
            finish_reason=None if finish_reason is None else str(finish_reason),
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=latency,
            attempts=attempts,
            error=None,
            reasoning=reasoning or None,
            reasoning_tokens=_count(getattr(details, "reasoning_tokens", None)),
            cost_usd=call_cost(spec.litellm_model, prompt_tokens, completion_tokens) if spec else None,
        )

    def _finish(self, work: _Work, outcome: _Outcome) -> None:
        self._store(work, outcome)
        if outcome.cost_usd is not None:
            self.spent += outcome.cost_usd
            self.stats.spent_usd = self.spent
        self.stats.called += 1  # one request, whatever number of identical prompts it answers
        self.stats.shared += len(work.prompt_ids) - 1
        self.stats.work_done += _size(work)
        if outcome.error is not None:
            self.stats.errors += len(work.prompt_ids)
            kind = outcome.kind or "error"
            self.stats.error_kinds[kind] = self.stats.error_kinds.get(kind, 0) + len(work.prompt_ids)
        self._report()

    async def run(self, prompts: Sequence[dict[str, Any]]) -> RunStats:
        start = time.monotonic()
        works = _plan(self.spec, prompts)
        self.benchmarks = {
            str(p["prompt_id"]): str(p.get("benchmark") or _UNKNOWN_BENCHMARK) for p in prompts
        }
        self.total = sum(len(w.prompt_ids) for w in works.values())
        self.stats.total = self.total
        # From looking at what is stored until this run's answers are written: no other run of this
        # model looks meanwhile, so none pays again for what this one is asking.
        async with model_claim(self.store.lake, self.spec.name, self._notice) as waited:
            self.stats.waited_s = waited
            await self._answer(works)
        self.stats.seconds = time.monotonic() - start
        return self.stats

    async def _answer(self, works: dict[str, _Work]) -> None:
        """Skip what is stored, copy cache hits, call the model for the rest, merge this run's files."""
        if self.spec.max_cost is not None:
            if not price_known(self.spec.litellm_model):
                raise ConfigError(
                    f"model {self.spec.name!r}: max_cost needs a price, and LiteLLM's cost map has none for "
                    f"{self.spec.litellm_model}; remove max_cost or use a model LiteLLM can price"
                )
            self.spent = self.store.spent(self.spec.name)
            self.stats.spent_usd = self.spent
        done, hits = self._existing(works)
        to_call: list[_Work] = []
        cache_pairs: list[tuple[str, str]] = []
        for h, work in works.items():
            pending = [pid for pid in work.prompt_ids if (pid, h) not in done]
            self.stats.skipped += len(work.prompt_ids) - len(pending)
            if not pending:
                continue
            if h in hits:
                cache_pairs.extend((pid, h) for pid in pending)
            else:
                to_call.append(_Work(h, work.messages, work.params, pending, work.sample_index))
        self._copy_from_cache(cache_pairs, hits)
        self.stats.cached += len(cache_pairs)
        self._report()
        if to_call:
            to_call.sort(key=lambda w: _sort_key(w.messages))
            self.stats.work_total = sum(_size(w) for w in to_call)
            try:
                n_workers = min(self.spec.workers, len(to_call), self.spec.concurrency)
                if n_workers > 1:
                    await self._drive_in_workers(to_call, n_workers)
                else:
                    await self._drive(to_call)
            finally:
                self.writer.flush()  # whatever finished is kept, even on cancellation
        self.writer.compact()


async def run_model_async(
    store: ResponseStore,
    spec: ModelSpec,
    prompts: Sequence[dict[str, Any]],
    *,
    progress: ProgressFn | None = None,
    backoff_base_s: float = DEFAULT_BACKOFF_BASE_S,
    backoff_cap_s: float = DEFAULT_BACKOFF_CAP_S,
    seed: int | None = None,
    extra_kwargs: dict[str, Any] | None = None,
) -> RunStats:
    """Async form of :func:`run_model`, for callers that already run an event loop."""
    _register_builtin_providers(spec)
    price_unknown_model_at_zero(spec.litellm_model)
    runner = _Runner(store, spec, progress, backoff_base_s, backoff_cap_s, random.Random(seed), extra_kwargs)
    return await runner.run(prompts)


def run_model(
    store: ResponseStore,
    spec: ModelSpec,
    prompts: Sequence[dict[str, Any]],
    *,
    progress: ProgressFn | None = None,
    backoff_base_s: float = DEFAULT_BACKOFF_BASE_S,
    backoff_cap_s: float = DEFAULT_BACKOFF_CAP_S,
    seed: int | None = None,
    extra_kwargs: dict[str, Any] | None = None,
) -> RunStats:
    """Answer ``prompts`` with ``spec``'s model and store one row per prompt in the lake.

    ``prompts``: dicts with ``prompt_id``, ``messages`` (list or JSON string),
    ``max_tokens`` and optionally ``benchmark`` (the lake partition) and
    ``params`` (the study's generation params, on top of the model's; in the
    cache key).  Provider errors are stored, not raised; a missing API key is a
    ConfigError before any call.  ``backoff_*`` and ``seed`` (jitter)
    exist so tests can make retries fast and reproducible; ``extra_kwargs``
    go to every ``litellm.acompletion`` call but not into the cache key.
    Works from sync code and from inside a running event loop (it then runs
    on a helper thread).
    """
    coro_kwargs = dict(
        progress=progress,
        backoff_base_s=backoff_base_s,
        backoff_cap_s=backoff_cap_s,
        seed=seed,
        extra_kwargs=extra_kwargs,
    )
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(run_model_async(store, spec, prompts, **coro_kwargs))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(run_model_async(store, spec, prompts, **coro_kwargs))).result()


def _counters(stats: RunStats) -> dict[str, Any]:
    return {
        "called": stats.called,
        "shared": stats.shared,
        "errors": stats.errors,
        "attempts": stats.attempts,
        "work_done": stats.work_done,
        "budget_stopped": stats.budget_stopped,
        "error_kinds": dict(stats.error_kinds),
    }


def run_slice(payload: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A gateway worker's share of a run (``llm/workers.py``): send its requests, store the outcomes.

    ``payload`` comes from ``_Runner._drive_in_workers``; ``send`` gets the
    worker's counters after every finished request.  Returns the counters, the
    files written and ``failure`` (one line, or None): a failed store ends the
    slice, and what was written before it is still reported, so nothing is lost.
    """
    spec: ModelSpec = payload["spec"]
    _register_builtin_providers(spec)
    price_unknown_model_at_zero(spec.litellm_model)
    base_s, cap_s = payload["backoff_s"]
    runner = _Runner(
        ResponseStore(Lake.open(payload["lake_url"])),
        spec,
        lambda _done, _total, stats: send(_counters(stats)),
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
    return {**_counters(runner.stats), "files": runner.writer.files, "failure": failure}


def _register_builtin_providers(spec: ModelSpec) -> None:
    """Register the in-process ``local`` provider when a spec needs it (lazy: llama.cpp is heavy)."""
    if spec.provider == "local":
        from relreason_dagster.llm.local_provider import register_local_provider

        register_local_provider()
