"""Where relreason keeps its files: the home, the DuckDB file, the lake, the model registry, the
studies' reference data.

A leaf module (it imports nothing of the package but ``errors``) so that every layer, a family
included, can ask where a file is without pulling in profiles, the registry or Dagster. Everything a
run writes lives under ``RELREASON_HOME`` (default ``.relreason`` in the working directory): the
DuckDB file, the lake, DLM checkpoints, Dagster's instance folder.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from relreason_dagster.errors import ConfigError

PACKAGE_ROOT = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_ROOT.parent
DBT_PROJECT_DIR = REPO_ROOT / "dbt_project"

_WRITABLE_HOMES: set[Path] = set()


def relreason_home_path() -> Path:
    """Where ``RELREASON_HOME`` is, without creating it (``relreason status`` only looks)."""
    return Path(os.environ.get("RELREASON_HOME", ".relreason")).expanduser().resolve()


def relreason_home() -> Path:
    """``RELREASON_HOME``, created if needed; an unwritable one is a ConfigError."""
    home = relreason_home_path()
    if home in _WRITABLE_HOMES:
        return home
    try:
        home.mkdir(parents=True, exist_ok=True)
        # A probe file of its own: runs in several threads and processes check the same home at once.
        with tempfile.NamedTemporaryFile(dir=home, prefix=".write-test-"):
            pass
        _WRITABLE_HOMES.add(home)
    except OSError as exc:
        raise ConfigError(
            f"RELREASON_HOME={home} is not writable ({exc.strerror}); set RELREASON_HOME to a writable folder"
        ) from None
    return home


# The results file's name inside RELREASON_HOME (readers find it without creating the home).
DUCKDB_NAME = "relreason.duckdb"


def imports_dir() -> Path:
    """Data a user imported for a family (e.g. `relreason flenqa import`), ``$RELREASON_HOME/imports``:
    an input of every family's samples (``storage/built_from.py`` hashes its listing), so an import
    rebuilds the samples that read it instead of keeping stale ones."""
    return relreason_home_path() / "imports"


def duckdb_path() -> Path:
    return relreason_home() / DUCKDB_NAME


def lake_url() -> str:
    """Where model output is written as Parquet: ``RELREASON_LAKE`` (a path or a URL that every
    worker can reach, e.g. ``s3://bucket/relreason``), default ``$RELREASON_HOME/lake``."""
    return os.environ.get("RELREASON_LAKE") or str(relreason_home() / "lake")


def models_path() -> Path:
    """The model registry file: ``RELREASON_MODELS`` or ``models.yaml`` in the repo."""
    return Path(os.environ.get("RELREASON_MODELS", REPO_ROOT / "models.yaml")).expanduser()


def reference_dir() -> Path:
    """The studies' released data (``RELREASON_REFERENCE_DIR``, default ``../shared/reference``)."""
    return Path(os.environ.get("RELREASON_REFERENCE_DIR", REPO_ROOT.parent / "shared" / "reference"))
