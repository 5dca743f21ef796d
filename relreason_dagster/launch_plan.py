"""One launch, resolved once and checked at the door: the frozen :class:`LaunchPlan` that `relreason
run` (and its ``--dry-run``) builds before anything starts, and that the runs receive by value.

Why: a launch used to resolve the same things again and again across its processes (models.yaml
opened 11 times for one run of two models, each API key checked in four places, the profile checked
three times and its JSON re-parsed on every knob read), and some bad input was found only once the run
was under way: an unknown provider stored an error row per prompt, a budget on an unpriced model
failed inside a step with a Dagster traceback, ``--samples 1000000000`` ran until killed.  Now every
check that needs no model call is made here, once, with one line and nothing written:

* the profile (resolved once; its sections are checked against each family's ``Knobs`` as it is read)
  and the benchmarks it runs;
* every model the launch asks (the benchmark models and the families' across-models step models such
  as a judge): its registry entry or ad-hoc LiteLLM string with ``-M``, its API key, its provider
  (LiteLLM's lookup, read from its files where they settle it) and, for a ``max_cost``, its price;
* ``--samples`` and ``--limit`` within their bounds (``benchmarks.base.MAX_SAMPLES``, ``MAX_LIMIT``);
* each model's context window against the prompts a family says it will build (FLenQA's lengths:
  ``prompt_budgets``), unless ``--skip-too-long`` leaves what does not fit out
  (``llm/launch_checks.check_windows``).

All of it before any engine loads: this module imports no Dagster, dbt, Great Expectations or
LiteLLM (nor SymPy), so a refused launch ends in about a second (``llm/launch_checks.py``;
``tests/unit/cli/test_door_imports.py`` holds it to that).  A check added here keeps to the same.

The runs get the plan through their run settings (``defs/resources.py``, ``RunSettings.from_plan``):
typed run config, the resolved model specs, the registry as read (so a step's redaction and the report
read no file) and the profile's sections.  A run started from the UI has no plan from a command line:
its step builds one here, with :func:`build_plan` from its run config, so it is checked exactly as a
launch from the command line would be.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import (
    MAX_LIMIT,
    MAX_SAMPLES,
    FollowUpStep,
    Profile,
    step_model_name,
)
from relreason_dagster.benchmarks.registry import (
    FAMILIES,
    baseline_family,
    baseline_names,
    family_steps,
    get_baseline,
    get_family,
)
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.batch_choice import BatchChoice
from relreason_dagster.llm.context_window import context_window
from relreason_dagster.llm.launch_checks import check_at_the_door, check_windows
from relreason_dagster.llm.registry import (
    ModelEntry,
    RegistrySnapshot,
    require_api_key,
    resolve_model,
    snapshot_registry,
)
from relreason_dagster.llm.study_models import ALL, missing_key, study_models
from relreason_dagster.llm.sweeps import expand_names


@dataclass(frozen=True)
class LaunchPlan:
    """Everything one launch needs, resolved and checked; the runs receive it by value."""

    # As asked (baselines included, a swept entry's name as its variants), in order, each once.
    models: tuple[str, ...]
    profile: str
    sections: Mapping[str, Mapping[str, Any]]  # the profile resolved: family -> knobs it sets
    families: tuple[str, ...]  # the families the launch runs
    benchmarks: tuple[str, ...]  # --benchmark, when given
    seed: int
    specs: tuple[ModelEntry, ...]  # the benchmark LLMs (-M laid over), in order
    step_specs: tuple[ModelEntry, ...]  # the models the families' across-models steps ask (a judge)
    # Each across-models step that asks a model -> the model it asks (:func:`step_model`), left-out ones too.
    step_models: Mapping[str, str] = field(default_factory=dict)
    baseline_tasks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    registry: RegistrySnapshot | None = None  # models.yaml as read at the door
    dlm_train_size: int | None = None
    judge: str | None = None
    samples: int | None = None
    limit: int | None = None
    model_options: Mapping[str, Any] = field(default_factory=dict)
    # Across-models steps left out: the model the profile names for them has no key set (or is a study's
    # judge that is not in models.yaml); they ask and write nothing, and ``notes`` says so in one line.
    left_out_steps: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    skip_too_long: bool = False  # --skip-too-long: prompts over a model's window left out, not a stop
    batch_live: tuple[str, ...] = ()  # --batch asked, but these models' providers run no batch jobs

    def profile_for(self, family: str) -> Profile:
        """The family's section of the launch's profile (what a run's settings give its steps); a copy,
        so a step that changes its knobs changes no other step's."""
        params = copy.deepcopy(dict(self.sections.get(family, {})))
        return Profile(self.profile, params, profiles.family_knobs(family))

    @property
    def every_spec(self) -> tuple[ModelEntry, ...]:
        """Every LLM the launch may call, each once: the benchmark models, then the step models."""
        seen = {spec.name: spec for spec in (*self.specs, *self.step_specs)}
        return tuple(seen.values())


def check_counts(samples: int | None, limit: int | None) -> None:
    """``--samples`` and ``--limit`` within their stated bounds (argparse checks them too; a caller
    of :func:`build_plan` from Python gets the same line)."""
    for option, value, most, unit in (
        ("--samples", samples, MAX_SAMPLES, "draws per prompt"),
        ("--limit", limit, MAX_LIMIT, "samples per task"),
    ):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{option} must be a positive integer, got {value!r}")
        if value > most:
            raise ConfigError(f"{option}: at most {most:,} {unit}, got {value:,}; ask for fewer")


def step_model(family: str, step: FollowUpStep, section: Profile, judge: str | None) -> str:
    """The model an across-models step asks: ``judge`` (``--judge``), else the one its profile section
    names (``base.step_model_name``: its knob, or its own rule).  The one place of this rule: the
    launch's plan records its answer per step (``LaunchPlan.step_models``) and the runs read that."""
    name = judge or step_model_name(step, section)
    if not name:
        raise ConfigError(
            f"profile {section.name!r} names no model for {step.name}; pass --judge MODEL or set "
            f"{step.model_knob!r} in its {family} section"
        )
    return str(name)


def _step_models(
    families: Sequence[str], sections: Mapping[str, Mapping[str, Any]], profile: str, judge: str | None
) -> dict[str, list[str]]:
    """The models the families' across-models steps ask, each with its steps (:func:`step_model`)."""
    names: dict[str, list[str]] = {}
    for family in families:
        for step in family_steps(family):
            if step.stage != "across_models" or step.kind is None:
                continue
            section = Profile(profile, dict(sections.get(family, {})), profiles.family_knobs(family))
            names.setdefault(step_model(family, step, section, judge), []).append(step.name)
    return names


def _why_left_out(name: str, registry: RegistrySnapshot | None) -> str | None:
    """Why a step model the profile names cannot be asked (its key is not set, or it is a study's judge
    not yet in models.yaml), or None.  Why not an error: the paper profile names the study's judges
    (GPT-4), and a run of the user's own models without an OpenAI key should still run, judging nothing
    rather than judging with another model than the study's."""
    spec = registry.specs.get(name) if registry is not None else None
    if spec is None:
        study = next((m.study for m in study_models(ALL) if m.name == name), None)
        return None if study is None else f"not in models.yaml (relreason models add --study {study})"
    env = missing_key(spec)
    return f"its key {env} is not set" if env else None


def run_families(
    profile: str, sections: Mapping[str, Any], benchmarks: Sequence[str] | None
) -> tuple[str, ...]:
    """The families a launch runs: ``benchmarks``, or every registered family the profile has a section
    for; a benchmark the profile has no section for is one line."""
    names = list(benchmarks or [name for name in FAMILIES if name in sections])
    for name in names:
        get_family(name)  # a ConfigError naming the known ones
        if name not in sections:
            raise ConfigError(
                f"profile {profile!r} has no settings for benchmark {name!r}; "
                f"add a {name!r} section to it in your profile file (relreason.yaml or --profile-file)"
            )
    return tuple(names)


def prompt_budgets(
    profile: str, sections: Mapping[str, Mapping[str, Any]], families: Sequence[str]
) -> dict[str, dict[int, int]]:
    """Per family of the launch that states them (``prompt_budgets(profile)``), per prompt length the
    most tokens a prompt needs with its reply: what a model's context window must hold."""
    out = {}
    for family in families:
        budgets = getattr(get_family(family), "prompt_budgets", None)
        if budgets is not None:
            section = Profile(profile, dict(sections.get(family, {})), profiles.family_knobs(family))
            out[family] = dict(budgets(section))
    return out


def build_plan(
    models: Sequence[str],
    *,
    profile: str = profiles.DEFAULT_PROFILE,
    benchmarks: Sequence[str] | None = None,
    seed: int = profiles.DEFAULT_SEED,
    judge: str | None = None,
    samples: int | None = None,
    limit: int | None = None,
    model_options: Mapping[str, Any] | None = None,
    dlm_train_size: int | None = None,
    models_file: str | Path | None = None,
    batch: BatchChoice | None = None,
    skip_too_long: bool = False,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
    steps_over_stored: bool = False,
    dry_run: bool = False,
) -> LaunchPlan:
    """The launch's plan: every check that needs no model call, made once; a problem is one line.

    ``overrides``: single knobs of the profile's sections changed for this launch (a command's options,
    ``{family: {knob: value}}``), laid over the sections the plan carries.  ``steps_over_stored``: the
    launch runs the across-models steps over stored answers (`relreason selfcontra detect`, a judge run
    started from the UI), so their models are resolved even with no LLM to run, and each must be
    askable (its key set), as a ``--judge`` model must.  ``dry_run``: nothing will be called, so no key is
    required (the dry run says which are missing; a step model a run would leave out is still resolved,
    for the estimate to price) and a window too small for the prompts is a note, not a stop.

    Nothing is written: the home, the lake and Dagster's instance are untouched.
    """
    check_counts(samples, limit)
    sections = _with_overrides(profiles.resolve(profile), overrides)  # a bad profile: one line
    families = run_families(profile, sections, benchmarks)
    models = list(dict.fromkeys(models))
    baselines = baseline_names()
    baseline_tasks: dict[str, tuple[str, ...]] = {}
    for model in (m for m in models if m in baselines):
        family = baseline_family(model)
        if benchmarks and family not in benchmarks:
            raise ConfigError(f"the {model} model needs the {family} benchmark; add --benchmark {family}")
        section = Profile(profile, dict(sections.get(family, {})), profiles.family_knobs(family))
        baseline_tasks[model] = tuple(get_baseline(model).tasks(section, dlm_train_size))
    if dlm_train_size is not None and not baseline_tasks:
        raise ConfigError(f"--train-size applies to a baseline model only ({', '.join(baselines)})")
    path = Path(models_file) if models_file else paths.models_path()
    llms = [m for m in models if m not in baselines]
    registry = snapshot_registry(path) if llms or judge or steps_over_stored else None
    if registry is not None:  # a swept entry's own name runs every level (llm/sweeps.py)
        models = expand_names(models, registry.specs)
        llms = [m for m in models if m not in baselines]
    options = dict(model_options or {})
    checked: dict[str, ModelEntry] = {}
    batch_notes: list[str] = []
    batch_live: list[str] = []

    def resolved(name: str) -> ModelEntry:
        """The model resolved, its key, provider and budget checked (once per name)."""
        if name not in checked:
            spec = resolve_model(path, name, options, registry=registry)
            if batch is not None:
                said = len(batch_notes)
                spec = batch.apply(spec, batch_notes)
                batch_live.extend([name] if len(batch_notes) > said else [])
            if not dry_run:  # a dry run calls nothing: it lists a model whose key is missing
                require_api_key(spec)
            check_at_the_door(spec)
            checked[name] = spec
        return checked[name]

    specs = tuple(resolved(name) for name in llms)
    asked = _step_models(families, sections, profile, judge) if specs or steps_over_stored else {}
    step_specs, left_out, why = [], [], []
    for name, steps in asked.items():
        # --judge M (or steps over stored answers): M's key is required.
        reason = None if judge or steps_over_stored else _why_left_out(name, registry)
        if reason is None or (dry_run and registry is not None and name in registry.specs):
            step_specs.append(resolved(name))  # a dry run prices what a run would leave out, and says so
        if reason is not None:
            left_out.extend(steps)
            why.append(f"{', '.join(steps)} ({name}: {reason})")
    notes = (f"relreason: left out, judging nothing: {'; '.join(why)}",) if why else ()
    notes += tuple(batch_notes)
    if any(context_window(spec)[0] is not None for spec in specs):  # the budgets only when they are read
        budgets = prompt_budgets(profile, sections, families)
        notes += check_windows(specs, budgets, skip_too_long, dry_run=dry_run)
    return LaunchPlan(
        models=tuple(models),
        profile=profile,
        sections=sections,
        families=families,
        benchmarks=tuple(benchmarks or ()),
        seed=seed,
        specs=specs,
        step_specs=tuple(step_specs),
        step_models={step: name for name, steps in asked.items() for step in steps},
        baseline_tasks=baseline_tasks,
        registry=registry,
        dlm_train_size=dlm_train_size,
        judge=judge,
        samples=samples,
        limit=limit,
        model_options=options,
        left_out_steps=tuple(left_out),
        notes=notes,
        skip_too_long=skip_too_long,
        batch_live=tuple(batch_live),
    )


def _with_overrides(
    sections: dict[str, dict[str, Any]], overrides: Mapping[str, Mapping[str, Any]] | None
) -> dict[str, dict[str, Any]]:
    """The profile's sections with a launch's changes to single knobs laid over them (each knob is
    checked against the family's ``Knobs`` where the section is read, as every knob is).  A family the
    profile has no section for gets none: the launch does not run it (:func:`run_families` says so)."""
    for family, changed in (overrides or {}).items():
        if changed and family in sections:
            sections[family] = {**sections[family], **copy.deepcopy(dict(changed))}
    return sections


def spec_record(spec: ModelEntry) -> dict[str, Any]:
    """A spec as plain values (what a run's settings carry); :func:`spec_from_record` reads it back."""
    return spec.model_dump()


def spec_from_record(record: Mapping[str, Any]) -> ModelEntry:
    """The spec :func:`spec_record` made ``record`` of (a copy: the record stays as it was)."""
    return ModelEntry(**copy.deepcopy(dict(record)))
