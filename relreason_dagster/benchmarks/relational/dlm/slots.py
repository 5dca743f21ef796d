"""Machine-wide DLM training slots: at most N trainings at once, however many runs start them.

Why: `relreason run` keeps several task runs going at once (``--max-runs``, default 4)
and each trains its seeds in up to ``--dlm-workers`` processes, so the paper profile
put eight one-thread trainings on a two-core machine.  They finish no sooner than two at a time
would, but every one of them holds its memory the whole while and records a wall time
inflated fourfold in ``raw.dlm_runs.wall_s``.  A training therefore first takes one of N
slots, each an exclusive ``flock`` on a file in a per-user directory of the machine's temp
dir; the kernel releases a slot when its holder exits, however it exits, so a crashed worker
never leaves one taken.  Where ``fcntl`` is missing (Windows) trainings are not limited.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not on POSIX
    fcntl = None  # type: ignore[assignment]

POLL_S = 0.25  # how often a waiting training looks for a free slot


def slots_dir() -> Path:
    """The directory of the slot files, shared by every relreason process of this user on this machine."""
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"relreason-dlm-slots-{uid}"


@contextmanager
def training_slot(slots: int, directory: Path | None = None) -> Iterator[int | None]:
    """Hold one of ``slots`` slots while the block runs; yields its number (None: unlimited here)."""
    if fcntl is None or slots < 1:
        yield None
        return
    directory = directory or slots_dir()
    directory.mkdir(parents=True, exist_ok=True)
    while True:
        for number in range(slots):
            handle = open(directory / f"slot-{number}.lock", "a+")  # noqa: SIM115 - held across the yield
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                handle.close()
                continue
            try:
                yield number
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
                handle.close()
            return
        time.sleep(POLL_S)
