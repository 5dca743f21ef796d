"""What a provider error is: its kind, whether to retry it, how long to wait, and the stored text.

Why a module of its own: the gateway makes its own retries (LiteLLM and the OpenAI SDK are told not
to), so the rules for which error is worth another attempt, the backoff and the server's
``Retry-After`` live in one place, as pure functions the tests call without a model.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
from datetime import UTC, datetime
from typing import Any

from relreason_dagster.llm.litellm_overhead import litellm_module
from relreason_dagster.llm.redaction import Redactor

DEFAULT_BACKOFF_BASE_S = 0.5
DEFAULT_BACKOFF_CAP_S = 30.0
# A server asking for more than this is treated as asking for this much;
# waiting an hour inside a pipeline step helps nobody.
RETRY_AFTER_CAP_S = 300.0
_ERROR_MAX_CHARS = 500


class MalformedReply(Exception):
    """A 200 reply that breaks the chat-completions protocol (no choices, a choice without a message)."""


class ProviderError(Exception):
    """A failed call of the direct transport (``llm/direct_transport.py``), already classified.

    ``kind`` and ``retryable`` are what :func:`classify_error` gives LiteLLM's exception for the
    same failure; ``headers`` (a 429's ``Retry-After``) are read by :func:`retry_after_seconds`.
    """

    def __init__(
        self,
        kind: str,
        retryable: bool,
        message: str,
        status_code: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.status_code = status_code
        self.headers = headers or {}


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
# Status -> (kind, retryable), as LiteLLM's mapping names an OpenAI-compatible provider's errors.
_STATUS_KINDS: dict[int, tuple[str, bool]] = {
    401: ("authentication", False),
    403: ("permission_denied", False),
    404: ("not_found", False),
    408: ("timeout", True),
    422: ("bad_request", False),
    429: ("rate_limit", True),
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
        kind, retryable = "context_length_exceeded", False
    elif status == 400 and any(m in lowered for m in _CONTENT_POLICY_MARKERS):
        kind, retryable = "content_policy", False
    elif status in _STATUS_KINDS:
        kind, retryable = _STATUS_KINDS[status]
    elif status >= 500:
        kind, retryable = "server_error", True
    else:
        kind, retryable = "bad_request", False
    return ProviderError(kind, retryable, f"HTTP {status}: {message}", status, headers)


# What LiteLLM raises (as a 500, or an APIError / APIConnectionError, depending on the provider) for
# replies it cannot read, a body that is not JSON among them: named as malformed, not as a server error.
_LITELLM_MALFORMED_MARKERS = (
    "response with no 'choices'",
    "Invalid response object",
    "Empty or invalid response from LLM endpoint",
    "Unable to get json response",
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


def classify_error(exc: BaseException) -> tuple[str, bool]:
    """``(kind, retryable)`` for an exception raised by ``litellm.acompletion``.

    Order matters: LiteLLM's ContextWindowExceededError is a BadRequestError,
    and its Timeout is an APIConnectionError.
    """
    if isinstance(exc, MalformedReply):
        return "malformed_reply", True
    if isinstance(exc, ProviderError):
        return exc.kind, exc.retryable
    litellm = litellm_module()
    if isinstance(exc, (litellm.InternalServerError, litellm.APIError, litellm.APIConnectionError)):
        text = str(exc)
        if any(marker in text for marker in _LITELLM_MALFORMED_MARKERS):
            return "malformed_reply", True
        broken = any(marker in text for marker in _LITELLM_CONNECTION_MARKERS)
        if broken and isinstance(exc, litellm.InternalServerError):
            return "connection_error", True
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
