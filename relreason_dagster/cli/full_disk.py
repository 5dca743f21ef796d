"""A full disk is one line in every command, said once however many steps or readers hit it.

The test of whether an error is a full disk lives with storage (``storage/disk_space.py``); what
the CLI prints for it, and that it prints it once per command, lives here.
"""

from __future__ import annotations

import sys

from relreason_dagster.storage.disk_space import no_space, no_space_line

SAID: set[str] = set()  # lines said once per command, however many steps or readers hit the cause


def say_no_space() -> None:
    """The full-disk line, naming the fullest place a run writes to; once per command."""
    line = f"relreason: {no_space_line()}"
    if line not in SAID:
        SAID.add(line)
        print(line, file=sys.stderr)


def report_no_space(exc: BaseException) -> bool:
    """Print the one line of a full disk if ``exc`` is one (then the caller exits 1); else False."""
    if not no_space(exc):
        return False
    say_no_space()
    return True
