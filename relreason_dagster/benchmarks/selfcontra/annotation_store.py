"""Storing imported Self-Contra annotations in ``raw.annotations`` (the family's own raw table).

The CLI (`relreason selfcontra import-annotations`) and the ``selfcontra_annotations``
asset both read with :func:`read_annotation_files` and store with :func:`store_batch`, so a
file imported either way gives the same rows, and a file skipped either way is skipped for
the same reason.  A file is one unit: re-importing it replaces its rows (a later
``--limit`` or a corrected CSV never leaves stale labels behind).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.base import stable_hash
from relreason_dagster.benchmarks.selfcontra.annotations import AnnotationBatch, ImportResult
from relreason_dagster.common.duckdb_rows import replace_rows


def annotation_id(source: str, row_number: int) -> str:
    return stable_hash("annotation", source, row_number)


def annotation_rows(result: ImportResult) -> list[dict[str, Any]]:
    """``raw.annotations`` rows of one imported file."""
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    return [
        {
            "annotation_id": annotation_id(row.source, row.row_number),
            "source": row.source,
            "row_number": row.row_number,
            "dataset": row.dataset,
            "split": row.split,
            "model": row.model,
            "setting": row.setting,
            "question": row.question,
            "response": row.response,
            "correct": row.correct,
            "self_contra": row.self_contra,
            "type": row.type,
            "categories": json.dumps(row.categories),
            # An exported-then-filled CSV names the response it labels.
            "prompt_id": (row.raw.get("prompt_id") or row.raw.get("response_id") or None),
            "raw": json.dumps(row.raw),
            "notes": json.dumps(row.notes),
            "imported_at": now,
        }
        for row in result.rows
    ]


def store_import(con: Any, result: ImportResult) -> int:
    """Replace the stored rows of ``result``'s file with its rows; returns how many were stored.

    A file that now has no annotated row still replaces its old rows, so emptying a file (or a re-import
    with a stricter reader) never leaves stale labels behind.
    """
    return replace_rows(con, "annotations", annotation_rows(result), "source = ?", [Path(result.path).name])


def store_batch(con: Any, batch: AnnotationBatch) -> int:
    """Store every imported file of ``batch`` (skipped files are left as they were); returns the row count."""
    return sum(store_import(con, result) for result in batch.results)
