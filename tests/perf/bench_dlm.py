"""DLM training cost: all nine relational tasks at the paper profile, one seed, on this machine's cores.

Why: the study's point is that a ~60k-parameter model trained on ten samples
beats the LLMs; relreason trains it inside the pipeline, so its wall time and
memory decide whether `relreason run --model dlm --profile paper` fits a
laptop.  Each task trains on exactly the paper profile's ten few-shot samples
with that task's default config (``relreason_dagster.dlm.config``); the
F1 columns are a sanity check, the measured quality lives in
``marts.dlm_vs_llm`` (several seeds).
"""

from __future__ import annotations

import time
from typing import Any

SEED = 0


def bench_dlm(tasks: list[str] | None = None) -> dict[str, Any]:
    import torch

    from relreason_dagster import settings
    from relreason_dagster.benchmarks.relational.generate import decode_gold, generate_samples
    from relreason_dagster.benchmarks.relational.tasks import TASKS, task_spec
    from relreason_dagster.benchmarks.scoring import set_f1
    from relreason_dagster.dlm.config import config_for
    from relreason_dagster.dlm.train import predict, train

    profile = settings.get_profile("paper", "relational")
    rows = []
    start = time.perf_counter()
    for task in tasks or list(TASKS):
        samples = generate_samples(profile, settings.DEFAULT_SEED, tasks=(task,))
        fewshot = [s for s in samples if s.split == "fewshot"]
        config = config_for(task)
        result = train(task, fewshot, config, SEED)
        f1 = {}
        for split in ("iid", "ood"):
            tests = [s for s in samples if s.split == split]
            arity = task_spec(task).arity
            scores = [set_f1(predict(result.model, s), decode_gold(s.gold, arity))[3] for s in tests]
            f1[split] = sum(scores) / len(scores)
        rows.append(
            {
                "task": task,
                "depth": config.depth,
                "breadth": config.breadth,
                "params": result.model.n_parameters(),
                "epochs": result.total_epochs,
                "attempts": result.attempts,
                "train_errors": result.train_hard_errors,
                "wall_s": round(result.wall_s, 1),
                "s_per_epoch": round(result.wall_s / max(result.total_epochs, 1), 3),
                "peak_rss_mb": result.peak_rss_mb,
                "rss_increase_mb": result.rss_increase_mb,
                "f1_iid": round(f1["iid"], 3),
                "f1_ood": round(f1["ood"], 3),
            }
        )
    return {
        "rows": rows,
        "total_s": round(time.perf_counter() - start, 1),
        "torch_threads": torch.get_num_threads(),
        "train_samples": int(profile.get("n_fewshot")),
    }


def render(result: dict[str, Any]) -> str:
    rows = result["rows"]
    cols = list(rows[0]) if rows else []
    lines = [
        "## DLM training (paper profile, seed 0, all tasks)",
        "",
        f"Each task trains on the {result['train_samples']} few-shot samples with its default config; "
        f"torch uses {result['torch_threads']} threads.  **Total: {result['total_s']} s "
        f"({result['total_s'] / 60:.1f} min)** — target ≤ 30 min.",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    lines.append("")
    lines.append(
        "peak_rss_mb is the whole process (Python, torch); rss_increase_mb what training added on top."
    )
    return "\n".join(lines) + "\n"
