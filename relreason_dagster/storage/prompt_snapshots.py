"""Each benchmark's current prompts as a lake snapshot: what a model worker reads instead of DuckDB.

The ``prompts`` asset writes one new snapshot file per benchmark each time it
runs (never changing an old one); the newest file of a benchmark is its
current prompt set.  Prompt ids hash their content, so a snapshot and the
``raw.prompts`` rows it was written with always agree.

A snapshot stores its text once (``prompt_texts.py``): its distinct lines go to a file of the lake's
``prompt_texts`` table, written first, and each prompt row holds its line numbers (``parts``) and that
file's name; readers get the messages back byte for byte.  Snapshots written before hold ``messages``
whole and still read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from relreason_dagster.errors import ConfigError
from relreason_dagster.storage.lake import PROMPT_TEXTS_SCHEMA, PROMPTS_SCHEMA, Lake
from relreason_dagster.storage.prompt_texts import TextTable, join

TABLE = "prompts"
TEXTS_TABLE = "prompt_texts"
PREFIX = "snapshot"


def write_snapshot(lake: Lake, benchmark: str, rows: Sequence[dict[str, Any]]) -> str | None:
    """Store ``rows`` (raw.prompts rows of one benchmark) as that benchmark's current prompts."""
    texts = TextTable()
    parts = [
        texts.add(r["messages"] if isinstance(r["messages"], str) else json.dumps(r["messages"]))
        for r in rows
    ]
    texts_file = None
    if rows:  # the lines first: a reader that sees the snapshot finds them
        written = lake.append(
            TEXTS_TABLE,
            pa.table(
                {"benchmark": [benchmark] * len(texts.lines), "text": texts.lines}, schema=PROMPT_TEXTS_SCHEMA
            ),
            prefix=PREFIX,
        )
        texts_file = written[0].rsplit("/", 1)[-1]
    table = pa.table(
        {
            "prompt_id": [r["prompt_id"] for r in rows],
            "benchmark": [benchmark] * len(rows),
            "messages": pa.nulls(len(rows), pa.string()),
            "max_tokens": [r.get("max_tokens") for r in rows],
            "setting": [r.get("setting") for r in rows],
            "sample_id": [r.get("sample_id") for r in rows],
            "task": [r.get("task") for r in rows],
            "split": [r.get("split") for r in rows],
            "parts": parts,
            "texts_file": [texts_file] * len(rows),
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
                "parts": [None],
                "texts_file": [None],
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


def _texts_path(lake: Lake, benchmark: str, texts_file: str) -> str:
    return f"{lake.partition_path(TEXTS_TABLE, {'benchmark': benchmark})}/{texts_file}"


def _texts_files(lake: Lake, newest: str) -> set[str]:
    """The ``prompt_texts`` files a snapshot file needs (none for one written before them)."""
    if "texts_file" not in pq.read_schema(newest, filesystem=lake.fs).names:
        return set()
    names = pq.read_table(newest, filesystem=lake.fs, columns=["texts_file"]).column("texts_file")
    return {n for n in names.to_pylist() if n is not None}


def snapshot_rows(lake: Lake, benchmark: str) -> int | None:
    """How many prompts ``benchmark``'s current snapshot holds; None when it has none, or when the text
    file it needs is gone (quarantined, deleted): then the prompts asset writes a new snapshot."""
    newest = newest_snapshot(lake, benchmark)
    if newest is None:
        return None
    for name in _texts_files(lake, newest):
        path = _texts_path(lake, benchmark, name)
        if lake.fs.get_file_info(path).type == pafs.FileType.NotFound or lake.damage(path) is not None:
            return None
    ids = pq.read_table(newest, filesystem=lake.fs, columns=["prompt_id"]).column("prompt_id")
    return len(ids) - ids.null_count


def _read_snapshot(lake: Lake, benchmark: str, path: str) -> list[dict[str, Any]]:
    """A snapshot file's prompt rows with their messages whole, as ``raw.prompts`` holds them."""
    rows = pq.read_table(path, filesystem=lake.fs, schema=PROMPTS_SCHEMA).to_pylist()
    lines: dict[str, list[str]] = {}
    out = []
    for row in rows:
        if row["prompt_id"] is None:
            continue
        name = row.pop("texts_file")
        parts = row.pop("parts")
        if row["messages"] is None and parts is not None and name is not None:
            if name not in lines:
                texts_path = _texts_path(lake, benchmark, name)
                try:
                    lines[name] = (
                        pq.read_table(texts_path, filesystem=lake.fs, columns=["text"])
                        .column("text")
                        .to_pylist()
                    )
                except (FileNotFoundError, OSError, pa.ArrowInvalid) as exc:
                    raise ConfigError(
                        f"the text of benchmark {benchmark!r}'s prompts ({texts_path}) cannot be read "
                        f"({type(exc).__name__}); materialize prompts again (relreason run does)"
                    ) from None
            row["messages"] = join(parts, lines[name])
        out.append(row)
    return out


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
        out.extend(_read_snapshot(lake, benchmark, newest))
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
