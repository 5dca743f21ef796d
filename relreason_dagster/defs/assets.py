"""The pipeline's assets: samples -> prompts -> model_responses -> parsed_answers.

Each asset is a thin wrapper: it calls the pure benchmark code or the LLM
gateway and moves rows into DuckDB or the lake.  Those that write the DuckDB
file share the ``duckdb`` pool (one slot); ``model_responses`` only reads it
(briefly) and writes the lake, so models run side by side.
"""

import json
import os
import socket
import sys
import time
from collections import Counter
from typing import Any

import dagster as dg

from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.defs.partitions import CELERY_QUEUE_TAG, DUCKDB_POOL, MODEL_QUEUE, models_partitions
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.llm.gateway import ProgressPrinter, run_model
from relreason_dagster.llm.registry import get_model, require_api_key
from relreason_dagster.llm.tokenizer import DEFAULT_TOKENIZER, count_tokens
from relreason_dagster.storage.duckdb_io import fetch_dicts, markdown_table, replace_rows
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.parsed_answers import refresh_parsed_answers
from relreason_dagster.storage.prompt_snapshots import current_prompts, write_snapshot
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import TEST_KIND, ensure_schema


def _in_list(values: list[str]) -> str:
    return ", ".join("?" for _ in values)


@dg.asset(
    group_name="inputs",
    pool=DUCKDB_POOL,
    description="Generated benchmark samples of every selected family at the run's profile (raw.samples).",
)
def samples(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    rows: list[dict[str, Any]] = []
    for name in run_settings.family_names():
        family = get_family(name)
        generated = family.generate(run_settings.profile_for(name), run_settings.seed)
        rows.extend(s.row() for s in generated)
    families = run_settings.family_names()
    with duckdb.get_connection() as con:
        ensure_schema(con)
        replace_rows(con, "samples", rows, f"benchmark IN ({_in_list(families)})", families)
    counts = Counter((r["benchmark"], r["task"], r["split"]) for r in rows)
    summary = [
        {"benchmark": b, "task": t, "split": s, "samples": c} for (b, t, s), c in sorted(counts.items())
    ]
    return dg.MaterializeResult(
        metadata={
            "rows": len(rows),
            "profile": run_settings.profile,
            "seed": run_settings.seed,
            "per_task": dg.MetadataValue.md(markdown_table(summary, limit=60)),
        }
    )


@dg.asset(
    group_name="inputs",
    pool=DUCKDB_POOL,
    deps=[samples],
    description="Prompts for every test sample and setting, with input token counts (raw.prompts).",
)
def prompts(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    families = run_settings.family_names()
    rows: list[dict[str, Any]] = []
    with duckdb.get_connection() as con:
        ensure_schema(con)
        for name in families:
            family = get_family(name)
            sample_rows = fetch_dicts(con, "SELECT * FROM raw.samples WHERE benchmark = ?", [name])
            built = family.build_prompts(
                [Sample.from_row(r) for r in sample_rows], run_settings.profile_for(name)
            )
            # prompt_id hashes the prompt's content, so a stored count is still exact: tokenize only new ones.
            known = dict(
                con.execute(
                    "SELECT prompt_id, input_tokens FROM raw.prompts WHERE benchmark = ? AND tokenizer = ?",
                    [name, DEFAULT_TOKENIZER],
                ).fetchall()
            )
            for p in built:
                row = p.row()
                tokens = known.get(p.prompt_id)
                row["input_tokens"] = tokens if tokens is not None else count_tokens(p.messages)
                row["tokenizer"] = DEFAULT_TOKENIZER
                row["kind"] = TEST_KIND
                rows.append(row)
        # Only test prompts are rebuilt here; follow-ups (self-correction, judge) belong to their assets.
        replace_rows(
            con, "prompts", rows, f"kind = '{TEST_KIND}' AND benchmark IN ({_in_list(families)})", families
        )
    lake = Lake.default()
    for name in families:  # model workers read these, so model calls never need the DuckDB file
        write_snapshot(lake, name, [r for r in rows if r["benchmark"] == name])
    by_setting = Counter((r["benchmark"], r["setting"]) for r in rows)
    tokens = [r["input_tokens"] for r in rows]
    preview = rows[0]["messages"][:1500] if rows else ""
    return dg.MaterializeResult(
        metadata={
            "rows": len(rows),
            "per_setting": dg.MetadataValue.json({f"{b}/{s}": c for (b, s), c in sorted(by_setting.items())}),
            "input_tokens_max": max(tokens, default=0),
            "input_tokens_mean": round(sum(tokens) / len(tokens), 1) if tokens else 0,
            "preview": dg.MetadataValue.md(f"```\n{preview}\n```"),
        }
    )


@dg.asset(
    group_name="model_output",
    deps=[prompts],
    # Celery: model calls go to the queue every worker serves, also on machines without the DuckDB file.
    op_tags={CELERY_QUEUE_TAG: MODEL_QUEUE},
    partitions_def=models_partitions,
    description="One model's responses to every prompt, through LiteLLM, cached by request "
    "(Parquet lake; the view raw.responses).",
)
def model_responses(context: dg.AssetExecutionContext, run_settings: RunSettings):
    started = time.time()
    spec = get_model(run_settings.models_path(), context.partition_key)
    require_api_key(spec)
    lake = Lake.default()
    # The prompts' lake snapshot, not the DuckDB file: this step runs on any worker that sees the lake.
    todo = current_prompts(lake, run_settings.family_names())
    for row in todo:
        row["messages"] = json.loads(row["messages"])
    # Progress goes to the run's log (UI) and to stderr (CLI, compute logs).
    progress = ProgressPrinter(log=lambda line: (context.log.info(line), print(line, file=sys.stderr)))
    stats = run_model(ResponseStore(lake), spec, todo, progress=progress)
    context.log.info(stats.summary())
    return dg.MaterializeResult(
        metadata={
            "prompts": len(todo),
            "model_calls": stats.called,
            "from_cache": stats.cached,
            "already_stored": stats.skipped,
            "errors": stats.errors,
            "seconds": round(stats.seconds, 2),
            "summary": stats.summary(),
            # Where and when it ran: a distributed run's steps can be told apart and their overlap seen.
            "worker": f"{socket.gethostname()}:{os.getpid()}",
            "started_at": started,
            "finished_at": time.time(),
        }
    )


@dg.asset(
    group_name="model_output",
    pool=DUCKDB_POOL,
    deps=[model_responses],
    partitions_def=models_partitions,
    description="Parsed and scored answers of one model to the test prompts (raw.parsed_answers); "
    "never calls a model.",
)
def parsed_answers(context: dg.AssetExecutionContext, duckdb: DuckDBFile):
    model = context.partition_key
    with duckdb.get_connection() as con:
        ensure_schema(con)
        counts = refresh_parsed_answers(con, model)
        status = con.execute(
            "SELECT parse_status, count(*) FROM raw.parsed_answers a JOIN raw.prompts p USING (prompt_id)"
            " WHERE a.model = ? AND p.kind = ? GROUP BY 1 ORDER BY 1",
            [model, TEST_KIND],
        ).fetchall()
    return dg.MaterializeResult(
        metadata={**counts, **{f"parse_status_{k}": v for k, v in status}},
    )
