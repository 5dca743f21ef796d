"""`relreason ui`: `dagster dev` on 127.0.0.1 with this command's profile, stopped as a whole
process group (``cli/process_group.py``)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from relreason_dagster import paths, profiles
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.options import add_profile_options
from relreason_dagster.cli.process_group import serve_ui


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason ui`."""
    ui = subparsers.add_parser("ui", help="start the Dagster UI on 127.0.0.1")
    ui.set_defaults(handler=cmd_ui)
    add_profile_options(ui)
    ui.add_argument("--port", type=int, default=3000)


def cmd_ui(args: argparse.Namespace) -> int:
    """`relreason ui`: the Dagster UI on 127.0.0.1, with this command's profile as its default."""
    from relreason_dagster.pipeline import prepare_environment

    prepare_environment(args.profile)
    # The UI's definitions load in `dagster dev`'s processes: they take the profile (and its file) this
    # command was given as their default, through that child's environment only.
    child_env = {**os.environ, "RELREASON_PROFILE": args.profile}
    chosen = profiles.profile_file()
    if chosen is not None:
        child_env[profiles.PROFILE_FILE_ENV] = str(chosen)
    cmd = [
        os.path.join(os.path.dirname(sys.executable), "dagster"),
        "dev",
        "-h",
        "127.0.0.1",
        "-p",
        str(args.port),
        "-w",
        str(paths.REPO_ROOT / "workspace.yaml"),
    ]
    print(f"Dagster UI on http://127.0.0.1:{args.port} (Ctrl-C stops it)", flush=True)
    return serve_ui(cmd, child_env)
