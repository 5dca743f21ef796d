"""Train the paper profile's DLMs under one recipe, one training at a time, and log each as a JSON line.

Usage::

    .venv/bin/python tests/perf/dlm_recipes.py RECIPE OUT.jsonl [TASK ...] [--seeds 0,1,2] \\
        [--cap '{"max_epochs": 10}']

``default`` is each task's default recipe (what ``relreason run --model dlm`` trains); any other name is
one of ``dlm.config.RECIPES`` (``study-protocol``: the study's stated protocol).  ``--cap`` overrides
settings on top, as a profile's ``dlm_recipe_overrides`` do.  Training data, seeds and test samples are
the paper profile's (run seed 20240101), the same as the pipeline's, so a line is what the pipeline's
``raw.dlm_runs`` row and F1 would be.  Each line: task, seed, recipe, cap, epochs, updates, final loss,
misfit training cells, wall seconds, F1 at n = 10 and n = 20 (mean over the ten test samples), and the
machine's load average when the training ended (the wall time is only comparable under equal load).
Lines are appended as trainings finish, so a run stopped early keeps what it measured.

``dlm_recipes.py --table A.jsonl [B.jsonl ...]`` prints the lines as the DLM README's table: per task and
recipe, the seeds measured, mean F1 at n = 10 / n = 20 (per seed in brackets), epochs, final loss, misfit
training cells, and the wall seconds per seed with the load average each ended at.
"""

from __future__ import annotations

import json
import os
import sys
import time

import torch

from relreason_dagster import profiles
from relreason_dagster.benchmarks.relational.dlm.config import config_for, default_recipe
from relreason_dagster.benchmarks.relational.dlm.train import predict, train
from relreason_dagster.benchmarks.relational.generate import decode_gold, generate_samples
from relreason_dagster.benchmarks.relational.tasks import TASKS, task_spec
from relreason_dagster.benchmarks.scoring import set_f1


def table(paths: list[str]) -> str:
    """The measured lines of ``paths`` as a Markdown table, one row per task x recipe, in file order."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for path in paths:
        with open(path) as fh:
            for line in fh:
                row = json.loads(line)
                groups.setdefault((row["task"], row["recipe"]), []).append(row)
    out = [
        "| task | recipe | seeds | F1 n=10 (per seed) | F1 n=20 (per seed) | epochs | final loss "
        "| misfit cells | wall s per seed (load avg) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for (task, recipe), rows in groups.items():

        def cell(key: str, rows: list[dict] = rows) -> str:
            values = [r[key] for r in rows]
            return f"{sum(values) / len(values):.2f} ({', '.join(f'{v:.2f}' for v in values)})"

        seeds = ", ".join(str(r["seed"]) for r in rows)
        epochs = "/".join(str(r["epochs"]) for r in rows)
        losses = "/".join(format(r["final_loss"], ".2g") for r in rows)
        misfits = "/".join(str(r["misfit_cells"]) for r in rows)
        walls = ", ".join(f"{r['wall_s']:.0f} ({r['loadavg_1m']:.0f})" for r in rows)
        out.append(
            f"| {task} | {recipe} | {seeds} | {cell('f1_n10')} | {cell('f1_n20')} | {epochs} | {losses} | "
            f"{misfits} | {walls} |"
        )
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--table":
        print(table(argv[1:]))
        return 0
    recipe_arg, out = argv[0], argv[1]
    rest = argv[2:]
    seeds, cap = [0, 1, 2], {}
    if "--seeds" in rest:
        i = rest.index("--seeds")
        seeds = [int(s) for s in rest[i + 1].split(",")]
        rest = rest[:i] + rest[i + 2 :]
    if "--cap" in rest:
        i = rest.index("--cap")
        cap = json.loads(rest[i + 1])
        rest = rest[:i] + rest[i + 2 :]
    tasks = rest or list(TASKS)
    torch.set_num_threads(1)
    profile = profiles.get_profile("paper", "relational")
    for task in tasks:
        recipe = default_recipe(task) if recipe_arg == "default" else recipe_arg
        samples = generate_samples(profile, profiles.DEFAULT_SEED, tasks=(task,))
        fewshot = [s for s in samples if s.split == "fewshot"]
        arity = task_spec(task).arity
        for seed in seeds:
            config = config_for(task, cap, recipe)
            result = train(task, fewshot, config, seed)
            f1 = {}
            for split in ("iid", "ood"):
                tests = [s for s in samples if s.split == split]
                scores = [set_f1(predict(result.model, s), decode_gold(s.gold, arity))[3] for s in tests]
                f1[split] = sum(scores) / len(scores)
            row = {
                "task": task,
                "seed": seed,
                "recipe": recipe,
                "cap": cap,
                "max_epochs": config.max_epochs,
                "epochs": result.total_epochs,
                "updates": result.total_updates,
                "final_loss": result.final_loss,
                "misfit_cells": result.train_hard_errors,
                "wall_s": round(result.wall_s, 1),
                "f1_n10": round(f1["iid"], 4),
                "f1_n20": round(f1["ood"], 4),
                "loadavg_1m": os.getloadavg()[0],
                "ended": time.strftime("%H:%M:%S", time.gmtime()),
            }
            with open(out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
