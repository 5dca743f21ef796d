"""DLM training cost: all nine relational tasks at the paper profile, seed 0, on this machine's cores.

Why: the study's point is that a ~60k-parameter model trained on ten samples
beats the LLMs; relreason trains it inside the pipeline, so its wall time and
memory decide whether `relreason run --model dlm --profile paper` fits a
laptop.  Each task trains on exactly the paper profile's ten few-shot samples
with its default config, through the pipeline's own trainer
(``relreason_dagster.benchmarks.relational.dlm.jobs.train_runs``: one spawned worker per run, one
torch thread each, as many workers as cores), so per-task times are
single-thread times and the total is the wall time of the whole batch.  The
F1 columns are a sanity check; the measured quality with three seeds lives in
``marts.dlm_vs_llm``.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

SEED = 0


def bench_dlm(tasks: list[str] | None = None) -> dict[str, Any]:
    from relreason_dagster import profiles
    from relreason_dagster.benchmarks.relational.dlm.checkpoint import load_checkpoint
    from relreason_dagster.benchmarks.relational.dlm.config import default_recipe
    from relreason_dagster.benchmarks.relational.dlm.jobs import default_workers, train_runs
    from relreason_dagster.benchmarks.relational.dlm.plan import plan_runs
    from relreason_dagster.benchmarks.relational.dlm.train import predict
    from relreason_dagster.benchmarks.relational.generate import decode_gold, generate_samples
    from relreason_dagster.benchmarks.relational.tasks import TASKS, task_spec
    from relreason_dagster.benchmarks.scoring import set_f1

    paper = profiles.get_profile("paper", "relational")
    profile = paper.with_params({"dlm_seeds": [SEED]})
    runs, tests = [], {}
    for task in tasks or list(TASKS):
        samples = generate_samples(profile, profiles.DEFAULT_SEED, tasks=(task,))
        fewshot = [s for s in samples if s.split == "fewshot"]
        runs += plan_runs(task, fewshot, profile, profiles.DEFAULT_SEED)
        tests[task] = samples
    workers = default_workers()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        start = time.perf_counter()
        rows = train_runs(runs, home, workers=workers)
        total = time.perf_counter() - start
        out = []
        for run, row in zip(runs, rows, strict=True):
            model = load_checkpoint(home / row["checkpoint_path"])
            arity = task_spec(run.task).arity
            f1 = {}
            for split in ("iid", "ood"):
                split_samples = [s for s in tests[run.task] if s.split == split]
                scores = [set_f1(predict(model, s), decode_gold(s.gold, arity))[3] for s in split_samples]
                f1[split] = sum(scores) / len(scores)
            out.append(
                {
                    "task": run.task,
                    "recipe": default_recipe(run.task),
                    "depth": run.config.depth,
                    "breadth": run.config.breadth,
                    "params": row["n_params"],
                    "epochs": row["total_epochs"],
                    "attempt": row["attempts"],
                    "updates": row["total_epochs"] * _updates_per_epoch(run.config, len(run.train)),
                    "train_errors": row["train_hard_errors"],
                    "wall_s": round(row["wall_s"], 1),
                    "s_per_epoch": round(row["wall_s"] / max(row["total_epochs"], 1), 3),
                    "peak_rss_mb": row["peak_rss_mb"],
                    "rss_increase_mb": row["rss_increase_mb"],
                    "f1_iid": round(f1["iid"], 3),
                    "f1_ood": round(f1["ood"], 3),
                }
            )
    return {
        "rows": out,
        "total_s": round(total, 1),
        "sum_task_s": round(sum(r["wall_s"] for r in out), 1),
        "workers": workers,
        "train_samples": paper.values().n_fewshot,
    }


def _updates_per_epoch(config: Any, train_size: int) -> int:
    """Optimizer steps in one epoch: the authors' fixed count, or passes over the training set."""
    if config.updates_per_epoch:
        return int(config.updates_per_epoch)
    return int(config.passes) * -(-train_size // int(config.batch_size))


def render(result: dict[str, Any]) -> str:
    rows = result["rows"]
    cols = list(rows[0]) if rows else []
    lines = [
        "## DLM training (paper profile, seed 0, all tasks)",
        "",
        f"Each task trains on the {result['train_samples']} few-shot samples with its default config, "
        f"{result['workers']} worker processes with one torch thread each.  **All 9 tasks: "
        f"{result['total_s']} s wall ({result['total_s'] / 60:.1f} min)** — target ≤ 60 min; the tasks' "
        f"own times sum to {result['sum_task_s']} s.",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    lines.append("")
    lines.append(
        "peak_rss_mb is the worker process (Python + torch + the run); rss_increase_mb what training added."
    )
    return "\n".join(lines) + "\n"
