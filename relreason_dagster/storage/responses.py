"""Model responses in the lake: what the gateway stores and what it asks before calling.

Every outcome of a call is a new row; a prompt asked again (after an error,
or with changed params) simply has a newer row.  "The response" of a prompt
for a model is therefore its latest row (``created_at``), the rule the DuckDB
view ``raw.responses`` applies too (``storage/schema.py``).

Model text is stored exactly (NUL bytes and megabytes included) wherever
UTF-8 can hold it.  The one thing it cannot hold is a lone UTF-16 surrogate
(valid JSON, ``"\ud800"``, and real providers emit it): such code points
become U+FFFD and the row's ``sanitized`` flag says so, so a write never
fails on text and the answer is kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import pyarrow as pa
import pyarrow.dataset as pads

from relreason_dagster.storage.lake import RESPONSES_SCHEMA, Lake

TABLE = "responses"
COLUMNS: tuple[str, ...] = tuple(RESPONSES_SCHEMA.names)
# A row tuple may end before ``sanitized`` (the flag is then computed here alone) or anywhere after it
# (the columns added since are then null): callers written before a column existed keep working.
_FLAG = COLUMNS.index("sanitized")
_TEXT_COLUMNS = ("content", "error", "finish_reason", "reasoning", "served_model", "system_fingerprint")
_TEXT_INDEX = tuple(COLUMNS.index(name) for name in _TEXT_COLUMNS)


# Draw 0 of a prompt: the one answer ``raw.responses`` shows (files older than draws hold only it, as null).
_FIRST_DRAW = pads.field("sample_index").is_null() | (pads.field("sample_index") == 0)


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

    def max_sample_index(self) -> int:
        """The highest draw index any stored row has (0 when none has a later draw than the first)."""
        table = self.lake.read(TABLE, columns=["sample_index"])
        if table.num_rows == 0:
            return 0
        import pyarrow.compute as pc

        highest = pc.max(table.column("sample_index")).as_py()
        return int(highest or 0)

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
        table = self.lake.read(TABLE, where=where & _FIRST_DRAW, partition={"model": model})
        out: dict[str, dict[str, Any]] = {}
        for row in table.sort_by([("created_at", "ascending")]).to_pylist():
            out[row["prompt_id"]] = row
        return out

    def draws(
        self, model: str, prompt_ids: Sequence[str] | None = None
    ) -> dict[tuple[str, int], dict[str, Any]]:
        """The latest row per (prompt, draw) of ``model``: every draw of a repeated-sampling run."""
        where = pads.field("model") == model
        if prompt_ids is not None:
            where = where & pads.field("prompt_id").isin(list(prompt_ids))
        table = self.lake.read(TABLE, where=where, partition={"model": model})
        out: dict[tuple[str, int], dict[str, Any]] = {}
        for row in table.sort_by([("created_at", "ascending")]).to_pylist():
            out[(row["prompt_id"], row["sample_index"] or 0)] = row
        return out

    def spent(self, model: str) -> float:
        """USD the model's stored calls cost (rows without a known price count 0): its ``max_cost`` use."""
        table = self.lake.read(TABLE, columns=["cost_usd"], partition={"model": model})
        return float(sum(c for c in table.column("cost_usd").to_pylist() if c is not None))

    def count(self, model: str | None = None) -> int:
        """Distinct (prompt, model) pairs stored: what ``select count(*) from raw.responses`` says."""
        table = self.lake.read(
            TABLE,
            columns=["prompt_id", "model"],
            where=_FIRST_DRAW,
            partition={"model": model} if model else None,
        )
        if table.num_rows == 0:
            return 0
        return table.group_by(["prompt_id", "model"]).aggregate([]).num_rows

    # ------------------------------------------------------------------ writes

    def answers_since(self, models: Sequence[str], since: datetime) -> dict[str, int]:
        """Per model: the answers (rows without an error, cache copies included) stored at or after
        ``since`` (naive UTC, like ``created_at``).

        What a stopped launch says it keeps: rows, one per draw, not requests (a launch's requests are
        the gateway's own count, ``storage/sent_requests.py``).
        """
        out: dict[str, int] = {}
        for model in dict.fromkeys(models):
            where = (
                (pads.field("model") == model)
                & (pads.field("created_at") >= pa.scalar(since, pa.timestamp("us")))
                & pads.field("error").is_null()
            )
            out[model] = self.lake.read(
                TABLE, columns=["prompt_id"], where=where, partition={"model": model}
            ).num_rows
        return out

    def append(self, rows: Sequence[tuple] | pa.Table) -> list[str]:
        """Store rows; returns the new files (see :meth:`append_parts`)."""
        return [path for path, _part in self.append_parts(rows)]

    def append_parts(self, rows: Sequence[tuple] | pa.Table) -> list[tuple[str, pa.Table]]:
        """Store rows; returns each new file with what it holds.

        Tuples are in :data:`COLUMNS` order and may stop before ``sanitized`` or any
        column after it (left out: false, null).  Their text is made storable
        (:func:`clean_text`) and ``sanitized`` is set when that changed anything.
        An Arrow table holds valid UTF-8 already; a missing ``sanitized`` column there means false.
        """
        if not isinstance(rows, pa.Table):
            if not rows:
                return []
            rows = _table_of(rows)
        elif "sanitized" not in rows.column_names:
            rows = rows.append_column("sanitized", pa.array([False] * rows.num_rows, pa.bool_()))
        return self.lake.append_parts(TABLE, rows)

    def compact(self, paths: Sequence[str], held: Mapping[str, pa.Table] | None = None) -> list[str]:
        """One file per partition for ``paths``; ``held``: what some of them hold (not read back)."""
        return self.lake.compact(TABLE, paths, held)


def _table_of(rows: Sequence[tuple]) -> pa.Table:
    """Row tuples as an Arrow table of the lake's schema, their text made storable.

    Built column by column (a group commit's rows transposed at once): row by row it was most of
    the gateway's own CPU per answer after the HTTP call.
    """
    width = len(COLUMNS)
    full = []
    for row in rows:
        if len(row) != width:
            if not _FLAG <= len(row) <= width:
                raise ValueError(f"a responses row has {len(row)} values, expected {_FLAG} to {width}")
            row = (*row, *([None] * (width - len(row))))
        full.append(row)
    columns: list[Sequence[Any]] = list(zip(*full, strict=True))
    flags = [bool(flag) for flag in columns[_FLAG]]
    for i in _TEXT_INDEX:
        column = columns[i]
        if all(value is None or (type(value) is str and value.isascii()) for value in column):
            continue  # ASCII text is stored as it is
        cleaned = []
        for j, value in enumerate(column):
            text, fixed = clean_text(value)
            cleaned.append(text)
            if fixed:
                flags[j] = True
        columns[i] = cleaned
    columns[_FLAG] = flags
    arrays = [pa.array(col, type=field.type) for field, col in zip(RESPONSES_SCHEMA, columns, strict=True)]
    return pa.Table.from_arrays(arrays, schema=RESPONSES_SCHEMA)


def clean_text(value: Any) -> tuple[str | None, bool]:
    """``(text UTF-8 can store, whether anything had to change)``.

    Lone UTF-16 surrogates become U+FFFD (one per code point); everything else,
    NUL bytes included, is kept as it is.  A value that is not text at all (a
    provider's odd ``content``) is stored as its ``str()`` and counts as a change.
    """
    if value is None:
        return None, False
    if not isinstance(value, str):
        return clean_text(str(value))[0], True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        # Through UTF-16: a surrogate pair given as two code points becomes its character, a lone
        # surrogate exactly one U+FFFD.
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace"), True
    return value, False


def clean_str(value: str | None) -> str | None:
    """``value`` with lone UTF-16 surrogates replaced by U+FFFD (see :func:`clean_text`)."""
    return clean_text(value)[0]
