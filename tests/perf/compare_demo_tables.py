"""Compare the result tables two `relreason demo` runs printed: the numbers of every table both print.

Why: a change that adds truth (a column such as ``n_cut``, a new table) must change no number a run
printed before; issue 55 (cut answers) and issue 59 (one typed plan) ask for "the demo's printed numbers
before and after are equal".  The tables are read from the demo's stdout (``== marts.<name> ==``, a
header, a rule of dashes, rows, ``(N rows)``); columns only one side has are listed, not compared.

    RELREASON_HOME=/tmp/before make demo > before.log   # in a checkout of the older commit
    RELREASON_HOME=/tmp/after make demo > after.log     # in this one
    python tests/perf/compare_demo_tables.py before.log after.log

Exit status 0 when every shared table holds the same rows in its shared columns, 1 otherwise.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

Table = tuple[list[str], list[list[str]]]


def read_tables(text: str) -> dict[str, Table]:
    """Every printed table by its mart name: column names and rows, cut at the rule's column spans."""
    lines = text.splitlines()
    out: dict[str, Table] = {}
    i = 0
    while i < len(lines):
        title = re.match(r"^== (\S+)", lines[i])
        rule = lines[i + 2] if i + 2 < len(lines) else ""
        if not (title and rule.strip() and set(rule.replace(" ", "")) == {"-"}):
            i += 1
            continue
        starts = [m.start() for m in re.finditer(r"-+", rule)]
        bounds = list(zip(starts, [*starts[1:], None], strict=True))
        columns = [lines[i + 1][a:b].strip() for a, b in bounds]
        rows, j = [], i + 3
        while j < len(lines) and lines[j].strip() and not re.match(r"==|\(\d+ rows?\)", lines[j]):
            rows.append([lines[j][a:b].strip() for a, b in bounds])
            j += 1
        out[title.group(1)] = (columns, rows)
        i = j
    return out


def compare(before: dict[str, Table], after: dict[str, Table]) -> tuple[list[str], int]:
    """Lines saying how each shared table compares, and how many differ."""
    lines = [
        f"tables: {len(before)} before, {len(after)} after; only before: {sorted(set(before) - set(after))}; "
        f"only after: {sorted(set(after) - set(before))}"
    ]
    differing = 0
    for name in sorted(set(before) & set(after)):
        (cols_b, rows_b), (cols_a, rows_a) = before[name], after[name]
        shared = [c for c in cols_b if c in cols_a]
        kept_b = [tuple(r[cols_b.index(c)] for c in shared) for r in rows_b]
        kept_a = [tuple(r[cols_a.index(c)] for c in shared) for r in rows_a]
        same = kept_b == kept_a
        differing += not same
        added = [c for c in cols_a if c not in cols_b]
        dropped = [c for c in cols_b if c not in cols_a]
        lines.append(
            f"{'same' if same else 'DIFFERENT'}  {name}: {len(rows_b)} -> {len(rows_a)} rows, "
            f"{len(shared)} shared columns; added {added}, dropped {dropped}"
        )
        lines += [f"    before {x}\n    after  {y}" for x, y in zip(kept_b, kept_a, strict=False) if x != y]
    lines.append(f"tables with a different number: {differing}")
    return lines, differing


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: compare_demo_tables.py BEFORE.log AFTER.log", file=sys.stderr)
        return 2
    before, after = (read_tables(Path(p).read_text(errors="replace")) for p in argv)
    lines, differing = compare(before, after)
    print("\n".join(lines))
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
