"""Whether the direct transport's request got a connection before it timed out: was it sent at all?

Why: a timeout after the request was sent may be billed (the provider finishes and bills a request
whose client stopped waiting), one before it was not; the gateway counts the first as *possibly
billed* and retries it at most ``timeout_retries`` times, the second like any failure to connect
(``provider_errors.RETRY_RULES``).  aiohttp cannot tell them apart by itself: its session's ``total``
timeout cancels the request wherever it is and raises a bare ``TimeoutError`` either way.  So the
session's connector marks, in the sending task's context, the moment it hands over a connection;
once it has, aiohttp writes the request at once, so a later timeout counts as after the send.

Imported only where the direct transport opens its session (this module imports aiohttp).  A context
variable and not a flag on the transport: up to ``concurrency`` requests are in flight in one session,
each in its own gateway task, and a task's context is its own.  Cost per request: one overridden
``connect`` and one ``ContextVar.set`` (~1 µs against ~200 µs of the call).
"""

from __future__ import annotations

import contextvars
from typing import Any

import aiohttp

_CONNECTED: contextvars.ContextVar[bool] = contextvars.ContextVar("relreason_connected", default=False)


def start() -> None:
    """Mark the calling task's next request as not yet connected (call right before sending it)."""
    _CONNECTED.set(False)


def connected() -> bool:
    """Whether the calling task's current request got its connection (so it was sent)."""
    return _CONNECTED.get()


class MarkingConnector(aiohttp.TCPConnector):
    """aiohttp's TCP connector that marks the request's task once it hands over a connection."""

    async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
        conn = await super().connect(req, traces, timeout)
        _CONNECTED.set(True)
        return conn
