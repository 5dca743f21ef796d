"""`relreason dbt -- ARGS`: dbt itself, in the project the pipeline builds (every family's models).

A bare ``dbt build`` in ``dbt_project/`` sees only the shared models: the families' own live in their
folders and reach dbt through links and an environment variable (``defs/dbt_families.py``).  This
command prepares the project as a launch does (``defs/dbt_prepare.py``), then runs dbt with what the
pipeline's build gets: the families' folder, the project and profiles, and this home's DuckDB file.
dbt's target and logs go to ``$RELREASON_HOME/dbt/by-hand/``, apart from the pipeline's builds and
from the manifest the definitions read; dbt options given after ``--`` (``--target-path``, ``--vars``)
win over these defaults.  dbt names a family's file by its link (``families/<key>/models/...``); its
output is passed through ``dbt_families.family_paths``, so a message points at the file to edit instead.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from relreason_dagster import paths
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.errors import ConfigError

# The environment variable profiles.yml reads the DuckDB file from when no `relreason_duckdb` var is given.
DUCKDB_ENV = "RELREASON_DBT_DUCKDB"
# Where a hand run's target and logs go, under $RELREASON_HOME/dbt.
HAND_RUNS = "by-hand"


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason dbt`."""
    dbt = subparsers.add_parser(
        "dbt",
        help="run dbt in the pipeline's project, every family's models linked in (relreason dbt -- ls)",
        description="Run dbt itself on this home's DuckDB file, e.g. `relreason dbt -- ls`, "
        "`relreason dbt -- build --select +accuracy`.  A bare `dbt` in dbt_project/ lacks the "
        "families' models.",
    )
    dbt.set_defaults(handler=cmd_dbt)
    dbt.add_argument("dbt_args", nargs=argparse.REMAINDER, help="dbt's own arguments, after --")


def hand_run_env(manifest: Path) -> dict[str, str]:
    """The environment of a hand-run dbt: the families of ``manifest``, the project and its profiles,
    the home's DuckDB file, and a target and log folder of its own in the home."""
    from relreason_dagster.defs.dbt_prepare import dbt_env

    folder = paths.relreason_home() / "dbt" / HAND_RUNS
    return {
        **dbt_env(manifest),
        "DBT_PROJECT_DIR": str(paths.DBT_PROJECT_DIR),
        "DBT_PROFILES_DIR": str(paths.DBT_PROJECT_DIR),
        "DBT_TARGET_PATH": str(folder),
        "DBT_LOG_PATH": str(folder),
        DUCKDB_ENV: str(paths.duckdb_path()),
    }


def cmd_dbt(args: argparse.Namespace) -> int:
    """`relreason dbt -- ARGS`: prepare the project, then run dbt with ``ARGS``; dbt's exit status."""
    dbt_args = list(args.dbt_args)
    if dbt_args[:1] == ["--"]:
        dbt_args = dbt_args[1:]
    if not dbt_args:
        raise ConfigError("relreason dbt needs dbt's arguments after --, e.g. `relreason dbt -- ls`")
    from relreason_dagster.defs.dbt_families import family_dbt_folders, family_links, family_paths
    from relreason_dagster.defs.dbt_prepare import dbt_executable, prepare_dbt_project

    manifest = prepare_dbt_project()
    rewrite = family_paths(manifest.parent.name, family_links(family_dbt_folders()))
    dbt = subprocess.Popen(
        [dbt_executable(), *dbt_args],
        env=hand_run_env(manifest),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    copies = [
        threading.Thread(target=_copy_lines, args=(pipe, out, rewrite), daemon=True)
        for pipe, out in ((dbt.stdout, sys.stdout), (dbt.stderr, sys.stderr))
    ]
    for copy in copies:
        copy.start()
    try:
        code = dbt.wait()
    except KeyboardInterrupt:  # dbt got the same SIGINT from the terminal: let it stop first
        code = dbt.wait()
    for copy in copies:
        copy.join()
    return code


def _copy_lines(pipe: IO[bytes] | None, out: IO[str], rewrite: Callable[[str], str]) -> None:
    if pipe is None:
        return
    for raw in iter(pipe.readline, b""):
        out.write(rewrite(raw.decode("utf-8", errors="replace")))
        out.flush()
