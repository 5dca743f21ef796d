"""Per-seed and pooled DLM F1 of the paper profile's checkpoints in a home, while its run is still going.

Usage::

    .venv/bin/python tests/perf/dlm_scores.py /tmp/paper4

Why: ``marts.dlm_vs_llm`` exists only once every task of `relreason run --model dlm --profile paper`
has trained, and a three-seed run takes over an hour on two cores.  This scores whichever
checkpoints exist (the run ids of the current config and seeds) on the same IID (n = 10) and OOD
(n = 20) samples, and prints each seed's mean F1 and the pooled mean with a 95% percentile
bootstrap (1,000 resamples, fixed seed; the mart hashes its draws, so its bounds may differ in the
second decimal).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

from relreason_dagster import profiles
from relreason_dagster.benchmarks.relational.dlm.checkpoint import load_checkpoint
from relreason_dagster.benchmarks.relational.dlm.plan import plan_runs
from relreason_dagster.benchmarks.relational.dlm.train import predict
from relreason_dagster.benchmarks.relational.generate import decode_gold, generate_samples
from relreason_dagster.benchmarks.relational.tasks import TASKS, task_spec
from relreason_dagster.benchmarks.scoring import set_f1

SPLITS = ("iid", "ood")


def _interval(values: list[float], rng: np.random.Generator) -> str:
    if not values:
        return "-"
    a = np.array(values)
    boot = a[rng.integers(0, len(a), (1000, len(a)))].mean(axis=1)
    return f"{a.mean():.2f} [{np.quantile(boot, 0.025):.2f}, {np.quantile(boot, 0.975):.2f}]"


def main(argv: list[str]) -> int:
    home = Path(argv[0])
    torch.set_num_threads(1)
    profile = profiles.get_profile("paper", "relational")
    rng = np.random.default_rng(0)
    for task in TASKS:
        samples = generate_samples(profile, profiles.DEFAULT_SEED, tasks=(task,))
        fewshot = [s for s in samples if s.split == "fewshot"]
        arity = task_spec(task).arity
        pooled: dict[str, list[float]] = {split: [] for split in SPLITS}
        seeds = []
        for run in plan_runs(task, fewshot, profile, profiles.DEFAULT_SEED):
            path = run.checkpoint_path(home)
            if not path.exists():
                seeds.append(f"seed {run.seed} -")
                continue
            model = load_checkpoint(path)
            means = []
            for split in SPLITS:
                tests = [s for s in samples if s.split == split]
                scores = [set_f1(predict(model, s), decode_gold(s.gold, arity))[3] for s in tests]
                pooled[split] += scores
                means.append(f"{sum(scores) / len(scores):.2f}")
            seeds.append(f"seed {run.seed} {'/'.join(means)}")
        n10, n20 = _interval(pooled["iid"], rng), _interval(pooled["ood"], rng)
        print(f"{task}: n10 {n10}; n20 {n20}; {', '.join(seeds)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
