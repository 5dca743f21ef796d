"""Dagster resources: the DuckDB file, the run settings (a launch's plan as typed run config) and dbt."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import dagster as dg
from dagster_dbt import DbtCliResource
from pydantic import PrivateAttr

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.defs.dbt_prepare import dbt_executable
from relreason_dagster.errors import ConfigError

if TYPE_CHECKING:
    from relreason_dagster.launch_plan import LaunchPlan
    from relreason_dagster.llm.registry import ModelEntry


class DuckDBFile(dg.ConfigurableResource):
    """The pipeline's DuckDB file: short connections that wait for another process's lock.

    Used instead of dagster-duckdb's resource because steps in several processes (and
    ``relreason sql`` beside them) share the file, and a lock conflict must mean "wait", not "fail".
    """

    database: str
    # How long an open waits for another process's lock (`relreason run --lock-wait S`); 0: the default.
    lock_wait_s: float = 0.0

    @contextlib.contextmanager
    def get_connection(self, read_only: bool = False) -> Iterator[Any]:
        from relreason_dagster.storage.duckdb_io import duckdb_session

        wait = self.lock_wait_s or None
        with duckdb_session(self.database, read_only=read_only, wait_s=wait) as con:
            yield con


# A value inside run config that may be null (a spec's unset api_base, a knob set to null): Dagster's
# config maps refuse a null member unless their value type says it may be one.
Value = Any | None


class LaunchConfig(dg.Config):
    """What one launch resolved (``launch_plan.LaunchPlan``), as typed run config: the models asked, the
    profile's sections, each model's spec, the step models and the registry as read.

    A spec is a dict of plain values (``launch_plan.spec_record``; read back with ``spec_from_record``),
    not a nested ``Config`` of its own: the model's fields are declared once, in ``llm/registry.py``, and a
    copy of them here would drift.  The registry likewise (``RegistrySnapshot.record``).
    """

    models: list[str] = []
    families: list[str] = []
    sections: dict[str, dict[str, Value]] = {}  # the profile resolved (overrides laid over): family -> knobs
    specs: list[dict[str, Value]] = []  # the benchmark LLMs, -M laid over
    step_specs: list[dict[str, Value]] = []  # the models the across-models steps ask (a judge)
    step_models: dict[str, str] = {}  # across-models step -> the model it asks
    baseline_tasks: dict[str, list[str]] = {}
    registry: dict[str, Value] | None = None  # models.yaml as the launch read it
    left_out_steps: list[str] = []  # their model cannot be asked: they materialize as left out
    batch_live: list[str] = []
    notes: list[str] = []


class RunSettings(dg.ConfigurableResource):
    """What a run computes: the launch's inputs (profile, seed, benchmarks, models file, ``--judge``,
    ``--samples``, ``--limit``, ``-M``, ...) and, from a launch, its resolved plan (``launch``).

    A launch (``pipeline.py``) fills every field from its ``LaunchPlan`` (:meth:`from_plan`), so a step
    process reads no profile file, no models.yaml and no setting of the launching process's environment.
    A run started from the UI has no ``launch``: it starts from the defaults the definitions loaded with
    (the profile and ``RELREASON_MODELS`` of the shell that started it), which the launchpad can override
    per run, and its steps build the plan from them with ``launch_plan.build_plan``, the same checks a
    launch from the command line makes (:meth:`launch_plan`).  ``None``: not set (the profile's knob, or
    the default the field names).
    """

    profile: str = profiles.DEFAULT_PROFILE
    seed: int = profiles.DEFAULT_SEED
    benchmarks: list[str] = []
    models_file: str = ""
    dlm_train_size: int | None = None  # the baseline's training-set size (None: the profile's)
    # The model the families' across-models steps ask (`relreason run --judge`; None: each step's knob).
    step_model: str | None = None
    # This run's changes to single profile knobs, {family: {knob: value}} (a command's options).
    overrides: dict[str, dict[str, Value]] = {}
    samples: int | None = None  # draws per prompt (`--samples K`; None: the profile's samples knob)
    # `relreason run -M KEY=VALUE`: entry fields and generation params laid over every LLM of the run.
    model_options: dict[str, Value] = {}
    limit: int | None = None  # `--limit N`: only the first N samples of each task (None: all)
    dlm_workers: int | None = None  # `--dlm-workers N`: baseline trainings at once (None: the CPU count)
    skip_too_long: bool = False  # `--skip-too-long`: prompts over a model's window left out, not a stop
    launch: LaunchConfig | None = None  # the launch's plan; None: a run from the UI builds its own
    _plans: dict[tuple[tuple[str, ...], bool], Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def from_plan(cls, plan: Any, **fields: Any) -> RunSettings:
        """The settings of every run of one launch (``launch_plan.LaunchPlan``); ``fields``: the rest."""
        from relreason_dagster.launch_plan import spec_record

        launch = LaunchConfig(
            models=list(plan.models),
            families=list(plan.families),
            sections=copy.deepcopy({family: dict(knobs) for family, knobs in plan.sections.items()}),
            specs=[spec_record(spec) for spec in plan.specs],
            step_specs=[spec_record(spec) for spec in plan.step_specs],
            step_models=dict(plan.step_models),
            baseline_tasks={model: list(tasks) for model, tasks in plan.baseline_tasks.items()},
            registry=plan.registry.record() if plan.registry else None,
            left_out_steps=list(plan.left_out_steps),
            batch_live=list(plan.batch_live),
            notes=list(plan.notes),
        )
        return cls(
            profile=plan.profile,
            seed=plan.seed,
            benchmarks=list(plan.benchmarks),
            models_file=plan.registry.path if plan.registry else str(paths.models_path()),
            dlm_train_size=plan.dlm_train_size,
            step_model=plan.judge,
            samples=plan.samples,
            model_options=copy.deepcopy(dict(plan.model_options)),
            limit=plan.limit,
            skip_too_long=plan.skip_too_long,
            launch=launch,
            **fields,
        )

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        """A run process given its launch's models.yaml reads no registry file (redaction, the report)."""
        if self.launch is not None and self.launch.registry is not None:
            from relreason_dagster.llm.registry import seed_registry

            seed_registry(self.launch_plan().registry)

    def launch_plan(self, models: Sequence[str] = (), *, steps: bool = False) -> LaunchPlan:
        """The launch's plan: the one the launch passed, else (a run from the UI) the one
        ``launch_plan.build_plan`` makes of these settings for ``models`` (the run's model partition) and,
        with ``steps``, the across-models steps' models: checked as `relreason run` checks a launch.
        Built once per process and question."""
        key = ((), False) if self.launch is not None else (tuple(models), steps)
        if key not in self._plans:
            self._plans[key] = self._carried() if self.launch is not None else self._built(*key)
        return self._plans[key]

    def _carried(self) -> LaunchPlan:
        from relreason_dagster.launch_plan import LaunchPlan, spec_from_record
        from relreason_dagster.llm.registry import RegistrySnapshot

        launch = self.launch
        assert launch is not None
        return LaunchPlan(
            models=tuple(launch.models),
            profile=self.profile,
            sections=launch.sections,
            families=tuple(launch.families),
            benchmarks=tuple(self.benchmarks),
            seed=self.seed,
            specs=tuple(spec_from_record(record) for record in launch.specs),
            step_specs=tuple(spec_from_record(record) for record in launch.step_specs),
            step_models=dict(launch.step_models),
            baseline_tasks={model: tuple(tasks) for model, tasks in launch.baseline_tasks.items()},
            registry=RegistrySnapshot.from_record(launch.registry) if launch.registry else None,
            dlm_train_size=self.dlm_train_size,
            judge=self.step_model,
            samples=self.samples,
            limit=self.limit,
            model_options=dict(self.model_options),
            left_out_steps=tuple(launch.left_out_steps),
            notes=tuple(launch.notes),
            skip_too_long=self.skip_too_long,
            batch_live=tuple(launch.batch_live),
        )

    def _built(self, models: tuple[str, ...], steps: bool) -> LaunchPlan:
        from relreason_dagster.benchmarks.registry import baseline_names
        from relreason_dagster.launch_plan import build_plan

        # The training size is a baseline's (build_plan refuses it without one); a baseline's own steps
        # read it from these settings, so a plan asked for an LLM or for the profile goes without it.
        baseline = any(model in baseline_names() for model in models)
        return build_plan(
            models,
            profile=self.profile,
            benchmarks=self.benchmarks or None,
            seed=self.seed,
            judge=self.step_model,
            samples=self.samples,
            limit=self.limit,
            model_options=self.model_options,
            dlm_train_size=self.dlm_train_size if baseline else None,
            models_file=self.models_path(),
            skip_too_long=self.skip_too_long,
            overrides=self.overrides,
            steps_over_stored=steps,
        )

    def family_names(self) -> list[str]:
        """The selected benchmarks, or every family the profile has settings for.

        A profile without a section for a family does not run it (its defaults are the
        paper-sized grid, which a small custom profile never means).
        """
        return list(self.launch_plan().families)

    def profile_for(self, family: str) -> Profile:
        """The family's section of the profile, with this run's overrides of single knobs."""
        return self.launch_plan().profile_for(family)

    def model(self, name: str) -> ModelEntry:
        """The spec of benchmark model ``name`` (a model partition) as the launch resolved it; a run from
        the UI resolves it here, through ``build_plan``."""
        for spec in self.launch_plan((name,)).specs:
            if spec.name == name:
                return spec
        raise ConfigError(f"model {name!r} is not one this run's launch asks; launch it with --model {name}")

    def step_model_name(self, family: str, step: Any) -> str | None:
        """The model an across-models step asks, as the launch's plan names it (``launch_plan.step_model``'s
        rule: ``--judge``, else the profile's knob); None: the launch left the step out (its model's key is
        not set, or it is a study's judge not in models.yaml: ``LaunchPlan.notes`` said so)."""
        from relreason_dagster.launch_plan import step_model

        plan = self.launch_plan(steps=True)
        if step.name in plan.left_out_steps:
            return None
        name = plan.step_models.get(step.name)  # a launch of no LLM (a baseline only) named none
        return name if name is not None else step_model(family, step, plan.profile_for(family), plan.judge)

    def step_spec(self, family: str, step: Any) -> ModelEntry:
        """The spec of the model :meth:`step_model_name` names, asked for when the step has prompts: as
        the launch resolved it; one it did not (it ran no LLM) is resolved here, through ``build_plan``."""
        plan = self.launch_plan(steps=True)
        if step.name not in plan.step_models and self.launch is not None:
            if ((), True) not in self._plans:
                self._plans[((), True)] = self._built((), True)
            plan = self._plans[((), True)]
        name = plan.step_models[step.name]
        return next(spec for spec in plan.step_specs if spec.name == name)

    def launched_specs(self) -> list[ModelEntry]:
        """Every model the launch resolved (a run from the UI: every entry of its models.yaml)."""
        if self.launch is not None:
            return list(self.launch_plan().every_spec)
        from relreason_dagster.llm.registry import load_registry

        try:
            return list(load_registry(self.models_path()).values())
        except ConfigError:
            return []

    def samples_for(self, family: str) -> int:
        """How many times each of the family's prompts is asked: ``--samples``, else its profile's knob."""
        return self.samples or self.profile_for(family).values().samples

    def models_path(self) -> str:
        return self.models_file or str(paths.models_path())


def build_resources() -> dict[str, object]:
    """The resources of the one Definitions object, read from the environment at load time."""
    return {
        "duckdb": DuckDBFile(database=str(paths.duckdb_path())),
        "run_settings": RunSettings(
            profile=profiles.current_profile_name(),
            models_file=str(paths.models_path()),
        ),
        "dbt": DbtCliResource(
            project_dir=str(paths.DBT_PROJECT_DIR),
            profiles_dir=str(paths.DBT_PROJECT_DIR),
            dbt_executable=dbt_executable(),
        ),
    }
