"""Provider batch jobs a run submitted, kept in the home before anyone waits on them (issue 54).

Why a file per job, written whole as soon as the provider accepted the job: a batch takes up to 24 h and
is billed once it runs, so its id must outlive the process that submitted it.  A CLI killed with -9, a
``--no-wait`` run, or the Dagster UI's step leaves the record here; the next run of the same model
(``llm/transports/batch.py``) reads the jobs still open, awaits their lines instead of submitting them
again, and ``relreason status`` lists them.  A record is replaced whole (temporary file, then a move),
so a reader sees the old one or the new one, never half.

Layout: ``<lake>/_state/batches/<model key>/<job id>.json``, one JSON object per job (:class:`JobRecord`).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

import pyarrow.fs as pafs

from relreason_dagster.storage.lake import Lake

STATE_DIR = "_state/batches"
# The provider's states in which a job will not move again (OpenAI's names; LiteLLM maps the others').
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
# A job whose results a run has read and handed to the gateway: nothing of it is waited for any more.
COLLECTED = "collected"


@dataclass
class JobRecord:
    """One submitted batch job: enough to collect it from any process, and to show it."""

    model: str
    provider: str
    job_id: str
    input_file_id: str
    custom_ids: list[str]
    created: float
    state: str = "submitted"
    expected_cost_usd: float | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    ended: float | None = None
    # Anything the provider said about a job that failed as a whole (validation errors).
    note: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        """Still to be collected: running at the provider, or ended with results no run has read."""
        return self.state != COLLECTED


def _model_dir(lake: Lake, model: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", model)[:40]
    return f"{lake.root}/{STATE_DIR}/{safe}-{hashlib.sha256(model.encode()).hexdigest()[:10]}"


def _job_path(lake: Lake, model: str, job_id: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", job_id)[:120] or "_"
    return f"{_model_dir(lake, model)}/{safe}.json"


def write_job(lake: Lake, record: JobRecord) -> None:
    """Record ``record`` (replacing its earlier record whole)."""
    folder = _model_dir(lake, record.model)
    lake.fs.create_dir(folder, recursive=True)
    path = _job_path(lake, record.model, record.job_id)
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with lake.fs.open_output_stream(tmp) as f:
        f.write(json.dumps(asdict(record), sort_keys=True).encode("utf-8"))
    lake.fs.move(tmp, path)


def _read(path: str, lake: Lake) -> JobRecord | None:
    try:
        with lake.fs.open_input_stream(path) as f:
            data = json.loads(f.read().decode("utf-8"))
        return JobRecord(**data)
    except (OSError, ValueError, TypeError):
        return None  # a record that cannot be read is not guessed at


def _records_under(lake: Lake, folder: str) -> list[JobRecord]:
    records = []
    for info in lake.fs.get_file_info(pafs.FileSelector(folder, allow_not_found=True)):
        if info.type == pafs.FileType.File and info.path.endswith(".json"):
            record = _read(info.path, lake)
            if record is not None:
                records.append(record)
    return sorted(records, key=lambda r: (r.created, r.job_id))


def jobs_of(lake: Lake, model: str, open_only: bool = True) -> list[JobRecord]:
    """``model``'s jobs, oldest first (only those still to be collected, unless ``open_only`` is False)."""
    records = _records_under(lake, _model_dir(lake, model))
    return [r for r in records if r.model == model and (r.open or not open_only)]


def all_jobs(lake: Lake) -> list[JobRecord]:
    """Every model's jobs, oldest first (``relreason status``)."""
    root = f"{lake.root}/{STATE_DIR}"
    records: list[JobRecord] = []
    for folder in lake.fs.get_file_info(pafs.FileSelector(root, allow_not_found=True)):
        if folder.type == pafs.FileType.Directory:
            records.extend(_records_under(lake, folder.path))
    return sorted(records, key=lambda r: (r.created, r.job_id))


def status_lines(lake: Lake, now: float | None = None, limit: int = 20) -> list[str]:
    """One line per batch job for ``relreason status``: open ones, then the latest collected."""
    records = all_jobs(lake)
    if not records:
        return []
    now = time.time() if now is None else now
    open_ones = [r for r in records if r.open]
    done = (
        [r for r in records if not r.open][-max(0, limit - len(open_ones)) :]
        if limit > len(open_ones)
        else []
    )
    lines = [f"batch jobs: {len(open_ones)} open, {len(records) - len(open_ones)} collected"]
    for r in [*open_ones, *done]:
        cost = "?" if r.expected_cost_usd is None else f"${r.expected_cost_usd:.4f}"
        lines.append(
            f"  {r.model} ({r.provider}) {r.job_id}: {len(r.custom_ids)} requests, {r.state}, "
            f"age {_age(now - r.created)}, expected {cost}"
        )
    return lines


def _age(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"
