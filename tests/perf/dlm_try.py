"""Train one DLM with config overrides; print its F1 and program (the README's DLM experiments).

Usage::

    .venv/bin/python tests/perf/dlm_try.py IsGrandparent 1 '{"lr": 0.02}'
    .venv/bin/python tests/perf/dlm_try.py IsGrandparent 0 '{"recipe": "authors", "max_epochs": 20}'

Trains on the paper profile's ten few-shot samples of TASK (run seed 20240101),
from training seed SEED, and scores the hard program on the ten IID (n = 10) and
ten OOD (n = 20) test samples.  The key ``train_size`` trains on that many samples
instead (the few-shot ones first, then more of the same stream, as ``dlm_train_size``
does); ``recipe`` names one of ``dlm.config.RECIPES`` (default: the task's);
the other keys override its settings.  Run one at a
time, with one torch thread: two torch processes on two cores slow each other down
several-fold.
"""

from __future__ import annotations

import json
import sys

import torch

from relreason_dagster import profiles
from relreason_dagster.benchmarks.relational.dlm.config import config_for, default_recipe
from relreason_dagster.benchmarks.relational.dlm.plan import training_samples
from relreason_dagster.benchmarks.relational.dlm.program import extract_program
from relreason_dagster.benchmarks.relational.dlm.train import predict, train
from relreason_dagster.benchmarks.relational.generate import decode_gold, generate_samples
from relreason_dagster.benchmarks.relational.tasks import task_spec
from relreason_dagster.benchmarks.scoring import set_f1


def main(argv: list[str]) -> int:
    task, seed = argv[0], int(argv[1]) if len(argv) > 1 else 0
    overrides = json.loads(argv[2]) if len(argv) > 2 else {}
    recipe = overrides.pop("recipe", None) or default_recipe(task)
    train_size = int(overrides.pop("train_size", 0))
    torch.set_num_threads(1)
    profile = profiles.get_profile("paper", "relational")
    samples = generate_samples(profile, profiles.DEFAULT_SEED, tasks=(task,))
    fewshot = [s for s in samples if s.split == "fewshot"]
    if train_size:  # the few-shot samples, then more of the same seeded stream (what dlm_train_size does)
        fewshot = list(training_samples(task, fewshot, train_size, profile, profiles.DEFAULT_SEED))
    result = train(task, fewshot, config_for(task, overrides, recipe), seed, log=print)
    arity = task_spec(task).arity
    f1 = {}
    for split in ("iid", "ood"):
        tests = [s for s in samples if s.split == split]
        f1[split] = sum(set_f1(predict(result.model, s), decode_gold(s.gold, arity))[3] for s in tests) / len(
            tests
        )
    print(
        f"{task} seed {seed} {recipe} {overrides} train {len(fewshot)}: "
        f"params {result.model.n_parameters()}, "
        f"{result.total_epochs} epochs, {result.total_updates} updates, loss {result.final_loss:.3g}, "
        f"{result.train_hard_errors} wrong training cells, {result.wall_s:.0f} s; "
        f"F1 iid {f1['iid']:.3f} ood {f1['ood']:.3f}"
    )
    print(extract_program(result.model, task, task_spec(task).base_predicates).text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
