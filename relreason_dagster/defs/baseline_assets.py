"""Baseline assets: ``<name>_checkpoints[task]`` trains, ``<name>_answers[task]`` scores, per task.

A family declares its non-LLM baselines in its own folder (``baseline.py``, ``BASELINES``: the
relational study's DLM); this module makes the same two assets for each, knowing nothing of what it
trains.  Training reads the stored samples of the baseline's ``train_splits`` (for the DLM, the
few-shot samples the LLM prompts show) and is skipped when a run with the same id already has intact
weights.  The answers are ``raw.parsed_answers`` rows of model ``name``, scored by the family like a
parsed answer, so the marts treat a baseline like any model.
"""

import json
import sys
from typing import Any

import dagster as dg

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Baseline, Sample, stable_hash
from relreason_dagster.benchmarks.registry import baseline_family, baseline_names, get_baseline, get_family
from relreason_dagster.common.duckdb_rows import fetch_dicts, markdown_table, replace_rows, upsert_rows
from relreason_dagster.defs.assets import samples
from relreason_dagster.defs.dbt_families import baseline_source
from relreason_dagster.defs.partitions import DUCKDB_POOL, family_tag
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.storage.parsed_answers import answer_row
from relreason_dagster.storage.schema import ensure_schema


def _stored_samples(con: Any, family: str, task: str, splits: tuple[str, ...]) -> list[Sample]:
    rows = fetch_dicts(
        con,
        "SELECT * FROM raw.samples WHERE benchmark = ? AND task = ?"
        f" AND split IN ({', '.join('?' * len(splits))})",
        [family, task, *splits],
    )
    return [Sample.from_row(r) for r in rows]


def _plan(con: Any, baseline: Baseline, family: str, task: str, run_settings: RunSettings) -> list[Any]:
    return baseline.plan(
        task,
        _stored_samples(con, family, task, baseline.train_splits),
        run_settings.profile_for(family),
        run_settings.seed,
        run_settings.dlm_train_size or None,
    )


def _reusable(con: Any, baseline: Baseline, run: Any) -> dict[str, Any] | None:
    """The stored training row of ``run`` if its weights are still there, unchanged."""
    rows = fetch_dicts(con, f"SELECT * FROM raw.{baseline.runs_table} WHERE run_id = ?", [run.run_id])
    if not rows or not baseline.intact(rows[0], paths.relreason_home()):
        return None
    return rows[0]


def _outside_profile(baseline: Baseline, family: str, task: str, run_settings: RunSettings) -> str | None:
    """Why ``task`` is not trained under this run's profile, or None when the profile names it.

    The partitions are every task of the family, so the UI's "Materialize all" asks for all of them;
    only the profile's tasks are trained (the smoke profile's two, not nine), as `relreason run` does.
    """
    profile = run_settings.profile_for(family)
    if task in baseline.tasks(profile, run_settings.dlm_train_size or None):
        return None
    return f"{task} is not among profile {profile.name!r}'s tasks for this baseline: nothing trained"


def baseline_assets(model: str) -> tuple[dg.AssetsDefinition, dg.AssetsDefinition]:
    """The training and scoring assets of baseline ``model``, one partition per task of its family."""
    baseline = get_baseline(model)
    family = baseline_family(model)
    partitions = dg.StaticPartitionsDefinition(list(get_family(family).tasks))

    @dg.asset(
        name=f"{model}_checkpoints",
        group_name="model_output",
        deps=[samples],
        partitions_def=partitions,
        tags=family_tag(family),
        description=(
            f"{baseline.description}: trained per task and seed on the stored "
            f"{'/'.join(baseline.train_splits)} samples of the {family} family; weights under "
            f"RELREASON_HOME, one raw.{baseline.runs_table} row each."
        ),
    )
    def checkpoints(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
        task = context.partition_key
        skipped = _outside_profile(baseline, family, task, run_settings)
        if skipped is not None:
            context.log.info(skipped)
            return dg.MaterializeResult(metadata={"trained": 0, "reused": 0, "skipped": skipped})

        def log(line: str) -> None:
            context.log.info(line)
            print(line, file=sys.stderr)

        with duckdb.get_connection() as con:
            ensure_schema(con)
            runs = _plan(con, baseline, family, task, run_settings)
            stored = {run.run_id: _reusable(con, baseline, run) for run in runs}
        todo = [run for run in runs if stored[run.run_id] is None]
        if todo:
            log(f"{model} {task}: training {len(todo)} seed(s) on {len(todo[0].train)} samples")
            # No DuckDB connection (nor pool slot) is held while training: tasks train side by side and
            # `relreason sql` reads meanwhile.
            new_rows = baseline.train(
                todo,
                paths.relreason_home(),
                on_done=lambda row: log(baseline.done_line(task, row)),
                workers=run_settings.dlm_workers or None,
            )
            with duckdb.get_connection() as con:
                upsert_rows(con, baseline.runs_table, new_rows)
            stored.update({row["run_id"]: row for row in new_rows})
        summary = baseline.summary([stored[run.run_id] for run in runs])
        return dg.MaterializeResult(
            metadata={
                "trained": len(todo),
                "reused": len(runs) - len(todo),
                "n_params": summary["n_params"],
                "config": dg.MetadataValue.json(json.loads(summary["config"])),
                "runs": dg.MetadataValue.md(markdown_table(summary["runs"])),
                "programs": dg.MetadataValue.md(summary["programs"]),
            }
        )

    @dg.asset(
        name=baseline_source(model),
        group_name="model_output",
        pool=DUCKDB_POOL,
        deps=[checkpoints],
        partitions_def=partitions,
        tags=family_tag(family),
        description=(
            f"{baseline.description}: predictions on the {'/'.join(baseline.test_splits)} samples, as "
            f"model '{model}' in raw.parsed_answers."
        ),
    )
    def answers(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
        task = context.partition_key
        skipped = _outside_profile(baseline, family, task, run_settings)
        if skipped is not None:  # rows a profile that names the task stored are kept
            context.log.info(skipped)
            return dg.MaterializeResult(metadata={"rows": 0, "skipped": skipped})
        scorer = get_family(family)
        rows: list[dict[str, Any]] = []
        # Counts per split for the UI; the baseline's F1 is computed once, in SQL, by the marts.
        by_split: dict[str, list[bool]] = {}
        with duckdb.get_connection() as con:
            ensure_schema(con)
            tests = _stored_samples(con, family, task, baseline.test_splits)
            for run in _plan(con, baseline, family, task, run_settings):
                stored = _reusable(con, baseline, run)
                if stored is None:
                    raise dg.Failure(
                        f"no trained weights for {model} {task} seed {run.seed}; "
                        f"materialize {model}_checkpoints[{task}] first"
                    )
                predict = baseline.predictor(stored, paths.relreason_home())
                for sample in tests:
                    # A baseline may train several recipes side by side: each run names its own setting.
                    detail = {"seed": run.seed, "run_id": run.run_id}
                    if getattr(run, "recipe", ""):
                        detail["recipe"] = run.recipe
                    scored = scorer.score_prediction(sample, predict(sample), detail)
                    by_split.setdefault(sample.split, []).append(bool(scored.correct))
                    base = {
                        "prompt_id": stable_hash(model, run.run_id, sample.sample_id),
                        "model": model,
                        "sample_id": sample.sample_id,
                        "benchmark": family,
                        "task": task,
                        "split": sample.split,
                        "setting": getattr(run, "setting", baseline.setting),
                    }
                    rows.append(answer_row(base, scored))
            replace_rows(con, "parsed_answers", rows, "model = ? AND task = ?", [model, task])
        return dg.MaterializeResult(
            metadata={
                "rows": len(rows),
                **{f"answers_{split}": len(v) for split, v in sorted(by_split.items())},
                **{f"exact_{split}": sum(v) for split, v in sorted(by_split.items())},
            }
        )

    return checkpoints, answers


# Every registered family's baselines: model name -> (training asset, scoring asset).
BASELINE_ASSETS: dict[str, tuple[dg.AssetsDefinition, dg.AssetsDefinition]] = {
    model: baseline_assets(model) for model in baseline_names()
}


def baseline_job(model: str) -> str:
    """The job that trains and scores baseline ``model``: one run per task partition."""
    return f"{model}_work"
