"""What a family's ``commands.py`` may ask of the CLI: the :class:`CommandContext` protocol.

A family folder may hold ``commands.py`` with ``register(subparsers, context)``, adding its own
subcommands to ``relreason``.  The CLI hands it a context (the CLI's ``CommandContext``, which fulfils
this protocol) rather than being imported, so a family sits below the CLI and the pipeline even in its
type hints: the family contract names what is lent, the CLI lends it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any, Protocol


class CommandContext(Protocol):
    """The `relreason run` parser and the generic helpers the CLI lends a family's commands."""

    def add_run_option(self, flag: str, *, keyword: str, **kwargs: Any) -> None:
        """An option of `relreason run` whose value is passed on as ``build_plan(keyword=value)``."""
        ...

    def add_report_option(self, flag: str, *, apply: Callable[[Any], None], **kwargs: Any) -> None:
        """An option of `relreason report`; ``apply(value)`` runs before the report is built."""
        ...

    def add_profile_options(self, parser: argparse.ArgumentParser) -> None:
        """``--profile``, ``--profile-file`` and ``--seed`` on ``parser``, as `relreason run` has them."""
        ...

    def positive_int(self, value: str) -> int:
        """An argparse ``type``: a bad value is one line naming the option."""
        ...

    def format_table(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 60) -> str:
        """Rows as the CLI prints its tables."""
        ...

    def query(self, sql: str, params: list[Any]) -> tuple[list[str], list[tuple]]:
        """``sql`` on the results, read-only (a run may be writing them): column names and rows."""
        ...

    def writable_db(self) -> Any:
        """The results file opened for writing (a DuckDB connection); a running pipeline holding it is
        one line naming the fix."""
        ...

    def print_report(self, report: Any, seconds: float) -> None:
        """What a pipeline launch did: model calls, checks, dbt tests, failures."""
        ...

    def run_steps(self, family: str, **kwargs: Any) -> Any:
        """Launch a family's steps (and the marts) without the benchmark models; the pipeline's report."""
        ...
