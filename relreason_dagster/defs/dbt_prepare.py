"""Preparing the dbt project for the registered families: one explicit step, never an import.

``@dbt_assets`` (``defs/dbt.py``) needs a parsed manifest when its module is imported, and the manifest
must hold every registered family's models, which live in the families' own folders and reach dbt
through links (``defs/dbt_families.py``).  Linking and parsing write into the checkout
(``dbt_project/families/<key>/``, ``dbt_project/target/<key>/``), so they happen here, in
:func:`prepare_dbt_project`, called by whoever is about to load the definitions:

- the CLI, before a launch or `relreason status`/`ui`/`worker` loads them (``pipeline.prepare_environment``),
  and `relreason dbt -- ARGS` before it runs dbt by hand (``cli/commands/dbt.py``);
- the code location's load (``definitions.py``: `dagster dev`, its code server and the run workers
  it starts);
- the test session (``tests/conftest.py``).

A run's step processes (forked from the launcher's forkserver, or started by a Celery worker) import
the definitions after their parent prepared them, so they only read the manifest.  Importing
``defs/dbt.py`` itself only reads the manifest's path (:func:`prepared_manifest`): with none yet, it
fails in one line naming the fix instead of writing into the checkout.

dagster-dbt's own ``prepare_if_dev`` is not used: under ``dagster dev`` it re-parses on every load
with a ``dbt`` looked up on ``PATH``, which a venv that is not activated lacks, and a parse of an
unchanged project only costs start time; :func:`prepare_dbt_project` parses only when the manifest is
missing or older than the project's or the families' dbt files.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from relreason_dagster import paths
from relreason_dagster.defs.dbt_families import (
    FAMILIES_DIR,
    FAMILIES_ENV,
    families_folder,
    family_dbt_folders,
    family_links,
    family_paths,
    parse_lock,
    use_family_models,
)
from relreason_dagster.errors import ConfigError

MANIFEST_NAME = "manifest.json"
# dbt's time stamp at the start of a log line, and how much of a failed parse's output an error keeps.
TIMESTAMP = re.compile(r"^(\x1b\[[0-9;]*m)*\d\d:\d\d:\d\d\s+")
PARSE_ERROR_CHARS = 600


def dbt_executable() -> str:
    """dbt from this interpreter's environment, by path: a venv that is not activated has it off PATH."""
    here = Path(sys.executable).parent / "dbt"
    return str(here) if here.exists() else (shutil.which("dbt") or "dbt")


def manifest_path(project_dir: Path = paths.DBT_PROJECT_DIR) -> Path:
    """Where the manifest of the registered families is (``target/<key>/manifest.json``), whether or
    not it was parsed yet: computed from the registry, nothing is read or written."""
    return project_dir / "target" / Path(families_folder()).name / MANIFEST_NAME


def families_folder_of(manifest: Path) -> str:
    """The generated folder (:data:`FAMILIES_ENV`'s value) the manifest ``target/<key>/`` was parsed with."""
    return f"{FAMILIES_DIR}/{manifest.parent.name}"


def dbt_env(manifest: Path) -> dict[str, str]:
    """This process's environment plus what a ``dbt`` needs to see the families of ``manifest``."""
    return {**os.environ, FAMILIES_ENV: families_folder_of(manifest)}


def prepare_dbt_project(project_dir: Path = paths.DBT_PROJECT_DIR) -> Path:
    """Link the registered families' dbt files and parse the project when its manifest is missing or
    stale; returns the manifest's path.

    Several processes may prepare at once on a fresh checkout (parallel test workers, a CLI beside
    the UI); an exclusive lock on ``target/.parse.lock`` lets one of them link and parse while the
    others wait and then find the manifest current, so no process reads a manifest another is still
    writing.  Each set of families has its own ``target/<key>/`` (the key of its generated folder).
    """
    with parse_lock(project_dir):
        relative, changed, folders = use_family_models(project_dir)
        manifest = project_dir / "target" / Path(relative).name / MANIFEST_NAME
        return _parse_if_stale(project_dir, manifest, folders, force=changed)


def family_models_env(project_dir: Path = paths.DBT_PROJECT_DIR) -> dict[str, str]:
    """The environment for a ``dbt`` started by hand (a test's build), the project prepared first."""
    return dbt_env(prepare_dbt_project(project_dir))


def prepared_manifest(project_dir: Path = paths.DBT_PROJECT_DIR) -> Path:
    """The registered families' manifest, which :func:`prepare_dbt_project` made; without one, a
    one-line :class:`ConfigError` naming the fix (an import writes nothing into the checkout)."""
    manifest = manifest_path(project_dir)
    if not manifest.is_file():
        raise ConfigError(
            f"the dbt project is not prepared for the registered families (no {manifest}): run "
            "`relreason dbt -- parse`, or call relreason_dagster.defs.dbt_prepare.prepare_dbt_project() "
            "before importing relreason_dagster.defs"
        )
    return manifest


def _newest_input(roots: list[Path], skip: set[str]) -> float:
    inputs = {".sql", ".py", ".yml", ".csv"}  # models (SQL and Python), their schemas, and seeds
    newest = 0.0
    for root in roots:
        for path in root.rglob("*"):
            if path.suffix in inputs and not skip.intersection(path.relative_to(root).parts):
                newest = max(newest, path.stat().st_mtime)
    return newest


def _parse_if_stale(project_dir: Path, manifest: Path, family_folders: list[Path], force: bool) -> Path:
    newest = max(
        _newest_input([project_dir], {"target", FAMILIES_DIR}), _newest_input(family_folders, {"__pycache__"})
    )
    if force or not manifest.exists() or manifest.stat().st_mtime < newest:
        done = subprocess.run(
            [
                dbt_executable(),
                "parse",
                "--quiet",
                "--project-dir",
                str(project_dir),
                "--profiles-dir",
                str(project_dir),
                "--target-path",
                str(manifest.parent),
                "--log-path",  # beside the manifest, not in a logs/ folder of its own
                str(manifest.parent),
            ],
            check=False,
            cwd=project_dir,
            env=dbt_env(manifest),
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise ConfigError(_parse_error(manifest, done.stdout + done.stderr))
    return manifest


def _parse_error(manifest: Path, output: str) -> str:
    """dbt's failed parse in one line, a family's file named as itself rather than as its link."""
    rewrite = family_paths(manifest.parent.name, family_links(family_dbt_folders()))
    lines = [TIMESTAMP.sub("", line).strip() for line in rewrite(output).splitlines()]
    said = " ".join(line for line in lines if line and line != "Encountered an error:")
    if len(said) > PARSE_ERROR_CHARS:
        said = said[: PARSE_ERROR_CHARS - 1] + "…"
    fix = "fix the file it names, then `relreason dbt -- parse` checks it"
    return f"dbt cannot parse the project: {said or 'no output'}; {fix}"
