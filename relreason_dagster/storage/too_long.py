"""The prompts each model left out because they do not fit its context window: written by the model
step to the lake, read into ``raw.too_long`` by the parse step, counted by the marts.

Why in the lake first: the model step runs on any worker that sees the lake and never opens the DuckDB
file; the parse step (which holds it) copies the model's record in.  One small JSON file per model,
``_state/too_long/<model hash>.json`` (a folder the lake's readers never list), rewritten whole by each
pass of the model step (an empty list when nothing was left out, so a model whose window grew, or whose
entry gained ``context_window``, no longer counts prompts it now asks).  Why counted at all: a prompt left
out is not an answer, and an accuracy read without it would be silent about the lengths it lacks.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from typing import Any

from relreason_dagster.storage.lake import Lake

STATE_DIR = "_state/too_long"


def _path(lake: Lake, model: str) -> str:
    return f"{lake.root}/{STATE_DIR}/{hashlib.sha256(model.encode()).hexdigest()[:16]}.json"


def write_left_out(
    lake: Lake,
    model: str,
    window: int | None,
    source: str,
    left: Sequence[tuple[dict[str, Any], int]],
) -> None:
    """Record the prompts ``model`` left out (each row with the tokens it needs), replacing its last
    record; a reader sees the old record or the new one, never half."""
    record = {
        "model": model,
        "context_window": window,
        "window_source": source,
        "prompts": [
            [str(row["prompt_id"]), str(row.get("benchmark") or ""), int(needed)] for row, needed in left
        ],
    }
    path = _path(lake, model)
    lake.fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with lake.fs.open_output_stream(tmp) as f:
        f.write(json.dumps(record).encode("utf-8"))
    lake.fs.move(tmp, path)


def read_left_out(lake: Lake, model: str) -> dict[str, Any] | None:
    """``model``'s last record, or None (no pass recorded one, or it cannot be read)."""
    try:
        with lake.fs.open_input_stream(_path(lake, model)) as f:
            record = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("model") == model else None


def refresh_too_long(con: Any, lake: Lake, model: str) -> int:
    """Replace ``model``'s rows of ``raw.too_long`` with its lake record; the number of rows now held.
    No record (a model step that has not run since this existed): the rows are left as they are."""
    record = read_left_out(lake, model)
    if record is None:
        return 0
    con.execute("DELETE FROM raw.too_long WHERE model = ?", [model])
    rows = [
        (
            prompt_id,
            model,
            benchmark or None,
            needed,
            record.get("context_window"),
            record.get("window_source"),
        )
        for prompt_id, benchmark, needed in record.get("prompts") or []
    ]
    if rows:
        con.executemany("INSERT OR REPLACE INTO raw.too_long VALUES (?, ?, ?, ?, ?, ?)", rows)
    return len(rows)
