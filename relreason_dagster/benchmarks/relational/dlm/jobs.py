"""Train planned DLM runs, in parallel worker processes when there are several, and describe each.

Why processes: a DLM works on tensors of a few thousand cells, where torch's
intra-op threads buy almost nothing (measured: 2 threads are 1.1x faster than
one), so two seeds trained side by side with one thread each finish nearly
twice as fast as one after the other.  Workers are spawned (not forked: the
parent may hold threads) and write their own checkpoint; the parent only
stores the returned rows.
"""

from __future__ import annotations

import concurrent.futures as cf
import datetime as dt
import json
import multiprocessing
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.relational.dlm.plan import DLMRun
from relreason_dagster.benchmarks.relational.dlm.slots import training_slot
from relreason_dagster.benchmarks.relational.tasks import task_spec


def train_and_save(run: DLMRun, home: Path, threads: int = 1, slots: int | None = None) -> dict[str, Any]:
    """Train ``run``, write its checkpoint under ``home``, and return its ``raw.dlm_runs`` row.

    It first takes one of ``slots`` machine-wide training slots (default: the CPU count).  It trains
    with ``threads`` torch threads (one, in a worker process and in this one alike): on a busy machine
    torch's default threads wait on each other's time slices (HasFather's first two smoke epochs: 41 s
    with one thread, 332 s with two, beside six busy processes on two cores; 11 s and 12 s idle), which
    made a 15 s training take 534 s in a `make test` beside others.  Torch's thread count is
    process-wide, and the DLM is the only torch work relreason does.
    """
    import torch

    from relreason_dagster.benchmarks.relational.dlm.checkpoint import file_sha256, save_checkpoint
    from relreason_dagster.benchmarks.relational.dlm.program import extract_program
    from relreason_dagster.benchmarks.relational.dlm.train import train

    torch.set_num_threads(threads)
    with training_slot(slots or default_workers()):  # machine-wide: concurrent task runs share the cores
        result = train(run.task, list(run.train), run.config, run.seed)
    path = run.checkpoint_path(home)
    save_checkpoint(result.model, path)
    program = extract_program(result.model, run.task, task_spec(run.task).base_predicates)
    return {
        "run_id": run.run_id,
        "task": run.task,
        "seed": run.seed,
        "recipe": run.recipe,
        "config": json.dumps(run.config.to_dict(), sort_keys=True),
        "train_size": len(run.train),
        "train_sample_ids": json.dumps([s.sample_id for s in run.train]),
        "n_params": result.model.n_parameters(),
        "epochs": result.epochs,
        "attempts": result.attempts,
        "total_epochs": result.total_epochs,
        "final_loss": result.final_loss,
        "train_hard_errors": result.train_hard_errors,
        "wall_s": round(result.wall_s, 3),
        "peak_rss_mb": result.peak_rss_mb,
        "rss_increase_mb": result.rss_increase_mb,
        "checkpoint_path": str(path.relative_to(home)),
        "checkpoint_sha256": file_sha256(path),
        "program": program.text,
        "units_used": program.units_used,
        "torch_version": torch.__version__,
        "created_at": dt.datetime.now(dt.UTC).replace(tzinfo=None),
    }


def default_workers() -> int:
    """The number of CPU cores: the trainings this machine runs at once unless told
    (`relreason run --dlm-workers N`, the run settings' ``dlm_workers``)."""
    return max(1, os.cpu_count() or 1)


def train_runs(
    runs: list[DLMRun],
    home: Path,
    workers: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
) -> list[dict[str, Any]]:
    """Train every run (one worker process per run, at most ``workers`` at once, which is also the
    machine-wide number of training slots); rows in run order."""
    slots = workers or default_workers()
    workers = min(len(runs), slots)
    if workers <= 1:
        rows = []
        for run in runs:
            rows.append(train_and_save(run, home, slots=slots))
            if on_done:
                on_done(rows[-1])
        return rows
    by_id: dict[str, dict[str, Any]] = {}
    context = multiprocessing.get_context("spawn")
    # A fresh process per run: its peak memory is its own, and nothing leaks between runs.
    with cf.ProcessPoolExecutor(max_workers=workers, mp_context=context, max_tasks_per_child=1) as pool:
        futures = [pool.submit(train_and_save, run, home, 1, slots) for run in runs]
        for future in cf.as_completed(futures):
            row = future.result()
            by_id[row["run_id"]] = row
            if on_done:
                on_done(row)
    return [by_id[run.run_id] for run in runs]
