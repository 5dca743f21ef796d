"""Where the launcher runs each Dagster run, and what it does when a run's process dies.

A lone run (nothing ready or running beside it) runs in the launcher's thread; a wave of runs goes to
the pool of run processes; under the multiprocess executor a run's steps run inside its run's
process unless ``--max-steps`` asks for a process per step.  A run process that dies (a crash in a
step, the OOM killer) breaks Python's process pool: the runs it held end as failed with a line that
says what happened, and the later jobs still run.

The runs here are scripted stand-ins (no Dagster run executes): ``_execute`` and
``_execute_in_child`` are replaced, and the pool forks (not forkserver) so the stand-in reaches the
child; one stand-in kills its own process with ``os._exit``.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import signal
import threading
import time

import dagster as dg
import pytest

from relreason_dagster.defs import launcher
from relreason_dagster.defs.launcher import PlannedRun, RunOutcome, launch, run_executor_for, widest_wave
from relreason_dagster.errors import LaunchStopped

CALLS: list[tuple[str, str | None, str]] = []


def _scripted_in_thread(planned, executor, instance, run_config, tags) -> RunOutcome:
    CALLS.append(("thread", planned.partition, executor))
    now = time.time()
    return RunOutcome(planned, "", True, now, now)


def _raise_on_sigterm(signum, frame) -> None:
    raise KeyboardInterrupt("SIGTERM")


def _scripted_in_child(planned, executor, run_config, tags) -> RunOutcome:
    if planned.partition == "crash":
        os._exit(3)  # the run's process dies mid-run, as a segfault or the OOM killer would do it
    if (planned.partition or "").startswith("held"):  # calls that never return: the launch waits
        time.sleep(60)
    if planned.partition == "slow":
        # A SIGTERM handler that raises, as one inherited from the CLI would: the pool's worker loop
        # catches the exception and the process outlives the pool's SIGTERM (the CI hang).
        signal.signal(signal.SIGTERM, _raise_on_sigterm)
        time.sleep(30)  # still running when the other one dies
    now = time.time()
    return RunOutcome(planned, f"child-{os.getpid()}-{executor}", True, now, now)  # where it ran


def _fork_pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("fork")
    )


@pytest.fixture
def scripted(monkeypatch):
    CALLS.clear()
    monkeypatch.setattr(launcher, "_execute", _scripted_in_thread)
    monkeypatch.setattr(launcher, "_execute_in_child", _scripted_in_child)
    monkeypatch.setattr(launcher, "_pool", _fork_pool)
    monkeypatch.setattr(launcher, "Lifeline", _NoLifeline)
    with dg.DagsterInstance.ephemeral() as instance:
        yield instance


class _NoLifeline:
    def release(self) -> None:
        pass

    def stop_now(self) -> None:
        pass

    def wait_stopped(self) -> bool:
        return True


def _plan(models: list[str]) -> list[PlannedRun]:
    return [
        PlannedRun("prepare", None, ()),
        *(PlannedRun("model_work", m, ()) for m in models),
        PlannedRun("judge", None, ()),
        PlannedRun("marts", None, ()),
    ]


def _launch(instance, runs, **kw) -> list[RunOutcome]:
    return launch(
        runs, instance=instance, executor="multiprocess", run_settings={}, tags={}, max_runs=4, **kw
    )


def test_steps_run_inside_the_run_process_unless_max_steps_asks_otherwise() -> None:
    assert run_executor_for("multiprocess", None) == "in_process"
    assert run_executor_for("multiprocess", 3) == "multiprocess"
    assert run_executor_for("in_process", None) == "in_process"
    assert run_executor_for("celery", None) == "celery"
    assert widest_wave(_plan(["a", "b", "c"])) == 3
    assert widest_wave(_plan(["a"])) == 1
    # One model and one DLM task both wait only for prepare: one wave of two, side by side.
    assert widest_wave([*_plan(["a"]), PlannedRun("dlm_work", "HasFather", ())]) == 2


def test_a_launch_of_lone_runs_never_starts_a_run_process(scripted) -> None:
    outcomes = _launch(scripted, _plan(["only"]))
    assert [o.success for o in outcomes] == [True] * 4
    assert CALLS == [
        ("thread", None, "in_process"),
        ("thread", "only", "in_process"),
        ("thread", None, "in_process"),
        ("thread", None, "in_process"),
    ]


def test_a_wave_runs_in_run_processes_and_max_steps_reaches_them(scripted) -> None:
    outcomes = _launch(scripted, _plan(["a", "b"]), max_steps=2)
    by_partition = {o.planned.partition: o for o in outcomes if o.planned.job == "model_work"}
    assert all(o.success for o in outcomes)
    for outcome in by_partition.values():  # ran in a child, with a process per step asked for
        _, child_pid, executor = outcome.run_id.split("-")
        assert int(child_pid) != os.getpid()
        assert executor == "multiprocess"
    assert [c[0] for c in CALLS] == ["thread", "thread", "thread"]  # prepare, judge, marts


def test_a_dead_run_process_fails_its_runs_and_the_later_jobs_still_run(scripted) -> None:
    outcomes = _launch(scripted, _plan(["slow", "crash"]))
    by_label = {(o.planned.job, o.planned.partition): o for o in outcomes}
    assert len(outcomes) == 5
    crashed = by_label[("model_work", "crash")]
    assert not crashed.success
    assert "run process ended abruptly" in crashed.error and "--max-steps" in crashed.error
    # The run beside it was stopped with the pool: failed with the same line, not lost.
    beside = by_label[("model_work", "slow")]
    assert not beside.success and "ended abruptly" in beside.error
    assert by_label[("judge", None)].success and by_label[("marts", None)].success
    assert [o.planned.job for o in outcomes][-2:] == ["judge", "marts"]


def test_a_stop_signal_ends_the_wave_and_starts_nothing_after_it(scripted, monkeypatch) -> None:
    """SIGTERM while two model runs go on in the pool (issue 53): the launch raises LaunchStopped (exit
    code 143) within seconds, reports no run as failed, runs neither judge nor marts (dbt), and leaves
    no run process alive.  (The real tree is ended by the lifeline: tests/integration/runs/
    test_orphan_processes.py; here the sweep of this process's children would reach pytest's own.)"""
    monkeypatch.setattr(launcher, "end_descendants", lambda: None)
    done: list[RunOutcome] = []
    handler = signal.getsignal(signal.SIGTERM)
    timer = threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGTERM))
    started = time.monotonic()
    timer.start()
    try:
        _launch(scripted, _plan(["held", "held2"]), on_done=done.append)
    except LaunchStopped as exc:
        stopped = exc
    else:
        pytest.fail("the launch went on after SIGTERM")
    finally:
        timer.cancel()
    if stopped.terminal is not None:  # the stop muted fd 2 (the dying runs' noise): pytest's again
        os.dup2(stopped.terminal, 2)
        os.close(stopped.terminal)
    assert stopped.exit_code == 143
    assert time.monotonic() - started < 45  # not the 60 s the held run sleeps
    assert [o.planned.job for o in done] == ["prepare"]  # no model run reported, no judge, no marts
    assert [c[0] for c in CALLS] == ["thread"]
    assert not multiprocessing.active_children()
    assert signal.getsignal(signal.SIGTERM) == handler  # the caller's handler again
