"""The `relreason` command: demo, run, models, sql, samples, export, status, ui, worker, report, and
each benchmark family's own commands (registered by its ``commands.py``, see ``cli/context.py``).

A package so each part stays small and is found by what it holds: the entry point (``entry.py``),
the parser and the order commands register in (``parser.py``), one module per built-in command
(``commands/``), and the helpers they share (options, output, the results file, the run's
summary, a full disk, process groups).  Bad input ends in one line on stderr and exit status 2,
never a traceback.

``main`` is the console script's entry point (``relreason = "relreason_dagster.cli:main"``).
"""

from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.entry import main

__all__ = ["CommandContext", "main"]
