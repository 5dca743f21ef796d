"""Launch the pipeline's jobs as Dagster runs: in dependency order, partitions side by side.

`relreason run` does not hold a copy of the graph: it asks for jobs and
partition keys, and this module starts one Dagster run per (job, partition)
(``execute_job`` under the UI's code location, ``defs/run_origin.py``) as soon
as every run of the jobs it depends on
(:func:`relreason_dagster.defs.jobs.job_order`) has finished.

Where a run executes: a run with nothing beside it (``prepare``, ``judge``,
``marts``, one model's ``model_work``) runs in this process, on a thread of its own
(``_execute_here``: the main thread stays free for the stop signals);
runs of one wave (several model partitions, the DLM task partitions) run at the
same time, up to ``max_runs``, each in a process of a pool forked from a
forkserver that has the definitions loaded (it starts with the launch and
loads on the other core while ``prepare`` runs here; Dagster's run machinery
reconfigures Python logging per run, which deadlocks when runs share a
process's threads).  Under the default multiprocess executor a run's steps run
one after another inside its run's process; ``max_steps`` puts them in
processes of their own, that many at once (what the UI's runs do).  Why: a
step's own process is a fresh forkserver per run process that imports the
definitions again (~10 s on 2 cores), and most runs here are a chain of steps
that could not overlap anyway; a smoke `relreason run --rerun` with every
answer stored went from 81 s to 32 s this way (tests/perf/bench_first_call.py,
the two side by side at load 3-7).  With the in-process
executor everything runs in this process, one run after another.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import contextvars
import multiprocessing
import multiprocessing.forkserver
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import dagster as dg

from relreason_dagster import paths
from relreason_dagster.benchmarks.registry import baseline_names, get_baseline
from relreason_dagster.defs import dbt_scope
from relreason_dagster.defs.build import reconstructable_job
from relreason_dagster.defs.jobs import JOB_SELECTIONS, job_order
from relreason_dagster.defs.launch_stop import (
    StopSignals,
    block_stop_signals,
    cancel_runs,
    detach_run_process,
    stop_signals_blocked,
)
from relreason_dagster.defs.lifeline import STOP as LIFELINE_STOP
from relreason_dagster.defs.partitions import FAMILY_TAG
from relreason_dagster.defs.run_origin import execute_job_with_origin
from relreason_dagster.errors import LaunchStopped

# The launcher's own bookkeeping, under Dagster's hidden prefix: the UI shows a run's profile, models
# and benchmarks (pipeline.py) and its partition, not these.
PID_TAG = ".dagster/relreason-pid"
HOST_TAG = ".dagster/relreason-host"
LAUNCH_TAG = ".dagster/relreason-launch"  # one id per `relreason run`: the step watcher finds its runs
QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}


def console_logs(verbose: bool = False) -> dict[str, Any]:
    """The run config's console logger: WARNING and above, or everything under ``relreason -v``."""
    if verbose:
        return {"loggers": {"console": {"config": {"log_level": "DEBUG"}}}}
    return QUIET_LOGS


@dataclass(frozen=True)
class PlannedRun:
    """One Dagster run to launch: a job, its partition (or None) and the asset keys it materializes."""

    job: str
    partition: str | None
    asset_keys: tuple[dg.AssetKey, ...]


@dataclass
class RunOutcome:
    """What one launched run did (its events are read by the caller's collector)."""

    planned: PlannedRun
    run_id: str
    success: bool
    started: float
    finished: float
    events: list[Any] = field(repr=False, default_factory=list)  # the run's DagsterEvents
    error: str | None = None  # the run could not be started at all


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # an unreaped child killed by a signal is a zombie: gone for our purpose
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def release_dead_runs(instance: Any) -> list[str]:
    """Fail runs whose relreason process died (SIGKILL, OOM) and free the pool slots they held.

    A killed in-process run stays STARTED and keeps its ``duckdb`` pool slot, so
    the next run would wait for it forever; runs carry their pid to detect this.
    """
    active = [dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.NOT_STARTED]
    released = []
    for run in instance.get_runs(
        filters=dg.RunsFilter(statuses=active, tags={HOST_TAG: socket.gethostname()})
    ):
        if process_gone(run):
            pid = run.tags.get(PID_TAG)
            instance.report_run_failed(run, message=f"relreason process {pid} is gone; pool slots released")
            instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
            released.append(run.run_id)
    return released


def process_gone(run: Any) -> bool:
    """Whether the relreason process of ``run`` (started on this host) no longer exists.

    ``relreason status`` uses it to tell a run that is going on from one that was killed and is
    still marked STARTED until the next ``relreason run`` releases it.
    """
    if run.tags.get(HOST_TAG) != socket.gethostname():
        return False
    pid = int(run.tags.get(PID_TAG, "0") or 0)
    return bool(pid) and pid != os.getpid() and not _alive(pid)


def select_assets(job: str, families: Sequence[str]) -> tuple[dg.AssetKey, ...]:
    """The job's asset keys, less those of families this run does not cover (by their family tag)."""
    keys: list[dg.AssetKey] = []
    for asset in JOB_SELECTIONS[job][1]:
        for key in asset.keys:
            family = (asset.tags_by_key.get(key) or {}).get(FAMILY_TAG)
            if family is None or family in families:
                keys.append(key)
    return tuple(keys)


def marts_selection(
    keys: Sequence[dg.AssetKey], families: Sequence[str], *, all_marts: bool = False
) -> tuple[dg.AssetKey, ...]:
    """``keys`` (a run's selection) less the dbt models the run need not rebuild: all of them are kept
    with ``all_marts``, under ``RELREASON_MARTS=all``, or when this home has no current full build
    (unless ``RELREASON_MARTS=run``; see ``defs/dbt_scope.py``'s docstring)."""
    # Here, not in dbt_scope: defs/dbt.py records a full build through dbt_scope (no circle).
    from relreason_dagster.defs.dbt import load_manifest, relreason_dbt_models

    mode = dbt_scope.marts_mode()
    dbt_keys = set(relreason_dbt_models.keys)
    if all_marts or mode == "all" or not dbt_keys.intersection(keys):
        return tuple(keys)
    manifest = load_manifest()
    if mode == "auto" and not dbt_scope.full_build_current(
        manifest, paths.relreason_home_path() / paths.DUCKDB_NAME
    ):
        return tuple(keys)
    scoped = dbt_scope.dbt_keys_for(relreason_dbt_models, manifest, families)
    return tuple(key for key in keys if key not in dbt_keys or key in scoped)


def plan_runs(
    jobs: Sequence[str],
    partitions: Mapping[str, Sequence[str]],
    families: Sequence[str],
    *,
    skip_unfed: bool = True,
    exclude: Sequence[str] = (),
    all_marts: bool = False,
) -> list[PlannedRun]:
    """The runs of ``jobs``: one per partition key of a partitioned job, one for the others.

    With ``skip_unfed``, a job whose partitioned upstream jobs all have no runs
    is dropped (a judge has nothing new to read when no model ran), but a job
    fed by any partitioned run is kept (the marts after a DLM-only run).
    ``exclude`` names assets the launch leaves out (a judge step whose model's key is not set:
    ``LaunchPlan.left_out_steps``): they are not run at all, and a job left with none is dropped.
    The dbt models of a job are those downstream of what ``families`` wrote (``defs/dbt_scope.py``),
    every one with ``all_marts`` or when the home has no full build of the current dbt files.
    """
    order = job_order()
    runs: list[PlannedRun] = []
    count: dict[str, int] = {}
    left_out = set(exclude)
    for job in jobs:
        keys = tuple(key for key in select_assets(job, families) if key.to_user_string() not in left_out)
        keys = marts_selection(keys, families, all_marts=all_marts)
        if not keys:
            continue
        partitioned = job in partitions
        upstream_partitioned = [j for j in order[job] if j in partitions and j in jobs]
        if skip_unfed and upstream_partitioned and not any(count.get(j) for j in upstream_partitioned):
            continue
        planned = (
            [PlannedRun(job, key, keys) for key in partitions[job]]
            if partitioned
            else [PlannedRun(job, None, keys)]
        )
        count[job] = len(planned)
        runs.extend(planned)
    return runs


def _run_config(
    run_settings: Mapping[str, Any],
    *,
    executor: str = "",
    max_steps: int | None = None,
    lock_wait_s: float | None = None,
    verbose: bool = False,
) -> dict[str, Any]:
    """The run's settings, its DuckDB file and how it executes, all in the run config: the UI shows
    exactly what ran, and every step process gets them by value."""
    from relreason_dagster import paths

    duckdb = {"database": str(paths.duckdb_path())}
    if lock_wait_s:
        duckdb["lock_wait_s"] = float(lock_wait_s)  # type: ignore[assignment]
    config: dict[str, Any] = {
        **console_logs(verbose),
        "resources": {
            "run_settings": {"config": dict(run_settings)},
            "duckdb": {"config": duckdb},
        },
    }
    if executor == "multiprocess" and max_steps:
        config["execution"] = {"config": {"max_concurrent": int(max_steps)}}
    return config


def run_tags_for(planned: PlannedRun, tags: Mapping[str, str]) -> dict[str, str]:
    """A launched run's tags: the command's (profile, models, benchmarks), its partition, and hidden
    ones (this process, the launch).  Dagster adds the code location's label that files the run under
    its job in the UI, from the origin ``execute_job_with_origin`` creates it with."""
    run_tags = {
        **tags,
        PID_TAG: str(os.getpid()),
        HOST_TAG: socket.gethostname(),
    }
    if planned.partition is not None:
        run_tags["dagster/partition"] = planned.partition
    return run_tags


def _execute(
    planned: PlannedRun, executor: str, instance: dg.DagsterInstance, run_config: dict, tags: dict[str, str]
) -> RunOutcome:
    run_tags = run_tags_for(planned, tags)
    started = time.time()
    try:
        result = execute_job_with_origin(  # dagster.execute_job, plus the origin the UI's timeline needs
            reconstructable_job(planned.job, executor),
            instance=instance,
            run_config=run_config,
            tags=run_tags,
            asset_selection=list(planned.asset_keys),
        )
    except Exception as exc:  # noqa: BLE001 - one run that cannot start must not stop the others
        message = " ".join(str(exc).split())[:500] or type(exc).__name__
        return RunOutcome(planned, "", False, started, time.time(), [], f"{type(exc).__name__}: {message}")
    return RunOutcome(planned, result.run_id, result.success, started, time.time(), list(result.all_events))


def _execute_here(
    planned: PlannedRun,
    executor: str,
    instance: dg.DagsterInstance,
    run_config: dict,
    tags: dict[str, str],
    stop: StopSignals,
) -> RunOutcome:
    """A run in this process, on a thread of its own, while this (main) thread waits for it.

    Why a thread: Dagster replaces the SIGINT and SIGTERM handlers while a run executes on the main
    thread (turning both into an interrupt of that run, printed with its stack trace, after which the
    launch went on); on another thread it leaves them alone, so :class:`StopSignals` keeps them.  The
    thread blocks both signals, and so does what it starts (Dagster's step processes, dbt, the
    gateway's workers).  It is a daemon and takes this thread's context: a stopped launch does not
    wait for it, and the run sees what the caller set up.
    """
    if not stop.active:  # launched from another thread: no handler to keep free
        return _execute(planned, executor, instance, run_config, tags)
    ended: list[RunOutcome | BaseException] = []

    def run() -> None:
        block_stop_signals()
        try:
            ended.append(_execute(planned, executor, instance, run_config, tags))
        except BaseException as exc:  # noqa: BLE001 - raised again on the waiting thread
            ended.append(exc)

    thread = threading.Thread(
        target=contextvars.copy_context().run, args=(run,), name=f"relreason-run-{planned.job}", daemon=True
    )
    thread.start()
    while thread.is_alive():
        thread.join(timeout=0.5)
        stop.check()
    if isinstance(ended[0], BaseException):
        raise ended[0]
    return ended[0]


def _execute_in_child(
    planned: PlannedRun, executor: str, run_config: dict, tags: dict[str, str]
) -> RunOutcome:
    """One run in a process of the pool; its events travel back through the instance, not the pipe."""
    with dg.DagsterInstance.get() as instance:
        outcome = _execute(planned, executor, instance, run_config, tags)
    outcome.events = []
    return outcome


def _events_of(instance: dg.DagsterInstance, run_id: str) -> list[Any]:
    return [entry.dagster_event for entry in instance.all_logs(run_id) if entry.dagster_event is not None]


def _kill_workers(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """End a broken pool's other processes with SIGKILL before waiting for the pool.

    The pool's own clean-up sends SIGTERM and then waits for each process; a process whose SIGTERM
    handler raises (a handler it inherited, e.g. one the CLI installed) has that exception caught by
    the pool's worker loop, lives on, and the wait never ends: a fresh-clone CI run sat there with
    both test workers idle until the per-test timeout printed the stacks (the pool's manager thread
    in ``join_executor_internals``).  Their runs are already reported as ended with the pool.
    """
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()


def _pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    """Run processes forked from a forkserver that has the definitions loaded (no ~9 s import per run).

    The forkserver starts loading now, not at the first run, so it works on the other core while
    this process runs the runs before the first wave that needs the pool (``prepare``).
    Only the launcher handles SIGINT and SIGTERM (``defs/launch_stop.py``): the forkserver is born
    with them blocked, and each run process takes a process group of its own first thing, so a
    Ctrl-C to the terminal's process group reaches neither, and prints no trace from here.
    """
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["relreason_dagster.defs.preload"])
    with stop_signals_blocked():
        multiprocessing.forkserver.ensure_running()
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=detach_run_process
    )


def run_executor_for(executor: str, max_steps: int | None) -> str:
    """The executor of each run's steps: under ``multiprocess``, in the run's own process unless
    ``max_steps`` asks for a process per step (see the module docstring for why)."""
    if executor == "multiprocess" and not max_steps:
        return "in_process"
    return executor


def widest_wave(runs: Sequence[PlannedRun]) -> int:
    """The most runs of ``runs`` that become ready together: those whose jobs sit at the same depth
    of the job order (one model's ``model_work`` and a DLM task's ``dlm_work`` both wait for
    ``prepare`` only, so they are one wave of two)."""
    order = job_order()
    jobs = {run.job for run in runs}
    depth: dict[str, int] = {}

    def depth_of(job: str) -> int:
        if job not in depth:
            depth[job] = 1 + max((depth_of(dep) for dep in order[job] if dep in jobs), default=0)
        return depth[job]

    counts: dict[int, int] = {}
    for run in runs:
        counts[depth_of(run.job)] = counts.get(depth_of(run.job), 0) + 1
    return max(counts.values(), default=0)


def _died(run: PlannedRun, exc: BaseException) -> RunOutcome:
    """The outcome of a run whose process ended under it (a crash in a step, the OOM killer)."""
    now = time.time()
    if isinstance(exc, concurrent.futures.process.BrokenProcessPool):
        error = (
            "its run process ended abruptly (a crash or a kill in one of the runs side by side; the "
            "others in flight were stopped with it): `relreason run` again resumes from what is "
            "stored, `--max-steps 2` runs each step in a process of its own"
        )
    else:
        error = f"{type(exc).__name__}: {exc}"
    return RunOutcome(run, "", False, now, now, [], error)


# What a step does, in words, for the lines `relreason run` prints as steps start (others: the step key).
STEP_WORDS = {
    "samples": "generating the samples",
    "prompts": "building the prompts and counting their tokens",
    "model_responses": "calling the model (progress lines follow; a local model loads first)",
    "parsed_answers": "parsing and scoring the answers",
    "relreason_dbt_models": "dbt build: staging views, metric marts and their tests",
    # The families' baselines say what their two steps do.
    **{
        f"{model}_{step}": words
        for model in baseline_names()
        for step, words in zip(("checkpoints", "answers"), get_baseline(model).step_words, strict=True)
    },
}
_WATCHED = {
    dg.DagsterEventType.STEP_START,
    dg.DagsterEventType.STEP_SUCCESS,
    dg.DagsterEventType.STEP_FAILURE,
    dg.DagsterEventType.ASSET_MATERIALIZATION,
}


def _run_label(run: Any) -> str:
    partition = run.tags.get("dagster/partition")
    return f"{run.job_name}[{partition}]" if partition else run.job_name


class StepWatcher:
    """Prints a line as each step of this launch starts and ends, whatever process runs it.

    Steps run in child processes (the run pool, the multiprocess executor, Celery workers) whose
    console logs are quiet, so without this the first minutes of a run print nothing.  It reads the
    runs' events back from the Dagster instance, which every process writes, once a second.
    """

    def __init__(self, instance: dg.DagsterInstance, launch_id: str, say: Callable[[str], None]) -> None:
        self.instance = instance
        self.launch_id = launch_id
        self.say = say
        self._cursors: dict[str, str | None] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="relreason-step-watcher", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.poll()

    def mute(self) -> None:
        """Print nothing more (a stopped launch: its runs' last events are the stop's, not news)."""
        self.say = lambda _line: None
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.wait(1.0):
            self.poll()

    def poll(self) -> None:
        """Print the new step events of this launch's runs (never raises: output only)."""
        with self._lock:
            try:
                runs = self.instance.get_runs(filters=dg.RunsFilter(tags={LAUNCH_TAG: self.launch_id}))
                for run in sorted(runs, key=lambda r: r.run_id):
                    conn = self.instance.get_records_for_run(
                        run.run_id, cursor=self._cursors.get(run.run_id), of_type=_WATCHED
                    )
                    self._cursors[run.run_id] = conn.cursor
                    for record in conn.records:
                        line = self.describe(_run_label(run), record.event_log_entry.dagster_event)
                        if line:
                            self.say(line)
            except Exception:  # noqa: BLE001 - a busy event log costs a line of output, never the run
                pass

    @staticmethod
    def describe(label: str, event: Any) -> str | None:
        """The line for one event, or None for events not worth a line."""
        if event is None:
            return None
        kind = event.event_type_value
        if kind in ("STEP_START", "STEP_SUCCESS") and (event.step_key or "").endswith("_check"):
            return None  # checks are quick; their verdicts are printed at the end
        if kind == "STEP_START":
            return f"relreason: {label}: {STEP_WORDS.get(event.step_key, event.step_key)} ..."
        if kind == "STEP_SUCCESS":
            seconds = getattr(event.event_specific_data, "duration_ms", 0) / 1000
            return f"relreason: {label}: {event.step_key} done in {seconds:.0f} s"
        if kind == "STEP_FAILURE":
            return f"relreason: {label}: {event.step_key} FAILED (the reason follows at the end)"
        if kind == "ASSET_MATERIALIZATION":
            mat = event.event_specific_data.materialization
            rows = mat.metadata.get("rows")
            if rows is not None and len(mat.asset_key.path) == 1:  # not each dbt mart: dbt has its own line
                return f"relreason: {label}: {mat.asset_key.to_user_string()} holds {rows.value} rows"
        return None


class Lifeline:
    """The watchdog process of one launch (``defs/lifeline.py``): if this process dies without
    :meth:`release`, it kills every process the launch started, at any depth."""

    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        if not os.path.isdir("/proc/self"):  # it reads /proc: Linux only
            return
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lifeline.py")
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-S", script, str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                start_new_session=True,  # the terminal's Ctrl-C ends the launch, not its watchdog
            )
        except OSError:  # no watchdog costs orphans after a SIGKILL, never the run
            self.process = None

    def stop_now(self) -> None:
        """A signal stopped the launch: the watchdog ends every process below this one now, then exits.

        Safe in a signal handler (one ``write`` on the pipe, no buffered file); :meth:`wait_stopped`
        waits for the end.
        """
        if self.process is None:
            return
        with contextlib.suppress(OSError, ValueError):
            os.write(self.process.stdin.fileno(), LIFELINE_STOP)  # type: ignore[union-attr]

    def wait_stopped(self, timeout: float = 30.0) -> bool:
        """Wait until the watchdog has ended the tree (:meth:`stop_now`) and exited; whether it did."""
        if self.process is None:
            return False
        with contextlib.suppress(OSError):
            self.process.stdin.close()  # type: ignore[union-attr]
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            self.process = None
            return False
        self.process = None
        return True

    def release(self) -> None:
        """The launch is over, however it ended (this process cleans up after itself): the watchdog exits."""
        if self.process is None:
            return
        with contextlib.suppress(OSError):
            self.process.stdin.write(b"d")  # type: ignore[union-attr]
            self.process.stdin.close()  # type: ignore[union-attr]
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None


def launch(
    runs: Sequence[PlannedRun],
    *,
    instance: dg.DagsterInstance,
    executor: str,
    run_settings: Mapping[str, Any],
    tags: Mapping[str, str],
    max_runs: int,
    max_steps: int | None = None,
    lock_wait_s: float | None = None,
    verbose: bool = False,
    on_start: Callable[[list[PlannedRun]], None] | None = None,
    on_done: Callable[[RunOutcome], None] | None = None,
    say: Callable[[str], None] | None = None,
) -> list[RunOutcome]:
    """Run ``runs`` respecting job order; at most ``max_runs`` at once (1 with the in-process executor).

    ``max_steps`` (steps of a run at once, multiprocess executor), ``lock_wait_s`` (the DuckDB
    resource's wait for another process's lock) and ``verbose`` (DEBUG console lines) go into every
    run's config.

    A failed run does not stop the others: later jobs still run on whatever is
    stored (as `dbt build` after one model's failure), and the caller reports it.
    With ``say``, a line goes to it as each step starts and ends (:class:`StepWatcher`).

    SIGINT or SIGTERM does stop them (``defs/launch_stop.py``): every process of the launch is ended
    within seconds, no later run starts, the runs not ended are CANCELED, and
    :class:`~relreason_dagster.errors.LaunchStopped` is raised.
    """
    launch_id = uuid.uuid4().hex
    tags = {**tags, LAUNCH_TAG: launch_id}
    watcher = StepWatcher(instance, launch_id, say) if say is not None else None
    lifeline = Lifeline()  # a SIGKILL of this process must not leave the runs' processes behind

    def on_stop(_signum: int) -> None:  # from the signal handler: two non-blocking calls
        if watcher is not None:
            watcher.mute()
        lifeline.stop_now()

    stop = StopSignals(on_stop)
    if watcher is not None:
        watcher.start()
    try:
        with stop:
            return _launch_runs(
                runs,
                instance,
                executor,
                run_settings,
                tags,
                max_runs,
                max_steps,
                lock_wait_s,
                verbose,
                on_start,
                on_done,
                watcher,
                stop,
            )
    except LaunchStopped as stopped:
        _end_stopped_launch(lifeline, instance, launch_id, stopped)
        raise
    finally:
        if watcher is not None and not stop.stopped:
            watcher.stop()
        lifeline.release()


def _end_stopped_launch(
    lifeline: Lifeline, instance: dg.DagsterInstance, launch_id: str, stopped: LaunchStopped
) -> None:
    """After a stop signal: wait for the lifeline to end the launch's processes, end any started since
    (or all of them, where no lifeline runs), and cancel the launch's runs that have not ended."""
    lifeline.wait_stopped()
    end_descendants()
    cancel_runs(instance, LAUNCH_TAG, launch_id, stopped.signum)


def end_descendants() -> None:
    """Stop and kill every process below this one (the lifeline's way, from here); Linux only.

    A last sweep after a stop signal: a process the main thread started in the moment between the
    signal and its next check was not in the tree the lifeline ended.
    """
    if not os.path.isdir("/proc/self"):
        return
    from relreason_dagster.defs.lifeline import _table, descendants

    me = os.getpid()
    stopped: set[int] = set()
    for _ in range(20):  # until no new process appears below the stopped ones
        tree = descendants({me}, _table()) - {me}
        new = tree - stopped
        if not new:
            break
        for pid in new:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGSTOP)
        stopped |= new
    for pid in stopped:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _launch_runs(
    runs: Sequence[PlannedRun],
    instance: dg.DagsterInstance,
    executor: str,
    run_settings: Mapping[str, Any],
    tags: dict[str, str],
    max_runs: int,
    max_steps: int | None,
    lock_wait_s: float | None,
    verbose: bool,
    on_start: Callable[[list[PlannedRun]], None] | None,
    on_done: Callable[[RunOutcome], None] | None,
    watcher: StepWatcher | None,
    stop: StopSignals,
) -> list[RunOutcome]:
    """:func:`launch`'s loop: ready runs start, alone here or side by side in the pool; ``stop`` is
    checked between runs and while waiting (each wait is half a second at most)."""
    order = job_order()
    pending = list(runs)
    remaining = {job: sum(1 for r in runs if r.job == job) for job in {r.job for r in runs}}
    outcomes: list[RunOutcome] = []
    run_executor = run_executor_for(executor, max_steps)
    run_config = _run_config(
        run_settings, executor=run_executor, max_steps=max_steps, lock_wait_s=lock_wait_s, verbose=verbose
    )
    # A pool only when some runs can go side by side; sized by max_runs, since runs of different
    # waves overlap too (the judge beside DLM tasks) and the pool starts processes only as needed.
    workers = 1 if executor == "in_process" or widest_wave(runs) < 2 else max(1, max_runs)

    def ready(run: PlannedRun) -> bool:
        return all(remaining.get(dep, 0) == 0 for dep in order[run.job])

    def finish(outcome: RunOutcome) -> None:
        stop.check()  # a run that a stop ended is not reported as failed: the stop is the news
        if watcher is not None:  # the run's last step lines before its "done" line
            watcher.poll()
        remaining[outcome.planned.job] -= 1
        outcomes.append(outcome)
        if on_done is not None:
            on_done(outcome)

    pool: concurrent.futures.ProcessPoolExecutor | None = None
    running: dict[concurrent.futures.Future, PlannedRun] = {}
    try:
        if workers > 1:  # some runs will go side by side: the pool loads while the first runs run here
            if watcher is not None:
                watcher.say(f"relreason: starting {workers} run processes (each loads the pipeline, ~10 s)")
            pool = _pool(workers)
        while pending or running:
            stop.check()
            batch = [r for r in pending if ready(r)]
            if not batch and not running:  # nothing can ever start: an order cycle (a bug in jobs.py)
                raise RuntimeError(f"runs never became ready: {pending}")
            if batch and on_start is not None:
                on_start(batch)
            if workers == 1 or (len(batch) == 1 and not running):
                # Alone: in this process (in-process runs keep the caller's registered providers
                # and state; a lone run gains nothing from a process of its own).
                for run in batch:
                    pending.remove(run)
                    finish(_execute_here(run, run_executor, instance, run_config, dict(tags), stop))
                continue
            if pool is None:  # the pool broke under an earlier wave
                pool = _pool(workers)
            for run in batch:
                pending.remove(run)
                running[pool.submit(_execute_in_child, run, run_executor, run_config, dict(tags))] = run
            done: set[concurrent.futures.Future] = set()
            while not done:  # in half-second waits: the stop signal's handler runs on this thread
                done, _ = concurrent.futures.wait(
                    running, timeout=0.5, return_when=concurrent.futures.FIRST_COMPLETED
                )
                stop.check()
            broken = False
            for future in done:
                run = running.pop(future)
                try:
                    outcome = future.result()
                except Exception as exc:  # noqa: BLE001 - e.g. the run's process was killed
                    outcome = _died(run, exc)
                    broken = broken or isinstance(exc, concurrent.futures.process.BrokenProcessPool)
                if outcome.run_id:
                    outcome.events = _events_of(instance, outcome.run_id)
                finish(outcome)
            if broken:  # a broken pool takes no more work: the runs it held end, the rest get a new one
                for future, run in list(running.items()):
                    running.pop(future)
                    finish(_died(run, concurrent.futures.process.BrokenProcessPool()))
                release_dead_runs(instance)  # their Dagster runs are STARTED with a dead pid
                _kill_workers(pool)
                pool.shutdown(wait=True, cancel_futures=True)
                pool = None
    finally:
        if pool is not None:
            if stop.stopped:  # its processes are being killed: no wait for a clean shutdown
                _kill_workers(pool)
            pool.shutdown(wait=True, cancel_futures=True)
    return outcomes
