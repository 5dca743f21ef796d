"""What one `relreason run` is: validate it, then launch the pipeline's jobs through Dagster.

The CLI's `demo` and `run`, and family commands that rerun a step (a judge), use this.
It holds no copy of the graph: it names jobs (``defs/jobs.py``) and partition keys, and the
launcher (``defs/launcher.py``) orders the runs by asset dependencies and runs
partitions side by side, so a run started here shows up in the Dagster UI
exactly like one launched there, named and tagged with what it was.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from relreason_dagster import settings
from relreason_dagster.benchmarks.registry import baseline_family, get_family
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import get_model, require_api_key
from relreason_dagster.settings import max_concurrent_runs
from relreason_dagster.storage import launch_record


@dataclass
class PipelineReport:
    """What one `relreason run` did: model calls per model, failed steps and checks."""

    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    dbt_log: str = ""
    dlm: dict[str, dict[str, int]] = field(default_factory=dict)  # task -> trained / reused checkpoints
    warn_checks: set[str] = field(default_factory=set)  # checks of severity WARN: a failure is a warning
    check_rows: dict[str, int] = field(default_factory=dict)  # rows each check examined (0: skipped)
    runs: list[dict[str, Any]] = field(default_factory=list)  # job, partition, run id, success, seconds
    concurrent: list[list[str]] = field(default_factory=list)  # run labels launched together
    # Set when nothing changed since a recorded launch (storage/launch_record.py): its end time; the
    # report is that launch's, and no run was started.
    unchanged_since: float | None = None
    gx_checks: list[str] = field(default_factory=list)  # the checks that are GX checks, not dbt tests
    check_seconds: float = 0.0  # time spent deciding whether anything changed

    @property
    def succeeded(self) -> bool:
        """Every run succeeded and no model call ended in an error (a launch retries those)."""
        return (
            not self.failures
            and all(run["success"] for run in self.runs)
            and not any(c.get("errors") for c in self.calls.values())
        )

    def to_record(self) -> dict[str, Any]:
        """The report as JSON-able values, for the launch record."""
        record = dataclasses.asdict(self)
        record["warn_checks"] = sorted(self.warn_checks)
        for key in ("unchanged_since", "check_seconds"):
            record.pop(key)
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> PipelineReport:
        report = cls(**{f.name: record[f.name] for f in dataclasses.fields(cls) if f.name in record})
        report.checks = [tuple(check) for check in report.checks]  # type: ignore[misc]
        report.warn_checks = set(report.warn_checks)
        return report

    @property
    def total_calls(self) -> int:
        return sum(c.get("model_calls", 0) for c in self.calls.values())

    @property
    def total_cached(self) -> int:
        return sum(c.get("from_cache", 0) + c.get("already_stored", 0) for c in self.calls.values())


def prepare_environment(profile: str) -> None:
    """Validate the profile and point Dagster at RELREASON_HOME before definitions load."""
    from relreason_dagster.defs.instance import ensure_instance

    settings.profile_families(profile)  # an unknown profile or a bad profile file: one line
    os.environ["RELREASON_PROFILE"] = profile
    ensure_instance(settings.relreason_home())
    os.environ.setdefault("RELREASON_DUCKDB", str(settings.duckdb_path()))


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


def _collect(events: list[Any], report: PipelineReport) -> None:
    """Calls, DLM trainings, check results and step failures from one run's DagsterEvents."""
    from relreason_dagster.defs.steps import STEP_KIND_META

    for event in events:
        if event.event_type_value != "ASSET_MATERIALIZATION":
            continue
        mat = event.event_specific_data.materialization
        key = mat.asset_key.to_user_string()
        meta = {k: v.value for k, v in mat.metadata.items()}
        if key == "model_responses" and mat.partition:
            report.calls[mat.partition] = {
                k: int(meta.get(k, 0))
                for k in ("prompts", "model_calls", "from_cache", "already_stored", "errors")
            }
        if STEP_KIND_META in meta:  # a follow-up step that asked a model (defs/steps.py)
            kind, calls = str(meta[STEP_KIND_META]), int(meta.get("model_calls", 0))
            if mat.partition:  # asked the partition's model: its calls count with that model's
                if mat.partition in report.calls:
                    report.calls[mat.partition]["model_calls"] += calls
                    report.calls[mat.partition][f"{kind}_calls"] = calls
            else:
                report.calls[f"{meta.get('step_model')} ({kind})"] = {
                    "prompts": int(meta.get("prompts", 0)),
                    "model_calls": calls,
                    "from_cache": int(meta.get("from_cache", 0)),
                    "already_stored": 0,
                    "errors": int(meta.get("errors", 0)),
                }
        if key == "dlm_checkpoints" and mat.partition:
            report.dlm[mat.partition] = {k: int(meta.get(k, 0)) for k in ("trained", "reused")}
    for event in events:
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            ev = event.event_specific_data
            report.checks.append((ev.check_name, ev.passed, ev.description or ""))
            rows_checked = ev.metadata.get("rows_checked")
            if rows_checked is not None:
                report.check_rows[ev.check_name] = int(rows_checked.value)
            if str(getattr(ev.severity, "value", ev.severity)) == "WARN":
                report.warn_checks.add(ev.check_name)
        if event.is_step_failure:
            report.failures.append(f"{event.step_key}: {event.event_specific_data.error.message.strip()}")


def _label(job: str, partition: str | None) -> str:
    return f"{job}[{partition}]" if partition else job


def _launch(
    jobs: list[str],
    partitions: dict[str, list[str]],
    families: list[str],
    run_settings: Any,
    tags: dict[str, str],
    *,
    skip_unfed: bool = True,
    log: Any = None,
    instance: Any = None,
) -> PipelineReport:
    """Plan and launch the runs; the report collects calls, checks, failures and run windows."""
    import dagster as dg

    from relreason_dagster.defs.jobs import executor_name
    from relreason_dagster.defs.launcher import launch, plan_runs, release_dead_runs

    executor = executor_name()
    instance = instance or dg.DagsterInstance.get()
    release_dead_runs(instance)
    report = PipelineReport()
    runs = plan_runs(jobs, partitions, families, skip_unfed=skip_unfed)
    say = log or (lambda line: print(line, file=sys.stderr, flush=True))

    def on_start(batch: list[Any]) -> None:
        labels = [_label(r.job, r.partition) for r in batch]
        report.concurrent.append(labels)
        together = " and ".join(labels) if len(labels) < 5 else f"{len(labels)} runs"
        mode = "at the same time" if len(labels) > 1 and executor != "in_process" else "in order"
        say(f"relreason: launching {together} ({executor} executor, {mode})")

    def on_done(outcome: Any) -> None:
        _collect(outcome.events, report)
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
        say(f"relreason: {label} {state} in {seconds:.0f} s (run {outcome.run_id[:8]})")

    from relreason_dagster.definitions import ALL_ASSET_CHECKS

    report.gx_checks = sorted({spec.name for c in ALL_ASSET_CHECKS for spec in c.check_specs})
    launch(
        runs,
        instance=instance,
        executor=executor,
        run_settings=run_settings.model_dump() if hasattr(run_settings, "model_dump") else dict(run_settings),
        tags=tags,
        max_runs=max_concurrent_runs(),
        on_start=on_start,
        on_done=on_done,
        say=say,
    )
    return report


def _run_tags(models: list[str], families: list[str], profile: str, kind: str) -> dict[str, str]:
    """Tags every run of one `relreason` command carries: the UI's run list says what it was."""
    return {
        "relreason/command": kind,
        "relreason/models": ",".join(models) or "-",
        "relreason/benchmarks": ",".join(families),
        "relreason/profile": profile,
    }


def _require_step_models(run_settings: Any, families: list[str]) -> list[str]:
    """The models the families' across-models steps ask (a judge), each checked to exist and have its key.

    Checked before any model runs: an unknown judge or a missing key fails in one line, not after the
    benchmark models' calls.
    """
    from relreason_dagster.benchmarks.registry import family_steps

    names = []
    for family in families:
        for step in family_steps(family):
            if step.stage == "across_models" and step.kind is not None:
                name = run_settings.model_for_step(family, step)
                require_api_key(get_model(settings.models_path(), name))
                names.append(name)
    return names


def run_pipeline(
    models: list[str],
    *,
    profile: str = settings.DEFAULT_PROFILE,
    benchmarks: list[str] | None = None,
    seed: int = settings.DEFAULT_SEED,
    run_dbt: bool = True,
    dlm_train_size: int | None = None,
    judge: str | None = None,
    rerun: bool = False,
    on_launch: Callable[[], None] | None = None,
) -> PipelineReport:
    """prepare, then every model's and DLM task's partition side by side, then the follow-ups and the marts.

    The model name ``dlm`` trains (or reuses) the DLM baseline for the profile's ``dlm_tasks`` and
    scores it on its family's test samples instead of calling an LLM.  ``judge`` (default: the
    profile's) is the model the families' across-models steps ask after every model has run.
    When nothing the results depend on changed since the last successful launch of the same
    command (``storage/launch_record.py``), no run starts and that launch's report comes back
    with ``unchanged_since`` set; ``rerun`` launches anyway.  ``on_launch`` is called once it is
    decided that runs start (the CLI prints a line: loading the pipeline takes seconds).
    """
    from relreason_dagster.dlm.plan import DLM_MODEL, dlm_settings

    prepare_environment(profile)
    for name in benchmarks or []:
        get_family(name)
    models = list(dict.fromkeys(models))
    dlm_tasks: tuple[str, ...] = ()
    if DLM_MODEL in models:
        dlm_family = baseline_family(DLM_MODEL)
        if benchmarks and dlm_family not in benchmarks:
            raise ConfigError(
                f"the {DLM_MODEL} model needs the {dlm_family} benchmark; add --benchmark {dlm_family}"
            )
        dlm_tasks = dlm_settings(settings.get_profile(profile, dlm_family), dlm_train_size).tasks
    specs = [get_model(settings.models_path(), m) for m in models if m != DLM_MODEL]
    for spec in specs:
        require_api_key(spec)
    launch_key = {
        "command": "run",
        "models": models,
        "profile": profile,
        "benchmarks": benchmarks or [],
        "seed": seed,
        "run_dbt": run_dbt,
        "dlm_tasks": list(dlm_tasks),
        "dlm_train_size": dlm_train_size,
        "judge": judge,
    }
    started = time.perf_counter()
    before = None if rerun else launch_record.fingerprint(launch_key)
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

    from relreason_dagster.defs.resources import RunSettings
    from relreason_dagster.defs.sensors import register_model_partitions

    run_settings = RunSettings(
        profile=profile,
        seed=seed,
        benchmarks=benchmarks or [],
        models_file=str(settings.models_path()),
        dlm_train_size=dlm_train_size or 0,
        step_model=judge or "",
    )
    families = run_settings.family_names()  # a bad benchmark/profile pair fails here
    if specs:
        _require_step_models(run_settings, families)
    instance = dg.DagsterInstance.get()  # one per launch: each costs tens of milliseconds
    register_model_partitions(instance, [m.name for m in specs])
    jobs = ["prepare", "model_work", "dlm_work", "judge"] + (["marts"] if run_dbt else [])
    partitions = {"model_work": [m.name for m in specs], "dlm_work": list(dlm_tasks)}
    log = settings.relreason_home() / "logs" / "dbt.log"
    with _stdout_to(log) if run_dbt else contextlib.nullcontext():
        report = _launch(
            jobs,
            partitions,
            families,
            run_settings,
            _run_tags(models, families, profile, "run"),
            instance=instance,
        )
    if run_dbt:
        report.dbt_log = str(log)
    report.check_seconds = check_seconds
    after = launch_record.fingerprint(launch_key) if report.succeeded else None
    if after is not None:
        launch_record.write_record(after, report.to_record(), time.time())
    return report


def run_steps(
    benchmark: str,
    *,
    profile: str = settings.DEFAULT_PROFILE,
    step_model: str | None = None,
    overrides: dict[str, Any] | None = None,
    run_dbt: bool = True,
) -> PipelineReport:
    """Only ``benchmark``'s steps over stored answers (e.g. a judge's verdicts), then dbt build.

    No benchmark model is called.  ``step_model`` replaces the profile's (``--judge``); ``overrides``
    change single knobs of the family's profile section for this run (a command's options).
    """
    import json

    prepare_environment(profile)
    get_family(benchmark)
    from relreason_dagster.defs.resources import RunSettings

    run_settings = RunSettings(
        profile=profile,
        benchmarks=[benchmark],
        models_file=str(settings.models_path()),
        step_model=step_model or "",
        overrides=json.dumps({benchmark: overrides}) if overrides else "",
    )
    families = run_settings.family_names()  # a profile without the family's section fails here, in one line
    _require_step_models(run_settings, families)
    jobs = ["judge"] + (["marts"] if run_dbt else [])
    log = settings.relreason_home() / "logs" / "dbt.log"
    with _stdout_to(log) if run_dbt else contextlib.nullcontext():
        report = _launch(
            jobs, {}, families, run_settings, _run_tags([], families, profile, "detect"), skip_unfed=False
        )
    if run_dbt:
        report.dbt_log = str(log)
    return report
