"""Which DLMs a profile trains: tasks, seeds, training samples, config, and the id that names each.

The study trains DLM on *the same ten few-shot samples the LLM prompts show*,
so the training set is read from the stored ``fewshot`` split; a larger
``dlm_train_size`` extends it with further samples of the same seeded stream
(``make_sample(task, "fewshot", i, ...)`` for ``i`` beyond the stored ones),
so the first ten stay those of the prompts.  A run id hashes everything that
changes the trained weights, so an unchanged (config, seed, training set)
reuses its checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from relreason_dagster.benchmarks.base import Profile, Sample, stable_hash
from relreason_dagster.benchmarks.relational.dlm.config import RECIPES, DLMConfig, config_for, default_recipe
from relreason_dagster.benchmarks.relational.generate import make_sample
from relreason_dagster.benchmarks.relational.profile_schema import Knobs
from relreason_dagster.benchmarks.relational.tasks import TASKS, task_spec
from relreason_dagster.errors import ConfigError

DLM_MODEL = "dlm"  # the model name DLM answers carry in parsed_answers
DLM_SETTING = "dlm"  # their setting: truth-value matrices in, truth values out
DEFAULT = "default"  # in ``dlm_recipes``: each task's default recipe (dlm.config.default_recipe)
# The setting of a recipe's answers: the default recipes answer as ``dlm`` (what the marts always showed),
# any other named recipe as ``dlm_<recipe>`` so that the two are separate cells of every mart.
IMPLEMENTATION = "dlm-impl-4"  # bump when model/training code changes what a seed trains


@dataclass(frozen=True)
class DLMRun:
    """One (task, seed) training job."""

    task: str
    seed: int
    config: DLMConfig
    train: tuple[Sample, ...]
    run_id: str
    recipe: str = ""  # the recipe's name in dlm.config.RECIPES (the task's default one included)
    setting: str = DLM_SETTING  # the setting its answers carry: ``dlm`` for the default recipes

    def checkpoint_path(self, home: Path) -> Path:
        return home / "dlm" / self.task / f"{self.run_id}.pt"


@dataclass(frozen=True)
class DLMSettings:
    """The DLM part of a relational profile."""

    tasks: tuple[str, ...]
    seeds: tuple[int, ...]
    train_size: int | None  # None: exactly the profile's few-shot samples
    overrides: dict[str, Any]
    recipe: str | None = None  # a name in dlm.config.RECIPES (None: each task's default); overrides on top
    # Several recipes side by side (``dlm_recipes``; "default" is each task's default), each with its own
    # overrides on top of ``overrides`` (``dlm_recipe_overrides``, e.g. the paper profile's cap on
    # study-protocol).  Empty: the one ``recipe`` above.
    recipes: tuple[str | None, ...] = ()
    recipe_overrides: dict[str, dict[str, Any]] | None = None


def dlm_settings(profile: Profile, train_size: int | None = None) -> DLMSettings:
    """Read ``dlm_*`` keys of a relational profile; ``train_size`` (the CLI flag) wins over the profile."""
    tasks = tuple(profile.typed(Knobs).dlm_tasks or TASKS)
    for task in tasks:
        task_spec(task)
    seeds = tuple(profile.typed(Knobs).dlm_seeds)
    if not seeds:
        raise ConfigError("dlm_seeds is empty; give at least one seed")
    size = train_size if train_size else profile.typed(Knobs).dlm_train_size
    if size is not None and size < 1:
        raise ConfigError(f"DLM train size must be ≥ 1, got {size}")
    overrides = dict(profile.typed(Knobs).dlm_overrides)
    DLMConfig.from_dict(overrides)  # unknown keys fail here, with the known ones named
    recipe = profile.typed(Knobs).dlm_recipe or None
    if recipe is not None and recipe not in RECIPES:
        raise ConfigError(f"unknown dlm_recipe {recipe!r}; known: {', '.join(RECIPES)}")
    recipes: list[str | None] = []
    for name in profile.typed(Knobs).dlm_recipes or []:
        if name != DEFAULT and name not in RECIPES:
            known = ", ".join([DEFAULT, *RECIPES])
            raise ConfigError(f"unknown recipe {name!r} in dlm_recipes; known: {known}")
        recipes.append(None if name == DEFAULT else name)
    per_recipe = {k: dict(v or {}) for k, v in (profile.typed(Knobs).dlm_recipe_overrides or {}).items()}
    for name, values in per_recipe.items():
        if name not in RECIPES:
            raise ConfigError(f"unknown recipe {name!r} in dlm_recipe_overrides; known: {', '.join(RECIPES)}")
        DLMConfig.from_dict(values)
    return DLMSettings(tasks, seeds, size, overrides, recipe, tuple(recipes), per_recipe)


def recipe_setting(recipe: str | None) -> str:
    """The setting a recipe's answers carry: ``dlm`` for the tasks' defaults, ``dlm_<name>`` otherwise."""
    return DLM_SETTING if recipe is None else f"{DLM_SETTING}_{recipe.replace('-', '_')}"


def training_samples(
    task: str, fewshot: list[Sample], size: int | None, profile: Profile, run_seed: int
) -> tuple[Sample, ...]:
    """The stored few-shot samples in prompt order, extended to ``size`` from the same seeded stream."""
    ordered = sorted(fewshot, key=lambda s: int(s.input["index"]))
    if not ordered:
        raise ConfigError(
            f"no relational few-shot samples of {task} stored; materialize `samples` with the relational "
            "benchmark first"
        )
    size = size or len(ordered)
    n = int(ordered[0].input["n"])
    variant = profile.typed(Knobs).family_tree_variant
    extra = [make_sample(task, "fewshot", i, n, run_seed, variant) for i in range(len(ordered), size)]
    return tuple((ordered + extra)[:size])


def plan_runs(
    task: str, fewshot: list[Sample], profile: Profile, run_seed: int, train_size: int | None = None
) -> list[DLMRun]:
    """One ``DLMRun`` per seed of the profile for ``task``."""
    settings = dlm_settings(profile, train_size)
    train = training_samples(task, fewshot, settings.train_size, profile, run_seed)
    ids = [s.sample_id for s in train]
    if not settings.recipes:  # one recipe: its answers are the `dlm` setting whatever it is named
        choices: list[tuple[str | None, str]] = [(settings.recipe, DLM_SETTING)]
    else:
        choices = [(name, recipe_setting(name)) for name in settings.recipes]
    runs = []
    for recipe, setting in choices:
        extra = (settings.recipe_overrides or {}).get(recipe or "", {})
        config = config_for(task, {**settings.overrides, **extra}, recipe)
        runs += [
            DLMRun(
                task=task,
                seed=seed,
                config=config,
                train=train,
                run_id=stable_hash(IMPLEMENTATION, torch.__version__, task, config.to_dict(), seed, ids),
                recipe=recipe or default_recipe(task),
                setting=setting,
            )
            for seed in settings.seeds
        ]
    return runs
