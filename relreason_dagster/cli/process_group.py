"""A child process tree started in a process group of its own, and stopped as a whole.

`relreason ui` starts `dagster dev` (webserver, daemon, code servers); stopping only the leader left
the rest holding the port, so the group is what is stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from typing import Any

# How long `dagster dev` gets to stop its webserver, daemon and code servers before SIGKILL.
UI_STOP_WAIT_S = 20.0


def serve_ui(cmd: list[str], env: dict[str, str] | None = None) -> int:
    """Run `dagster dev` in a process group of its own and stop that whole group when this ends.

    A `kill` of `relreason ui` used to leave the `dagster dev` tree (webserver, daemon, code server)
    running and holding the port; Ctrl-C, SIGTERM and SIGHUP now all stop the group: SIGTERM first,
    then SIGKILL for whatever is left after :data:`UI_STOP_WAIT_S`.
    """

    def restore() -> None:  # dagster dev ignores SIGINT inherited as ignored (a background shell)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(cmd, preexec_fn=restore, start_new_session=True, env=env)

    def stop(signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return proc.wait()
    except KeyboardInterrupt:
        _stop_group(proc)
        return 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc.poll() is None:
            _stop_group(proc)


def _stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the child's process group, then SIGKILL to what is left of it."""
    for sig, wait_s in ((signal.SIGTERM, UI_STOP_WAIT_S), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            continue
        if not _group_alive(proc.pid):
            return
        if sig == signal.SIGTERM:  # the leader exited; give its children the same time, then kill
            deadline = time.monotonic() + wait_s
            while _group_alive(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if not _group_alive(proc.pid):
                return


def _group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` is left (signal 0 checks without sending anything)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
