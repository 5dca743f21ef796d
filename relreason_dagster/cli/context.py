"""What the CLI lends a family's ``commands.py`` (and its own built-in commands): see :class:`CommandContext`.

A family's folder imports no CLI module at run time: everything it needs from the command line
(the `run` parser, tables, read-only queries, launching steps) reaches it through this object.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import relreason_dagster.cli.options as options
import relreason_dagster.cli.output as output
import relreason_dagster.cli.results_file as results_file
import relreason_dagster.cli.run_report as run_report


@dataclass
class CommandContext:
    """What the CLI lends a family's ``commands.py``: the `relreason run` parser and the generic helpers.

    A family folder may hold ``commands.py`` with ``register(subparsers, context)``: it adds the
    family's own subcommands (each sets ``handler``, a function of the parsed arguments returning the
    exit status) and the options of `relreason run` it reads (:meth:`add_run_option`).  So the CLI
    names no family, and a new family's commands need no edit there.  The built-in commands
    (``cli/commands/``) register the same way; `run` registers first and sets :attr:`run_parser`.
    """

    run_parser: argparse.ArgumentParser | None = None  # set by `relreason run`'s registration
    # build_plan keyword -> attribute of the parsed arguments, for the options families add to `run`.
    run_keywords: dict[str, str] = field(default_factory=dict)
    # Options families add to `relreason report`: (flag, argparse keywords, what to do with the value).
    report_options: list[tuple[str, dict[str, Any], Callable[[Any], None]]] = field(default_factory=list)

    def add_run_option(self, flag: str, *, keyword: str, **kwargs: Any) -> None:
        """An option of `relreason run` whose value is passed on as ``build_plan(keyword=value)``."""
        if self.run_parser is None:
            raise RuntimeError("`relreason run` registers before the commands that add options to it")
        action = self.run_parser.add_argument(flag, **kwargs)
        self.run_keywords[keyword] = action.dest

    def add_report_option(self, flag: str, *, apply: Callable[[Any], None], **kwargs: Any) -> None:
        """An option of `relreason report`: ``apply(value)`` runs before the report is built.

        Kept until `report` registers (it registers after the families), so the family's option sits
        in `relreason report --help` beside the built-in ones."""
        self.report_options.append((flag, kwargs, apply))

    @staticmethod
    def add_profile_options(parser: argparse.ArgumentParser) -> None:
        options.add_profile_options(parser)

    @staticmethod
    def positive_int(value: str) -> int:
        """An argparse ``type``: a bad value is one line naming the option."""
        return options.positive_int(value)

    @staticmethod
    def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 60) -> str:
        return output.format_table(columns, rows, max_width)

    @staticmethod
    def query(sql: str, params: list[Any]) -> tuple[list[str], list[tuple]]:
        """``sql`` on the results, read-only (a run may be writing them)."""
        return results_file.query_params(sql, params)

    @staticmethod
    def writable_db() -> Any:
        """The results file opened for writing; a running pipeline holding it is one line."""
        return results_file.writable_db()

    @staticmethod
    def print_report(report: Any, seconds: float) -> None:
        """What a pipeline launch did: model calls, checks, dbt tests, failures."""
        run_report.print_report(report, seconds)

    @staticmethod
    def run_steps(family: str, **kwargs: Any) -> Any:
        """``pipeline.run_steps``: launch a family's steps (and the marts) without the benchmark models.

        Lent rather than imported so a family's folder stays below the pipeline and the CLI (the
        pipeline, and Dagster with it, load only when a command launches)."""
        from relreason_dagster.pipeline import run_steps

        return run_steps(family, **kwargs)
