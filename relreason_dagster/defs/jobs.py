"""The pipeline's jobs, defined once: the UI launches them, and `relreason run` launches the same ones.

A job is an asset selection with one partitioning.  Which job runs after which
is not written down anywhere: :func:`job_order` reads it off the asset
dependencies (``defs/catalog.py``), so adding an asset to a job is all it takes to place it.
The Definitions that hold the jobs are built above this module, in ``defs/build.py``.

* ``prepare``: samples, prompts (and the checks on them), the families' input steps, the studies'
  published numbers, the sweep variants the launch runs (``raw.model_sweeps``);
* ``model_work`` (one run per model partition): responses, parsed answers and the per-model steps;
* ``<baseline>_work`` (one run per task of the family that declares it): a non-LLM baseline's
  training and its answers (``dlm_work``: the relational study's DLM);
* ``judge``: the families' steps over every model's answers (a judge model);
* ``marts``: dbt build and the figures drawn from the marts (``defs/figure_assets.py``).

One more job is for the UI only: ``add_model`` (:data:`UI_JOBS`), a new model's whole pass as one
launch: ``model_work``, ``judge`` and ``marts`` in one run for the model's partition (the judge steps
and the marts are unpartitioned, so they run once, after the partition's steps).  It overlaps the
jobs above, so the launcher, which orders runs by the job that owns each asset, never plans it.

Executors (``RELREASON_EXECUTOR``): ``in_process`` (one process, tests and
debugging), ``multiprocess`` (default: a process per step), ``celery`` (steps
on the Celery workers of the broker at ``RELREASON_CELERY_BROKER``; see
``relreason worker``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping

import dagster as dg

from relreason_dagster.defs.assets import model_responses, parsed_answers, prompts, samples
from relreason_dagster.defs.baseline_assets import BASELINE_ASSETS, baseline_job
from relreason_dagster.defs.catalog import ALL_ASSETS
from relreason_dagster.defs.dbt import relreason_dbt_models
from relreason_dagster.defs.figure_assets import FIGURE_ASSETS
from relreason_dagster.defs.model_sweeps import model_sweeps
from relreason_dagster.defs.steps import steps_in
from relreason_dagster.defs.study_reference import published_numbers
from relreason_dagster.errors import ConfigError

EXECUTORS = ("in_process", "multiprocess", "celery")
DEFAULT_EXECUTOR = "multiprocess"

JOB_SELECTIONS: dict[str, tuple[str, list[dg.AssetsDefinition]]] = {
    "prepare": (
        "Generate samples and prompts of the run's families (and their checks); their input steps; "
        "load the studies' published numbers; record the sweep variants the launch runs.",
        [samples, prompts, published_numbers, model_sweeps, *steps_in("inputs")],
    ),
    "model_work": (
        "One model's responses (lake), parsed answers and per-model follow-ups; one run per model partition.",
        [model_responses, parsed_answers, *steps_in("per_model")],
    ),
    **{
        baseline_job(model): (
            f"Train the {model} baseline on one task of its family and score it; one run per task partition.",
            list(pair),
        )
        for model, pair in BASELINE_ASSETS.items()
    },
    "judge": (
        "Follow-up steps over every model's stored answers (a judge model's verdicts).",
        steps_in("across_models"),
    ),
    "marts": (
        "dbt build of the staging views and metric marts, then the figures.",
        [relreason_dbt_models, *FIGURE_ASSETS],
    ),
}


def executor_name() -> str:
    """The executor named by ``RELREASON_EXECUTOR`` (default multiprocess); a bad name is one line."""
    name = os.environ.get("RELREASON_EXECUTOR", DEFAULT_EXECUTOR).strip() or DEFAULT_EXECUTOR
    if name not in EXECUTORS:
        raise ConfigError(
            f"RELREASON_EXECUTOR={name!r} is not an executor; use one of {', '.join(EXECUTORS)}"
        )
    return name


# Steps of one run at once under the multiprocess executor, unless the run config says otherwise
# (`relreason run --max-steps N`, the UI's launchpad: ``execution: {config: {max_concurrent: N}}``).
DEFAULT_MAX_STEPS = 4


def _multiprocess_config(config: dict) -> dict:
    return {
        "max_concurrent": config["max_concurrent"],
        "start_method": {"forkserver": {"preload_modules": ["relreason_dagster.defs.preload"]}},
    }


def executor_def(name: str) -> dg.ExecutorDefinition:
    """The Dagster executor for ``name`` (the celery one needs the dagster-celery package)."""
    if name == "in_process":
        return dg.in_process_executor
    if name == "multiprocess":
        # forkserver with the definitions preloaded: a step's process is a fork, not a fresh ~9 s import.
        return dg.multiprocess_executor.configured(
            _multiprocess_config,
            config_schema={
                "max_concurrent": dg.Field(int, default_value=DEFAULT_MAX_STEPS, is_required=False)
            },
        )
    if name == "celery":
        try:
            from dagster_celery import celery_executor
        except ImportError:
            raise ConfigError(
                "RELREASON_EXECUTOR=celery needs dagster-celery: pip install -e '.[distributed]'"
            ) from None
        broker = os.environ.get("RELREASON_CELERY_BROKER", "")
        if not broker:
            raise ConfigError(
                "RELREASON_EXECUTOR=celery needs RELREASON_CELERY_BROKER, e.g. redis://127.0.0.1:6379/0"
            )
        # Results go back through the broker itself: one URL for the workers and the launch to share.
        return celery_executor.configured({"broker": broker, "backend": broker})
    raise ConfigError(f"unknown executor {name!r}; use one of {', '.join(EXECUTORS)}")


# Jobs a user launches from the UI; `relreason run` launches the jobs above, in order.
UI_JOBS: dict[str, tuple[str, list[dg.AssetsDefinition]]] = {
    "add_model": (
        "A model's whole pass in one run (pick its partition): its responses, parsed answers and "
        "per-model follow-ups, then the judge steps and the marts. What `relreason run --model M` does "
        "for one LLM once samples and prompts exist (the prepare job).",
        [
            *JOB_SELECTIONS["model_work"][1],
            *JOB_SELECTIONS["judge"][1],
            *JOB_SELECTIONS["marts"][1],
        ],
    ),
}


def job_tags(partitioned: bool) -> dict[str, str]:
    """The tags a run launched from the UI carries: the profile and benchmarks its settings default
    to (those the definitions loaded with), and for a job over every model, ``all``; a partitioned
    run names its model in its partition tag.  `relreason run` overrides them with its own values."""
    from relreason_dagster import profiles
    from relreason_dagster.benchmarks.registry import family_names

    profile = profiles.current_profile_name()
    try:
        in_profile = set(profiles.profile_families(profile))
    except ConfigError:  # a bad profile fails the run's settings with its own line
        in_profile = set()
    tags = {
        "relreason/profile": profile,
        "relreason/benchmarks": ",".join(n for n in family_names() if n in in_profile) or "-",
    }
    return tags if partitioned else {**tags, "relreason/models": "all"}


def build_jobs(executor: str | None = None) -> list[dg.UnresolvedAssetJobDefinition]:
    """Every job of the pipeline, each with ``executor`` (default: the configured one)."""
    chosen = executor_def(executor or executor_name())
    jobs = []
    for name, (description, assets) in {**JOB_SELECTIONS, **UI_JOBS}.items():
        partitions = {a.partitions_def for a in assets if a.partitions_def is not None}
        jobs.append(
            dg.define_asset_job(
                name,
                selection=dg.AssetSelection.assets(*assets),
                description=description,
                partitions_def=next(iter(partitions)) if partitions else None,
                executor_def=chosen,
                tags=job_tags(bool(partitions)),
            )
        )
    return jobs


def job_order(deps: Mapping[str, set[str]] | None = None) -> dict[str, set[str]]:
    """For each job, the jobs it must wait for: those holding an asset upstream of one of its own.

    Upstream is transitive over the whole asset graph, so a job waits for another
    even through assets outside both (none today, but nothing breaks if one appears).
    """
    owner: dict[dg.AssetKey, str] = {}
    for job, (_, assets) in JOB_SELECTIONS.items():
        for asset in assets:
            for key in asset.keys:
                owner[key] = job
    parents: dict[dg.AssetKey, set[dg.AssetKey]] = {}
    for asset in ALL_ASSETS:
        for key in asset.keys:
            parents[key] = {dep.asset_key for dep in asset.specs_by_key[key].deps}

    @functools.cache
    def upstream(key: dg.AssetKey) -> frozenset[dg.AssetKey]:
        found: set[dg.AssetKey] = set()
        for parent in parents.get(key, ()):
            found.add(parent)
            found |= upstream(parent)
        return frozenset(found)

    order: dict[str, set[str]] = {job: set() for job in JOB_SELECTIONS}
    for key, job in owner.items():
        for up in upstream(key):
            other = owner.get(up)
            if other is not None and other != job:
                order[job].add(other)
    return order
