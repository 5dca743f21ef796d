"""Entries whose rows were served by more than one model: what `relreason status` and the report warn of.

Why: an entry names a model as ``models.yaml`` has it (``gpt-4o``), and providers move such an alias
to a new snapshot without notice.  A later run's new rows (more draws, a new profile, prompts that
failed before) are then another model's answers stored under the same name, and every mart pools
them.  Each stored reply keeps the model the provider said answered (``served_model``,
``llm/replies.py``); this module counts the current rows (``raw.response_draws``: the latest row per
prompt, entry and draw, follow-ups included) per entry and served model, and names the entries with
more than one.  Rows without a served model (errors, rows stored before the column, providers that
name none) are not counted: they say nothing either way.
"""

from __future__ import annotations

from typing import Any

VIEW = "raw.response_draws"


def _has_served_column(con: Any) -> bool:
    """Whether the results' view has the column (a file whose views predate it has no served rows)."""
    return bool(
        con.execute(
            "SELECT 1 FROM information_schema.columns WHERE table_catalog = current_database()"
            " AND table_schema = 'raw' AND table_name = 'response_draws' AND column_name = 'served_model'"
        ).fetchall()
    )


def served_counts(con: Any) -> dict[str, list[tuple[str, int]]]:
    """Per entry: its current rows per served model, most rows first (entries with none left out)."""
    if not _has_served_column(con):
        return {}
    found = con.execute(
        f"SELECT model, served_model, count(*) AS n FROM {VIEW} WHERE served_model IS NOT NULL"
        " GROUP BY ALL ORDER BY model, n DESC, served_model"
    ).fetchall()
    out: dict[str, list[tuple[str, int]]] = {}
    for model, served, n in found:
        out.setdefault(model, []).append((served, int(n)))
    return out


def served_line(model: str, counts: list[tuple[str, int]]) -> str:
    """``gpt-x: served by snap-1 (40 rows) and snap-2 (35)``: the entry, then each served model's rows."""
    parts = [
        f"{served} ({n} row{'s' if n != 1 else ''})" if i == 0 else f"{served} ({n})"
        for i, (served, n) in enumerate(counts)
    ]
    listed = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"{model}: served by {listed}"


def mixed_served(con: Any) -> list[str]:
    """One line per entry whose current rows were served by more than one model (none: empty)."""
    return [served_line(model, counts) for model, counts in served_counts(con).items() if len(counts) > 1]
