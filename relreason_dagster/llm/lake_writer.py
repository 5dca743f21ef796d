"""Group commit: a run's finished calls appended to the lake in small batches, with a bounded delay.

Why a module of its own: how often the gateway writes is a trade between what a killed run loses
and what the writes cost the event loop that sends the requests (see the constants' comments); the
writer also remembers the files it wrote, which the run merges into one per partition at its end.
"""

from __future__ import annotations

import asyncio
import time

import pyarrow as pa

from relreason_dagster.storage.responses import ResponseStore

# Group commit: a finished response is written _FLUSH_DELAY_S after it arrives,
# or when the interval since the last write ends if that is later.  With real
# models (calls take seconds) that is "as it arrives"; with a zero-latency
# provider it batches thousands of rows per second into a few files.  A killed
# run loses at most the calls in flight plus this much.  Why 0.25 s and not less: each write costs
# ~1 ms of CPU on the event loop whatever its size (a Parquet file of 19 columns); at 0.1 s, a run of
# 64 in flight at ~320 answers/s spent ~0.04 ms more CPU per answer and reached 0.930 of the ideal
# rate instead of 0.946 (docs/measured.md).
DEFAULT_FLUSH_INTERVAL_S = 0.25
_FLUSH_MAX_ROWS = 2000
# Why not write at once: the write runs on the event loop, and written between an
# answer and the next request it delayed every request by the write's ~2 ms
# (at one request in flight: 0.955 of the ideal rate).  A short delay lets the
# worker send its next request first and the write happen while that one waits.
_FLUSH_DELAY_S = 0.02
# What a run's files hold is kept in memory up to this many bytes, so merging them at the end reads
# none back (beyond it, the later files are read back as before).
_HELD_MAX_BYTES = 64 * 2**20


class LakeWriter:
    """Buffered appends to the lake with a bounded delay (group commit); remembers its own files."""

    def __init__(self, store: ResponseStore, interval_s: float) -> None:
        self.store = store
        self.interval_s = interval_s
        self.rows: list[tuple] = []
        self.last_flush = float("-inf")
        self.timer: asyncio.TimerHandle | None = None
        self.files: list[str] = []
        # What this writer's files hold (path -> table), up to _HELD_MAX_BYTES: compact() reads none back.
        self.held: dict[str, pa.Table] = {}
        self.held_bytes = 0
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
        self.write(rows)
        self.last_flush = time.monotonic()

    def write(self, rows: list[tuple]) -> None:
        """Append ``rows`` to the lake now (no buffering), remembering the files and what they hold."""
        for path, part in self.store.append_parts(rows):
            self.files.append(path)
            if self.held_bytes + part.nbytes <= _HELD_MAX_BYTES:
                self.held[path] = part
                self.held_bytes += part.nbytes

    def compact(self) -> None:
        """One file per partition for this run's answers (many small files slow every reader)."""
        self.files = self.store.compact(self.files, self.held)
        self.held, self.held_bytes = {}, 0
