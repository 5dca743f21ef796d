"""The benchmark families the pipeline knows, by name: one ``register`` line per family.

A family is its folder plus one line here.  Beside ``family.py`` the folder may hold, by name:
``steps.py`` (``STEPS``: its follow-up steps), ``checks.py`` (``QUALITY``: bounds of the shared
checks; ``CHECKS``: checks of its own), ``profiles.yaml`` and ``profile_schema.py``, ``report.py``
(``SECTIONS`` and ``HEADLINES``: what the report and a run's closing tables show of it;
``TRACE_FIGURES``: its figures in the report's "Reasoning traces" section),
``published.csv`` (its study's published numbers), ``baseline.py`` (``BASELINES``: models that are
not LLMs, e.g. the relational study's DLM) and ``tables.py`` (``RAW_TABLES``: tables of schema
``raw`` it owns); the functions at the end of this module find them.  A family from outside the
package (a toy family in a test, a user's own) is registered the same way, ``register(MyFamily())``,
or, so that the pipeline's child processes see it too, by an installed package declaring it as an
entry point of the group ``relreason.families`` (``name = "package.module:Attribute"``, the
attribute a family instance or a class to instantiate): every process imports the installed
families when this module loads, before the definitions are built from the registered families.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from relreason_dagster.benchmarks.base import (
    Baseline,
    BenchmarkFamily,
    FamilyCheck,
    FigureSpec,
    FollowUpStep,
    HeadlineTable,
    QualityBounds,
    ReportSection,
)
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.kor.family import KorFamily
from relreason_dagster.benchmarks.relational.family import RelationalFamily
from relreason_dagster.benchmarks.selfcontra.family import SelfContraFamily
from relreason_dagster.errors import ConfigError

# Installed packages declare their families here (pyproject: [project.entry-points."relreason.families"]).
ENTRY_POINT_GROUP = "relreason.families"

FAMILIES: dict[str, BenchmarkFamily] = {}


def register(family: BenchmarkFamily) -> BenchmarkFamily:
    """Make ``family`` known under ``family.name`` (registering the same name again replaces it)."""
    FAMILIES[family.name] = family
    return family


def unregister(name: str) -> None:
    """Forget family ``name`` (a test that registered a toy family cleans up after itself)."""
    FAMILIES.pop(name, None)


register(RelationalFamily())
register(FlenqaFamily())
register(SelfContraFamily())
register(KorFamily())


def load_family(entry: str) -> BenchmarkFamily:
    """The family ``package.module:Attribute`` names (an instance, or a class called without arguments)."""
    module_name, _, attribute = entry.strip().partition(":")
    try:
        found: Any = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(
            f"family entry point {entry!r} ({ENTRY_POINT_GROUP}): cannot load it ({exc}); "
            "declare package.module:FamilyClass"
        ) from None
    return found() if isinstance(found, type) else found


def register_installed() -> list[str]:
    """Register the families installed packages declare (entry point group ``relreason.families``)."""
    return [register(load_family(point.value)).name for point in entry_points(group=ENTRY_POINT_GROUP)]


register_installed()


def family_names() -> list[str]:
    return sorted(FAMILIES)


def get_family(name: str) -> BenchmarkFamily:
    """The family registered as ``name``; an unknown one is a one-line ConfigError."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise ConfigError(f"unknown benchmark {name!r}; known: {', '.join(family_names())}") from None


def _package(name: str) -> str:
    """The package (folder) family ``name``'s class lives in."""
    return type(get_family(name)).__module__.rpartition(".")[0]


def family_folder(name: str) -> Path:
    """The folder of family ``name`` (where its ``published.csv`` and other data files sit)."""
    module = importlib.import_module(type(get_family(name)).__module__)
    return Path(str(module.__file__)).resolve().parent


def family_module(name: str, part: str) -> ModuleType | None:
    """Module ``part`` of family ``name``'s folder (``steps``, ``checks``); None when it has none."""
    module_name = f"{_package(name)}.{part}"
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise


def family_steps(name: str) -> tuple[FollowUpStep, ...]:
    """The follow-up steps family ``name`` declares in its ``steps.py`` (none without one)."""
    return tuple(getattr(family_module(name, "steps"), "STEPS", ()))


def family_checks(name: str) -> tuple[FamilyCheck, ...]:
    """The data-quality checks of its own family ``name`` declares in its ``checks.py``."""
    return tuple(getattr(family_module(name, "checks"), "CHECKS", ()))


def family_quality(name: str) -> QualityBounds:
    """The bounds family ``name`` sets for the shared checks (defaults when it declares none)."""
    return getattr(family_module(name, "checks"), "QUALITY", None) or QualityBounds()


def family_sections(name: str) -> tuple[ReportSection, ...]:
    """The report sections family ``name`` declares in its ``report.py`` (none without one)."""
    return tuple(getattr(family_module(name, "report"), "SECTIONS", ()))


def family_trace_figures(name: str) -> tuple[FigureSpec, ...]:
    """The figures family ``name`` adds to the report's "Reasoning traces" section (its ``report.py``'s
    ``TRACE_FIGURES``; none without them): drawn only when some model has reasoning traces."""
    return tuple(getattr(family_module(name, "report"), "TRACE_FIGURES", ()))


def family_headlines(name: str) -> tuple[HeadlineTable, ...]:
    """The tables a run covering family ``name`` prints at its end (its ``report.py``'s ``HEADLINES``)."""
    return tuple(getattr(family_module(name, "report"), "HEADLINES", ()))


PUBLISHED_FILE = "published.csv"


def family_published(name: str) -> Path | None:
    """Family ``name``'s published numbers (``published.csv`` in its folder); None when it has none."""
    path = family_folder(name) / PUBLISHED_FILE
    return path if path.is_file() else None


def published_files() -> dict[str, Path]:
    """``{family: published.csv}`` of every registered family that ships its study's numbers."""
    found = {name: family_published(name) for name in family_names()}
    return {name: path for name, path in found.items() if path is not None}


def family_baselines(name: str) -> tuple[Baseline, ...]:
    """The non-LLM baselines family ``name`` declares in its ``baseline.py`` (``BASELINES``)."""
    return tuple(getattr(family_module(name, "baseline"), "BASELINES", ()))


def baseline_names() -> list[str]:
    """The model names of every registered family's baselines (``dlm``): models not in models.yaml."""
    return [b.name for name in family_names() for b in family_baselines(name)]


def get_baseline(model: str) -> Baseline:
    """The baseline answering as ``model``; a name no family declares is a one-line ConfigError."""
    family = baseline_family(model)
    for baseline in family_baselines(family):
        if baseline.name == model:
            return baseline
    raise ConfigError(f"benchmark {family!r} names the baseline {model!r} but its baseline.py has none")


def baseline_family(model: str) -> str:
    """The family whose samples the non-LLM baseline ``model`` trains on: the one that declares it
    in ``baselines`` (the relational family declares the DLM)."""
    for name, family in FAMILIES.items():
        if model in getattr(family, "baselines", ()):
            return name
    raise ConfigError(f"no registered benchmark family declares the baseline model {model!r}")


def family_tables(name: str) -> tuple[dict[str, str], dict[str, list[tuple[str, str]]]]:
    """The raw tables family ``name`` owns (``tables.py``: ``RAW_TABLES`` name -> columns, and
    ``ADDED_COLUMNS`` for columns added after a table first shipped); empty when it has none."""
    module = family_module(name, "tables")
    return dict(getattr(module, "RAW_TABLES", {})), dict(getattr(module, "ADDED_COLUMNS", {}))


def marts_folder(name: str) -> str | None:
    """The marts folder name of family ``name`` (its Dagster group; its marts live in its ``dbt/marts/``)."""
    return getattr(get_family(name), "marts_folder", None)
