"""A model's last complete pass over the current prompts, so an unchanged pass is not planned again.

Even when every answer is stored, ``model_responses`` read the prompts' lake snapshot (every message
text), hashed each request and scanned the model's stored rows to find that nothing was left to ask:
~0.7 s per 10k prompts, most of a cached re-run.  After a pass in which every prompt got an answer
without error, a small record is written to the lake (``_state/answered/<model>.json``, a folder the
lake's readers skip) with a key of everything that pass depended on:

* the model's registry entry (LiteLLM model, params, endpoint, ...);
* the snapshot file of each benchmark's prompts (snapshots are never rewritten: a new prompt set is
  a new file);
* the listing of the model's stored responses (path, size, modification time): any later write,
  compaction or deletion changes it;
* the code (``fingerprints.code_digest``): the request identity is computed by it.

A pass whose key matches the record has nothing to ask and nothing to store; any difference, or a
record that cannot be read, takes the full path, which decides prompt by prompt.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import pyarrow.fs as pafs

from relreason_dagster.storage.fingerprints import code_digest
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.prompt_snapshots import newest_snapshot
from relreason_dagster.storage.responses import TABLE as RESPONSES

STATE_DIR = "_state/answered"


class PassModel(Protocol):
    """What a pass key reads of a model (``llm/registry.py``'s ``ModelEntry``, its fields hashed whole):
    a protocol, since the llm layer sits above storage/ and a model is only read here."""

    name: str

    def model_dump(self) -> dict[str, Any]: ...


def pass_key(
    lake: Lake, spec: PassModel, benchmarks: Sequence[str], generation: Mapping[str, Any] | None = None
) -> str | None:
    """The key of a pass of ``spec`` over ``benchmarks``' current prompts; None without a snapshot.

    ``generation`` (per benchmark: the generation params its profile states) is part of it: the same
    prompts asked with other params are a pass still to make.
    """
    digest = hashlib.sha256()
    digest.update(json.dumps(spec.model_dump(), sort_keys=True, default=str).encode())
    if generation:
        digest.update(json.dumps(generation, sort_keys=True, default=str).encode())
    digest.update(code_digest().encode())
    for benchmark in sorted(benchmarks):
        snapshot = newest_snapshot(lake, benchmark)
        if snapshot is None:
            return None
        digest.update(f"{benchmark}\0{snapshot}\0".encode())
    files = lake.files(RESPONSES, {"model": spec.name})
    for info in lake.fs.get_file_info(files) if files else []:
        digest.update(f"{info.path}\0{info.size}\0{info.mtime_ns}\0".encode())
    return digest.hexdigest()


def _path(lake: Lake, model: str) -> str:
    return f"{lake.root}/{STATE_DIR}/{hashlib.sha256(model.encode()).hexdigest()[:16]}.json"


def read_pass(lake: Lake, model: str) -> dict[str, Any] | None:
    """The record of ``model``'s last complete pass, or None (none, or unreadable)."""
    try:
        with lake.fs.open_input_stream(_path(lake, model)) as f:
            record = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and record.get("model") == model else None


def write_pass(lake: Lake, model: str, key: str, prompts: int) -> None:
    """Record a complete pass (write aside, then rename: a reader sees the old record or the new)."""
    path = _path(lake, model)
    lake.fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with lake.fs.open_output_stream(tmp) as f:
        f.write(json.dumps({"model": model, "key": key, "prompts": prompts}).encode("utf-8"))
    lake.fs.move(tmp, path)


def forget_pass(lake: Lake, model: str) -> None:
    """Drop ``model``'s record (before a pass that may end incomplete)."""
    path = _path(lake, model)
    if lake.fs.get_file_info(path).type != pafs.FileType.NotFound:
        lake.fs.delete_file(path)
