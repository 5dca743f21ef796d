"""SIGINT and SIGTERM during a launch: stop it, end its processes, cancel its runs, tell the user once.

Why: a launch is one `relreason` process (the launcher) above a tree of processes it does not all
know (the run pool's forkserver and run processes, Dagster's step processes, the gateway's
``workers:`` processes, dbt).  Left to Python and Dagster, a Ctrl-C or a ``kill`` did three wrong
things: Dagster turns both signals into an interrupt of the run in progress (its own handlers, mapping
SIGTERM to SIGINT, in every process that executes a run), so each process printed its stack trace; the
launcher treated an interrupted run like a failed one and went on through dbt; and a launcher that did
exit told the watchdog (``defs/lifeline.py``) that all was well, leaving its run processes alive.

How, in three parts:

* Only the launcher listens.  A Ctrl-C reaches the terminal's whole process group, and ``timeout``
  signals its group too, so the launch's processes are kept out of reach: each run process of the
  pool starts a process group of its own (:func:`detach_run_process`; what it starts stays in that
  group and keeps normal signal handling), and what the launcher starts itself (the pool's
  forkserver, and from the thread its in-process runs execute on: Dagster's step processes, dbt, the
  gateway's workers) has both signals blocked (:func:`block_stop_signals`): a blocked signal is
  never delivered, so no handler Dagster installs there runs, and the mask is inherited by whatever
  those processes fork or exec.  (CPython starts its resource tracker the same way.)  Dagster installs
  no handler on a thread other than the main one, so the launcher's main thread keeps
  :class:`StopSignals`'s handler.
* The handler only notes the signal, mutes the terminal (fd 2: whatever the dying runs would print is
  noise) and asks the lifeline to end the launch's process tree now (SIGSTOP, then SIGKILL: the same
  ending as after kill -9 of the launcher, lake files are written aside and renamed, claims are OS
  locks).  The main thread, which waits in half-second steps, then raises :class:`LaunchStopped`
  (``errors.py``): no later run starts, so dbt does not run.
* On the way out the launch cancels its Dagster runs that are still going (:func:`cancel_runs`), and the
  CLI prints one line (what was stored, how to resume) on the terminal and exits 128 + the signal.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import dagster as dg

from relreason_dagster.errors import LaunchStopped

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# Dagster statuses of a run that has not ended; a stopped launch cancels its runs in these.
NOT_ENDED = (
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
)


def block_stop_signals() -> None:
    """Block SIGINT and SIGTERM in the calling thread, for good: for a run process (the pool's
    initializer) and for the launcher's run thread; what they start inherits the mask."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)


def detach_run_process() -> None:
    """A run process's first act (the run pool's initializer): a process group of its own, out of reach
    of the terminal's Ctrl-C, and then SIGINT and SIGTERM unblocked (the forkserver it was forked from
    was started with them blocked, which covers the moment before this).

    Unblocked, so that what runs in it keeps the usual signal handling (a process pool that
    terminates its workers, a subprocess stopped with SIGTERM); where a group of its own cannot be
    had, they stay blocked.
    """
    try:
        os.setpgid(0, 0)
    except OSError:
        block_stop_signals()
        return
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


@contextlib.contextmanager
def stop_signals_blocked() -> Iterator[None]:
    """Block SIGINT and SIGTERM in this thread for the block: a process started inside (the run pool's
    forkserver) is born with them blocked, so even the moment before its first line is quiet."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class StopSignals:
    """The launcher's SIGINT and SIGTERM handler for the length of one launch (a context manager).

    ``on_stop(signum)`` runs once, from the handler (keep it short and non-blocking: it asks the
    lifeline to end the tree).  Only the main thread can hold signal handlers; launched from another
    thread, :attr:`active` is False and signals keep whatever handling the process had.
    """

    def __init__(self, on_stop: Callable[[int], None]) -> None:
        self.on_stop = on_stop
        self.signum: int | None = None
        self.active = False
        self.terminal: int | None = None  # a copy of fd 2 from before the stop muted it
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            self._previous = {sig: signal.signal(sig, self._handle) for sig in STOP_SIGNALS}
            self.active = True
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        self._previous = {}

    def _handle(self, signum: int, _frame: Any) -> None:
        if self.signum is not None:  # a second Ctrl-C while stopping: the stop is already under way
            return
        self.signum = signum
        self.terminal = mute_terminal()
        self.on_stop(signum)

    @property
    def stopped(self) -> bool:
        return self.signum is not None

    def check(self) -> None:
        """Raise :class:`LaunchStopped` once a signal came (called by the main thread between waits)."""
        if self.signum is not None:
            raise LaunchStopped(self.signum, terminal=self.terminal)


def mute_terminal() -> int | None:
    """Point fd 2 at /dev/null and return a copy of what it was (None when that fails).

    The runs being ended (a run on the launcher's thread, Dagster's console log) would print their
    errors on the way down; the user asked for the stop and gets one line, written to the copy.
    """
    try:
        saved = os.dup(2)
    except OSError:
        return None
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 2)
        finally:
            os.close(devnull)
    except OSError:
        os.close(saved)
        return None
    return saved


def cancel_runs(instance: dg.DagsterInstance, tag: str, launch_id: str, signum: int) -> list[str]:
    """Mark every run of the launch that has not ended CANCELED, and free the pool slots they held.

    Their processes are gone (the lifeline ended them) or going (a run on the launcher's thread), so
    without this they would stay STARTED until the next `relreason run` noticed the dead pid.
    """
    name = signal.Signals(signum).name
    cancelled = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=list(NOT_ENDED), tags={tag: launch_id})):
        with contextlib.suppress(Exception):  # a busy event log costs the mark, never the exit
            instance.report_run_canceled(
                run, message=f"stopped by {name}: the launch was stopped by the user"
            )
            instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
            cancelled.append(run.run_id)
    return cancelled
