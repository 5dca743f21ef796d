"""The family contract's :class:`CommandContext` protocol and the CLI's context that fulfils it.

A family's ``commands.py`` types its context with the protocol (``benchmarks/command_context.py``) so
it names no CLI module, not even for a type hint; this keeps the two from drifting apart: every member
the protocol promises, the CLI's context has, with the same parameters.
"""

from __future__ import annotations

import inspect

from relreason_dagster.benchmarks.command_context import CommandContext
from relreason_dagster.cli import CommandContext as CliContext


def parameters(function: object) -> list[str]:
    return [name for name in inspect.signature(function).parameters if name != "self"]  # type: ignore[arg-type]


def test_the_cli_context_has_every_member_the_protocol_names() -> None:
    promised = {name for name in vars(CommandContext) if not name.startswith("_")}
    assert {"run_steps", "query", "add_run_option"} <= promised  # the scan sees the protocol's members
    missing = sorted(promised - set(dir(CliContext)))
    assert not missing, f"the CLI's CommandContext lacks {missing}"
    differ = {
        name: (parameters(getattr(CommandContext, name)), parameters(getattr(CliContext, name)))
        for name in promised
        if parameters(getattr(CommandContext, name)) != parameters(getattr(CliContext, name))
    }
    assert not differ, f"parameters differ (protocol, CLI): {differ}"
