"""What one `relreason run` is: validate it, then launch the pipeline's jobs through Dagster.

The CLI's `demo` and `run`, and family commands that rerun a step (a judge), use this.
It holds no copy of the graph: it names jobs (``defs/jobs.py``) and partition keys, and the
launcher (``defs/launcher.py``) orders the runs by asset dependencies and runs
partitions side by side, so a run started here shows up in the Dagster UI
exactly like one launched there, named and tagged with what it was.  What a launch did is a
``PipelineReport`` (``results/launch_report.py``), filled here from the runs' Dagster events; whether
an error is a full disk is ``storage/disk_space.py``'s to say.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from relreason_dagster import env, paths, profiles
from relreason_dagster.benchmarks.registry import baseline_names, get_family
from relreason_dagster.errors import LaunchStopped
from relreason_dagster.launch_plan import LaunchPlan, build_plan
from relreason_dagster.results.launch_report import PipelineReport, count_from_lake
from relreason_dagster.storage import launch_record

DEFAULT_MAX_RUNS = 4  # model or DLM task runs kept going at once, each in a process of its own


@dataclass(frozen=True)
class LaunchOptions:
    """How a launch runs, not what it computes: none of these is part of the launch record's key.

    The CLI's ``--max-runs``, ``--max-steps``, ``--dlm-workers`` and ``--lock-wait`` and ``-v``; they
    reach the runs' processes in the run config (defs/launcher.py), never through the environment.
    """

    max_runs: int | None = None  # runs at once (default DEFAULT_MAX_RUNS; 1 with the in-process executor)
    max_steps: int | None = None  # a process per step, N of a run at once (default: steps in its run process)
    dlm_workers: int | None = None  # DLM trainings at once on this machine (default: the CPU count)
    lock_wait_s: float | None = None  # the DuckDB resource's wait for another process's lock
    verbose: bool = field(default_factory=env.verbose)  # Dagster's DEBUG lines on the console


def prepare_environment(profile: str, *, checked: bool = False) -> None:
    """Validate the profile (unless the launch's plan ``checked`` it), point Dagster at
    RELREASON_HOME and prepare the dbt project (``defs/dbt_prepare.py``) before definitions load.

    The profile itself is not put anywhere: a launch passes its plan, resolved sections included, to
    the runs in their run settings (``RunSettings.from_plan``).
    """
    from relreason_dagster.defs.dbt_prepare import prepare_dbt_project
    from relreason_dagster.defs.instance import ensure_instance

    if not checked:
        profiles.profile_families(profile)  # an unknown profile or a bad profile file: one line
    ensure_instance(paths.relreason_home())
    prepare_dbt_project()


@contextlib.contextmanager
def _stdout_to(path: Any) -> Iterator[None]:
    """Send this process's stdout (fd 1, so child processes too) to ``path`` for the block.

    dbt prints a line per model and test; the CLI shows a summary and keeps the
    full log under ``$RELREASON_HOME/logs``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    saved = os.dup(1)
    with open(path, "ab") as fh:
        os.dup2(fh.fileno(), 1)
        try:
            yield
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)


@contextlib.contextmanager
def _saying_what_was_stored(models: list[str], since: datetime.datetime) -> Iterator[None]:
    """A launch stopped by a signal (``LaunchStopped``) leaves with what it stored: the answers each
    model got since ``since``, counted in the lake (the runs' events ended with them), for its line."""
    try:
        yield
    except LaunchStopped as stopped:
        stopped.stored = _stored_since(models, since)
        raise


def _stored_since(models: list[str], since: datetime.datetime) -> str:
    """ "N model answers stored (a 3, b 4) are kept in <lake>", or "" when the lake cannot say."""
    from relreason_dagster.storage.responses import ResponseStore

    try:
        store = ResponseStore.default()
        found = store.answers_since(models, since) if models else {}
        where = store.lake.url
    except Exception:  # noqa: BLE001 - the line then says it without a count; the stop goes on
        return ""
    total = sum(found.values())
    each = ", ".join(f"{model} {count}" for model, count in found.items())
    return f"{total} model answers stored by this run ({each}) are kept in {where}" if each else ""


def _utc_now() -> datetime.datetime:
    """Now as the lake's ``created_at`` holds it (naive UTC)."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def _label(job: str, partition: str | None) -> str:
    return f"{job}[{partition}]" if partition else job


def _launch(
    jobs: list[str],
    partitions: dict[str, list[str]],
    families: list[str],
    run_settings: Any,
    tags: dict[str, str],
    *,
    exclude: Sequence[str] = (),
    skip_unfed: bool = True,
    all_marts: bool = False,
    log: Any = None,
    instance: Any = None,
    options: LaunchOptions | None = None,
) -> PipelineReport:
    """Plan and launch the runs; the report collects calls, checks, failures and run windows.
    ``exclude``: steps the launch's plan left out (``LaunchPlan.left_out_steps``)."""
    import dagster as dg

    from relreason_dagster.defs.jobs import executor_name
    from relreason_dagster.defs.launcher import launch, plan_runs, release_dead_runs
    from relreason_dagster.defs.run_events import collect

    options = options or LaunchOptions()
    executor = executor_name()
    instance = instance or dg.DagsterInstance.get()
    release_dead_runs(instance)
    report = PipelineReport()
    runs = plan_runs(jobs, partitions, families, skip_unfed=skip_unfed, exclude=exclude, all_marts=all_marts)
    say = log or (lambda line: print(line, file=sys.stderr, flush=True))

    def on_start(batch: list[Any]) -> None:
        labels = [_label(r.job, r.partition) for r in batch]
        report.concurrent.append(labels)
        together = " and ".join(labels) if len(labels) < 5 else f"{len(labels)} runs"
        mode = "at the same time" if len(labels) > 1 and executor != "in_process" else "in order"
        say(f"relreason: launching {together} ({executor} executor, {mode})")

    def on_done(outcome: Any) -> None:
        collect(outcome.events, report)
        seconds = outcome.finished - outcome.started
        report.runs.append(
            {
                "job": outcome.planned.job,
                "partition": outcome.planned.partition,
                "run_id": outcome.run_id,
                "success": outcome.success,
                "started": outcome.started,
                "finished": outcome.finished,
            }
        )
        label = _label(outcome.planned.job, outcome.planned.partition)
        if outcome.error is not None:
            report.failures.append(f"{label}: could not start: {outcome.error}")
        elif not outcome.success and not report.failures:
            report.failures.append(f"{label}: run {outcome.run_id} failed")
        state = "done" if outcome.success else "FAILED"
        run = f" (run {outcome.run_id[:8]})" if outcome.run_id else ""
        say(f"relreason: {label} {state} in {seconds:.0f} s{run}")

    from relreason_dagster.defs.catalog import ALL_ASSET_CHECKS

    report.gx_checks = sorted({spec.name for c in ALL_ASSET_CHECKS for spec in c.check_specs})
    launch(
        runs,
        instance=instance,
        executor=executor,
        run_settings=run_settings.model_dump(),
        tags=tags,
        max_runs=options.max_runs or DEFAULT_MAX_RUNS,
        max_steps=options.max_steps,
        lock_wait_s=options.lock_wait_s,
        verbose=options.verbose,
        on_start=on_start,
        on_done=on_done,
        say=say,
    )
    return report


def _run_tags(models: list[str], families: list[str], profile: str, kind: str) -> dict[str, str]:
    """Tags every run of one `relreason` command carries: the UI's run list says what it was (``kind``,
    run or detect, is the job's name already)."""
    return {
        "relreason/models": ",".join(models) or "-",
        "relreason/benchmarks": ",".join(families),
        "relreason/profile": profile,
    }


def run_pipeline(
    plan: LaunchPlan,
    *,
    run_dbt: bool = True,
    rerun: bool = False,
    on_launch: Callable[[], None] | None = None,
    launch: LaunchOptions | None = None,
    all_marts: bool = False,
) -> PipelineReport:
    """prepare, then every model's and baseline task's partition side by side, then the follow-ups and
    the marts.

    ``plan``: the launch resolved and checked at the door (``launch_plan.build_plan``, what `relreason
    run` builds once: models, profile, benchmarks, seed, ``--judge``, ``--samples``, ``--limit``, ``-M``,
    the baseline's training size); the runs receive it whole, as their run config.  ``launch`` says how
    the runs go (runs and steps at once, DLM trainings at once, lock wait, console level), never what
    they compute.  ``all_marts`` (``--all-marts``) builds every dbt model, not only those downstream of
    the run's families (``defs/dbt_scope.py``).

    When nothing the results depend on changed since the last successful launch of the same
    command (``storage/launch_record.py``), no run starts and that launch's report comes back
    with ``unchanged_since`` set; ``rerun`` launches anyway.  ``on_launch`` is called once it is
    decided that runs start (the CLI prints a line: loading the pipeline takes seconds).
    """
    prepare_environment(plan.profile, checked=True)
    specs = list(plan.specs)
    baseline_tasks = dict(plan.baseline_tasks)
    launch_key: dict[str, Any] = {
        "command": "run",
        "models": list(plan.models),
        "profile": plan.profile,
        "benchmarks": list(plan.benchmarks),
        "seed": plan.seed,
        "run_dbt": run_dbt,
        "baseline_tasks": {model: list(tasks) for model, tasks in baseline_tasks.items()},
        "dlm_train_size": plan.dlm_train_size,
        "judge": plan.judge,
    }
    if plan.samples is not None:
        launch_key["samples"] = plan.samples
    if plan.model_options:
        launch_key["model_options"] = dict(plan.model_options)
    if plan.limit is not None:
        launch_key["limit"] = plan.limit
    if all_marts:  # a full build asked for is not "unchanged" after a run that built part of the marts
        launch_key["all_marts"] = True
    started = time.perf_counter()
    from relreason_dagster.storage.lake import Lake

    # A damaged lake file would fail every reader of the lake (all models'): moved aside first, so
    # this launch runs, and asks its prompts again if they are this launch's models'.
    quarantined = [entry.line() for entry in Lake.default().check()]
    read_once = {
        "models_digest": plan.registry.digest if plan.registry else None,
        "sections": plan.sections,
    }
    # A model with batch jobs still open has answers to collect (llm/transports/batch.py): never "unchanged".
    pending_jobs = _open_batch_jobs(Lake.default(), [m.name for m in specs])
    before = None if rerun or pending_jobs else launch_record.fingerprint(launch_key, **read_once)
    record = launch_record.read_record() if before is not None else None
    if record is not None and record["fingerprint"] == before:
        report = PipelineReport.from_record(record["report"])
        report.unchanged_since = float(record["finished"])
        report.check_seconds = time.perf_counter() - started
        return report
    check_seconds = time.perf_counter() - started
    if on_launch is not None:
        on_launch()

    import dagster as dg

    from relreason_dagster.defs.baseline_assets import baseline_job
    from relreason_dagster.defs.resources import RunSettings
    from relreason_dagster.defs.sensors import register_model_partitions

    run_settings = RunSettings.from_plan(plan, dlm_workers=launch.dlm_workers if launch else None)
    families = list(plan.families)
    step_models = [spec.name for spec in plan.step_specs]
    instance = dg.DagsterInstance.get()  # one per launch: each costs tens of milliseconds
    register_model_partitions(instance, [m.name for m in specs])
    baseline_jobs = {baseline_job(model): list(tasks) for model, tasks in baseline_tasks.items()}
    every_baseline_job = [baseline_job(model) for model in baseline_names()]
    jobs = ["prepare", "model_work", *every_baseline_job, "judge"] + (["marts"] if run_dbt else [])
    partitions = {
        "model_work": [m.name for m in specs],
        **{job: baseline_jobs.get(job, []) for job in every_baseline_job},
    }
    log = paths.relreason_home() / "logs" / "dbt.log"
    since = _utc_now()
    with (
        _stdout_to(log) if run_dbt else contextlib.nullcontext(),
        _saying_what_was_stored([m.name for m in specs] + step_models, since),
    ):
        report = _launch(
            jobs,
            partitions,
            families,
            run_settings,
            _run_tags(list(plan.models), families, plan.profile, "run"),
            exclude=plan.left_out_steps,
            instance=instance,
            options=launch,
            all_marts=all_marts,
        )
    if run_dbt:
        report.dbt_log = str(log)
    report.check_seconds = check_seconds
    report.quarantined = quarantined
    count_from_lake(report, [m.name for m in specs] + step_models, since)
    settled = not _open_batch_jobs(Lake.default(), [m.name for m in specs])
    after = launch_record.fingerprint(launch_key, **read_once) if report.succeeded and settled else None
    if after is not None:
        launch_record.write_record(after, report.to_record(), time.time())
    return report


def _open_batch_jobs(lake: Any, models: list[str]) -> bool:
    """Whether any of ``models`` has a batch job still to collect (``storage/batch_jobs.py``)."""
    from relreason_dagster.storage.batch_jobs import jobs_of

    return any(jobs_of(lake, model) for model in models)


def run_models(
    models: Sequence[str],
    *,
    run_dbt: bool = True,
    rerun: bool = False,
    launch: LaunchOptions | None = None,
    all_marts: bool = False,
    **plan_args: Any,
) -> PipelineReport:
    """:func:`run_pipeline` of ``build_plan(models, **plan_args)``: the thin path for Python callers and
    tests that name the models and the profile rather than build the plan themselves."""
    plan = build_plan(models, **plan_args)
    return run_pipeline(plan, run_dbt=run_dbt, rerun=rerun, launch=launch, all_marts=all_marts)


def run_steps(
    benchmark: str,
    *,
    profile: str = profiles.DEFAULT_PROFILE,
    step_model: str | None = None,
    overrides: dict[str, Any] | None = None,
    run_dbt: bool = True,
    launch: LaunchOptions | None = None,
) -> PipelineReport:
    """Only ``benchmark``'s steps over stored answers (e.g. a judge's verdicts), then dbt build.

    No benchmark model is called.  ``step_model`` replaces the profile's (``--judge``); ``overrides``
    change single knobs of the family's profile section for this run (a command's options).  The launch
    is planned like any other (``build_plan``): each step model resolved and checked at the door (its
    key, its provider, its budget's price) before any step runs, one line rather than a failed step.
    """
    get_family(benchmark)
    plan = build_plan(
        [],
        profile=profile,
        benchmarks=[benchmark],
        judge=step_model,
        overrides={benchmark: overrides} if overrides else None,
        steps_over_stored=True,
    )
    prepare_environment(plan.profile, checked=True)
    from relreason_dagster.defs.resources import RunSettings

    run_settings = RunSettings.from_plan(plan)
    families = list(plan.families)
    step_models = [spec.name for spec in plan.step_specs]
    jobs = ["judge"] + (["marts"] if run_dbt else [])
    log = paths.relreason_home() / "logs" / "dbt.log"
    since = _utc_now()
    with (
        _stdout_to(log) if run_dbt else contextlib.nullcontext(),
        _saying_what_was_stored(step_models, since),
    ):
        report = _launch(
            jobs,
            {},
            families,
            run_settings,
            _run_tags([], families, profile, "detect"),
            exclude=plan.left_out_steps,
            skip_unfed=False,
            options=launch,
        )
    if run_dbt:
        report.dbt_log = str(log)
    count_from_lake(report, step_models, since)
    return report
