"""The command line is a package of small modules whose built-in commands register as families' do.

Issue 48: ``cli.py`` had grown to 1,126 lines (ten commands, process groups, the Celery worker,
output, full-disk handling).  Each piece now sits in a module named after it; these checks keep a
built-in command from being written into the parser by hand again, and a module from regrowing.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from relreason_dagster.cli import commands, parser

MOST_LINES = 400  # issue 48 acceptance 3


def test_every_built_in_command_module_registers_itself():
    found = [
        importlib.import_module(f"{commands.__name__}.{info.name}")
        for info in pkgutil.iter_modules(commands.__path__)
    ]
    assert len(found) >= 9
    assert all(callable(getattr(module, "register", None)) for module in found)
    registered = set(parser.BEFORE_FAMILIES) | set(parser.AFTER_FAMILIES)
    assert set(found) == registered, {m.__name__ for m in set(found) ^ registered}


def test_no_cli_module_exceeds_the_limit():
    folder = Path(parser.__file__).parent
    sizes = {
        str(p.relative_to(folder)): len(p.read_text(encoding="utf-8").splitlines())
        for p in folder.rglob("*.py")
    }
    assert len(sizes) > 10
    assert max(sizes.values()) <= MOST_LINES, {name: n for name, n in sizes.items() if n > MOST_LINES}
