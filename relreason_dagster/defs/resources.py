"""Dagster resources: the DuckDB file, the run settings (profile, seed, benchmarks, step model) and dbt."""

from __future__ import annotations

import contextlib
import copy
import functools
import json
from collections.abc import Iterator
from typing import Any

import dagster as dg
from dagster_dbt import DbtCliResource

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.defs.dbt_prepare import dbt_executable
from relreason_dagster.errors import ConfigError


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


class RunSettings(dg.ConfigurableResource):
    """What a run generates: the size profile, the seed, the benchmark families, the model registry
    and how many samples DLM trains on.

    A launch (``pipeline.py``) fills every field, the profile's resolved sections included, and
    passes them as run config, so a step process reads no profile file and no setting of the
    launching process's environment.  A run from the UI starts from the defaults the definitions
    loaded with (the profile file and ``RELREASON_MODELS`` of the shell that started it); the
    launchpad can override them per run.
    """

    profile: str = profiles.DEFAULT_PROFILE
    # The profile resolved by the launch, JSON ``{family: {knob: value}}``; "": resolve ``profile`` here.
    sections: str = ""
    seed: int = profiles.DEFAULT_SEED
    benchmarks: list[str] = []
    models_file: str = ""
    dlm_train_size: int = 0  # 0: the profile's dlm_train_size (default: its few-shot samples)
    # The model the families' across-models steps ask (a models.yaml name; `relreason run --judge`);
    # "": the profile knob each step names (the step's ``model_knob``, e.g. ``judge``).
    step_model: str = ""
    # This run's changes to single profile knobs, JSON ``{family: {knob: value}}`` (a command's options).
    overrides: str = ""
    # Draws per prompt (`relreason run --samples K`); 0: the profile's ``samples`` knob, else 1.
    samples: int = 0
    # `relreason run -M KEY=VALUE` as JSON: entry fields and generation params laid over every LLM of
    # the run (and what an ad-hoc model, a LiteLLM model string with no registry entry, is run with).
    model_options: str = ""
    # `relreason run --limit N`: ask only the first N samples of each task (0: all).
    limit: int = 0
    # `relreason run --dlm-workers N`: trainings of a baseline at once on this machine (0: the CPU count).
    dlm_workers: int = 0
    # The launch's plan (launch_plan.py), by value: every model spec it resolved (-M laid over), JSON
    # ``[spec, ...]``, and models.yaml as it read it, JSON (llm.registry.RegistrySnapshot.record).  A
    # step takes its model from here and reads no file; "" (a run from the UI): resolved in the step.
    launch_specs: str = ""
    registry: str = ""
    # Whether the launch checked every model's key (a step then reads the key without checking again).
    keys_checked: bool = False
    # Across-models steps the launch left out (their profile-named model has no key set, or is a study's
    # judge not in models.yaml): each materializes as left out, asking and writing nothing (launch_plan.py).
    left_out_steps: list[str] = []

    @classmethod
    def from_plan(cls, plan: Any, **fields: Any) -> RunSettings:
        """The settings of every run of one launch (``launch_plan.LaunchPlan``); ``fields``: the rest."""
        return cls(
            profile=plan.profile,
            sections=json.dumps(plan.sections),
            seed=plan.seed,
            benchmarks=list(plan.benchmarks),
            models_file=plan.registry.path if plan.registry else str(paths.models_path()),
            dlm_train_size=plan.dlm_train_size or 0,
            step_model=plan.judge or "",
            samples=plan.samples or 0,
            model_options=json.dumps(dict(plan.model_options), sort_keys=True) if plan.model_options else "",
            limit=plan.limit or 0,
            launch_specs=json.dumps([spec.model_dump() for spec in plan.every_spec]),
            registry=json.dumps(plan.registry.record()) if plan.registry else "",
            keys_checked=True,
            left_out_steps=list(getattr(plan, "left_out_steps", ())),
            **fields,
        )

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        """A run process given its launch's models.yaml reads no registry file (redaction, the report)."""
        self.seed_registry()

    def seed_registry(self) -> None:
        if self.registry:
            from relreason_dagster.llm.registry import RegistrySnapshot, seed_registry

            seed_registry(RegistrySnapshot.from_record(_parsed(self.registry)))

    def family_names(self) -> list[str]:
        """The selected benchmarks, or every family the profile has settings for.

        A profile without a section for a family does not run it (its defaults are the
        paper-sized grid, which a small custom profile never means).
        """
        from relreason_dagster.launch_plan import run_families

        return list(run_families(self.profile, self._sections(), self.benchmarks))

    def _sections(self) -> dict[str, dict[str, Any]]:
        """The profile's sections: those the launch resolved (parsed once per process), else
        ``profile`` resolved now."""
        return _parsed(self.sections) if self.sections else profiles.resolve(self.profile)

    def profile_for(self, family: str) -> Profile:
        """The family's section of the profile, with this run's overrides of single knobs."""
        params = copy.deepcopy(dict(self._sections().get(family, {})))
        profile = Profile(name=self.profile, params=params, knobs=profiles.family_knobs(family))
        changed = copy.deepcopy(_parsed(self.overrides).get(family, {})) if self.overrides else {}
        return profile.with_params(changed) if changed else profile

    def model_for_step(self, family: str, step: Any) -> str:
        """The model an across-models step asks: ``step_model`` if set, else the profile knob it names."""
        from relreason_dagster.benchmarks.base import step_model_name

        knob = step.model_knob
        name = self.step_model or step_model_name(step, self.profile_for(family))
        if not name:
            raise ConfigError(
                f"profile {self.profile!r} names no model for {step.name}; pass --judge MODEL or set "
                f"{knob!r} in its {family} section"
            )
        return str(name)

    def model(self, name: str) -> Any:
        """The ModelEntry of ``name``: as the launch resolved it, else (a run from the UI) its registry
        entry (or an ad-hoc one) with this run's ``-M``, its key checked here."""
        from relreason_dagster.llm.registry import ModelEntry, require_api_key, resolve_model

        for record in _parsed(self.launch_specs) if self.launch_specs else []:
            if record["name"] == name:
                return ModelEntry(**copy.deepcopy(record))
        self.seed_registry()
        options = _parsed(self.model_options) if self.model_options else {}
        spec = resolve_model(self.models_path(), name, options)
        if not self.keys_checked:
            require_api_key(spec)
        return spec

    def launched_specs(self) -> list[dict[str, Any]]:
        """Every model spec the launch resolved, as dicts (a run from the UI: its registry's entries)."""
        if self.launch_specs:
            return list(_parsed(self.launch_specs))
        from relreason_dagster.llm.registry import load_registry

        try:
            return [spec.model_dump() for spec in load_registry(self.models_path()).values()]
        except ConfigError:
            return []

    def samples_for(self, family: str) -> int:
        """How many times each of the family's prompts is asked: ``--samples``, else its profile's knob."""
        return self.samples or self.profile_for(family).values().samples

    def models_path(self) -> str:
        return self.models_file or str(paths.models_path())


@functools.lru_cache(maxsize=64)
def _parsed(text: str) -> Any:
    """JSON of the run settings, parsed once per process (callers copy what they change)."""
    return json.loads(text)


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
