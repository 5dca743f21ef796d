"""Model responses in the lake: what the gateway stores and what it asks before calling.

Every outcome of a call is a new row; a prompt asked again (after an error,
or with changed params) simply has a newer row.  "The response" of a prompt
for a model is therefore its latest row (``created_at``), the rule the DuckDB
view ``raw.responses`` applies too (``storage/schema.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.dataset as pads

from relreason_dagster.storage.lake import RESPONSES_SCHEMA, Lake

TABLE = "responses"
COLUMNS: tuple[str, ...] = tuple(RESPONSES_SCHEMA.names)
_TEXT_COLUMNS = {"content", "error", "finish_reason"}


class ResponseStore:
    """Reads and appends ``responses`` rows of one lake; safe to share between processes."""

    def __init__(self, lake: Lake) -> None:
        self.lake = lake
        lake.ensure()

    @classmethod
    def default(cls) -> ResponseStore:
        return cls(Lake.default())

    # ------------------------------------------------------------------ reads

    def stored_ok(self, model: str) -> set[tuple[str, str]]:
        """(prompt_id, request_hash) pairs this model already answered without error."""
        table = self.lake.read(
            TABLE,
            columns=["prompt_id", "request_hash"],
            where=(pads.field("model") == model) & pads.field("error").is_null(),
            partition={"model": model},
        )
        return set(zip(table.column(0).to_pylist(), table.column(1).to_pylist(), strict=True))

    def successes(self, hashes: Sequence[str]) -> dict[str, dict[str, Any]]:
        """For each request hash answered without error under any model name: one such row.

        The first original answer wins (not a cache copy), so copies of copies all
        point at the same call.
        """
        if not hashes:
            return {}
        table = self.lake.read(
            TABLE, where=pads.field("error").is_null() & pads.field("request_hash").isin(list(hashes))
        )
        if table.num_rows == 0:
            return {}
        order = [("request_hash", "ascending"), ("from_cache", "ascending"), ("created_at", "ascending")]
        table = table.sort_by(order)
        best: dict[str, dict[str, Any]] = {}
        for row in table.to_pylist():
            best.setdefault(row["request_hash"], row)
        return best

    def latest(self, model: str, prompt_ids: Sequence[str] | None = None) -> dict[str, dict[str, Any]]:
        """The latest row per prompt of ``model`` (all prompts, or those in ``prompt_ids``)."""
        where = pads.field("model") == model
        if prompt_ids is not None:
            where = where & pads.field("prompt_id").isin(list(prompt_ids))
        table = self.lake.read(TABLE, where=where, partition={"model": model})
        out: dict[str, dict[str, Any]] = {}
        for row in table.sort_by([("created_at", "ascending")]).to_pylist():
            out[row["prompt_id"]] = row
        return out

    def count(self, model: str | None = None) -> int:
        """Distinct (prompt, model) pairs stored: what ``select count(*) from raw.responses`` says."""
        table = self.lake.read(
            TABLE, columns=["prompt_id", "model"], partition={"model": model} if model else None
        )
        if table.num_rows == 0:
            return 0
        return table.group_by(["prompt_id", "model"]).aggregate([]).num_rows

    # ------------------------------------------------------------------ writes

    def append(self, rows: Sequence[tuple] | pa.Table) -> list[str]:
        """Store rows (tuples in :data:`COLUMNS` order, or an Arrow table); returns the new files."""
        if not isinstance(rows, pa.Table):
            if not rows:
                return []
            columns = list(zip(*rows, strict=True))
            rows = pa.table(
                {
                    name: pa.array(
                        [clean_str(v) for v in col] if name in _TEXT_COLUMNS else col,
                        type=RESPONSES_SCHEMA.field(name).type,
                    )
                    for name, col in zip(COLUMNS, columns, strict=True)
                }
            )
        return self.lake.append(TABLE, rows)

    def compact(self, paths: Sequence[str]) -> list[str]:
        return self.lake.compact(TABLE, paths)


def clean_str(value: str | None) -> str | None:
    """``value`` with lone UTF-16 surrogates replaced by U+FFFD.

    Such escapes are valid JSON and real providers emit them, but Parquet (and
    DuckDB) store UTF-8 only; replacing one code point keeps the answer.
    """
    if value is None:
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return value
