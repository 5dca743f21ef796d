"""The studies' own models: ``relreason models add --study relational|kor|selfcontra|flenqa|all``.

Each family that reproduces a study lists the models its paper evaluated in ``study_models.csv`` in its
folder (found through the registry, so nothing here names a family): the name relreason gives the entry
(``<study>-<model>``, one per study, since two studies ask the same API model with other decoding
parameters), the paper's own name for it, its LiteLLM model string, the decoding parameters the paper
states (JSON; ``{}`` when it states none), the environment variable of its key, an ``api_base`` when the
provider needs one, ``kind`` (``chat`` / ``base``: KOR asks base models three-shot; ``judge``: a model the
study used to label other models' answers, such as Self-Contra's GPT-4, registered as a chat entry that
runs only as a step's judge, never as a benchmark model of a run that names none), ``base_of`` (a
base model's chat model in the list, which KOR-Bench §5 compares it with), ``mapping`` (which
model strings are documented names of the paper's model and which are a choice relreason made, e.g. an
open model served through a provider, and why) and ``source`` (where in the paper the list and the
parameters are).

Adding writes ordinary ``models.yaml`` entries, all in one write (``llm/registry.add_models``); an
entry already there is kept as it is.  A model whose key is not set stays out of runs that take the
registry's models, with one line saying so (:func:`leave_out_missing_keys`); ``relreason run --dry-run``
still lists it with its calls and cost, since nothing is called.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.registry import family_folder, family_names
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import (
    ModelEntry,
    NewModel,
    add_models,
    enabled_models,
    entry_names,
    is_reasoning,
    load_registry,
)
from relreason_dagster.llm.sweeps import level_text

STUDY_MODELS_FILE = "study_models.csv"
COLUMNS = (
    "name",
    "paper_name",
    "litellm_model",
    "params",
    "api_key_env",
    "api_base",
    "kind",
    "base_of",
    "mapping",
    "source",
)
ALL = "all"
JUDGE = "judge"  # a study's judge model: a step's model (a profile names it), not a benchmark model
KINDS = ("chat", "base", JUDGE)


@dataclass(frozen=True)
class StudyModel:
    """One model a study evaluated, as relreason registers it."""

    study: str
    name: str
    paper_name: str
    litellm_model: str
    params: dict[str, Any] = field(default_factory=dict)
    api_key_env: str | None = None
    api_base: str | None = None
    kind: str = "chat"
    base_of: str | None = None  # a base model's chat model in the same list (KOR-Bench §5 pairs them)
    mapping: str = ""
    source: str = ""


def study_files() -> dict[str, Path]:
    """``{family: study_models.csv}`` of every registered family that lists its study's models."""
    out = {}
    for name in family_names():
        path = family_folder(name) / STUDY_MODELS_FILE
        if path.is_file():
            out[name] = path
    return out


def read_study_models(study: str, path: Path) -> list[StudyModel]:
    """The models of ``path``; a malformed row is a one-line error naming the file, line and fix."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise ConfigError(f"{path}: the header must be {','.join(COLUMNS)}")
        out = []
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if not row["name"] or not row["litellm_model"]:
                raise ConfigError(f"{where}: name and litellm_model must not be empty")
            try:
                params = json.loads(row["params"] or "{}")
            except json.JSONDecodeError as exc:
                raise ConfigError(
                    f'{where}: params is not JSON ({exc.msg}); write e.g. {{"temperature": 0}}'
                ) from None
            if not isinstance(params, dict):
                raise ConfigError(f'{where}: params must be a JSON object, e.g. {{"temperature": 0}}')
            if row["kind"] not in KINDS:
                raise ConfigError(f"{where}: kind {row['kind']!r} must be one of {', '.join(KINDS)}")
            if not row["mapping"] or not row["source"]:
                raise ConfigError(
                    f"{where}: say where the model is from (source) and how it is mapped (mapping)"
                )
            out.append(
                StudyModel(
                    study=study,
                    name=row["name"],
                    paper_name=row["paper_name"],
                    litellm_model=row["litellm_model"],
                    params=params,
                    api_key_env=row["api_key_env"] or None,
                    api_base=row["api_base"] or None,
                    kind=row["kind"],
                    base_of=row["base_of"] or None,
                    mapping=row["mapping"],
                    source=row["source"],
                )
            )
    return out


def study_models(which: str) -> list[StudyModel]:
    """The models of study ``which`` (a family name) or of every study (``all``), in file order."""
    files = study_files()
    if which != ALL and which not in files:
        known = ", ".join([*files, ALL]) or "none"
        raise ConfigError(f"no study {which!r} lists its models; --study takes one of: {known}")
    chosen = files if which == ALL else {which: files[which]}
    return [model for study, path in chosen.items() for model in read_study_models(study, path)]


def missing_key(spec: ModelEntry | StudyModel) -> str | None:
    """The environment variable ``spec`` needs and that is not set, or None."""
    env = spec.api_key_env
    return env if env and not os.environ.get(env) else None


def reasons(model: StudyModel) -> bool:
    """Whether a study's model thinks before it answers: its params turn thinking on, or LiteLLM's
    model map (read locally: LITELLM_LOCAL_MODEL_COST_MAP) says it supports reasoning (o1, o3, ...).
    What ``models add --study S --sweep ...`` puts a sweep on: a chat model has no effort to sweep."""
    if is_reasoning(model.kind, model.params):
        return True
    try:
        import litellm

        return bool(litellm.supports_reasoning(model=model.litellm_model))
    except Exception:  # a model LiteLLM does not know: not one we can say reasons
        return False


def add_study(path: Path, which: str, sweep: dict[str, list[Any]] | None = None) -> list[str]:
    """Add every model of ``which`` to the registry at ``path``; one line per model, saying what happened
    (added, already there, and whether its key is set).  ``sweep`` (``--sweep``) goes on the study's
    reasoning models (:func:`reasons`): each becomes one model per level (llm/sweeps.py).

    The new entries go in one write (``llm/registry.add_models``): the file is rewritten once, whole or
    not at all, so a full disk leaves the old file and nothing is said to be added.
    """
    existing = entry_names(load_registry(path)) if path.exists() else []
    models = study_models(which)
    swept = {model.name for model in models if sweep and model.kind != JUDGE and reasons(model)}
    if sweep and not swept:
        raise ConfigError(
            f"--sweep: no model of study {which!r} is a reasoning model, so none has an effort to sweep; "
            "drop --sweep, or add a reasoning model with `relreason models add NAME MODEL --sweep ...`"
        )
    lines, entries = [], []
    for model in models:
        if model.name in existing:
            lines.append(f"{model.name}: already in {path}, kept as it is")
            continue
        entries.append(
            NewModel(
                model.name,
                model.litellm_model,
                params=model.params or None,
                api_base=model.api_base,
                api_key_env=model.api_key_env,
                kind=None if model.kind in ("chat", JUDGE) else model.kind,
                base_of=model.base_of,
                sweep=sweep if model.name in swept else None,
            )
        )
        params = json.dumps(model.params) if model.params else "no decoding parameters stated"
        role = f"{model.study} judge" if model.kind == JUDGE else model.study
        line = f"{model.name}: added ({model.paper_name}, {role}: {model.litellm_model}, {params})"
        if sweep and model.name in swept:
            ((param, levels),) = sweep.items()
            line += f", swept over {param} = {', '.join(map(level_text, levels))} (a model per level)"
        env = missing_key(model)
        if env:
            line += f"; {env} is not set, so runs leave it out until it is"
        lines.append(line)
    add_models(path, entries)
    return lines


def leave_out_missing_keys(names: list[str], specs: dict[str, ModelEntry]) -> tuple[list[str], list[str]]:
    """``names`` without the registry entries whose key is not set, and one line for each left out."""
    kept, said = [], []
    for name in names:
        spec = specs.get(name)
        env = missing_key(spec) if spec is not None else None
        if env:
            said.append(f"relreason: {name} left out: its key {env} is not set (api_key_env in models.yaml)")
        else:
            kept.append(name)
    return kept, said


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def judge_names() -> set[str]:
    """The registry names of the studies' judge models (``kind`` judge in a ``study_models.csv``)."""
    return {model.name for model in study_models(ALL) if model.kind == JUDGE}


def registry_models(path: Path, *, keep_missing_keys: bool = False) -> list[str]:
    """The enabled models of the registry at ``path`` for a run that names none: those whose key is not
    set stay out with one line each, unless ``keep_missing_keys`` (a dry run, which calls nothing, lists
    them and says the key is missing).  A study's judge entry is not among them: it labels the others'
    answers as the profile's judge (Self-Contra's GPT-4), and answering the benchmarks itself would be
    a run the study never made."""
    judges = judge_names()
    specs = {name: spec for name, spec in enabled_models(path).items() if name not in judges}
    if keep_missing_keys:
        for name in specs:
            said_missing_key(name, specs)
        return list(specs)
    kept, said = leave_out_missing_keys(list(specs), specs)
    for line in said:
        _say(line)
    if not kept:
        raise ConfigError(
            f"no model to run: {path} has no enabled model whose key is set; name one with --model"
        )
    return kept


_SAID: set[str] = set()


def said_missing_key(name: str, specs: dict[str, ModelEntry] | None = None) -> bool:
    """For a dry run: whether registry model ``name`` has no key set, saying so once in one line."""
    from relreason_dagster import paths

    spec = (specs if specs is not None else load_registry(paths.models_path())).get(name)
    env = missing_key(spec) if spec is not None else None
    if env and name not in _SAID:
        _SAID.add(name)
        _say(f"relreason: {name}: its key {env} is not set; a run leaves it out (listed, nothing called)")
    return env is not None


def add_study_command(
    path: Path, study: str | None, name: str | None, sweep: dict[str, list[Any]] | None = None
) -> int:
    """``relreason models add --study S [--sweep P=L1,L2]``: add the study's models, a line per model."""
    if not study or name:
        raise ConfigError(
            "relreason models add takes NAME LITELLM_MODEL, or --study "
            f"{'|'.join([*study_files(), ALL])} alone"
        )
    lines = add_study(path, study, sweep)
    for line in lines:
        print(line)
    added = sum(": added (" in line for line in lines)
    print(
        f"{added} of {len(lines)} models added to {path}; `relreason run --profile paper --dry-run` lists "
        "their calls and cost without calling any"
    )
    return 0
