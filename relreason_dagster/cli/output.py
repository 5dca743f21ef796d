"""What the CLI prints with: a plain aligned table for results, a progress line for what is going on.

Apart from the commands so every command (and a family's, through ``CommandContext``) prints tables
the same way, and so stdout stays the results while progress goes to stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any


def format_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], max_width: int = 60) -> str:
    """A plain aligned text table (no extra dependency, readable in CI logs).

    Cells longer than ``max_width`` are cut with "…"; ``max_width`` 0 cuts nothing and keeps a
    cell's line breaks (a multi-line cell takes several lines, still aligned).
    """

    def cell(v: Any) -> list[str]:
        s = "NULL" if v is None else str(v)
        if max_width <= 0:
            return s.split("\n")
        s = s.replace("\n", " ")
        return [s if len(s) <= max_width else s[: max_width - 1] + "…"]

    body = [[cell(v) for v in row] for row in rows]
    widths = [max([len(c)] + [len(line) for r in body for line in r[i]]) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    sep = "  ".join("-" * w for w in widths)
    out = [line, sep]
    for r in body:
        for k in range(max((len(c) for c in r), default=1)):
            parts = [(c[k] if k < len(c) else "").ljust(w) for c, w in zip(r, widths, strict=True)]
            out.append("  ".join(parts).rstrip())
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)


def say(line: str) -> None:
    """A progress line on stderr, at once (stdout is the results; during a run it holds dbt's log)."""
    print(line, file=sys.stderr, flush=True)
