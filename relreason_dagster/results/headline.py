"""The headline tables `relreason run` and `relreason demo` print at the end: a few per study.

Each family declares its tables in its ``report.py`` (``HEADLINES``), so a run prints the tables of
the families it covered, restricted to the models it ran (the demo: everything), then the shared
ones.  Numbers are rounded to three significant
digits for reading; `relreason sql` / `export` give full precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from relreason_dagster.benchmarks.base import HeadlineTable
from relreason_dagster.benchmarks.registry import family_headlines
from relreason_dagster.results.figures import ordered_families
from relreason_dagster.results.numbers import rounded_row

# The tables every run prints, whatever families it covered.  The cut share comes first: on a small
# token or thinking budget most of the N/A can be answers the budget stopped (issue 55, item 3), and a
# reader of the accuracy tables above should see that before reading a low number as the model's.
CUT_SHARE = HeadlineTable(
    "marts.accuracy (answers cut by the token or thinking budget: finish_reason length, or thinking only)",
    "SELECT benchmark, model, sum(n)::BIGINT AS n, sum(n_na)::BIGINT AS n_na, sum(n_cut)::BIGINT AS n_cut, "
    "printf('cut %d/%d', sum(n_cut)::BIGINT, sum(n)::BIGINT) AS cut "
    "FROM marts.accuracy GROUP BY benchmark, model ORDER BY benchmark, model",
)
SHARED_HEADLINES: tuple[HeadlineTable, ...] = (
    CUT_SHARE,
    HeadlineTable(
        "marts.parse_rate", "SELECT * FROM marts.parse_rate ORDER BY benchmark, model, task, setting"
    ),
)


def headline_specs() -> list[tuple[str | None, HeadlineTable]]:
    """``(family, table)`` of every registered family's headline tables (its ``report.py``'s
    ``HEADLINES``), families in report order, then the shared tables (family None)."""
    found: list[tuple[str | None, HeadlineTable]] = [
        (name, table) for name in ordered_families() for table in family_headlines(name)
    ]
    return found + [(None, table) for table in SHARED_HEADLINES]


@dataclass
class Headline:
    """One printed table: its title, columns and (rounded) rows."""

    title: str
    columns: list[str]
    rows: list[list[Any]]


def headline_tables(
    con: Any, *, models: Sequence[str] | None = None, families: Sequence[str] | None = None
) -> list[Headline]:
    """The headline tables for ``families`` (None: all), rows of ``models`` only (None: all).

    A table whose mart is missing (a family never run in this home), or was built by older code
    without a column the table reads (``n_cut`` before the next build), is left out, not an error.
    """
    import duckdb

    found = []
    for family, table in headline_specs():
        if families is not None and family is not None and family not in families:
            continue
        title = table.title
        try:
            cur = con.execute(table.sql)
        except (duckdb.CatalogException, duckdb.BinderException):
            continue
        columns = [d[0] for d in cur.description]
        rows = cur.fetchall()
        if models is not None and "model" in columns:
            at = columns.index("model")
            rows = [r for r in rows if r[at] in models]
        found.append(Headline(title, columns, [rounded_row(r) for r in rows]))
    return found
