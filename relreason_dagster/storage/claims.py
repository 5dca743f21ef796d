"""One run at a time calls a given model: a per-model claim (an OS file lock) held while it does.

Why: the gateway skips what is stored, but two runs of the same model started together both look
before either has stored anything, and both pay for the same prompts (two ``relreason run --model M``
made 55 calls for 36 prompts).  With the claim, the second run waits until the first has stored its
answers, then looks, finds them, and asks only what is still missing (the first run's errors,
which any re-run asks again).  Runs of different models take different claims and go side by side.

How: ``fcntl.flock`` on ``_state/claims/<model>.lock`` in the lake (a folder the lake's readers
never list).  The kernel drops the lock when its holder's file is closed, including when the
process is killed, so a crashed run never leaves a stale claim.  The holder writes its pid and host
into the file, for the waiter's one line.  Waiting polls a non-blocking try, so a waiting run that
is cancelled (Dagster's terminate) stops waiting at once.  The claim belongs to the run: the
``workers:`` processes of that run make its calls under their parent's claim and take none.

Scope: processes that share the lock file.  For a local lake that is every process on the machine
(or on any machine mounting the lake over a filesystem with working ``flock``); a remote lake
(``s3://``…) has no file to lock, so the claim is a file under ``RELREASON_HOME`` named after the
lake's URL, and two machines running the same model against one bucket are not held apart (one
Dagster run never launches the same partition twice).  Without ``fcntl`` (Windows) there is no claim.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import socket
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import IO

from relreason_dagster.storage.lake import Lake

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

CLAIMS_DIR = "_state/claims"
# Between two tries of a held claim: short enough that a waiting run starts soon after the holder
# ends, long enough to cost nothing while it waits.
_POLL_S = (0.05, 0.5)


def claim_path(lake: Lake, model: str) -> Path:
    """The lock file of ``model``'s claim in ``lake``."""
    name = hashlib.sha256(model.encode("utf-8")).hexdigest()[:16] + ".lock"
    if lake.is_local:
        return Path(lake.root) / CLAIMS_DIR / name
    from relreason_dagster import paths

    lake_id = hashlib.sha256(lake.url.encode("utf-8")).hexdigest()[:12]
    return paths.relreason_home() / "claims" / lake_id / name


def _try_lock(handle: IO[str]) -> bool:
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _holder(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError:
        text = ""
    return text or "another process"


@contextlib.asynccontextmanager
async def model_claim(
    lake: Lake, model: str, notice: Callable[[str], None] | None = None
) -> AsyncIterator[float]:
    """Hold ``model``'s claim for the body; yields the seconds spent waiting for another run (0: none).

    ``notice`` gets one line when the claim is held elsewhere and this run starts to wait.
    """
    if fcntl is None:
        yield 0.0
        return
    path = claim_path(lake, model)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held across the body
    try:
        start = time.monotonic()
        waited = 0.0
        if not _try_lock(handle):
            if notice is not None:
                notice(
                    f"{model}: another run ({_holder(path)}) is calling this model; waiting for it to "
                    "finish, then asking only what it left unanswered"
                )
            delay = _POLL_S[0]
            while not _try_lock(handle):
                await asyncio.sleep(delay)
                delay = min(delay * 2, _POLL_S[1])
            waited = time.monotonic() - start
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} on {socket.gethostname()}\n")
        handle.flush()
        yield waited
    finally:
        handle.close()  # closing the file releases the lock
