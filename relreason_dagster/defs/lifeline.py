"""A watchdog process that ends a launch's processes when the launcher dies without ending them.

Why: `relreason run` starts processes it does not create itself (the run pool's forkserver and
workers, Dagster's step forkserver and step processes, the dbt subprocess).  A launcher killed by
SIGKILL (or the OOM killer) runs no cleanup, and those processes then go on for minutes, holding
gigabytes and the DuckDB file, some ignoring SIGTERM.  The gateway's ``workers:`` processes watch a
pipe to their parent (``llm/workers.py``); the others cannot be given such a pipe, so this one
process watches for all of them.

The polite signals too: a launcher that gets SIGINT (Ctrl-C) or SIGTERM stays alive to cancel its
Dagster runs and say what was stored, but every process under it must end within seconds, and the
launcher cannot reach those it does not know (a forkserver's children, Dagster's step processes, a
step's own subprocesses).  It sends ``k``, and this process ends the launch's tree exactly as for a
dead launcher, sparing the launcher itself, then exits; the launcher waits for that before it reports.

How: the launcher starts this file as a plain script (standard library only: no Dagster import, a few
megabytes) with a pipe on its stdin.  While the launcher lives, it notes the launcher's descendants
(pid and start time, from ``/proc``) twice a second.  The byte ``k`` means "stopped by a signal: end
the tree now".  When the pipe closes: the byte ``d`` first means the launch ended (however it ended:
the launcher itself cleans up then) and it exits; a pipe closed without it, or a launcher missing
from ``/proc``, means the launcher is gone.  Either way (``k`` or gone) it stops (SIGSTOP, so none
forks again) and then kills (SIGKILL) every noted process still alive and every descendant of them,
then exits.  It runs in a session of its own, so a Ctrl-C to the terminal's process group does not
end it before the others.

Linux only (``/proc``); elsewhere :func:`relreason_dagster.defs.launcher.launch` does not start it.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

POLL_S = 0.5
DONE = b"d"
STOP = b"k"  # the launch was stopped by a signal: end its processes now (the launcher lives on)


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time in clock ticks) of ``pid``; None when it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    if fields[0] in (b"Z", b"X"):
        return None
    return int(fields[1]), int(fields[19])


def _table() -> dict[int, tuple[int, int]]:
    """Every live process: pid -> (parent pid, start time)."""
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            found = _stat(int(name))
            if found is not None:
                out[int(name)] = found
    return out


def descendants(roots: set[int], table: dict[int, tuple[int, int]]) -> set[int]:
    """``roots`` and every process below them in ``table``."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _start) in table.items():
        children.setdefault(ppid, []).append(pid)
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(children.get(pid, ()))
    return seen


def _signal_all(pids: set[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def end_tree(launcher: int, noted: dict[int, int]) -> set[int]:
    """Stop, then kill, the noted processes that are still the same processes, and all below them."""
    me = os.getpid()
    stopped: set[int] = set()
    for _ in range(20):  # until no new process appears below the stopped ones
        table = _table()
        roots = {launcher} | {pid for pid, start in noted.items() if table.get(pid, (0, -1))[1] == start}
        tree = descendants(roots, table) - {me, launcher}
        new = tree - stopped
        if not new:
            break
        _signal_all(new, signal.SIGSTOP)
        stopped |= new
    _signal_all(stopped, signal.SIGKILL)
    return stopped


def _gone(pid: int, wait_s: float = 3.0) -> bool:
    """Whether ``pid`` ends within ``wait_s`` (its pipe closes a moment before it becomes a zombie)."""
    deadline = time.monotonic() + wait_s
    while _stat(pid) is not None:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def watch(launcher: int, fd: int) -> int:
    noted: dict[int, int] = {}  # pid -> start time of every descendant of the launcher seen so far
    while True:
        ready, _, _ = select.select([fd], [], [], POLL_S)
        if ready:
            data = os.read(fd, 1)
            if data == DONE:
                return 0
            if data == STOP:
                end_tree(launcher, noted)
                return 0
            if not data:  # the pipe closed without the launch ending: the launcher is dying
                if _gone(launcher):
                    end_tree(launcher, noted)
                return 0
            continue
        table = _table()
        if launcher not in table:
            end_tree(launcher, noted)
            return 0
        me = os.getpid()
        for pid in descendants({launcher}, table) - {launcher, me}:
            noted.setdefault(pid, table[pid][1])
        if len(noted) > 10_000:  # long launches: forget processes that ended
            noted = {pid: start for pid, start in noted.items() if table.get(pid, (0, -1))[1] == start}


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C ends the launcher, which then ends this
    sys.exit(watch(int(sys.argv[1]), sys.stdin.fileno()))
