"""Dagster resources: the DuckDB file, the run settings (profile, seed, benchmarks) and dbt."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import dagster as dg
from dagster_dbt import DbtCliResource

from relreason_dagster import settings
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.registry import FAMILIES, get_family
from relreason_dagster.errors import ConfigError


class DuckDBFile(dg.ConfigurableResource):
    """The pipeline's DuckDB file: short connections that wait for another process's lock.

    Used instead of dagster-duckdb's resource because steps in several processes (and
    ``relreason sql`` beside them) share the file, and a lock conflict must mean "wait", not "fail".
    """

    database: str

    @contextlib.contextmanager
    def get_connection(self, read_only: bool = False) -> Iterator[Any]:
        from relreason_dagster.storage.duckdb_io import duckdb_session

        with duckdb_session(self.database, read_only=read_only) as con:
            yield con


class RunSettings(dg.ConfigurableResource):
    """What a run generates: the size profile, the seed, the benchmark families, the model registry
    and how many samples DLM trains on.

    Defaults come from the environment (``RELREASON_PROFILE``, ``RELREASON_MODELS``) so
    the CLI and ``dagster dev`` agree; the launchpad can override them per run.
    """

    profile: str = settings.DEFAULT_PROFILE
    seed: int = settings.DEFAULT_SEED
    benchmarks: list[str] = []
    models_file: str = ""
    dlm_train_size: int = 0  # 0: the profile's dlm_train_size (default: its few-shot samples)
    judge: str = ""  # Self-Contra detection judge (a models.yaml name); "": the profile's ``judge``
    detect_limit: int = -1  # annotated responses judged per source file; -1: the profile's detect_limit
    detect_methods: list[str] = []  # detection methods; []: the profile's detect_methods

    def family_names(self) -> list[str]:
        """The selected benchmarks, or every family the profile has settings for.

        A profile without a section for a family does not run it (its defaults are the
        paper-sized grid, which a small custom profile never means).
        """
        in_profile = settings.profile_families(self.profile)
        names = self.benchmarks or [name for name in FAMILIES if name in in_profile]
        for name in names:
            get_family(name)  # a ConfigError naming the known ones
            if name not in in_profile:
                raise ConfigError(
                    f"profile {self.profile!r} has no settings for benchmark {name!r}; "
                    f"add a {name!r} section to it in your profile file (relreason.yaml or --profile-file)"
                )
        return names

    def profile_for(self, family: str) -> Profile:
        return settings.get_profile(self.profile, family)

    def judge_model(self) -> str:
        """The judge of Self-Contra detection: ``judge`` if set, else the selfcontra profile's."""
        judge = self.judge or self.profile_for("selfcontra").get("judge")
        if not judge:
            raise ConfigError(
                f"profile {self.profile!r} names no Self-Contra judge; pass --judge MODEL or set 'judge' "
                "in its selfcontra section"
            )
        return str(judge)

    def detection_plan(self) -> tuple[list[str], int | None]:
        """``(methods, limit)`` of Self-Contra detection: these settings, else the profile's."""
        profile = self.profile_for("selfcontra")
        methods = list(self.detect_methods or profile.get("detect_methods", ["iro", "binary", "fge"]))
        limit = profile.get("detect_limit") if self.detect_limit < 0 else self.detect_limit
        return methods, limit

    def models_path(self) -> str:
        return self.models_file or str(settings.models_path())


def build_resources() -> dict[str, object]:
    """The resources of the one Definitions object, read from the environment at load time."""
    return {
        "duckdb": DuckDBFile(database=str(settings.duckdb_path())),
        "run_settings": RunSettings(
            profile=settings.current_profile_name(),
            models_file=str(settings.models_path()),
        ),
        "dbt": DbtCliResource(
            project_dir=str(settings.DBT_PROJECT_DIR),
            profiles_dir=str(settings.DBT_PROJECT_DIR),
        ),
    }
