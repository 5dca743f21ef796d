"""``raw.parsed_draws``: the extra draws of ``--samples K`` (draws 1 .. K-1), parsed like draw 0.

Draw 0 of every prompt is the answer ``raw.parsed_answers`` holds, exactly as before draws existed, so
a run with K = 1 writes nothing here and every mart reads what it always read.  The sampling marts
(``dbt_project/models/marts/sampling/``) read both tables: draw 0 from ``parsed_answers``, the rest
from here.  Same parse, same scoring, same reuse rule: a row whose ``parse_key`` (answer, error,
setting, sample, parser code) is unchanged is kept.
"""

from __future__ import annotations

from typing import Any

import duckdb

from relreason_dagster.common.duckdb_rows import fetch_dicts
from relreason_dagster.storage.parsed_answers import (
    parse_response_row,
    parser_fingerprint,
    replace_model_rows,
)
from relreason_dagster.storage.schema import TEST_KIND

_KEYED = f"""
    SELECT r.prompt_id, r.sample_index,
           md5(json_array(?, p.setting, r.content, r.error, s, r.reasoning, r.finish_reason)::VARCHAR)
             AS parse_key
    FROM raw.response_draws r
    JOIN raw.prompts p USING (prompt_id)
    JOIN raw.samples s ON s.sample_id = p.sample_id
    WHERE r.model = ? AND r.sample_index > 0 AND p.kind = '{TEST_KIND}'
"""

# The columns kept per draw: what the sampling marts score (the whole parse lives in draw 0's row).
COLUMNS = (
    "prompt_id",
    "model",
    "sample_index",
    "sample_id",
    "benchmark",
    "task",
    "split",
    "setting",
    "parse_status",
    "parsed",
    "tp",
    "fp",
    "fn",
    "pred_pos",
    "n_cells",
    "correct",
    "parse_key",
)


def refresh_parsed_draws(
    con: duckdb.DuckDBPyConnection, model: str, fingerprint: str | None = None
) -> dict[str, int]:
    """Bring ``model``'s extra draws up to date; counts as :func:`refresh_parsed_answers` gives them."""
    fingerprint = fingerprint or parser_fingerprint()
    con.execute("CREATE OR REPLACE TEMP TABLE _draw_keys AS " + _KEYED, [fingerprint, model])
    try:
        todo = fetch_dicts(
            con,
            """
            SELECT r.prompt_id, r.sample_index, r.content, r.error, r.reasoning, r.finish_reason, p.setting,
                   s.*, k.parse_key
            FROM _draw_keys k
            JOIN raw.response_draws r
              ON r.prompt_id = k.prompt_id AND r.sample_index = k.sample_index AND r.model = ?
            JOIN raw.prompts p ON p.prompt_id = k.prompt_id
            JOIN raw.samples s ON s.sample_id = p.sample_id
            WHERE NOT EXISTS (
                SELECT 1 FROM raw.parsed_draws d
                WHERE d.model = ? AND d.prompt_id = k.prompt_id AND d.sample_index = k.sample_index
                  AND d.parse_key = k.parse_key
            )
            """,
            [model, model],
        )
        rows = []
        for r in todo:
            parsed: dict[str, Any] = {
                **parse_response_row(model, r),
                "sample_index": r["sample_index"],
                "parse_key": r["parse_key"],
            }
            rows.append({c: parsed.get(c) for c in COLUMNS})
        deleted = replace_model_rows(
            con, "parsed_draws", "_draw_keys", ("prompt_id", "sample_index"), model, rows
        )
        total = con.execute("SELECT count(*) FROM _draw_keys").fetchone()
    finally:
        con.execute("DROP TABLE IF EXISTS _draw_keys")
    n_total = int(total[0]) if total else 0
    return {
        "rows": n_total,
        "parsed": len(rows),
        "kept": n_total - len(rows),
        "deleted": deleted,
    }
