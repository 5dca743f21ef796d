"""Materialize the pipeline in-process against the Dagster instance under RELREASON_HOME.

The CLI's `demo` and `run` use this, so a run started from the terminal shows
up in the Dagster UI exactly like one launched there.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from relreason_dagster import settings
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.env import ensure_dagster_home
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import get_model, require_api_key

QUIET_RUN_CONFIG = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
PID_TAG = "relreason/pid"
HOST_TAG = "relreason/host"


@dataclass
class PipelineReport:
    """What one `relreason run` did: model calls per model, failed steps and checks."""

    calls: dict[str, dict[str, int]] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    checks: list[tuple[str, bool, str]] = field(default_factory=list)
    dbt_log: str = ""
    dlm: dict[str, dict[str, int]] = field(default_factory=dict)  # task -> trained / reused checkpoints
    warn_checks: set[str] = field(default_factory=set)  # checks of severity WARN: a failure is a warning

    @property
    def total_calls(self) -> int:
        return sum(c.get("model_calls", 0) for c in self.calls.values())

    @property
    def total_cached(self) -> int:
        return sum(c.get("from_cache", 0) + c.get("already_stored", 0) for c in self.calls.values())


def prepare_environment(profile: str) -> None:
    """Validate the profile and point Dagster at RELREASON_HOME before definitions load."""
    settings.get_profile(profile, "relational")
    os.environ["RELREASON_PROFILE"] = profile
    home = settings.relreason_home()
    ensure_dagster_home(home)
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
    import dagster as dg

    active = [dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.NOT_STARTED]
    released = []
    for run in instance.get_runs(
        filters=dg.RunsFilter(statuses=active, tags={HOST_TAG: socket.gethostname()})
    ):
        pid = int(run.tags.get(PID_TAG, "0") or 0)
        if pid and pid != os.getpid() and not _alive(pid):
            instance.report_run_failed(run, message=f"relreason process {pid} is gone; pool slots released")
            instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
            released.append(run.run_id)
    return released


def _collect(result: Any, report: PipelineReport) -> None:
    for event in result.get_asset_materialization_events():
        mat = event.event_specific_data.materialization
        key = mat.asset_key.to_user_string()
        if key == "model_responses" and mat.partition:
            meta = {k: v.value for k, v in mat.metadata.items()}
            report.calls[mat.partition] = {
                k: int(meta.get(k, 0))
                for k in ("prompts", "model_calls", "from_cache", "already_stored", "errors")
            }
        if key == "selfcontra_detections":
            meta = {k: v.value for k, v in mat.metadata.items()}
            report.calls[f"{meta.get('judge')} (judge)"] = {
                "prompts": int(meta.get("judge_prompts", 0)),
                "model_calls": int(meta.get("judge_calls", 0)),
                "from_cache": int(meta.get("from_cache", 0)),
                "already_stored": 0,
                "errors": int(meta.get("errors", 0)),
            }
        if key == "kor_self_correction" and mat.partition and mat.partition in report.calls:
            meta = {k: v.value for k, v in mat.metadata.items()}
            report.calls[mat.partition]["model_calls"] += int(meta.get("model_calls", 0))
            report.calls[mat.partition]["self_correction_calls"] = int(meta.get("model_calls", 0))
        if key == "dlm_checkpoints" and mat.partition:
            meta = {k: v.value for k, v in mat.metadata.items()}
            report.dlm[mat.partition] = {k: int(meta.get(k, 0)) for k in ("trained", "reused")}
    for event in result.all_events:
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            ev = event.event_specific_data
            report.checks.append((ev.check_name, ev.passed, ev.description or ""))
            if str(getattr(ev.severity, "value", ev.severity)) == "WARN":
                report.warn_checks.add(ev.check_name)
        if event.is_step_failure:
            report.failures.append(f"{event.step_key}: {event.event_specific_data.error.message.strip()}")


def _materialize(
    everything: list[Any],
    selection: list[Any],
    instance: Any,
    resources: dict[str, Any],
    report: PipelineReport,
    partition_key: str | None = None,
) -> None:
    """One in-process materialization of ``selection``, tagged with this process so a killed run can be
    released later; its events go into ``report`` (failures are collected, never raised)."""
    import dagster as dg

    result = dg.materialize(
        everything,
        selection=selection,
        instance=instance,
        resources=resources,
        partition_key=partition_key,
        run_config=QUIET_RUN_CONFIG,
        raise_on_error=False,
        tags={PID_TAG: str(os.getpid()), HOST_TAG: socket.gethostname()},
    )
    _collect(result, report)


def _everything() -> list[Any]:
    """Every asset and check of the definitions: a materialization selects from these."""
    from relreason_dagster.definitions import ALL_ASSET_CHECKS, ALL_ASSETS

    return [*ALL_ASSETS, *ALL_ASSET_CHECKS]


def run_pipeline(
    models: list[str],
    *,
    profile: str = settings.DEFAULT_PROFILE,
    benchmarks: list[str] | None = None,
    seed: int = settings.DEFAULT_SEED,
    run_dbt: bool = True,
    dlm_train_size: int | None = None,
    judge: str | None = None,
) -> PipelineReport:
    """samples + prompts, then each model's responses and parsed answers, then dbt build.

    The model name ``dlm`` trains (or reuses) the DLM baseline for the profile's ``dlm_tasks`` and
    scores it on the relational test samples instead of calling an LLM.  With the selfcontra family,
    ``judge`` (default: the profile's) labels the responses for Self-Contra after every model has run.
    """
    from relreason_dagster.dlm.plan import DLM_MODEL, dlm_settings

    prepare_environment(profile)
    for name in benchmarks or []:
        get_family(name)
    dlm_tasks: tuple[str, ...] = ()
    if DLM_MODEL in models:
        if benchmarks and "relational" not in benchmarks:
            raise ConfigError("the dlm model needs the relational benchmark; add --benchmark relational")
        dlm_tasks = dlm_settings(settings.get_profile(profile, "relational"), dlm_train_size).tasks
    specs = [get_model(settings.models_path(), m) for m in models if m != DLM_MODEL]
    for spec in specs:
        require_api_key(spec)

    import dagster as dg

    from relreason_dagster.defs.assets import model_responses, parsed_answers, prompts, samples
    from relreason_dagster.defs.dbt import relreason_dbt_models
    from relreason_dagster.defs.dlm_assets import dlm_answers, dlm_checkpoints
    from relreason_dagster.defs.flenqa_assets import flenqa_length_plot
    from relreason_dagster.defs.kor_assets import kor_self_correction
    from relreason_dagster.defs.resources import RunSettings, build_resources
    from relreason_dagster.defs.selfcontra_assets import (
        selfcontra_annotations,
        selfcontra_detections,
        symbolic_checks,
    )
    from relreason_dagster.defs.sensors import sync_model_partitions

    instance = dg.DagsterInstance.get()
    release_dead_runs(instance)
    registered = [m.name for m in specs]
    current = set(instance.get_dynamic_partitions("models"))
    sync_model_partitions(instance, sorted(current | set(registered)))

    resources = build_resources()
    resources["run_settings"] = RunSettings(
        profile=profile,
        seed=seed,
        benchmarks=benchmarks or [],
        models_file=str(settings.models_path()),
        dlm_train_size=dlm_train_size or 0,
        judge=judge or "",
    )
    families = resources["run_settings"].family_names()  # a bad benchmark/profile pair fails here
    # Self-Contra detection runs after LLM responses (a DLM-only run has nothing new to judge); an unknown
    # judge or a missing key fails before any model call.
    judging = "selfcontra" in families and bool(specs)
    if judging:
        require_api_key(get_model(settings.models_path(), resources["run_settings"].judge_model()))
    everything = _everything()
    report = PipelineReport()

    def _run(selection: list[Any], partition_key: str | None = None) -> None:
        _materialize(everything, selection, instance, resources, report, partition_key)

    _run([samples, prompts])
    per_model = [model_responses, parsed_answers] + ([symbolic_checks] if "relational" in families else [])
    per_model += [kor_self_correction] if "kor" in families else []
    for spec in specs:
        _run(per_model, partition_key=spec.name)
    for task in dlm_tasks:
        _run([dlm_checkpoints, dlm_answers], partition_key=task)
    if judging:
        sc_profile = settings.get_profile(profile, "selfcontra")
        _run(
            ([selfcontra_annotations] if sc_profile.get("annotation_files") else []) + [selfcontra_detections]
        )
    if run_dbt:
        log = settings.relreason_home() / "logs" / "dbt.log"
        with _stdout_to(log):
            _run([relreason_dbt_models])
        report.dbt_log = str(log)
        if "flenqa" in families:
            _run([flenqa_length_plot])
    return report


def run_detection(
    *,
    profile: str = settings.DEFAULT_PROFILE,
    judge: str | None = None,
    limit: int | None = None,
    methods: list[str] | None = None,
    run_dbt: bool = True,
) -> PipelineReport:
    """Only Self-Contra detection: the judge labels stored annotations and responses, then dbt build.

    No benchmark model is called; ``limit`` annotated responses per source file (None: the profile's),
    ``methods`` a subset of iro/binary/fge (None: the profile's).
    """
    prepare_environment(profile)
    import dagster as dg

    from relreason_dagster.defs.dbt import relreason_dbt_models
    from relreason_dagster.defs.resources import RunSettings, build_resources
    from relreason_dagster.defs.selfcontra_assets import selfcontra_detections

    run_settings = RunSettings(
        profile=profile,
        benchmarks=["selfcontra"],
        models_file=str(settings.models_path()),
        judge=judge or "",
        detect_limit=-1 if limit is None else limit,
        detect_methods=list(methods or []),
    )
    run_settings.family_names()  # a profile without a selfcontra section fails here, in one line
    require_api_key(get_model(settings.models_path(), run_settings.judge_model()))
    instance = dg.DagsterInstance.get()
    release_dead_runs(instance)
    resources = build_resources()
    resources["run_settings"] = run_settings
    report = PipelineReport()
    selection = [selfcontra_detections]
    everything = _everything()
    _materialize(everything, selection, instance, resources, report)
    if run_dbt:
        log = settings.relreason_home() / "logs" / "dbt.log"
        with _stdout_to(log):
            _materialize(everything, [relreason_dbt_models], instance, resources, report)
        report.dbt_log = str(log)
    return report
