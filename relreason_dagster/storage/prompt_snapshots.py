"""Each benchmark's current prompts as a lake snapshot: what a model worker reads instead of DuckDB.

The ``prompts`` asset writes one new snapshot file per benchmark each time it
runs (never changing an old one); the newest file of a benchmark is its
current prompt set.  Prompt ids hash their content, so a snapshot and the
``raw.prompts`` rows it was written with always agree.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from relreason_dagster.errors import ConfigError
from relreason_dagster.storage.lake import PROMPTS_SCHEMA, Lake

TABLE = "prompts"
PREFIX = "snapshot"


def write_snapshot(lake: Lake, benchmark: str, rows: Sequence[dict[str, Any]]) -> str | None:
    """Store ``rows`` (raw.prompts rows of one benchmark) as that benchmark's current prompts."""
    table = pa.table(
        {
            "prompt_id": [r["prompt_id"] for r in rows],
            "benchmark": [benchmark] * len(rows),
            "messages": [
                r["messages"] if isinstance(r["messages"], str) else json.dumps(r["messages"]) for r in rows
            ],
            "max_tokens": [r.get("max_tokens") for r in rows],
            "setting": [r.get("setting") for r in rows],
            "sample_id": [r.get("sample_id") for r in rows],
            "task": [r.get("task") for r in rows],
            "split": [r.get("split") for r in rows],
        },
        schema=PROMPTS_SCHEMA,
    )
    if table.num_rows == 0:  # an empty prompt set is a state too: one marker row without a prompt id
        table = pa.table(
            {
                "prompt_id": [None],
                "benchmark": [benchmark],
                "messages": [None],
                "max_tokens": [None],
                "setting": [None],
                "sample_id": [None],
                "task": [None],
                "split": [None],
            },
            schema=PROMPTS_SCHEMA,
        )
    written = lake.append(TABLE, table, prefix=PREFIX)
    return written[0] if written else None


def newest_snapshot(lake: Lake, benchmark: str) -> str | None:
    """The path of ``benchmark``'s current snapshot (its newest file), or None."""
    files = [
        f for f in lake.files(TABLE, {"benchmark": benchmark}) if f.rsplit("/", 1)[-1].startswith(PREFIX)
    ]
    return max(files, key=lambda f: f.rsplit("/", 1)[-1]) if files else None


def snapshot_rows(lake: Lake, benchmark: str) -> int | None:
    """How many prompts ``benchmark``'s current snapshot holds; None when it has none."""
    newest = newest_snapshot(lake, benchmark)
    if newest is None:
        return None
    ids = pq.read_table(newest, filesystem=lake.fs, columns=["prompt_id"]).column("prompt_id")
    return len(ids) - ids.null_count


def current_prompts(lake: Lake, benchmarks: Sequence[str]) -> list[dict[str, Any]]:
    """The prompts of the newest snapshot of each benchmark, ordered by prompt id."""
    out: list[dict[str, Any]] = []
    for benchmark in benchmarks:
        newest = newest_snapshot(lake, benchmark)
        if newest is None:
            raise ConfigError(
                f"no prompts of benchmark {benchmark!r} in the lake at {lake.url}; materialize prompts first "
                "(relreason run does), with the same RELREASON_LAKE"
            )
        rows = pq.read_table(newest, filesystem=lake.fs, schema=PROMPTS_SCHEMA).to_pylist()
        out.extend(r for r in rows if r["prompt_id"] is not None)
    out.sort(key=lambda r: r["prompt_id"])
    return out


def first_samples(rows: Sequence[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """The prompts of the first ``limit`` samples (by sample id) of each benchmark, task and split
    (``relreason run --limit N``); every setting of a kept sample is kept.  A prompt of an older
    snapshot, which does not name its sample, is kept: nothing says which sample it asks about."""
    ids: dict[tuple[Any, Any, Any], set[str]] = {}
    for row in rows:
        if row.get("sample_id") is not None:
            ids.setdefault((row["benchmark"], row.get("task"), row.get("split")), set()).add(row["sample_id"])
    kept = {sid for group in ids.values() for sid in sorted(group)[:limit]}
    return [row for row in rows if row.get("sample_id") is None or row["sample_id"] in kept]
