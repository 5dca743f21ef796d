"""Worker processes for one model's calls (``workers:`` in models.yaml).

Why: LiteLLM's own path costs ~3 ms of CPU per call, and on one event loop
that CPU turns into latency for every other request in flight: against a fast
server one process reaches ~0.6 of the ideal rate at 64 in flight, where the
same calls split over two processes reach ~0.8 (docs/measured.md).  Only the
calls are split: the parent plans, skips what is stored and copies cache hits
as always, then hands each worker every n-th remaining request and its share
of the model's concurrency, so ``concurrency`` stays the model's total.

Safety: each worker appends its answers to the same lake as they arrive
(files with unique names, written aside and renamed), so a worker or parent
that dies loses only the calls in flight, and the next run resumes.  A worker
exits as soon as its parent is gone (killed, or cancelled by Dagster): it holds
one end of a pipe whose other end only the parent has, and reading it ends
when the parent's end closes.  No paid calls go on without a run to own them.
Workers take no claim of their own (``storage/claims.py``): the run that started
them holds its model's claim until they have finished, so another run of the
same model waits for all of them.

Workers are forked from a forkserver that has imported the gateway and made one
mocked LiteLLM call (``llm/worker_warmup.py``), so a worker starts in
milliseconds rather than re-importing LiteLLM; it takes the
parent's current environment (API keys included) with its task, since the
forkserver's own environment is that of its start.

This module only runs processes: what a worker does is the function the gateway hands :func:`start`
(``gateway.run_slice``), so the gateway imports this module and this module imports no gateway (and
the model registry can read :data:`MAX_WORKERS` without loading LiteLLM).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

# A cap on ``workers:``: more processes than this only add start-up and memory.
MAX_WORKERS = 16


def _context() -> Any:
    """forkserver where the platform has it (warm start), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["relreason_dagster.llm.worker_warmup"])
        return ctx
    return multiprocessing.get_context("spawn")


@dataclass
class Worker:
    """One started worker: its process and the parent's end of its pipe."""

    index: int
    process: Any
    conn: Connection


# What a worker runs: its payload and a function sending progress snapshots in, its result out.
SliceFn = Callable[[dict[str, Any], Callable[[dict[str, Any]], None]], dict[str, Any]]


def start(payloads: list[dict[str, Any]], run: SliceFn) -> list[Worker]:
    """Start one worker per payload, each running ``run(payload, send)``.

    ``run`` must be a module-level function (it reaches the worker by name, like its payload by
    pickle): ``gateway.run_slice``, whose docstring lists the payload's keys.
    """
    ctx = _context()
    started: list[Worker] = []
    try:
        for index, payload in enumerate(payloads):
            parent_end, child_end = ctx.Pipe()
            process = ctx.Process(
                target=_child_main,
                args=(child_end, {**payload, "env": dict(os.environ)}, run),
                name=f"relreason-gateway-worker-{index}",
                daemon=True,
            )
            process.start()
            child_end.close()  # the child holds its own copy; ours would hide its death
            started.append(Worker(index, process, parent_end))
    except BaseException:
        stop(started)
        raise
    return started


def collect(worker: Worker, on_progress: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Block until ``worker`` ends; pass its progress snapshots on; its result, or a failure.

    The result is the worker's last snapshot plus ``files`` (what it wrote) and,
    when it failed, ``failure`` (one line).  A worker that died without a word
    (killed, crashed) is a failure too; what it stored stays in the lake.
    """
    last: dict[str, Any] = {}
    try:
        while True:
            kind, body = worker.conn.recv()
            if kind == "progress":
                last = body
                on_progress(body)
            elif kind == "done":
                return body
            else:  # "failed"
                return {**last, **body}
    except (EOFError, OSError):
        worker.process.join(timeout=5)
        code = worker.process.exitcode
        failure = f"exited with code {code} without a result"
        return {**last, "files": [], "failure": failure}


def stop(workers: list[Worker]) -> None:
    """End every worker still running (a cancelled run), reap them all and close the pipes.

    Terminated, not asked: a worker's answers so far are already in the lake, and
    the parent's threads blocked reading the pipes return once the workers are gone.
    """
    for worker in workers:
        if worker.process.is_alive():
            worker.process.terminate()
    for worker in workers:
        worker.process.join(timeout=5)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join(timeout=5)
        worker.conn.close()


def _child_main(conn: Connection, payload: dict[str, Any], run: SliceFn) -> None:
    _quiet_signals()
    threading.Thread(target=_exit_with_parent, args=(conn,), daemon=True).start()
    os.environ.clear()
    os.environ.update(payload.pop("env"))
    try:
        result = run(payload, lambda snapshot: conn.send(("progress", snapshot)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it there
        conn.send(("failed", {"files": [], "failure": f"{type(exc).__name__}: {exc}"}))
    else:
        conn.send(("done", result))


def _quiet_signals() -> None:
    """A Ctrl-C is not for a worker, and a SIGTERM ends it without a word.

    A terminal's Ctrl-C reaches every process of its process group, workers included; with Python's
    default handler each printed a KeyboardInterrupt trace.  A worker needs no signal to end: it
    exits when its parent goes (:func:`_exit_with_parent`), and :func:`stop` terminates it.  SIGTERM
    is unblocked (a launch blocks both signals in what it starts, ``defs/launch_stop.py``) and left to
    the kernel's default, so :func:`stop`'s terminate ends it at once and prints nothing.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})


def _exit_with_parent(conn: Connection) -> None:
    """Return never: exit the worker when the parent's end of the pipe closes."""
    try:
        while True:
            conn.recv()
    except (EOFError, OSError):
        pass
    os._exit(1)
