"""A full disk is one line in every command, said once however many steps or readers hit it.

The test of whether an error is a full disk lives with storage (``storage/disk_space.py``); what
the CLI prints for it, and that it prints it once per command, lives here.
"""

from __future__ import annotations

import sys

SAID: set[str] = set()  # lines said once per command, however many steps or readers hit the cause


def say_no_space() -> None:
    from relreason_dagster.pipeline import no_space_line

    line = f"relreason: {no_space_line()}"
    if line not in SAID:
        SAID.add(line)
        print(line, file=sys.stderr)


def report_no_space(exc: BaseException) -> bool:
    """Print the one line of a full disk if ``exc`` is one (then the caller exits 1); else False."""
    from relreason_dagster.pipeline import no_space

    if not no_space(exc):
        return False
    say_no_space()
    return True
