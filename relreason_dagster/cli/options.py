"""The options several commands share and the argparse types that make a bad value one line.

Held apart from the commands so `run`, `demo`, `status`, `ui`, `worker` and the families' commands
(through ``CommandContext``) read ``--profile``, ``--seed`` and the launch options the same way.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

from relreason_dagster import env, profiles

VERBOSE_HELP = "also print Dagster's and LiteLLM's lines below WARNING (a run's DEBUG engine events)"


def coerce(value: str) -> Any:
    """A command-line VALUE as the number or boolean it spells, else the text (``--param``, ``-M``)."""
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(value.lower(), value)


def positive_int(value: str) -> int:
    """An argparse ``type``: 0, a negative or a word is one line naming the option, not a traceback."""
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value!r}")
    return number


def bounded(most: int, what: str) -> Callable[[str], int]:
    """An argparse ``type``: a positive integer of at most ``most`` (``what`` names the unit)."""

    def check(value: str) -> int:
        number = positive_int(value)
        if number > most:
            raise argparse.ArgumentTypeError(f"at most {most:,} {what}, got {value}; ask for fewer")
        return number

    return check


def add_profile_options(p: argparse.ArgumentParser) -> None:
    """``--profile``, ``--profile-file`` and ``--seed``: every command that reads a profile takes these."""
    p.add_argument(
        "--profile",
        default=os.environ.get("RELREASON_PROFILE", profiles.DEFAULT_PROFILE),
        help="size profile: smoke, paper, or one of the profile file's (default: smoke)",
    )
    p.add_argument(
        "--profile-file",
        default=None,
        metavar="PATH",
        help="YAML file of user profiles (default: $RELREASON_PROFILES, else ./relreason.yaml)",
    )
    p.add_argument("--seed", type=int, default=profiles.DEFAULT_SEED)


def positive_float(value: str) -> float:
    """An argparse ``type`` for seconds: a positive number, else one line naming the option."""
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not number > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {value!r}")
    return number


def add_lock_wait_option(p: argparse.ArgumentParser) -> None:
    """``--lock-wait``: a reader or a launch waits this long for another process's DuckDB lock."""
    p.add_argument(
        "--lock-wait",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="how long to wait while another process holds the DuckDB file (default 900)",
    )


def add_launch_options(p: argparse.ArgumentParser) -> None:
    """How a launch runs (not what it computes: none of these changes a result or the launch record)."""
    p.add_argument(
        "--max-runs",
        type=positive_int,
        default=None,
        metavar="N",
        help="model and DLM task runs kept going at once, each in a process of its own (default 4)",
    )
    p.add_argument(
        "--max-steps",
        type=positive_int,
        default=None,
        metavar="N",
        help="multiprocess executor: run each step in a process of its own, N of a run at once "
        "(default: a run's steps one after another inside its run's process)",
    )
    p.add_argument(
        "--dlm-workers",
        type=positive_int,
        default=None,
        metavar="N",
        help="DLM trainings at once on this machine, however many runs start them (default: the CPU count)",
    )
    add_lock_wait_option(p)


def launch_options(args: argparse.Namespace) -> Any:
    """The parsed launch options as the pipeline takes them."""
    from relreason_dagster.pipeline import LaunchOptions

    return LaunchOptions(
        max_runs=getattr(args, "max_runs", None),
        max_steps=getattr(args, "max_steps", None),
        dlm_workers=getattr(args, "dlm_workers", None),
        lock_wait_s=getattr(args, "lock_wait", None),
        verbose=env.verbose(),
    )
