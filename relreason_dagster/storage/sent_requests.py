"""The requests a run sent, as the gateway counted them: what a launch's summary says when a step
could not report its calls itself.

Why: a launch's "model calls" are the requests its runs sent.  A model step reports them in its
Dagster event, but a step that failed, or whose event could not be written (a full disk), reports
nothing although its calls were made.  Counting the lake's rows instead was wrong twice: a request
asking ``n: 4`` draws stores four rows (144 "calls" for 36 requests), and rows another launch of the
same model stored meanwhile are not this launch's (36 "calls" for 0 requests).  So the gateway keeps
its own count here, per Dagster run, as it goes, and the launch reads back the counts of its own
runs (``results/launch_report.count_from_lake``).

How: each gateway run (one ``run_model`` call) given a ledger key (the Dagster run's id) writes one
small JSON file, ``_state/sent/<run>/<model>-<writer>.json`` in the lake (a folder the lake's
readers never list), rewritten whole (write aside, then rename) as its counts change and once at
its end.  A run's counts are the sum of its files.  Folders older than :data:`KEEP_S` are deleted
when a launch reads its own, so runs nobody reads (the UI's) do not pile up.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow.fs as pafs

from relreason_dagster.storage.lake import Lake

STATE_DIR = "_state/sent"
# A ledger this old belongs to no launch still being summarised.
KEEP_S = 3 * 24 * 3600.0
# What each file counts (the gateway's RunStats of the same names; ``error``: one stored error text):
# ``possibly_billed``, the sends that timed out after they were sent, and their estimated USD
# (``llm/possibly_billed.py``), which a later run's ``max_cost`` also counts (:func:`billed_estimate`).
COUNTS = ("requests", "errors", "answers", "possibly_billed")
AMOUNTS = ("possibly_billed_usd",)


def _run_dir(lake: Lake, run: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", run)[:80] or "_"
    return f"{lake.root}/{STATE_DIR}/{safe}"


def new_writer() -> str:
    """A name no other gateway run's file of the same run and model has."""
    return uuid.uuid4().hex[:16]


def write_sent(lake: Lake, run: str, model: str, writer: str, counts: dict[str, Any]) -> None:
    """Record what one gateway run of ``model`` under Dagster run ``run`` has sent so far (replaces
    its earlier record: a reader sees the old one or the new one, never half)."""
    folder = _run_dir(lake, run)
    path = f"{folder}/{hashlib.sha256(model.encode()).hexdigest()[:16]}-{writer}.json"
    record = {
        "model": model,
        **{k: int(counts.get(k) or 0) for k in COUNTS},
        **{k: float(counts.get(k) or 0.0) for k in AMOUNTS},
        "error": counts.get("error"),
    }
    lake.fs.create_dir(folder, recursive=True)
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with lake.fs.open_output_stream(tmp) as f:
        f.write(json.dumps(record).encode("utf-8"))
    lake.fs.move(tmp, path)


def read_sent(lake: Lake, runs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Per model: what the gateway runs of ``runs`` sent, summed (``requests``, ``errors``,
    ``answers``, ``possibly_billed`` and its ``possibly_billed_usd``, one ``error`` text); a model none
    of them asked is absent."""
    out: dict[str, dict[str, Any]] = {}
    for run in dict.fromkeys(runs):
        _add_records(lake, _run_dir(lake, run), out)
    return out


def _add_records(lake: Lake, folder: str, out: dict[str, dict[str, Any]]) -> None:
    """Add the records of one run's folder to ``out`` (per model, summed)."""
    selector = pafs.FileSelector(folder, allow_not_found=True)
    for info in lake.fs.get_file_info(selector):
        if info.type != pafs.FileType.File or not info.path.endswith(".json"):
            continue
        try:
            with lake.fs.open_input_stream(info.path) as f:
                record = json.loads(f.read().decode("utf-8"))
        except (OSError, ValueError):
            continue  # a file cut short by a crash: its run's other files still count
        if not isinstance(record, dict) or not isinstance(record.get("model"), str):
            continue
        total = out.setdefault(
            record["model"], {**dict.fromkeys(COUNTS, 0), **dict.fromkeys(AMOUNTS, 0.0), "error": None}
        )
        for key in COUNTS:
            total[key] += int(record.get(key) or 0)
        for key in AMOUNTS:
            value = record.get(key)
            total[key] += float(value) if isinstance(value, (int, float)) else 0.0
        if total["error"] is None and record.get("error"):
            total["error"] = str(record["error"])


def billed_estimate(lake: Lake, model: str) -> float:
    """USD of ``model``'s possibly-billed sends in every ledger kept (any run's, up to :data:`KEEP_S`
    old): what a run's ``max_cost`` adds to its stored calls' cost.  Older ledgers are gone, so an
    estimate more than :data:`KEEP_S` old is no longer counted."""
    out: dict[str, dict[str, Any]] = {}
    root = f"{lake.root}/{STATE_DIR}"
    for folder in lake.fs.get_file_info(pafs.FileSelector(root, allow_not_found=True)):
        if folder.type == pafs.FileType.Directory:
            _add_records(lake, folder.path, out)
    return float(out.get(model, {}).get("possibly_billed_usd", 0.0))


def forget_old(lake: Lake, keep: Sequence[str] = (), now: float | None = None) -> None:
    """Delete run folders older than :data:`KEEP_S` (their newest file), except those of ``keep``."""
    root = f"{lake.root}/{STATE_DIR}"
    kept = {_run_dir(lake, run) for run in keep}
    cutoff = (time.time() if now is None else now) - KEEP_S
    for folder in lake.fs.get_file_info(pafs.FileSelector(root, allow_not_found=True)):
        if folder.type != pafs.FileType.Directory or folder.path in kept:
            continue
        files = lake.fs.get_file_info(pafs.FileSelector(folder.path, allow_not_found=True))
        newest = max((f.mtime.timestamp() for f in files if f.mtime is not None), default=0.0)
        if newest < cutoff:
            lake.fs.delete_dir(folder.path)
