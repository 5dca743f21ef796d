"""What a provider error is: its kind, whether to retry it, how long to wait, and the stored text.

Why a module of its own: the gateway makes its own retries (LiteLLM and the OpenAI SDK are told not
to), so the rules for which error is worth another attempt, the backoff and the server's
``Retry-After`` live in one place, as pure functions the tests call without a model.  Both transports
classify here (``classify_error`` for LiteLLM's exceptions, ``status_error`` and :class:`MalformedReply`
for the direct transport's), so a later transport only maps its failures onto these kinds, and
:data:`RETRY_RULES` is the one table of how often each kind is sent (docs/pipeline.md, "Retries").
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from relreason_dagster.llm.litellm_overhead import litellm_module
from relreason_dagster.llm.redaction import Redactor
from relreason_dagster.llm.registry import DEFAULT_TIMEOUT_RETRIES

DEFAULT_BACKOFF_BASE_S = 0.5
DEFAULT_BACKOFF_CAP_S = 30.0
# A server asking for more than this is treated as asking for this much;
# waiting an hour inside a pipeline step helps nobody.
RETRY_AFTER_CAP_S = 300.0
_ERROR_MAX_CHARS = 500


CONNECT_TIMEOUT = "connect_timeout"
"""The kind of a timeout before the request was sent (no connection in time: nothing reached the
provider, so nothing was billed).  Told apart from ``timeout`` (after it was sent) on both transports:
the direct one marks when its connection is made (``transports/sent_marker.py``), LiteLLM's chain of
exceptions holds httpx's ``ConnectTimeout`` / ``PoolTimeout`` (or aiohttp's ``ConnectionTimeoutError``)."""
BATCH_UNANSWERED = "batch_unanswered"
"""The kind of a batch job's line the provider never ran (the job expired, was cancelled, or ended without
the line): not billed, so asked again like a 5xx (``llm/transports/batch.py``)."""
MALFORMED_REPLY = "malformed_reply"
"""The kind of a 200 reply that cannot be read: a body that is not UTF-8 or not JSON, no choices, a
choice without a message.  The same on both transports."""


@dataclass(frozen=True)
class RetryRule:
    """How a kind of error is retried: ``retryable``, and at most ``max_sends`` requests in all
    (None: the model's ``max_attempts``, which also bounds any number here).

    ``possibly_billed``: a send that ended so may have been billed (the provider got the request and
    may have finished it after the client stopped waiting).  The gateway counts each such send as
    possibly billed at its estimated cost (``llm/possibly_billed.py``), and it is sent at most
    ``1 + timeout_retries`` times (the model entry's field), ``max_attempts`` still bounding it."""

    retryable: bool
    max_sends: int | None = None
    possibly_billed: bool = False


# The one table of retries, by kind (docs/pipeline.md, "Retries", shows it).  Why each row:
# * the provider said no for good (a bad key, a refused parameter, a prompt too long): nothing changes
#   on a second send, so one send;
# * it asked us to wait, or could not take the request (429, a 5xx, a dropped connection, a timeout
#   while connecting): nothing was answered, so nothing was billed; retried up to max_attempts;
# * it got the request and did not answer in time (``timeout``: the client stopped waiting after the
#   request was sent): the provider may finish it and bill it all the same, so each such send is
#   counted possibly billed and it is sent again at most ``timeout_retries`` times (default 1);
# * a 200 that cannot be read: the provider answered, and may well have billed it.  Sent again once (a
#   proxy or an overloaded server sends these transiently), never max_attempts times blindly.
RETRY_RULES: dict[str, RetryRule] = {
    "rate_limit": RetryRule(retryable=True),
    "timeout": RetryRule(retryable=True, possibly_billed=True),
    CONNECT_TIMEOUT: RetryRule(retryable=True),
    "connection_error": RetryRule(retryable=True),
    "server_error": RetryRule(retryable=True),
    BATCH_UNANSWERED: RetryRule(retryable=True),
    MALFORMED_REPLY: RetryRule(retryable=True, max_sends=2),
    "context_length_exceeded": RetryRule(retryable=False),
    "content_policy": RetryRule(retryable=False),
    "authentication": RetryRule(retryable=False),
    "permission_denied": RetryRule(retryable=False),
    "not_found": RetryRule(retryable=False),
    "bad_request": RetryRule(retryable=False),
    "rejected_param": RetryRule(retryable=False),  # a bad_request naming a refused parameter
    "error": RetryRule(retryable=False),  # anything else: not known to be worth a second send
}


def retry_rule(kind: str) -> RetryRule:
    """The rule of ``kind``; a kind the table lacks is not retried (as ``error``)."""
    return RETRY_RULES.get(kind, RETRY_RULES["error"])


def sends_allowed(kind: str, max_attempts: int, timeout_retries: int = DEFAULT_TIMEOUT_RETRIES) -> int:
    """How many requests an error of ``kind`` may cost in all, for a model allowing ``max_attempts``
    and ``timeout_retries`` (its entry's fields: a possibly-billed kind is sent at most
    ``1 + timeout_retries`` times)."""
    rule = retry_rule(kind)
    if not rule.retryable:
        return 1
    bound = rule.max_sends
    if rule.possibly_billed:
        bound = 1 + max(0, timeout_retries) if bound is None else min(bound, 1 + max(0, timeout_retries))
    return max_attempts if bound is None else max(1, min(bound, max_attempts))


# The names of the exceptions, anywhere in a LiteLLM error's chain, of a timeout before the request
# was sent: httpx's (the OpenAI SDK and LiteLLM's own HTTP client) and aiohttp's (LiteLLM's aiohttp
# transport under httpx raises it first, httpx's ConnectTimeout wraps it).
_UNSENT_TIMEOUTS = frozenset({"ConnectTimeout", "PoolTimeout", "ConnectionTimeoutError"})


def _timed_out_unsent(exc: BaseException) -> bool:
    """Whether a timeout ``exc`` (LiteLLM's) happened before the request was sent, from its chain."""
    seen: BaseException | None = exc
    for _ in range(12):
        if seen is None:
            return False
        if type(seen).__name__ in _UNSENT_TIMEOUTS:
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class MalformedReply(Exception):
    """A 200 reply that breaks the chat-completions protocol (no choices, a choice without a message)
    or cannot be decoded at all (not UTF-8, not JSON): kind :data:`MALFORMED_REPLY`."""


class ProviderError(Exception):
    """A failed call of the direct transport (``llm/transports/direct.py``), already classified.

    ``kind`` is what :func:`classify_error` gives LiteLLM's exception for the same failure, and
    whether it is retried is the kind's :data:`RETRY_RULES` row; ``headers`` (a 429's ``Retry-After``)
    are read by :func:`retry_after_seconds`.
    """

    def __init__(
        self,
        kind: str,
        message: str,
        status_code: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.status_code = status_code
        self.headers = headers or {}

    @property
    def retryable(self) -> bool:
        return retry_rule(self.kind).retryable


# What LiteLLM's exception mapping looks for in a 400's text to raise its more specific errors.
_CONTEXT_MARKERS = (
    "context length",
    "context_length_exceeded",
    "maximum context length",
    "input is too long",
    "prompt is too long",
    "too many tokens",
)
_CONTENT_POLICY_MARKERS = ("content_policy_violation", "content management policy", "content_filter")
# Status -> kind, as LiteLLM's mapping names an OpenAI-compatible provider's errors.
_STATUS_KINDS: dict[int, str] = {
    401: "authentication",
    403: "permission_denied",
    404: "not_found",
    408: "timeout",
    422: "bad_request",
    429: "rate_limit",
}


def _reply_message(raw: bytes) -> str:
    """A provider's error text: ``error.message`` (``message``, ``detail``) of a JSON body, else the body."""
    text = raw.decode("utf-8", "replace")
    try:
        body = json.loads(text)
    except ValueError:
        return " ".join(text.split())[:_ERROR_MAX_CHARS] or "(empty body)"
    if isinstance(body, dict):
        error = body.get("error")
        for candidate in (
            error.get("message") if isinstance(error, dict) else error,
            body.get("message"),
            body.get("detail"),
        ):
            if isinstance(candidate, str) and candidate:
                return candidate
    return text


def status_error(status: int, raw: bytes, headers: dict[str, str]) -> ProviderError:
    """The :class:`ProviderError` of a non-2xx reply: its kind from the status (and a 400's text)."""
    message = _reply_message(raw)
    lowered = message.lower()
    if status == 400 and any(m in lowered for m in _CONTEXT_MARKERS):
        kind = "context_length_exceeded"
    elif status == 400 and any(m in lowered for m in _CONTENT_POLICY_MARKERS):
        kind = "content_policy"
    elif status in _STATUS_KINDS:
        kind = _STATUS_KINDS[status]
    elif status >= 500:
        kind = "server_error"
    else:
        kind = "bad_request"
    return ProviderError(kind, f"HTTP {status}: {message}", status, headers)


# What LiteLLM raises (as a 500, or an APIError / APIConnectionError, depending on the provider) for
# replies it cannot read, a body that is not JSON among them: named as malformed, not as a server error.
_LITELLM_MALFORMED_MARKERS = (
    "response with no 'choices'",
    "Invalid response object",
    "Empty or invalid response from LLM endpoint",
    "Unable to get json response",
    # The SDK's JSON read of a 200 body that is not UTF-8 (Python's UnicodeDecodeError, as text).
    "codec can't decode",
)
# What LiteLLM raises as a 500 when the connection broke (the server closed it without an answer):
# a connection error, as the direct transport names it (both are retried the same way).
_LITELLM_CONNECTION_MARKERS = ("OpenAIException - Connection error", "Exception - Server disconnected")


def _status_code(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    try:
        return int(code) if code is not None else None
    except (TypeError, ValueError):
        return None


def _undecodable(exc: BaseException) -> bool:
    """Whether ``exc`` is, or was raised while handling, a reply's bytes that do not decode."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, UnicodeDecodeError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def classify_error(exc: BaseException) -> tuple[str, bool]:
    """``(kind, retryable)`` for a failed call of either transport; ``retryable`` is the kind's
    :data:`RETRY_RULES` row (how many sends it may cost: :func:`sends_allowed`)."""
    kind = error_kind(exc)
    return kind, retry_rule(kind).retryable


def error_kind(exc: BaseException) -> str:
    """The kind of an exception raised by a transport: the direct one's are classified already,
    LiteLLM's (``litellm.acompletion``) are read here.

    Order matters: LiteLLM's ContextWindowExceededError is a BadRequestError,
    and its Timeout is an APIConnectionError.
    """
    if isinstance(exc, MalformedReply):
        return MALFORMED_REPLY
    if isinstance(exc, ProviderError):
        return exc.kind
    if _undecodable(exc):
        return MALFORMED_REPLY
    litellm = litellm_module()
    if isinstance(exc, (litellm.InternalServerError, litellm.APIError, litellm.APIConnectionError)):
        text = str(exc)
        if any(marker in text for marker in _LITELLM_MALFORMED_MARKERS):
            return MALFORMED_REPLY
        broken = any(marker in text for marker in _LITELLM_CONNECTION_MARKERS)
        if broken and isinstance(exc, litellm.InternalServerError):
            return "connection_error"
    checks: list[tuple[type[BaseException], str]] = [
        (litellm.ContextWindowExceededError, "context_length_exceeded"),
        (litellm.ContentPolicyViolationError, "content_policy"),
        (litellm.RateLimitError, "rate_limit"),
        (litellm.Timeout, "timeout"),
        (asyncio.TimeoutError, "timeout"),
        (litellm.APIConnectionError, "connection_error"),
        (litellm.ServiceUnavailableError, "server_error"),
        (litellm.InternalServerError, "server_error"),
        (litellm.BadGatewayError, "server_error"),
        (litellm.AuthenticationError, "authentication"),
        (litellm.PermissionDeniedError, "permission_denied"),
        (litellm.NotFoundError, "not_found"),
        (litellm.UnprocessableEntityError, "bad_request"),
        (litellm.BadRequestError, "bad_request"),
    ]
    for cls, kind in checks:
        if isinstance(exc, cls):
            return CONNECT_TIMEOUT if kind == "timeout" and _timed_out_unsent(exc) else kind
    code = _status_code(exc)
    if code == 429:
        return "rate_limit"
    if code == 408:
        return "timeout"
    if code is not None and code >= 500:
        return "server_error"
    if code is not None and 400 <= code < 500:
        return "bad_request"
    if isinstance(exc, (ConnectionError, OSError)):
        return "connection_error"
    return "error"


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


def error_text(kind: str, exc: BaseException, redact: Redactor | None = None) -> str:
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
