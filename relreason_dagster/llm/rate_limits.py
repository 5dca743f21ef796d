"""Requests and tokens per minute: a model entry's ``rpm`` and ``tpm``, honoured before each send.

Providers limit requests and tokens per minute, not calls in flight; a run that only capped
``concurrency`` met them as a burst of 429s.  :class:`RateLimiter` keeps the send times (and token
estimates) of the last window and makes a request wait until sending it keeps the window within both
limits: over any window of :data:`WINDOW_S` seconds, at most ``rpm`` requests and ``tpm`` estimated
tokens.  Retries count like any request.  A token estimate is the prompt's characters / 4 plus its
``max_tokens`` (what the provider may charge against the limit), so ``tpm`` errs on the safe side.
"""

from __future__ import annotations

import asyncio
import collections
import time

# One minute.  A module constant so a test can shrink the window instead of waiting minutes.
WINDOW_S = 60.0
CHARS_PER_TOKEN = 4


class RateLimiter:
    """Sliding-window limits on requests and tokens; one per run of a model (not thread-safe: one loop)."""

    def __init__(self, rpm: int | None, tpm: int | None, window_s: float | None = None) -> None:
        self.rpm = rpm
        self.tpm = tpm
        self.window_s = WINDOW_S if window_s is None else window_s
        self.sent: collections.deque[tuple[float, int]] = collections.deque()
        self.lock = asyncio.Lock()

    @property
    def active(self) -> bool:
        return bool(self.rpm or self.tpm)

    def _wait(self, now: float, tokens: int) -> float:
        """Seconds until a request of ``tokens`` may go (0: now)."""
        while self.sent and self.sent[0][0] <= now - self.window_s:
            self.sent.popleft()
        waits = [0.0]
        if self.rpm and len(self.sent) >= self.rpm:
            waits.append(self.sent[len(self.sent) - self.rpm][0] + self.window_s - now)
        if self.tpm:
            # A request larger than the whole budget goes alone, once the window is empty.
            budget = max(self.tpm - min(tokens, self.tpm), 0)
            used = sum(t for _, t in self.sent)
            for when, t in self.sent:
                if used <= budget:
                    break
                used -= t
                waits.append(when + self.window_s - now)
        return max(waits)

    async def acquire(self, tokens: int = 0) -> None:
        """Wait until a request of ``tokens`` estimated tokens fits both limits, then count it sent."""
        if not self.active:
            return
        async with self.lock:  # in order: a request that waits is not overtaken by a later one
            while True:
                now = time.monotonic()
                delay = self._wait(now, tokens)
                if delay <= 0:
                    self.sent.append((now, tokens))
                    return
                await asyncio.sleep(delay)


def share(limit: int | None, n: int, k: int) -> int | None:
    """Worker ``k``'s share of a per-model limit split over ``n`` processes (they add up to it)."""
    if not limit:
        return limit
    return max(1, limit // n + (1 if k < limit % n else 0))
