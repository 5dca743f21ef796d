"""Every family's follow-up steps as Dagster assets: one generic asset per declared step.

A step (``benchmarks.base.FollowUpStep``) is plain Python: the stored rows it reads, the prompts it
asks, the rows it stores.  This module only moves those rows: it runs the step's queries, asks the
model through ``llm/ask.py`` until the step asks nothing new (a multi-round step takes one batch per
round: ``llm.ask.run_step``), and replaces the step's rows in its table.  Where the asset sits
follows the step's stage:

* ``inputs``: in the ``prepare`` job, before any model;
* ``per_model``: one run per model partition after its parsed answers, asking that model;
* ``across_models``: after every model's answers, asking the step model (the run's ``--judge`` or
  the profile knob the step names).
"""

import sys
from typing import Any

import dagster as dg

from relreason_dagster.benchmarks.base import MODEL_ENTRY, FollowUpStep, Reply, StepPrompt
from relreason_dagster.benchmarks.registry import FAMILIES, family_steps
from relreason_dagster.common.duckdb_rows import fetch_dicts, replace_rows
from relreason_dagster.defs.assets import parsed_answers
from relreason_dagster.defs.partitions import DUCKDB_POOL, family_tag, models_partitions
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.defs.vanished_files import retry_if_lake_files_vanish
from relreason_dagster.launch_plan import spec_record
from relreason_dagster.llm.ask import ask_model, run_step
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.run_stats import ProgressPrinter
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import ensure_schema

STEP_KIND_META = "step_kind"  # metadata key of every step materialization: the report counts its calls


def _deps(step: FollowUpStep) -> list[Any]:
    """A step after the models reads their parsed answers; every step reads the steps it names."""
    upstream: list[Any] = [] if step.stage == "inputs" else [parsed_answers]
    return [*upstream, *(dg.AssetKey(name) for name in step.after)]


def _metadata_value(value: Any) -> Any:
    return dg.MetadataValue.json(value) if isinstance(value, dict | list) else value


def step_asset(family: str, step: FollowUpStep) -> dg.AssetsDefinition:
    """The asset of ``family``'s ``step``, named like the step."""
    per_model = step.stage == "per_model"

    @dg.asset(
        name=step.name,
        group_name="inputs" if step.stage == "inputs" else "follow_ups",
        deps=_deps(step),
        partitions_def=models_partitions if per_model else None,
        # A step that asks no model holds the DuckDB file throughout; one that asks opens it briefly.
        pool=DUCKDB_POOL if step.kind is None else None,
        tags=family_tag(family),
        description=step.description,
    )
    def _step(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
        profile = run_settings.profile_for(family)
        if per_model:
            model = context.partition_key
        elif step.kind is not None:
            named = run_settings.step_model_name(family, step)
            if named is None:  # its model has no key: the launch said so in one line
                return dg.MaterializeResult(metadata={"rows": 0, "left_out": "its model's key is not set"})
            model = named
        else:
            model = ""
        # Another model's run may compact its lake files while this one reads (defs/vanished_files.py).
        with retry_if_lake_files_vanish(), duckdb.get_connection() as con:
            ensure_schema(con)
            stored = {
                name: fetch_dicts(con, sql, params)
                for name, (sql, params) in step.reads(model, profile).items()
            }
        if per_model and getattr(step, "reads_model_entry", False):  # as the launch resolved it
            stored[MODEL_ENTRY] = [spec_record(run_settings.model(model))]
        counts = {"prompts": 0, "model_calls": 0, "shared_prompts": 0, "from_cache": 0, "errors": 0}
        store = ResponseStore.default()
        progress = ProgressPrinter(log=lambda line: (context.log.info(line), print(line, file=sys.stderr)))
        specs: list[ModelEntry] = []

        def ask(batch: list[StepPrompt]) -> dict[str, Reply]:
            if not specs:  # a step with nothing to ask needs no model (nor its key)
                specs.append(run_settings.model(model) if per_model else run_settings.step_spec(family, step))
            result = ask_model(
                specs[0],
                batch,
                benchmark=family,
                kind=str(step.kind),
                connect=duckdb.get_connection,
                store=store,
                progress=progress,
                key_checked=True,  # the launch's plan checked it (a run from the UI: its step's plan)
                ledger=context.run_id,  # the requests sent, kept for the launch's count
            )
            counts["prompts"] += len(batch)
            counts["model_calls"] += result.stats.called
            counts["shared_prompts"] += result.stats.shared
            counts["from_cache"] += result.stats.cached + result.stats.skipped
            counts["errors"] += result.stats.errors
            return result.replies

        out = run_step(step, stored, profile, model, ask)
        with duckdb.get_connection() as con:
            replace_rows(con, step.table, out.rows, out.replace_where, out.replace_params)
        meta: dict[str, Any] = {"rows": len(out.rows)}
        if step.kind is not None:
            meta |= {STEP_KIND_META: step.kind, "step_model": model, **counts}
        meta |= {k: _metadata_value(v) for k, v in out.summary.items()}
        return dg.MaterializeResult(metadata=meta)

    return _step


def steps_in(stage: str) -> list[dg.AssetsDefinition]:
    """The step assets of every registered family that run at ``stage``."""
    return [asset for (_, step), asset in STEP_ASSETS.items() if step.stage == stage]


STEP_ASSETS: dict[tuple[str, FollowUpStep], dg.AssetsDefinition] = {
    (name, step): step_asset(name, step) for name in FAMILIES for step in family_steps(name)
}


def asset_of(step_name: str) -> dg.AssetsDefinition:
    """The asset of the step named ``step_name`` (whatever family declares it)."""
    for (_, step), asset in STEP_ASSETS.items():
        if step.name == step_name:
            return asset
    raise KeyError(step_name)
