"""DLM assets: ``dlm_checkpoints[task]`` trains, ``dlm_answers[task]`` scores, both per task.

The DLM trains on the samples of the family that declares it as a baseline (``baselines`` in the
family class; the registry finds it), one partition per task of that family.  Training reads the
stored few-shot samples (those the LLM prompts contain) and is skipped when a run with the same id
already has its checkpoint on disk with the recorded hash.  The answers are ``raw.parsed_answers``
rows of model ``dlm`` and setting ``dlm``, scored by the family like a parsed answer, so the marts
treat DLM like any model.
"""

import json
import sys
from typing import Any

import dagster as dg

from relreason_dagster import settings
from relreason_dagster.benchmarks.base import Sample, stable_hash
from relreason_dagster.benchmarks.registry import baseline_family, get_family
from relreason_dagster.defs.assets import samples
from relreason_dagster.defs.partitions import DUCKDB_POOL, family_tag
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.storage.duckdb_io import fetch_dicts, markdown_table, replace_rows, upsert_rows
from relreason_dagster.storage.parsed_answers import answer_row
from relreason_dagster.storage.schema import ensure_schema

DLM = "dlm"  # dlm.plan.DLM_MODEL, named here because importing dlm.plan loads torch
BENCHMARK = baseline_family(DLM)
tasks_partitions = dg.StaticPartitionsDefinition(list(get_family(BENCHMARK).tasks))


def _stored_samples(con: Any, task: str, splits: tuple[str, ...]) -> list[Sample]:
    rows = fetch_dicts(
        con,
        "SELECT * FROM raw.samples WHERE benchmark = ? AND task = ?"
        f" AND split IN ({', '.join('?' * len(splits))})",
        [BENCHMARK, task, *splits],
    )
    return [Sample.from_row(r) for r in rows]


def _plan(con: Any, task: str, run_settings: RunSettings) -> list[Any]:
    from relreason_dagster.dlm.plan import plan_runs

    return plan_runs(
        task,
        _stored_samples(con, task, ("fewshot",)),
        run_settings.profile_for(BENCHMARK),
        run_settings.seed,
        run_settings.dlm_train_size or None,
    )


def _reusable(con: Any, run: Any) -> dict[str, Any] | None:
    """The stored dlm_runs row of ``run`` if its checkpoint file is still there, unchanged."""
    from relreason_dagster.dlm.checkpoint import file_sha256

    rows = fetch_dicts(con, "SELECT * FROM raw.dlm_runs WHERE run_id = ?", [run.run_id])
    if not rows:
        return None
    path = settings.relreason_home() / rows[0]["checkpoint_path"]
    if not path.exists() or file_sha256(path) != rows[0]["checkpoint_sha256"]:
        return None
    return rows[0]


@dg.asset(
    group_name="model_output",
    deps=[samples],
    partitions_def=tasks_partitions,
    tags=family_tag(BENCHMARK),
    description=(
        "Differentiable Logic Machines trained per task and seed on the prompts' few-shot samples of "
        "the family that declares the DLM baseline; checkpoint files under RELREASON_HOME/dlm, one "
        "raw.dlm_runs row each."
    ),
)
def dlm_checkpoints(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    task = context.partition_key
    from relreason_dagster.dlm.jobs import train_runs

    def log(line: str) -> None:
        context.log.info(line)
        print(line, file=sys.stderr)

    def done(row: dict[str, Any]) -> None:
        log(
            f"dlm {task} seed {row['seed']}: {row['total_epochs']} epochs in {row['wall_s']:.0f} s, "
            f"{row['train_hard_errors']} wrong training cells; {row['program'][:200]}"
        )

    with duckdb.get_connection() as con:
        ensure_schema(con)
        runs = _plan(con, task, run_settings)
        stored = {run.run_id: _reusable(con, run) for run in runs}
    todo = [run for run in runs if stored[run.run_id] is None]
    if todo:
        log(f"dlm {task}: training {len(todo)} seed(s) on {len(todo[0].train)} samples")
        # No DuckDB connection (nor pool slot) is held while training: tasks train side by side and
        # `relreason sql` reads meanwhile.
        new_rows = train_runs(todo, settings.relreason_home(), on_done=done)
        with duckdb.get_connection() as con:
            upsert_rows(con, "dlm_runs", new_rows)
        stored.update({row["run_id"]: row for row in new_rows})
    rows = [stored[run.run_id] for run in runs]
    trained, reused = len(todo), len(runs) - len(todo)
    table = [
        {
            "seed": r["seed"],
            "epochs": r["epochs"],
            "attempts": r["attempts"],
            "final_loss": f"{r['final_loss']:.3g}",
            "train_errors": r["train_hard_errors"],
            "wall_s": round(r["wall_s"], 1),
            "peak_rss_mb": r["peak_rss_mb"],
            "params": r["n_params"],
        }
        for r in rows
    ]
    programs = "\n\n".join(f"seed {r['seed']}:\n```\n{r['program']}\n```" for r in rows)
    return dg.MaterializeResult(
        metadata={
            "trained": trained,
            "reused": reused,
            "n_params": rows[0]["n_params"],
            "config": dg.MetadataValue.json(json.loads(rows[0]["config"])),
            "runs": dg.MetadataValue.md(markdown_table(table)),
            "programs": dg.MetadataValue.md(programs),
        }
    )


@dg.asset(
    group_name="model_output",
    pool=DUCKDB_POOL,
    deps=[dlm_checkpoints],
    partitions_def=tasks_partitions,
    tags=family_tag(BENCHMARK),
    description="DLM predictions on the IID and OOD test samples, as model 'dlm' in raw.parsed_answers.",
)
def dlm_answers(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    from relreason_dagster.dlm.checkpoint import load_checkpoint
    from relreason_dagster.dlm.plan import DLM_MODEL, DLM_SETTING
    from relreason_dagster.dlm.train import predict

    task = context.partition_key
    family = get_family(BENCHMARK)
    rows: list[dict[str, Any]] = []
    # Counts per split for the UI; the DLM's F1 is computed once, in SQL, by the marts.
    by_split: dict[str, list[bool]] = {}
    with duckdb.get_connection() as con:
        ensure_schema(con)
        tests = _stored_samples(con, task, ("iid", "ood"))
        for run in _plan(con, task, run_settings):
            stored = _reusable(con, run)
            if stored is None:
                raise dg.Failure(
                    f"no checkpoint for dlm {task} seed {run.seed}; materialize dlm_checkpoints[{task}] first"
                )
            model = load_checkpoint(settings.relreason_home() / stored["checkpoint_path"])
            for sample in tests:
                cells = predict(model, sample)
                scored = family.score_prediction(sample, cells, {"seed": run.seed, "run_id": run.run_id})
                by_split.setdefault(sample.split, []).append(bool(scored.correct))
                base = {
                    "prompt_id": stable_hash(DLM_MODEL, run.run_id, sample.sample_id),
                    "model": DLM_MODEL,
                    "sample_id": sample.sample_id,
                    "benchmark": BENCHMARK,
                    "task": task,
                    "split": sample.split,
                    "setting": DLM_SETTING,
                }
                rows.append(answer_row(base, scored))
        replace_rows(con, "parsed_answers", rows, "model = ? AND task = ?", [DLM_MODEL, task])
    return dg.MaterializeResult(
        metadata={
            "rows": len(rows),
            **{f"answers_{split}": len(v) for split, v in sorted(by_split.items())},
            **{f"exact_{split}": sum(v) for split, v in sorted(by_split.items())},
        }
    )
