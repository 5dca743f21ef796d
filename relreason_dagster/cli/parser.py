"""The `relreason` parser: the top-level options, then every command registered in turn.

Built-in commands (``cli/commands/``) and a family's ``commands.py`` register the same way,
``register(subparsers, context)``; this module only fixes their order (the one `relreason --help`
shows), so it names no family and a new command needs no edit beyond its own module and the list.
"""

from __future__ import annotations

import argparse
import sys
from types import ModuleType

from relreason_dagster.cli.commands import dbt, export, models, report, run, samples, sql, status, ui, worker
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.options import VERBOSE_HELP

# `run` first: it sets the `run` parser that the commands after it add options to.
BEFORE_FAMILIES: tuple[ModuleType, ...] = (run, models)
AFTER_FAMILIES: tuple[ModuleType, ...] = (sql, samples, export, status, worker, ui, report, dbt)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the fix (no usage dump)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: {message} (see `{self.prog} --help`)\n")
        sys.exit(2)


def family_command_modules() -> list[ModuleType]:
    """The ``commands`` module of every registered family that has one, in family-name order.

    Found in the family's folder by the registry, like its ``steps.py`` and ``checks.py``: a family
    registered later, e.g. a test's toy family, brings its commands with it.
    """
    from relreason_dagster.benchmarks.registry import family_module, family_names

    return [module for name in family_names() if (module := family_module(name, "commands")) is not None]


def command_modules() -> list[ModuleType]:
    """Every module that registers commands, in the order they register: built-ins, families, built-ins."""
    return [*BEFORE_FAMILIES, *family_command_modules(), *AFTER_FAMILIES]


def build_parser() -> argparse.ArgumentParser:
    """Every command's parser; building it loads no Dagster (the handlers import what they run)."""
    parser = _Parser(prog="relreason", description="Measure how well language models reason.")
    parser.add_argument("-v", "--verbose", action="store_true", help=VERBOSE_HELP)
    sub = parser.add_subparsers(dest="cmd", required=True)
    context = CommandContext()
    for module in command_modules():
        module.register(sub, context)
    return parser
