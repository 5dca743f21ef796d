"""Requests and tokens per minute: a model entry's ``rpm`` and ``tpm``, honoured before each send.

Providers limit requests and tokens per minute, not calls in flight; a run that only capped
``concurrency`` met them as a burst of 429s.  :class:`RateLimiter` keeps the requests of the last window
and makes a request wait until sending it keeps every window of :data:`WINDOW_S` seconds, *as the
provider sees it*, within both limits: at most ``rpm`` requests and ``tpm`` estimated tokens.

The provider counts a request when it arrives, which is some time after we send it (a connection to
open, a busy machine) and before its answer is back.  Counting our send times let a second minute's
burst arrive less than a minute after the first one's late arrivals (``rpm: 6`` put 10 requests inside
59.9 s of the server's clock).  So a request holds its place from the moment it is sent until
:data:`MARGIN_S` after its answer (or error) came back: the next request that needs the place goes a
whole window after the provider can have counted the one before.  Retries count like any request.  A
token estimate is the prompt's characters / 4 plus its ``max_tokens`` (what the provider may charge
against the limit), so ``tpm`` errs on the safe side.
"""

from __future__ import annotations

import asyncio
import math
import time

# One minute.  A module constant so a test can shrink the window instead of waiting minutes.
WINDOW_S = 60.0
# Added to the window after each answer: the provider's clock and ours may drift apart a little.
MARGIN_S = 0.5
CHARS_PER_TOKEN = 4


class Slot:
    """One request's place in the window: taken when it is sent, ``ends`` when its answer is back."""

    __slots__ = ("tokens", "ends")

    def __init__(self, tokens: int) -> None:
        self.tokens = tokens
        self.ends = math.inf  # in flight: the provider may count it at any moment until it answers


class RateLimiter:
    """Sliding-window limits on requests and tokens; one per run of a model (not thread-safe: one loop).

    :meth:`acquire` waits for a place and returns it; :meth:`release` is called when the request's
    answer (or error) is back.  A request that never releases keeps its place for the whole run.
    """

    def __init__(self, rpm: int | None, tpm: int | None, window_s: float | None = None) -> None:
        self.rpm = rpm
        self.tpm = tpm
        self.window_s = WINDOW_S if window_s is None else window_s
        self.margin_s = MARGIN_S * self.window_s / WINDOW_S  # scaled with a shrunk test window
        self.slots: list[Slot] = []
        self.lock = asyncio.Lock()
        self.released = asyncio.Event()

    @property
    def active(self) -> bool:
        return bool(self.rpm or self.tpm)

    def _wait(self, now: float, tokens: int) -> float:
        """Seconds until a request of ``tokens`` may go (0: now; inf: not before a request answers)."""
        horizon = now - self.window_s
        self.slots = [slot for slot in self.slots if slot.ends > horizon]
        # The slots that will leave the window first come first; in-flight ones (ends = inf) last.
        leaving = sorted(self.slots, key=lambda slot: slot.ends)
        waits = [0.0]
        if self.rpm and len(leaving) >= self.rpm:
            waits.append(leaving[len(leaving) - self.rpm].ends + self.window_s - now)
        if self.tpm:
            # A request larger than the whole budget goes alone, once the window is empty.
            budget = max(self.tpm - min(tokens, self.tpm), 0)
            used = sum(slot.tokens for slot in leaving)
            for slot in leaving:
                if used <= budget:
                    break
                used -= slot.tokens
                waits.append(slot.ends + self.window_s - now)
        return max(waits)

    async def acquire(self, tokens: int = 0) -> Slot | None:
        """Wait until a request of ``tokens`` estimated tokens fits both limits; its place (None when
        no limit is set), to :meth:`release` when the request's answer is back."""
        if not self.active:
            return None
        async with self.lock:  # in order: a request that waits is not overtaken by a later one
            while True:
                delay = self._wait(time.monotonic(), tokens)
                if delay <= 0:
                    slot = Slot(tokens)
                    self.slots.append(slot)
                    return slot
                self.released.clear()
                try:  # a place frees when its time is up, or later when an in-flight request answers
                    await asyncio.wait_for(self.released.wait(), None if math.isinf(delay) else delay)
                except TimeoutError:
                    pass

    def release(self, slot: Slot | None) -> None:
        """The request of ``slot`` has its answer: its place leaves the window a window from now."""
        if slot is not None and math.isinf(slot.ends):
            slot.ends = time.monotonic() + self.margin_s
            self.released.set()


def share(limit: int | None, n: int, k: int) -> int | None:
    """Worker ``k``'s share of a per-model limit split over ``n`` processes (they add up to it)."""
    if not limit:
        return limit
    return max(1, limit // n + (1 if k < limit % n else 0))
